/*
 * gate.h — the approval gate between the model asking for a tool and the
 * tool running.
 *
 *   ceiling   --allow-tool: absent = the read-only tools only; bare = all;
 *             NAME (repeatable) = the read-only tools plus those named
 *   approval  read-only tools never ask; --approve run = an allowed tool
 *             runs every call; --approve call = ask before each write,
 *             edit and bash call: y (this call), n (refuse, optional
 *             reason), a (this and every later call to this tool)
 *
 * Pure parts (decisions, the question text, the diff) are here and unit
 * tested; the terminal asking for agent-run is gate_tty_ask().
 *
 * Life cycle: struct gate g; gate_init(&g, allowed_mask, approve_call);
 * gate_decide() per call; gate_remember_always() after an "a" answer.
 */
#ifndef SBX_GATE_H
#define SBX_GATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/turn.h"

#define GATE_MAX_SHOWN 512	/* characters of a subject or arguments shown */
#define GATE_MAX_DIFF_LINES 200	/* lines of the diff shown */
#define GATE_MAX_WHOLE (1u << 20)	/* bytes of a whole call on request (v) */
#define GATE_MAX_WHOLE_LINES 10000	/* lines of its diff */
#define GATE_MAX_DIFF_INPUT_LINES 2000000	/* old + new lines diffed at all */

enum gate_tool {
	GT_READ, GT_LS, GT_FIND, GT_GREP, GT_WRITE, GT_EDIT, GT_BASH, GT__COUNT
};

#define GATE_READONLY_MASK ((1u << GT_READ) | (1u << GT_LS) | (1u << GT_FIND) | (1u << GT_GREP))
#define GATE_ALL_MASK ((1u << GT__COUNT) - 1)

enum gate_verdict {
	GATE_RUN,	/* run it */
	GATE_ASK,	/* ask the user first */
	GATE_REFUSE,	/* not allowed by the ceiling */
};

struct gate {
	unsigned allowed;	/* bit per enum gate_tool */
	int approve_call;
	unsigned always;	/* tools answered "a" */
};

void gate_init(struct gate *g, unsigned allowed, int approve_call);

/* The tool's enum value, or -1 for an unknown name. */
int gate_tool_index(const char *name);

enum gate_verdict gate_decide(const struct gate *g, const char *tool);
void gate_remember_always(struct gate *g, const char *tool);

/* The error text sent back to the model for a refused call: it names the
 * flag that would allow it (malloc'd). */
char *gate_refusal_text(const char *tool, int by_user, const char *reason);

/*
 * Whether one message's tool calls have used its budget (tools_limits.h):
 * returned_bytes is what its calls so far sent back, elapsed_ms the time
 * they took (the user's answers not counted).  NULL while within it, else
 * the error text the next call returns instead of running (malloc'd).
 */
char *gate_message_budget(size_t returned_bytes, long elapsed_ms);

/*
 * Whether cp, standing after prev (the character before it; 0 at the
 * start), draws nothing and is therefore shown as <U+XXXX> wherever the
 * model's text reaches the screen: every character utf8_is_invisible
 * names, but one: the emoji presentation selector U+FE0F right after a
 * symbol that has an emoji form (warning sign, check mark, heart, the
 * pictographs), which only picks how that symbol is drawn.  A second
 * selector after it, one after a letter, digit or space, and the
 * zero-width joiner even inside an emoji sequence are shown.  The one
 * test for the question, the diff, the screen and agent-run's answer.
 */
int gate_hidden(uint32_t prev, uint32_t cp);

/*
 * s[0..n) with each character gate_hidden names as <U+XXXX>, every other
 * byte as it is (controls and bytes that are not UTF-8 are the terminal
 * writer's); *prev is the character before s and, after, the last one
 * of s (text that comes in pieces).  malloc'd, NUL-terminated; *len set.
 */
char *gate_show_hidden(const char *s, size_t n, uint32_t *prev, size_t *len);

/*
 * Printed JSON (json, whole) to f for a terminal: each character
 * gate_hidden names as the JSON escape \uXXXX (a surrogate pair past
 * U+FFFF), then utf8_term_write_json (the C1 and bidi controls and DEL
 * escaped too, a byte that is not UTF-8 \ufffd), so what the user sees
 * holds all of it and parses to the same text.  agent-run's --output
 * jsonl and `sandbx tool` on a terminal.
 */
void gate_term_write_json(FILE *f, const char *json);

/*
 * Make s safe to show on a terminal: control characters as \xNN (\n and
 * \t as such), the Unicode bidi controls (U+202A..E, U+2066..9, U+200E/F,
 * U+061C) and the characters that draw nothing (gate_hidden) as
 * <U+XXXX>, invalid UTF-8 as \xNN; cut at max characters with
 * "… [cut: N more bytes]".  malloc'd.
 */
char *gate_visible(const char *s, size_t max);
/* A bash command: gate_visible, and as <U+XXXX> too the characters that
 * draw as a blank but do not part words for the shell
 * (utf8_is_blank_lookalike: U+00A0, U+2000..U+200A, U+3000 and the
 * like), a combining mark drawn on an ASCII character (utf8_is_combining;
 * after a letter of another script it is drawn), and in a word that has
 * ASCII letters the letters of Greek, Cyrillic and Armenian (U+0370..
 * U+058F, U+1F00..U+1FFF), which pass for Latin ones ('p\u0430sswd'); a
 * word is a run of ASCII letters and digits, '.', '_', '-' and
 * characters that are not ASCII.  A word wholly in one script is drawn. */
char *gate_visible_command(const char *s, size_t max);
/* A call's arguments (printed JSON, any tool): gate_visible_command's
 * rules, a JSON escape (\n, \u001b) parting words, so the arguments line
 * shows what the subject line shows of the same path or command. */
char *gate_visible_args(const char *s, size_t max);
/* The same on one line: \n too as \x0a, so text of the model's printed
 * on a line of its own (stderr's notes) cannot start another line there
 * (a forged audit record). */
char *gate_visible_line(const char *s, size_t max);
/* A path as the questions name it: gate_visible_line, a tab as \x09 and
 * a backslash as \x5c, so a name spelling 'a\x0ab' is not shown as 'a<LF>b' is (as the
 * tools list names, tools_name_visible); the blank look-alikes and the
 * marks on ASCII as a command shows them ('notes.txt\u00a0' is not
 * notes.txt). */
char *gate_visible_path(const char *s, size_t max);
/* What a call is about, for the user, by its tool: bash's command
 * (gate_visible_command: it may span lines), any other tool's path
 * (gate_visible_path, one line), never a stray field of the input; ""
 * when the call has none.  The live question and row (agent.c) and a
 * resumed row (tui/replay.c) name a call by this one rule. */
char *gate_call_subject(const char *tool, const char *command, const char *path);

/*
 * A unified diff of old -> new (line based, "--- a/PATH" "+++ b/PATH",
 * hunks with 3 lines of context; a last line without its newline differs
 * from one with it and is marked "\ No newline at end of file"), cut at
 * max_lines; each line cut at max_line characters, the cut marked (0: whole).
 * old may be NULL (new file).  PATH is printed as given: the caller makes
 * it one line.  malloc'd.
 */
char *gate_diff(const char *path, const char *old, const char *new_text, size_t max_lines, size_t max_line);

/*
 * The whole of a call whose arguments or diff the question cut: args_whole
 * (made visible, uncut) and diff_whole (or NULL), cut at GATE_MAX_WHOLE
 * bytes with the rest counted.  malloc'd.
 */
char *gate_whole(const char *tool, const char *args_whole, const char *diff_whole);

/*
 * Ask on the controlling terminal (/dev/tty, never stdin): typeahead is
 * discarded before the question is drawn; y/n/a, and v to print the whole
 * call first when the question cut it; after n an optional reason line.
 * End of input or no terminal: APPROVE_ABORT.
 */
enum approval_answer gate_tty_ask(const struct approval_question *q, char **reason);

/* 1 when a terminal can be opened for asking (checked before the first
 * request when --approve call is given). */
int gate_tty_available(void);

#endif
