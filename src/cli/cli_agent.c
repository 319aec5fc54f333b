/*
 * cli_agent.c — `sandbx agent-run`: one prompt, headless.  The answer
 * streams to stdout (text, or one JSON object per line with --output
 * jsonl); notes, retries, tool summaries and audit records go to stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cjson.h"

#include "agent/curl.h"
#include "agent/gate.h"
#include "agent/provider.h"
#include "agent/turn.h"
#include "cli/cli.h"
#include "cli/cli_agent.h"
#include "cli/cli_ldpath.h"
#include "sandbox/seccomp.h"
#include "tools/tools.h"
#include "util/log.h"
#include "util/utf8.h"

#define PROMPT_MAX (1u << 20)	/* bytes of a prompt read from stdin */

unsigned cli_allowed_tools(const struct cli_opts *o)
{
	if (o->allow_tool_all)
		return TOOLS_MASK_ALL;
	unsigned m = TOOLS_MASK_READONLY;
	for (size_t i = 0; i < o->allow_tools.n; i++)
		m |= tools_bit(o->allow_tools.v[i]);
	return m;
}

static void agent_prepare(void)
{
	unsetenv("SSLKEYLOGFILE");
	/* The libraries opened after a tool call may have run (libseccomp at
	 * the first bash call, PCRE2 at the first grep) are looked up through
	 * LD_LIBRARY_PATH as it was at start.  cli_ldpath_guard, called before
	 * this, already dropped every entry a call could write to; opening
	 * ours now as well costs nothing and keeps them out of reach of
	 * whatever it cannot judge (a directory this process may not look
	 * into).  One that cannot be opened says so when it is needed.
	 * (libcurl is opened by the first request, before any call; ncurses
	 * with the screen.) */
	char *err = NULL;
	if (seccomp_preload(&err) < 0)
		free(err);
	err = NULL;
	if (tools_preload(&err) < 0)
		free(err);
}

/* Text the API is sent must be UTF-8: a byte that is not is refused here,
 * before a request, rather than by the API (a 400) or, stored in the
 * session, in every later request.  0, or -1 with *err. */
static int text_is_utf8(const char *what, const char *s, char **err)
{
	size_t n = strlen(s), ok = utf8_valid_len(s, n);
	if (ok == n)
		return 0;
	*err = xasprintf("%s is not UTF-8 text (byte 0x%02x at byte %zu) — the API takes UTF-8 only: convert it "
			 "(iconv -t UTF-8) and try again", what, (unsigned char)s[ok], ok);
	return -1;
}

/* The texts of the command line and the environment that go into every
 * request (the model's name, --system): judged before anything starts,
 * as the prompt is, for tui too.  0, or EXIT_USAGE with the reason said. */
static int texts_check(const struct cli_opts *o)
{
	const char *env_model = getenv("SANDBX_MODEL");
	char *err = NULL;
	if ((o->model && text_is_utf8("the --model name", o->model, &err) < 0) ||
	    (!o->model && env_model && text_is_utf8("the SANDBX_MODEL name", env_model, &err) < 0) ||
	    (o->system && text_is_utf8("the --system text", o->system, &err) < 0)) {
		sbx_err("%s", err);
		free(err);
		return EXIT_USAGE;
	}
	return 0;
}

static int base_url_check(const struct cli_opts *o)
{
	char *url = NULL, *err = NULL;
	if (!o->base_url)
		return 0;
	/* Without libcurl nothing can be judged: agent_new says what to install. */
	if (!dlcurl_load(&err)) {
		free(err);
		return 0;
	}
	if (prov_messages_url(o->base_url, &url, &err) < 0) {
		sbx_err("--base-url: %s", err);
		free(err);
		return EXIT_USAGE;
	}
	free(url);
	return 0;
}

/* A terminal this process could write to: 0-2, or the controlling one (an
 * approval question goes to /dev/tty).  None now is none later: the
 * descriptors stay, and a process gets no controlling terminal by itself. */
static int any_terminal(void)
{
	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) || isatty(STDERR_FILENO))
		return 1;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int cli_agent_start(const struct cli_opts *o, const struct policy *p)
{
	int rc = texts_check(o);
	if (!rc)
		rc = cli_ldpath_env_guard(p);
	if (!rc)
		rc = cli_ldpath_guard(p);
	if (rc)
		return rc;
	/* Decided now, before libcurl's threads, when there is a terminal to
	 * write to; with none it is never needed, and no locale is loaded. */
	if (any_terminal())
		utf8_term_charset_init(0);
	agent_prepare();	/* then: libcurl must not see SSLKEYLOGFILE */
	/* cJSON too, after the guard and before anything parses JSON (a
	 * session to resume, the first request): a libcjson.so.1 an earlier
	 * run's call planted where LD_LIBRARY_PATH looks is never the one
	 * opened, as it was when the library was linked (loaded at exec). */
	char *err = NULL;
	if (cjson_load(&err) < 0) {
		sbx_err("%s", err);
		free(err);
		return EXIT_ERROR;
	}
	return base_url_check(o);
}

void cli_agent_config(const struct cli_opts *o, const struct policy *p, struct agent_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->policy = p;
	cfg->env_value = cli_ldpath_command_value;	/* the caller's, where a guard ran again */
	cfg->filter_cache = cli_filter_cache_home();
	cfg->model = o->model;
	cfg->base_url = o->base_url;
	cfg->system = o->system;
	cfg->max_tokens = o->max_tokens;
	cfg->max_rounds = (int)o->max_rounds;
	cfg->wrap_up = !o->no_wrap_up;
	cfg->allowed_tools = cli_allowed_tools(o);
	cfg->approve_call = o->approve == APPROVE_CALL;
	cfg->session_id = o->session_id;
	cfg->new_session = o->session_set && !o->session_id;
	cfg->resume_latest = o->cont;
	cfg->max_scan_files = o->max_scan_files;
	cfg->max_scan_bytes = o->max_scan_bytes;
	cfg->max_results = o->max_results;
}

static char *read_prompt(const struct cli_opts *o, char **err)
{
	if (!o->prompt_stdin)
		return o->nrest ? xjoin(o->rest, (size_t)o->nrest, ' ') : NULL;
	size_t cap = 4096, len = 0;
	char *s = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= PROMPT_MAX) {
				free(s);
				*err = xasprintf("the prompt on stdin is longer than %u bytes", PROMPT_MAX);
				return NULL;
			}
			cap *= 2;
			s = xrealloc(s, cap);
		}
		ssize_t n = read(0, s + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("cannot read the prompt from stdin: %s", strerror(errno));
			free(s);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	s[len] = '\0';
	const char *nul = memchr(s, '\0', len);
	if (nul) {
		*err = xasprintf("the prompt on stdin holds a NUL byte (at byte %zu), which no text has, and the rest "
				 "would be dropped — remove it and try again", (size_t)(nul - s));
		free(s);
		return NULL;
	}
	return s;
}

struct run_state {
	int jsonl;
	int text_open;		/* text printed without a final newline */
	int tty;		/* stdout is a terminal: the answer's controls made visible */
	char carry[4];		/* the start of a UTF-8 sequence the next text completes */
	size_t ncarry;
	uint32_t prev;		/* the answer's last character (gate_show_hidden) */
};

/* --output jsonl to a terminal: its controls are escaped (utf8.h). */
static int jsonl_tty;

/*
 * Standard output failed (its reader went away: EPIPE, SIGPIPE being
 * ignored; or a full disk): the turn's stop flag.  Nobody reads the answer
 * any more, so no later call runs and no later request goes out.
 */
static volatile sig_atomic_t out_lost;
static int out_errno;

static void out_failed(int e)
{
	if (!out_lost) {
		out_errno = e ? e : EIO;
		out_lost = 1;
	}
}

/* After stdio writes: flushed, and a failure noted. */
static void out_flush(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		out_failed(errno);
}

static void jprint(cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	if (!out_lost) {
		if (jsonl_tty)
			gate_term_write_json(stdout, s);
		else
			fputs(s, stdout);
		fputc('\n', stdout);
		out_flush();
	}
	free(s);
	cJSON_Delete(o);
}

/* The answer to a terminal: the characters that draw nothing shown as
 * the screen and the question show them (gate_show_hidden), controls made
 * visible (util/utf8.h), a UTF-8 sequence split between two reads kept
 * until it is whole. */
static void print_for_tty(struct run_state *st, const char *s, size_t n)
{
	size_t k = st->ncarry, vl;
	char *joined = xmalloc(k + n + 1);
	memcpy(joined, st->carry, k);
	memcpy(joined + k, s, n);
	/* a cut-short sequence at the end is left as it came: what
	 * utf8_term_write does not take is those bytes, kept for the next */
	char *vis = gate_show_hidden(joined, k + n, &st->prev, &vl);
	size_t used = utf8_term_write(stdout, vis, vl, 0);
	st->ncarry = vl - used;
	memcpy(st->carry, vis + used, st->ncarry);
	free(vis);
	free(joined);
}

/* A note, retry or error line: its text may quote the server, a command
 * or the model's tool name and id, so its controls are made visible and
 * it stays one line. */
static void print_note(const char *text)
{
	char *vis = gate_visible_line(text, 4000);
	utf8_term_printf(stderr, "sandbx: %s\n", vis);
	free(vis);
}

static void on_event(void *ud, const struct turn_event *ev)
{
	struct run_state *st = ud;
	if (st->jsonl) {
		cJSON *o = cJSON_CreateObject();
		switch (ev->kind) {
		case TEV_TEXT: {
			char *t = xstrndup(ev->text, ev->len);
			cJSON_AddStringToObject(o, "type", "text");
			cJSON_AddStringToObject(o, "text", t);
			free(t);
			break;
		}
		case TEV_THINKING:
			cJSON_Delete(o);
			return;
		case TEV_TOOL_CALL: {
			cJSON_AddStringToObject(o, "type", "tool_call");
			cJSON_AddStringToObject(o, "tool", ev->tool);
			cJSON_AddStringToObject(o, "id", ev->id);
			cJSON *in = cJSON_Parse(ev->input);
			cJSON_AddItemToObject(o, "input", in ? in : cJSON_CreateObject());
			break;
		}
		case TEV_TOOL_RESULT:
			cJSON_AddStringToObject(o, "type", "tool_result");
			cJSON_AddStringToObject(o, "tool", ev->tool);
			cJSON_AddStringToObject(o, "id", ev->id);
			cJSON_AddStringToObject(o, "content", ev->text);
			cJSON_AddBoolToObject(o, "is_error", ev->is_error);
			cJSON_AddNumberToObject(o, "elapsed_ms", (double)ev->elapsed_ms);
			break;
		case TEV_RETRY:
			cJSON_AddStringToObject(o, "type", "retry");
			cJSON_AddStringToObject(o, "message", ev->text);
			break;
		case TEV_NOTE:
			cJSON_AddStringToObject(o, "type", "note");
			cJSON_AddStringToObject(o, "message", ev->text);
			break;
		case TEV_ERROR:
			cJSON_AddStringToObject(o, "type", "error");
			cJSON_AddStringToObject(o, "message", ev->text);
			break;
		case TEV_ROUND_END: {
			cJSON_AddStringToObject(o, "type", "usage");
			cJSON_AddNumberToObject(o, "round", ev->round);
			cJSON *u = cJSON_AddObjectToObject(o, "usage");
			cJSON_AddNumberToObject(u, "input_tokens", (double)ev->usage.input_tokens);
			cJSON_AddNumberToObject(u, "output_tokens", (double)ev->usage.output_tokens);
			break;
		}
		case TEV_TURN_END:
			cJSON_Delete(o);
			return;
		}
		jprint(o);
		return;
	}
	if (ev->kind != TEV_TEXT && st->ncarry) {
		utf8_term_write(stdout, st->carry, st->ncarry, 1);	/* cut short: shown as bytes */
		st->ncarry = 0;
	}
	char *tool, *subject;
	switch (ev->kind) {
	case TEV_TEXT:
		/* flushed once per network read (on_flush), not per delta */
		if (st->tty) {
			print_for_tty(st, ev->text, ev->len);
		} else {
			/* Into a pipe or a file the text leaves as it is, in one
			 * write from the joined text, not copied through stdio's
			 * buffer first; whatever stdio holds goes before it.  A
			 * reader that is gone makes it fail (EPIPE), as stdio's
			 * would. */
			out_flush();
			if (!out_lost && write_all(STDOUT_FILENO, ev->text, ev->len) < 0)
				out_failed(errno);
		}
		st->text_open = ev->len > 0 && ev->text[ev->len - 1] != '\n';
		break;
	case TEV_TOOL_CALL:
		if (st->text_open) {
			fputc('\n', stdout);
			out_flush();
			st->text_open = 0;
		}
		/* The name is the model's: an unknown one reaches here too.
		 * Name and subject are the model's: one line each, held to
		 * the rules of a name (a Cyrillic letter in 'r\u0435ad'). */
		tool = gate_visible_path(ev->tool, 64);
		subject = gate_visible_line(ev->subject ? ev->subject : "", SIZE_MAX);
		utf8_term_printf(stderr, "sandbx: %s %s\n", tool, subject);
		free(tool);
		free(subject);
		break;
	case TEV_TOOL_RESULT: {
		const char *nl = strchr(ev->text, '\n');
		int first = nl ? (int)(nl - ev->text) : (int)strlen(ev->text);
		/* The first line of what a command printed or a file held:
		 * its controls must not reach the terminal.  It is read as
		 * names (ls, find, grep print them): a name's rules hold,
		 * so 'p\u0430sswd' is not shown as passwd. */
		char *line = xstrndup(ev->text, (size_t)first);
		char *vis = gate_visible_command(line, 120);
		tool = gate_visible_path(ev->tool, 64);
		subject = gate_visible_line(ev->subject ? ev->subject : "", SIZE_MAX);
		utf8_term_printf(stderr, "sandbx: %s %s — %s (%llu ms): %s%s\n", tool, subject,
			ev->is_error ? "error" : "ok", (unsigned long long)ev->elapsed_ms, vis,
			nl ? " …" : "");
		free(tool);
		free(subject);
		free(vis);
		free(line);
		break;
	}
	case TEV_RETRY:
	case TEV_NOTE:
		print_note(ev->text);
		break;
	case TEV_ERROR:
		if (st->text_open) {
			fputc('\n', stdout);
			out_flush();
			st->text_open = 0;
		}
		print_note(ev->text);
		break;
	case TEV_TURN_END:
		if (st->text_open) {
			fputc('\n', stdout);
			out_flush();
			st->text_open = 0;
		}
		break;
	default:
		break;
	}
}

static void flush_out(void *ud)
{
	out_flush();
}

static enum approval_answer ask_tty(void *ud, const struct approval_question *q, char **reason)
{
	return gate_tty_ask(q, reason);
}

int cli_agent_run(struct cli_opts *o)
{
	struct policy p;
	struct agent_config cfg;
	struct agent *a = NULL;
	struct turn_outcome out;
	struct run_state st = { .jsonl = o->output_jsonl, .tty = !o->output_jsonl && isatty(STDOUT_FILENO) };
	char *err = NULL, *prompt;

	jsonl_tty = o->output_jsonl && isatty(STDOUT_FILENO);

	/* A reader that goes away (agent-run | head) stops the turn at the
	 * next write (EPIPE, out_lost), not by a signal in the middle of a
	 * round or a call. */
	signal(SIGPIPE, SIG_IGN);
	/* Into a pipe or a file, each network read's JSON line (--output
	 * jsonl) leaves in one write: stdio's block-sized buffer would cut it
	 * into two or three (output is flushed after every read either way).
	 * The plain answer's text does not pass through it (on_event). */
	static char outbuf[64u << 10];	/* glibc ignores the size without a buffer */
	if (!st.tty)
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* Before the policy, whose home lookup may open an NSS module: run
	 * again without the entries the command line's grants reach. */
	int rc = cli_ldpath_guard_early(o, LDPATH_LATE_AGENT);
	if (rc)
		return rc;
	if (cli_build_policy(o, 1, &p, &err) < 0) {
		audit(LOG_INFO, "refused", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		return EXIT_REFUSED;
	}
	/* The grants known, before any library is opened late (libcurl
	 * included), any request or any tool: run again without the search
	 * path entries a call could plant a library in. */
	rc = cli_agent_start(o, &p);
	if (rc) {
		policy_release(&p);
		return rc;
	}
	prompt = read_prompt(o, &err);
	if (!prompt || text_is_utf8("the prompt", prompt, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		free(prompt);
		policy_release(&p);
		return prompt || o->prompt_stdin ? EXIT_USAGE : EXIT_ERROR;
	}
	if (strspn(prompt, " \t\r\n") == strlen(prompt)) {
		sbx_err("the prompt is empty — write something after '--' or on stdin");
		free(prompt);
		policy_release(&p);
		return EXIT_USAGE;
	}
	if (o->approve == APPROVE_CALL && !gate_tty_available()) {
		sbx_err("--approve call needs a terminal to ask on, and there is none — use --approve run, "
			"or run from a terminal");
		free(prompt);
		policy_release(&p);
		return EXIT_NO_CONSENT;
	}
	cli_agent_config(o, &p, &cfg);
	if (agent_new(&cfg, &a, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		free(prompt);
		policy_release(&p);
		return EXIT_ERROR;
	}
	if (o->session_set && !o->session_id && agent_session_id(a))
		fprintf(stderr, "sandbx: session %s\n", agent_session_id(a));
	struct turn_io io = { .on_event = on_event, .ask = ask_tty, .ud = &st, .stop = &out_lost, .on_flush = flush_out };
	agent_turn(a, prompt, &io, &out);
	if (out_lost) {
		/* Not "stopped" by the user: the answer could not be delivered. */
		sbx_err("cannot write the answer to standard output: %s — the turn was stopped there (no later call "
			"ran, no later request was sent)%s", strerror(out_errno),
			agent_session_id(a) ? "; the session keeps the rounds that finished" : "");
		agent_free(a);
		free(prompt);
		policy_release(&p);
		return EXIT_ERROR;
	}
	if (st.jsonl) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "type", "result");
		cJSON_AddStringToObject(r, "stop_reason", out.stop_reason);
		cJSON_AddNumberToObject(r, "rounds", out.rounds);
		cJSON *u = cJSON_AddObjectToObject(r, "usage");
		cJSON_AddNumberToObject(u, "input_tokens", (double)out.usage.input_tokens);
		cJSON_AddNumberToObject(u, "output_tokens", (double)out.usage.output_tokens);
		cJSON_AddBoolToObject(r, "is_error", out.is_error);
		if (agent_session_id(a))
			cJSON_AddStringToObject(r, "session", agent_session_id(a));
		else
			cJSON_AddNullToObject(r, "session");
		jprint(r);
	}
	if (out.exit_code == 2 && strcmp(out.stop_reason, "tool_use") == 0)
		sbx_err("the model stopped for tool calls and none of them could run (a note said why for "
			"each) — the turn has no answer: ask again");
	else if (out.exit_code == 2 && strcmp(out.stop_reason, "model_context_window_exceeded") == 0)
		sbx_err("the answer was cut short: the conversation fills the model's context window — "
			"start a new conversation (a new --session, or none; not --continue)");
	else if (out.exit_code == 2)
		sbx_err("the turn ended early (%s) — raise --max-rounds or --max-tokens to let it finish", out.stop_reason);
	else if (out.exit_code == 3)
		sbx_err("a call needed approval and nobody could answer — the remaining calls were refused");
	agent_free(a);
	free(prompt);
	policy_release(&p);
	return out.exit_code;
}
