/* test_cli.c — the pure command-line parser (CLI.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "util/util.h"

static int parse(struct cli_opts *o, char **err, ...)
{
	static char *argv[64];	/* o->rest points into it after return */
	int argc = 0;
	va_list ap;
	va_start(ap, err);
	argv[argc++] = (char *)"sandbx";
	for (char *a; (a = va_arg(ap, char *)) && argc < 63;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	*err = NULL;
	return cli_parse(o, argc, argv, err);
}

static void expect_usage(const char *needle, ...)
{
	/* helper kept simple: each caller checks directly */
	(void)needle;
}

static void cli_sandbox_run_basic(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-read", "/usr/share", "--allow-write", "/tmp",
			       "--allow-exec", "/opt", "--allow-env", "FOO", "--timeout", "5", "--", "/bin/echo",
			       "hi", NULL), 0);
	assert_int_equal(o.cmd, CMD_SANDBOX_RUN);
	assert_int_equal(o.npaths, 3);
	assert_string_equal(o.paths[0].path, "/usr/share");
	assert_int_equal(o.paths[0].access, POL_READ);
	assert_int_equal(o.paths[1].access, POL_WRITE);
	assert_int_equal(o.paths[2].access, POL_READ | POL_EXEC);
	assert_int_equal(o.env.n, 1);
	assert_int_equal(o.timeout, 5);
	assert_int_equal(o.nrest, 2);
	assert_string_equal(o.rest[0], "/bin/echo");
	cli_opts_release(&o);
}

static void cli_refuses_missing_dashdash(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "sandbox-run", "/bin/true", NULL), -1);
	assert_non_null(strstr(err, "'--'"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-read", "/x", NULL), -1);
	assert_non_null(strstr(err, "missing '--'"));
	free(err);
	cli_opts_release(&o);
}

static void cli_refuses_env_value(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-env", "A=B", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "A=B"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-env", "", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-env=1X", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
}

static void cli_refuses_unknown(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "frob", NULL), -1);
	assert_non_null(strstr(err, "'frob'"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--frob", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "'--frob'"));
	free(err);
	cli_opts_release(&o);
	/* a flag of another subcommand */
	assert_int_equal(parse(&o, &err, "sandbox-run", "--model", "m", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tui", "--timeout", "3", NULL), -1);
	assert_non_null(strstr(err, "'--timeout' does not apply to tui — see 'sandbx tui --help'"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "read", "{}", "extra", NULL), -1);
	assert_non_null(strstr(err, "'extra'"));
	assert_non_null(strstr(err, " — "));	/* says what to do */
	free(err);
	cli_opts_release(&o);
}

/* A word that is one of the options is not taken as the value of the
 * option before it: "--model --approve=call" would otherwise name a model
 * "--approve=call" and leave every call to run unasked.  The '=' form
 * still gives such a value on purpose. */
static void cli_value_not_an_option(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const cases[][3] = {
		{ "agent-run", "--model", "--approve=call" },
		{ "agent-run", "--system", "--approve" },
		{ "tui", "--base-url", "--allow-tool" },
		{ "agent-run", "--allow-read", "--allow-write" },
		{ "sandbox-run", "--allow-env", "--help" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(cases[i][0], "sandbox-run") == 0)
			assert_int_equal(parse(&o, &err, cases[i][0], cases[i][1], cases[i][2], "--", "x", NULL), -1);
		else if (strcmp(cases[i][0], "tui") == 0)
			assert_int_equal(parse(&o, &err, cases[i][0], cases[i][1], cases[i][2], NULL), -1);
		else
			assert_int_equal(parse(&o, &err, cases[i][0], cases[i][1], cases[i][2], "call", "--", "x", NULL), -1);
		assert_non_null(strstr(err, "needs a value"));
		assert_non_null(strstr(err, cases[i][2]));
		free(err);
		cli_opts_release(&o);
	}
	assert_int_equal(parse(&o, &err, "agent-run", "--model", "--approve=call", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "--model=--approve=call"));	/* how to mean it */
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--model=--approve=call", "--", "x", NULL), 0);
	assert_string_equal(o.model, "--approve=call");
	assert_int_equal(o.approve, APPROVE_UNSET);	/* agent-run's default: run */
	cli_opts_release(&o);
	/* a value that only starts with dashes is still a value */
	assert_int_equal(parse(&o, &err, "agent-run", "--system", "--be terse", "--", "x", NULL), 0);
	assert_string_equal(o.system, "--be terse");
	cli_opts_release(&o);
}

/* A session id the store would refuse is a usage error (64) here, not a
 * failure after the key is read (1): the store's own rule, no leading '-'. */
static void cli_session_id_forms(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const bad[] = { "--session=-x", "--session=--", "--session=A1", "--session=a_b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, &err, "agent-run", bad[i], "--", "hi", NULL), -1);
		assert_non_null(strstr(err, "is not a session id"));
		free(err);
		cli_opts_release(&o);
	}
	assert_int_equal(parse(&o, &err, "tui", "--session=abc-123", NULL), 0);
	assert_string_equal(o.session_id, "abc-123");
	cli_opts_release(&o);
	/* too long: the message gives the length and the limit */
	char id[82];
	memset(id, 'a', 80);
	id[80] = '\0';
	assert_int_equal(parse(&o, &err, "agent-run", "--session", id, "--", "hi", NULL), -1);
	char *want = xasprintf("--session: '%s' is 80 characters long; a session id is at most 64 — 'sandbx sessions' "
			       "lists them", id);
	assert_string_equal(err, want);
	free(want);
	free(err);
	cli_opts_release(&o);
	id[65] = '\0';
	assert_int_equal(parse(&o, &err, "tui", "--session", id, NULL), -1);
	assert_non_null(strstr(err, "is 65 characters long; a session id is at most 64"));
	free(err);
	cli_opts_release(&o);
	id[64] = '\0';
	assert_int_equal(parse(&o, &err, "tui", "--session", id, NULL), 0);
	assert_string_equal(o.session_id, id);
	cli_opts_release(&o);
	/* long and of a letter no id has: what is wrong is the letter */
	memset(id, 'A', 80);
	id[80] = '\0';
	assert_int_equal(parse(&o, &err, "tui", "--session", id, NULL), -1);
	assert_non_null(strstr(err, "is not a session id — "));
	free(err);
	cli_opts_release(&o);
}

/* --session twice is refused, not merged: 'bare' (a new session) after an
 * ID resumed that ID, and two IDs sent the last one's history; which
 * conversation the model is shown is not left to the order of words. */
static void cli_session_twice(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const twice[][3] = { { "--session", "abc", "--session" }, { "--session", "--session", "abc" },
						{ "--session=abc", "--session=def", NULL }, { "--session", "--session", NULL } };
	for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
		assert_int_equal(parse(&o, &err, "agent-run", twice[i][0], twice[i][1], twice[i][2] ? twice[i][2] : "--",
				       twice[i][2] ? "--" : "hi", twice[i][2] ? "hi" : NULL, NULL), -1);
		assert_non_null(strstr(err, "--session is given twice — "));
		free(err);
		cli_opts_release(&o);
	}
}

/* A stray word names the subcommand it was given to. */
static void cli_stray_word_named(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "tui", "hello", NULL), -1);
	assert_null(strstr(err, "JSON"));
	assert_non_null(strstr(err, "'hello'"));
	assert_non_null(strstr(err, "tui"));
	free(err);
	cli_opts_release(&o);
}

static void cli_network_forms(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "--", "x", NULL), 0);
	assert_true(o.net_any);
	assert_int_equal(o.nports, 0);
	cli_opts_release(&o);
	/* port lists add up across flags; bare with ports is refused */
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "80,443", "--allow-network=8080", "--", "x", NULL), 0);
	assert_false(o.net_any);
	assert_int_equal(o.nports, 3);
	assert_int_equal(o.ports[2], 8080);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "80", "--allow-network", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "both bare and with ports"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "0", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "65536", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "--allow-network", "80", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--dns-over-tcp", "--allow-network", "443", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--dns-over-tcp", "--allow-network", "53", "--", "x", NULL), 0);
	cli_opts_release(&o);
	/* Bare --allow-network lets port 53 through but lists no port: the
	 * message must not send the user to add '--allow-network 53' beside
	 * it, which is refused as bare and with ports. */
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "--dns-over-tcp", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "bare --allow-network"));
	assert_non_null(strstr(err, "instead of"));
	free(err);
	cli_opts_release(&o);
}

/* A name the policy would refuse is refused by the parser: exit 64, like
 * every other bad value, not 125 after the policy is built. */
static void cli_dns_names(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const bad[] = { "-foo", ".foo", "a b", "", "a_b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "443", "--allow-dns", bad[i], "--",
				       "x", NULL), -1);
		assert_non_null(strstr(err, "--allow-dns"));
		assert_non_null(strstr(err, "letter or digit"));
		free(err);
		cli_opts_release(&o);
	}
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "443", "--allow-dns", "registry.npmjs.org",
			       "--allow-dns=a-b.example", "--", "x", NULL), 0);
	assert_int_equal(o.dns.n, 2);
	cli_opts_release(&o);
}

/* A word after a flag whose value is optional is taken as its value
 * (no subcommand has a bare word there), so a wrong one is reported by
 * the flag, not as a word out of place. */
static void cli_optional_value_named(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "agent-run", "--allow-tool", "nope", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "--allow-tool: unknown tool 'nope'"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tui", "--allow-tool", "Bash", NULL), -1);
	assert_non_null(strstr(err, "--allow-tool: unknown tool 'Bash'"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "https", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "--allow-network: 'https' is not a port"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "80 443", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "--allow-network"));
	free(err);
	cli_opts_release(&o);
	/* an empty item is a typo, pointed at, not passed over */
	static const char *const empties[] = { "80,,443", "443,", ",443", ",", "=" };
	for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
		const char *v = strcmp(empties[i], "=") == 0 ? "" : empties[i];
		assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", v, "--", "x", NULL), -1);
		assert_non_null(strstr(err, *v ? "has an empty item" : "names no port"));
		assert_non_null(strstr(err, " — "));
		free(err);
		cli_opts_release(&o);
	}
	/* bare forms still end at the next flag, '-' or '--' */
	assert_int_equal(parse(&o, &err, "agent-run", "--allow-tool", "-", NULL), 0);
	assert_true(o.allow_tool_all);
	assert_true(o.prompt_stdin);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", "--", "x", NULL), 0);
	assert_true(o.net_any);
	cli_opts_release(&o);
}

static void cli_limits(void **state)
{
	struct cli_opts o;
	char *err;
	/* A whole number past the flag's maximum is refused by a message
	 * that names the maximum, not one calling it no whole number. */
	assert_int_equal(parse(&o, &err, "sandbox-run", "--limit-cpu", "4294967296", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "4294967295"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--timeout", "31536001", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "to 31536000"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--max-tokens", "1000000001", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "to 1000000000"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--limit-memory", "512M", "--limit-procs", "none",
			       "--limit-cpu", "0", "--limit-file-size", "1G", "--", "x", NULL), 0);
	assert_int_equal(o.limits[LIM_MEMORY], 512ULL << 20);
	assert_true(o.limit_set[LIM_PROCS]);
	assert_int_equal(o.limits[LIM_PROCS], 0);
	assert_int_equal(o.limits[LIM_CPU], 0);
	assert_int_equal(o.limits[LIM_FSIZE], 1ULL << 30);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--limit-memory", "lots", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "K, M, G or T"));	/* every suffix parse_size takes */
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--limit-memory", "1T", "--", "x", NULL), 0);
	assert_int_equal(o.limits[LIM_MEMORY], 1ULL << 40);
	cli_opts_release(&o);
	/* 0 is a size; a search limit must be at least 1, and says so */
	assert_int_equal(parse(&o, &err, "agent-run", "--max-scan-bytes", "0", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "from 1"));
	assert_non_null(strstr(err, "K, M, G or T"));
	free(err);
	cli_opts_release(&o);
}

static void cli_agent_flags(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "agent-run", "--model", "m1", "--allow-tool", "--approve", "call",
			       "--session", "--max-rounds", "3", "--output", "jsonl", "--", "hello", "world", NULL), 0);
	assert_int_equal(o.cmd, CMD_AGENT_RUN);
	assert_true(o.allow_tool_all);
	assert_int_equal(o.approve, APPROVE_CALL);
	assert_true(o.session_set);
	assert_null(o.session_id);
	assert_int_equal(o.max_rounds, 3);
	assert_true(o.output_jsonl);
	assert_int_equal(o.nrest, 2);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--allow-tool", "bash", "--allow-tool", "read", "--session",
			       "abc123", "-", NULL), 0);
	assert_int_equal(o.allow_tools.n, 2);
	assert_string_equal(o.session_id, "abc123");
	assert_true(o.prompt_stdin);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--max-rounds", "0", "--", "x", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--", "", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "hello", NULL), -1);
	free(err);
	cli_opts_release(&o);
}

static void cli_agent_refuses_api_key_env(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "agent-run", "--allow-env", "ANTHROPIC_API_KEY", "--", "x", NULL), -1);
	assert_non_null(strstr(err, "sandbox-run"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tui", "--allow-env", "ANTHROPIC_API_KEY", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "bash", "{}", "--allow-env", "ANTHROPIC_API_KEY", NULL), -1);
	assert_non_null(strstr(err, "sandbox-run"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-env", "ANTHROPIC_API_KEY", "--", "x", NULL), 0);
	cli_opts_release(&o);
}

static void cli_pin_forms(void **state)
{
	struct cli_opts o;
	char *err;
	const char *hex = "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789";
	assert_int_equal(parse(&o, &err, "sandbox-run", "--pin-sha256", hex, "--", "/bin/true", NULL), 0);
	assert_string_equal(o.pin_hex, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--pin-sha256", hex, "--", "true", NULL), -1);
	assert_non_null(strstr(err, "absolute"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--pin-sha256", "abc", "--", "/bin/true", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--pin-sha256", hex, "--pin-sha256", hex, "--", "/bin/true", NULL), -1);
	free(err);
	cli_opts_release(&o);
}

/* Options put before a tool's NAME and JSON (the habit of other commands)
 * are refused naming the word that came first and saying where options go;
 * before, the message said NAME and JSON were missing, which were given. */
static void cli_tool_options_first_named(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "tool", "--allow-read", ".", "read", "{}", NULL), -1);
	assert_non_null(strstr(err, "'--allow-read'"));
	assert_non_null(strstr(err, "after the JSON"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "read", "--allow-read", ".", "{}", NULL), -1);
	assert_non_null(strstr(err, "'--allow-read'"));
	assert_non_null(strstr(err, "after the JSON"));
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "read", "-", NULL), -1);
	assert_non_null(strstr(err, "'-'"));
	free(err);
	cli_opts_release(&o);
	/* a missing word is still said as missing */
	assert_int_equal(parse(&o, &err, "tool", "read", NULL), -1);
	assert_non_null(strstr(err, "tool needs NAME and JSON"));
	free(err);
	cli_opts_release(&o);
}

/* `hash -- PATH` is one PATH, as `--` ends the options elsewhere (a file
 * named like an option); before, it was refused as two words. */
static void cli_hash_double_dash(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "hash", "--", "-x", NULL), 0);
	assert_string_equal(o.hash_path, "-x");
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "hash", "--", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "hash", "--", "a", "b", NULL), -1);
	free(err);
	cli_opts_release(&o);
}

/* The overview's line for each subcommand is that subcommand's own usage
 * (or its start, where the overview leaves options to it): 'hash PATH'
 * there, 'hash [--] PATH' in 'sandbx hash --help', disagreed. */
static void cli_help_agrees_with_usage(void **state)
{
	static const struct {
		const char *name;
		enum cli_cmd cmd;
	} subs[] = {
		{ "sandbox-run", CMD_SANDBOX_RUN }, { "agent-run", CMD_AGENT_RUN }, { "tui", CMD_TUI },
		{ "tool", CMD_TOOL }, { "auth", CMD_AUTH }, { "hash", CMD_HASH }, { "sessions", CMD_SESSIONS },
	};
	const char *main_help = cli_usage(CMD_NONE);
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char key[64];
		snprintf(key, sizeof(key), "\n  %s ", subs[i].name);
		const char *line = strstr(main_help, key);
		assert_non_null(line);
		line += 3;
		/* the synopsis ends where two spaces part it from what it does */
		size_t n = strcspn(line, "\n");
		const char *gap = strstr(line, "  ");
		if (gap && (size_t)(gap - line) < n)
			n = (size_t)(gap - line);
		char want[256];
		snprintf(want, sizeof(want), "sandbx %.*s", (int)n, line);
		const char *own = strstr(cli_usage(subs[i].cmd), want);
		if (!own || (own[strlen(want)] != '\n' && own[strlen(want)] != ' '))
			fail_msg("'sandbx --help' shows '%s'; 'sandbx %s --help' says: %s", want, subs[i].name,
				 cli_usage(subs[i].cmd));
	}
}

static void cli_other_commands(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "tool", "read", "{\"path\":\"x\"}", "--allow-read", "/tmp", NULL), 0);
	assert_string_equal(o.tool_name, "read");
	assert_int_equal(o.npaths, 1);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "rm", "{}", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "auth", "login", NULL), 0);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "auth", "steal", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "hash", "/bin/true", NULL), 0);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "hash", NULL), -1);
	free(err);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--help", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "--version", NULL), 0);
	assert_int_equal(o.cmd, CMD_VERSION);
	cli_opts_release(&o);
	assert_non_null(strstr(cli_usage(CMD_NONE), "--version"));	/* what is accepted is shown */
	assert_non_null(strstr(cli_usage(CMD_NONE), "-h | help"));
	assert_int_equal(parse(&o, &err, "help", NULL), 0);
	assert_int_equal(o.cmd, CMD_HELP);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "-h", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	/* "Every subcommand takes --help": after its words too, as
	 * sandbox-run and agent-run take it after their options. */
	assert_int_equal(parse(&o, &err, "auth", "login", "--help", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "hash", "/bin/true", "-h", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sessions", "x", "--help", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tool", "read", "--help", NULL), 0);
	assert_true(o.help);
	cli_opts_release(&o);
	/* after '--' it is a word of the program or the prompt */
	assert_int_equal(parse(&o, &err, "sandbox-run", "--", "x", "--help", NULL), 0);
	assert_false(o.help);
	cli_opts_release(&o);
	expect_usage(NULL);
}

/* A word after help, --help, -h or --version is not dropped in silence:
 * help SUBCOMMAND is that subcommand's --help; anything else is a usage
 * error that names the word and says what to do. */
static void cli_help_version_words(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const helps[] = { "help", "--help", "-h" };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(parse(&o, &err, helps[i], "tui", NULL), 0);
		assert_int_equal(o.cmd, CMD_TUI);
		assert_true(o.help);
		cli_opts_release(&o);
		assert_int_equal(parse(&o, &err, helps[i], "sandbox-run", NULL), 0);
		assert_int_equal(o.cmd, CMD_SANDBOX_RUN);
		assert_true(o.help);
		cli_opts_release(&o);
		assert_int_equal(parse(&o, &err, helps[i], "x", NULL), -1);
		assert_non_null(strstr(err, "'x'"));
		assert_non_null(strstr(err, " — "));
		free(err);
		cli_opts_release(&o);
		assert_int_equal(parse(&o, &err, helps[i], "tui", "auth", NULL), -1);
		assert_non_null(strstr(err, "'auth'"));
		assert_non_null(strstr(err, " — "));
		free(err);
		cli_opts_release(&o);
	}
	assert_int_equal(parse(&o, &err, "--version", "x", NULL), -1);
	assert_non_null(strstr(err, "--version"));
	assert_non_null(strstr(err, "'x'"));
	assert_non_null(strstr(err, " — "));
	assert_null(strchr(err, '\n'));
	free(err);
	cli_opts_release(&o);
	assert_non_null(strstr(cli_usage(CMD_NONE), "help SUBCOMMAND"));
}

/* HACKING.md: every message names the subject and then, after ' — ', says
 * what to do.  One command line for each refusal of the parser. */
static void cli_every_refusal_says_what_to_do(void **state)
{
	struct cli_opts o;
	char *err;
	static const char *const cases[][8] = {
		{ "sandbox-run", "--allow-read", "", "--", "x" },
		{ "sandbox-run", "--allow-network", "0", "--", "x" },
		{ "sandbox-run", "--allow-network", ",", "--", "x" },
		{ "agent-run", "--model", "", "--", "x" },
		{ "agent-run", "--max-tokens", "0", "--", "x" },
		{ "agent-run", "--max-scan-bytes", "0", "--", "x" },
		{ "sandbox-run", "--limit-memory", "lots", "--", "x" },
		{ "sandbox-run", "--limit-procs", "many", "--", "x" },
		{ "sandbox-run", "--timeout", "0", "--", "x" },
		{ "agent-run", "--max-rounds", "0", "--", "x" },
		{ "agent-run", "--approve", "never", "--", "x" },
		{ "agent-run", "--output", "xml", "--", "x" },
		{ "sandbox-run", "--dns-over-tcp=1", "--", "x" },
		{ "sandbox-run", "--timeout" },
		{ "auth" },
		{ "auth", "steal" },
		{ "hash" },
		{ "hash", "a", "b" },
		{ "hash", "" },
		{ "sessions", "x" },
		{ "tool", "read" },
		{ "tool", "read", "{}", "--" },
		{ "sandbox-run", "--" },
		{ "sandbox-run", "--", "" },
		{ "sandbox-run", "--pin-sha256",
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "--", "true" },
		{ "agent-run", "-", "--", "x" },
		{ "tui", "--", "x" },
		{ "agent-run", "--session", "--continue", "--", "x" },
		{ "sandbox-run", "--allow-network", "--allow-network=80", "--", "x" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *c = cases[i];
		assert_int_equal(parse(&o, &err, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], NULL), -1);
		if (!strstr(err, " — "))
			fail_msg("case %zu (%s %s %s): no ' — what to do' in \"%s\"", i, c[0], c[1] ? c[1] : "",
				 c[1] && c[2] ? c[2] : "", err);
		free(err);
		cli_opts_release(&o);
	}
}

/* --allow-network takes at most POLICY_MAX_PORTS distinct ports (a port
 * given twice counts once); the refusal names the cap and what to do, and
 * the help shows the cap where the flag is described. */
static void cli_network_port_cap(void **state)
{
	struct cli_opts o;
	char *err, list[1024] = "", *p = list;
	for (int i = 0; i < 64; i++)
		p += sprintf(p, "%s%d", i ? "," : "", 1000 + i);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", list, "--allow-network", "1000,1063",
			       "--", "x", NULL), 0);
	assert_int_equal(o.nports, 64);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-network", list, "--allow-network", "2000", "--",
			       "x", NULL), -1);
	assert_non_null(strstr(err, "64"));
	assert_non_null(strstr(err, "'2000'"));
	assert_non_null(strstr(err, " — "));
	free(err);
	cli_opts_release(&o);
	assert_non_null(strstr(cli_usage(CMD_NONE), "64 ports"));
}

/*
 * A flag that takes one value (or none) given twice is refused (exit 64),
 * naming the flag: the last word used to win silently, so a later
 * '--approve run' undid an earlier '--approve call'.  Every such flag, on
 * every subcommand that takes it, in both orders of the '=' form, and with
 * the same value twice.  The repeatable ones (CLI.md's, and
 * --allow-network's port lists, which add up) stay repeatable.
 */
static const struct once_case {
	const char *flag;
	const char *v1, *v2;	/* NULL: given bare */
	unsigned subs;		/* bit 0 sandbox-run, 1 agent-run, 2 tui, 3 tool */
} once_cases[] = {
	{ "--dns-over-tcp", NULL, NULL, 15 },
	{ "--allow-unix-sockets", NULL, NULL, 15 },
	{ "--limit-procs", "10", "20", 15 },
	{ "--limit-memory", "64M", "none", 15 },
	{ "--limit-cpu", "5", "0", 15 },
	{ "--limit-file-size", "1M", "2M", 15 },
	{ "--limit-open-files", "64", "64", 15 },
	{ "--timeout", "5", "10", 1 },
	{ "--pin-sha256", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1 },
	{ "--model", "a", "b", 6 },
	{ "--base-url", "http://127.0.0.1:1", "http://127.0.0.1:2", 6 },
	{ "--system", "be terse", "be verbose", 6 },
	{ "--max-tokens", "100", "200", 6 },
	{ "--max-rounds", "3", "4", 6 },
	{ "--no-wrap-up", NULL, NULL, 2 },
	{ "--approve", "call", "run", 6 },
	{ "--approve", "call", "call", 6 },
	{ "--session", "abc", NULL, 6 },
	{ "--session", NULL, NULL, 6 },
	{ "--continue", NULL, NULL, 6 },
	{ "--max-scan-files", "10", "20", 14 },
	{ "--max-scan-bytes", "1M", "2M", 14 },
	{ "--max-results", "10", "20", 14 },
	{ "--output", "text", "jsonl", 2 },
};

/* argv for sub s with the flag given twice; the value of the first (and,
 * with eq, the second) after '='. */
static int parse_twice(struct cli_opts *o, char **err, int s, const struct once_case *c, int eq)
{
	static char w1[256], w2[256];
	const char *a[16];
	int n = 0;
	static const char *const subs[] = { "sandbox-run", "agent-run", "tui", "tool" };
	a[n++] = subs[s];
	if (s == 3) {
		a[n++] = "read";
		a[n++] = "{}";
	}
	if (c->v1 && eq) {
		snprintf(w1, sizeof(w1), "%s=%s", c->flag, c->v1);
		a[n++] = w1;
	} else {
		a[n++] = c->flag;
		if (c->v1)
			a[n++] = c->v1;
	}
	if (c->v2 && !eq) {
		snprintf(w2, sizeof(w2), "%s=%s", c->flag, c->v2);
		a[n++] = w2;
	} else {
		a[n++] = c->flag;
		if (c->v2)
			a[n++] = c->v2;
	}
	if (s == 0 || s == 1) {
		a[n++] = "--";
		a[n++] = s == 0 ? "/bin/true" : "hi";
	}
	while (n < 10)
		a[n++] = NULL;
	return parse(o, err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], NULL);
}

static void cli_single_flags_once(void **state)
{
	struct cli_opts o;
	char *err;
	int checked = 0;
	for (size_t i = 0; i < sizeof(once_cases) / sizeof(once_cases[0]); i++) {
		const struct once_case *c = &once_cases[i];
		for (int s = 0; s < 4; s++) {
			if (!(c->subs & (1u << s)))
				continue;
			for (int eq = 0; eq < 2; eq++) {
				if (parse_twice(&o, &err, s, c, eq) != -1)
					fail_msg("%s given twice (case %zu, sub %d, eq %d) was accepted", c->flag, i, s, eq);
				char want[64];
				snprintf(want, sizeof(want), "%s is given twice — ", c->flag);
				if (strncmp(err, want, strlen(want)) != 0 || strchr(err, '\n'))
					fail_msg("%s given twice (case %zu, sub %d): \"%s\"", c->flag, i, s, err);
				free(err);
				cli_opts_release(&o);
				checked++;
			}
		}
	}
	assert_true(checked > 0);
}

/* What CLI.md marks repeatable stays so, with every value kept; bare
 * --allow-tool (all) and named ones combine as before. */
static void cli_repeatable_flags(void **state)
{
	struct cli_opts o;
	char *err;
	assert_int_equal(parse(&o, &err, "sandbox-run", "--allow-read", "/a", "--allow-read", "/b", "--allow-write", "/c",
			       "--allow-write=/d", "--allow-exec", "/e", "--allow-exec", "/f", "--allow-env", "A",
			       "--allow-env", "B", "--allow-network", "53", "--allow-dns", "x.example", "--allow-dns",
			       "y.example", "--allow-network=443,53", "--", "/bin/true", NULL), 0);
	assert_int_equal(o.npaths, 6);
	assert_int_equal(o.nports, 2);
	assert_int_equal(o.env.n, 2);
	assert_int_equal(o.dns.n, 2);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "agent-run", "--allow-tool", "read", "--allow-tool", "bash", "--allow-tool",
			       "--allow-tool", "--", "hi", NULL), 0);
	assert_true(o.allow_tool_all);
	assert_int_equal(o.allow_tools.n, 2);
	cli_opts_release(&o);
	assert_int_equal(parse(&o, &err, "tui", "--allow-tool", "--allow-tool=write", NULL), 0);
	assert_true(o.allow_tool_all);
	assert_int_equal(o.allow_tools.n, 1);
	cli_opts_release(&o);
}

/* The command's words, for its records, and a prompt's words are joined
 * with one space each, in one allocation (a join by repeated asprintf took
 * 16 s for a command line of 2,000 words of 1,000 bytes). */
static void cli_join_words(void **state)
{
	(void)state;
	char a[] = "echo", b[] = "", c[] = "a b", d[] = "é";
	char *w[] = { a, b, c, d };
	char *s = xjoin(w, 4, ' ');
	assert_string_equal(s, "echo  a b é");
	free(s);
	s = xjoin(w, 0, ' ');
	assert_string_equal(s, "");
	free(s);
	s = xjoin(w, 1, ' ');
	assert_string_equal(s, "echo");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cli_sandbox_run_basic),
		cmocka_unit_test(cli_refuses_missing_dashdash),
		cmocka_unit_test(cli_refuses_env_value),
		cmocka_unit_test(cli_refuses_unknown),
		cmocka_unit_test(cli_value_not_an_option),
		cmocka_unit_test(cli_stray_word_named),
		cmocka_unit_test(cli_session_id_forms),
		cmocka_unit_test(cli_session_twice),
		cmocka_unit_test(cli_network_forms),
		cmocka_unit_test(cli_network_port_cap),
		cmocka_unit_test(cli_dns_names),
		cmocka_unit_test(cli_optional_value_named),
		cmocka_unit_test(cli_limits),
		cmocka_unit_test(cli_agent_flags),
		cmocka_unit_test(cli_agent_refuses_api_key_env),
		cmocka_unit_test(cli_pin_forms),
		cmocka_unit_test(cli_other_commands),
		cmocka_unit_test(cli_tool_options_first_named),
		cmocka_unit_test(cli_hash_double_dash),
		cmocka_unit_test(cli_help_agrees_with_usage),
		cmocka_unit_test(cli_help_version_words),
		cmocka_unit_test(cli_every_refusal_says_what_to_do),
		cmocka_unit_test(cli_join_words),
		cmocka_unit_test(cli_single_flags_once),
		cmocka_unit_test(cli_repeatable_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
