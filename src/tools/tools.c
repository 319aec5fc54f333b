/*
 * tools.c — the tool table, input validation against each row's schema,
 * the dispatcher, and the pieces every tool shares (bounded output,
 * input accessors, limits).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/helper.h"
#include "tools/tools_int.h"
#include "util/utf8.h"

/* TOOLS_MAX_GLOB as the schemas spell it (checked in tools_validate). */
#define GLOB_MAX_TEXT "4096"
_Static_assert(TOOLS_MAX_GLOB == 4096, "GLOB_MAX_TEXT spells TOOLS_MAX_GLOB");
/* And TOOLS_BASH_MAX_TIMEOUT, bash's "maximum" (also checked there). */
#define BASH_MAX_TIMEOUT_TEXT "600"
_Static_assert(TOOLS_BASH_MAX_TIMEOUT == 600, "BASH_MAX_TIMEOUT_TEXT spells TOOLS_BASH_MAX_TIMEOUT");

static const struct tool_def table[TOOL__COUNT] = {
	[TOOL_READ] = {
		"read",
		"Read a text file beneath the granted directories. Returns its lines, each prefixed with its "
		"1-based line number and a tab. Large files come in pages: offset is the first line to show "
		"(1-based, default 1), limit the number of lines (default 2000); the last line of a page says "
		"how to ask for the next one. Binary files are reported as binary, not shown.",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"file path, absolute or relative to the working directory\"},"
		"\"offset\":{\"type\":\"integer\",\"description\":\"first line to show, 1-based\"},"
		"\"limit\":{\"type\":\"integer\",\"description\":\"number of lines to show\"}},"
		"\"required\":[\"path\"]}",
		TOOL_RISK_READ, tool_read_run,
	},
	[TOOL_LS] = {
		"ls",
		"List a directory: one entry per line, sorted by name, with its type (dir, file, link, other) "
		"and size in bytes. Symlinks are listed, never followed. In a name, a control character, a "
		"backslash or a byte that is not UTF-8 is shown as \\xNN (its hex value).",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"directory path, absolute or relative to the working directory\"}},"
		"\"required\":[\"path\"]}",
		TOOL_RISK_READ, tool_ls_run,
	},
	[TOOL_FIND] = {
		"find",
		"Find files and directories whose name matches a glob (* ? [abc]) anywhere beneath path; a "
		"glob with '/' (e.g. src/*/*.h) is matched against the path below path instead, and a leading "
		"**/ is ignored. Returns matching paths, directories ending in '/'. "
		"Symlinks are not followed; .git, .hg and .svn are skipped. In a path, a control character, a "
		"backslash, a byte that is not UTF-8 or a leading '(' is shown as \\xNN (its hex value).",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"directory to search beneath\"},"
		"\"name\":{\"type\":\"string\",\"maxLength\":" GLOB_MAX_TEXT ",\"description\":\"glob on the name, e.g. *.c, or on the path when it has a slash\"}},"
		"\"required\":[\"path\",\"name\"]}",
		TOOL_RISK_READ, tool_find_run,
	},
	[TOOL_GREP] = {
		"grep",
		"Search file contents with a Perl-compatible regular expression, in one file or recursively "
		"beneath a directory. Returns path:line:text for each matching line; a match lies within one "
		"line (\\s and [^...] do not cross line breaks); a line may end in LF or CRLF ($ matches "
		"before either; a lone CR ends a line too, and . matches no CR). glob keeps only files "
		"whose name matches (e.g. *.c); ignore_case makes the match case-insensitive. Binary files (a NUL "
		"in the first 8 KiB) and files over 2 MiB are skipped; symlinks are not followed; .git, .hg and .svn are skipped. "
		"In a path, a control character, a backslash, a ':', a byte that is not UTF-8 or a leading '(' is shown "
		"as \\xNN (its hex value).",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"file or directory to search\"},"
		"\"pattern\":{\"type\":\"string\",\"description\":\"PCRE2 regular expression\"},"
		"\"glob\":{\"type\":\"string\",\"maxLength\":" GLOB_MAX_TEXT ",\"description\":\"only files whose name (or, with a slash, path) matches this glob\"},"
		"\"ignore_case\":{\"type\":\"boolean\",\"description\":\"case-insensitive match\"}},"
		"\"required\":[\"path\",\"pattern\"]}",
		TOOL_RISK_READ, tool_grep_run,
	},
	[TOOL_WRITE] = {
		"write",
		"Create or replace a file with the given content, atomically: the old content stays until the "
		"new one is complete. Missing parent directories are created. Only beneath paths granted write.",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"file path\"},"
		"\"content\":{\"type\":\"string\",\"description\":\"the whole new content\"}},"
		"\"required\":[\"path\",\"content\"]}",
		TOOL_RISK_WRITE, tool_write_run,
	},
	[TOOL_EDIT] = {
		"edit",
		"Replace text in a file. old must occur exactly once (add surrounding lines to make it unique), "
		"unless replace_all is true, which replaces every occurrence. The match is exact, whitespace "
		"included. The file is replaced atomically.",
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"file path\"},"
		"\"old\":{\"type\":\"string\",\"description\":\"exact text to replace\"},"
		"\"new\":{\"type\":\"string\",\"description\":\"replacement text\"},"
		"\"replace_all\":{\"type\":\"boolean\",\"description\":\"replace every occurrence\"}},"
		"\"required\":[\"path\",\"old\",\"new\"]}",
		TOOL_RISK_WRITE, tool_edit_run,
	},
	[TOOL_BASH] = {
		"bash",
		"Run a command with /bin/sh -c in the sandbox: only the granted paths exist there, the network "
		"is as granted, stdin is empty. Returns stdout, stderr and the exit status. The command and "
		"everything it started are killed after timeout seconds (default 90, at most 600).",
		"{\"type\":\"object\",\"properties\":{"
		"\"command\":{\"type\":\"string\",\"description\":\"shell command\"},"
		"\"timeout\":{\"type\":\"integer\",\"maximum\":" BASH_MAX_TIMEOUT_TEXT ",\"description\":\"seconds before it is killed\"}},"
		"\"required\":[\"command\"]}",
		TOOL_RISK_EXEC, tool_bash_run,
	},
};

const struct tool_def *tools_table(void)
{
	return table;
}

const struct tool_def *tools_find(const char *name)
{
	for (int i = 0; name && i < TOOL__COUNT; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

int tools_risk(const char *name)
{
	const struct tool_def *t = tools_find(name);
	return t ? (int)t->risk : -1;
}

unsigned tools_bit(const char *name)
{
	const struct tool_def *t = tools_find(name);
	return t ? 1u << (t - table) : 0;
}

cJSON *tools_schema_json(unsigned allowed_mask)
{
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < TOOL__COUNT; i++) {
		if (!(allowed_mask & (1u << i)))
			continue;
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", table[i].name);
		cJSON_AddStringToObject(t, "description", table[i].description);
		cJSON_AddItemToObject(t, "input_schema", cJSON_Parse(table[i].schema));
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

static char *field_list(const cJSON *props)
{
	char *s = NULL;
	for (const cJSON *p = props ? props->child : NULL; p; p = p->next) {
		char *t = s ? xasprintf("%s, %s", s, p->string) : xstrdup(p->string);
		free(s);
		s = t;
	}
	return s ? s : xstrdup("");
}

/* Largest integer a double holds exactly. */
#define TOOLS_MAX_JSON_INT 9007199254740991.0

int tools_validate(const struct tool_def *t, const cJSON *input, char **err)
{
	cJSON *schema = cJSON_Parse(t->schema);
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	int r = -1;

	if (!cJSON_IsObject(input)) {
		*err = xasprintf("input of tool '%s' must be a JSON object", t->name);
		goto out;
	}
	for (const cJSON *f = input->child; f; f = f->next) {
		const cJSON *p = f->string ? cJSON_GetObjectItemCaseSensitive(props, f->string) : NULL;
		if (!p) {
			char *l = field_list(props);
			*err = xasprintf("tool '%s' has no field '%s' — its fields are: %s", t->name,
					 f->string ? f->string : "", l);
			free(l);
			goto out;
		}
		for (const cJSON *g = f->next; g; g = g->next) {
			if (g->string && strcmp(g->string, f->string) == 0) {
				*err = xasprintf("field '%s' of tool '%s' is given twice — give it once", f->string, t->name);
				goto out;
			}
		}
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "type"));
		int ok;
		if (strcmp(type, "string") == 0)
			ok = cJSON_IsString(f);
		else if (strcmp(type, "boolean") == 0)
			ok = cJSON_IsBool(f);
		else {
			double d = f->valuedouble;
			ok = cJSON_IsNumber(f) && d >= 0 && d <= TOOLS_MAX_JSON_INT && floor(d) == d;
		}
		/* maxLength counts bytes here: what a glob costs a walk */
		const cJSON *ml = cJSON_GetObjectItemCaseSensitive(p, "maxLength");
		if (ok && cJSON_IsNumber(ml) && strlen(f->valuestring) > (size_t)ml->valuedouble) {
			*err = xasprintf("field '%s' of tool '%s' is %zu bytes long, over its %.0f — every entry searched "
					 "is matched against it: give a shorter one", f->string, t->name,
					 strlen(f->valuestring), ml->valuedouble);
			goto out;
		}
		/* A number over its maximum is refused, not lowered: the
		 * question shows the call's own value (a bash timeout of 3600
		 * was approved as asked and run with 600). */
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(p, "maximum");
		if (ok && cJSON_IsNumber(f) && cJSON_IsNumber(mx) && f->valuedouble > mx->valuedouble) {
			*err = xasprintf("field '%s' of tool '%s' is %.0f, over its most, %.0f — give at most %.0f",
					 f->string, t->name, f->valuedouble, mx->valuedouble, mx->valuedouble);
			goto out;
		}
		if (!ok) {
			*err = xasprintf("field '%s' of tool '%s' must be %s", f->string, t->name,
					 strcmp(type, "string") == 0 ? "a string" :
					 strcmp(type, "boolean") == 0 ? "true or false" : "a whole number >= 0");
			goto out;
		}
	}
	for (const cJSON *q = req ? req->child : NULL; q; q = q->next) {
		if (!cJSON_GetObjectItemCaseSensitive(input, q->valuestring)) {
			*err = xasprintf("tool '%s' needs the field '%s'", t->name, q->valuestring);
			goto out;
		}
	}
	/* Here, not in the tool: the question is not put for a call that
	 * could only fail. */
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(input, "path"));
	if ((strcmp(t->name, "write") == 0 || strcmp(t->name, "edit") == 0) && path && tpath_names_dir(path)) {
		*err = xasprintf("'%s' names a directory (it ends in '/', '.' or '..') — name the file to %s, e.g. "
				 "'dir/name.txt'", path, t->name);
		goto out;
	}
	r = 0;
out:
	cJSON_Delete(schema);
	return r;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 (one cut
 * short by the end of s is not valid either). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp;
	int k = utf8_decode(s, n, &cp);
	return k > 0 ? (size_t)k : 0;
}

/* How many bytes from s on are ASCII, eight at a time: a model's text is
 * mostly ASCII, and a whole answer (megabytes) is cleaned each round. */
static size_t ascii_run(const unsigned char *s, size_t n)
{
	size_t i = 0;
	for (uint64_t w; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
	}
	while (i < n && s[i] < 0x80)
		i++;
	return i;
}

char *tools_utf8_clean(char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, bad = 0;
	while (i < n) {
		i += ascii_run(u + i, n - i);
		if (i == n)
			break;
		size_t l = utf8_seq(u + i, n - i);
		if (!l) {
			bad++;
			l = 1;
		}
		i += l;
	}
	if (!bad)
		return s;
	char *o = xmalloc(n + bad * 2 + 1), *w = o;
	for (i = 0; i < n;) {
		size_t l = utf8_seq(u + i, n - i);
		if (!l) {
			memcpy(w, "\xef\xbf\xbd", 3);	/* U+FFFD */
			w += 3;
			i++;
			continue;
		}
		memcpy(w, s + i, l);
		w += l;
		i += l;
	}
	*w = '\0';
	free(s);
	return o;
}

int tools_run(const struct tool_ctx *ctx, const char *name, const cJSON *input, struct tool_result *out)
{
	char *err = NULL;
	int r;

	out->is_error = 0;
	out->content = NULL;
	const struct tool_def *t = tools_find(name);
	if (!t)
		return tool_fail(out, "unknown tool '%s' — the tools are read, ls, find, grep, write, edit, bash",
				 name ? name : "");
	if (tools_validate(t, input, &err) < 0)
		return tool_fail_own(out, err);
	if (tool_stopped(ctx))
		return tool_fail(out, "cancelled");
	if (t->risk != TOOL_RISK_EXEC && !ctx->guard)
		return tool_fail(out, "internal: tool '%s' has no filesystem guard", t->name);
	if (t->risk == TOOL_RISK_EXEC && !ctx->policy)
		return tool_fail(out, "internal: tool '%s' has no sandbox policy", t->name);
	r = t->handler(ctx, input, out);
	if (!out->content)
		out->content = xstrdup(r < 0 ? "the tool failed" : "(no output)");
	out->content = tools_utf8_clean(out->content);
	out->is_error = r < 0;
	return r < 0 ? -1 : 0;
}

void tool_result_release(struct tool_result *r)
{
	free(r->content);
	r->content = NULL;
}

/* ---- shared pieces ---- */

void tout_init(struct tout *o, size_t max)
{
	memset(o, 0, sizeof(*o));
	o->max = max;
}

static void tout_grow(struct tout *o, size_t need)
{
	if (o->len + need + 1 <= o->alloc)
		return;
	size_t a = o->alloc ? o->alloc : 4096;
	while (a < o->len + need + 1)
		a *= 2;
	o->buf = xrealloc(o->buf, a);
	o->alloc = a;
}

int tout_add(struct tout *o, const char *s, size_t n)
{
	if (o->full || o->len + n > o->max) {
		o->full = 1;
		return -1;
	}
	tout_grow(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return 0;
}

int tout_printf(struct tout *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	int r = tout_add(o, s, strlen(s));
	free(s);
	return r;
}

void tout_force(struct tout *o, const char *s)
{
	size_t n = strlen(s);
	tout_grow(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void tout_note(struct tout *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	tout_force(o, s);
	free(s);
}

void tool_stop_note(const struct tool_ctx *c, struct tout *o, const char *what)
{
	int v = c->stop ? *c->stop : 0;
	if (v > TOOL_STOP_SIGNAL(0) && v < TOOL_STOP_SIGNAL(65))
		tout_note(o, "[stopped: sandbx got %s before the %s was done; what it found so far is shown]\n",
			  sandbox_sig_name(v - TOOL_STOP_SIGNAL(0)), what);
	else if (v == TOOL_STOP_TERMINAL)
		tout_note(o, "[stopped: the terminal went away before the %s was done; what it found so far is "
			     "shown]\n", what);
	else
		tout_note(o, "[cancelled: the user stopped the %s; what it found so far is shown]\n", what);
}

char *tout_detach(struct tout *o)
{
	char *b = o->buf ? o->buf : xstrdup("");
	memset(o, 0, sizeof(*o));
	return b;
}

void tout_release(struct tout *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

int tool_fail_own(struct tool_result *out, char *msg)
{
	free(out->content);
	out->content = msg;
	out->is_error = 1;
	return -1;
}

int tool_fail(struct tool_result *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return tool_fail_own(out, s);
}

int tool_ok_own(struct tool_result *out, char *content)
{
	free(out->content);
	out->content = content;
	out->is_error = 0;
	return 0;
}

const char *tin_str(const cJSON *in, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, key));
}

uint64_t tin_uint(const cJSON *in, const char *key, uint64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, key);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint64_t)v->valuedouble : dflt;
}

int tin_bool(const cJSON *in, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

uint64_t tlim_files(const struct tool_ctx *c)
{
	return c->limits.max_scan_files ? c->limits.max_scan_files : TOOLS_MAX_SCAN_FILES;
}

uint64_t tlim_bytes(const struct tool_ctx *c)
{
	return c->limits.max_scan_bytes ? c->limits.max_scan_bytes : TOOLS_MAX_SCAN_BYTES;
}

uint64_t tlim_results(const struct tool_ctx *c)
{
	return c->limits.max_results ? c->limits.max_results : TOOLS_MAX_RESULTS;
}

long tlim_ms(const struct tool_ctx *c)
{
	return c->limits.grep_ms ? (long)c->limits.grep_ms : TOOLS_GREP_SECONDS * 1000L;
}

int tpath_names_dir(const char *path)
{
	size_t n = strlen(path);
	const char *last = path + n;
	while (last > path && last[-1] != '/')
		last--;
	return n > 0 && (path[n - 1] == '/' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0);
}

char *tdisplay_base(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if ((n == 1 && path[0] == '.') || (n == 2 && path[0] == '.' && path[1] == '/'))
		return xstrdup("");
	return xstrndup(path, n);
}

int tglob_match(const char *glob, const char *name, const char *rel)
{
	int any = 0;
	while (strncmp(glob, "**/", 3) == 0) {
		glob += 3;
		any = 1;
	}
	if (!strchr(glob, '/'))
		return fnmatch(glob, name, 0) == 0;
	if (fnmatch(glob, rel, 0) == 0)
		return 1;
	/* "**" + "/" before: the rest may match at any directory below */
	for (const char *p = strchr(rel, '/'); any && p; p = strchr(p + 1, '/'))
		if (fnmatch(glob, p + 1, 0) == 0)
			return 1;
	return 0;
}

char *tsize_words(uint64_t n)
{
	if (n >= (1ull << 30) && n % (1ull << 30) == 0)
		return xasprintf("%llu GiB", (unsigned long long)(n >> 30));
	if (n >= (1ull << 20) && n % (1ull << 20) == 0)
		return xasprintf("%llu MiB", (unsigned long long)(n >> 20));
	if (n >= 1024 && n % 1024 == 0)
		return xasprintf("%llu KiB", (unsigned long long)(n >> 10));
	return xasprintf("%llu bytes", (unsigned long long)n);
}

int tools_json_has_nul(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != '\\')
			continue;
		if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
			return 1;
		i++;	/* the escaped character, a backslash included */
	}
	return 0;
}

int tools_json_is_flat(const char *s, size_t n, size_t max_members)
{
	size_t depth = 0, members = 0;
	int in_str = 0, seen = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			break;
		case '{':
		case '[':
			if (depth > 0 || c == '[' || seen)
				return 0;	/* a nested value, or a second object */
			depth = 1;
			seen = 1;
			break;
		case '}':
			depth = 0;
			break;
		case ',':
			if (depth == 1 && ++members >= max_members)
				return 0;
			break;
		default:
			break;
		}
	}
	return 1;
}

char *tools_nul_visible(const char *s, size_t n)
{
	size_t nul = 0;
	for (const char *p = s; (p = memchr(p, 0, n - (size_t)(p - s))); p++)
		nul++;
	char *out = xmalloc(n + 3 * nul + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i]) {
			*o++ = s[i];
		} else {
			memcpy(o, "\\x00", 4);
			o += 4;
		}
	}
	*o = '\0';
	return out;
}

char *tools_name_visible(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(n * 4 + 1), *o = out;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		unsigned char c = (unsigned char)s[i];
		int k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		/* a backslash too, or a name spelling 'a\x0ab' is shown as the
		 * name 'a<LF>b' is; and NEL, LS, PS, which end a line for a
		 * reader of text, byte by byte like the other C1 controls */
		if (k <= 0 || c < 0x20 || c == 0x7f || c == '\\' || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 ||
		    cp == 0x2029) {
			for (int j = 0; j < (k > 0 ? k : 1); j++)
				o += sprintf(o, "\\x%02x", (unsigned char)s[i + (size_t)j]);
			i += (size_t)(k > 0 ? k : 1);
			continue;
		}
		memcpy(o, s + i, (size_t)k);
		o += k;
		i += (size_t)k;
	}
	*o = '\0';
	return out;
}

char *tools_path_visible(const char *s, int colon)
{
	char *v = tools_name_visible(s);
	size_t extra = v[0] == '(' ? 3 : 0;
	for (const char *p = v; colon && (p = strchr(p, ':')); p++)
		extra += 3;
	if (!extra)
		return v;
	/* ':' and '(' are never part of an escape written above */
	char *out = xmalloc(strlen(v) + extra + 1), *o = out;
	for (const char *p = v; *p; p++) {
		if ((p == v && *p == '(') || (colon && *p == ':'))
			o += sprintf(o, "\\x%02x", (unsigned char)*p);
		else
			*o++ = *p;
	}
	*o = '\0';
	free(v);
	return out;
}
