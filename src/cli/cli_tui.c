/*
 * cli_tui.c — `sandbx tui`: build the policy and the agent from the
 * options, run the screen (src/tui), and give the normal screen back with
 * the session's transcript and the audit records held meanwhile.
 *
 * Exit: 0 when the user quits, 1 on an error (no key, no terminal), 3 when
 * the terminal went away (nobody is left to approve), 125 when the policy
 * is refused.  Given SIGTERM, SIGINT or a hang-up (SIGHUP or the
 * terminal's end, whichever comes first; but a hang-up while a question
 * waits is exit 3), it gives the terminal back, prints the
 * transcript and the held records, closes the session, then dies by that
 * signal (128+n to the shell), as CLI.md says sandbx does.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/gate.h"
#include "agent/turn.h"
#include "cli/cli.h"
#include "cli/cli_agent.h"
#include "cli/cli_ldpath.h"
#include "cli/cli_policy.h"
#include "store/credentials.h"
#include "store/session.h"
#include "store/xdg.h"
#include "tui/tui.h"
#include "util/log.h"

/* a resumed session larger than this is not replayed on the screen (the
 * agent still has all of it); the screen keeps a bounded window anyway */
#define TUI_MAX_REPLAY_FILE (64u << 20)

static int drv_turn(void *ud, const char *prompt, const struct turn_io *io, struct turn_outcome *out)
{
	return agent_turn(ud, prompt, io, out);
}

/* "rw /work/proj, ro /data" — the grants beyond the system floor. */
static char *describe_grants(const struct policy *p)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (cli_is_floor(g->path) || g->link)
			continue;
		const char *mode = policy_access_class(g->access);
		char *n = xasprintf("%s%s%s %s", s, *s ? ", " : "", mode, g->path);
		free(s);
		s = n;
	}
	if (!*s) {
		free(s);
		s = xstrdup("no paths");
	}
	return s;
}

static unsigned allowed_tools(const struct cli_opts *o)
{
	unsigned bits = GATE_READONLY_MASK;
	if (o->allow_tool_all)
		return GATE_ALL_MASK;
	for (size_t i = 0; i < o->allow_tools.n; i++) {
		int t = gate_tool_index(o->allow_tools.v[i]);
		if (t >= 0)
			bits |= 1u << t;
	}
	return bits;
}

static char *describe_tools(unsigned bits)
{
	char *s = xstrdup("");
	for (int i = 0; cli_tool_names[i]; i++) {
		int t = gate_tool_index(cli_tool_names[i]);
		if (t < 0 || !(bits & (1u << t)))
			continue;
		char *n = xasprintf("%s%s%s", s, *s ? " " : "", cli_tool_names[i]);
		free(s);
		s = n;
	}
	return s;
}

/* The stored messages of session id, read (not locked: the agent holds
 * it) for the screen to show; NULL when they cannot be read. */
static cJSON *load_history(const char *id, char **note)
{
	struct xdg_paths x;
	char *err = NULL, buf[65536];
	cJSON *msgs = NULL;
	ssize_t r;
	uint64_t total = 0;

	if (xdg_paths_get(&x, &err) < 0) {
		free(err);
		return NULL;
	}
	char *path = xasprintf("%s/%s.jsonl", x.sessions_dir, id);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct session_parser *p = session_parser_new(0);
	if (fd < 0)
		goto out;
	while ((r = read(fd, buf, sizeof(buf))) > 0 && total <= TUI_MAX_REPLAY_FILE) {
		total += (uint64_t)r;
		if (session_parser_feed(p, buf, (size_t)r) < 0)
			break;
	}
	if (total > TUI_MAX_REPLAY_FILE) {
		*note = xasprintf("session %s is too long to show here; its history is still sent to the model", id);
		goto out;
	}
	if (r == 0 && session_parser_finish(p) == 0)
		msgs = session_parser_take_messages(p);
out:
	if (fd >= 0)
		close(fd);
	session_parser_free(p);
	free(path);
	xdg_paths_release(&x);
	return msgs;
}

int cli_tui(struct cli_opts *o)
{
	struct policy p;
	struct agent *a = NULL;
	char *err = NULL, *key = NULL, *source = NULL, *transcript = NULL, *home_ti = NULL;
	int rc = EXIT_ERROR, r, last = 0, end_sig = 0;

	/* Before the policy, whose home lookup may open an NSS module. */
	if ((r = cli_ldpath_guard_early(o, LDPATH_LATE_AGENT)) != 0)
		return r;
	if (cli_build_policy(o, 1, &p, &err) < 0) {
		audit(LOG_INFO, "refused", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		return EXIT_REFUSED;
	}
	/* The grants known, before any late library, request or tool: run
	 * again without the search path entries a call could plant one in. */
	if ((r = cli_agent_start(o, &p)) != 0) {
		policy_release(&p);
		return r;
	}
	home_ti = ldpath_home_terminfo_note(&p);
	if (home_ti)
		sbx_err("%s", home_ti);
	r = cred_load_api_key(&key, &source, &err);
	if (r == -ENOENT) {
		sbx_err("no API key is configured — run 'sandbx auth login', or set ANTHROPIC_API_KEY");
		free(err);
		goto out;
	}
	if (r < 0) {
		sbx_err("%s", err ? err : "cannot load the API key");
		free(err);
		goto out;
	}
	cred_key_free(key);
	free(source);
	if (!isatty(0) || !isatty(1)) {
		sbx_err("tui needs a terminal on stdin and stdout — run it in a terminal, or use 'sandbx agent-run'");
		goto out;
	}

	struct agent_config cfg = {
		.policy = &p,
		.env_value = cli_ldpath_command_value,
		.filter_cache = cli_filter_cache_home(),
		.model = o->model,
		.base_url = o->base_url,
		.system = o->system,
		.max_tokens = o->max_tokens ? o->max_tokens : 4096,
		.max_rounds = o->max_rounds ? (int)o->max_rounds : 8,
		.wrap_up = 0,		/* the tui asks the user instead of wrapping up */
		.allowed_tools = allowed_tools(o),
		.approve_call = o->approve != APPROVE_RUN,
		.session_id = o->session_id,
		.new_session = o->session_set && !o->session_id,
		.resume_latest = o->cont,
		.max_scan_files = o->max_scan_files,
		.max_scan_bytes = o->max_scan_bytes,
		.max_results = o->max_results,
	};
	if (agent_new(&cfg, &a, &err) < 0) {
		sbx_err("%s", err ? err : "cannot start the agent");
		free(err);
		goto out;
	}

	char *grants = describe_grants(&p), *net = policy_describe_net(&p);
	char *tools = describe_tools(cfg.allowed_tools);
	const char *sid = agent_session_id(a);
	char *banner = xasprintf("sandbx %s%s%s — tools run confined to: %s; ctrl-d on an empty prompt quits", SBX_VERSION,
				 sid ? " · session " : "", sid ? sid : "", grants);
	cJSON *history = NULL;
	char *resumed = NULL;
	if (sid && (o->session_id || o->cont)) {
		history = load_history(sid, &resumed);
		if (history && !resumed)
			resumed = xasprintf("resumed session %s: the history above; type to continue", sid);
	}
	struct tui_config tc = {
		.drv = { drv_turn, a },
		.model = agent_model(a),
		.grants = grants,
		.net = net,
		.tools = tools,
		.banner = banner,
		.history = history,
		.resumed = resumed,
		.skip_home_terminfo = home_ti != NULL,
	};

	/* audit records and stray stderr wait until the screen is given back,
	 * unless stderr is not a terminal (then they cannot tear it) */
	int held = isatty(2);
	if (held)
		log_hold(1);
	r = tui_run(&tc, &transcript, &last, &err);
	if (transcript) {
		fputs(transcript, stdout);
		fflush(stdout);
		free(transcript);
	}
	if (held)
		log_hold(0);
	if (r < 0) {
		sbx_err("%s", err ? err : "the screen could not start");
		free(err);
		rc = EXIT_ERROR;
	} else {
		/* Quit: the status of the last turn, so a turn stopped by a
		 * key or cut by a cap leaves 2 (CLI.md) */
		rc = r == TUI_END_HANGUP ? EXIT_NO_CONSENT : last;
		if (r == TUI_END_SIGNAL)
			end_sig = tui_end_signal();
	}
	free(grants);
	free(net);
	free(tools);
	free(banner);
	free(resumed);
	cJSON_Delete(history);
	agent_free(a);
out:
	free(home_ti);
	policy_release(&p);
	if (end_sig) {
		/* everything stored and given back: end by the signal, with
		 * its default action, as it would have at once */
		sigset_t one;
		fflush(NULL);
		signal(end_sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, end_sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(end_sig);
	}
	return rc;
}
