/*
 * fold.h — fold the events of one streamed Anthropic Messages response
 * into the assistant message they describe.
 *
 * Life cycle and ownership:
 *   1. fold_init(&m, flags, &hooks) — m is the caller's (usually on the
 *      stack); hooks is copied and may be NULL.
 *   2. fold_event(&m, type, data, len, &err) for each SSE event, or pass
 *      fold_sse_event as the sse_new() callback with &m as its context.
 *      Text and thinking deltas reach the hooks as they arrive.
 *   3. Read the result: m.blocks[0..nblocks), m.stop_reason, m.usage, or
 *      build JSON with fold_content_json (the assistant "content" array to
 *      send back in the next request) and fold_msg_json (the whole message
 *      plus what was dropped, for logs and tests).  Both return a new cJSON
 *      tree the caller frees with cJSON_Delete.
 *   4. fold_release(&m) frees everything m owns; m may be fold_init'ed
 *      again for the next round.
 *
 * Events, by the "type" in their JSON data (the SSE event name is used
 * only when the data is not JSON, to tell an unknown event from a broken
 * one):
 *   message_start        id, model, usage (input, output, cache tokens)
 *   content_block_start  a block at "index": text, thinking, redacted_thinking
 *                        (its data), tool_use (id, name; an id the API
 *                        refuses, or one an earlier tool_use of the message
 *                        has, refuses the call: input_error, id_refused);
 *                        other types kept as FOLD_OTHER and never sent back
 *   content_block_delta  text_delta, thinking_delta, signature_delta,
 *                        input_json_delta (fragments joined); other delta
 *                        types ignored
 *   content_block_stop   a tool_use's joined fragments parsed with cJSON:
 *                        empty means {}; a nested or long input is refused
 *                        before parsing (tools_json_is_flat); one that is
 *                        not a JSON object, names a member twice, or holds
 *                        bytes that are not UTF-8, leaves input NULL
 *                        with input_error set (the round goes on: the caller
 *                        must not run such a call)
 *   message_delta        stop_reason, stop_sequence, usage (cumulative)
 *   message_stop         m.done = 1; every later event is ignored (nothing
 *                        after the end belongs to the message)
 *   ping, anything else  ignored
 *   error                fails: m.error_type and m.error_message are set
 *
 * A failure (an error event, a malformed known event, a block over its
 * cap) is sticky: m.err holds the message and every later fold_event
 * returns -1.
 */
#ifndef SBX_FOLD_H
#define SBX_FOLD_H

#include <stddef.h>

#include "util/cjson.h"

#include "agent/sse.h"

/* Caps: blocks per message, bytes of one text or thinking block, of one
 * tool call's joined input JSON, of one signature, and of all that a
 * message keeps together (text, inputs, and what a block's start keeps:
 * ids, names, redacted data, signatures). */
#define FOLD_MAX_BLOCKS 1024
#define FOLD_MAX_TEXT (32u << 20)
#define FOLD_MAX_TOOL_INPUT (8u << 20)
#define FOLD_MAX_SIGNATURE (1u << 20)
#define FOLD_MAX_MESSAGE (64u << 20)
/* A text block of at least FOLD_POPULATE_FROM bytes of capacity has the
 * FOLD_POPULATE_STEP bytes past its text faulted in ahead of the copies
 * (fold.c, block_room). */
#define FOLD_POPULATE_FROM (1u << 20)
#define FOLD_POPULATE_STEP (64u << 10)

enum fold_type {
	FOLD_NONE = 0,		/* index never started */
	FOLD_TEXT,
	FOLD_THINKING,
	FOLD_REDACTED_THINKING,
	FOLD_TOOL_USE,
	FOLD_OTHER,
};

struct fold_block {
	enum fold_type type;
	char *type_name;	/* the block type as sent */
	int stopped;		/* content_block_stop seen */
	char *text;		/* text, thinking, or a tool_use's joined input
				 * JSON; never NULL once started, NUL-terminated */
	size_t text_len, text_cap;
	size_t text_ready;	/* appends up to here need only the copy (fold.c) */
	int high;		/* text has held a byte that is not ASCII */
	char *signature;	/* thinking: NULL until a signature arrived */
	char *data;		/* redacted_thinking */
	char *id, *name;	/* tool_use */
	cJSON *input;		/* tool_use: the parsed object, set at stop */
	char *input_error;	/* tool_use stopped but input is not an object */
	cJSON *start_input;	/* tool_use: "input" of content_block_start */
	int start_bad;		/* ... which was not flat (tools_json_is_flat) */
	int start_nul;		/* ... whose event held a NUL (a \u0000 escape
				 * or a raw NUL byte) */
	int delta_nul;		/* tool_use: an input_json_delta event held one */
	int start_badutf8;	/* ... whose strings are not all UTF-8 */
	int id_refused;		/* tool_use: an id the API refuses, or one an
				 * earlier call has (input_error says which) */
};

struct fold_usage {
	long input_tokens;
	long output_tokens;
	long cache_creation_input_tokens;
	long cache_read_input_tokens;
};

/* Called as deltas arrive; every member may be NULL.  s is not
 * NUL-terminated past n.  A run of text deltas to one block that the fast
 * path (fold_sse_fast) keeps may arrive as one call, from the kept text:
 * the same bytes in the same order.  block_stop sees a tool_use with input
 * parsed. */
struct fold_hooks {
	void (*text)(void *ctx, size_t index, const char *s, size_t n);
	void (*thinking)(void *ctx, size_t index, const char *s, size_t n);
	void (*block_start)(void *ctx, size_t index, const struct fold_block *b);
	void (*block_stop)(void *ctx, size_t index, const struct fold_block *b);
	void *ctx;
};

enum fold_flags {
	/* Do not keep text deltas (they still reach hooks.text): for callers
	 * that only print.  fold_content_json then omits the text blocks. */
	FOLD_DROP_TEXT = 1 << 0,
};

struct fold_msg {
	char *id, *model;
	char *stop_reason;	/* NULL until a message_delta carried one */
	char *stop_sequence;
	struct fold_usage usage;
	struct fold_block *blocks;	/* indexed by the stream's "index" */
	size_t nblocks;
	int started;		/* message_start seen */
	int content;		/* some content block started */
	int done;		/* message_stop seen */
	char *error_type;	/* from an error event, e.g. "overloaded_error" */
	char *error_message;
	size_t kept;		/* bytes of text, input and signatures kept */
	char *err;		/* sticky failure, NULL while all is well; this
				 * and error_* have controls made '?' */
	unsigned flags;
	struct fold_hooks hooks;
};

void fold_init(struct fold_msg *m, unsigned flags, const struct fold_hooks *hooks);
void fold_release(struct fold_msg *m);

/*
 * Fold one event.  type is the SSE event name (may be NULL), data its
 * data.  0, or -1 with *err (malloc'd copy of m->err; err may be NULL).
 */
int fold_event(struct fold_msg *m, const char *type, const char *data, size_t len, char **err);

/* sse_event_fn adapter: ctx is a struct fold_msg *; returns 0 or -1 (the
 * reason is in m->err). */
int fold_sse_event(void *ctx, const struct sse_event *ev);

/* sse_fast_fn for sse_set_fast (ctx: the struct fold_msg *): folds whole
 * text-delta events in the API's compact form straight from the stream's
 * bytes, with the same result as fold_sse_event. */
size_t fold_sse_fast(void *ctx, const char *s, size_t n, size_t max_event);

/* 1 when id is one the API takes for a tool_use: [A-Za-z0-9_-]+. */
int fold_tool_id_ok(const char *id);

/* Refuse tool call i after the fact (its id repeats one of an earlier
 * message): it is no longer ready, is left out of the content, and why
 * (taken, malloc'd) becomes its input_error. */
void fold_refuse_call(struct fold_msg *m, size_t i, char *why);

/* 1 when block i is a tool_use that may be run: stopped, input parsed. */
int fold_tool_ready(const struct fold_msg *m, size_t i);

/*
 * The assistant content array to send back, all of it UTF-8 (a byte that
 * is not becomes U+FFFD; a tool_use's name is made so at its start, its
 * input refused): text blocks (non-empty),
 * thinking blocks that carry a signature, redacted_thinking blocks, and
 * tool_use blocks that are fold_tool_ready.  Others are left out (a
 * half-built tool call cut by max_tokens must not be replayed).
 */
cJSON *fold_content_json(const struct fold_msg *m);

/*
 * The same array, but the text and thinking strings are moved into the
 * tree instead of copied (m's blocks are left with empty text): a long
 * answer is then held once, in the history, not twice.  Relies on cJSON's
 * default allocator (malloc/free), which sandbx never replaces.
 */
cJSON *fold_content_take(struct fold_msg *m);

/* {"id","model","stop_reason","stop_sequence","usage":{..},"content":[..],
 *  "dropped":[{"index","type","reason"}..]} */
cJSON *fold_msg_json(const struct fold_msg *m);

#endif
