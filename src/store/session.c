/*
 * session.c — the session store: the pure record parser first, then the
 * file side (create, resume, append, list).  Format and life cycle:
 * session.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "store/fsutil.h"
#include "store/session.h"
#include "util/json.h"
#include "util/utf8.h"

#define SESSION_READ_CHUNK 65536

/* ------------------------------------------------------------------ */
/* Records: validation and the clean copy handed to the API            */

int session_id_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 0 && n <= SESSION_ID_MAX && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
	       s[0] != '-';
}

static const char *str_field(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* Copy a tool_result's content: a string, or an array of text blocks. */
static cJSON *clean_result_content(const cJSON *c, char **why)
{
	if (cJSON_IsString(c))
		return cJSON_CreateString(c->valuestring);
	if (!cJSON_IsArray(c)) {
		*why = xstrdup("a tool_result's content is neither a string nor a list of blocks");
		return NULL;
	}
	cJSON *out = cJSON_CreateArray();
	const cJSON *b;
	cJSON_ArrayForEach(b, c) {
		const char *t = str_field(b, "type"), *text = str_field(b, "text");
		if (!t || strcmp(t, "text") != 0 || !text) {
			*why = xstrdup("a tool_result's content holds a block that is not text");
			cJSON_Delete(out);
			return NULL;
		}
		cJSON *nb = cJSON_CreateObject();
		cJSON_AddStringToObject(nb, "type", "text");
		cJSON_AddStringToObject(nb, "text", text);
		cJSON_AddItemToArray(out, nb);
	}
	return out;
}

/*
 * Validate one message object and return a copy holding only the fields
 * the Messages API knows.  want_role NULL accepts either role.  *kind:
 * 1 = a prompt (user text, no tool_result), 2 = tool results, 0 = assistant.
 */
static cJSON *clean_message(const cJSON *m, const char *want_role, int *kind, char **why)
{
	const char *role = str_field(m, "role");
	if (!role || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0)) {
		*why = xstrdup("a message's role is neither user nor assistant");
		return NULL;
	}
	if (want_role && strcmp(role, want_role) != 0) {
		*why = xasprintf("expected a message of role %s", want_role);
		return NULL;
	}
	int user = role[0] == 'u';
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
	if (!cJSON_IsArray(content) || cJSON_GetArraySize(content) == 0) {
		*why = xstrdup("a message has no content blocks");
		return NULL;
	}
	cJSON *out = cJSON_CreateObject(), *blocks = cJSON_CreateArray();
	cJSON_AddStringToObject(out, "role", role);
	cJSON_AddItemToObject(out, "content", blocks);
	int results = 0;
	const cJSON *b;
	cJSON_ArrayForEach(b, content) {
		const char *t = str_field(b, "type");
		cJSON *nb = cJSON_CreateObject();
		cJSON_AddItemToArray(blocks, nb);
		if (t && strcmp(t, "text") == 0) {
			const char *text = str_field(b, "text");
			if (!text) {
				*why = xstrdup("a text block has no text");
				goto bad;
			}
			if (!user && json_text_blank(text, strlen(text))) {
				/* the API refuses it in a history: one an earlier
				 * sandbx kept is left out (fold.c keeps none now) */
				cJSON_DeleteItemFromArray(blocks, cJSON_GetArraySize(blocks) - 1);
				continue;
			}
			cJSON_AddStringToObject(nb, "type", "text");
			cJSON_AddStringToObject(nb, "text", text);
		} else if (t && strcmp(t, "thinking") == 0 && !user) {
			/* Extended thinking: the API wants it replayed with its
			 * signature, unchanged, before the tool_use it led to. */
			const char *th = str_field(b, "thinking"), *sig = str_field(b, "signature");
			if (!th || !sig || !*sig) {
				*why = xstrdup("a thinking block lacks its thinking or signature");
				goto bad;
			}
			cJSON_AddStringToObject(nb, "type", "thinking");
			cJSON_AddStringToObject(nb, "thinking", th);
			cJSON_AddStringToObject(nb, "signature", sig);
		} else if (t && strcmp(t, "redacted_thinking") == 0 && !user) {
			const char *data = str_field(b, "data");
			if (!data || !*data) {
				*why = xstrdup("a redacted_thinking block lacks its data");
				goto bad;
			}
			cJSON_AddStringToObject(nb, "type", "redacted_thinking");
			cJSON_AddStringToObject(nb, "data", data);
		} else if (t && strcmp(t, "tool_use") == 0 && !user) {
			const char *id = str_field(b, "id"), *name = str_field(b, "name");
			const cJSON *input = cJSON_GetObjectItemCaseSensitive(b, "input");
			if (!id || !*id || !name || !*name || !cJSON_IsObject(input)) {
				*why = xstrdup("a tool_use block lacks its id, name or input object");
				goto bad;
			}
			cJSON_AddStringToObject(nb, "type", "tool_use");
			cJSON_AddStringToObject(nb, "id", id);
			cJSON_AddStringToObject(nb, "name", name);
			cJSON_AddItemToObject(nb, "input", cJSON_Duplicate(input, 1));
		} else if (t && strcmp(t, "tool_result") == 0 && user) {
			const char *id = str_field(b, "tool_use_id");
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "content");
			const cJSON *ie = cJSON_GetObjectItemCaseSensitive(b, "is_error");
			if (!id || !*id || !c || (ie && !cJSON_IsBool(ie))) {
				*why = xstrdup("a tool_result block lacks its tool_use_id or content");
				goto bad;
			}
			cJSON *nc = clean_result_content(c, why);
			if (!nc)
				goto bad;
			cJSON_AddStringToObject(nb, "type", "tool_result");
			cJSON_AddStringToObject(nb, "tool_use_id", id);
			cJSON_AddItemToObject(nb, "content", nc);
			if (cJSON_IsTrue(ie))
				cJSON_AddTrueToObject(nb, "is_error");
			results++;
		} else {
			*why = t && strlen(t) <= 32 && strspn(t, "abcdefghijklmnopqrstuvwxyz_") == strlen(t)
				       ? xasprintf("unknown content block type '%s' in a%s message", t,
						   user ? " user" : "n assistant")
				       : xstrdup("a content block of unknown type");
			goto bad;
		}
	}
	if (cJSON_GetArraySize(blocks) == 0) {
		/* only blank text: said as agent.c says an empty answer */
		cJSON *nb = cJSON_CreateObject();
		cJSON_AddStringToObject(nb, "type", "text");
		cJSON_AddStringToObject(nb, "text", "(no answer)");
		cJSON_AddItemToArray(blocks, nb);
	}
	*kind = !user ? 0 : results ? 2 : 1;
	return out;
bad:
	cJSON_Delete(out);
	return NULL;
}

/* tool_use ids of an assistant message (clean form). */
static void tool_use_ids(const cJSON *msg, struct strv *ids)
{
	const cJSON *b;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(msg, "content")) {
		const char *t = str_field(b, "type");
		if (t && strcmp(t, "tool_use") == 0)
			strv_push(ids, str_field(b, "id"));
	}
}

static int has_result(const cJSON *msg, const char *id)
{
	const cJSON *b;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(msg, "content")) {
		const char *t = str_field(b, "type"), *u = str_field(b, "tool_use_id");
		if (t && strcmp(t, "tool_result") == 0 && u && strcmp(u, id) == 0)
			return 1;
	}
	return 0;
}

/* Append msg to the replay array arr, whose last message is last (NULL
 * when it is empty), merging it into last when both have the same role
 * (the API wants the roles to alternate).  The caller keeps last, as
 * cJSON finds an array's size or its item n only by walking it, which
 * made a parse quadratic in the messages.  Takes msg; returns 1 when it
 * became a message of its own, 0 when it was merged. */
static int replay_push(cJSON *arr, cJSON *last, cJSON *msg)
{
	if (last && strcmp(str_field(last, "role"), str_field(msg, "role")) == 0) {
		cJSON *dst = cJSON_GetObjectItemCaseSensitive(last, "content");
		cJSON *src = cJSON_DetachItemFromObjectCaseSensitive(msg, "content");
		cJSON *b;
		while ((b = cJSON_DetachItemFromArray(src, 0)) != NULL)
			cJSON_AddItemToArray(dst, b);
		cJSON_Delete(src);
		cJSON_Delete(msg);
		return 0;
	}
	cJSON_AddItemToArray(arr, msg);
	return 1;
}

/* ------------------------------------------------------------------ */
/* The resumable parser                                               */

struct session_parser {
	unsigned flags;
	/* line assembler: holds the bytes of the line not yet ended */
	char *line;
	size_t len, size;
	uint64_t lineno;	/* lines ended so far */
	uint64_t offset;	/* bytes consumed */
	uint64_t good_end;	/* offset just past the last line kept */
	int failed, finished;
	char *error;
	uint64_t pending_bad;	/* a line that was not JSON: fatal unless it is the last */
	int saw_header;
	struct session_info info;
	struct strv notes;
	cJSON *msgs;		/* clean messages, same-role neighbours merged */
	cJSON *last_msg;	/* the last of them, NULL when none */
	uint64_t *msg_line;	/* the line of each */
	size_t nmsgs, msg_line_cap;
	int turn_open, last_stopped, torn;
	struct strv dangling;
};

struct session_parser *session_parser_new(unsigned flags)
{
	struct session_parser *p = xcalloc(1, sizeof(*p));
	p->flags = flags;
	p->msgs = cJSON_CreateArray();
	return p;
}

void session_parser_free(struct session_parser *p)
{
	if (!p)
		return;
	free(p->line);
	free(p->error);
	free(p->info.first_prompt);
	free(p->info.error);
	strv_free(&p->notes);
	strv_free(&p->dangling);
	cJSON_Delete(p->msgs);
	free(p->msg_line);
	free(p);
}

static int fail(struct session_parser *p, uint64_t line, char *why)
{
	if (!p->failed) {
		p->failed = 1;
		p->error = xasprintf("line %llu: %s", (unsigned long long)line, why);
	}
	free(why);
	return -1;
}

const char *session_parser_error(const struct session_parser *p) { return p->error; }
const struct session_info *session_parser_info(const struct session_parser *p) { return &p->info; }
const struct strv *session_parser_notes(const struct session_parser *p) { return &p->notes; }
uint64_t session_parser_good_end(const struct session_parser *p) { return p->good_end; }
const struct strv *session_parser_dangling(const struct session_parser *p) { return &p->dangling; }

/* The first line of a prompt, cut at SESSION_TITLE_MAX bytes on a UTF-8
 * boundary, C0, DEL and C1 controls (U+0080..U+009F, e.g. a one-byte CSI
 * to some terminals) made '?': it is printed to a terminal. */
static char *title_of(const cJSON *msg)
{
	const cJSON *b;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(msg, "content")) {
		const char *t = str_field(b, "type"), *text = str_field(b, "text");
		if (!t || strcmp(t, "text") != 0 || !text)
			continue;
		while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
			text++;
		size_t n = strcspn(text, "\n");
		n = utf8_cut(text, n, SESSION_TITLE_MAX);
		char *out = xstrndup(text, n), *w = out;
		for (const unsigned char *r = (const unsigned char *)out; *r; r++) {
			if (*r == 0xc2 && r[1] >= 0x80 && r[1] <= 0x9f) {
				*w++ = '?';
				r++;
			} else {
				*w++ = (*r < 0x20 || *r == 0x7f) ? '?' : (char)*r;
			}
		}
		*w = '\0';
		return out;
	}
	return xstrdup("");
}

static int is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

static int record(struct session_parser *p, uint64_t ln, const cJSON *o)
{
	const cJSON *tv = cJSON_GetObjectItemCaseSensitive(o, "type");
	const char *type = cJSON_IsString(tv) ? tv->valuestring : NULL;
	if (!type)
		return fail(p, ln, xstrdup("a record without a \"type\""));
	if (!p->saw_header) {
		if (strcmp(type, "header") != 0)
			return fail(p, ln, xstrdup("the file does not start with a session header — not a sandbx session"));
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "version");
		if (!v)
			return fail(p, ln, xstrdup("the header has no version"));
		if (!cJSON_IsNumber(v))
			return fail(p, ln, xstrdup("the header's version is not a number — not a sandbx session"));
		/* shown whole (%g made 1.0000000001 read as the 1 it is not), and
		 * only a whole number above ours is a newer sandbx's */
		double d = v->valuedouble;
		if (d != SESSION_VERSION) {
			if (d > SESSION_VERSION && d <= 1e6 && d == (double)(long)d)
				return fail(p, ln, xasprintf("session version %ld was written by a newer sandbx (this one "
							     "reads %d) — use the sandbx that wrote it", (long)d,
							     SESSION_VERSION));
			int prec = 15;	/* the fewest digits that read back as d */
			char shown[32];
			do
				snprintf(shown, sizeof(shown), "%.*g", prec, d);
			while (strtod(shown, NULL) != d && ++prec <= 17);
			return fail(p, ln, xasprintf("session version %s is one no sandbx writes (this one reads %d) "
						     "— the header is damaged", shown, SESSION_VERSION));
		}
		const char *id = str_field(o, "id");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "created");
		if (!id || !session_id_valid(id) || !cJSON_IsNumber(c) || !(c->valuedouble >= 0 && c->valuedouble < 1e15))
			return fail(p, ln, xstrdup("the header lacks a valid id or created time"));
		snprintf(p->info.id, sizeof(p->info.id), "%s", id);
		p->info.created = (int64_t)c->valuedouble;
		p->saw_header = 1;
		return 0;
	}
	if (strcmp(type, "header") == 0)
		return fail(p, ln, xstrdup("a second session header"));
	if (strcmp(type, "message") == 0) {
		char *why = NULL;
		int kind = 0;
		cJSON *m = clean_message(o, NULL, &kind, &why);
		if (!m)
			return fail(p, ln, why);
		if (kind == 1) {
			p->info.turns++;
			p->turn_open = 1;
			p->last_stopped = 0;
			if (!p->info.first_prompt)
				p->info.first_prompt = title_of(m);
		}
		if (p->flags & SESSION_PARSE_SUMMARY) {
			cJSON_Delete(m);
			return 0;
		}
		if (p->nmsgs == 0 && kind == 0) {
			cJSON_Delete(m);
			return fail(p, ln, xstrdup("the first message is the assistant's — a history starts with a user message"));
		}
		/* Kept merged as the API wants them: consecutive messages of one
		 * role become one (a stopped turn's tool results and the next
		 * prompt; a repaired tail).  The line is that of the first part. */
		if (replay_push(p->msgs, p->last_msg, m)) {
			p->last_msg = m;
			if (p->nmsgs == p->msg_line_cap) {
				p->msg_line_cap = p->msg_line_cap ? 2 * p->msg_line_cap : 64;
				p->msg_line = xrealloc(p->msg_line, p->msg_line_cap * sizeof(*p->msg_line));
			}
			p->msg_line[p->nmsgs++] = ln;
		}
		return 0;
	}
	if (strcmp(type, "turn") == 0) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "stopped");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "usage");
		if (!str_field(o, "stop_reason") || (st && !cJSON_IsBool(st)) || (u && !cJSON_IsObject(u)))
			return fail(p, ln, xstrdup("a turn record lacks its stop_reason, or has a malformed stopped/usage"));
		p->turn_open = 0;
		p->last_stopped = cJSON_IsTrue(st);
		return 0;
	}
	if (strlen(type) <= 32 && strspn(type, "abcdefghijklmnopqrstuvwxyz_") == strlen(type))
		return fail(p, ln, xasprintf("unknown record type '%s' — written by a newer sandbx?", type));
	return fail(p, ln, xstrdup("unknown record type"));
}

/*
 * A NUL in the line, raw or as the escape \u0000: cJSON would take the
 * string it sits in as ending there, and sandbx writes neither (its
 * strings are C strings).  A backslash escaping a backslash is skipped,
 * so the text "\\u0000" is not one.
 */
static int has_nul(const char *s, size_t n)
{
	if (memchr(s, '\0', n))
		return 1;
	for (const char *c = memchr(s, '\\', n); c; c = memchr(c, '\\', n - (size_t)(c - s))) {
		size_t left = n - (size_t)(c - s);
		if (left >= 6 && memcmp(c, "\\u0000", 6) == 0)
			return 1;
		c += left >= 2 ? 2 : 1;
		if (c >= s + n)
			break;
	}
	return 0;
}

/* One complete line (without its newline). */
static int line_done(struct session_parser *p, const char *s, size_t n)
{
	uint64_t ln = ++p->lineno;
	if (is_blank(s, n)) {
		if (!p->pending_bad)
			p->good_end = p->offset;
		return 0;
	}
	if (p->pending_bad)
		return fail(p, p->pending_bad, xstrdup("not a JSON object, and lines follow it — the file is damaged"));
	/* A NUL is in no line sandbx wrote, and cJSON would take the string
	 * it sits in as ending there: not JSON. */
	const char *end = NULL;
	cJSON *o = has_nul(s, n) ? NULL : cJSON_ParseWithLengthOpts(s, n, &end, 0);
	/* Past cJSON's depth it may be JSON, just not read; and no append
	 * cut short is deeper than the few levels of a line sandbx wrote. */
	if (!o && json_too_deep(s, n, end))
		return fail(p, ln, xasprintf("nested more than %d levels deep, deeper than sandbx reads — not a line "
					     "sandbx wrote; the file is damaged", JSON_NESTING_LIMIT));
	if (!o || !cJSON_IsObject(o) || !end || !is_blank(end, n - (size_t)(end - s))) {
		cJSON_Delete(o);
		p->pending_bad = ln;	/* a torn append if nothing follows */
		return 0;
	}
	int r = record(p, ln, o);
	cJSON_Delete(o);
	if (r == 0)
		p->good_end = p->offset;
	return r;
}

int session_parser_feed(struct session_parser *p, const char *buf, size_t n)
{
	if (p->failed || p->finished)
		return -1;
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		if (p->len + take + 1 > SESSION_MAX_LINE)
			return fail(p, p->lineno + 1, xasprintf("longer than %u bytes — not a line sandbx wrote",
								  SESSION_MAX_LINE));
		if (p->len + take + 1 > p->size) {
			size_t want = p->size ? p->size : 256;
			while (want < p->len + take + 1)
				want *= 2;
			if (want > SESSION_MAX_LINE)
				want = SESSION_MAX_LINE;
			p->line = xrealloc(p->line, want);
			p->size = want;
		}
		memcpy(p->line + p->len, buf, take);
		p->len += take;
		p->offset += take;
		buf += take;
		n -= take;
		if (!nl)
			break;
		buf++;
		n--;
		p->offset++;
		p->line[p->len] = '\0';
		size_t len = p->len;
		p->len = 0;
		if (line_done(p, p->line, len) < 0)
			return -1;
	}
	return 0;
}

int session_parser_finish(struct session_parser *p)
{
	if (p->failed || p->finished)
		return p->failed ? -1 : 0;
	p->finished = 1;
	if (!p->saw_header && p->lineno == 0 && p->offset < SESSION_UNBORN_MAX) {
		/* An earlier sandbx created the file, then wrote the header:
		 * a kill in between left it so (now it appears whole). */
		p->failed = p->info.unborn = 1;
		p->error = p->offset == 0
				   ? xstrdup("line 1: no session header: the file is empty — sandbx was stopped while "
					     "creating it; it holds no conversation and can be removed")
				   : xasprintf("line 1: no session header: the file holds %llu bytes and no complete "
					       "line — sandbx was stopped while creating it; it holds no conversation: "
					       "check it, then remove it", (unsigned long long)p->offset);
		return -1;
	}
	if (p->len > 0 && !is_blank(p->line, p->len)) {
		if (p->pending_bad)
			return fail(p, p->pending_bad, xstrdup("not a JSON object, and lines follow it — the file is damaged"));
		p->torn = 1;
		strv_push_own(&p->notes, xasprintf("line %llu has no newline: an append was cut short (a crash?) — "
						   "dropped it, kept the lines before it",
						   (unsigned long long)p->lineno + 1));
	} else if (p->pending_bad) {
		p->torn = 1;
		strv_push_own(&p->notes, xasprintf("line %llu, the last, is not JSON: an append was cut short — "
						   "dropped it, kept the lines before it",
						   (unsigned long long)p->pending_bad));
	}
	if (!p->saw_header) {
		p->failed = 1;
		p->error = xstrdup("line 1: no session header — the file is empty or not a sandbx session");
		return -1;
	}
	p->info.cut_short = p->turn_open || p->last_stopped || p->torn;
	if (p->flags & SESSION_PARSE_SUMMARY)
		return 0;

	/* Every tool_use needs its tool_result in the very next message (the
	 * API refuses the history otherwise).  Only the tail may lack them: the
	 * process died between two lines; session_resume repairs that. */
	const cJSON *prev = NULL, *m = p->msgs->child;
	for (size_t i = 0; i < p->nmsgs; i++, prev = m, m = m->next) {
		const cJSON *next = m->next;
		const char *role = str_field(m, "role");
		if (strcmp(role, "assistant") == 0) {
			struct strv ids = { 0 };
			tool_use_ids(m, &ids);
			for (size_t k = 0; k < ids.n; k++) {
				int ok = next && strcmp(str_field(next, "role"), "user") == 0 && has_result(next, ids.v[k]);
				if (ok)
					continue;
				if (i + 2 >= p->nmsgs && (!next || strcmp(str_field(next, "role"), "user") == 0)) {
					strv_push(&p->dangling, ids.v[k]);
					continue;
				}
				strv_free(&ids);
				return fail(p, p->msg_line[i], xstrdup("a tool call here has no result in the next message — "
								       "the file is damaged"));
			}
			strv_free(&ids);
		} else {
			/* every tool_result answers a call of the message before */
			struct strv ids = { 0 };
			if (prev && strcmp(str_field(prev, "role"), "assistant") == 0)
				tool_use_ids(prev, &ids);
			const cJSON *b;
			cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(m, "content")) {
				const char *u = str_field(b, "tool_use_id");
				if (u && !strv_has(&ids, u)) {
					strv_free(&ids);
					return fail(p, p->msg_line[i], xstrdup("a tool_result answers no tool call of the message "
									       "before — the file is damaged"));
				}
			}
			strv_free(&ids);
		}
	}
	if (p->dangling.n > 0)
		p->info.cut_short = 1;
	return 0;
}

cJSON *session_parser_take_messages(struct session_parser *p)
{
	if ((p->flags & SESSION_PARSE_SUMMARY) || p->failed || !p->finished)
		return NULL;
	cJSON *out = p->msgs;
	p->msgs = cJSON_CreateArray();
	p->last_msg = NULL;
	p->nmsgs = 0;
	return out;
}

/* ------------------------------------------------------------------ */
/* The store                                                          */

struct session {
	char *id;
	char *path;
	int dirfd, fd;
	cJSON *history;
	int turns, cut_short;
	int turn_rounds;	/* rounds of the current turn stored so far */
};

const char *session_id(const struct session *s) { return s->id; }
const char *session_path(const struct session *s) { return s->path; }
int session_turns(const struct session *s) { return s->turns; }
int session_cut_short(const struct session *s) { return s->cut_short; }

char *session_resume_line(const struct session *s)
{
	return xasprintf("resumed session '%s': %d turn%s loaded%s", s->id, s->turns, s->turns == 1 ? "" : "s",
			 s->cut_short ? ", the last was cut short (stopped or interrupted)" : "");
}

cJSON *session_take_history(struct session *s)
{
	cJSON *h = s->history;
	s->history = NULL;
	return h ? h : cJSON_CreateArray();
}

void session_close(struct session *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	cJSON_Delete(s->history);
	free(s->id);
	free(s->path);
	free(s);
}

/*
 * Mode rules of a resumed (or listed) store: another owner is refused by
 * fsu_open_subdir; group/other write is refused (someone else could change
 * what the model is shown); group/other read is noted.
 */
static int check_mode(const struct stat *st, const char *what, const char *display, struct strv *notes, char **err)
{
	char m[8];
	fsu_mode_str(st->st_mode, m);
	if (st->st_mode & 022) {
		*err = xasprintf("%s '%s' has mode %s: other users can write it and change what the model is shown — "
				 "refusing to use it; check it, then chmod %s it", what, display, m,
				 S_ISDIR(st->st_mode) ? "700" : "600");
		errno = EPERM;
		return -1;
	}
	if ((st->st_mode & 044) && notes)
		strv_push_own(notes, xasprintf("%s '%s' has mode %s: other users can read it — chmod %s it",
					       what, display, m, S_ISDIR(st->st_mode) ? "700" : "600"));
	return 0;
}

/*
 * Open $state/sandbx/sessions.  create: make what is missing (0700) and
 * narrow sandbx's own directories; else refuse unsafe modes (check_mode).
 * Returns the descriptor, or -1 (errno ENOENT when absent and !create).
 */
static int open_store(const struct xdg_paths *x, int create, struct strv *notes, char **err)
{
	struct stat st;
	int base = fsu_open_base(x->state_home, create ? FSU_CREATE : 0, err);
	if (base < 0) {
		if (create || errno != ENOENT)
			fsu_advise(err, xdg_advice(x, 0));
		return -1;
	}
	unsigned fl = create ? FSU_CREATE | FSU_NARROW : 0;
	int sbx = fsu_open_subdir(base, "sandbx", x->state_dir, fl, &st, notes, err);
	close(base);
	if (sbx < 0) {
		if (errno == EACCES || errno == EROFS)
			fsu_advise(err, xdg_advice(x, 0));
		return -1;
	}
	if (!create && check_mode(&st, "the directory", x->state_dir, notes, err) < 0) {
		close(sbx);
		return -1;
	}
	int dir = fsu_open_subdir(sbx, "sessions", x->sessions_dir, fl, &st, notes, err);
	close(sbx);
	if (dir < 0)
		return -1;
	if (!create && check_mode(&st, "the session directory", x->sessions_dir, notes, err) < 0) {
		close(dir);
		return -1;
	}
	return dir;
}

/* Append whole lines with one write(2), then fdatasync.  On any failure
 * the file is cut back to its size before, so it keeps its earlier lines. */
static int append_lines(struct session *s, const char *buf, size_t n, char **err)
{
	struct stat st;
	if (fstat(s->fd, &st) < 0) {
		*err = xasprintf("cannot stat the session file '%s': %s", s->path, strerror(errno));
		return -1;
	}
	off_t before = st.st_size;
	/* Removed since it was opened (an rm of the store, a cleaner): an
	 * append would go to an inode no name reaches, and no resume would
	 * see the round. */
	if (st.st_nlink == 0) {
		*err = xasprintf("the session file '%s' was removed while sandbx held it — the round "
				 "was not stored, nor will later ones be: start a new session with --session",
				 s->path);
		errno = ENOENT;
		return -1;
	}
	/* A second name made since the session was opened (a backup's
	 * cp -al, an ln) would take this append too: see session_resume. */
	if (st.st_nlink > 1) {
		char *fix = fsu_links_advice(s->path);
		*err = xasprintf("the session file '%s' has %lu hard links now: appending would write into the other "
				 "names too — the round was not stored; the earlier turns are kept: %s", s->path,
				 (unsigned long)st.st_nlink, fix);
		free(fix);
		errno = EMLINK;
		return -1;
	}
	/* Resume reads at most SESSION_MAX_FILE: a file grown past it would
	 * lose every turn it holds, not only this one. */
	if ((uint64_t)before + n > SESSION_MAX_FILE) {
		*err = xasprintf("the session '%s' would grow past its %u MiB — the round was not stored; the earlier "
				 "turns are kept: resume them, or start a new session with --session", s->path,
				 SESSION_MAX_FILE >> 20);
		errno = EFBIG;
		return -1;
	}
	ssize_t w;
	sigset_t mask;
	xfsz_block(&mask);
	do
		w = write(s->fd, buf, n);
	while (w < 0 && errno == EINTR);
	int e = 0;
	if (w < 0) {
		e = errno;
	} else if ((size_t)w < n) {
		/* Cut short: a second write tells why (EFBIG, ENOSPC); the line
		 * is removed below either way. */
		ssize_t w2 = write(s->fd, buf + w, n - (size_t)w);
		e = w2 < 0 ? errno : 0;
		if (w2 >= 0 && (size_t)w2 < n - (size_t)w)
			e = ENOSPC;
	}
	xfsz_restore(&mask);
	if (e == 0 && fdatasync(s->fd) < 0 && errno != EINVAL)
		e = errno;
	if (e == 0)
		return 0;
	int cut = ftruncate(s->fd, before);
	*err = xasprintf("cannot append to the session '%s': %s%s — %s", s->path, strerror(e),
			 cut < 0 ? " (and the partial line could not be removed)" : "",
			 (e == ENOSPC || e == EFBIG || e == EDQUOT)
				 ? "the disk is full or a file size limit was hit; the earlier turns are kept, free some space"
				 : "the earlier turns are kept");
	errno = e;
	return -1;
}

/* Serialize {"type":type, ...fields of m} as one line with its newline. */
static char *record_line(const char *type, const cJSON *m, size_t *len, char **err)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", type);
	const cJSON *f;
	cJSON_ArrayForEach(f, m)
		cJSON_AddItemToObject(o, f->string, cJSON_Duplicate(f, 1));
	size_t n;
	char *line = json_print_capped(o, SESSION_MAX_LINE - 1, &n);	/* the line's \n not counted */
	cJSON_Delete(o);
	if (!line) {
		*err = xasprintf("a session record is larger than the %u-byte line limit — the round was not stored",
				 SESSION_MAX_LINE);
		return NULL;
	}
	line = xrealloc(line, n + 2);
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

static struct session *session_alloc(int dirfd, int fd, const struct xdg_paths *x, const char *id)
{
	struct session *s = xcalloc(1, sizeof(*s));
	s->dirfd = dirfd;
	s->fd = fd;
	s->id = xstrdup(id);
	s->path = xasprintf("%s/%s.jsonl", x->sessions_dir, id);
	return s;
}

/* NAME of a session file: a valid id and ".jsonl". */
static int is_session_file(const char *name, size_t len)
{
	char id[SESSION_ID_MAX + 1];
	if (len <= 6 || len - 6 > SESSION_ID_MAX || memcmp(name + len - 6, ".jsonl", 6) != 0)
		return 0;
	memcpy(id, name, len - 6);
	id[len - 6] = '\0';
	return session_id_valid(id);
}

int session_create(const struct xdg_paths *x, struct session **out, struct strv *notes, char **err)
{
	*out = NULL;
	int dir = open_store(x, 1, notes, err);
	if (dir < 0)
		return -1;
	char id[SESSION_ID_LEN + 1], name[SESSION_ID_LEN + 8];
	int fd = -1, e = 0;
	/* 36^8 ids: a collision is rare, and a rename that never clobbers makes
	 * it harmless.  The file appears with its header or not at all: an
	 * empty one, left by a kill between create and write, would be a
	 * session that is none. */
	for (int tries = 0; tries < 32 && fd < 0; tries++) {
		fsu_random_name(id, SESSION_ID_LEN);
		id[SESSION_ID_LEN] = '\0';
		snprintf(name, sizeof(name), "%s.jsonl", id);
		cJSON *h = cJSON_CreateObject();
		cJSON_AddNumberToObject(h, "version", SESSION_VERSION);
		cJSON_AddStringToObject(h, "id", id);
		cJSON_AddNumberToObject(h, "created", (double)time(NULL));
		size_t n;
		char *line = record_line("header", h, &n, err);
		cJSON_Delete(h);
		if (!line)
			break;
		char *display = xasprintf("%s/%s", x->sessions_dir, name);
		fd = fsu_create_with(dir, name, display, line, n, err);
		e = errno;
		free(line);
		free(display);
		if (fd < 0 && e != EEXIST)
			break;
		if (fd < 0) {
			free(*err);
			*err = NULL;
		}
	}
	if (fd < 0) {
		if (!*err)
			*err = xasprintf("cannot create a session file in '%s': no free id in 32 tries", x->sessions_dir);
		fsu_advise(err, xdg_write_advice(x, 0, e));
		close(dir);
		return -1;
	}
	/* A kill between a create's temporary file and its rename left that
	 * file (its header only), hidden; one ten minutes old is no other
	 * sandbx's create in progress. */
	fsu_sweep_temps(dir, is_session_file, SESSION_TEMP_AGE);
	struct session *s = session_alloc(dir, fd, x, id);
	s->history = cJSON_CreateArray();
	*out = s;
	return 0;
}

/*
 * Feed fd to a parser in chunks of SESSION_READ_CHUNK through buf, at most
 * SESSION_MAX_FILE bytes, and finish it: 0, or -1 with *err.  head (the
 * listing of a large file): stop once the first prompt is parsed, or
 * SESSION_LIST_HEAD bytes were read, without finishing the parse: 1 then.
 */
static int parse_fd(int fd, struct session_parser *p, char *buf, const char *display, int head, char **err)
{
	uint64_t total = 0;
	int r = 0;
	for (;;) {
		ssize_t k = read(fd, buf, SESSION_READ_CHUNK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			*err = xasprintf("cannot read '%s': %s", display, strerror(errno));
			r = -1;
			break;
		}
		if (k == 0)
			break;
		total += (uint64_t)k;
		if (total > SESSION_MAX_FILE) {
			*err = xasprintf("'%s' is larger than %u bytes — not a session sandbx wrote", display,
					 SESSION_MAX_FILE);
			r = -1;
			break;
		}
		if (session_parser_feed(p, buf, (size_t)k) < 0)
			break;
		if (head && (session_parser_info(p)->first_prompt || total >= SESSION_LIST_HEAD))
			return 1;
	}
	if (r == 0 && session_parser_finish(p) < 0) {
		*err = xasprintf("'%s' %s", display, session_parser_error(p));
		r = -1;
	}
	return r;
}

/* Open the session file for reading and check it (fstat on the descriptor). */
static int open_session_file(int dir, const char *name, const char *display, struct stat *st, char **err)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			*err = xasprintf("'%s' is a symbolic link — sandbx resumes only a file it wrote", display);
		else if (e == ENOENT)
			*err = xasprintf("no session file '%s' — 'sandbx sessions' lists the stored ones", display);
		else
			*err = fsu_open_error(dir, name, display, "", e, FSU_FILE_MODE);
		errno = e;
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		*err = xasprintf("'%s' is not a regular file — sandbx resumes only a file it wrote", display);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (fsu_check_owner(st, display, err) < 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int session_resume(const struct xdg_paths *x, const char *id, struct session **out, struct strv *notes,
		   char **err)
{
	*out = NULL;
	if (!session_id_valid(id)) {
		*err = xstrdup("not a session id — 'sandbx sessions' lists them");
		return -EINVAL;
	}
	int dir = open_store(x, 0, notes, err);
	if (dir < 0) {
		if (errno == ENOENT) {
			free(*err);
			*err = xasprintf("no session '%s': the store '%s' does not exist yet — start one with --session", id,
					 x->sessions_dir);
			return -ENOENT;
		}
		return -1;
	}
	char *name = xasprintf("%s.jsonl", id), *display = xasprintf("%s/%s", x->sessions_dir, name);
	struct stat st, wst;
	struct session_parser *p = NULL;
	struct session *s = NULL;
	char *buf = NULL;
	int rfd = -1, wfd = -1, r = -1;

	rfd = open_session_file(dir, name, display, &st, err);
	if (rfd < 0) {
		if (errno == ENOENT)
			r = -ENOENT;
		goto out;
	}
	if (check_mode(&st, "the session file", display, notes, err) < 0)
		goto out;
	/* A second name of the file (a hard link: a dotfiles tree, a copy
	 * made with ln, one in a project a confined command can write) would
	 * take every append and the cut of a torn tail too, and whoever can
	 * write it could change what the model is shown: only a file of one
	 * name is resumed.  The one second name sandbx may have made itself
	 * (a create killed between link and unlink) goes first. */
	if (st.st_nlink > 1 && fsu_drop_temp_links(dir, name, &st) > 0 && fstat(rfd, &st) == 0)
		strv_push_own(notes, xasprintf("removed the second, hidden name of '%s' that an interrupted create "
					       "left beside it", display));
	if (st.st_nlink > 1) {
		char *fix = fsu_links_advice(display);
		*err = xasprintf("the session file '%s' has %lu hard links: resuming would append to it under its other "
				 "names too, and whoever can write one could change what the model is shown — "
				 "refusing to use it; %s, or give it a name of its own (cp -p '%s' '%s.new' && mv '%s.new' '%s')",
				 display, (unsigned long)st.st_nlink, fix, display, display, display, display);
		free(fix);
		errno = EMLINK;
		goto out;
	}
	/* Reopen for appending and make sure it is the same file we checked. */
	wfd = openat(dir, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (wfd < 0 && errno == EACCES) {
		/* a mode without the owner's write bit (0400) */
		*err = fsu_open_error(dir, name, display, "for appending ", errno, FSU_FILE_MODE);
		goto out;
	}
	if (wfd < 0 || fstat(wfd, &wst) < 0 || wst.st_dev != st.st_dev || wst.st_ino != st.st_ino) {
		int e = errno;
		*err = xasprintf("cannot open '%s' for appending%s%s", display, wfd < 0 ? ": " : " — it changed while being read",
				 wfd < 0 ? strerror(e) : "");
		if (wfd < 0)
			fsu_advise(err, e == EROFS ? "remount its filesystem read-write to go on "
						     "with this session" : xdg_write_advice(x, 0, e));
		goto out;
	}
	/* One writer per session: two interleaved conversations would make
	 * the history unreplayable, and the cut-back of a failed append
	 * assumes nobody else appended.  Held until session_close. */
	if (flock(wfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			/* not another sandbx: a filesystem that takes no lock (an NFS
			 * mount without its lock daemon: ENOLCK) */
			*err = xasprintf("cannot lock the session file '%s': %s — sandbx appends to a session only while "
					 "it holds its lock, and this filesystem took none; keep XDG_STATE_HOME on a local "
					 "filesystem", display, strerror(errno));
			goto out;
		}
		*err = xasprintf("session '%s' is in use by another sandbx — finish that one first, or start a new "
				 "session with --session", id);
		r = -EBUSY;
		goto out;
	}
	p = session_parser_new(0);
	buf = xmalloc(SESSION_READ_CHUNK);
	if (parse_fd(rfd, p, buf, display, 0, err) < 0) {
		char *e = *err;
		*err = xasprintf("cannot resume: %s — start a new session with --session", e);
		free(e);
		goto out;
	}
	if (fstat(wfd, &wst) < 0) {
		*err = xasprintf("cannot stat '%s': %s", display, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < session_parser_notes(p)->n; i++)
		strv_push(notes, session_parser_notes(p)->v[i]);
	if ((uint64_t)wst.st_size > session_parser_good_end(p)) {
		if (ftruncate(wfd, (off_t)session_parser_good_end(p)) < 0) {
			*err = xasprintf("cannot cut the torn last line off '%s': %s", display, strerror(errno));
			goto out;
		}
		strv_push_own(notes, xasprintf("cut the torn last line off '%s'", display));
	}
	s = session_alloc(dir, wfd, x, id);
	dir = wfd = -1;
	s->history = session_parser_take_messages(p);
	s->turns = session_parser_info(p)->turns;
	s->cut_short = session_parser_info(p)->cut_short;

	const struct strv *dg = session_parser_dangling(p);
	if (dg->n > 0) {
		/* The process died while the round was being written: a round is
		 * stored after its calls ran, so each missing result was lost,
		 * not never made.  Say so, durably: a model told "not run" would
		 * run a command that did run (a commit, an append) again. */
		cJSON *m = cJSON_CreateObject(), *c = cJSON_CreateArray();
		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddItemToObject(m, "content", c);
		for (size_t i = 0; i < dg->n; i++) {
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "tool_result");
			cJSON_AddStringToObject(b, "tool_use_id", dg->v[i]);
			cJSON_AddStringToObject(b, "content", "result lost: sandbx was interrupted while this round was "
							      "being stored — the call may have run; check what it "
							      "would change before running it again");
			cJSON_AddTrueToObject(b, "is_error");
			cJSON_AddItemToArray(c, b);
		}
		size_t n;
		char *line = record_line("message", m, &n, err);
		if (!line || append_lines(s, line, n, err) < 0) {
			free(line);
			cJSON_Delete(m);
			goto out;
		}
		free(line);
		cJSON *last = s->history->child;
		while (last && last->next)
			last = last->next;
		replay_push(s->history, last, m);
		strv_push_own(notes, xasprintf("the last round ended with %zu tool call%s whose result was not "
					       "stored: told the model %s may have run", dg->n, dg->n == 1 ? "" : "s",
					       dg->n == 1 ? "it" : "they"));
	}
	*out = s;
	s = NULL;
	r = 0;
out:
	session_close(s);
	session_parser_free(p);
	free(buf);
	if (rfd >= 0)
		close(rfd);
	if (wfd >= 0)
		close(wfd);
	if (dir >= 0)
		close(dir);
	free(name);
	free(display);
	return r;
}

static int list_store(const struct xdg_paths *x, int newest_only, struct session_info **out, size_t *n,
		      struct strv *notes, char **err);

int session_resume_latest(const struct xdg_paths *x, struct session **out, struct strv *notes, char **err)
{
	struct session_info *v = NULL;
	size_t n = 0;
	*out = NULL;
	if (list_store(x, 1, &v, &n, notes, err) < 0)
		return -1;
	if (n == 0) {
		*err = xasprintf("no stored session to continue in '%s' — start one with --session", x->sessions_dir);
		return -ENOENT;
	}
	/* The most recent one, or nothing: an older conversation resumed in
	 * its place would go to the model without a word. */
	if (v[0].error) {
		*err = xasprintf("the most recent session '%s' cannot be read: %s — nothing was sent; repair or move "
				 "that file, or name another session with --session ID (sandbx sessions lists them)",
				 v[0].id, v[0].error);
		session_list_free(v, n);
		return -1;
	}
	char *id = xstrdup(v[0].id);
	session_list_free(v, n);
	int r = session_resume(x, id, out, notes, err);
	free(id);
	return r;
}

int session_append_round(struct session *s, const char *prompt, const cJSON *assistant, const cJSON *results,
			 char **err)
{
	char *why = NULL, *buf = NULL;
	size_t len = 0;
	int kind, r = -1;
	cJSON *a = NULL, *u = NULL, *pm = NULL;
	struct strv ids = { 0 };

	if (!prompt && s->turn_rounds == 0) {
		*err = xstrdup("the first round of a turn is stored with its prompt");
		return -1;
	}
	if (prompt) {
		if (!*prompt) {
			*err = xstrdup("an empty prompt is not stored");
			return -1;
		}
		pm = cJSON_CreateObject();
		cJSON *c = cJSON_CreateArray(), *b = cJSON_CreateObject();
		cJSON_AddStringToObject(pm, "role", "user");
		cJSON_AddItemToObject(pm, "content", c);
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", prompt);
		cJSON_AddItemToArray(c, b);
	}
	a = clean_message(assistant, "assistant", &kind, &why);
	if (!a)
		goto bad;
	tool_use_ids(a, &ids);
	if (ids.n > 0) {
		if (!results) {
			why = xstrdup("the assistant asked for tools and no results were given");
			goto bad;
		}
		u = clean_message(results, "user", &kind, &why);
		if (!u)
			goto bad;
		for (size_t i = 0; i < ids.n; i++)
			if (!has_result(u, ids.v[i])) {
				why = xstrdup("a tool call has no result");
				goto bad;
			}
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(u, "content")) {
			const char *id = str_field(b, "tool_use_id");
			if (id && !strv_has(&ids, id)) {
				why = xstrdup("a tool_result answers no tool call of this round");
				goto bad;
			}
		}
	} else if (results) {
		why = xstrdup("results were given but the assistant asked for no tool");
		goto bad;
	}
	const cJSON *parts[3] = { pm, a, u };
	for (int i = 0; i < 3; i++) {
		if (!parts[i])
			continue;
		size_t n;
		char *line = record_line("message", parts[i], &n, err);
		if (!line)
			goto out;
		buf = xrealloc(buf, len + n + 1);
		memcpy(buf + len, line, n + 1);
		len += n;
		free(line);
	}
	if (append_lines(s, buf, len, err) < 0)
		goto out;
	if (prompt) {
		s->turns++;
		s->turn_rounds = 0;
	}
	s->turn_rounds++;
	r = 0;
	goto out;
bad:
	*err = xasprintf("cannot store the round: %s", why);
	free(why);
out:
	strv_free(&ids);
	free(buf);
	cJSON_Delete(pm);
	cJSON_Delete(a);
	cJSON_Delete(u);
	return r;
}

int session_end_turn(struct session *s, const struct session_turn_end *end, char **err)
{
	if (s->turn_rounds == 0)
		return 0;	/* nothing of this turn was stored */
	cJSON *t = cJSON_CreateObject(), *u = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "stop_reason", end->stop_reason ? end->stop_reason : "unknown");
	cJSON_AddNumberToObject(t, "rounds", end->rounds);
	cJSON_AddNumberToObject(u, "input_tokens", (double)end->input_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", (double)end->output_tokens);
	cJSON_AddItemToObject(t, "usage", u);
	cJSON_AddBoolToObject(t, "stopped", end->stopped != 0);
	if (end->stopped)
		cJSON_AddStringToObject(t, "note", "the turn was stopped; a round in progress was dropped, or kept with its calls not run answered so");
	cJSON_AddNumberToObject(t, "turns", s->turns);	/* so far: the listing reads it off the end */
	size_t n;
	char *line = record_line("turn", t, &n, err);
	cJSON_Delete(t);
	if (!line)
		return -1;
	int r = append_lines(s, line, n, err);
	free(line);
	if (r == 0)
		s->turn_rounds = 0;
	return r;
}

/* ------------------------------------------------------------------ */
/* Listing                                                            */

static int info_cmp(const void *a, const void *b)
{
	const struct session_info *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? 1 : -1;
	/* a tie: the unreadable one first, so --continue never passes over it */
	if (!x->error != !y->error)
		return x->error ? -1 : 1;
	if (x->created != y->created)
		return x->created < y->created ? 1 : -1;
	return strcmp(x->id, y->id);
}

static void session_list_free_one(struct session_info *in)
{
	free(in->first_prompt);
	free(in->error);
}

void session_list_free(struct session_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		session_list_free_one(&v[i]);
	free(v);
}

/* A time is later than another (the listing's first key). */
static int newer(const struct session_info *a, const struct session_info *b)
{
	return a->mtime != b->mtime ? a->mtime > b->mtime : a->mtime_ns > b->mtime_ns;
}

/*
 * The end of a session from the last n bytes of its file (buf starts inside
 * a line): *cut_short as the parser says it, and *turns: the count in the
 * last turn record plus the prompts after it, or SESSION_TURNS_UNKNOWN when
 * no counted turn record is within reach (an earlier sandbx wrote the file,
 * or the lines after that record are longer than buf).
 */
static void tail_summary(const char *buf, size_t n, int *turns, int *cut_short)
{
	int prompts = 0, torn = 0, any = 0;
	size_t end = n;
	*turns = SESSION_TURNS_UNKNOWN;
	*cut_short = 1;	/* unless the last record is a turn that was not stopped */
	if (end > 0 && buf[end - 1] != '\n') {
		torn = 1;	/* an append cut short: dropped on resume */
		while (end > 0 && buf[end - 1] != '\n')
			end--;
	}
	/* each line buf[start, end - 1), its newline at end - 1, last first */
	while (end > 0) {
		size_t start = end - 1;
		while (start > 0 && buf[start - 1] != '\n')
			start--;
		if (start == 0)
			return;	/* it may begin before buf */
		const char *line = buf + start, *e = NULL;
		size_t len = end - 1 - start;
		end = start;
		if (is_blank(line, len))
			continue;
		cJSON *o = has_nul(line, len) ? NULL : cJSON_ParseWithLengthOpts(line, len, &e, 0);
		if (!cJSON_IsObject(o) || !e || !is_blank(e, len - (size_t)(e - line))) {
			cJSON_Delete(o);
			if (any || torn)
				return;	/* damage: resume names it */
			torn = 1;	/* the last line, not JSON: a torn append */
			continue;
		}
		const char *type = str_field(o, "type");
		if (type && strcmp(type, "turn") == 0) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "turns");
			if (!any)
				*cut_short = torn || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "stopped"));
			if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < 1e9)
				*turns = (int)c->valuedouble + prompts;
			cJSON_Delete(o);
			return;
		}
		int kind = 0;
		char *why = NULL;
		cJSON *m = type && strcmp(type, "message") == 0 ? clean_message(o, NULL, &kind, &why) : NULL;
		cJSON_Delete(o);
		free(why);
		if (!m)
			return;
		cJSON_Delete(m);
		prompts += kind == 1;
		any = 1;	/* the last record is a message: the turn is open */
	}
}

/* The turn count and cut-short mark of a large file from its end, read
 * into buf (SESSION_READ_CHUNK bytes). */
_Static_assert(SESSION_LIST_TAIL <= SESSION_READ_CHUNK, "the tail is read into one chunk");
static int list_tail(int fd, const struct stat *st, char *buf, const char *display, struct session_info *in,
		     char **err)
{
	size_t n = st->st_size > SESSION_LIST_TAIL ? SESSION_LIST_TAIL : (size_t)st->st_size;
	ssize_t k;
	do
		k = pread(fd, buf, n, st->st_size - (off_t)n);
	while (k < 0 && errno == EINTR);
	if (k < 0) {
		*err = xasprintf("cannot read '%s': %s", display, strerror(errno));
		return -1;
	}
	tail_summary(buf, (size_t)k, &in->turns, &in->cut_short);
	return 0;
}

/*
 * Read and summarise the stored session in (its id and times set).  A file
 * up to SESSION_LIST_WHOLE is read whole; of a larger one only the header
 * and first prompt, and its last SESSION_LIST_TAIL bytes (the count of turns
 * the last turn record carries): the listing reads what it shows, not the
 * store.  Damage in the part not read is found by resume.  buf: a scratch
 * chunk, one for the whole listing (a fresh 64 KiB per file cost more in
 * page faults than the reading).
 */
static void list_read(int dir, const struct xdg_paths *x, char *buf, struct session_info *in)
{
	char *name = xasprintf("%s.jsonl", in->id), *display = xasprintf("%s/%s", x->sessions_dir, name), *e = NULL;
	struct stat st;
	int fd = open_session_file(dir, name, display, &st, &e);
	if (fd >= 0) {
		in->mtime = st.st_mtime;
		in->mtime_ns = st.st_mtim.tv_nsec;
		struct session_parser *p = session_parser_new(SESSION_PARSE_SUMMARY);
		int r = parse_fd(fd, p, buf, display, (uint64_t)st.st_size > SESSION_LIST_WHOLE, &e);
		const struct session_info *pi = session_parser_info(p);
		if (r == 1 && !pi->id[0])
			e = xasprintf("'%s' has no session header in its first %u KiB — not a sandbx session", display,
				      SESSION_LIST_HEAD >> 10);
		else if (r >= 0) {
			in->created = pi->created;
			in->turns = pi->turns;
			in->cut_short = pi->cut_short;
			if (pi->first_prompt)
				in->first_prompt = xstrdup(pi->first_prompt);
			else if (r == 1)
				in->first_prompt = xasprintf("(a first prompt over %u KiB, not read)",
							     SESSION_LIST_HEAD >> 10);
			if (r == 1)
				list_tail(fd, &st, buf, display, in, &e);
		}
		in->unborn = pi->unborn;
		session_parser_free(p);
		close(fd);
	}
	in->error = e;
	free(name);
	free(display);
}

/* Later write time first (newest_only's reading order). */
static int time_cmp(const void *a, const void *b)
{
	return newer(a, b) ? -1 : newer(b, a) ? 1 : 0;
}

/*
 * The stored sessions, most recently written first.  newest_only: only
 * those of the latest write time are read (--continue), the others are
 * left out: reading every file to its end would cost the whole store
 * for the one session resumed.
 */
static int list_store(const struct xdg_paths *x, int newest_only, struct session_info **out, size_t *n,
		      struct strv *notes, char **err)
{
	*out = NULL;
	*n = 0;
	int dir = open_store(x, 0, notes, err);
	if (dir < 0) {
		if (errno == ENOENT) {
			free(*err);
			*err = NULL;
			return 0;
		}
		return -1;
	}
	int dup_fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		*err = xasprintf("cannot list '%s': %s", x->sessions_dir, strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		close(dir);
		return -1;
	}
	/* First the names and their times (the link's own for a symlink,
	 * which is refused and listed all the same), ... */
	struct session_info *v = NULL;
	size_t cnt = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		if (len <= 6 || strcmp(de->d_name + len - 6, ".jsonl") != 0 || len - 6 > SESSION_ID_MAX)
			continue;
		char id[SESSION_ID_MAX + 1];
		memcpy(id, de->d_name, len - 6);
		id[len - 6] = '\0';
		if (!session_id_valid(id))
			continue;
		struct stat st;
		v = xrealloc(v, (cnt + 1) * sizeof(*v));
		struct session_info *in = &v[cnt++];
		memset(in, 0, sizeof(*in));
		snprintf(in->id, sizeof(in->id), "%s", id);
		if (fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			in->mtime = st.st_mtime;
			in->mtime_ns = st.st_mtim.tv_nsec;
		}
	}
	closedir(d);
	/* ... then the content of those wanted: for newest_only those of the
	 * latest time, or of the next when those were all unborn (no
	 * conversation in them: passed over, named, kept). */
	if (newest_only && cnt > 1)
		qsort(v, cnt, sizeof(*v), time_cmp);
	struct session_info group = { 0 };
	size_t kept = 0;
	char *buf = xmalloc(SESSION_READ_CHUNK);
	for (size_t i = 0; i < cnt; i++) {
		if (newest_only && i > 0 && newer(&group, &v[i]) && kept > 0)
			break;	/* the rest are older and not read: nothing to free */
		group = v[i];
		struct session_info in = v[i];
		list_read(dir, x, buf, &in);
		if (newest_only && in.unborn) {
			strv_push_own(notes, xasprintf("passed over %s", in.error));
			session_list_free_one(&in);
			continue;
		}
		v[kept++] = in;
	}
	free(buf);
	close(dir);
	if (kept > 1)
		qsort(v, kept, sizeof(*v), info_cmp);
	if (!kept) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = kept;
	return 0;
}

int session_list(const struct xdg_paths *x, struct session_info **out, size_t *n, struct strv *notes,
		 char **err)
{
	return list_store(x, 0, out, n, notes, err);
}
