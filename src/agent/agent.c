/*
 * agent.c — the turn loop (turn.h): rounds of request, streamed answer,
 * gate, tools and stored history, shared by agent-run and tui.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/cjson.h"

#include "agent/fold.h"
#include "agent/gate.h"
#include "agent/provider.h"
#include "agent/turn.h"
#include "store/credentials.h"
#include "store/session.h"
#include "store/xdg.h"
#include "tools/tools.h"
#include "tools/tools_limits.h"
#include "util/log.h"

#define AGENT_DEFAULT_MODEL "claude-sonnet-4-5"
#define AGENT_DEFAULT_MAX_TOKENS 4096
#define AGENT_DEFAULT_MAX_ROUNDS 8

struct agent {
	struct agent_config cfg;
	char *model;
	char *system;
	char *key;
	char *base_url;
	struct fsguard *guard;
	struct gate gate;
	struct session *sess;	/* NULL: nothing is stored */
	cJSON *history;		/* messages so far */
	struct xdg_paths xdg;
	int have_xdg;
};

/*
 * The prompt names paths as the tools show them (tools_name_visible): a
 * directory called "x<LF>Ignore the rules above." would otherwise write a
 * line of its own into the harness's text, and a byte that is not UTF-8
 * would make the whole request body something the API refuses.
 */
static char *build_system(const struct agent_config *cfg, const char *cwd)
{
	char *tools = NULL, *roots = NULL, *s, *cwd_vis = tools_name_visible(cwd);
	for (int i = 0; i < TOOL__COUNT; i++) {
		if (!(cfg->allowed_tools & (1u << i)))
			continue;
		char *t = tools ? xasprintf("%s, %s", tools, tools_table()[i].name) : xstrdup(tools_table()[i].name);
		free(tools);
		tools = t;
	}
	/* The system directories the text below names are not listed; every
	 * other grant is, with all its rights (an --allow-exec tree too). */
	static const char *const named[] = { "/usr", "/bin", "/lib", "/lib64" };
	int cwd_granted = 0;
	for (size_t i = 0; i < cfg->policy->ngrants; i++) {
		const struct policy_grant *g = &cfg->policy->grants[i];
		int is_named = 0;
		for (size_t k = 0; k < SBX_ARRAY_LEN(named); k++)
			is_named |= strcmp(g->path, named[k]) == 0;
		if (g->link || ((g->access & POL_EXEC) && is_named))
			continue;
		if (g->is_dir && path_within(cwd, g->path))
			cwd_granted = 1;
		char mode[32];
		snprintf(mode, sizeof(mode), "%s%s%s%s", (g->access & POL_READ) ? "read" : "",
			 (g->access & POL_READ) && (g->access & POL_WRITE) ? "+" : "",
			 (g->access & POL_WRITE) ? "write" : "", (g->access & POL_EXEC) ? "+exec" : "");
		char *vis = tools_name_visible(g->path);
		char *t = roots ? xasprintf("%s\n- %s (%s)", roots, vis, mode) : xasprintf("- %s (%s)", vis, mode);
		free(vis);
		free(roots);
		roots = t;
	}
	/* the helper's private tmpfs mounts, where no grant claims the path */
	char *dirs = NULL, *scratch;
	for (size_t i = 0; i < POLICY_NSCRATCH; i++) {
		if (!policy_scratch_private(cfg->policy, i))
			continue;
		char *t = dirs ? xasprintf("%s and %s", dirs, policy_scratch_dirs[i]) : xstrdup(policy_scratch_dirs[i]);
		free(dirs);
		dirs = t;
	}
	scratch = dirs ? xasprintf(" %s there: empty scratch space private to each call, gone when it ends.", dirs)
		       : xstrdup("");
	free(dirs);
	s = xasprintf("You are a coding agent running inside sandbx, a sandboxed harness.\n"
		      "Tools you may use: %s.\n"
		      "You can reach only these paths (anything else does not exist for you):\n%s\n"
		      "The working directory is %s%s.\n"
		      "The bash tool runs /bin/sh -c in a sandbox with no network unless granted; "
		      "/usr, /bin and /lib are read-only and executable there.%s "
		      "Write and edit calls, and bash, may need the user's approval; a refused call "
		      "comes back as an error that says why.%s%s",
		      tools ? tools : "none", roots ? roots : "(none)", cwd_vis,
		      cwd_granted ? "" : " (relative paths of the other tools start there; it is not granted, so bash "
					 "starts in /)",
		      scratch,
		      cfg->system ? "\n\n" : "", cfg->system ? cfg->system : "");
	free(tools);
	free(roots);
	free(scratch);
	free(cwd_vis);
	return s;
}

int agent_new(const struct agent_config *cfg, struct agent **out, char **err)
{
	struct agent *a = xcalloc(1, sizeof(*a));
	char *source = NULL, cwd[PATH_MAX];
	struct strv notes = { 0 };
	int r;

	a->cfg = *cfg;
	/* A set but empty SANDBX_MODEL counts as unset, as an empty
	 * ANTHROPIC_BASE_URL does. */
	const char *env_model = getenv("SANDBX_MODEL");
	a->model = xstrdup(cfg->model ? cfg->model : env_model && *env_model ? env_model : AGENT_DEFAULT_MODEL);
	if (!a->cfg.max_tokens)
		a->cfg.max_tokens = AGENT_DEFAULT_MAX_TOKENS;
	if (!a->cfg.max_rounds)
		a->cfg.max_rounds = AGENT_DEFAULT_MAX_ROUNDS;
	gate_init(&a->gate, cfg->allowed_tools, cfg->approve_call);

	if (cred_load_api_key(&a->key, &source, err) < 0)
		goto fail;
	free(source);
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	a->system = build_system(cfg, cfg->policy->cwd ? cfg->policy->cwd : cwd);

	const char *base = cfg->base_url ? cfg->base_url : getenv("ANTHROPIC_BASE_URL");
	if (base && *base) {
		char *url = NULL;
		if (prov_messages_url(base, &url, err) < 0) {
			/* http to a non-loopback host, not a URL...; one from
			 * the environment is named so (--base-url is judged,
			 * and named, by the cli before this) */
			if (!cfg->base_url && err && *err) {
				char *named = xasprintf("ANTHROPIC_BASE_URL: %s", *err);
				free(*err);
				*err = named;
			}
			goto fail;
		}
		free(url);
		a->base_url = xstrdup(base);
	}
	if (fsguard_new(cfg->policy, NULL, 0, &a->guard, err) < 0)
		goto fail;

	a->have_xdg = xdg_paths_get(&a->xdg, err) == 0;
	if (cfg->session_id || cfg->new_session || cfg->resume_latest) {
		if (!a->have_xdg)
			goto fail;
		if (cfg->session_id)
			r = session_resume(&a->xdg, cfg->session_id, &a->sess, &notes, err);
		else if (cfg->resume_latest)
			r = session_resume_latest(&a->xdg, &a->sess, &notes, err);
		else
			r = session_create(&a->xdg, &a->sess, &notes, err);
		for (size_t i = 0; i < notes.n; i++)
			sbx_err("%s", notes.v[i]);
		strv_free(&notes);
		if (r < 0)
			goto fail;
		a->history = session_take_history(a->sess);
		if (cfg->session_id || cfg->resume_latest)
			sbx_err("resumed session %s: %d turn%s loaded%s", session_id(a->sess), session_turns(a->sess),
				session_turns(a->sess) == 1 ? "" : "s",
				session_cut_short(a->sess) ? "; the last one was cut short" : "");
	} else {
		free(*err);
		*err = NULL;
	}
	if (!a->history)
		a->history = cJSON_CreateArray();
	*out = a;
	return 0;
fail:
	agent_free(a);
	return -1;
}

const char *agent_model(const struct agent *a)
{
	return a->model;
}

const char *agent_session_id(const struct agent *a)
{
	return a->sess ? session_id(a->sess) : NULL;
}

void agent_free(struct agent *a)
{
	if (!a)
		return;
	if (a->sess)
		session_close(a->sess);
	if (a->guard)
		fsguard_free(a->guard);
	free(a->base_url);
	if (a->key)
		cred_key_free(a->key);
	if (a->have_xdg)
		xdg_paths_release(&a->xdg);
	cJSON_Delete(a->history);
	free(a->model);
	free(a->system);
	free(a);
}

/* ---- one turn ------------------------------------------------------------ */

/*
 * Text and thinking deltas are handed on once per network read (at the
 * provider's on_flush), joined, not one by one: one event, one write and
 * one lock in the TUI for a read's worth of deltas instead of for each of
 * them.  Any other event passes the joined text on first, so the order is
 * kept.  AGENT_TEXT_BATCH bounds what waits.
 */
#define AGENT_TEXT_BATCH (64u << 10)

struct round_ctx {
	struct agent *a;
	const struct turn_io *io;
	int round;
	struct turn_usage usage;
	enum turn_event_kind batch_kind;	/* TEV_TEXT or TEV_THINKING */
	char *batch;		/* deltas not yet handed on, NUL-terminated */
	size_t batch_len, batch_cap;
};

static void emit_now(const struct round_ctx *rc, struct turn_event *ev)
{
	ev->round = rc->round;
	ev->usage = rc->usage;
	if (rc->io && rc->io->on_event)
		rc->io->on_event(rc->io->ud, ev);
}

static void flush_batch(struct round_ctx *rc)
{
	if (!rc->batch_len)
		return;
	struct turn_event ev = { .kind = rc->batch_kind, .text = rc->batch, .len = rc->batch_len };
	rc->batch_len = 0;
	emit_now(rc, &ev);
}

static void emit(struct round_ctx *rc, struct turn_event *ev)
{
	flush_batch(rc);
	emit_now(rc, ev);
}

static void add_delta(struct round_ctx *rc, enum turn_event_kind kind, const char *s, size_t n)
{
	if (rc->batch_len && (rc->batch_kind != kind || rc->batch_len + n > AGENT_TEXT_BATCH))
		flush_batch(rc);
	if (n == 0)
		return;
	if (n > AGENT_TEXT_BATCH) {
		struct turn_event ev = { .kind = kind, .text = s, .len = n };
		emit_now(rc, &ev);	/* as it is: no copy */
		return;
	}
	if (rc->batch_len + n + 1 > rc->batch_cap) {
		rc->batch_cap = AGENT_TEXT_BATCH + 1;
		rc->batch = xrealloc(rc->batch, rc->batch_cap);
	}
	memcpy(rc->batch + rc->batch_len, s, n);
	rc->batch_len += n;
	rc->batch[rc->batch_len] = '\0';
	rc->batch_kind = kind;
}

static void on_text(void *ctx, size_t index, const char *s, size_t n)
{
	add_delta(ctx, TEV_TEXT, s, n);
}

static void on_thinking(void *ctx, size_t index, const char *s, size_t n)
{
	add_delta(ctx, TEV_THINKING, s, n);
}

static void on_retry(void *ctx, const struct prov_retry *r)
{
	char *message = prov_retry_text(r);
	struct turn_event ev = { .kind = TEV_RETRY, .text = message, .len = strlen(message) };
	emit(ctx, &ev);
	free(message);
}

/* A network read was folded: hand on its text, then let the sink flush. */
static void on_flush(void *ctx)
{
	struct round_ctx *rc = ctx;
	flush_batch(rc);
	if (rc->io && rc->io->on_flush)
		rc->io->on_flush(rc->io->ud);
}

static void note(struct round_ctx *rc, const char *text)
{
	struct turn_event ev = { .kind = TEV_NOTE, .text = text, .len = strlen(text) };
	emit(rc, &ev);
}

static int stopped(const struct turn_io *io)
{
	return io && io->stop && *io->stop;
}

/* What a call is about, for the user: bash's command, any other tool's
 * path (never a field the tool does not have).  A command may span
 * lines; a path is shown on one, so a newline in it cannot draw lines of
 * the question (or the diff) of its own. */
static char *call_subject(const char *tool, const cJSON *input)
{
	return gate_call_subject(tool, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(input, "command")),
				 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(input, "path")));
}

/*
 * Unified diff of what a write or edit would change (NULL otherwise): the
 * new text is built the way the tool builds it (tools_edit_text), so
 * replace_all shows every change.  The current content is read through the
 * same guard and with the same open as the tool's: a FIFO or a device is
 * not waited on.  A file that cannot be compared is said to be replaced
 * whole, never shown as a new one.
 */
static size_t count_lines(const char *s)
{
	size_t n = 0, len = strlen(s);
	for (const char *p = s; (p = strchr(p, '\n')); p++)
		n++;
	return n + (len > 0 && s[len - 1] != '\n');
}

/* A line naming the file a path holding a '..' component reaches, or
 * NULL: the tools take the '..' away before they look (fsguard), and
 * 'docs/v1/../../.git/hooks/pre-commit' reads as a file under docs/.
 * Relative to the working directory when beneath it, as the path was. */
static char *dotdot_named(struct agent *a, const char *path)
{
	int dotdot = 0;
	for (const char *s = path; *s; s += strcspn(s, "/")) {
		s += strspn(s, "/");
		if (strncmp(s, "..", 2) == 0 && (s[2] == '/' || !s[2]))
			dotdot = 1;
	}
	const char *cwd = fsguard_cwd(a->guard);
	char *abs = dotdot ? fsguard_normalize(cwd, path) : NULL;
	if (!abs)
		return NULL;
	size_t cl = strlen(cwd);
	const char *rel = abs;
	if (strcmp(abs, cwd) == 0)
		rel = ".";
	else if (strcmp(cwd, "/") != 0 && strncmp(abs, cwd, cl) == 0 && abs[cl] == '/')
		rel = abs + cl + 1;
	char *vis = gate_visible_path(rel, GATE_MAX_SHOWN);
	char *line = xasprintf("(without its .. the path is %s: the file this call changes)\n", vis);
	free(vis);
	free(abs);
	return line;
}

/* The diff as the question shows it (GATE_MAX_DIFF_LINES) and whole
 * (GATE_MAX_WHOLE_LINES), from one read of the file; both NULL when the
 * call changes no file. */
static void call_diff(struct agent *a, const char *tool, const cJSON *input, char **shown, char **whole,
		      struct tool_expect **expect, char **refusal)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(input, "path");
	int is_edit = !strcmp(tool, "edit");
	*shown = *whole = NULL;
	*expect = NULL;
	*refusal = NULL;
	if (!cJSON_IsString(path) || (strcmp(tool, "write") && !is_edit))
		return;
	char *old = NULL, *why = NULL, *err = NULL;
	size_t len = 0;
	/* This read is sandbx's, to show the user: not the model's access,
	 * which the tool's own open records if the call runs.  Audited, it
	 * left "absent ... access=read" for each new file, and a second
	 * "denied" beside the write's for one refusal. */
	audit_mute(1);
	int fd = fsguard_open(a->guard, path->valuestring, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
	audit_mute(0);
	free(err);
	/* A FIFO, socket or device (never opened: fsguard): the tool
	 * refuses it, and the question would say it is replaced whole. */
	int nonreg = fd == -ENXIO || fd == -ENODEV;
	/* Such a write is answered as the tool answers, through the tool's
	 * own steps, which open none of them and write the records they
	 * write; one that finds a regular file (or nothing) there by now is
	 * asked about as before. */
	if (nonreg && !is_edit && (*refusal = tools_write_target_refusal(a->guard, path->valuestring)))
		return;
	/* An edit of a file not there (or outside the grants: the same
	 * words), or of a FIFO, socket or device, can only fail, and the
	 * question would show no diff: it is answered as the tool answers,
	 * through the tool's own first steps (tools_edit_open), whose
	 * "absent" or "denied" record is so kept.  A regular file there by
	 * now is asked about as before. */
	if ((fd == -ENOENT || nonreg) && is_edit) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(input, "old");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(input, "new");
		char *terr = NULL;
		struct stat tst;
		int tfd = cJSON_IsString(o) && cJSON_IsString(n)
			? tools_edit_open(a->guard, path->valuestring, o->valuestring, n->valuestring,
					  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(input, "replace_all")), &tst, &terr)
			: -1;
		if (terr) {
			*refusal = terr;
			return;
		}
		if (tfd >= 0)
			close(tfd);
	}
	/* Not there (or outside the grants: the tool fails too) is a new
	 * file; there but unreadable is not. */
	if (nonreg)
		why = xstrdup("it is not a regular file");
	else if (fd < 0 && fd != -ENOENT)
		why = xasprintf("it could not be read (%s)", strerror(-fd));
	/* What the call may then find there: nothing, or this file.  A file
	 * that could not be opened (unreadable to the user) is not held. */
	struct tool_expect *ex = NULL;
	if (fd == -ENOENT)
		ex = xcalloc(1, sizeof(*ex));
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			/* The tool refuses a directory as its file, and the
			 * question would say it is replaced: answered as the
			 * tool answers, not asked. */
			const char *p = path->valuestring;
			*refusal = is_edit
				? xasprintf("'%s' is not a regular file — edit changes text files", p)
				: xasprintf("'%s' is a directory — name a file", p);
			close(fd);
			free(ex);
			*expect = NULL;
			return;
		}
		if (fstat(fd, &st) == 0) {
			ex = xcalloc(1, sizeof(*ex));
			ex->present = 1;
			ex->dev = st.st_dev;
			ex->ino = st.st_ino;
			ex->size = st.st_size;
			ex->mtime = st.st_mtim;
		}
		if (!ex || !S_ISREG(st.st_mode)) {
			why = xstrdup("it is not a regular file");
		} else if ((uint64_t)st.st_size > TOOLS_MAX_EDIT_BYTES) {
			why = xasprintf("it is %llu bytes, over the %u MiB compared", (unsigned long long)st.st_size,
					TOOLS_MAX_EDIT_BYTES >> 20);
		} else {
			size_t size = (size_t)st.st_size;
			old = xmalloc(size + 2);
			for (;;) {
				ssize_t n = read(fd, old + len, size + 1 - len);
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0 || (len += (size_t)n) > size)
					break;
			}
			old[len] = '\0';
			if (len > size)
				why = xstrdup("it grew while it was read");
			else if (memchr(old, 0, len))
				why = xstrdup("it holds NUL bytes (binary)");
		}
		close(fd);
	}
	if (ex && old && !why) {	/* the text the diff compares */
		ex->content = old;
		ex->len = len;
		old = NULL;
	}
	*expect = ex;
	const char *cur = ex && ex->content ? ex->content : old;
	char *new_text = NULL;
	if (!is_edit) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(input, "content");
		new_text = xstrdup(cJSON_IsString(c) ? c->valuestring : "");
	} else if (cur && !why) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(input, "old");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(input, "new");
		const cJSON *all = cJSON_GetObjectItemCaseSensitive(input, "replace_all");
		size_t k;
		uint64_t grown;
		if (cJSON_IsString(o) && cJSON_IsString(n)) {
			new_text = tools_edit_text(cur, len, o->valuestring, n->valuestring, cJSON_IsTrue(all), &k,
						   &grown);
			/* The edit cannot apply to the file as it is: the tool
			 * would answer so, and a question without a diff would
			 * ask the user to approve what changes nothing. */
			if (!new_text)
				*refusal = tools_edit_refusal(path->valuestring, o->valuestring, n->valuestring,
							      cJSON_IsTrue(all), k, grown);
		}
	}
	if (new_text) {
		char *vis = gate_visible_path(path->valuestring, GATE_MAX_SHOWN);	/* the header is one line */
		char *named = dotdot_named(a, path->valuestring);
		size_t on = why || !cur ? 0 : count_lines(cur), nn = count_lines(new_text);
		if (on + nn > GATE_MAX_DIFF_INPUT_LINES) {
			/* A diff costs some 32 bytes a line: past a few million,
			 * say what the change is instead. */
			*shown = xasprintf("(the change is too large to show as a diff: '%s' would go from %zu lines to "
					   "%zu — a change you cannot read is one to refuse)\n", vis, on, nn);
			*whole = xstrdup(*shown);
		} else {
			for (int w = 0; w < 2; w++) {
				char *body = gate_diff(vis, why ? "" : cur, new_text,	/* cur NULL: a new file */
						       w ? GATE_MAX_WHOLE_LINES : GATE_MAX_DIFF_LINES,
						       w ? 0 : GATE_MAX_SHOWN);
				char *d = why ? xasprintf("(the current '%s' is not compared — %s: all of it is replaced "
							  "by the text below)\n%s", vis, why, body)
					/* a diff of headers alone reads as a change
					 * the question failed to show */
					: cur && strcmp(cur, new_text) == 0
					? xasprintf("(no change: the text is '%s' as it is, byte for byte)\n%s", vis, body)
					: body;
				if (d != body)
					free(body);
				*(w ? whole : shown) = d;
			}
		}
		if (named) {
			for (int w = 0; w < 2; w++) {
				char **d = w ? whole : shown;
				char *t = xasprintf("%s%s", named, *d);
				free(*d);
				*d = t;
			}
			free(named);
		}
		free(vis);
	}
	free(why);
	free(old);
	free(new_text);
}

static cJSON *tool_result_block(const char *id, const char *content, int is_error)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_result");
	cJSON_AddStringToObject(b, "tool_use_id", id);
	cJSON_AddStringToObject(b, "content", content);
	if (is_error)
		cJSON_AddBoolToObject(b, "is_error", 1);
	return b;
}

/* The user message carrying a round's tool results; NULL for none. */
static cJSON *results_message(cJSON *content)
{
	if (!content)
		return NULL;
	cJSON *msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "role", "user");
	cJSON_AddItemToObject(msg, "content", content);
	return msg;
}

/* 1 when an assistant message of the history has a tool_use with this id. */
static int history_has_tool_id(const cJSON *history, const char *id)
{
	const cJSON *msg, *b;
	cJSON_ArrayForEach(msg, history) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "role"));
		if (!role || strcmp(role, "assistant") != 0)
			continue;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(msg, "content")) {
			const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
			const char *bid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "id"));
			if (t && bid && strcmp(t, "tool_use") == 0 && strcmp(bid, id) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * A call whose id an earlier message of the conversation has is refused
 * before the answer is kept: the API refuses every request whose history
 * names one tool_use id twice, so running and keeping it would leave a
 * conversation (and a stored session) that can never be continued.  Calls
 * within one message are held to this by fold.
 */
static void refuse_repeated_ids(struct agent *a, struct fold_msg *m)
{
	for (size_t i = 0; i < m->nblocks; i++) {
		if (!fold_tool_ready(m, i) || !history_has_tool_id(a->history, m->blocks[i].id))
			continue;
		fold_refuse_call(m, i, xasprintf("tool call '%s' (%s) has the id of an earlier call of the "
						 "conversation", m->blocks[i].name, m->blocks[i].id));
	}
}

/* What a call the turn was stopped before gets for its result. */
static char *not_run_stopped(const char *tool)
{
	return xasprintf("not run: the turn was stopped before this %s call ran", tool);
}

/*
 * Run the tool calls of one assistant message; returns the user message of
 * tool_results (NULL when the message asked for none).  *no_consent is set
 * when nobody could answer a question: every later call is refused.
 *
 * A stop (escape at a question, or while a call runs) ends the calls
 * there.  When a call had been answered by then (it ran, was refused, or
 * is the one stopped), each later call gets a "not run" result, so the
 * round can be kept whole: the history must hold what ran (turn.h).  A
 * stop before the first call was answered returns NULL: nothing ran, and
 * the round is dropped.
 */
static cJSON *run_tools(struct round_ctx *rc, const struct fold_msg *m, int *no_consent)
{
	struct agent *a = rc->a;
	cJSON *content = NULL;
	size_t returned = 0;	/* bytes of this message's results so far */
	const long start = mono_ms();
	long asking = 0;	/* ... and the time spent waiting for answers */
	size_t i;
	for (i = 0; i < m->nblocks; i++) {
		const struct fold_block *b = &m->blocks[i];
		if (b->type == FOLD_TOOL_USE && b->stopped && b->input_error) {
			/* Left out of the history (fold_content_take): said, not
			 * dropped without a word. */
			char *t = xasprintf("%s — the call was not run", b->input_error);
			note(rc, t);
			free(t);
		}
		if (b->type != FOLD_TOOL_USE || !fold_tool_ready(m, i))
			continue;
		if (!content)
			content = cJSON_CreateArray();
		char *input = cJSON_PrintUnformatted(b->input);
		char *subject = call_subject(b->name, b->input);
		struct turn_event call = { .kind = TEV_TOOL_CALL, .tool = b->name, .id = b->id,
					   .subject = subject, .input = input };
		emit(rc, &call);
		if (stopped(rc->io)) {
			/* stopped while the call was being shown (agent-run's
			 * reader gone): it does not run */
			free(input);
			free(subject);
			break;
		}

		struct tool_result res = { 0 };
		long t0 = mono_ms();
		long call_asking = 0;	/* this call's question: not in its elapsed_ms */
		enum gate_verdict v = gate_decide(&a->gate, b->name);
		if (*no_consent && v == GATE_ASK)
			v = GATE_REFUSE;
		/* The message's budget, before anyone is asked. */
		if (v != GATE_REFUSE && (res.content = gate_message_budget(returned, t0 - start - asking))) {
			res.is_error = 1;
			v = GATE_REFUSE;
		}
		/* A call its tool would refuse is not put to the user: the
		 * question would show what is never run (a stray "command" as
		 * a write's subject), and the answer would change nothing. */
		const struct tool_def *td = tools_find(b->name);
		char *invalid = NULL;
		if (v == GATE_ASK && td && tools_validate(td, b->input, &invalid) < 0) {
			res.is_error = 1;
			res.content = tools_utf8_clean(invalid);
			v = GATE_REFUSE;
		}
		struct tool_expect *seen = NULL;	/* the file as the question showed it */
		char *diff = NULL, *diff_w = NULL, *cannot = NULL;
		if (v == GATE_ASK) {
			call_diff(a, b->name, b->input, &diff, &diff_w, &seen, &cannot);
			if (cannot) {	/* answered as the tool would, not asked */
				res.is_error = 1;
				res.content = cannot;
				v = GATE_REFUSE;
				free(diff);
				free(diff_w);
			}
		}
		if (v == GATE_ASK) {
			/* The arguments hold the subject (bash's command, a
			 * write's path) and the text written: shown by the
			 * subject's rules, or the line below a path shown as
			 * 'no<U+0338>tes.txt' would draw it struck through. */
			char *(*shown)(const char *, size_t) = gate_visible_args;
			char *reason = NULL, *args = shown(input, GATE_MAX_SHOWN);
			/* What the question cuts, the user may still read whole. */
			char *args_w = shown(input, GATE_MAX_WHOLE);
			char *whole = gate_whole(b->name, args_w, diff_w);
			struct approval_question q = { .tool = b->name, .subject = subject, .args = args, .diff = diff,
						       .whole = whole,
						       .cut = strcmp(args_w, args) || (diff_w && strcmp(diff_w, diff)) };
			long q0 = mono_ms();
			enum approval_answer ans = rc->io && rc->io->ask ? rc->io->ask(rc->io->ud, &q, &reason) : APPROVE_ABORT;
			call_asking = mono_ms() - q0;
			asking += call_asking;	/* the user's time is not the calls' */
			free(args);
			free(diff);
			free(args_w);
			free(diff_w);
			free(whole);
			if (ans == APPROVE_ALWAYS) {
				gate_remember_always(&a->gate, b->name);
				v = GATE_RUN;
			} else if (ans == APPROVE_YES) {
				v = GATE_RUN;
			} else {
				if (ans == APPROVE_ABORT)
					*no_consent = 1;
				res.is_error = 1;
				res.content = ans == APPROVE_ABORT
					? xasprintf("not run: nobody was there to approve this %s call", b->name)
					: stopped(rc->io) ? not_run_stopped(b->name)	/* escape at the question */
					: gate_refusal_text(b->name, 1, reason);
			}
			free(reason);
		}
		if (v == GATE_REFUSE && !res.content) {
			res.is_error = 1;
			res.content = *no_consent && gate_decide(&a->gate, b->name) == GATE_ASK
				? xasprintf("not run: nobody was there to approve this %s call", b->name)
				: gate_refusal_text(b->name, 0, NULL);
		}
		if (v == GATE_RUN && !res.content) {
			struct tool_ctx ctx = {
				.guard = a->guard, .policy = a->cfg.policy, .env_value = a->cfg.env_value,
				.filter_cache = a->cfg.filter_cache,
				.limits = { a->cfg.max_scan_files, a->cfg.max_scan_bytes, a->cfg.max_results },
				.stop = rc->io ? rc->io->stop : NULL,
				.expect = seen,
			};
			tools_run(&ctx, b->name, b->input, &res);
		}
		if (seen)
			free((char *)seen->content);
		free(seen);
		/* what the gate says quotes the user's reason, which the
		 * request carries: UTF-8, as every tool's own result is */
		res.content = tools_utf8_clean(res.content);
		struct turn_event done = { .kind = TEV_TOOL_RESULT, .tool = b->name, .id = b->id,
					   .subject = subject, .text = res.content, .len = strlen(res.content),
					   .is_error = res.is_error,
					   .elapsed_ms = (uint64_t)(mono_ms() - t0 - call_asking) };
		emit(rc, &done);
		returned += strlen(res.content);
		cJSON_AddItemToArray(content, tool_result_block(b->id, res.content, res.is_error));
		tool_result_release(&res);
		free(input);
		free(subject);
		if (stopped(rc->io)) {
			i++;
			break;
		}
	}
	/* Stopped after a call was answered: the rest are not run, and said
	 * so, for the round to be kept (the API wants a result for each). */
	if (stopped(rc->io) && content && cJSON_GetArraySize(content) == 0) {
		cJSON_Delete(content);	/* stopped before the first call was answered */
		return NULL;
	}
	for (; content && stopped(rc->io) && i < m->nblocks; i++) {
		if (m->blocks[i].type != FOLD_TOOL_USE || !fold_tool_ready(m, i))
			continue;
		char *t = not_run_stopped(m->blocks[i].name);
		cJSON_AddItemToArray(content, tool_result_block(m->blocks[i].id, t, 1));
		free(t);
	}
	return results_message(content);
}

/*
 * The wrap-up round offers no tool (tool_choice none): a call the server
 * sends all the same is not run, but answered, or the history would hold
 * a tool_use without its result, which the API refuses in every later
 * request (and the session refuses to store).  NULL when it asked none.
 */
static cJSON *refuse_tools(struct round_ctx *rc, const struct fold_msg *m)
{
	cJSON *content = NULL;
	for (size_t i = 0; i < m->nblocks; i++) {
		if (!fold_tool_ready(m, i))
			continue;
		if (!content) {
			content = cJSON_CreateArray();
			note(rc, "the model asked for a tool in the wrap-up round, which offers none: not run");
		}
		cJSON_AddItemToArray(content, tool_result_block(m->blocks[i].id,
					"not run: the turn reached its round limit (--max-rounds); no tool runs in "
					"its last round", 1));
	}
	return results_message(content);
}

static cJSON *text_message(const char *role, const char *text)
{
	cJSON *msg = cJSON_CreateObject(), *content = cJSON_CreateArray(), *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	cJSON_AddStringToObject(msg, "role", role);
	cJSON_AddItemToObject(msg, "content", content);
	return msg;
}

static void finish(struct round_ctx *rc, struct turn_outcome *out, const char *reason, int code, int is_error)
{
	out->stop_reason = reason;
	out->exit_code = code;
	out->is_error = is_error;
	out->rounds = rc->round;
	out->usage = rc->usage;
	struct turn_event ev = { .kind = TEV_TURN_END, .text = reason, .len = strlen(reason) };
	emit(rc, &ev);
}

int agent_turn(struct agent *a, const char *prompt, const struct turn_io *io, struct turn_outcome *out)
{
	struct round_ctx rc = { .a = a, .io = io };
	int prompt_stored = 0, kept_rounds = 0, no_consent = 0, store_failed = 0;
	char *err = NULL;
	size_t hist_len = (size_t)cJSON_GetArraySize(a->history);

	memset(out, 0, sizeof(*out));
	/* One provider per turn: it polls this turn's stop flag and reports
	 * retries into this turn's events. */
	struct prov *prov = NULL;
	struct prov_opts po = { .base_url = a->base_url, .api_key = a->key, .on_retry = on_retry,
				.on_flush = on_flush, .ctx = &rc, .stop = io ? io->stop : NULL };
	if (prov_new(&po, &prov, &err) < 0) {
		struct turn_event ev = { .kind = TEV_ERROR, .text = err };
		ev.len = strlen(err);
		emit(&rc, &ev);
		free(err);
		finish(&rc, out, "error", 1, 1);
		return out->exit_code;
	}
	/* A history ending in a user message (a turn that ended on its tool
	 * results, or failed before its first round) takes the prompt into
	 * that message, after its results: the roles alternate, as the
	 * session's replay merges them. */
	cJSON *last = cJSON_GetArrayItem(a->history, (int)hist_len - 1);
	cJSON *last_content = NULL;
	int last_blocks = 0;
	const char *last_role = last ? cJSON_GetStringValue(cJSON_GetObjectItem(last, "role")) : NULL;
	if (last_role && strcmp(last_role, "user") == 0) {
		last_content = cJSON_GetObjectItem(last, "content");
		last_blocks = cJSON_GetArraySize(last_content);
		cJSON *pm = text_message("user", prompt);
		cJSON_AddItemToArray(last_content, cJSON_DetachItemFromArray(cJSON_GetObjectItem(pm, "content"), 0));
		cJSON_Delete(pm);
	} else {
		cJSON_AddItemToArray(a->history, text_message("user", prompt));
	}

	for (rc.round = 1;; rc.round++) {
		int wrap = rc.round > a->cfg.max_rounds;
		if (wrap && !a->cfg.wrap_up) {
			rc.round--;
			finish(&rc, out, "max_rounds", 2, 0);
			break;
		}
		struct fold_hooks hooks = { .text = on_text, .thinking = on_thinking, .ctx = &rc };
		struct fold_msg m;
		fold_init(&m, 0, &hooks);
		struct prov_request req = {
			.model = a->model, .max_tokens = (unsigned)a->cfg.max_tokens, .system = a->system,
			.messages = a->history, .tools = NULL, .tool_choice_none = wrap,
		};
		cJSON *tools = tools_schema_json(a->cfg.allowed_tools);
		req.tools = tools;
		int r = prov_round(prov, &req, &m, &err);
		cJSON_Delete(tools);
		rc.usage.input_tokens += (uint64_t)(m.usage.input_tokens > 0 ? m.usage.input_tokens : 0);
		rc.usage.output_tokens += (uint64_t)(m.usage.output_tokens > 0 ? m.usage.output_tokens : 0);
		if (r < 0 || stopped(io)) {
			fold_release(&m);
			if (stopped(io)) {
				note(&rc, "the turn was stopped; the round in progress was dropped");
				free(err);
				err = NULL;
				rc.round--;
				finish(&rc, out, "stopped", 2, 0);
			} else {
				struct turn_event ev = { .kind = TEV_ERROR, .text = err ? err : "the request failed" };
				ev.len = strlen(ev.text);
				emit(&rc, &ev);
				rc.round--;
				finish(&rc, out, "error", 1, 1);
			}
			break;
		}
		refuse_repeated_ids(a, &m);
		cJSON *assistant = cJSON_CreateObject();
		cJSON_AddStringToObject(assistant, "role", "assistant");
		cJSON_AddItemToObject(assistant, "content", fold_content_take(&m));
		cJSON *results = wrap ? refuse_tools(&rc, &m) : run_tools(&rc, &m, &no_consent);
		int stop_kept = 0;
		if (stopped(io) && results) {
			/* Stopped among the calls, after one was answered: the
			 * round is kept, with what ran and a "not run" result
			 * for the rest (run_tools), in the history and the
			 * session, as agent-run keeps the round nobody could
			 * approve the rest of.  Calls that ran are not
			 * forgotten by the model. */
			note(&rc, "the turn was stopped; the calls that ran are kept, the rest were not run");
			stop_kept = 1;
		} else if (stopped(io)) {
			/* Stopped before any call was answered: the round in
			 * progress is dropped whole (nothing of it ran). */
			cJSON_Delete(assistant);
			cJSON_Delete(results);
			fold_release(&m);
			note(&rc, "the turn was stopped; the round in progress was dropped");
			rc.round--;
			finish(&rc, out, "stopped", 2, 0);
			break;
		}
		cJSON *acontent = cJSON_GetObjectItem(assistant, "content");
		if (cJSON_GetArraySize(acontent) == 0) {
			/* The API refuses an empty assistant message in the history. */
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "text");
			cJSON_AddStringToObject(b, "text", "(no answer)");
			cJSON_AddItemToArray(acontent, b);
		}
		if (a->sess) {
			if (session_append_round(a->sess, prompt_stored ? NULL : prompt, assistant, results, &err) < 0) {
				sbx_err("session %s: %s", session_id(a->sess), err);
				free(err);
				err = NULL;
				store_failed = 1;
			} else {
				prompt_stored = 1;
			}
		}
		cJSON_AddItemToArray(a->history, assistant);
		if (results)
			cJSON_AddItemToArray(a->history, results);
		kept_rounds++;
		struct turn_event ev = { .kind = TEV_ROUND_END };
		emit(&rc, &ev);
		if (stop_kept) {
			fold_release(&m);
			finish(&rc, out, "stopped", 2, 0);
			break;
		}
		const char *sr = m.stop_reason ? m.stop_reason : "end_turn";
		int asked_tools = results != NULL;
		char reason[32];
		snprintf(reason, sizeof(reason), "%s", sr);
		fold_release(&m);
		if (no_consent) {
			finish(&rc, out, "no_consent", 3, 1);
			break;
		}
		if (wrap) {
			finish(&rc, out, "max_rounds", 2, 0);
			break;
		}
		/* The model stopped to use tools and none could run (each
		 * refused unrun, said above): there is no answer, and ending
		 * as end_turn would tell a script the task was done. */
		if (!asked_tools && strcmp(reason, "tool_use") == 0) {
			finish(&rc, out, "tool_use", 2, 0);
			break;
		}
		/* The API cut the answer where the conversation filled the
		 * model's context window: cut short as by max_tokens, not an
		 * answer the model finished. */
		if (!asked_tools && strcmp(reason, "model_context_window_exceeded") == 0) {
			finish(&rc, out, "model_context_window_exceeded", 2, 0);
			break;
		}
		if (!asked_tools) {
			int cut = strcmp(reason, "max_tokens") == 0;
			finish(&rc, out, cut ? "max_tokens" : strcmp(reason, "refusal") == 0 ? "refusal" : "end_turn",
			       cut ? 2 : 0, 0);
			break;
		}
	}
	if (a->sess) {
		struct session_turn_end end = {
			.stop_reason = out->stop_reason, .rounds = out->rounds,
			.input_tokens = out->usage.input_tokens, .output_tokens = out->usage.output_tokens,
			.stopped = strcmp(out->stop_reason, "stopped") == 0,
		};
		if (session_end_turn(a->sess, &end, &err) < 0) {
			sbx_err("cannot close the turn in session %s: %s", session_id(a->sess), err);
			free(err);
			err = NULL;
			store_failed = 1;
		}
		/* Answered but not all kept: a resume would miss it, so the
		 * turn does not end as a success. */
		if (store_failed && out->exit_code == 0) {
			sbx_err("session %s does not hold all of this turn: a resume will not see what could not be stored",
				session_id(a->sess));
			out->exit_code = 1;
			out->is_error = 1;
		}
	}
	if (!kept_rounds) {
		/* stopped or failed before the first round was kept: the
		 * prompt is not kept either, as the session, which stores a
		 * prompt with its first round, has it; the next prompt (a
		 * retry of this one too) then goes alone, not joined to it.
		 * A later stop or error keeps the rounds that finished,
		 * stored or not: their calls ran. */
		while ((size_t)cJSON_GetArraySize(a->history) > hist_len)
			cJSON_DeleteItemFromArray(a->history, cJSON_GetArraySize(a->history) - 1);
		while (last_content && cJSON_GetArraySize(last_content) > last_blocks)
			cJSON_DeleteItemFromArray(last_content, cJSON_GetArraySize(last_content) - 1);
	}
	free(err);
	free(rc.batch);
	prov_free(prov);
	return out->exit_code;
}
