/*
 * keys.c — key bindings of the TUI (see keys.h).  Pure.
 *
 *   Enter sends; alt-Enter or ctrl-j a new line; arrows, Home/End,
 *   ctrl-a/e/b/f, ctrl-k/u/w, up/down through history at the first/last
 *   row; PgUp/PgDn and the wheel scroll; ctrl-o folds/unfolds tool output;
 *   ctrl-l repaints.  During a turn: esc or ctrl-c stops it.  On an empty
 *   prompt: ctrl-c or ctrl-d quits.  A question: y, n (then a reason), a;
 *   esc or ctrl-c refuses and stops.  Inside a bracketed paste every key is
 *   text (Enter included, a control as itself but NUL; escape sequences
 *   are left out), and a paste never answers a question.
 *
 *   Below them, tui_keys_read(): the bytes of a paste read in bulk, made
 *   into the same keys (keys.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tui/keys.h"

static size_t utf8_enc(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Editing keys shared by the input box and the reason editor; 1 if used. */
static int edit(struct tui_input *in, const struct tui_key *k)
{
	char b[4];
	switch (k->code) {
	case TK_CHAR:
		tui_input_insert(in, b, utf8_enc(k->ch, b));
		return 1;
	case TK_TEXT:
		tui_input_insert(in, k->text, k->len);
		return 1;
	case TK_BACKSPACE: tui_input_backspace(in); return 1;
	case TK_DELETE: tui_input_delete(in); return 1;
	case TK_LEFT: tui_input_left(in); return 1;
	case TK_RIGHT: tui_input_right(in); return 1;
	case TK_HOME: tui_input_home(in); return 1;
	case TK_END: tui_input_end(in); return 1;
	case TK_CTRL:
		switch (k->ch) {
		case 'a': tui_input_home(in); return 1;
		case 'e': tui_input_end(in); return 1;
		case 'b': tui_input_left(in); return 1;
		case 'f': tui_input_right(in); return 1;
		case 'k': tui_input_kill_end(in); return 1;
		case 'u': tui_input_kill_start(in); return 1;
		case 'w': tui_input_kill_word(in); return 1;
		case 'h': tui_input_backspace(in); return 1;
		default: return 0;
		}
	default:
		return 0;
	}
}

static int blank(const char *s)
{
	return s[strspn(s, " \t\n")] == '\0';
}

static void apply(struct tui_model *m, const struct tui_key *k, struct tui_act *out);

/* A control inside a paste is text, kept as pasted (the box draws it as
 * ^X): 1 with the byte in b.  A NUL is left out: the prompt is a C
 * string.  ESC never comes here: it starts a sequence, which a paste
 * leaves out (keys.h; a lone one ends the paste).  A backspace key
 * without its byte (ncurses' KEY_BACKSPACE) is no text. */
static int pasted_control(const struct tui_key *k, char *b)
{
	uint32_t c = k->code == TK_CTRL ? k->ch - 96 : k->ch;
	if (k->code == TK_CTRL && (k->ch < 97 || k->ch > 96 + 0x1f))
		return 0;
	if (k->code == TK_BACKSPACE && c != 8 && c != 0x7f)
		return 0;
	b[0] = (char)c;
	return 1;
}

/* A paste (or typing) past the box's cap is cut: said once, until the box
 * is sent or emptied, so a prompt cut short is not sent unknowingly. */
void tui_keys_apply(struct tui_model *m, const struct tui_key *k, struct tui_act *out)
{
	int was = m->in.cut || m->reason.cut;
	apply(m, k, out);
	if (!was && (m->in.cut || m->reason.cut)) {
		char *t = xasprintf("the input box holds at most %u KiB: the rest of what was pasted or typed "
				    "was left out", TUI_MAX_INPUT >> 10);
		tui_model_note(m, TL_NOTE, t);
		free(t);
	}
}

static void apply(struct tui_model *m, const struct tui_key *k, struct tui_act *out)
{
	memset(out, 0, sizeof(*out));

	/* After a question lost under the user's keys (a refusal's reason
	 * being typed, an n), what they type on lands in the prompt box: each
	 * key in that flow pushes the quiet on, so only an Enter after a
	 * pause, the box looked at, sends it (TK_ENTER below). */
	if (k->ms && k->ms < m->squiet && k->code != TK_RESIZE)
		m->squiet = k->ms + APPROVE_RECOVER_MS;

	if (k->code == TK_PASTE_START) {
		m->paste = 1;
		m->pcut = 0;
		m->pcr = 0;
		if (m->q == TQ_ASK && k->ms)
			m->qquiet = k->ms + APPROVE_RECOVER_MS;
		return;
	}
	if (k->code == TK_PASTE_END) {
		/* The terminal's end marker is the paste's last input: one
		 * with more already waiting behind it may have come inside
		 * the pasted text, which then went on with a line break that
		 * sent.  What follows it is pasted text until a key with
		 * nothing behind it (the terminal's marker, or a key the user
		 * typed during a long paste, which then counts as typed). */
		m->paste = k->burst && m->paste ? 2 : 0;
		return;
	}
	if (m->paste == 2 && !k->burst)
		m->paste = 0;
	/* A lone escape is never inside a paste (the end marker starts with
	 * one, with more behind it): the end was lost, and escape must still
	 * refuse a question or stop a turn. */
	if (m->paste && k->code == TK_ESC)
		m->paste = 0;
	if (m->paste) {
		/* CR LF (a Windows file, most web pages) is one line break,
		 * as a CR alone is: the two bytes side by side, each a key
		 * of its own (ch its byte; keypad Enter and alt-Enter have
		 * none) */
		int crlf = m->pcr && k->code == TK_NEWLINE && k->ch == '\n';
		m->pcr = k->code == TK_ENTER && k->ch == '\r';
		if (crlf)
			return;
		if (m->q == TQ_ASK) {
			if (k->ms)
				m->qquiet = k->ms + APPROVE_RECOVER_MS;
			return;
		}
		/* Past the box's cap the rest of the paste is left out
		 * whole (a shorter character could still fit, but the
		 * prompt is already cut, and the user told), so a large
		 * paste costs no more than the box holds. */
		struct tui_input *in = m->q == TQ_REASON ? &m->reason : &m->in;
		char b[4];
		size_t left = 0;
		if (m->pcut)
			return;
		if (k->code == TK_ENTER || k->code == TK_NEWLINE)
			left = tui_input_insert(in, m->q == TQ_REASON ? " " : "\n", 1);
		else if (k->code == TK_CHAR)
			left = tui_input_insert(in, b, utf8_enc(k->ch, b));
		else if (k->code == TK_TEXT)
			left = tui_input_insert(in, k->text, k->len);
		else if ((k->code == TK_CTRL || k->code == TK_BACKSPACE) && pasted_control(k, b))
			left = tui_input_insert(in, b, 1);
		if (left)
			m->pcut = 1;
		return;
	}

	switch (k->code) {
	case TK_PGUP: tui_model_scroll_page(m, -1); return;
	case TK_PGDN: tui_model_scroll_page(m, 1); return;
	case TK_WHEEL_UP: tui_model_scroll(m, -3); return;
	case TK_WHEEL_DOWN: tui_model_scroll(m, 3); return;
	case TK_RESIZE: return;
	case TK_CTRL:
		if (k->ch == 'l') {
			out->act = TACT_REDRAW;
			return;
		}
		if (k->ch == 'o') {
			tui_model_toggle_tools(m);
			return;
		}
		break;
	default:
		break;
	}

	if (m->q == TQ_ASK && k->code != TK_ESC && !(k->code == TK_CTRL && (k->ch == 'c' || k->ch == 'd'))) {
		/* Only a key that stands alone answers (keys.h): what is not
		 * taken (a burst, a stray key, a sequence's bytes) pushes the
		 * quiet on, and the user is told once per question. */
		int answer = k->code == TK_CHAR && k->ch < 128 && k->ch && strchr("yYaAnNvV", (int)k->ch);
		int early = k->burst || (k->ms && k->ms < m->qquiet);
		if (!answer || early) {
			if (k->ms)
				m->qquiet = k->ms + APPROVE_RECOVER_MS;
			if (answer && !m->qtold) {
				m->qtold = 1;
				tui_model_note(m, TL_NOTE, "not taken: that key came with other input or right after "
							   "it — wait a moment and press it again");
			}
			return;
		}
	}
	if (m->q == TQ_ASK) {
		if (k->code == TK_CHAR && (k->ch == 'y' || k->ch == 'Y')) {
			out->act = TACT_ANSWER;
			out->answer = APPROVE_YES;
		} else if (k->code == TK_CHAR && (k->ch == 'a' || k->ch == 'A')) {
			out->act = TACT_ANSWER;
			out->answer = APPROVE_ALWAYS;
		} else if (k->code == TK_CHAR && (k->ch == 'v' || k->ch == 'V') && m->qwhole) {
			/* Into the transcript once, drawn made safe; the question
			 * shrinks to two rows so it shows (PgUp reads back); v
			 * again shows the question whole. */
			if (!m->qviewed)
				tui_model_note(m, TL_NOTE, m->qwhole);
			m->qviewed = 1;
			m->qcompact = !m->qcompact;
			/* the whole question must fit the pane as it is now
			 * (it may have shrunk since the first v): else it
			 * stays compact, its first row and answer keys shown */
			if (!m->qcompact && !tui_model_question_fits(m))
				m->qcompact = 1;
		} else if (k->code == TK_CHAR && (k->ch == 'n' || k->ch == 'N')) {
			m->q = TQ_REASON;
			tui_input_set(&m->reason, "");
		} else if (k->code == TK_ESC || (k->code == TK_CTRL && (k->ch == 'c' || k->ch == 'd'))) {
			out->act = TACT_ANSWER;
			out->answer = APPROVE_NO;
			out->stop = 1;
		}
		return;
	}
	if (m->q == TQ_REASON) {
		if (k->code == TK_ENTER) {
			out->act = TACT_ANSWER;
			out->answer = APPROVE_NO;
			if (!blank(m->reason.buf))
				out->reason = xstrdup(m->reason.buf);
		} else if (k->code == TK_ESC || (k->code == TK_CTRL && k->ch == 'c')) {
			out->act = TACT_ANSWER;
			out->answer = APPROVE_NO;
			out->stop = 1;
		} else {
			edit(&m->reason, k);
		}
		return;
	}

	switch (k->code) {
	case TK_ESC:
		/* once per turn: the stop is asked for and the note says so;
		 * a press while it stops asks nothing more */
		if (m->busy && !m->stopping) {
			out->act = TACT_STOP;
			m->stopping = 1;
		}
		return;
	case TK_ENTER:
		if (!m->busy && !blank(m->in.buf) && k->ms && k->ms < m->squiet) {
			if (!m->stold) {
				m->stold = 1;
				tui_model_note(m, TL_NOTE, "Enter not taken: the approval question was refused, the "
							   "pane too small to show it, and what was typed since is in "
							   "the prompt box — read it, then press Enter again to send it");
			}
			return;
		}
		if (!m->busy && !blank(m->in.buf)) {
			out->act = TACT_SEND;
			out->prompt = xstrdup(m->in.buf);
			tui_model_history_push(m, m->in.buf);
			tui_input_set(&m->in, "");
		}
		return;
	case TK_NEWLINE:
		tui_input_insert(&m->in, "\n", 1);
		return;
	case TK_UP:
		if (!tui_input_vmove(&m->in, m->w, 2, -1))
			tui_model_history(m, -1);
		return;
	case TK_DOWN:
		if (!tui_input_vmove(&m->in, m->w, 2, 1))
			tui_model_history(m, 1);
		return;
	case TK_CTRL:
		if (k->ch == 'c') {
			if (m->busy) {
				if (!m->stopping)
					out->act = TACT_STOP;
				m->stopping = 1;
			} else if (m->in.len == 0)
				out->act = TACT_QUIT;
			else
				tui_input_set(&m->in, "");
			return;
		}
		if (k->ch == 'd') {
			if (m->in.len == 0)
				out->act = TACT_QUIT;
			else
				tui_input_delete(&m->in);
			return;
		}
		edit(&m->in, k);
		return;
	default:
		edit(&m->in, k);
		return;
	}
}

/* ------------------------------------------------------- a paste in bulk */

void tui_keys_read_reset(struct tui_keyrd *rd)
{
	memset(&rd->mb, 0, sizeof(rd->mb));
	rd->nseq = 0;
	rd->mouse = 0;
	rd->skip = 0;
}

/*
 * One byte c of a character (not ESC's sequences): 1 with *cp when the
 * character is complete, 0 when more of it is to come (held in rd), 2 when
 * the bytes held before c start no character: *cp is U+FFFD and c is to be
 * read again, as the first byte of the next.
 */
static int char_byte(struct tui_keyrd *rd, unsigned char c, uint32_t *cp)
{
	wchar_t wc;
	if (rd->nseq == 0 && c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t r = mbrtowc(&wc, (const char *)&c, 1, &rd->mb);
	if (r == (size_t)-2 && rd->nseq < 8) {
		rd->seq[rd->nseq++] = c;
		return 0;
	}
	size_t held = rd->nseq;
	rd->nseq = 0;
	memset(&rd->mb, 0, sizeof(rd->mb));
	if (r == (size_t)-1 || r == (size_t)-2) {
		*cp = 0xfffd;
		return held ? 2 : 1;
	}
	*cp = (uint32_t)wc;
	return 1;
}

/* char_byte for the byte at *off, which it moves past the byte when the
 * byte was taken: 0 when the character is not whole yet, else 1 with *cp
 * (U+FFFD for held bytes that start none, c then left to be read again). */
static int char_step(struct tui_keyrd *rd, unsigned char c, size_t *off, uint32_t *cp)
{
	int r = char_byte(rd, c, cp);
	if (r != 2)
		(*off)++;
	return r != 0;
}

/* The key a whole CSI or SS3 sequence (seq) is inside a paste. */
static enum tui_keycode sequence_key(const struct tui_keyrd *rd)
{
	if (rd->nseq == 6 && memcmp(rd->seq, "\033[200~", 6) == 0)
		return TK_PASTE_START;
	if (rd->nseq == 6 && memcmp(rd->seq, "\033[201~", 6) == 0)
		return TK_PASTE_END;
	if (rd->kent && strlen(rd->kent) == rd->nseq && memcmp(rd->seq, rd->kent, rd->nseq) == 0)
		return TK_ENTER;
	return TK_NONE;
}

/* Byte c (ASCII) after ESC (seq): 1 with k->code when the key is whole,
 * 0 to go on.  As render_key and drop_sequence read the bytes of a key
 * ncurses' key table does not know; the paste's markers, alt-Enter and
 * the keypad Enter are the keys it knows that do something in a paste. */
static int escape_byte(struct tui_keyrd *rd, unsigned char c, struct tui_key *k)
{
	if (rd->nseq == 1) {
		if (c == '[' || c == 'O') {
			rd->seq[rd->nseq++] = c;
			return 0;
		}
		/* two escapes: what comes next says what they are
		 * (tui_keys_read) */
		if (c == 0x1b) {
			rd->seq[rd->nseq++] = c;
			return 0;
		}
		/* alt-Enter; alt and any other key does nothing */
		k->code = c == '\r' || c == '\n' ? TK_NEWLINE : TK_NONE;
		rd->nseq = 0;
		return 1;
	}
	if (rd->nseq == 2 && rd->seq[1] == 0x1b) {
		/* ESC ESC [ or ESC ESC O: the first escape does nothing,
		 * the second begins a sequence (an end marker, maybe) */
		rd->seq[1] = c;
		return 0;
	}
	if (rd->nseq == 2 && rd->seq[1] == '[' && c == 'M') {
		rd->nseq = 0;
		rd->mouse = 3;		/* an X10 mouse report: three bytes follow */
		return 0;
	}
	/* parameter bytes up to a final byte, at most 32 of them: the byte
	 * after 32, or one that is neither, ends the key too */
	if (c >= 0x20 && c <= 0x3f && rd->nseq < 2 + 32) {
		rd->seq[rd->nseq++] = c;
		return 0;
	}
	rd->seq[rd->nseq++] = c;
	k->code = c >= 0x40 && c <= 0x7e ? sequence_key(rd) : TK_NONE;
	rd->nseq = 0;
	return 1;
}

/* What a held key is when no more of it came (final). */
static void finish(struct tui_keyrd *rd, int mode, struct tui_key *k, size_t *tlen)
{
	if (rd->mouse || rd->skip)
		k->code = TK_NONE;
	else if (rd->seq[0] == 0x1b)	/* escapes alone, one or two, end a paste */
		k->code = rd->nseq == 1 || (rd->nseq == 2 && rd->seq[1] == 0x1b) ? TK_ESC : TK_NONE;
	else if (mode == 1) {
		memcpy(rd->text, "\xef\xbf\xbd", 3);
		*tlen = 3;
	} else {
		k->code = TK_CHAR;
		k->ch = 0xfffd;
	}
	tui_keys_read_reset(rd);
}

/* The key for a whole character that is not text (a run's end). */
static int char_key(uint32_t cp, struct tui_key *k)
{
	switch (cp) {
	case '\r': k->code = TK_ENTER; k->ch = cp; return 1;
	case '\n': k->code = TK_NEWLINE; k->ch = cp; return 1;
	case '\t': k->code = TK_CHAR; k->ch = '\t'; return 1;
	case 0x7f: case 8: k->code = TK_BACKSPACE; k->ch = cp; return 1;
	default:
		if (cp >= 0x20)
			return 0;
		k->code = TK_CTRL;
		k->ch = cp + 96;
		return 1;
	}
}

int tui_keys_read(struct tui_keyrd *rd, const unsigned char *b, size_t n, size_t *off, int mode, int final,
		  struct tui_key *k)
{
	size_t tlen = 0;
	uint32_t cp;

	memset(k, 0, sizeof(*k));
	k->code = TK_TEXT;
	while (*off < n) {
		unsigned char c = b[*off];
		if (rd->mouse) {
			(*off)++;
			if (--rd->mouse == 0) {
				k->code = TK_NONE;
				return 1;
			}
			continue;
		}
		if (rd->skip) {
			/* a character after ESC or inside a sequence: the key
			 * ends with it, whole (ncurses reads characters) */
			if (!char_step(rd, c, off, &cp))
				continue;
			rd->skip = 0;
			k->code = TK_NONE;
			return 1;
		}
		if (rd->nseq == 2 && rd->seq[0] == 0x1b && rd->seq[1] == 0x1b && c != '[' && c != 'O') {
			/* two escapes and no sequence behind them: a key of
			 * its own that does nothing, as render_key reads
			 * them; c is read again, as the next key.  (Before,
			 * the second escape took c with it: ESC ESC x lost
			 * the x the key path types.) */
			rd->nseq = 0;
			k->code = TK_NONE;
			return 1;
		}
		if (rd->nseq && rd->seq[0] == 0x1b) {
			if (c >= 0x80) {
				rd->nseq = 0;
				rd->skip = 1;
				continue;
			}
			(*off)++;
			if (escape_byte(rd, c, k))
				return 1;
			continue;
		}
		/* a run ends before a control or ESC, and before the text
		 * buffer could overflow */
		if (tlen && ((rd->nseq == 0 && (c < 0x20 || c == 0x7f)) || tlen + 8 > sizeof(rd->text)))
			break;
		if (!char_step(rd, c, off, &cp))
			continue;
		if (cp == 0x1b) {
			rd->seq[0] = 0x1b;
			rd->nseq = 1;
			continue;
		}
		/* (a control after a run here came as several bytes, in a
		 * charset that has such: text, which the box shows made safe) */
		if (!tlen && char_key(cp, k))
			return 1;
		if (mode != 1) {
			k->code = TK_CHAR;
			k->ch = cp;
			return 1;
		}
		char e[4];
		size_t el = utf8_enc(cp, e);
		memcpy(rd->text + tlen, e, el);
		tlen += el;
	}
	if (!tlen && final && (rd->nseq || rd->mouse || rd->skip)) {
		finish(rd, mode, k, &tlen);
		if (k->code != TK_TEXT)
			return 1;
	}
	if (!tlen)
		return 0;
	k->text = rd->text;
	k->len = tlen;
	return 1;
}
