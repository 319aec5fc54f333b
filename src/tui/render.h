/*
 * render.h — the terminal side of the TUI: the only code that calls
 * ncursesw.  Called from the screen thread only (ncurses is not
 * thread-safe).
 *
 * Life cycle:
 *   1. render_init(home_ti, not_utf8, &err)
 *                                   newterm on stdin/stdout, raw keys,
 *                                   bracketed paste, wheel, colours
 *                                   unless NO_COLOR is set; not_utf8: the
 *                                   terminal's charset is LC_CTYPE's, not
 *                                   UTF-8 (rows are converted); home_ti 0:
 *                                   ncurses does not look in
 *                                   $HOME/.terminfo (HOME is unset
 *                                   around newterm: call it before any
 *                                   other thread exists)
 *   2. render_frame() for each frame (only rows that changed since the
 *      previous frame are written); render_key() while keys are waiting;
 *      render_resize() after SIGWINCH; render_suspend() before a stop,
 *      render_resume() after a continue
 *   3. render_end()                 the normal screen is back
 */
#ifndef SBX_TUI_RENDER_H
#define SBX_TUI_RENDER_H

#include "tui/keys.h"
#include "tui/model.h"

int render_init(int home_ti, int not_utf8, char **err);
void render_size(int *w, int *h);
/* Read the new size from the terminal and tell ncurses. */
void render_resize(int *w, int *h);
/* Draw f; force: repaint every row (after a resize or ctrl-l).  Returns
 * the number of rows written. */
int render_frame(const struct tui_frame *f, int force);
/* One key if one is waiting (1), else 0; blocks at most the escape delay
 * (25 ms) for the rest of a key begun.  paste: the model's (keys.h): inside
 * a paste the terminal's bytes are read in bulk. */
int render_key(struct tui_key *k, int paste);
/* Discard keys typed but not read yet (before a question). */
void render_flush_input(void);

/* Before a stop (SIGTSTP): the normal screen and the terminal's modes back,
 * bracketed paste off, as for the shell. */
void render_suspend(void);
/* After a continue (SIGCONT, from render_suspend's stop or any other):
 * raw keys, the alternate screen, keypad and bracketed paste again, which
 * the shell may have turned off meanwhile; the caller then draws a whole
 * frame (force). */
void render_resume(void);

/* 1 when more input is already waiting to be read (a burst: keys.h). */
int render_input_waiting(void);
/* 1 when input was read from the terminal but not all made keys yet:
 * poll() on it would not say so; call render_key again. */
int render_input_pending(void);
void render_end(void);

#endif
