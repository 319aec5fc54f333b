/* fuzz_tui_model.c — the TUI's screen model on arbitrary input: the bytes
 * are split into operations (text deltas at any split, tool rows, questions,
 * keys, resizes, scrolling, the clock, round and turn ends, status facts)
 * and every frame is laid out.  It must never crash or leak, every row must
 * fit the width, and no drawn row may hold a control character (the
 * terminal would run it).
 *
 * An operation is a byte op, a length byte (mod 48) and that many bytes s.
 * op & 15 picks it; the high bits are its flags, so one op's flags never
 * turn it into another:
 *    0-2  text delta (0x10: thinking)
 *    3    tool call (0x20: id a, else b; 0x40: the tool named s, else bash)
 *    4    tool result (0x20: id a, else c; 0x40: an error)
 *    5    question (0x20: with a diff)         6  question end
 *    7    resize (s[0]: the width; n: the height)
 *    8    scroll by (int8)op
 *    9    keys: code = byte % 21, a char or ctrl takes the next byte,
 *         (op >> 4) & 7 picks a char's plane
 *    10   error (0x10: note; 0x20: retry)      11 prompt, turn done
 *    12   round end (0x10: turn end; 0x20: stop reason s), round n,
 *         tokens from s's first bytes
 *    13   the clock: s[0] << ((op >> 4) & 15) ms later, tick
 *    14   status fact (op >> 4) & 3 (model, grants, net, tools) set to s
 *    15   does the question fit? (0x10: also toggle the tool rows);
 *         0x20: s as a terminal's bytes inside a paste, read in bulk
 *         (tui_keys_read) in two reads cut at s[0] % n, with what the
 *         reader held from the op before; 0x40: then the escape delay
 *         passes.  s is also pasted into two fresh models, at once and a
 *         byte at a time: their boxes must be the same.
 */
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tui/keys.h"
#include "tui/model.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(struct tui_model *m)
{
	struct tui_frame f = { 0 };
	tui_model_frame(m, &f);
	for (int y = 0; y < f.h; y++) {
		const struct tui_frow *r = &f.rows[y];
		if (tui_width(r->buf, r->len) > f.w)
			abort();
		for (size_t i = 0; i < r->len;) {
			uint32_t cp;
			int l = utf8_decode((const unsigned char *)r->buf + i, r->len - i, &cp);
			if (l <= 0 || utf8_is_unsafe(cp))
				abort();	/* not UTF-8, or a C0, DEL, C1 or bidi control */
			i += (size_t)l;
		}
	}
	if (f.cy < 0 || f.cy >= f.h || f.cx < 0 || f.cx >= f.w)
		abort();
	tui_frame_release(&f);
}

/* One read of the terminal's bytes (final: then the escape delay passed). */
static int feed(struct tui_model *m, struct tui_keyrd *rd, const char *s, size_t n, size_t end, int final)
{
	struct tui_key k;
	struct tui_act a;
	size_t off = 0;
	int r;
	while ((r = tui_keys_read(rd, (const unsigned char *)s, n, &off, m->paste == 1 ? 1 : 2, final, &k)) > 0) {
		k.burst = off < end;
		tui_keys_apply(m, &k, &a);
		free(a.prompt);
		free(a.reason);
	}
	if (r < 0 || off != n)
		abort();
	return 0;
}

/* s pasted into m, read in bulk: in two reads cut at cut, or (step) a
 * byte at a time. */
static void bulk(struct tui_model *m, struct tui_keyrd *rd, const char *s, size_t n, size_t cut, int step, int final)
{
	struct tui_key k = { TK_PASTE_START };
	struct tui_act a;
	if (!m->paste) {
		tui_keys_apply(m, &k, &a);
		free(a.prompt);
		free(a.reason);
	}
	for (size_t from = 0; from < n;) {
		size_t to = step ? from + 1 : from < cut ? cut : n;
		if (feed(m, rd, s + from, to - from, n - from, 0) < 0)
			return;
		from = to;
	}
	if (final)
		feed(m, rd, "", 0, 0, 1);
}

static void same_box(const char *s, size_t n)
{
	struct tui_model a, b;
	struct tui_keyrd ra, rb;
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	tui_model_init(&a, 40, 12, 0);
	tui_model_init(&b, 40, 12, 0);
	bulk(&a, &ra, s, n, n, 0, 1);
	bulk(&b, &rb, s, n, n, 1, 1);
	if (strcmp(a.in.buf, b.in.buf) != 0 || a.paste != b.paste)
		abort();
	tui_model_release(&a);
	tui_model_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tui_keyrd rd;
	static int init;
	struct tui_model m;
	size_t i = 0;
	uint64_t now = 0;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = 1;
	}
	tui_model_init(&m, 40, 12, 0);
	memset(&rd, 0, sizeof(rd));
	rd.kent = "\033OM";
	while (i < size) {
		uint8_t op = data[i++];
		size_t n = i < size ? data[i++] % 48 : 0;
		if (n > size - i)
			n = size - i;
		char *s = malloc(n + 1);
		memcpy(s, data + i, n);
		s[n] = '\0';
		i += n;
		struct turn_event ev = { 0 };
		struct tui_key k = { 0 };
		struct tui_act a;
		switch (op & 15) {
		case 0: case 1: case 2:
			ev.kind = op & 0x10 ? TEV_THINKING : TEV_TEXT;
			ev.text = s;
			ev.len = n;
			if (n)
				tui_model_event(&m, &ev, now);
			break;
		case 3:
			ev.kind = TEV_TOOL_CALL;
			ev.id = op & 0x20 ? "a" : "b";
			ev.tool = op & 0x40 ? s : "bash";
			ev.subject = s;
			tui_model_event(&m, &ev, now);
			break;
		case 4:
			ev.kind = TEV_TOOL_RESULT;
			ev.id = op & 0x20 ? "a" : "c";
			ev.text = s;
			ev.is_error = op & 0x40;
			tui_model_event(&m, &ev, now);
			break;
		case 5: {
			struct approval_question q = { "write", s, s, op & 0x20 ? s : NULL };
			tui_model_question(&m, &q);
			break;
		}
		case 6:
			tui_model_question_end(&m);
			break;
		case 7:
			/* any width from 1 (op alone reached only 16 of them,
			 * none from 2 to 6) */
			tui_model_resize(&m, 1 + (n ? (uint8_t)s[0] : (int)(op >> 4) * 9) % 120, 1 + (int)(n % 40));
			break;
		case 8:
			tui_model_scroll(&m, (int)(int8_t)op);
			break;
		case 9:
			for (size_t j = 0; j < n; j++) {
				/* typed characters from planes a byte cannot reach:
				 * combining marks, wide Hangul and CJK, bidi and
				 * zero-width controls, emoji, surrogates, past U+10FFFF */
				static const uint32_t base[8] = { 0, 0x300, 0x1100, 0x2000, 0x4e00, 0xd800, 0x1f600,
								  0x10ff80 };
				k.code = (enum tui_keycode)((uint8_t)s[j] % (TK_RESIZE + 1));
				if (k.code == TK_CHAR || k.code == TK_CTRL) {
					/* the character from the next byte: with the
					 * code's byte it could only be a few */
					uint8_t c = j + 1 < n ? (uint8_t)s[++j] : 0;
					k.ch = k.code == TK_CHAR ? base[(op >> 4) & 7] + c : c;
				}
				tui_keys_apply(&m, &k, &a);
				free(a.prompt);
				free(a.reason);
			}
			break;
		case 10:
			ev.kind = op & 0x20 ? TEV_RETRY : op & 0x10 ? TEV_NOTE : TEV_ERROR;
			ev.text = s;
			tui_model_event(&m, &ev, now);
			break;
		case 11:
			tui_model_user(&m, s, now);
			tui_model_turn_done(&m);
			break;
		case 12: {
			/* token counts from the first bytes, up to 2^40 */
			uint64_t t = 0;
			for (size_t j = 0; j < n && j < 5; j++)
				t = t << 8 | (uint8_t)s[j];
			ev.kind = op & 0x10 ? TEV_TURN_END : TEV_ROUND_END;
			ev.text = op & 0x20 ? s : "end_turn";
			ev.round = (int)n;
			ev.usage.input_tokens = t;
			ev.usage.output_tokens = t >> (op >> 6);
			tui_model_event(&m, &ev, now);
			break;
		}
		case 13:
			now += (uint64_t)(n ? (uint8_t)s[0] : 1) << ((op >> 4) & 15);
			tui_model_tick(&m, now);
			break;
		case 14: {
			const char *f[4] = { NULL, NULL, NULL, NULL };
			f[(op >> 4) & 3] = s;
			tui_model_set_info(&m, f[0], f[1], f[2], f[3]);
			break;
		}
		default:
			if (op & 0x20) {
				bulk(&m, &rd, s, n, n ? (uint8_t)s[0] % n : 0, 0, op & 0x40);
				same_box(s, n);
				if (m.in.len > TUI_MAX_INPUT)
					abort();
				break;
			}
			if (op & 0x10)
				tui_model_toggle_tools(&m);
			if ((unsigned)tui_model_question_fits(&m) > 1)
				abort();
			break;
		}
		free(s);
		check(&m);
	}
	char *t = tui_model_transcript(&m);
	free(t);
	tui_model_release(&m);
	return 0;
}
