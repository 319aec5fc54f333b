/*
 * model.c — the TUI's screen model (see model.h for the data and screen
 * coordinate model).  Pure: strings in, rows out.  Widths come from
 * wcwidth(), so the caller sets a UTF-8 LC_CTYPE first.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "agent/gate.h"
#include "tui/model.h"
#include "util/utf8.h"

/* ---------------------------------------------------------------- glyphs */

struct glyphs {
	const char *user, *user2, *code, *fence_open, *fence_close, *bullet, *tool, *toolout, *toolout2,
		*think, *note, *retry, *error, *qfirst, *qmid, *qlast, *ellipsis, *sep, *ok, *bad, *up;
};

static const struct glyphs utf8_glyphs = {
	"> ", "  ", "  \xe2\x94\x82 ", "  \xe2\x95\xad\xe2\x94\x80 ", "  \xe2\x95\xb0\xe2\x94\x80",
	"\xe2\x80\xa2 ", "\xe2\x97\x8f ", "  \xe2\x8e\xbf ", "    ", "  ", "\xc2\xb7 ",
	"\xe2\x86\xbb ", "\xe2\x9c\x97 ", "\xe2\x95\xad ", "\xe2\x94\x82 ", "\xe2\x95\xb0 ",
	"\xe2\x80\xa6", " \xe2\x94\x82 ", "\xe2\x9c\x93", "\xe2\x9c\x97", "\xe2\x86\x91 ",
};

static const struct glyphs ascii_glyphs = {
	"> ", "  ", "  | ", "  ,- ", "  `-", "* ", "* ", "  | ", "    ", "  ", "- ", "~ ", "x ",
	", ", "| ", "` ", "...", " | ", "ok", "x", "^ ",
};

static const struct glyphs *G(const struct tui_model *m)
{
	return m->ascii ? &ascii_glyphs : &utf8_glyphs;
}

/* ------------------------------------------------------------ UTF-8 */

/* Decode one character: its length (1..4) with *cp, 0 when s holds only a
 * valid but truncated prefix, -1 when the first byte starts no character. */

/* Width of one character of safe text (never negative). */
static int cpw(uint32_t cp)
{
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

static void sb_add(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 32;
		while (c < *len + n + 1)
			c *= 2;
		*out = xrealloc(*out, c);
		*cap = c;
	}
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
}


/* The last character of what is drawn so far (0: none yet): what a
 * selector coming next stands after, when text comes in pieces.  An
 * escape drawn ends in '>', so a selector after a shown one is shown. */
static uint32_t last_drawn(const char *out, size_t len)
{
	size_t k = len;
	uint32_t cp = 0;
	while (k > 0 && len - k < 3 && ((unsigned char)out[k - 1] & 0xc0) == 0x80)
		k--;
	if (k == 0 || utf8_decode((const unsigned char *)out + k - 1, len - k + 1, &cp) <= 0)
		return 0;
	return cp;
}

void tui_sanitize(const char *s, size_t n, char **out, size_t *len, size_t *cap, int *col)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	char tmp[16];

	if (!*out)
		sb_add(out, len, cap, "", 0);
	while (i < n) {
		uint32_t cp;
		int r = utf8_decode(p + i, n - i, &cp);
		if (r <= 0) {
			sb_add(out, len, cap, "\xef\xbf\xbd", 3);
			*col += 1;
			i += 1;
			continue;
		}
		if (cp == '\t') {
			int k = 4 - (*col % 4);
			sb_add(out, len, cap, "    ", (size_t)k);
			*col += k;
		} else if (cp < 0x20 || cp == 0x7f) {	/* \n too: ^J */
			tmp[0] = '^';
			tmp[1] = (char)(cp ^ 0x40);
			sb_add(out, len, cap, tmp, 2);
			*col += 2;
		} else if (utf8_is_unsafe(cp) ||	/* C1 or bidi: C0 and DEL above */
			   (cp >= 0x80 && gate_hidden(cp == 0xfe0f ? last_drawn(*out, *len) : 0, cp))) {
			int k = snprintf(tmp, sizeof(tmp), "<U+%04X>", (unsigned)cp);
			sb_add(out, len, cap, tmp, (size_t)k);
			*col += k;
		} else if (wcwidth((wchar_t)cp) < 0) {
			sb_add(out, len, cap, "\xef\xbf\xbd", 3);
			*col += 1;
		} else {
			sb_add(out, len, cap, s + i, (size_t)r);
			*col += wcwidth((wchar_t)cp);
		}
		i += (size_t)r;
	}
}

int tui_width(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int w = 0;
	while (i < n) {
		uint32_t cp;
		int r = utf8_decode(p + i, n - i, &cp);
		if (r <= 0) {
			w++;
			i++;
			continue;
		}
		w += cpw(cp);
		i += (size_t)r;
	}
	return w;
}

size_t tui_cut(const char *s, size_t n, int w)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int col = 0;
	while (i < n) {
		uint32_t cp;
		int r = utf8_decode(p + i, n - i, &cp);
		int cw = r <= 0 ? 1 : cpw(cp);
		if (r <= 0)
			r = 1;
		if (col + cw > w)
			break;
		col += cw;
		i += (size_t)r;
	}
	return i;
}

int tui_wrap(const char *s, size_t n, int w1, int w2, struct tui_seg *segs, int max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = 0;
	int rows = 0;

	if (w1 < 1)
		w1 = 1;
	if (w2 < 1)
		w2 = 1;
	for (;;) {
		int w = rows == 0 ? w1 : w2, col = 0, r = 1;
		size_t i = start, brk = 0, brk_end = 0;
		uint32_t cp = 0;
		while (i < n) {
			r = utf8_decode(p + i, n - i, &cp);
			if (r <= 0) {
				r = 1;
				cp = 0xfffd;
			}
			int cw = cpw(cp);
			if (col + cw > w)
				break;
			col += cw;
			i += (size_t)r;
			if (cp == ' ') {
				brk_end = i - 1;
				brk = i;
			}
		}
		size_t e, next;
		if (i >= n) {
			e = n;
			next = n;
		} else if (cp == ' ') {
			e = i;
			next = i + 1;
		} else if (brk > start && brk_end > start) {
			e = brk_end;
			next = brk;
		} else if (i == start) {
			e = i + (size_t)r;	/* one character wider than the row */
			next = e;
		} else {
			e = i;
			next = i;
		}
		if (rows < max) {
			segs[rows].start = start;
			segs[rows].end = e;
		}
		rows++;
		if (next >= n && i >= n)
			break;
		if (rows >= TUI_MAX_SEGS)
			break;
		start = next;
		if (start >= n) {
			/* a break consumed the last space: no empty row after it */
			break;
		}
	}
	return rows;
}

/* ------------------------------------------------------------ lines */

static struct tui_line *L(const struct tui_model *m, size_t i)
{
	return &m->lines[m->head + i];
}

static void line_free(struct tui_line *l)
{
	free(l->text);
	if (l->tool) {
		free(l->tool->id);
		free(l->tool->tool);
		free(l->tool->subject);
		free(l->tool);
	}
}

static void make_room(struct tui_model *m)
{
	if (m->head + m->n < m->cap)
		return;
	if (m->head > m->n) {
		memmove(m->lines, m->lines + m->head, m->n * sizeof(*m->lines));
		m->head = 0;
		return;
	}
	m->cap = m->cap ? m->cap * 2 : 64;
	m->lines = xrealloc(m->lines, m->cap * sizeof(*m->lines));
}

static struct tui_line *insert_line(struct tui_model *m, size_t at, int kind)
{
	make_room(m);
	struct tui_line *base = m->lines + m->head;
	if (at < m->n)
		memmove(base + at + 1, base + at, (m->n - at) * sizeof(*base));
	m->n++;
	struct tui_line *l = &base[at];
	memset(l, 0, sizeof(*l));
	l->kind = (uint8_t)kind;
	sb_add(&l->text, &l->len, &l->cap, "", 0);
	return l;
}

static struct tui_line *push_line(struct tui_model *m, int kind)
{
	return insert_line(m, m->n, kind);
}

static void line_set(struct tui_model *m, struct tui_line *l, const char *s)
{
	m->bytes -= l->len;
	l->len = 0;
	int col = 0;
	tui_sanitize(s, strlen(s), &l->text, &l->len, &l->cap, &col);
	m->bytes += l->len;
	l->rows_w = 0;
}

static int is_tool_kind(int k)
{
	return k == TL_TOOL || k == TL_TOOLOUT || k == TL_TOOLMORE;
}

static void blank_before(struct tui_model *m)
{
	if (m->n > 0 && L(m, m->n - 1)->kind != TL_BLANK)
		push_line(m, TL_BLANK);
}

/* What a tool row holds beside its text: counted in m->bytes too. */
static size_t tool_bytes(const struct tui_line *l)
{
	if (!l->tool)
		return 0;
	return strlen(l->tool->id) + strlen(l->tool->tool) + strlen(l->tool->subject);
}

static void enforce_caps(struct tui_model *m)
{
	while (m->n > 1 && (m->n > TUI_MAX_LINES || m->bytes > TUI_MAX_BYTES)) {
		struct tui_line *l = L(m, 0);
		m->bytes -= l->len + tool_bytes(l);
		line_free(l);
		m->head++;
		m->n--;
		m->first_seq++;
		m->dropped++;
	}
	if (!m->follow && m->top_seq < m->first_seq) {
		m->top_seq = m->first_seq;
		m->top_row = 0;
	}
}

/* ------------------------------------------------------------ streaming */

static int is_fence(const char *t)
{
	int sp = 0;
	while (*t == ' ' && sp < 4) {
		t++;
		sp++;
	}
	return sp < 4 && (strncmp(t, "```", 3) == 0 || strncmp(t, "~~~", 3) == 0);
}

/* The fence that ends a code block is its backticks or tildes alone
 * (CommonMark): a line of the block that starts with them and goes on is
 * code, drawn, or the text after them would not be drawn at all. */
static int is_fence_close(const char *t)
{
	if (!is_fence(t))
		return 0;
	while (*t == ' ')
		t++;
	const char c = *t;
	while (*t == c)
		t++;
	while (*t == ' ' || *t == '\t')
		t++;
	return *t == '\0';
}

static void stream_close(struct tui_model *m)
{
	if (!m->stream_open)
		return;
	struct tui_line *l = L(m, m->n - 1);
	if (l->kind == TL_TEXT && (l->in_code ? is_fence_close(l->text) : is_fence(l->text)))
		m->in_code = !m->in_code;
	m->stream_open = 0;
}

static void stream_end(struct tui_model *m)
{
	stream_close(m);
	m->npend = 0;
}

static struct tui_line *stream_line(struct tui_model *m, int kind)
{
	if (m->stream_open && m->stream_kind == kind)
		return L(m, m->n - 1);
	stream_close(m);
	if (m->n == 0 || L(m, m->n - 1)->kind != kind)
		blank_before(m);
	struct tui_line *l = push_line(m, kind);
	l->in_code = m->in_code;
	m->stream_open = 1;
	m->stream_kind = (uint8_t)kind;
	m->stream_col = 0;
	return l;
}

static void stream_piece(struct tui_model *m, int kind, const char *s, size_t n)
{
	while (n > 0) {
		struct tui_line *l = stream_line(m, kind);
		size_t room = l->len < TUI_MAX_LINE_BYTES ? TUI_MAX_LINE_BYTES - l->len : 0;
		size_t take = n < 1024 ? n : 1024;
		if (take > room)
			take = room;
		take = utf8_cut(s, n, take);	/* a character stays on one line */
		if (take == 0) {
			stream_close(m);	/* line full: continue on the next */
			continue;
		}
		size_t before = l->len;
		tui_sanitize(s, take, &l->text, &l->len, &l->cap, &m->stream_col);
		m->bytes += l->len - before;
		l->rows_w = 0;
		s += take;
		n -= take;
	}
}

static void stream_append(struct tui_model *m, int kind, const char *s, size_t n)
{
	char *tmp = NULL;

	if (m->stream_open && m->stream_kind != kind)
		stream_end(m);
	if (m->npend) {
		tmp = xmalloc(m->npend + n);
		memcpy(tmp, m->pend, m->npend);
		memcpy(tmp + m->npend, s, n);
		s = tmp;
		n += m->npend;
		m->npend = 0;
	}
	/* keep a character the delta split for the next delta */
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];
		if ((c & 0xc0) == 0x80)
			continue;
		if (c >= 0xc0) {
			uint32_t cp;
			if (utf8_decode((const unsigned char *)s + n - back, back, &cp) == 0) {
				memcpy(m->pend, s + n - back, back);
				m->npend = back;
				n -= back;
			}
		}
		break;
	}
	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;
		if (k > 0)
			stream_piece(m, kind, s, k);
		if (!nl)
			break;
		stream_line(m, kind);	/* an empty line is still a line */
		stream_close(m);
		/* the window's bound holds within one delta: a 4 MiB one
		 * (or a stored answer replayed) of line breaks is some
		 * 100 bytes a line laid out */
		enforce_caps(m);
		s += k + 1;
		n -= k + 1;
	}
	free(tmp);
}

/* Add text as lines of one kind (split at newlines). */
static void push_text(struct tui_model *m, int kind, const char *s)
{
	if (!s)
		s = "";
	do {
		const char *nl = strchr(s, '\n');
		size_t k = nl ? (size_t)(nl - s) : strlen(s);
		int split = k > TUI_MAX_LINE_BYTES;
		if (split)	/* split, never dropped: on a UTF-8 boundary */
			k = utf8_cut(s, k, TUI_MAX_LINE_BYTES);
		struct tui_line *l = push_line(m, kind);
		int col = 0;
		tui_sanitize(s, k, &l->text, &l->len, &l->cap, &col);
		m->bytes += l->len;
		enforce_caps(m);	/* as stream_append: within one text */
		s = split || !nl ? s + k : nl + 1;
	} while (*s);
}

/* ------------------------------------------------------------ tools */

/* A call's or a turn's time: under a second in milliseconds, as
 * prov_duration says a wait (a quick call read "0.0 s", as if it had not
 * run); then tenths, whole seconds, minutes, so a running count moves
 * evenly. */
static void fmt_elapsed(char *b, size_t n, uint64_t ms)
{
	if (ms < 1000)
		snprintf(b, n, "%u ms", (unsigned)ms);
	else if (ms < 10000)
		snprintf(b, n, "%.1f s", (double)ms / 1000.0);
	else if (ms < 60000)
		snprintf(b, n, "%u s", (unsigned)(ms / 1000));
	else
		snprintf(b, n, "%um%02us", (unsigned)(ms / 60000), (unsigned)(ms / 1000 % 60));
}

static void tool_header(struct tui_model *m, struct tui_line *l)
{
	struct tui_tool *t = l->tool;
	char el[32], *h;
	uint64_t ms = t->status == TT_RUNNING ? (m->now_ms > t->start_ms ? m->now_ms - t->start_ms : 0)
					      : t->elapsed_ms;
	fmt_elapsed(el, sizeof(el), ms);
	if (t->status == TT_ASKING || t->untimed)
		el[0] = '\0';
	const char *subj = t->subject ? t->subject : "";
	size_t cut = tui_cut(subj, strlen(subj), 160);
	/* the name is the model's too: cut like the subject, so the row
	 * stays within a line's bound */
	const char *name = t->tool ? t->tool : "tool";
	size_t ncut = tui_cut(name, strlen(name), 80);
	h = xasprintf("%.*s%s %.*s%s%s%s%s%s", (int)ncut, name, ncut < strlen(name) ? G(m)->ellipsis : "",
		      (int)cut, subj, cut < strlen(subj) ? G(m)->ellipsis : "", G(m)->sep,
		      t->status == TT_RUNNING ? "running" : t->status == TT_ASKING ? "waiting for your answer"
		      : t->status == TT_OK ? G(m)->ok : G(m)->bad, el[0] ? " " : "", el);
	line_set(m, l, h);
	free(h);
}

/* The model's strings a tool row keeps, cut (between characters) at max
 * bytes with an ellipsis after: the row shows fewer columns anyway, and a
 * row held whole what the model sent, outside the window's byte bound. */
static char *tool_str(const struct tui_model *m, const char *s, size_t max, int mark)
{
	size_t n = strlen(s);
	if (n <= max)
		return xstrdup(s);
	size_t k = utf8_cut(s, n, max);
	return xasprintf("%.*s%s", (int)k, s, mark ? G(m)->ellipsis : "");
}

static size_t find_tool(struct tui_model *m, const char *ev_id)
{
	char *id = ev_id ? tool_str(m, ev_id, TUI_MAX_TOOL_ID, 0) : NULL;
	size_t found = (size_t)-1;
	for (size_t i = m->n; i-- > 0 && found == (size_t)-1;) {
		struct tui_line *l = L(m, i);
		if (l->kind == TL_TOOL && l->tool && id && l->tool->id && strcmp(l->tool->id, id) == 0)
			found = i;
	}
	free(id);
	return found;
}

static size_t tool_call(struct tui_model *m, const struct turn_event *ev, uint64_t now)
{
	if (m->n == 0 || !is_tool_kind(L(m, m->n - 1)->kind))
		blank_before(m);
	struct tui_line *l = push_line(m, TL_TOOL);
	l->tool = xcalloc(1, sizeof(*l->tool));
	l->tool->id = tool_str(m, ev->id ? ev->id : "", TUI_MAX_TOOL_ID, 0);
	/* the name is the model's (an unknown one reaches here too): one
	 * line, held to a name's rules as the subject is ('r\u0435ad') */
	char *name = gate_visible_path(ev->tool ? ev->tool : "tool", TUI_MAX_TOOL_NAME);
	l->tool->tool = tool_str(m, name, TUI_MAX_TOOL_NAME, 1);
	free(name);
	l->tool->subject = tool_str(m, ev->subject ? ev->subject : "", TUI_MAX_TOOL_SUBJECT, 1);
	m->bytes += tool_bytes(l);
	l->tool->start_ms = now;
	tool_header(m, l);
	return m->n - 1;
}

static void tool_result(struct tui_model *m, const struct turn_event *ev, uint64_t now)
{
	size_t h = find_tool(m, ev->id);
	if (h == (size_t)-1)
		h = tool_call(m, ev, now);
	struct tui_line *hl = L(m, h);
	struct tui_tool *t = hl->tool;
	t->status = ev->is_error ? TT_ERROR : TT_OK;
	t->untimed = m->replaying;
	t->elapsed_ms = ev->elapsed_ms ? ev->elapsed_ms : (now > t->start_ms ? now - t->start_ms : 0);
	tool_header(m, hl);

	size_t at = h + 1;
	while (at < m->n && (L(m, at)->kind == TL_TOOLOUT || L(m, at)->kind == TL_TOOLMORE))
		at++;
	const char *s = ev->text ? ev->text : "";
	size_t total = strlen(s), used = 0, nlines = 0, shown = 0;
	while (total > 0 && s[total - 1] == '\n')
		total--;
	const char *end = s + total;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(end - s);
		nlines++;
		if (shown < TUI_MAX_TOOL_LINES && used + k <= TUI_MAX_TOOL_BYTES) {
			size_t cut = 0;
			if (k > TUI_MAX_LINE_BYTES) {
				/* not inside a character; room left for the mark */
				size_t kk = utf8_cut(s, k, TUI_MAX_LINE_BYTES - TUI_CUT_MARK_ROOM);
				cut = k - kk;
				k = kk;
			}
			struct tui_line *l = insert_line(m, at++, TL_TOOLOUT);
			int col = 0;
			tui_sanitize(s, k, &l->text, &l->len, &l->cap, &col);
			if (cut) {
				/* the row is a preview: it says it is cut, as the
				 * lines not shown are counted below */
				char *c = xasprintf("%s [line cut: %zu more bytes]", G(m)->ellipsis, cut);
				sb_add(&l->text, &l->len, &l->cap, c, strlen(c));
				free(c);
			}
			m->bytes += l->len;
			l->fold = (uint32_t)t->nout++;
			used += k;
			shown++;
		}
		s = nl ? nl + 1 : end;
	}
	if (nlines > TUI_TOOL_FOLD || shown < nlines) {
		char *more;
		if (shown < nlines)
			more = xasprintf("%s %zu lines, %zu shown here%s(ctrl-o shows them)", G(m)->ellipsis, nlines,
					 shown, G(m)->sep);
		else
			more = xasprintf("%s %zu more line%s (ctrl-o shows them)", G(m)->ellipsis,
					 nlines - TUI_TOOL_FOLD, nlines - TUI_TOOL_FOLD == 1 ? "" : "s");
		struct tui_line *l = insert_line(m, at, TL_TOOLMORE);
		line_set(m, l, more);
		free(more);
	}
}

/* ------------------------------------------------------------ model API */

void tui_model_init(struct tui_model *m, int w, int h, int ascii)
{
	memset(m, 0, sizeof(*m));
	m->w = w > 0 ? w : 1;
	m->h = h > 0 ? h : 1;
	m->ascii = ascii;
	m->gen = 1;
	m->follow = 1;
	tui_input_init(&m->in);
	tui_input_init(&m->reason);
}

static void question_free(struct tui_model *m)
{
	for (size_t i = 0; i < m->nq; i++)
		free(m->qtext[i]);
	free(m->qtext);
	free(m->qattr);
	free(m->qtool);
	free(m->qwhole);
	m->qwhole = NULL;
	m->qviewed = 0;
	m->qcompact = 0;
	m->qtext = NULL;
	m->qattr = NULL;
	m->qtool = NULL;
	m->nq = 0;
}

void tui_model_release(struct tui_model *m)
{
	for (size_t i = 0; i < m->n; i++)
		line_free(L(m, i));
	free(m->lines);
	tui_input_release(&m->in);
	tui_input_release(&m->reason);
	strv_free(&m->hist);
	free(m->draft);
	question_free(m);
	free(m->model);
	free(m->grants);
	free(m->net);
	free(m->tools);
	memset(m, 0, sizeof(*m));
}

void tui_model_resize(struct tui_model *m, int w, int h)
{
	m->w = w > 0 ? w : 1;
	m->h = h > 0 ? h : 1;
	m->gen++;
}

static void set_str(char **dst, const char *s)
{
	if (!s)
		return;
	free(*dst);
	char *o = NULL;
	size_t len = 0, cap = 0;
	int col = 0;
	tui_sanitize(s, strlen(s), &o, &len, &cap, &col);
	*dst = o;
}

void tui_model_set_info(struct tui_model *m, const char *model, const char *grants, const char *net,
			const char *tools)
{
	set_str(&m->model, model);
	set_str(&m->grants, grants);
	set_str(&m->net, net);
	set_str(&m->tools, tools);
}

void tui_model_user(struct tui_model *m, const char *text, uint64_t now_ms)
{
	stream_end(m);
	m->in_code = 0;
	blank_before(m);
	push_text(m, TL_USER, text);
	m->busy = 1;
	m->stopping = 0;
	/* While a turn runs the status bar shows the round in progress, as
	 * agent-run's events number it (1 while the first streams); once it
	 * is over, the rounds it kept (the session's "rounds"). */
	m->round = 1;
	m->now_ms = now_ms;
	m->turn_start_ms = now_ms;
	m->follow = 1;
	enforce_caps(m);
}

void tui_model_note(struct tui_model *m, enum tui_line_kind kind, const char *text)
{
	stream_end(m);
	push_text(m, kind, text);
	enforce_caps(m);
}

void tui_model_event(struct tui_model *m, const struct turn_event *ev, uint64_t now_ms)
{
	m->now_ms = now_ms;
	if (ev->round > 0 && ev->kind != TEV_TURN_END)
		m->round = ev->round;
	switch (ev->kind) {
	case TEV_TEXT:
	case TEV_THINKING:
		if (ev->text)
			stream_append(m, ev->kind == TEV_TEXT ? TL_TEXT : TL_THINK, ev->text,
				      ev->len ? ev->len : strlen(ev->text));
		break;
	case TEV_TOOL_CALL:
		stream_end(m);
		m->in_code = 0;
		tool_call(m, ev, now_ms);
		break;
	case TEV_TOOL_RESULT:
		stream_end(m);
		m->in_code = 0;
		tool_result(m, ev, now_ms);
		break;
	case TEV_RETRY:
		stream_end(m);
		push_text(m, TL_RETRY, ev->text);
		break;
	case TEV_NOTE:
		stream_end(m);
		push_text(m, TL_NOTE, ev->text);
		break;
	case TEV_ERROR:
		stream_end(m);
		push_text(m, TL_ERROR, ev->text);
		break;
	case TEV_ROUND_END:
		/* the next round's request goes out at once; the turn's end,
		 * if this was its last, sets the count kept */
		m->round = ev->round + 1;
		m->in_tok = ev->usage.input_tokens;
		m->out_tok = ev->usage.output_tokens;
		break;
	case TEV_TURN_END:
		stream_end(m);
		m->in_code = 0;
		m->round = ev->round;
		m->in_tok = ev->usage.input_tokens;
		m->out_tok = ev->usage.output_tokens;
		if (ev->text && strcmp(ev->text, "tool_use") == 0) {
			/* turn.h: the model stopped for tool calls and none
			 * could run (each refused unrun, said above); the bare
			 * stop reason read as if tools were still to come */
			push_text(m, TL_NOTE, "the turn ended without an answer: the model stopped to use tools and none "
					      "of its calls could run (the reasons are above) — ask again, or put the "
					      "request another way");
		} else if (ev->text && strcmp(ev->text, "end_turn") != 0) {
			char *t = xasprintf("turn ended: %s", ev->text);
			push_text(m, TL_NOTE, t);
			free(t);
		}
		break;
	default:
		break;
	}
	enforce_caps(m);
}

void tui_model_turn_done(struct tui_model *m)
{
	stream_end(m);
	m->in_code = 0;
	m->busy = 0;
	m->stopping = 0;
}

void tui_model_tick(struct tui_model *m, uint64_t now_ms)
{
	m->now_ms = now_ms;
	size_t lo = m->n > 64 ? m->n - 64 : 0;
	for (size_t i = lo; i < m->n; i++) {
		struct tui_line *l = L(m, i);
		if (l->kind == TL_TOOL && l->tool && l->tool->status == TT_RUNNING)
			tool_header(m, l);
	}
}

void tui_model_toggle_tools(struct tui_model *m)
{
	m->expand_tools = !m->expand_tools;
	m->gen++;
}

/* ------------------------------------------------------------ layout */

struct lay {
	const char *p1, *p2;	/* prefixes: first row, other rows */
	uint8_t pattr, attr;
	const char *s;
	size_t n;
	int hidden;
	char pb1[48], pb2[48];
};

static void lay_indent(char *b, size_t cap, int k, const char *tail)
{
	if (k > 16)
		k = 16;
	memset(b, ' ', (size_t)k);
	snprintf(b + k, cap - (size_t)k, "%s", tail);
}

static void line_lay(const struct tui_model *m, const struct tui_line *l, struct lay *y)
{
	const struct glyphs *g = G(m);
	memset(y, 0, sizeof(*y));
	y->p1 = y->p2 = "";
	y->s = l->text;
	y->n = l->len;
	switch (l->kind) {
	case TL_USER:
		y->p1 = g->user;
		y->p2 = g->user2;
		y->attr = y->pattr = TA_USER;
		break;
	case TL_THINK:
		y->p1 = y->p2 = g->think;
		y->attr = y->pattr = TA_DIM;
		break;
	case TL_TEXT: {
		const char *t = l->text;
		if (l->in_code) {
			if (is_fence_close(t)) {
				y->p1 = g->fence_close;
				y->s = "";
				y->n = 0;
				y->pattr = TA_DIM;
			} else {
				y->p1 = y->p2 = g->code;
				y->pattr = TA_DIM;
				y->attr = TA_CODE;
			}
			break;
		}
		if (is_fence(t)) {
			const char *lang = strpbrk(t, "`~");
			while (lang && (*lang == '`' || *lang == '~'))
				lang++;
			y->p1 = g->fence_open;
			y->pattr = y->attr = TA_DIM;
			y->s = lang ? lang : "";
			y->n = strlen(y->s);
			break;
		}
		int h = 0;
		while (t[h] == '#' && h < 7)
			h++;
		if (h >= 1 && h <= 6 && (t[h] == ' ' || t[h] == '\0')) {
			y->s = t + h + (t[h] == ' ');
			y->n = strlen(y->s);
			y->attr = TA_HEADING;
			break;
		}
		int k = 0;
		while (t[k] == ' ')
			k++;
		if ((t[k] == '-' || t[k] == '*' || t[k] == '+') && t[k + 1] == ' ') {
			lay_indent(y->pb1, sizeof(y->pb1), k, g->bullet);
			lay_indent(y->pb2, sizeof(y->pb2), k + 2, "");
			y->p1 = y->pb1;
			y->p2 = y->pb2;
			y->s = t + k + 2;
			y->n = strlen(y->s);
			break;
		}
		int d = k;
		while (t[d] >= '0' && t[d] <= '9' && d - k < 4)
			d++;
		if (d > k && (t[d] == '.' || t[d] == ')') && t[d + 1] == ' ') {
			lay_indent(y->pb2, sizeof(y->pb2), d + 2, "");
			y->p2 = y->pb2;
		}
		break;
	}
	case TL_TOOL:
		y->p1 = g->tool;
		y->p2 = "  ";
		y->attr = y->pattr = l->tool && l->tool->status == TT_ERROR ? TA_ERROR : TA_TOOL;
		break;
	case TL_TOOLOUT:
		y->hidden = !m->expand_tools && l->fold >= TUI_TOOL_FOLD;
		y->p1 = l->fold == 0 ? g->toolout : g->toolout2;
		y->p2 = g->toolout2;
		y->attr = y->pattr = TA_DIM;
		break;
	case TL_TOOLMORE:
		y->hidden = m->expand_tools && strstr(l->text, "more line") != NULL;
		y->p1 = y->p2 = g->toolout2;
		y->attr = y->pattr = TA_DIM;
		break;
	case TL_NOTE:
		y->p1 = g->note;
		y->p2 = "  ";
		y->attr = y->pattr = TA_DIM;
		break;
	case TL_RETRY:
		y->p1 = g->retry;
		y->p2 = "  ";
		y->attr = y->pattr = TA_RETRY;
		break;
	case TL_ERROR:
		y->p1 = g->error;
		y->p2 = "  ";
		y->attr = y->pattr = TA_ERROR;
		break;
	default:
		break;
	}
}

static int lay_wrap(const struct tui_model *m, const struct lay *y, struct tui_seg *segs, int max)
{
	int pw1 = tui_width(y->p1, strlen(y->p1)), pw2 = tui_width(y->p2, strlen(y->p2));
	return tui_wrap(y->s, y->n, m->w - pw1, m->w - pw2, segs, max);
}

static int line_rows(const struct tui_model *m, size_t i)
{
	struct tui_line *l = L(m, i);
	if (l->rows_w == m->w && l->rows_gen == m->gen)
		return l->nrows;
	struct lay y;
	line_lay(m, l, &y);
	l->nrows = y.hidden ? 0 : lay_wrap(m, &y, NULL, 0);
	l->rows_w = m->w;
	l->rows_gen = m->gen;
	return l->nrows;
}

static void frow_set(struct tui_frow *r, const char *p, uint8_t pattr, const char *s, size_t n, uint8_t attr)
{
	size_t pn = strlen(p);
	r->len = 0;
	sb_add(&r->buf, &r->len, &r->cap, p, pn);
	sb_add(&r->buf, &r->len, &r->cap, s, n);
	r->plen = pn;
	r->pattr = pattr;
	r->attr = attr;
}

/* Move (i, r) up by k rows; stops at the first row. */
static void move_up(const struct tui_model *m, size_t *i, int *r, int k)
{
	while (k > 0) {
		if (*r > 0) {
			int d = *r < k ? *r : k;
			*r -= d;
			k -= d;
			continue;
		}
		size_t j = *i;
		while (j > 0 && line_rows(m, j - 1) == 0)
			j--;
		if (j == 0)
			break;
		*i = j - 1;
		*r = line_rows(m, *i) - 1;
		k--;
	}
}

static void move_down(const struct tui_model *m, size_t *i, int *r, int k)
{
	while (k > 0) {
		int rem = line_rows(m, *i) - 1 - *r;
		if (rem > 0) {
			int d = rem < k ? rem : k;
			*r += d;
			k -= d;
			continue;
		}
		size_t j = *i + 1;
		while (j < m->n && line_rows(m, j) == 0)
			j++;
		if (j >= m->n)
			break;
		*i = j;
		*r = 0;
		k--;
	}
}

/* Rows from (i, r) to the end, counting at most limit. */
static int rows_from(const struct tui_model *m, size_t i, int r, int limit)
{
	int c = 0;
	for (; i < m->n && c < limit; i++, r = 0) {
		int nr = line_rows(m, i) - r;
		if (nr > 0)
			c += nr;
	}
	return c;
}

static void bottom_top(const struct tui_model *m, int T, size_t *oi, int *orow)
{
	size_t i = m->n;
	int need = T;
	*oi = 0;
	*orow = 0;
	while (i > 0 && need > 0) {
		i--;
		int r = line_rows(m, i);
		if (r >= need) {
			*oi = i;
			*orow = r - need;
			return;
		}
		need -= r;
	}
}

void tui_model_scroll(struct tui_model *m, int rows)
{
	if (m->n == 0 || rows == 0)
		return;
	size_t i;
	int r;
	if (m->follow) {
		if (rows > 0)
			return;
		bottom_top(m, m->trows, &i, &r);
	} else {
		i = m->top_seq - m->first_seq;
		r = m->top_row;
		if (i >= m->n) {
			i = m->n - 1;
			r = 0;
		}
	}
	if (rows < 0)
		move_up(m, &i, &r, -rows);
	else
		move_down(m, &i, &r, rows);
	if (rows_from(m, i, r, m->trows + 1) <= m->trows) {
		m->follow = 1;
		return;
	}
	m->follow = 0;
	m->top_seq = m->first_seq + i;
	m->top_row = r;
}

void tui_model_scroll_page(struct tui_model *m, int dir)
{
	int k = m->trows > 2 ? m->trows - 1 : 1;
	tui_model_scroll(m, dir < 0 ? -k : k);
}

static void fill_transcript(struct tui_model *m, struct tui_frame *f, int T)
{
	static struct tui_seg segs[TUI_MAX_SEGS];
	size_t i;
	int r, y = 0;

	m->trows = T;
	if (T <= 0 || m->n == 0)
		return;
	if (!m->follow) {
		i = m->top_seq - m->first_seq;
		r = m->top_row;
		if (i >= m->n || rows_from(m, i, r, T + 1) <= T)
			m->follow = 1;
		else if (r >= line_rows(m, i))
			r = 0;
	}
	if (m->follow)
		bottom_top(m, T, &i, &r);
	for (; i < m->n && y < T; i++, r = 0) {
		struct lay ly;
		line_lay(m, L(m, i), &ly);
		if (ly.hidden)
			continue;
		int nr = lay_wrap(m, &ly, segs, TUI_MAX_SEGS);
		if (nr > TUI_MAX_SEGS)
			nr = TUI_MAX_SEGS;
		for (; r < nr && y < T; r++, y++)
			frow_set(&f->rows[y], r == 0 ? ly.p1 : ly.p2, ly.pattr, ly.s + segs[r].start,
				 segs[r].end - segs[r].start, ly.attr);
	}
}

/* Question rows, wrapped: fills rows[] up to max, returns the count. */
struct qrow {
	const char *p, *s;
	size_t n;
	uint8_t attr;
};

static const char *qline_text(const struct tui_model *m, size_t k, char **tmp)
{
	if (k == m->nq - 1 && m->q == TQ_REASON) {
		*tmp = xstrdup("n: type a reason for the model (Enter sends, empty for none; esc refuses and stops)");
		return *tmp;
	}
	return m->qtext[k];
}

/* The question's rows (into rows, up to max); *last (may be NULL) gets how
 * many of them the last line takes: the answer keys, or the reason. */
static int question_rows(const struct tui_model *m, struct qrow *rows, int max, char **tmp, int *last)
{
	static struct tui_seg segs[TUI_MAX_SEGS];
	const struct glyphs *g = G(m);
	int c = 0;
	for (size_t k = 0; k < m->nq; k++) {
		if (m->qcompact && k != 0 && k + 1 != m->nq)
			continue;
		const char *s = qline_text(m, k, tmp);
		const char *p1 = k == 0 ? g->qfirst : k == m->nq - 1 ? g->qlast : g->qmid;
		int pw = tui_width(p1, strlen(p1));
		int nr = tui_wrap(s, strlen(s), m->w - pw, m->w - pw, segs, TUI_MAX_SEGS);
		if (nr > TUI_MAX_SEGS)
			nr = TUI_MAX_SEGS;
		if (last && k + 1 == m->nq)
			*last = nr;
		for (int r = 0; r < nr; r++, c++) {
			if (c < max) {
				rows[c].p = r == 0 ? p1 : k == m->nq - 1 ? "  " : g->qmid;
				rows[c].s = s + segs[r].start;
				rows[c].n = segs[r].end - segs[r].start;
				rows[c].attr = m->qattr[k];
			}
		}
	}
	return c;
}

static int input_rows_shown(const struct tui_model *m, int nrows)
{
	int max = m->h / 3;
	if (max > TUI_INPUT_MAX_ROWS)
		max = TUI_INPUT_MAX_ROWS;
	if (max < 1)
		max = 1;
	return nrows < max ? nrows : max;
}

/* Rows left for the question and the transcript. */
static int avail_rows(const struct tui_model *m, int in_rows)
{
	int a = m->h - 1 - in_rows;
	return a > 0 ? a : 0;
}

static int editor_rows(const struct tui_model *m)
{
	if (m->q == TQ_ASK)
		return 0;
	const struct tui_input *in = m->q == TQ_REASON ? &m->reason : &m->in;
	int pw = m->q == TQ_REASON ? 8 : 2;
	return input_rows_shown(m, tui_input_layout(in, m->w, pw, NULL, 0, NULL, NULL));
}

int tui_model_question_fits(struct tui_model *m)
{
	if (m->q == TQ_NONE)
		return 1;
	/* the first row must hold the tool's name whole: narrower, a row is
	 * its glyph and a character or less (none at all in 2 columns) */
	const char *qf = G(m)->qfirst;
	if (m->w - tui_width(qf, strlen(qf)) < tui_width(m->qtool, strlen(m->qtool)))
		return 0;
	char *tmp = NULL;
	int last = 1;
	int Q = question_rows(m, NULL, 0, &tmp, &last);
	free(tmp);
	int a = avail_rows(m, editor_rows(m));
	/* cut: the first row, a "..." row and all of the last line */
	return Q <= a || a >= last + 2;
}

static void human(char *b, size_t n, uint64_t v)
{
	if (v < 1000)
		snprintf(b, n, "%u", (unsigned)v);
	else if (v < 1000000)
		snprintf(b, n, "%.1fk", (double)v / 1e3);
	else
		snprintf(b, n, "%.1fM", (double)v / 1e6);
}

static void status_row(struct tui_model *m, struct tui_frow *r)
{
	const struct glyphs *g = G(m);
	char in[32], out[32], el[32], *state, *s;
	human(in, sizeof(in), m->in_tok);
	human(out, sizeof(out), m->out_tok);
	fmt_elapsed(el, sizeof(el), m->now_ms > m->turn_start_ms ? m->now_ms - m->turn_start_ms : 0);
	if (m->q != TQ_NONE)
		state = xstrdup("approve?");
	else if (m->busy)
		state = xasprintf("working %s (esc stops)", el);
	else
		state = xstrdup("ready");
	s = xasprintf(" %s%s%s%s%s%s%sround %d%sin %s out %s%s%s%snet %s%stools %s ", m->follow ? "" : g->up,
		      m->follow ? "" : "scrolled (PgDn)", m->follow ? "" : g->sep, state, g->sep,
		      m->model ? m->model : "", m->model ? g->sep : "", m->round, g->sep, in, out, g->sep,
		      m->grants ? m->grants : "", m->grants ? g->sep : "", m->net ? m->net : "none", g->sep,
		      m->tools ? m->tools : "");
	/* status fields are sanitized when set; state/numbers are ours */
	size_t cut = tui_cut(s, strlen(s), m->w);
	int w = tui_width(s, cut);
	frow_set(r, "", TA_STATUS, s, cut, TA_STATUS);
	for (; w < m->w; w++)
		sb_add(&r->buf, &r->len, &r->cap, " ", 1);
	free(state);
	free(s);
}

void tui_frame_release(struct tui_frame *f)
{
	if (f->rows)
		for (int i = 0; i < f->h; i++)
			free(f->rows[i].buf);
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

static int input_layout_from(const struct tui_input *in, int w, int pw, int first, struct tui_seg *segs, int max,
			     int *crow, int *ccol);
static char *box_shown(const char *s, size_t a, size_t b, size_t *n);

void tui_model_frame(struct tui_model *m, struct tui_frame *f)
{
	static struct tui_seg segs[TUI_MAX_SEGS];
	if (f->w != m->w || f->h != m->h || !f->rows) {
		tui_frame_release(f);
		f->w = m->w;
		f->h = m->h;
		f->rows = xcalloc((size_t)m->h, sizeof(*f->rows));
	}
	for (int i = 0; i < f->h; i++) {
		frow_set(&f->rows[i], "", TA_NORMAL, "", 0, TA_NORMAL);
	}
	int H = m->h;

	/* the editor: input box, or the reason of a refusal */
	const struct tui_input *ed = m->q == TQ_REASON ? &m->reason : &m->in;
	const char *ep1 = m->q == TQ_REASON ? "reason> " : G(m)->user;
	int pw = m->q == TQ_REASON ? 8 : 2;
	int crow = 0, ccol = 0;
	int nin = 0, shown_in = 0, off = 0;
	if (m->q != TQ_ASK) {
		/* the rows shown only: a box may have more than segs holds
		 * (before, rows past them were read from beyond it) */
		nin = tui_input_layout(ed, m->w, pw, NULL, 0, &crow, &ccol);
		shown_in = input_rows_shown(m, nin);
		if (shown_in > H - 1)
			shown_in = H - 1 > 0 ? H - 1 : 0;
		if (crow >= shown_in)
			off = crow - shown_in + 1;
		input_layout_from(ed, m->w, pw, off, segs, shown_in, NULL, NULL);
	}
	int A = avail_rows(m, shown_in);

	/* the question */
	struct qrow *qr = NULL;
	int Q = 0, shownQ = 0, lastQ = 1;
	char *tmp = NULL;
	if (m->q != TQ_NONE) {
		Q = question_rows(m, NULL, 0, &tmp, &lastQ);
		free(tmp);
		tmp = NULL;
		qr = xcalloc((size_t)Q + 1, sizeof(*qr));
		question_rows(m, qr, Q, &tmp, NULL);
		shownQ = Q <= A ? Q : A;
	}
	int T = A - shownQ;
	fill_transcript(m, f, T);

	int y = T;
	if (Q > 0 && shownQ > 0) {
		if (Q <= A) {
			for (int k = 0; k < Q; k++, y++)
				frow_set(&f->rows[y], qr[k].p, TA_QUESTION, qr[k].s, qr[k].n, qr[k].attr);
		} else if (A >= lastQ + 2) {
			/* the first rows (the tool, what it runs), "...", and at
			 * least all of the last line (the answer keys) */
			int tail = A - 1 - A / 2;
			if (tail < lastQ)
				tail = lastQ;
			int head = A - 1 - tail;
			for (int k = 0; k < head; k++, y++)
				frow_set(&f->rows[y], qr[k].p, TA_QUESTION, qr[k].s, qr[k].n, qr[k].attr);
			frow_set(&f->rows[y++], G(m)->qmid, TA_QUESTION, G(m)->ellipsis, strlen(G(m)->ellipsis),
				 TA_DIM);
			for (int k = Q - tail; k < Q; k++, y++)
				frow_set(&f->rows[y], qr[k].p, TA_QUESTION, qr[k].s, qr[k].n, qr[k].attr);
		} else {
			for (int k = Q - shownQ; k < Q; k++, y++)
				frow_set(&f->rows[y], qr[k].p, TA_QUESTION, qr[k].s, qr[k].n, qr[k].attr);
		}
	}
	free(qr);
	free(tmp);

	if (m->q == TQ_ASK) {
		f->cy = y > 0 ? y - 1 : 0;
		f->cx = f->rows[f->cy].len ? tui_width(f->rows[f->cy].buf, f->rows[f->cy].len) : 0;
		if (f->cx >= m->w)
			f->cx = m->w - 1;
	} else {
		for (int k = 0; k < shown_in && y < H; k++, y++) {
			int rr = k + off;
			uint8_t at = m->q == TQ_REASON ? TA_QUESTION : TA_USER;
			const char *p = rr == 0 ? ep1 : (m->q == TQ_REASON ? "        " : G(m)->user2);
			if (ed->len == 0 && m->q == TQ_NONE && rr == 0) {
				const char *hint = m->busy ? "" : "type a prompt; Enter sends, alt-Enter or ctrl-j a new line, ctrl-d quits";
				size_t hc = tui_cut(hint, strlen(hint), m->w - pw);
				frow_set(&f->rows[y], p, at, hint, hc, TA_DIM);
			} else {
				size_t sn;
				char *shown = box_shown(ed->buf, segs[k].start, segs[k].end, &sn);
				frow_set(&f->rows[y], p, at, shown, sn, TA_NORMAL);
				free(shown);
			}
		}
		f->cy = T + shownQ + (crow - off);
		f->cx = pw + ccol;
		if (f->cx >= m->w)
			f->cx = m->w - 1;
	}
	if (H >= 2 || shown_in == 0)
		status_row(m, &f->rows[H - 1]);
	/* a row wider than the pane (a prefix wider than a narrow pane, a
	 * wide character in one column) would go on in the terminal over the
	 * row under it, which is not redrawn when it did not change */
	for (int i = 0; i < H; i++) {
		struct tui_frow *r = &f->rows[i];
		if (r->len > (size_t)m->w && tui_width(r->buf, r->len) > m->w) {
			r->len = tui_cut(r->buf, r->len, m->w);
			r->buf[r->len] = '\0';
			if (r->plen > r->len)
				r->plen = r->len;
		}
	}
	if (f->cy >= H)
		f->cy = H - 1;
	if (f->cy < 0)
		f->cy = 0;
}

/* ------------------------------------------------------------ question */

static void tool_asking(struct tui_model *m, const char *tool, int asking);

void tui_model_question(struct tui_model *m, const struct approval_question *q)
{
	question_free(m);
	struct strv lines = { 0 };
	uint8_t *attr = xmalloc(TUI_MAX_QUESTION_LINES + 3);
	size_t na = 0;
	char *t;

	t = xasprintf("%s wants to run: %s", q->tool ? q->tool : "tool", q->subject ? q->subject : "");
	strv_push_own(&lines, t);
	attr[na++] = TA_QUESTION;
	if (q->args && *q->args) {
		t = xasprintf("arguments: %s", q->args);
		strv_push_own(&lines, t);
		attr[na++] = TA_NORMAL;
	}
	const char *d = q->diff;
	while (d && *d && na < TUI_MAX_QUESTION_LINES) {
		const char *nl = strchr(d, '\n');
		size_t k = nl ? (size_t)(nl - d) : strlen(d);
		strv_push_own(&lines, xstrndup(d, k));
		attr[na++] = *d == '+' ? TA_ADD : *d == '-' ? TA_DEL : *d == '@' ? TA_DIM : TA_NORMAL;
		d = nl ? nl + 1 : d + k;
	}
	if (d && *d) {
		strv_push(&lines, "(the diff is longer; the rest is not shown)");
		attr[na++] = TA_DIM;
	}
	t = xasprintf("y yes, n no + reason, a always allow %s,%s esc refuses and stops", q->tool ? q->tool : "it",
		      q->whole ? " v view all," : "");
	strv_push_own(&lines, t);
	attr[na++] = TA_QUESTION;

	m->qtext = xcalloc(lines.n, sizeof(char *));
	for (size_t i = 0; i < lines.n; i++) {
		char *o = NULL;
		size_t len = 0, cap = 0;
		int col = 0;
		tui_sanitize(lines.v[i], strlen(lines.v[i]), &o, &len, &cap, &col);
		m->qtext[i] = o;
	}
	m->nq = lines.n;
	m->qattr = attr;
	m->qtool = xstrdup(q->tool ? q->tool : "");
	/* v shows it in the transcript, cut or not: also what a pane too
	 * small for the question leaves out between its first and last rows. */
	m->qwhole = q->whole ? xstrdup(q->whole) : NULL;
	strv_free(&lines);
	m->q = TQ_ASK;
	tui_input_set(&m->reason, "");
	tool_asking(m, q->tool, 1);
}

/* The newest tool row of this tool still running shows it waits for the
 * user (and runs again after the answer). */
static void tool_asking(struct tui_model *m, const char *tool, int asking)
{
	for (size_t i = m->n; i-- > 0 && i + 64 > m->n;) {
		struct tui_line *l = L(m, i);
		if (l->kind != TL_TOOL || !l->tool)
			continue;
		if (asking && l->tool->status == TT_RUNNING && tool && strcmp(l->tool->tool, tool) == 0) {
			l->tool->status = TT_ASKING;
			tool_header(m, l);
			return;
		}
		if (!asking && l->tool->status == TT_ASKING) {
			l->tool->status = TT_RUNNING;
			l->tool->start_ms = m->now_ms;
			tool_header(m, l);
			return;
		}
	}
}

void tui_model_question_end(struct tui_model *m)
{
	tool_asking(m, NULL, 0);
	question_free(m);
	m->q = TQ_NONE;
	tui_input_set(&m->reason, "");
}

/* Ended under the user's keys: an Enter in the flow of typing that follows
 * (keys.c) does not send what those keys left in the prompt box. */
static void question_lost(struct tui_model *m, uint64_t now_ms, const char *why)
{
	tui_model_question_end(m);
	tui_model_note(m, TL_ERROR, why);
	m->squiet = now_ms + APPROVE_RECOVER_MS;
	m->stold = 0;
}

void tui_model_question_lost(struct tui_model *m, uint64_t now_ms)
{
	question_lost(m, now_ms, "the pane became too small to show the approval question: the call is refused "
				 "and the turn ends");
}

int tui_model_question_arrived(struct tui_model *m, const struct approval_question *q, uint64_t now_ms)
{
	tui_model_question(m, q);
	if (tui_model_question_fits(m))
		return 1;
	question_lost(m, now_ms, "the pane is too small to show the approval question: the call is refused and "
				 "the turn ends — enlarge the terminal");
	return 0;
}

/* ------------------------------------------------------------ transcript */

/*
 * The transcript for a terminal that is not UTF-8 (ascii mode): each
 * character in the locale's charset, '?' where it has none.  Printed as
 * UTF-8 there, every byte is a character of its own, and the second byte
 * of U+00C0..U+00DF (or of U+0100..) is 0x80..0x9F: a C1 control in an
 * 8-bit terminal (Û is C3 9B, CSI; Ý and Ü are OSC and ST, an OSC 52
 * clipboard write).  A character the charset spells as one byte in that
 * range is a '?' too.  The screen itself is drawn by ncurses, which does
 * this conversion by itself.
 */
static char *to_locale(char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, len = 0, cap = 0;
	char *o = NULL, mb[MB_LEN_MAX];
	sb_add(&o, &len, &cap, "", 0);
	while (i < n) {
		uint32_t cp;
		int r = utf8_decode(p + i, n - i, &cp);
		if (r <= 0) {
			r = 1;
			cp = 0xfffd;
		}
		if (cp < 0x80) {
			sb_add(&o, &len, &cap, s + i, 1);
		} else {
			size_t k = utf8_to_charset(cp, mb);
			if (k)
				sb_add(&o, &len, &cap, mb, k);
			else
				sb_add(&o, &len, &cap, "?", 1);
		}
		i += (size_t)r;
	}
	free(s);
	return o;
}

char *tui_model_transcript(const struct tui_model *m)
{
	char *o = NULL;
	size_t len = 0, cap = 0;
	sb_add(&o, &len, &cap, "", 0);
	if (m->dropped) {
		char *t = xasprintf("%s %llu earlier lines are not kept on screen\n", G(m)->ellipsis,
				    (unsigned long long)m->dropped);
		sb_add(&o, &len, &cap, t, strlen(t));
		free(t);
	}
	for (size_t i = 0; i < m->n; i++) {
		struct tui_line *l = L(m, i);
		struct lay y;
		if (l->kind == TL_TOOLMORE && strstr(l->text, "more line"))
			continue;
		line_lay(m, l, &y);
		sb_add(&o, &len, &cap, y.p1, strlen(y.p1));
		sb_add(&o, &len, &cap, y.s, y.n);
		sb_add(&o, &len, &cap, "\n", 1);
	}
	return m->ascii ? to_locale(o) : o;
}

/* ------------------------------------------------------------ history */

void tui_model_history_push(struct tui_model *m, const char *text)
{
	if (!*text || (m->hist.n && strcmp(m->hist.v[m->hist.n - 1], text) == 0)) {
		m->hpos = m->hist.n;
		return;
	}
	if (m->hist.n >= TUI_MAX_HISTORY) {
		free(m->hist.v[0]);
		memmove(m->hist.v, m->hist.v + 1, (m->hist.n - 1) * sizeof(char *));
		m->hist.n--;
		m->hist.v[m->hist.n] = NULL;
	}
	strv_push(&m->hist, text);
	m->hpos = m->hist.n;
	free(m->draft);
	m->draft = NULL;
}

int tui_model_history(struct tui_model *m, int dir)
{
	if (dir < 0) {
		if (m->hpos == 0 || m->hist.n == 0)
			return 0;
		if (m->hpos >= m->hist.n) {
			free(m->draft);
			m->draft = xstrdup(m->in.buf);
			m->hpos = m->hist.n;
		}
		m->hpos--;
		tui_input_set(&m->in, m->hist.v[m->hpos]);
		return 1;
	}
	if (m->hpos >= m->hist.n)
		return 0;
	m->hpos++;
	tui_input_set(&m->in, m->hpos == m->hist.n ? (m->draft ? m->draft : "") : m->hist.v[m->hpos]);
	return 1;
}

/* ------------------------------------------------------------ input box */

void tui_input_init(struct tui_input *in)
{
	memset(in, 0, sizeof(*in));
	in->cap = 64;
	in->buf = xmalloc(in->cap);
	in->buf[0] = '\0';
}

void tui_input_release(struct tui_input *in)
{
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

void tui_input_set(struct tui_input *in, const char *s)
{
	in->len = 0;
	in->cur = 0;
	in->buf[0] = '\0';
	in->cut = 0;
	tui_input_insert(in, s, strlen(s));
}

/* The box keeps what is typed or pasted byte for byte: it is what is
 * sent, and a tab, a control or a bidi control is the user's text (a
 * Makefile's tabs) as much as a letter; the box shows them (box_draw).
 * Bytes that are not UTF-8 become U+FFFD each, as they are drawn; a NUL
 * is left out (the prompt is a C string, and it would cut it).  The
 * result is malloc'd, *len its length. */
static char *box_text(const char *s, size_t n, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = NULL;
	size_t i = 0, run = 0, cap = 0;
	*len = 0;
	sb_add(&o, len, &cap, "", 0);
	while (i < n) {
		uint32_t cp;
		int r = utf8_decode(p + i, n - i, &cp);
		if (r > 0 && cp != 0) {
			i += (size_t)r;
			continue;
		}
		sb_add(&o, len, &cap, s + run, i - run);
		if (r <= 0)
			sb_add(&o, len, &cap, "\xef\xbf\xbd", 3);
		run = ++i;
	}
	sb_add(&o, len, &cap, s + run, n - run);
	return o;
}

size_t tui_input_insert(struct tui_input *in, const char *s, size_t n)
{
	size_t sl, whole;
	char *safe = box_text(s, n, &sl);
	whole = sl;
	if (in->len + sl > TUI_MAX_INPUT) {
		sl = utf8_cut(safe, sl, TUI_MAX_INPUT - in->len);
		in->cut = 1;
	}
	if (in->len + sl + 1 > in->cap) {
		while (in->len + sl + 1 > in->cap)
			in->cap *= 2;
		in->buf = xrealloc(in->buf, in->cap);
	}
	memmove(in->buf + in->cur + sl, in->buf + in->cur, in->len - in->cur + 1);
	memcpy(in->buf + in->cur, safe, sl);
	in->len += sl;
	in->cur += sl;
	free(safe);
	return whole - sl;
}

static void input_del(struct tui_input *in, size_t a, size_t b)
{
	if (b <= a)
		return;
	memmove(in->buf + a, in->buf + b, in->len - b + 1);
	in->len -= b - a;
	if (in->cur >= b)
		in->cur -= b - a;
	else if (in->cur > a)
		in->cur = a;
}

static size_t prev_cp(const char *s, size_t i)
{
	if (i == 0)
		return 0;
	i--;
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

static size_t next_cp(const char *s, size_t len, size_t i)
{
	if (i >= len)
		return len;
	i++;
	while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	return i;
}

/* Tab stops in the box: every 4 columns from its row's start, as the
 * transcript draws a tab. */
#define BOX_TAB 4

/* The box keeps the user's text as typed (it is what is sent, box_text);
 * it draws the character cp at s[i], at column col of its row, as its
 * columns (returned) and, when *alt is not 0, the *alt bytes of tmp
 * drawn instead of it:
 *   a tab: spaces to the next tab stop;
 *   a control (C0 but the line break, DEL): ^X;
 *   a C1 control, a bidi control, a character that draws nothing
 *   (gate_hidden, after the one before it): <U+XXXX>, so a paste cannot
 *   carry text the user does not see (tag characters, zero-width
 *   spaces: words to the model in the user's name) or turn the row's
 *   text around;
 *   a character with no width (wcwidth < 0, unassigned): U+FFFD. */
static int box_draw(const char *s, size_t i, uint32_t cp, int col, char tmp[16], size_t *alt)
{
	uint32_t prev = 0;
	*alt = 0;
	if (cp == '\t') {
		int k = BOX_TAB - col % BOX_TAB;
		memcpy(tmp, "    ", BOX_TAB);
		*alt = (size_t)k;
		return k;
	}
	if (cp < 0x20 || cp == 0x7f) {
		tmp[0] = '^';
		tmp[1] = (char)(cp ^ 0x40);
		*alt = 2;
		return 2;
	}
	if (cp < 0x80)
		return 1;
	if (cp == 0xfe0f && i > 0) {
		size_t k = prev_cp(s, i);
		if (utf8_decode((const unsigned char *)s + k, i - k, &prev) <= 0)
			prev = 0;
	}
	if (utf8_is_unsafe(cp) || gate_hidden(prev, cp)) {
		int k = snprintf(tmp, 16, "<U+%04X>", (unsigned)cp);
		*alt = (size_t)k;
		return k;
	}
	if (wcwidth((wchar_t)cp) < 0) {
		memcpy(tmp, "\xef\xbf\xbd", 3);
		*alt = 3;
		return 1;
	}
	return wcwidth((wchar_t)cp);
}

/* Columns of the box's character cp at s[i], at column col, as drawn. */
static int box_cpw(const char *s, size_t i, uint32_t cp, int col)
{
	char tmp[16];
	size_t alt;
	return box_draw(s, i, cp, col, tmp, &alt);
}

/* Columns of the box's row s[a..b), as drawn. */
static int box_width(const char *s, size_t a, size_t b)
{
	int w = 0;
	while (a < b) {
		uint32_t cp;
		int r = utf8_decode((const unsigned char *)s + a, b - a, &cp);
		w += r <= 0 ? 1 : box_cpw(s, a, cp, w);
		a += r <= 0 ? 1 : (size_t)r;
	}
	return w;
}

/* The box's row s[a..b) as drawn (box_draw).  malloc'd; *n its length. */
static char *box_shown(const char *s, size_t a, size_t b, size_t *n)
{
	char *o = NULL, tmp[16];
	size_t len = 0, cap = 0, run = a;
	int col = 0;
	sb_add(&o, &len, &cap, "", 0);
	while (a < b) {
		uint32_t cp;
		size_t alt = 3;
		int r = utf8_decode((const unsigned char *)s + a, b - a, &cp), w = 1;
		if (r > 0) {
			w = box_draw(s, a, cp, col, tmp, &alt);
		} else {	/* none in the box (box_text): drawn as it would be */
			memcpy(tmp, "\xef\xbf\xbd", 3);
			r = 1;
		}
		if (alt) {
			sb_add(&o, &len, &cap, s + run, a - run);
			sb_add(&o, &len, &cap, tmp, alt);
			run = a + (size_t)r;
		}
		col += w;
		a += (size_t)r;
	}
	sb_add(&o, &len, &cap, s + run, b - run);
	*n = len;
	return o;
}

/* A character drawn on the one before it (a combining mark, the emoji
 * selector after a symbol): the cursor steps over the two at once.  One
 * shown as <U+XXXX> has columns of its own. */
static int zero_width_at(const char *s, size_t len, size_t i)
{
	uint32_t cp;
	if (i >= len)
		return 0;
	if (utf8_decode((const unsigned char *)s + i, len - i, &cp) <= 0)
		return 0;
	return cp != '\n' && box_cpw(s, i, cp, 0) == 0;
}

void tui_input_backspace(struct tui_input *in)
{
	input_del(in, prev_cp(in->buf, in->cur), in->cur);
}

void tui_input_delete(struct tui_input *in)
{
	size_t e = next_cp(in->buf, in->len, in->cur);
	while (zero_width_at(in->buf, in->len, e))
		e = next_cp(in->buf, in->len, e);
	input_del(in, in->cur, e);
}

void tui_input_left(struct tui_input *in)
{
	in->cur = prev_cp(in->buf, in->cur);
	while (in->cur > 0 && zero_width_at(in->buf, in->len, in->cur))
		in->cur = prev_cp(in->buf, in->cur);
}

void tui_input_right(struct tui_input *in)
{
	in->cur = next_cp(in->buf, in->len, in->cur);
	while (zero_width_at(in->buf, in->len, in->cur))
		in->cur = next_cp(in->buf, in->len, in->cur);
}

static size_t line_start(const struct tui_input *in, size_t i)
{
	while (i > 0 && in->buf[i - 1] != '\n')
		i--;
	return i;
}

static size_t line_end(const struct tui_input *in, size_t i)
{
	while (i < in->len && in->buf[i] != '\n')
		i++;
	return i;
}

void tui_input_home(struct tui_input *in)
{
	in->cur = line_start(in, in->cur);
}

void tui_input_end(struct tui_input *in)
{
	in->cur = line_end(in, in->cur);
}

void tui_input_kill_end(struct tui_input *in)
{
	size_t e = line_end(in, in->cur);
	if (e == in->cur && e < in->len)
		e++;	/* at the end of a line: join the next */
	input_del(in, in->cur, e);
}

void tui_input_kill_start(struct tui_input *in)
{
	input_del(in, line_start(in, in->cur), in->cur);
}

void tui_input_kill_word(struct tui_input *in)
{
	size_t i = in->cur;
	/* a tab parts words as a space does */
	while (i > 0 && (in->buf[i - 1] == ' ' || in->buf[i - 1] == '\t'))
		i--;
	while (i > 0 && in->buf[i - 1] != ' ' && in->buf[i - 1] != '\t' && in->buf[i - 1] != '\n')
		i--;
	input_del(in, i, in->cur);
}

/* tui_input_layout, keeping the segments of rows first.. only (the frame
 * shows a few rows around the cursor of a box that may have thousands);
 * without crow and ccol it stops after them. */
static int input_layout_from(const struct tui_input *in, int w, int pw, int first, struct tui_seg *segs, int max,
			     int *crow, int *ccol)
{
	const unsigned char *p = (const unsigned char *)in->buf;
	int avail = w - pw > 0 ? w - pw : 1;
	size_t i = 0, rs = 0;
	int col = 0, rows = 0, cr = 0;
	size_t crs = 0;

#define EMIT(a, b) do { \
		if (rows >= first && rows - first < max) { \
			segs[rows - first].start = (a); segs[rows - first].end = (b); } \
		if ((a) <= in->cur) { cr = rows; crs = (a); } \
		rows++; } while (0)

	while (i < in->len) {
		/* only the rows asked for: the rest is not laid out */
		if (max && !crow && !ccol && rows >= first + max)
			return rows;
		if (p[i] == '\n') {
			EMIT(rs, i);
			i++;
			rs = i;
			col = 0;
			continue;
		}
		uint32_t cp;
		int r = utf8_decode(p + i, in->len - i, &cp);
		if (r <= 0) {
			r = 1;
			cp = 0xfffd;
		}
		int cw = box_cpw(in->buf, i, cp, col);
		if (col + cw > avail && col > 0) {
			EMIT(rs, i);
			rs = i;
			col = 0;
			continue;
		}
		col += cw;
		i += (size_t)r;
	}
	EMIT(rs, in->len);
	if (col >= avail && in->cur == in->len)
		EMIT(in->len, in->len);
#undef EMIT
	if (crow)
		*crow = cr;
	if (ccol)
		*ccol = box_width(in->buf, crs, in->cur);
	return rows;
}

int tui_input_layout(const struct tui_input *in, int w, int pw, struct tui_seg *segs, int max, int *crow,
		     int *ccol)
{
	return input_layout_from(in, w, pw, 0, segs, max, crow, ccol);
}

int tui_input_vmove(struct tui_input *in, int w, int pw, int dir)
{
	int n = tui_input_layout(in, w, pw, NULL, 0, NULL, NULL);
	struct tui_seg *segs = xcalloc((size_t)n + 1, sizeof(*segs));
	int crow, ccol, moved = 0;
	tui_input_layout(in, w, pw, segs, n + 1, &crow, &ccol);
	int t = crow + dir;
	if (t >= 0 && t < n) {
		size_t i = segs[t].start, e = segs[t].end;
		int col = 0;
		while (i < e) {
			uint32_t cp;
			int r = utf8_decode((const unsigned char *)in->buf + i, e - i, &cp);
			if (r <= 0)
				r = 1;
			int cw = r > 0 ? box_cpw(in->buf, i, cp, col) : 1;
			if (col + cw > ccol)
				break;
			col += cw;
			i += (size_t)r;
		}
		/* a hard-wrapped row: its end is the next row's start */
		if (i == e && t + 1 < n && segs[t + 1].start == e && e > segs[t].start)
			i = prev_cp(in->buf, e);
		in->cur = i;
		moved = 1;
	}
	free(segs);
	return moved;
}
