/*
 * cli_tool.c — `sandbx tool NAME JSON [POLICY]`: run one agent tool under
 * the policy the flags describe (the same derivation as agent-run) and
 * print {"is_error":bool,"content":"..."} on stdout.  Exit 0 when the tool
 * succeeded, 1 when it returned a tool error, 64 for a bad command line
 * (JSON that does not parse included), 125 when the policy is refused.
 * Audit records go to stderr; SIGINT/SIGTERM set the tools' stop flag, so
 * a running call ends as an error: what it had printed or found so far
 * and a note that it was stopped (bash, grep, find, ls), or "cancelled".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/gate.h"
#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "tools/tools.h"
#include "tools/tools_limits.h"
#include "util/cjson.h"
#include "util/json.h"
#include "util/log.h"

/* How much of input that does not parse an error quotes. */
#define TOOL_INPUT_QUOTED 200

static volatile sig_atomic_t stop_flag;

/* ^C is the user's stop; SIGTERM is not the user at the keyboard (a
 * timeout(1), a service manager), and the result and the bash record say
 * so (TOOL_STOP_SIGNAL). */
static void on_stop(int sig)
{
	stop_flag = sig == SIGINT ? 1 : TOOL_STOP_SIGNAL(sig);
}

int cli_tool(struct cli_opts *o)
{
	struct policy p;
	struct fsguard *g = NULL;
	struct tool_result res;
	char *err = NULL;

	if (strlen(o->tool_json) > TOOLS_MAX_INPUT) {
		sbx_err("tool input is larger than %u MiB — pass less", TOOLS_MAX_INPUT >> 20);
		return EXIT_USAGE;
	}
	/* Before the policy, whose home lookup may open an NSS module. */
	int rc = cli_ldpath_guard_early(o, LDPATH_LATE_CHARSET);
	if (rc)
		return rc;
	if (cli_build_policy(o, 1, &p, &err) < 0) {
		audit(LOG_INFO, "refused", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		return EXIT_REFUSED;
	}
	/* Before cJSON and the tool: grep opens PCRE2, bash libseccomp, the
	 * parse of the input cJSON, and a library an earlier call planted
	 * where LD_LIBRARY_PATH looks would be it.  The input is an argument,
	 * so the process run again gets it whole. */
	rc = cli_ldpath_guard(&p);
	if (rc) {
		policy_release(&p);
		return rc;
	}
	if (cjson_load(&err) < 0) {
		sbx_err("%s", err);
		free(err);
		policy_release(&p);
		return EXIT_ERROR;
	}
	/* The whole text must be the object: nothing may follow it. */
	const char *end = NULL;
	cJSON *in = cJSON_ParseWithOpts(o->tool_json, &end, 1);
	if (!in) {
		/* a line, not the whole argument back */
		size_t n = strlen(o->tool_json);
		char size[64] = "", what[96] = "is not valid JSON";
		if (n > TOOL_INPUT_QUOTED)
			snprintf(size, sizeof(size), " (%zu bytes; its start shown)", n);
		if (json_too_deep(o->tool_json, n, end))	/* JSON, maybe, but not read */
			snprintf(what, sizeof(what), "is nested more than %d levels deep, deeper than sandbx reads",
				 JSON_NESTING_LIMIT);
		sbx_err("tool input '%.*s%s' %s%s — give an object such as '{\"path\":\"README.md\"}'",
			TOOL_INPUT_QUOTED, o->tool_json, *size ? "..." : "", what, size);
		policy_release(&p);
		return EXIT_USAGE;
	}
	if (tools_json_has_nul(o->tool_json, strlen(o->tool_json))) {
		sbx_err("tool input holds a NUL character (\\u0000), which no tool argument may contain — remove it");
		cJSON_Delete(in);
		policy_release(&p);
		return EXIT_USAGE;
	}
	if (fsguard_new(&p, NULL, 0, &g, &err) < 0) {
		audit(LOG_INFO, "refused", "mechanism", "fsguard", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		policy_release(&p);
		cJSON_Delete(in);
		return EXIT_REFUSED;
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct tool_ctx ctx = {
		.guard = g,
		.policy = &p,
		.env_value = cli_ldpath_command_value,
		.filter_cache = cli_filter_cache_home(),
		.limits = { o->max_scan_files, o->max_scan_bytes, o->max_results },
		.stop = &stop_flag,
	};
	int r = tools_run(&ctx, o->tool_name, in, &res);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "is_error", res.is_error);
	cJSON_AddStringToObject(j, "content", res.content);
	char *s = cJSON_PrintUnformatted(j);
	/* cJSON escapes the C0 controls only: on a terminal the C1 and bidi
	 * controls and DEL of a file's or a command's bytes are escaped too,
	 * and the characters that draw nothing (a zero-width space in a file
	 * name, tag characters in its text), as agent-run's jsonl is
	 * (gate.h); into a pipe it leaves as is. */
	if (isatty(STDOUT_FILENO))
		gate_term_write_json(stdout, s);
	else
		fputs(s, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	free(s);
	cJSON_Delete(j);
	tool_result_release(&res);
	fsguard_free(g);
	policy_release(&p);
	cJSON_Delete(in);
	return r == 0 ? EXIT_OK : EXIT_ERROR;
}
