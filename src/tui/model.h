/*
 * model.h — the TUI's screen model: transcript, input box, question rows,
 * status line and their layout.  Pure code: no ncurses, no I/O, no clock
 * (the caller passes the time in milliseconds).
 *
 * Data model.  The transcript is a bounded window of logical lines (at most
 * TUI_MAX_LINES lines and TUI_MAX_BYTES bytes of text; the oldest are dropped
 * first).  Every line is stored already made safe to draw: valid UTF-8,
 * control and bidi characters turned into visible text, tabs expanded.  A
 * logical line is wrapped into screen rows at draw time (word wrap, widths
 * from wcwidth: wide characters take two columns, combining characters
 * none).  Lines have a kind (user prompt, text, code, tool row, note...)
 * that picks their prefix and attribute; markdown (headings, lists, code
 * fences) is decided per line from its text and the fence state it started
 * in.  Each line has an absolute sequence number; the scroll position is
 * either "follow the bottom" or an anchor (sequence, row within the line) at
 * the top of the transcript area, so streamed text never moves a view the
 * user scrolled to.
 *
 * Screen coordinates (tui_model_frame): row 0 is the top of the terminal.
 * From the top: transcript rows, question rows (while a question waits),
 * the input box (or the reason editor), and the status line last.
 *
 * Life cycle:
 *   1. struct tui_model m; tui_model_init(&m, width, height, ascii)
 *   2. tui_model_set_info(), tui_model_user(), tui_model_event(),
 *      tui_model_question(), the tui_input_* edits, tui_model_resize()
 *   3. tui_model_frame(&m, &f) as often as the screen is drawn; the frame
 *      is owned by the caller (tui_frame_release)
 *   4. tui_model_transcript() for the copy printed when the screen ends
 *   5. tui_model_release(&m)
 */
#ifndef SBX_TUI_MODEL_H
#define SBX_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "agent/turn.h"
#include "util/util.h"

#define TUI_MAX_LINES 20000		/* logical transcript lines held */
#define TUI_MAX_BYTES (4u << 20)	/* transcript text held */
#define TUI_MAX_LINE_BYTES (16u << 10)	/* one logical line; longer is split */
#define TUI_CUT_MARK_ROOM 64		/* ... of a tool output line cut at it, kept for
					 * its "... [line cut: N more bytes]" */
#define TUI_MAX_INPUT (64u << 10)	/* the input box */
#define TUI_MAX_HISTORY 100		/* prompts kept for up/down */
#define TUI_TOOL_FOLD 4			/* output lines shown of a folded tool row */
#define TUI_MAX_TOOL_LINES 2000		/* output lines kept of one tool call */
#define TUI_MAX_TOOL_BYTES (256u << 10)	/* output bytes kept of one tool call */
#define TUI_MAX_TOOL_ID 256		/* bytes of a tool row's call id kept */
#define TUI_MAX_TOOL_NAME 1024		/* ... of the model's tool name (80 columns shown) */
#define TUI_MAX_TOOL_SUBJECT 4096	/* ... of its subject (160 columns shown) */
#define TUI_MAX_QUESTION_LINES 400	/* logical lines of one question */
#define TUI_INPUT_MAX_ROWS 8		/* the input box grows up to this */
#define TUI_MAX_SEGS 4096		/* rows computed for one line at once */

enum tui_attr {
	TA_NORMAL = 0, TA_USER, TA_HEADING, TA_CODE, TA_DIM, TA_TOOL, TA_OK,
	TA_ERROR, TA_RETRY, TA_QUESTION, TA_STATUS, TA_ADD, TA_DEL, TA__COUNT
};

enum tui_line_kind {
	TL_BLANK = 0, TL_USER, TL_TEXT, TL_THINK, TL_TOOL, TL_TOOLOUT,
	TL_TOOLMORE, TL_NOTE, TL_RETRY, TL_ERROR
};

enum tui_tool_status { TT_RUNNING = 0, TT_OK, TT_ERROR, TT_ASKING };

struct tui_tool {
	char *id, *tool, *subject;
	enum tui_tool_status status;
	uint64_t start_ms, elapsed_ms;
	int untimed;			/* from a stored session: no time shown */
	size_t nout;			/* output lines added */
};

struct tui_line {
	uint8_t kind;			/* enum tui_line_kind */
	uint8_t in_code;		/* TL_TEXT: started inside a code fence */
	uint32_t fold;			/* TL_TOOLOUT: index in its tool's output */
	char *text;			/* safe UTF-8, NUL-terminated */
	size_t len, cap;
	struct tui_tool *tool;		/* TL_TOOL: owned */
	int rows_w;			/* width nrows was computed for; 0 stale */
	unsigned rows_gen;
	int nrows;
};

/* One screen row span of a wrapped line: bytes [start, end). */
struct tui_seg {
	size_t start, end;
};

struct tui_input {
	char *buf;			/* never NULL after init; NUL-terminated */
	size_t len, cap, cur;		/* cur: byte offset of the cursor */
	int cut;			/* an insertion was cut at TUI_MAX_INPUT
					   since the box was last set */
};

enum tui_qstate { TQ_NONE = 0, TQ_ASK, TQ_REASON };

struct tui_model {
	int w, h;
	int ascii;			/* terminal is not UTF-8: ASCII glyphs */
	unsigned gen;			/* bumped when every line must re-wrap */

	/* transcript: lines[head .. head+n) */
	struct tui_line *lines;
	size_t head, n, cap;
	uint64_t first_seq;		/* sequence number of lines[head] */
	size_t bytes;
	uint64_t dropped;		/* lines dropped from the front */
	int stream_open;		/* the last line is being streamed */
	uint8_t stream_kind;
	uint8_t in_code;		/* the stream is inside a ``` fence */
	int stream_col;			/* columns in the open line (tabs) */
	unsigned char pend[4];		/* a UTF-8 character split by deltas */
	size_t npend;
	int expand_tools;		/* ctrl-o */
	int replaying;			/* tui_replay: the calls' times are not known */

	/* scrolling */
	int follow;
	uint64_t top_seq;		/* anchor when !follow */
	int top_row;
	int trows;			/* transcript rows of the last frame */

	/* input box, history, paste */
	struct tui_input in;
	struct strv hist;
	size_t hpos;			/* == hist.n: editing the draft */
	char *draft;
	int paste;			/* inside a bracketed paste; 2: after an
					   end marker with input behind it (keys.c) */
	int pcut;			/* this paste reached the box's cap: the
					   rest of it is left out */
	int pcr;			/* the last key of this paste was a CR
					   byte: an LF right after it is the
					   same line break (keys.c) */

	/* question */
	enum tui_qstate q;
	char **qtext;			/* logical lines, safe */
	uint8_t *qattr;
	size_t nq;
	char *qtool;
	char *qwhole;			/* the whole call (v adds it to the transcript) */
	int qviewed;			/* ... it was added */
	int qcompact;			/* v: the question shrinks to its first and
					   last rows, so the transcript shows it */
	struct tui_input reason;
	uint64_t qquiet;		/* keys at the question before this are a
					   burst, not an answer (keys.h) */
	int qtold;			/* ... and the user was told so */
	uint64_t squiet;		/* an Enter before this does not send: the
					   question the keys went to was lost
					   under them (tui_model_question_lost),
					   or refused as it came on a pane too
					   small for it (..._arrived) */
	int stold;			/* ... and the user was told so */

	/* status line */
	char *model, *grants, *net, *tools;
	int busy;			/* a turn runs */
	int stopping;			/* ... and Esc (ctrl-c) stopped it: a
					   second press adds no second note */
	int round;
	uint64_t in_tok, out_tok;
	uint64_t now_ms, turn_start_ms;
};

struct tui_frow {
	char *buf;			/* the row's text, NUL-terminated */
	size_t len, cap;
	size_t plen;			/* bytes of buf drawn with pattr */
	uint8_t pattr, attr;
};

struct tui_frame {
	int w, h;
	struct tui_frow *rows;		/* h rows */
	int cy, cx;			/* cursor */
};

void tui_model_init(struct tui_model *m, int w, int h, int ascii);
void tui_model_release(struct tui_model *m);
void tui_model_resize(struct tui_model *m, int w, int h);

/* Status line facts (copied; NULL leaves a field unchanged). */
void tui_model_set_info(struct tui_model *m, const char *model, const char *grants,
			const char *net, const char *tools);

/* A prompt the user sent: shown, and the model becomes busy. */
void tui_model_user(struct tui_model *m, const char *text, uint64_t now_ms);
/* One event of the turn (turn.h); the strings are copied. */
void tui_model_event(struct tui_model *m, const struct turn_event *ev, uint64_t now_ms);
/* The worker finished the turn: idle again. */
void tui_model_turn_done(struct tui_model *m);
/* A line of the harness itself (TL_NOTE or TL_ERROR). */
void tui_model_note(struct tui_model *m, enum tui_line_kind kind, const char *text);
/* Advance the clock (running tool rows and the status line show elapsed). */
void tui_model_tick(struct tui_model *m, uint64_t now_ms);

/* Show an approval question; tui_model_question_fits() says whether the
 * pane can show it (all of it, or its first and last rows with a "…" row
 * between).  tui_model_question_end() removes it. */
void tui_model_question(struct tui_model *m, const struct approval_question *q);
int tui_model_question_fits(struct tui_model *m);
void tui_model_question_end(struct tui_model *m);
/* The question ended under the user's keys (the pane shrank past it, at
 * now_ms): removed, said, and an Enter in the flow of typing that follows
 * does not send (keys.c), as those keys were meant for the question. */
void tui_model_question_lost(struct tui_model *m, uint64_t now_ms);
/* A question arrives at now_ms: shown (1), or, on a pane too small for it,
 * refused at once (0: the caller answers APPROVE_ABORT), said, and the
 * keys typed on held back from sending as when one is lost. */
int tui_model_question_arrived(struct tui_model *m, const struct approval_question *q, uint64_t now_ms);

/* Scrolling by rows (negative: up, toward older text); 0 keeps. */
void tui_model_scroll(struct tui_model *m, int rows);
void tui_model_scroll_page(struct tui_model *m, int dir);
void tui_model_toggle_tools(struct tui_model *m);

/* Lay the whole screen out.  f is reused between calls (rows reallocated
 * when the size changed); release it with tui_frame_release. */
void tui_model_frame(struct tui_model *m, struct tui_frame *f);
void tui_frame_release(struct tui_frame *f);

/* The transcript held, as plain text lines (malloc'd), for the normal
 * screen when the TUI ends. */
char *tui_model_transcript(const struct tui_model *m);

/* Input history: push a sent prompt, and move through it (dir -1 older,
 * +1 newer); 0 when nothing moved. */
void tui_model_history_push(struct tui_model *m, const char *text);
int tui_model_history(struct tui_model *m, int dir);

/* ---- pure helpers, exposed for tests ---- */

/* Make text safe to draw: invalid UTF-8 -> U+FFFD, C0/C1 controls -> ^X or
 * <U+XXXX> (newline too, as ^J), bidi controls -> <U+XXXX>, the
 * characters that draw nothing (gate_hidden, after the last character
 * already in *out) -> <U+XXXX> as the approval question shows them,
 * unprintable -> U+FFFD, tab -> spaces to the next multiple of 4 from
 * *col.  Appends to *out (xrealloc'd, len/cap); *col advances by columns. */
void tui_sanitize(const char *s, size_t n, char **out, size_t *len, size_t *cap, int *col);

/* Columns of a safe UTF-8 string; tui_cut: bytes of s that fit in w. */
int tui_width(const char *s, size_t n);
size_t tui_cut(const char *s, size_t n, int w);

/* Word-wrap s into rows of w1 columns (first) and w2 (the others).  Fills
 * up to max segments; returns the number of rows (>= 1). */
int tui_wrap(const char *s, size_t n, int w1, int w2, struct tui_seg *segs, int max);

/* Input box editing.  Insertion is capped at TUI_MAX_INPUT bytes (what is
 * left out sets in->cut, which tui_input_set clears); tui_input_insert
 * returns how many bytes (made safe) were left out. */
void tui_input_init(struct tui_input *in);
void tui_input_release(struct tui_input *in);
void tui_input_set(struct tui_input *in, const char *s);
size_t tui_input_insert(struct tui_input *in, const char *s, size_t n);
void tui_input_backspace(struct tui_input *in);
void tui_input_delete(struct tui_input *in);
void tui_input_left(struct tui_input *in);
void tui_input_right(struct tui_input *in);
void tui_input_home(struct tui_input *in);
void tui_input_end(struct tui_input *in);
void tui_input_kill_end(struct tui_input *in);		/* ctrl-k */
void tui_input_kill_start(struct tui_input *in);	/* ctrl-u */
void tui_input_kill_word(struct tui_input *in);		/* ctrl-w */
/* Move one box row up (-1) or down (+1) in a box w columns wide whose first
 * row has a prefix of pw columns; 0 when already on the first/last row. */
int tui_input_vmove(struct tui_input *in, int w, int pw, int dir);
/* Rows of the input laid out in w columns with prefix pw; *crow, *ccol: the
 * cursor (may be NULL).  Hard wrap at the width, newlines start rows.  A
 * character that draws nothing (gate_hidden) is kept in buf as typed (it
 * is sent so) and takes the columns of the <U+XXXX> the frame draws for
 * it; the cursor stops on each side of it, Backspace deletes it whole. */
int tui_input_layout(const struct tui_input *in, int w, int pw, struct tui_seg *segs, int max,
		     int *crow, int *ccol);

#endif
