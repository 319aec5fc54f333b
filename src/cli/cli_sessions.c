/*
 * cli_sessions.c — `sandbx sessions`: the stored sessions, most recently
 * written first, one per line: id, start time (local), turns, first prompt
 * line.  A '*' after the turn count marks a last turn that was cut short;
 * '-' is a count the listing did not make: of a file over 1 MiB it reads
 * the start and the end only (session.h), and the end holds no count.
 * Exit 0 (also when there are none), 1 when the store cannot be read, 125
 * when it cannot run again without an LD_LIBRARY_PATH entry naming the
 * working directory (cli_ldpath.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/gate.h"
#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "store/session.h"
#include "util/log.h"
#include "util/utf8.h"

/* Text of a session file's (its first prompt, or what could not be read
 * in it: a record type is quoted there) for the listing, to a terminal or
 * a pager alike: the characters that draw nothing as <U+XXXX>, as the
 * screen and agent-run show the model's (gate.h), controls and bidi
 * controls made visible (utf8.h), so a title cannot hide a word or send
 * the terminal an escape sequence. */
static void show(const char *s)
{
	uint32_t prev = 0;
	size_t n;
	char *v = gate_show_hidden(s, strlen(s), &prev, &n);
	utf8_term_write(stdout, v, n, 1);
	free(v);
}

int cli_sessions(struct cli_opts *o)
{
	struct xdg_paths x;
	struct session_info *v = NULL;
	struct strv notes = { 0 };
	size_t n = 0;
	char *err = NULL;
	(void)o;

	/* Before the store is read: cJSON, opened at the first session file
	 * parsed, would be the libcjson.so.1 an agent's call left in the
	 * working directory when LD_LIBRARY_PATH names it (an empty entry). */
	int rc = cli_ldpath_guard_no_grants();
	if (rc)
		return rc;
	if (xdg_paths_get(&x, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		return EXIT_ERROR;
	}
	int r = session_list(&x, &v, &n, &notes, &err);
	for (size_t i = 0; i < notes.n; i++)
		sbx_err("%s", notes.v[i]);
	strv_free(&notes);
	if (r < 0) {
		sbx_err("cannot list the sessions: %s", err);
		free(err);
		xdg_paths_release(&x);
		return EXIT_ERROR;
	}
	if (n == 0) {
		sbx_err("no stored sessions in '%s' — start one with 'sandbx agent-run --session -- PROMPT'",
			x.sessions_dir);
		xdg_paths_release(&x);
		return EXIT_OK;
	}
	int cut = 0, uncounted = 0;
	printf("%-10s %-16s %6s  %s\n", "ID", "STARTED", "TURNS", "FIRST PROMPT");
	for (size_t i = 0; i < n; i++) {
		if (v[i].error) {
			printf("%-10s %-16s %6s  (unreadable: ", v[i].id, "-", "-");
			show(v[i].error);
			printf(")\n");
			continue;
		}
		char when[32] = "-";
		time_t t = (time_t)v[i].created;
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		cut |= v[i].cut_short;
		char turns[16] = "-";
		if (v[i].turns != SESSION_TURNS_UNKNOWN)
			snprintf(turns, sizeof(turns), "%d", v[i].turns);
		else
			uncounted = 1;
		printf("%-10s %-16s %5s%c  ", v[i].id, when, turns, v[i].cut_short ? '*' : ' ');
		/* Whoever wrote the prompt: bidi controls, characters that
		 * draw nothing and bytes that are not UTF-8 are shown, not
		 * obeyed, like the answer's. */
		if (v[i].first_prompt)
			show(v[i].first_prompt);
		putchar('\n');
	}
	if (cut)
		printf("* the last turn was stopped or cut short\n");
	if (uncounted)
		printf("- not counted: of a session over %u MiB only the start and the end are read, and its last "
		       "lines hold no count (an earlier sandbx wrote them, or a long turn did not finish)\n",
		       SESSION_LIST_WHOLE >> 20);
	session_list_free(v, n);
	xdg_paths_release(&x);
	return EXIT_OK;
}
