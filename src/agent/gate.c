/*
 * gate.c — the approval gate's decisions, the question text and the diff
 * (pure), and the terminal question of agent-run.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "agent/gate.h"
#include "tools/tools_limits.h"
#include "util/utf8.h"
#include "util/util.h"

static const char *const gate_names[GT__COUNT] = { "read", "ls", "find", "grep", "write", "edit", "bash" };

void gate_init(struct gate *g, unsigned allowed, int approve_call)
{
	g->allowed = allowed & GATE_ALL_MASK;
	g->approve_call = approve_call;
	g->always = 0;
}

int gate_tool_index(const char *name)
{
	for (int i = 0; i < GT__COUNT; i++)
		if (name && strcmp(name, gate_names[i]) == 0)
			return i;
	return -1;
}

enum gate_verdict gate_decide(const struct gate *g, const char *tool)
{
	int i = gate_tool_index(tool);
	if (i < 0 || !(g->allowed & (1u << i)))
		return GATE_REFUSE;
	if (GATE_READONLY_MASK & (1u << i))
		return GATE_RUN;
	if (!g->approve_call || (g->always & (1u << i)))
		return GATE_RUN;
	return GATE_ASK;
}

void gate_remember_always(struct gate *g, const char *tool)
{
	int i = gate_tool_index(tool);
	if (i >= 0)
		g->always |= 1u << i;
}

char *gate_message_budget(size_t returned_bytes, long elapsed_ms)
{
	if (returned_bytes >= TOOLS_MESSAGE_BYTES)
		return xasprintf("not run: the tool calls of this message already returned %u MiB, all one message's "
				 "results may hold — ask for the rest in the next message", TOOLS_MESSAGE_BYTES >> 20);
	if (elapsed_ms >= (long)TOOLS_MESSAGE_SECONDS * 1000)
		return xasprintf("not run: the tool calls of this message already took %u s, all one message's calls "
				 "may take — ask for the rest in the next message", TOOLS_MESSAGE_SECONDS);
	return NULL;
}

char *gate_refusal_text(const char *tool, int by_user, const char *reason)
{
	if (by_user)
		return xasprintf("the user refused this %s call%s%s", tool, reason && *reason ? ": " : "",
				 reason && *reason ? reason : "");
	if (gate_tool_index(tool) < 0)
		return xasprintf("there is no tool named '%s'; the tools are read, ls, find, grep, write, edit, bash", tool);
	return xasprintf("the %s tool is not allowed in this session; the user can allow it with --allow-tool %s", tool,
			 tool);
}

/* A symbol U+FE0F may draw as an emoji: Unicode's emoji-variation-sequences
 * list (the copyright and registered signs, marks, arrows, the technical
 * and geometric symbols, dingbats, U+3030, U+303D, U+3297, U+3299 and the
 * pictographs), taken a little wide over the symbol blocks.  Its keycap
 * bases, the ASCII digits, # and *, are left out: a selector after a
 * character of ASCII text is shown. */
static int emoji_base(uint32_t cp)
{
	return cp == 0x00a9 || cp == 0x00ae || cp == 0x203c || cp == 0x2049 || (cp >= 0x2100 && cp <= 0x2bff) ||
	       cp == 0x3030 || cp == 0x303d || cp == 0x3297 || cp == 0x3299 || (cp >= 0x1f000 && cp <= 0x1faff);
}

int gate_hidden(uint32_t prev, uint32_t cp)
{
	/* One selector after a symbol carries no letter and hides none:
	 * the data smuggled in variation selectors (one byte per selector)
	 * needs a run of them, and the second is shown.  The joiner is
	 * shown everywhere: between letters it makes a look-alike, and a
	 * terminal that joins emoji draws a sequence narrower than the
	 * screen counted, shifting the rest of the row. */
	return utf8_is_invisible(cp) && !(cp == 0xfe0f && emoji_base(prev));
}

/*
 * What draws nothing, in text the user approves (a command, a path, the
 * arguments, a line of the diff: approved set): gate_hidden without its
 * exception, so an emoji's U+FE0F is shown too.  Terminals disagree on
 * its width: kitty, WezTerm, iTerm2 and recent VTE draw a symbol with it
 * two columns wide, where wcwidth and so the screen count one, and each
 * such pair would push one more character of the row past the margin,
 * unseen.  In the model's prose that costs a character of a sentence; in
 * a question it could hide the end of what runs.
 */
static int hidden_in(int approved, uint32_t before, uint32_t cp)
{
	return approved ? utf8_is_invisible(cp) : gate_hidden(before, cp);
}

/* What visible() shows beyond controls and what draws nothing. */
enum {
	VIS_NEWLINE = 1,	/* \n kept as a line break */
	VIS_PATH = 2,		/* a tab and a backslash as \xNN */
	VIS_NAME = 4,		/* the rules of struct utf8_name_rules */
	VIS_JSON = 8,		/* printed JSON: an escape (\n, \u001b) parts words */
};

/*
 * The rules for text that names what runs or is written (a command, a
 * path, the arguments, a write's or edit's lines in the diff), where one
 * character read as another changes what is approved: struct
 * utf8_name_rules (util/utf8.h), which audit records keep too.  What it
 * names is shown as <U+XXXX>: a blank bash does not split at, a mark
 * drawn on an ASCII character, and in a word that has ASCII letters the
 * letters of the scripts whose letters pass for Latin ones.
 */
static char *visible(const char *str, size_t max, int how)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, shown = 0, cap = n * 4 + 64, len = 0;
	char *out = xmalloc(cap + 1);
	uint32_t prev = 0;
	struct utf8_name_rules rules;
	utf8_name_rules_init(&rules, how & VIS_JSON, str, how & VIS_NAME ? n : 0);
	while (i < n) {
		uint32_t cp = 0xfffd;
		int l = utf8_decode(s + i, n - i, &cp);
		uint32_t before = prev;
		prev = l > 0 ? cp : 0xfffd;
		if (shown >= max) {
			len += (size_t)snprintf(out + len, cap - len, "… [cut: %zu more bytes]", n - i);
			break;
		}
		int named = (how & VIS_NAME) && utf8_name_shown(&rules, s, n, i, l > 0 ? cp : 0xfffd);
		/* in a path a tab is no layout: a trailing one would name
		 * another file unseen ('notes.txt<TAB>') */
		if (l <= 0 || ((how & VIS_PATH) && (cp == '\\' || cp == '\t'))) {
			len += (size_t)snprintf(out + len, cap - len, "\\x%02x", s[i]);
			utf8_name_drawn(&rules, 1);
			i++;
		} else if ((cp == '\n' && (how & VIS_NEWLINE)) || cp == '\t') {
			out[len++] = (char)cp;
			utf8_name_drawn(&rules, 1);
			i++;
		} else if (utf8_is_unsafe(cp) || hidden_in(how & VIS_NAME, before, cp) || named) {
			if (cp < 0x80)
				len += (size_t)snprintf(out + len, cap - len, "\\x%02x", (unsigned)cp);
			else
				len += (size_t)snprintf(out + len, cap - len, "<U+%04X>", (unsigned)cp);
			utf8_name_drawn(&rules, 1);
			i += (size_t)l;
		} else {
			memcpy(out + len, s + i, (size_t)l);
			len += (size_t)l;
			utf8_name_drawn(&rules, cp < 0x80);
			i += (size_t)l;
		}
		shown++;
	}
	out[len] = '\0';
	return out;
}

char *gate_visible(const char *s, size_t max)
{
	return visible(s, max, VIS_NEWLINE);
}

char *gate_visible_command(const char *s, size_t max)
{
	return visible(s, max, VIS_NEWLINE | VIS_NAME);
}

char *gate_visible_args(const char *s, size_t max)
{
	return visible(s, max, VIS_NEWLINE | VIS_NAME | VIS_JSON);
}

char *gate_visible_line(const char *s, size_t max)
{
	return visible(s, max, 0);
}

char *gate_visible_path(const char *s, size_t max)
{
	return visible(s, max, VIS_PATH | VIS_NAME);
}

char *gate_call_subject(const char *tool, const char *command, const char *path)
{
	if (tool && strcmp(tool, "bash") == 0)
		return command ? gate_visible_command(command, GATE_MAX_SHOWN) : xstrdup("");
	return path ? gate_visible_path(path, GATE_MAX_SHOWN) : xstrdup("");
}

/* ---- diff ---------------------------------------------------------------- */

struct lines {
	const char **p;
	size_t *len;
	size_t n;
	int nonl;	/* the last line ends without a newline */
};

static void split_lines(const char *s, struct lines *l)
{
	l->p = NULL;
	l->len = NULL;
	l->n = 0;
	l->nonl = 0;
	if (!s || !*s)
		return;
	size_t cap = 16;
	l->p = xmalloc(cap * sizeof(*l->p));
	l->len = xmalloc(cap * sizeof(*l->len));
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (l->n == cap) {
			cap *= 2;
			l->p = xrealloc(l->p, cap * sizeof(*l->p));
			l->len = xrealloc(l->len, cap * sizeof(*l->len));
		}
		l->p[l->n] = s;
		l->len[l->n++] = len;
		l->nonl = !e;
		s += len + (e ? 1 : 0);
	}
}

static int last_nonl(const struct lines *l, size_t i)
{
	return l->nonl && i + 1 == l->n;
}

/* A last line without its newline differs from the same text with one:
 * the file changes, so the diff must say so. */
static int line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->p[i], b->p[j], a->len[i]) == 0 &&
	       last_nonl(a, i) == last_nonl(b, j);
}

/* An edit script entry: ' ' keep, '-' old line, '+' new line. */
struct op {
	char kind;
	size_t idx;	/* line index in old ('-', ' ') or new ('+') */
};

#define DIFF_MAX_CELLS (4u << 20)

static struct op *edit_script(const struct lines *a, const struct lines *b, size_t *nops)
{
	size_t pre = 0, suf = 0;
	while (pre < a->n && pre < b->n && line_eq(a, pre, b, pre))
		pre++;
	while (suf < a->n - pre && suf < b->n - pre && line_eq(a, a->n - 1 - suf, b, b->n - 1 - suf))
		suf++;
	size_t am = a->n - pre - suf, bm = b->n - pre - suf;
	struct op *ops = xmalloc((a->n + b->n + 1) * sizeof(*ops));
	size_t k = 0;
	for (size_t i = 0; i < pre; i++)
		ops[k++] = (struct op){ ' ', i };
	if (am && bm && (uint64_t)(am + 1) * (bm + 1) <= DIFF_MAX_CELLS) {
		/* LCS table over the differing middle. */
		uint32_t *t = xcalloc((am + 1) * (bm + 1), sizeof(uint32_t));
#define T(i, j) t[(i) * (bm + 1) + (j)]
		for (size_t i = am; i-- > 0;)
			for (size_t j = bm; j-- > 0;)
				T(i, j) = line_eq(a, pre + i, b, pre + j) ? T(i + 1, j + 1) + 1
					  : (T(i + 1, j) >= T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
		size_t i = 0, j = 0;
		while (i < am || j < bm) {
			if (i < am && j < bm && line_eq(a, pre + i, b, pre + j)) {
				ops[k++] = (struct op){ ' ', pre + i };
				i++;
				j++;
			} else if (i < am && (j == bm || T(i + 1, j) >= T(i, j + 1))) {
				ops[k++] = (struct op){ '-', pre + i };
				i++;
			} else {
				ops[k++] = (struct op){ '+', pre + j };
				j++;
			}
		}
#undef T
		free(t);
	} else {
		for (size_t i = 0; i < am; i++)
			ops[k++] = (struct op){ '-', pre + i };
		for (size_t j = 0; j < bm; j++)
			ops[k++] = (struct op){ '+', pre + j };
	}
	for (size_t i = 0; i < suf; i++)
		ops[k++] = (struct op){ ' ', a->n - suf + i };
	*nops = k;
	return ops;
}

struct sbuf {
	char *s;
	size_t len, cap;
	size_t lines;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Text of the model's (a line of the diff, the answer): each character
 * that draws nothing (gate_hidden) as <U+XXXX>, like the arguments; the
 * controls are left to the terminal writer, which shows them as ^X.
 * *prev: the character before s, then the last of s.  With rules (a line
 * of the diff), what struct utf8_name_rules shows too; the word at the end is
 * judged up to s[whole]. */
static void sb_add_visible(struct sbuf *b, const char *s, size_t n, uint32_t *prev, struct utf8_name_rules *rules,
			   size_t whole)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		uint32_t cp = u[i];
		int l = u[i] < 0x80 ? 1 : utf8_decode(u + i, n - i, &cp);
		uint32_t before = *prev;
		if (l > 0)
			*prev = cp;
		else if (l < 0)
			*prev = 0xfffd;
		int named = rules && utf8_name_shown(rules, u, whole, i, l > 0 ? cp : 0xfffd);
		if (l <= 1 || !(hidden_in(rules != NULL, before, cp) || named)) {
			/* drawn as ASCII: ASCII, a control (^X), a C1 or bidi
			 * control (<U+XXXX>), a byte that is not UTF-8 (\xNN) */
			if (rules)
				utf8_name_drawn(rules, l <= 1 || utf8_is_unsafe(cp));
			i += l > 0 ? (size_t)l : 1;
			continue;
		}
		char esc[16];
		int k = snprintf(esc, sizeof(esc), "<U+%04X>", (unsigned)cp);
		sb_add(b, s + run, i - run);
		sb_add(b, esc, (size_t)k);
		if (rules)
			utf8_name_drawn(rules, 1);
		i += (size_t)l;
		run = i;
	}
	sb_add(b, s + run, n - run);
}

char *gate_show_hidden(const char *s, size_t n, uint32_t *prev, size_t *len)
{
	struct sbuf b = { 0 };
	sb_add(&b, "", 0);
	sb_add_visible(&b, s, n, prev, NULL, n);
	*len = b.len;
	return b.s;
}

/*
 * Printed JSON for a terminal: each character that draws nothing
 * (gate_hidden: a zero-width space, tag characters, a stray selector) as
 * the JSON escape \uXXXX, a surrogate pair past U+FFFF, so what the user
 * sees holds all of the text and parses to the same.  Outside
 * its strings printed JSON is ASCII.  malloc'd.
 */
static char *json_show_hidden(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len = 0;
	char *o = xmalloc(n * 3 + 1);	/* 4 bytes become 12 at most */
	uint32_t prev = 0;
	while (i < n) {
		uint32_t cp = u[i];
		int l = u[i] < 0x80 ? 1 : utf8_decode(u + i, n - i, &cp);
		if (l <= 0) {	/* left to utf8_term_write_json */
			o[len++] = s[i++];
			prev = 0xfffd;
			continue;
		}
		if (!gate_hidden(prev, cp)) {
			memcpy(o + len, s + i, (size_t)l);
			len += (size_t)l;
		} else if (cp < 0x10000) {
			len += (size_t)sprintf(o + len, "\\u%04x", (unsigned)cp);
		} else {
			len += (size_t)sprintf(o + len, "\\u%04x\\u%04x", (unsigned)(0xd800 + ((cp - 0x10000) >> 10)),
					       (unsigned)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
		}
		prev = cp;
		i += (size_t)l;
	}
	o[len] = '\0';
	return o;
}

void gate_term_write_json(FILE *f, const char *json)
{
	char *v = json_show_hidden(json);
	utf8_term_write_json(f, v);
	free(v);
}

#define NO_EOF_NEWLINE "\\ No newline at end of file\n"

/* A line of the diff cut at max characters (0: whole), the cut marked:
 * one line of the model's may be megabytes, and printed whole it pushed
 * the question's path out of the terminal's scrollback.  The line is
 * content that runs or is read as names (a script, a config): the rules
 * of a command hold in it, after its '+', '-' or ' '. */
static void sb_add_line(struct sbuf *b, const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, shown = 0;
	while (max && i < n && shown < max) {
		uint32_t cp;
		int l = u[i] < 0x80 ? 1 : utf8_decode(u + i, n - i, &cp);
		i += l > 0 ? (size_t)l : 1;
		shown++;
	}
	uint32_t prev = 0;
	struct utf8_name_rules rules;
	utf8_name_rules_init(&rules, 0, s, n);
	if (!max || i >= n) {
		sb_add_visible(b, s, n, &prev, &rules, n);
		return;
	}
	char note[64];
	int k = snprintf(note, sizeof(note), "… [line cut: %zu more bytes]", n - i);
	sb_add_visible(b, s, i, &prev, &rules, n);
	sb_add(b, note, (size_t)k);
}

char *gate_diff(const char *path, const char *old, const char *new_text, size_t max_lines, size_t max_line)
{
	struct lines a, b;
	struct sbuf out = { 0 };
	size_t nops, ctx = 3;
	split_lines(old, &a);
	split_lines(new_text, &b);
	struct op *ops = edit_script(&a, &b, &nops);
	char head[128];
	/* the path whole: the caller's visible form of 512 characters may
	 * take 4 KiB and more (<U+200B> is 8 bytes) */
	char *names = xasprintf("--- %s\n+++ b/%s\n", old ? path : "/dev/null", path);
	sb_add(&out, names, strlen(names));
	free(names);
	int n;

	size_t k = 0;
	int cut = 0;
	while (k < nops && !cut) {
		while (k < nops && ops[k].kind == ' ')
			k++;
		if (k >= nops)
			break;
		size_t start = k >= ctx ? k - ctx : 0, end = k;
		/* extend the hunk while changes are within 2*ctx of each other */
		for (;;) {
			while (end < nops && ops[end].kind != ' ')
				end++;
			size_t run = end;
			while (run < nops && ops[run].kind == ' ' && run - end < 2 * ctx)
				run++;
			if (run < nops && ops[run].kind != ' ')
				end = run;
			else
				break;
		}
		size_t stop = end + ctx < nops ? end + ctx : nops;
		/* line numbers for the header */
		size_t ostart = 0, nstart = 0, ocount = 0, ncount = 0;
		for (size_t q = 0; q < start; q++) {
			if (ops[q].kind != '+') ostart++;
			if (ops[q].kind != '-') nstart++;
		}
		for (size_t q = start; q < stop; q++) {
			if (ops[q].kind != '+') ocount++;
			if (ops[q].kind != '-') ncount++;
		}
		n = snprintf(head, sizeof(head), "@@ -%zu,%zu +%zu,%zu @@\n", ocount ? ostart + 1 : ostart, ocount,
			     ncount ? nstart + 1 : nstart, ncount);
		sb_add(&out, head, (size_t)n);
		for (size_t q = start; q < stop; q++) {
			if (out.lines >= max_lines) {
				cut = 1;
				break;
			}
			const struct lines *src = ops[q].kind == '+' ? &b : &a;
			char kind = ops[q].kind;
			sb_add(&out, &kind, 1);
			sb_add_line(&out, src->p[ops[q].idx], src->len[ops[q].idx], max_line);
			sb_add(&out, "\n", 1);
			if (last_nonl(src, ops[q].idx))
				sb_add(&out, NO_EOF_NEWLINE, sizeof(NO_EOF_NEWLINE) - 1);
			out.lines++;
		}
		k = stop;
	}
	if (cut) {
		n = snprintf(head, sizeof(head), "… [diff cut at %zu lines]\n", max_lines);
		sb_add(&out, head, (size_t)n);
	}
	free(ops);
	free(a.p);
	free(a.len);
	free(b.p);
	free(b.len);
	return out.s;
}

char *gate_whole(const char *tool, const char *args_whole, const char *diff_whole)
{
	char *w = xasprintf("the whole %s call:\narguments: %s\n%s", tool, args_whole, diff_whole ? diff_whole : "");
	size_t n = strlen(w);
	if (n <= GATE_MAX_WHOLE)
		return w;
	size_t k = utf8_cut(w, n, GATE_MAX_WHOLE);
	char *c = xasprintf("%.*s\n… [%zu more bytes not shown: a call too long to read is one to refuse]\n", (int)k, w,
			    n - k);
	free(w);
	return c;
}

/* ---- the terminal question ---------------------------------------------- */

int gate_tty_available(void)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * While the question holds the terminal raw (no echo, not cooked), a
 * signal that ends sandbx (a kill, timeout(1), a hang-up; ctrl-c is a key
 * then, but SIGINT can still be sent) gives it back first, then ends it
 * as it would have: before, the shell was left silent and uncooked.
 */
static const int ask_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static int ask_fd = -1;
static struct termios ask_saved;
static volatile sig_atomic_t ask_raw;

static void ask_signal(int sig)
{
	if (ask_raw)
		tcsetattr(ask_fd, TCSANOW, &ask_saved);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* on: the handlers go in (old kept; an ignored signal stays ignored);
 * off: the terminal as it was, then the old handlers back, with the
 * signals held so none finds the one half done. */
static void ask_guard(int fd, const struct termios *saved, int on, struct sigaction old[SBX_ARRAY_LEN(ask_sigs)])
{
	sigset_t held, was;
	sigemptyset(&held);
	for (size_t i = 0; i < SBX_ARRAY_LEN(ask_sigs); i++)
		sigaddset(&held, ask_sigs[i]);
	sigprocmask(SIG_BLOCK, &held, &was);
	if (on) {
		struct sigaction sa = { .sa_handler = ask_signal };
		sigemptyset(&sa.sa_mask);
		ask_fd = fd;
		ask_saved = *saved;
		ask_raw = 1;
		for (size_t i = 0; i < SBX_ARRAY_LEN(ask_sigs); i++) {
			sigaction(ask_sigs[i], NULL, &old[i]);
			if (old[i].sa_handler != SIG_IGN)
				sigaction(ask_sigs[i], &sa, NULL);
		}
	} else {
		tcsetattr(fd, TCSANOW, saved);
		ask_raw = 0;
		ask_fd = -1;
		for (size_t i = 0; i < SBX_ARRAY_LEN(ask_sigs); i++)
			sigaction(ask_sigs[i], &old[i], NULL);
	}
	sigprocmask(SIG_SETMASK, &was, NULL);
}

/* s with each line after its first led by sep's indent: a bash command
 * may span lines, and none of them may stand at column 0, where the
 * question's own lines start (and stderr's records, on one terminal). */
static char *indented(const char *s, const char *sep)
{
	size_t n = 0, k = strlen(sep);
	for (const char *p = s; (p = strchr(p, '\n')); p++)
		n++;
	char *out = xmalloc(strlen(s) + n * (k - 1) + 1), *w = out;
	for (; *s; s++) {
		if (*s == '\n') {
			memcpy(w, sep, k);
			w += k;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	return out;
}

/* When the last key of a question was read (the answer, the reason's
 * Enter): a key soon after it is the flow of that typing (a second y,
 * pressed as the next question appears), not an answer to the next. */
static long ask_last_key;

enum approval_answer gate_tty_ask(const struct approval_question *q, char **reason)
{
	struct sigaction old_sigs[SBX_ARRAY_LEN(ask_sigs)];
	struct termios old, raw;
	enum approval_answer ans = APPROVE_ABORT;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	*reason = NULL;
	if (fd < 0)
		return APPROVE_ABORT;
	FILE *tty = fdopen(fd, "r+");
	if (!tty) {
		close(fd);
		return APPROVE_ABORT;
	}
	int is_term = tcgetattr(fd, &old) == 0;
	/* Keys typed before the question appeared are not an answer to it;
	 * what was still arriving then is part of a burst (turn.h). */
	struct pollfd waiting = { fd, POLLIN, 0 };
	int flushed = is_term && poll(&waiting, 1, 0) > 0 && (waiting.revents & POLLIN);
	if (is_term)
		tcflush(fd, TCIFLUSH);
	char *subject = indented(q->subject ? q->subject : "", "\n  ");
	utf8_term_printf(tty, "\nsandbx: the model asks to run %s\n  %s\n", q->tool, subject);
	free(subject);
	if (q->args && *q->args)
		utf8_term_printf(tty, "  arguments: %s\n", q->args);
	/* The diff is the model's text and the file's: its controls are made
	 * visible like the answer's, so it cannot draw over the question or
	 * make the terminal type a reply. */
	if (q->diff && *q->diff)
		utf8_term_write(tty, q->diff, strlen(q->diff), 1);
	/* A diff may be hundreds of rows (200 lines of 512 characters), the
	 * whole view thousands: the line the answer is typed on names the
	 * file, whose first mention may be out of the scrollback by then.  A
	 * write's or edit's subject is its path, one line (agent.c). */
	char *who = q->diff && *q->diff ? xasprintf("%s %s — ", q->tool, q->subject ? q->subject : "") : xstrdup("");
	utf8_term_printf(tty, "%sallow? [y] this call  [n] refuse  [a] every %s call%s: ", who, q->tool,
		q->cut && q->whole ? "  [v] see it whole (it was cut)" : "");
	fflush(tty);
	if (is_term) {
		raw = old;
		/* ISIG off too: ctrl-c is read as a byte and refuses (below),
		 * instead of a SIGINT that would end sandbx with the terminal
		 * left without echo. */
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO | ISIG);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		ask_guard(fd, &old, 1, old_sigs);
		tcsetattr(fd, TCSANOW, &raw);
	}
	long drawn = mono_ms();
	if (ask_last_key && drawn - ask_last_key < APPROVE_RECOVER_MS)
		flushed = 1;
	long quiet = drawn + (flushed ? APPROVE_RECOVER_MS : APPROVE_QUIET_MS);
	int told = 0;
	for (;;) {
		unsigned char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == 4 /* ctrl-d */ || c == 3 /* ctrl-c */ || c == 27) {
			ans = APPROVE_ABORT;
			break;
		}
		ask_last_key = mono_ms();
		/* Only a key that stands alone answers (turn.h): not a byte of a
		 * paste ("make a table" would answer a), of a reply or sequence
		 * (0x9b), nor one right after such a byte or a stray key.  What
		 * is not taken pushes the quiet on, and the user is told once. */
		long now = mono_ms();
		struct pollfd more = { fd, POLLIN, 0 };
		int answer = (c && strchr("yYaAnN", c) != NULL) || ((c == 'v' || c == 'V') && q->cut && q->whole);
		int burst = now < quiet || (poll(&more, 1, 0) > 0 && (more.revents & POLLIN));
		if (!answer || burst) {
			quiet = now + APPROVE_RECOVER_MS;
			if (answer && !told) {
				utf8_term_printf(tty, "\n  (not taken: that key came with other input or right after it — wait a "
					     "moment and press it again)\n%sallow? [y] this call  [n] refuse  [a] every %s call: ",
					who, q->tool);
				fflush(tty);
				told = 1;
			}
			continue;
		}
		if (c == 'y' || c == 'Y') { ans = APPROVE_YES; break; }
		if (c == 'a' || c == 'A') { ans = APPROVE_ALWAYS; break; }
		if (c == 'n' || c == 'N') { ans = APPROVE_NO; break; }
		if ((c == 'v' || c == 'V') && q->cut && q->whole) {
			fputs("v\n", tty);
			utf8_term_write(tty, q->whole, strlen(q->whole), 1);
			utf8_term_printf(tty, "%sallow? [y] this call  [n] refuse  [a] every %s call: ", who, q->tool);
			fflush(tty);
		}
	}
	free(who);
	if (is_term)
		ask_guard(fd, &old, 0, old_sigs);
	fprintf(tty, "%s\n", ans == APPROVE_YES ? "y" : ans == APPROVE_ALWAYS ? "a" : ans == APPROVE_NO ? "n" : "");
	if (ans == APPROVE_NO) {
		char line[1024];
		fprintf(tty, "reason for the model (Enter for none): ");
		fflush(tty);
		if (fgets(line, sizeof(line), tty)) {
			ask_last_key = mono_ms();
			line[strcspn(line, "\r\n")] = '\0';
			if (*line)
				*reason = xstrdup(line);
		} else {
			ans = APPROVE_ABORT;
		}
	}
	fclose(tty);
	return ans;
}
