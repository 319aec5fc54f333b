/*
 * sse.h — a resumable Server-Sent Events parser (the text/event-stream
 * format of the WHATWG HTML standard, section "Server-sent events").
 *
 * Life cycle and ownership:
 *   1. sse_new(max_event, fn, ctx) — allocate a parser; max_event caps one
 *      event (field names, values and the joined data together) in bytes;
 *      0 means SSE_MAX_EVENT.
 *   2. sse_feed(p, buf, n, &err) — any number of times, with any slice of
 *      the byte stream: whole, byte by byte, split inside a CR LF pair or
 *      inside a UTF-8 character.  Each complete event is handed to fn
 *      before sse_feed returns.  The struct sse_event and the strings it
 *      points to belong to the parser and live only during the call.
 *   3. sse_finish(p) — at end of stream; tells whether an event or a line
 *      was cut short (the standard discards such a tail, so do we).
 *   4. sse_free(p).
 *
 * Parsing rules: lines end with CR LF, LF or CR; a line starting with ':'
 * is a comment; "field: value" drops one leading space of the value; a
 * line without ':' is a field with an empty value; the fields are event,
 * data (repeated lines joined with '\n'), id (ignored when it holds a NUL)
 * and retry (digits only); unknown fields are ignored; a blank line
 * dispatches the event, unless no data line was seen; a UTF-8 BOM at the
 * very start is skipped.  Bytes are never decoded: a UTF-8 character split
 * across two slices is reassembled simply because the bytes are appended.
 *
 * Errors are sticky: once sse_feed fails (an event over the cap, or fn
 * returned non-zero) every later call fails the same way without reading.
 */
#ifndef SBX_SSE_H
#define SBX_SSE_H

#include <stddef.h>

/* One event's cap by default: the largest event the Messages API sends is
 * a content_block_start carrying a redacted_thinking blob, far below this. */
#define SSE_MAX_EVENT (4u << 20)

struct sse_event {
	const char *event;	/* the event type; "message" when none was given */
	const char *data;	/* data_len bytes, NOT NUL-terminated (a single
				 * data line points into the slice given to
				 * sse_feed, uncopied); may hold NULs */
	size_t data_len;
	const char *id;		/* last event id seen so far ("" when none) */
	long retry_ms;		/* last retry field seen, -1 when none */
};

/* Called for each event.  Return 0 to go on; anything else stops the
 * parser (sticky) and sse_feed returns that value. */
typedef int (*sse_event_fn)(void *ctx, const struct sse_event *ev);

/*
 * An optional fast path for a stream whose events mostly share one shape.
 * At the start of an event (no line, data or event name pending; any id
 * and retry fields stay as they are), when the rest of the slice starts
 * with 'e', fast(ctx, s, n, max_event) may take whole events from the
 * start of s: each from its first byte through the blank line that ends
 * it.  It returns how many bytes it took (0: none).  It must take only
 * events with no id or retry field, no larger than max_event in all their
 * bytes, and handle each exactly as fn would after the parser's own work;
 * anything else it leaves to the parser.  It cannot fail or stop the
 * parser.
 */
typedef size_t (*sse_fast_fn)(void *ctx, const char *s, size_t n, size_t max_event);

struct sse_parser;

struct sse_parser *sse_new(size_t max_event, sse_event_fn fn, void *ctx);

/* Set (or, with NULL, clear) the fast path; it gets sse_new's ctx. */
void sse_set_fast(struct sse_parser *p, sse_fast_fn fast);

/*
 * Parse n bytes.  Returns 0; the callback's non-zero value when it stopped
 * the parser; or -1 with *err (malloc'd, caller frees) when an event went
 * over the cap.  After any non-zero return the parser stays failed: later
 * calls return -1 with *err naming the first failure.
 */
int sse_feed(struct sse_parser *p, const void *buf, size_t n, char **err);

/* End of stream: 1 when a partial line or an undispatched event was
 * pending (and is discarded), 0 when the stream ended cleanly. */
int sse_finish(struct sse_parser *p);

/* Forget everything, the sticky error included: ready for a new stream
 * (the last event id and retry value too). */
void sse_reset(struct sse_parser *p);

void sse_free(struct sse_parser *p);

#endif
