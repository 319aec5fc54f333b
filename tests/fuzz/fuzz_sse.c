/*
 * fuzz_sse.c — libFuzzer target for the SSE parser and the event fold.
 *
 * The first input byte picks the slice lengths (so splits are fuzzed too;
 * every other slice is long, up to 4 KiB, so that runs of whole events
 * reach the fast path and are cut anywhere in it) and a small event cap
 * half of the time (so the sticky cap path is reached); the rest is the
 * stream.  Each event goes through fold_event,
 * and the message is turned into JSON at the end, as the provider does.
 *
 * The stream is folded twice: cut into those slices with the parser's
 * fast path on (fold_sse_fast, as the provider runs it), and whole with
 * the fast path off.  The two messages, and the text the hook saw (the
 * fast path hands it on a run of deltas at a time), must be the same,
 * else abort().
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/fold.h"
#include "agent/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The hook's text: each block's bytes in the order they came, a mark
 * where the block changes. */
struct seen {
	char *s;
	size_t len, cap;
	long last;
};

static void seen_add(struct seen *w, const char *s, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 64;
		w->s = realloc(w->s, w->cap);
		if (!w->s)
			abort();
	}
	memcpy(w->s + w->len, s, n);
	w->len += n;
}

static void seen_text(void *ctx, size_t index, const char *s, size_t n)
{
	struct seen *w = ctx;
	if ((long)index != w->last) {
		char mark[32];
		int k = snprintf(mark, sizeof(mark), "\x01%zu\x01", index);
		seen_add(w, mark, (size_t)k);
		w->last = (long)index;
	}
	seen_add(w, s, n);
}

/* Fold the stream in slices of the mode's lengths (whole when whole);
 * the message as JSON, malloc'd.  *failed tells whether sse_feed failed. */
static char *fold_stream(const uint8_t *data, size_t size, unsigned mode, int fast, int whole, int *failed,
			 struct seen *w)
{
	struct fold_msg m;
	struct fold_hooks h = { seen_text, NULL, NULL, NULL, w };
	w->last = -1;
	fold_init(&m, (mode & 0x80) ? FOLD_DROP_TEXT : 0, &h);
	struct sse_parser *p = sse_new((mode & 0x40) ? 256 : 0, fold_sse_event, &m);
	if (fast)
		sse_set_fast(p, fold_sse_fast);
	size_t step = whole ? size : (mode & 0x3f) + 1, i = 0, k = 0;
	*failed = 0;
	while (i < size) {
		/* every other slice long: the fast path takes only whole
		 * events (over 100 bytes), and none fits in 61 */
		size_t len = whole || k++ % 2 == 0 ? step : step * 67;
		size_t n = size - i < len ? size - i : len;
		char *err = NULL;
		/* Each slice in its own exact allocation, gone after the call:
		 * ASan sees any read past a slice or any pointer kept into one. */
		char *copy = malloc(n);
		if (!copy)
			abort();
		memcpy(copy, data + i, n);
		int r = sse_feed(p, copy, n, &err);
		free(copy);
		free(err);
		if (r) {
			*failed = 1;
			break;
		}
		i += n;
		if (!whole)
			step = step * 7 % 61 + 1;
	}
	sse_finish(p);
	cJSON *j = fold_msg_json(&m);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	for (size_t b = 0; b < m.nblocks; b++)
		fold_tool_ready(&m, b);
	cJSON_Delete(fold_content_take(&m));	/* the moving variant too */
	sse_free(p);
	fold_release(&m);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	int failed_a, failed_b;
	struct seen wa = { 0 }, wb = { 0 };
	char *a = fold_stream(data + 1, size - 1, mode, 1, 0, &failed_a, &wa);
	char *b = fold_stream(data + 1, size - 1, mode, 0, 1, &failed_b, &wb);
	if (!a || !b || strcmp(a, b) != 0 || failed_a != failed_b)
		abort();	/* the fast path or a cut changed the message */
	if (wa.len != wb.len || (wa.len && memcmp(wa.s, wb.s, wa.len) != 0))
		abort();	/* or the text the hook saw */
	free(a);
	free(b);
	free(wa.s);
	free(wb.s);
	return 0;
}
