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

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "agent/turn.h"
#include "tui/model.h"

enum tui_keycode {
	TK_NONE = 0, TK_CHAR, TK_CTRL, TK_ENTER, TK_NEWLINE, TK_ESC, TK_BACKSPACE, TK_DELETE,
	TK_LEFT, TK_RIGHT, TK_UP, TK_DOWN, TK_HOME, TK_END, TK_PGUP, TK_PGDN,
	TK_WHEEL_UP, TK_WHEEL_DOWN, TK_PASTE_START, TK_PASTE_END, TK_RESIZE,
	TK_TEXT,		/* characters of a paste read in bulk (below) */
};

struct tui_key {
	enum tui_keycode code;
	uint32_t ch;		/* TK_CHAR: the character; TK_CTRL: the control + 96 (a..z); TK_BACKSPACE: its byte (8, 0x7f) or 0;
				   TK_ENTER, TK_NEWLINE: its byte ('\r', '\n') or 0 (keypad Enter, alt-Enter) */
	uint64_t ms;		/* when it was read (monotonic ms; 0: not known) */
	int burst;		/* more input was already waiting behind it (set
				   for TK_CHAR at a question, TK_PASTE_END and
				   any key after such an end marker) */
	const char *text;	/* TK_TEXT: UTF-8, none of them a control */
	size_t len;
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

/*
 * A paste read in bulk.  Read one key at a time through the terminal
 * library, a 1 MB paste cost seconds of CPU; inside a paste render.c reads
 * the terminal's bytes itself, TUI_PASTE_READ at a time, and
 * tui_keys_read() makes of them the keys render_key() made one at a time,
 * for tui_keys_apply():
 *   - a run of characters is one TK_TEXT key (a tab, a line break and a
 *     control are keys of their own, as typed);
 *   - characters are decoded in the locale's charset (mbrtowc, as the
 *     terminal library does), resumed across reads; a byte that starts no
 *     character is U+FFFD (the terminal library dropped it);
 *   - ESC [ 200 ~ and ESC [ 201 ~ are the paste's markers, ESC CR and
 *     ESC LF alt-Enter, the terminal's keypad Enter (kent) Enter; any other
 *     escape sequence is read as render_key and drop_sequence read one the
 *     key table does not know (ESC and a character; a CSI or SS3: parameter
 *     bytes 0x20-0x3f up to any other, at most 32; ESC [ M and three bytes)
 *     and does nothing in a paste (TK_NONE); two escapes are one key that
 *     does nothing, and what follows them is read as the next key (ESC ESC
 *     x types the x, as render_key reads it), but before [ or O the first
 *     does nothing and the second begins a sequence (an end marker); a
 *     lone escape, or two (final: nothing came within the escape delay),
 *     is TK_ESC.  (The key table's own keys, a cursor key, also do nothing
 *     in a paste, as there.  One difference: ESC before a key the table
 *     knows, ESC ESC [ A, was a lone escape there, which ends the paste.)
 *
 * mode 1: inside a paste (model.paste == 1).  mode 2: after an end marker
 * with input behind it (model.paste == 2): one key at a time, whose burst
 * the caller sets; an escape sequence that is not one of the above is
 * TK_NONE there too (a key typed in the same read as a paste's end).
 *
 * Returns 1 with *k set (k->text points into rd), *off past the key's
 * bytes; 0 when b[*off..n) is used up (part of a key may be held in rd:
 * read more, or call again with final after the escape delay, which
 * finishes it: a partial sequence is TK_NONE, a partial character U+FFFD).
 * The state starts zeroed; tui_keys_read_reset() drops what is held.
 */
#define TUI_PASTE_READ 128		/* bytes read at a time: keys typed in the same read
					   after the paste's end are read here, not by ncurses */
#define TUI_KEYRD_SEQ 36		/* ESC, the introducer, 32 parameter bytes, the final */

struct tui_keyrd {
	mbstate_t mb;			/* a character's bytes so far (also in seq) */
	unsigned char seq[TUI_KEYRD_SEQ];
	size_t nseq;			/* bytes of the key being read */
	size_t mouse;			/* X10 mouse report: bytes still to drop */
	int skip;			/* a character that ends an escape key */
	const char *kent;		/* the terminal's keypad Enter, or NULL */
	char text[TUI_PASTE_READ * 3 + 8];
};

int tui_keys_read(struct tui_keyrd *rd, const unsigned char *b, size_t n, size_t *off, int mode, int final,
		  struct tui_key *k);
void tui_keys_read_reset(struct tui_keyrd *rd);

#endif
