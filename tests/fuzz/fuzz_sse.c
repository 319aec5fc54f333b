/*
 * fuzz_sse.c — libFuzzer target for the SSE parser and the event fold.
 *
 * The first input byte picks the slice lengths (so splits are fuzzed too)
 * and a small event cap half of the time (so the sticky cap path is
 * reached); the rest is the stream.  Each event goes through fold_event,
 * and the message is turned into JSON at the end, as the provider does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/fold.h"
#include "agent/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	data++;
	size--;
	struct fold_msg m;
	fold_init(&m, (mode & 0x80) ? FOLD_DROP_TEXT : 0, NULL);
	struct sse_parser *p = sse_new((mode & 0x40) ? 256 : 0, fold_sse_event, &m);
	size_t step = (mode & 0x3f) + 1, i = 0;
	while (i < size) {
		size_t n = size - i < step ? size - i : step;
		char *err = NULL;
		/* Each slice in its own exact allocation, gone after the call:
		 * ASan sees any read past a slice or any pointer kept into one. */
		char *copy = malloc(n);
		if (!copy)
			break;
		memcpy(copy, data + i, n);
		int r = sse_feed(p, copy, n, &err);
		free(copy);
		free(err);
		if (r)
			break;
		i += n;
		step = step * 7 % 61 + 1;
	}
	sse_finish(p);
	cJSON *j = fold_msg_json(&m);
	char *s = cJSON_PrintUnformatted(j);
	free(s);
	cJSON_Delete(j);
	for (size_t b = 0; b < m.nblocks; b++)
		fold_tool_ready(&m, b);
	cJSON_Delete(fold_content_take(&m));	/* the moving variant too */
	sse_free(p);
	fold_release(&m);
	return 0;
}
