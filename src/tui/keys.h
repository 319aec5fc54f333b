/*
 * keys.h — what a key does to the screen model.  Pure: render.c turns the
 * terminal's keys into struct tui_key, tui_keys_apply() edits the model and
 * says what the screen thread must do next (send a prompt, stop the turn,
 * answer the question, quit).
 *
 * Ownership: the strings of struct tui_act (prompt, reason) are malloc'd
 * and belong to the caller.
 */
#ifndef SBX_TUI_KEYS_H
#define SBX_TUI_KEYS_H

#include <stdint.h>

#include "agent/turn.h"
#include "tui/model.h"

enum tui_keycode {
	TK_NONE = 0, TK_CHAR, TK_CTRL, TK_ENTER, TK_NEWLINE, TK_ESC, TK_BACKSPACE, TK_DELETE,
	TK_LEFT, TK_RIGHT, TK_UP, TK_DOWN, TK_HOME, TK_END, TK_PGUP, TK_PGDN,
	TK_WHEEL_UP, TK_WHEEL_DOWN, TK_PASTE_START, TK_PASTE_END, TK_RESIZE,
};

struct tui_key {
	enum tui_keycode code;
	uint32_t ch;		/* TK_CHAR: the character; TK_CTRL: 'a'..'z' */
	uint64_t ms;		/* when it was read (monotonic ms; 0: not known) */
	int burst;		/* more input was already waiting behind it (set
				   for TK_CHAR at a question, TK_PASTE_END and
				   any key after such an end marker) */
};

/*
 * At an approval question a key is an answer only when it stands alone
 * (turn.h): not with more input already waiting behind it (k.burst), not
 * within APPROVE_QUIET_MS of the question being drawn (APPROVE_RECOVER_MS
 * when input was thrown away then or a key came in the APPROVE_RECOVER_MS
 * before: the user was typing), and not within APPROVE_RECOVER_MS of a
 * key that was not taken (model.qquiet).  The tail of a paste whose start
 * was thrown away, the bytes of an escape sequence the terminal library did
 * not know (a cursor key's final "A", a mouse report's "y"), 8-bit controls
 * and a refusal typed too fast ("no, absolutely not") all come as such
 * bursts.  Escape and ctrl-c, which refuse, always act.
 */

enum tui_action {
	TACT_NONE = 0,
	TACT_SEND,		/* prompt: the text to send */
	TACT_QUIT,		/* leave the screen (stop a running turn first) */
	TACT_STOP,		/* stop the running turn */
	TACT_ANSWER,		/* answer (and reason) for the waiting question */
	TACT_REDRAW,		/* repaint everything */
};

struct tui_act {
	enum tui_action act;
	enum approval_answer answer;
	int stop;		/* TACT_ANSWER: also stop the turn */
	char *prompt;
	char *reason;
};

void tui_keys_apply(struct tui_model *m, const struct tui_key *k, struct tui_act *out);

#endif
