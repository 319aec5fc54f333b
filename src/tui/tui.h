/*
 * tui.h — the interactive screen: a screen thread (this one: keys and
 * drawing, the only caller of ncurses) and a worker thread running turns,
 * talking through a queue woken by a pipe.  An approval question is a
 * message to the screen thread; the worker waits for its answer.
 *
 * Life cycle:
 *   1. struct tui_config c = { ... driver: the turn function ... };
 *   2. tui_run(&c, &transcript, &last, &err)   blocks until the user quits or the
 *                                       terminal goes away
 *   3. the caller prints transcript (malloc'd) and frees it
 */
#ifndef SBX_TUI_H
#define SBX_TUI_H

#include "util/cjson.h"

#include "agent/turn.h"

/* Runs one turn on the worker thread (agent_turn, or a test's fake). */
struct tui_driver {
	int (*turn)(void *ud, const char *prompt, const struct turn_io *io, struct turn_outcome *out);
	void *ud;
};

struct tui_config {
	struct tui_driver drv;
	const char *model;	/* status line */
	const char *grants;	/* "rw /work/proj" */
	const char *net;	/* "none", "any", "ports 443" */
	const char *tools;	/* "read ls find grep" */
	const char *banner;	/* a note shown first, or NULL */
	const cJSON *history;	/* a resumed session's messages, or NULL */
	const char *resumed;	/* the note shown after the history, or NULL */
	int skip_home_terminfo;	/* the screen does not read $HOME/.terminfo */
};

enum tui_end {
	TUI_END_QUIT = 0,	/* ctrl-c / ctrl-d on an empty prompt */
	TUI_END_HANGUP,		/* the terminal failed, or a hang-up while a question waited */
	TUI_END_SIGNAL,		/* SIGTERM, SIGINT or a hang-up (SIGHUP, or the
				 * keyboard's POLLHUP): tui_end_signal() */
};

/* The signal that ended the last tui_run with TUI_END_SIGNAL (0 if none):
 * the caller, once it has given back what it held, ends by it (its
 * default action), as sandbx does for these signals elsewhere. */
int tui_end_signal(void);

/* The queue between the threads holds at most this many bytes; a worker
 * that streams faster than the screen draws waits. */
#define TUI_QUEUE_MAX_BYTES (4u << 20)
/* Frames are drawn at most this often while text streams (coalescing). */
#define TUI_FRAME_MS 16

/*
 * Run the screen.  Returns enum tui_end with *transcript (malloc'd: the
 * session as plain text, for the normal screen) and *last_exit (the
 * exit_code of the last turn that finished, CLI.md's 0-3; 0 when none
 * ran), or -1 with *err when the screen could not start (no terminal,
 * unknown TERM).
 */
int tui_run(const struct tui_config *c, char **transcript, int *last_exit, char **err);

#endif
