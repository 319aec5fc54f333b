/*
 * keys.c — key bindings of the TUI (see keys.h).  Pure.
 *
 *   Enter sends; alt-Enter or ctrl-j a new line; arrows, Home/End,
 *   ctrl-a/e/b/f, ctrl-k/u/w, up/down through history at the first/last
 *   row; PgUp/PgDn and the wheel scroll; ctrl-o folds/unfolds tool output;
 *   ctrl-l repaints.  During a turn: esc or ctrl-c stops it.  On an empty
 *   prompt: ctrl-c or ctrl-d quits.  A question: y, n (then a reason), a;
 *   esc or ctrl-c refuses and stops.  Inside a bracketed paste every key is
 *   text (Enter included), and a paste never answers a question.
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
	return s[strspn(s, " \n")] == '\0';
}

static void apply(struct tui_model *m, const struct tui_key *k, struct tui_act *out);

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

	if (k->code == TK_PASTE_START) {
		m->paste = 1;
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
		if (m->q == TQ_ASK) {
			if (k->ms)
				m->qquiet = k->ms + APPROVE_RECOVER_MS;
			return;
		}
		struct tui_input *in = m->q == TQ_REASON ? &m->reason : &m->in;
		if (k->code == TK_ENTER || k->code == TK_NEWLINE)
			tui_input_insert(in, m->q == TQ_REASON ? " " : "\n", 1);
		else if (k->code == TK_CHAR)
			edit(in, k);
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
		if (m->busy)
			out->act = TACT_STOP;
		return;
	case TK_ENTER:
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
			if (m->busy)
				out->act = TACT_STOP;
			else if (m->in.len == 0)
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
