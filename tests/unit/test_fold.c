/* test_fold.c — folding Anthropic stream events into a message: every
 * fixture folds to the same message at every split, and each event shape
 * lands where it should. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "agent/fold.h"
#include "util/utf8.h"
#include "tools/tools.h"
#include "agent/sse.h"
#include "sse_fixtures.h"

struct seen {
	char *text;		/* text deltas as the hooks saw them */
	size_t len, cap;
	int thinking_calls, starts, stops;
};

static void seen_text(void *ctx, size_t index, const char *s, size_t n)
{
	struct seen *w = ctx;
	if (w->len + n + 1 > w->cap) {
		w->cap = (w->len + n + 1) * 2;
		w->text = xrealloc(w->text, w->cap);
	}
	memcpy(w->text + w->len, s, n);
	w->len += n;
	w->text[w->len] = '\0';
}

static void seen_thinking(void *ctx, size_t index, const char *s, size_t n)
{
	((struct seen *)ctx)->thinking_calls++;
}

static void seen_start(void *ctx, size_t index, const struct fold_block *b)
{
	((struct seen *)ctx)->starts++;
}

static void seen_stop(void *ctx, size_t index, const struct fold_block *b)
{
	((struct seen *)ctx)->stops++;
	if (b->type == FOLD_TOOL_USE)
		assert_true(b->input != NULL || b->input_error != NULL);
}

struct run {
	struct fold_msg m;
	struct sse_parser *p;
	struct seen w;
	int rc;
};

static int feed(void *ctx, const char *s, size_t n)
{
	struct run *r = ctx;
	char *copy = xmalloc(n);	/* exact and short-lived: see test_sse.c */
	memcpy(copy, s, n);
	int rc = sse_feed(r->p, copy, n, NULL);
	memset(copy, 'Z', n);
	free(copy);
	return rc;
}

/* Not a fold flag: run_* also sets the parser's fast path (fold_sse_fast). */
#define RUN_FAST 0x10000u

/* Fold buf cut the given way, with an event cap (0: the default); r is
 * released by run_done. */
static void run_bytes(struct run *r, const char *buf, size_t len, size_t cap, enum fx_split how, unsigned seed,
		      unsigned flags)
{
	memset(r, 0, sizeof(*r));
	struct fold_hooks h = { seen_text, seen_thinking, seen_start, seen_stop, &r->w };
	fold_init(&r->m, flags & ~RUN_FAST, &h);
	r->p = sse_new(cap, fold_sse_event, &r->m);
	if (flags & RUN_FAST)
		sse_set_fast(r->p, fold_sse_fast);
	r->rc = fx_slices(buf, len, how, seed, feed, r);
}

static void run_fixture(struct run *r, const char *name, enum fx_split how, unsigned seed, unsigned flags)
{
	size_t len = 0;
	char *buf = fx_read(name, &len);
	assert_non_null(buf);
	run_bytes(r, buf, len, 0, how, seed, flags);
	free(buf);
}

static void run_done(struct run *r)
{
	sse_free(r->p);
	fold_release(&r->m);
	free(r->w.text);
}

static char *msg_str(const struct fold_msg *m)
{
	cJSON *j = fold_msg_json(m);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static void test_fold_fixtures_every_split(void **state)
{
	struct strv names = fx_list();
	assert_true(names.n >= 10);
	for (size_t i = 0; i < names.n; i++) {
		struct run base;
		run_fixture(&base, names.v[i], FX_WHOLE, 0, 0);
		char *want = msg_str(&base.m);
		const char *want_text = base.w.text ? base.w.text : "";
		/* The base has no fast path; every cut is tried with and
		 * without it. */
		enum fx_split hows[] = { FX_WHOLE, FX_BYTES, FX_CRLF, FX_RANDOM, FX_RANDOM, FX_RANDOM };
		unsigned seeds[] = { 0, 0, 0, 3, 77, 4242 };
		for (size_t k = 0; k < 2 * SBX_ARRAY_LEN(hows); k++) {
			struct run r;
			size_t h = k % SBX_ARRAY_LEN(hows);
			run_fixture(&r, names.v[i], hows[h], seeds[h], k >= SBX_ARRAY_LEN(hows) ? RUN_FAST : 0);
			char *got = msg_str(&r.m);
			if (strcmp(got, want) != 0)
				fail_msg("%s split %d seed %u fast %d:\n%s\n---\n%s", names.v[i], (int)hows[h], seeds[h],
					 k >= SBX_ARRAY_LEN(hows), got, want);
			assert_int_equal(r.rc, base.rc);
			assert_string_equal(r.w.text ? r.w.text : "", want_text);
			assert_int_equal(r.w.stops, base.w.stops);
			free(got);
			run_done(&r);
		}
		free(want);
		run_done(&base);
	}
	strv_free(&names);
}

static void test_fold_text_answer(void **state)
{
	struct run r;
	run_fixture(&r, "text.sse", FX_RANDOM, 5, 0);
	assert_int_equal(r.rc, 0);
	assert_true(r.m.started && r.m.done && r.m.content);
	assert_string_equal(r.m.id, "msg_01TextAnswer");
	assert_string_equal(r.m.stop_reason, "end_turn");
	assert_int_equal(r.m.usage.input_tokens, 25);
	assert_int_equal(r.m.usage.output_tokens, 15);
	assert_int_equal(r.m.nblocks, 1);
	const char *want = "Hello, world — h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c \xf0\x9f\x99\x82!\nSecond line with \"quotes\".";
	assert_string_equal(r.m.blocks[0].text, want);
	assert_string_equal(r.w.text, want);
	cJSON *c = fold_content_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(c), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "text")->valuestring, want);
	cJSON_Delete(c);
	run_done(&r);
}

static void test_fold_tool_use_joined(void **state)
{
	struct run r;
	run_fixture(&r, "tool_use.sse", FX_BYTES, 0, 0);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.m.stop_reason, "tool_use");
	assert_int_equal(r.m.usage.cache_read_input_tokens, 128);
	assert_int_equal(r.m.nblocks, 3);
	assert_false(fold_tool_ready(&r.m, 0));
	assert_true(fold_tool_ready(&r.m, 1));
	assert_true(fold_tool_ready(&r.m, 2));
	assert_false(fold_tool_ready(&r.m, 3));
	char *in = cJSON_PrintUnformatted(r.m.blocks[1].input);
	assert_string_equal(in, "{\"path\":\"src/main.c\",\"limit\":40,\"note\":\"caf\xc3\xa9\"}");
	free(in);
	assert_string_equal(r.m.blocks[1].id, "toolu_01ReadFile");
	assert_string_equal(r.m.blocks[1].name, "read");
	in = cJSON_PrintUnformatted(r.m.blocks[2].input);
	assert_string_equal(in, "{}");		/* no fragments: {} */
	free(in);
	cJSON *c = fold_content_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(c), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 2), "id")->valuestring, "toolu_02ListDir");
	cJSON_Delete(c);
	assert_int_equal(r.w.stops, 3);
	run_done(&r);
}

static void test_fold_thinking_signature(void **state)
{
	struct run r;
	run_fixture(&r, "thinking.sse", FX_CRLF, 0, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.blocks[0].type, FOLD_THINKING);
	assert_non_null(strstr(r.m.blocks[0].text, "147 = 7 * 21 + 0"));
	assert_non_null(r.m.blocks[0].signature);
	assert_int_equal(strncmp(r.m.blocks[0].signature, "EqQBCgIYAhIM", 12), 0);
	assert_int_equal(r.w.thinking_calls, 2);
	cJSON *c = fold_content_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(c), 2);
	cJSON *t = cJSON_GetArrayItem(c, 0);
	assert_string_equal(cJSON_GetObjectItem(t, "type")->valuestring, "thinking");
	assert_string_equal(cJSON_GetObjectItem(t, "signature")->valuestring, r.m.blocks[0].signature);
	cJSON_Delete(c);
	run_done(&r);
}

static void test_fold_redacted_thinking(void **state)
{
	struct run r;
	run_fixture(&r, "redacted_thinking.sse", FX_RANDOM, 11, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.blocks[0].type, FOLD_REDACTED_THINKING);
	assert_int_equal(strncmp(r.m.blocks[0].data, "EmwKAhgBEgy3va3", 15), 0);
	cJSON *c = fold_content_json(&r.m);
	/* redacted kept; the unsigned thinking block left out; the text kept */
	assert_int_equal(cJSON_GetArraySize(c), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "type")->valuestring, "redacted_thinking");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 1), "text")->valuestring, "Here is my answer.");
	cJSON_Delete(c);
	run_done(&r);
}

static void test_fold_pings_and_comments_ignored(void **state)
{
	struct run r;
	run_fixture(&r, "ping.sse", FX_BYTES, 0, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.nblocks, 1);
	assert_string_equal(r.m.blocks[0].text, "pong");
	assert_true(r.m.done);
	run_done(&r);
}

static void test_fold_error_event_fails(void **state)
{
	struct run r;
	run_fixture(&r, "error_midstream.sse", FX_RANDOM, 9, 0);
	assert_int_equal(r.rc, -1);
	assert_string_equal(r.m.error_type, "overloaded_error");
	assert_string_equal(r.m.error_message, "Overloaded");
	assert_non_null(strstr(r.m.err, "overloaded_error: Overloaded"));
	assert_string_equal(r.m.blocks[0].text, "Partial answer");
	assert_false(r.m.done);
	char *err = NULL;
	assert_int_equal(fold_event(&r.m, "ping", "{\"type\":\"ping\"}", 15, &err), -1);	/* sticky */
	assert_non_null(strstr(err, "overloaded_error"));
	free(err);
	run_done(&r);
}

static void test_fold_max_tokens_inside_tool_use(void **state)
{
	struct run r;
	run_fixture(&r, "max_tokens_tool.sse", FX_RANDOM, 21, 0);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.m.stop_reason, "max_tokens");
	assert_false(fold_tool_ready(&r.m, 1));
	assert_null(r.m.blocks[1].input);
	assert_non_null(r.m.blocks[1].input_error);
	cJSON *j = fold_msg_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "content")), 1);
	cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "dropped"), 0);
	assert_int_equal(cJSON_GetObjectItem(d, "index")->valueint, 1);
	cJSON_Delete(j);
	run_done(&r);

	/* The same call cut before its content_block_stop. */
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	const char *evs[] = {
		"{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}",
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"bash\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"rm\"}}",
		"{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":9}}",
		"{\"type\":\"message_stop\"}",
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(evs); i++)
		assert_int_equal(fold_event(&m, NULL, evs[i], strlen(evs[i]), NULL), 0);
	assert_false(fold_tool_ready(&m, 0));
	assert_int_equal(m.usage.output_tokens, 9);
	assert_int_equal(m.usage.input_tokens, 1);
	cJSON *c = fold_content_json(&m);
	assert_int_equal(cJSON_GetArraySize(c), 0);
	cJSON_Delete(c);
	fold_release(&m);
}

/* A message_start, then each of evs (JSON event data) folded into *m. */
#define EV_MSG_START "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}"
static void fold_all(struct fold_msg *m, const char *const *evs, size_t n)
{
	fold_init(m, 0, NULL);
	assert_int_equal(fold_event(m, NULL, EV_MSG_START, strlen(EV_MSG_START), NULL), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fold_event(m, NULL, evs[i], strlen(evs[i]), NULL), 0);
}

/* A tool input with a \u0000 escape is refused whole: cJSON would cut the
 * string there ("a.txt\u0000/../x" read as "a.txt"). */
static void test_fold_tool_input_nul(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a.txt\\\\u0000/../x\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"read\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a\\\\\\\\u0000\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	assert_null(m.blocks[0].input);
	assert_non_null(strstr(m.blocks[0].input_error, "holds a NUL character"));
	/* an escaped backslash before "u0000" is text, not a NUL */
	assert_non_null(m.blocks[1].input);
	assert_string_equal(cJSON_GetObjectItem(m.blocks[1].input, "path")->valuestring, "a\\u0000");
	fold_release(&m);
	assert_int_equal(tools_json_has_nul("\"\\u0000\"", 8), 1);
	assert_int_equal(tools_json_has_nul("\"\\\\u0000\"", 9), 0);
	assert_int_equal(tools_json_has_nul("\"\\u0001\"", 8), 0);
	assert_int_equal(tools_json_has_nul("\"\\u00", 5), 0);
}

/* ... and so is one sent whole in content_block_start, which cJSON parses
 * with the event: before, "a.txt\u0000/../x" there reached the tool (and
 * the question) as "a.txt". */
static void test_fold_tool_input_nul_start(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\\u0000; rm -rf ~\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"read\",\"input\":{\"path\":\"a\\\\u0000\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	assert_false(fold_tool_ready(&m, 0));
	assert_null(m.blocks[0].input);
	assert_non_null(m.blocks[0].input_error);
	assert_non_null(strstr(m.blocks[0].input_error, "'bash' (t1) holds a NUL character"));
	/* an escaped backslash before "u0000" is text, not a NUL */
	assert_true(fold_tool_ready(&m, 1));
	assert_string_equal(cJSON_GetObjectItem(m.blocks[1].input, "path")->valuestring, "a\\u0000");
	fold_release(&m);
}

/* Text after a NUL in the model's text or thinking (a \u0000 escape, or
 * a raw NUL byte) is kept, the NUL written \x00 as the tools write one in
 * a result: cJSON ends its strings at a NUL, and before, " hidden tail"
 * was dropped from the screen, the output, the session and the history
 * without a word.  The hook sees what is kept; a tool input delta holding
 * one (not escaped as JSON text) is refused as holding a NUL. */
static void test_fold_text_nul_kept(void **state)
{
	struct fold_msg m;
	struct seen w = { 0 };
	struct fold_hooks h = { .ctx = &w, .text = seen_text };
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"start\\u0000 kept \"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"first part\\u0000 hidden tail\"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" second delta.\"}}",
		"{ \"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \" a\\u0000\\u0000b \\\\u0000 c\\\\\\u0000d\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"thinking_delta\",\"text\":\"\",\"thinking\":\"think\\u0000 more\"}}",
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig\"}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"bash\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls\\u0000; rm\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
	};
	fold_init(&m, 0, &h);
	assert_int_equal(fold_event(&m, NULL, EV_MSG_START, strlen(EV_MSG_START), NULL), 0);
	for (size_t i = 0; i < SBX_ARRAY_LEN(evs); i++)
		assert_int_equal(fold_event(&m, NULL, evs[i], strlen(evs[i]), NULL), 0);
	const char *want = "start\\x00 kept first part\\x00 hidden tail second delta. a\\x00\\x00b \\u0000 c\\\\x00d";
	assert_string_equal(m.blocks[0].text, want);
	assert_int_equal(m.blocks[0].text_len, strlen(want));
	assert_string_equal(w.text, want);
	assert_string_equal(m.blocks[1].text, "think\\x00 more");
	assert_null(m.blocks[2].input);
	assert_non_null(strstr(m.blocks[2].input_error, "'bash' (t1) holds a NUL character"));
	fold_release(&m);
	free(w.text);

	/* a raw NUL byte in the event's string, as the SSE parser passes it */
	static const char raw[] = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\0y\"}}";
	static const char start[] = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}";
	fold_init(&m, 0, NULL);
	assert_int_equal(fold_event(&m, NULL, EV_MSG_START, strlen(EV_MSG_START), NULL), 0);
	assert_int_equal(fold_event(&m, NULL, start, strlen(start), NULL), 0);
	assert_int_equal(fold_event(&m, NULL, raw, sizeof(raw) - 1, NULL), 0);
	assert_string_equal(m.blocks[0].text, "x\\x00y");
	fold_release(&m);

	/* the text \u0000 (an escaped backslash, then u0000) in a tool's
	 * input is no NUL: the call stands, its text as written (a program
	 * printing the escape) */
	static const char ts[] = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"bash\",\"input\":{}}}";
	static const char td[] = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"printf 'a\\\\\\\\u0000b'\\\"}\"}}";
	static const char tstop[] = "{\"type\":\"content_block_stop\",\"index\":0}";
	fold_init(&m, 0, NULL);
	assert_int_equal(fold_event(&m, NULL, EV_MSG_START, strlen(EV_MSG_START), NULL), 0);
	assert_int_equal(fold_event(&m, NULL, ts, strlen(ts), NULL), 0);
	assert_int_equal(fold_event(&m, NULL, td, strlen(td), NULL), 0);
	assert_int_equal(fold_event(&m, NULL, tstop, strlen(tstop), NULL), 0);
	assert_null(m.blocks[0].input_error);
	assert_non_null(m.blocks[0].input);
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(m.blocks[0].input, "command");
	assert_true(cJSON_IsString(cmd));
	assert_string_equal(cmd->valuestring, "printf 'a\\u0000b'");
	fold_release(&m);
}

/* The API refuses every request whose history names one tool_use id
 * twice, or an id outside [A-Za-z0-9_-]: a call so named is not run (not
 * ready) and not kept, whichever index it has; the first of a repeated id
 * stands. */
static void test_fold_tool_id_refused(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_A-1\",\"name\":\"read\",\"input\":{\"path\":\"a\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_A-1\",\"name\":\"bash\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu 1\",\"name\":\"read\",\"input\":{\"path\":\"b\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_\\u00e9\",\"name\":\"read\",\"input\":{\"path\":\"c\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":3}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	assert_null(m.err);
	assert_true(fold_tool_ready(&m, 2));	/* the first to start */
	assert_false(fold_tool_ready(&m, 0));
	assert_null(m.blocks[0].input);
	assert_non_null(strstr(m.blocks[0].input_error, "'bash' (toolu_A-1) has the id of an earlier call"));
	assert_false(fold_tool_ready(&m, 1));
	assert_non_null(strstr(m.blocks[1].input_error, "(toolu 1) has an id the API refuses"));
	assert_false(fold_tool_ready(&m, 3));
	assert_non_null(strstr(m.blocks[3].input_error, "has an id the API refuses"));
	cJSON *c = fold_content_json(&m);
	assert_int_equal(cJSON_GetArraySize(c), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "id")->valuestring, "toolu_A-1");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "name")->valuestring, "read");
	cJSON_Delete(c);
	/* refused after the fact (an id of an earlier message) */
	fold_refuse_call(&m, 2, xstrdup("repeated"));
	assert_false(fold_tool_ready(&m, 2));
	c = fold_content_json(&m);
	assert_int_equal(cJSON_GetArraySize(c), 0);
	cJSON_Delete(c);
	assert_true(fold_tool_id_ok("toolu_01AbZ-9"));
	assert_false(fold_tool_id_ok(""));
	assert_false(fold_tool_id_ok("a.b"));
	fold_release(&m);
}

/* 1 when s is UTF-8 throughout. */
static int all_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t cp;
		int l = utf8_decode(p, strlen((const char *)p), &cp);
		if (l <= 0)
			return 0;
		p += l;
	}
	return 1;
}

/* The API refuses a request that is not UTF-8: what the content array
 * sends back is UTF-8 whatever bytes the stream carried (a character split
 * across two deltas stays whole), and a tool input holding such bytes is
 * refused, not run with them. */
static void test_fold_content_utf8(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\xff start \"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\xc3\"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xa9 \xed\xa0\x80 \xc3\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"write\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a\\\", \\\"content\\\": \\\"\xfe\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"read\",\"input\":{\"path\":\"b\x80\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
		"{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"re\xc0\xaf" "ad\",\"input\":{\"path\":\"c\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":3}",
		"{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t4\",\"name\":\"read\",\"input\":{\"path\":\"d\xc3\xa9\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":4}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	assert_null(m.err);
	assert_false(fold_tool_ready(&m, 1));
	assert_non_null(strstr(m.blocks[1].input_error, "'write' (t1) holds bytes that are not UTF-8"));
	assert_false(fold_tool_ready(&m, 2));
	assert_non_null(strstr(m.blocks[2].input_error, "'read' (t2) holds bytes that are not UTF-8"));
	assert_true(fold_tool_ready(&m, 3));	/* an unknown tool: the gate refuses it */
	assert_true(all_utf8(m.blocks[3].name));
	assert_true(fold_tool_ready(&m, 4));	/* UTF-8 beyond ASCII is fine */
	cJSON *c = fold_content_json(&m);
	char *out = cJSON_PrintUnformatted(c);
	assert_true(all_utf8(out));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "text")->valuestring,
			    "\xef\xbf\xbd start caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd");
	assert_int_equal(cJSON_GetArraySize(c), 3);	/* the text, t3, t4 */
	free(out);
	cJSON_Delete(c);
	c = fold_content_take(&m);	/* the history's own copy too */
	out = cJSON_PrintUnformatted(c);
	assert_true(all_utf8(out));
	free(out);
	cJSON_Delete(c);
	fold_release(&m);
}

/* No tool takes a nested or long input: refused before it is parsed (a
 * tree node per two bytes sent), in the joined fragments and in the input
 * of content_block_start alike. */
static void test_fold_tool_input_flat(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a\\\", \\\"x\\\": [1,1,1]}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"read\",\"input\":{\"path\":{\"a\":1}}}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"read\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"[{,}]\\\\\\\"[\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
		"{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t4\",\"name\":\"read\",\"input\":{\"path\":\"b\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":3}",
		/* a member named twice, joined or in the start event: a tool
		 * would take the first, a reader of the question the second */
		"{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t5\",\"name\":\"bash\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"ls\\\", \\\"command\\\": \\\"rm x\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":4}",
		"{\"type\":\"content_block_start\",\"index\":5,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t6\",\"name\":\"read\",\"input\":{\"path\":\"a\",\"path\":\"b\"}}}",
		"{\"type\":\"content_block_stop\",\"index\":5}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	assert_null(m.blocks[0].input);
	assert_non_null(strstr(m.blocks[0].input_error, "'read' (t1) is not a flat JSON object of at most 32 members"));
	assert_null(m.blocks[1].input);
	assert_non_null(strstr(m.blocks[1].input_error, "(t2) is not a flat JSON object"));
	/* brackets, braces and commas inside a string are text */
	assert_non_null(m.blocks[2].input);
	assert_string_equal(cJSON_GetObjectItem(m.blocks[2].input, "path")->valuestring, "[{,}]\"[");
	assert_string_equal(cJSON_GetObjectItem(m.blocks[3].input, "path")->valuestring, "b");
	assert_null(m.blocks[4].input);
	assert_non_null(strstr(m.blocks[4].input_error, "'bash' (t5) names a member twice"));
	assert_null(m.blocks[5].input);
	assert_non_null(strstr(m.blocks[5].input_error, "'read' (t6) names a member twice"));
	fold_release(&m);

	assert_int_equal(tools_json_is_flat("{\"a\":1,\"b\":\"x\",\"c\":true}", 25, 3), 1);
	assert_int_equal(tools_json_is_flat("{\"a\":1,\"b\":\"x\",\"c\":true}", 25, 2), 0);
	assert_int_equal(tools_json_is_flat(" {} ", 4, 1), 1);
	assert_int_equal(tools_json_is_flat("[1]", 3, 8), 0);
	assert_int_equal(tools_json_is_flat("{}{}", 4, 8), 0);
	assert_int_equal(tools_json_is_flat("{\"a\":{}}", 8, 8), 0);
	assert_int_equal(tools_json_is_flat("{\"a\\\\\":[]}", 10, 8), 0);
	assert_int_equal(tools_json_is_flat("{\"a\\\"[\":1}", 10, 8), 1);
}

static void test_fold_unknown_ignored(void **state)
{
	struct run r;
	run_fixture(&r, "unknown.sse", FX_BYTES, 0, 0);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.m.blocks[0].text, "Known text survives.");
	assert_int_equal(r.m.blocks[1].type, FOLD_OTHER);
	cJSON *c = fold_content_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(c), 1);
	cJSON_Delete(c);
	run_done(&r);
}

static int fold_one(const char *type, const char *data, char **err)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	const char *s = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}}";
	assert_int_equal(fold_event(&m, NULL, s, strlen(s), NULL), 0);
	int rc = fold_event(&m, type, data, strlen(data), err);
	fold_release(&m);
	return rc;
}

static void test_fold_malformed_fails(void **state)
{
	struct {
		const char *type, *data, *needle;
	} bad[] = {
		{ "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":5,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}", "never started" },
		{ "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}", "got a 'text_delta'" },
		{ "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\"}}", "no 'partial_json'" },
		{ "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\"}}", "started twice" },
		{ "content_block_start", "{\"type\":\"content_block_start\",\"index\":99999,\"content_block\":{\"type\":\"text\"}}", "index" },
		{ "content_block_start", "{\"type\":\"content_block_start\",\"index\":1.5,\"content_block\":{\"type\":\"text\"}}", "index" },
		{ "content_block_stop", "{\"type\":\"content_block_stop\"}", "index" },
		{ "message_delta", "not json", "malformed" },
		{ "error", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}", "api_error: Internal" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *err = NULL;
		assert_int_equal(fold_one(bad[i].type, bad[i].data, &err), -1);
		assert_non_null(err);
		if (!strstr(err, bad[i].needle))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].needle);
		free(err);
	}
	char *err = NULL;
	assert_int_equal(fold_one("mystery", "not json", &err), 0);	/* unknown: ignored */
	assert_null(err);
}

static void test_fold_drop_text_still_hooks(void **state)
{
	struct run r;
	run_fixture(&r, "text.sse", FX_WHOLE, 0, FOLD_DROP_TEXT);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.blocks[0].text_len, 0);
	assert_non_null(strstr(r.w.text, "Second line"));
	cJSON *c = fold_content_json(&r.m);
	assert_int_equal(cJSON_GetArraySize(c), 0);
	cJSON_Delete(c);
	run_done(&r);
}

static void test_fold_text_grows_by_doubling(void **state)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	const char *s = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}";
	assert_int_equal(fold_event(&m, NULL, s, strlen(s), NULL), 0);
	char ev[256];
	int n = snprintf(ev, sizeof(ev), "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}",
			 "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789");
	char *last = NULL;
	int moves = 0;
	for (int i = 0; i < 50000; i++) {
		assert_int_equal(fold_event(&m, NULL, ev, (size_t)n, NULL), 0);
		if (m.blocks[0].text != last) {
			moves++;
			last = m.blocks[0].text;
		}
	}
	assert_int_equal(m.blocks[0].text_len, 5000000);
	assert_true(m.blocks[0].text_cap <= 2 * (m.blocks[0].text_len + 1));
	assert_true(moves <= 25);	/* log2(5 MB / 256) reallocations at most move it */
	fold_release(&m);
}

/* The compact text_delta fast path and the general path agree, and the
 * fast path leaves every odd case to the general one. */
static void test_fold_compact_and_spaced_agree(void **state)
{
	const char *start = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}";
	const char *compact = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\\u00e9 \\\"q\\\"\\n\\ud83d\\ude42\"}}";
	const char *spaced = "{\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"caf\\u00e9 \\\"q\\\"\\n\\ud83d\\ude42\"}}";
	const char *stop = "{\"type\":\"content_block_stop\",\"index\":0}";
	struct fold_msg a, b;
	fold_init(&a, 0, NULL);
	fold_init(&b, 0, NULL);
	assert_int_equal(fold_event(&a, NULL, start, strlen(start), NULL), 0);
	assert_int_equal(fold_event(&b, NULL, start, strlen(start), NULL), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fold_event(&a, NULL, compact, strlen(compact), NULL), 0);
		assert_int_equal(fold_event(&b, NULL, spaced, strlen(spaced), NULL), 0);
	}
	assert_string_equal(a.blocks[0].text, b.blocks[0].text);
	assert_int_equal(a.blocks[0].text_len, 3 * strlen("caf\xc3\xa9 \"q\"\n\xf0\x9f\x99\x82"));
	/* After the stop, a compact delta is refused like a spaced one. */
	assert_int_equal(fold_event(&a, NULL, stop, strlen(stop), NULL), 0);
	char *err = NULL;
	assert_int_equal(fold_event(&a, NULL, compact, strlen(compact), &err), -1);
	assert_non_null(strstr(err, "after it stopped"));
	free(err);
	/* A quote inside the compact form's text ends the string early:
	 * another key follows, and the text is "y" alone. */
	const char *extra = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"y\",\"z\":\"w\"}}";
	size_t had = b.blocks[0].text_len;
	assert_int_equal(fold_event(&b, NULL, extra, strlen(extra), NULL), 0);
	assert_int_equal(b.blocks[0].text_len, had + 1);
	assert_int_equal(b.blocks[0].text[had], 'y');
	/* Trailing junk after the compact form: the general path rejects it. */
	const char *junk = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}}";
	err = NULL;
	assert_int_equal(fold_event(&b, "content_block_delta", junk, strlen(junk), &err), -1);
	assert_non_null(strstr(err, "malformed"));
	free(err);
	fold_release(&a);
	fold_release(&b);
}

#define DELTA(i, t) "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" i ",\"delta\":{\"type\":\"text_delta\",\"text\":\"" t "\"}}\n\n"
#define START_TEXT(i) "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" i ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
#define STOP(i) "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" i "}\n\n"
#define HEAD "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_f\",\"model\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n" START_TEXT("0")
#define TAIL STOP("0") "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

/* What fold_sse_fast takes from a slice: whole events of the compact
 * text-delta shape, up to the first that is anything else. */
static void test_fold_sse_fast_takes(void **state)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	const char *st = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}";
	assert_int_equal(fold_event(&m, NULL, st, strlen(st), NULL), 0);
	const char *d = DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld ");
	size_t dn = strlen(d);
	struct {
		const char *s;
		size_t want;	/* bytes taken */
	} c[] = {
		{ DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld ") DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld "), 2 * dn },
		{ DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld ") DELTA("0", "a\\nb") DELTA("0", "x"), dn },	/* an escape */
		{ DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld ") DELTA("0", "tab\there"), dn },	/* a raw control */
		{ DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld ") DELTA("1", "x"), dn },	/* no block 1 */
		{ DELTA("0", "") DELTA("0", "Hello, 0123456789abcdef w\xc3\xb6rld "), strlen(DELTA("0", "")) + dn },
		{ "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\r\n\r\n", 0 },
		{ "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\ndata: y\n\n", 0 },
		{ "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n", 0 },	/* cut */
		{ "event: content_block_delta\ndata:  {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", 0 },
		{ "event: ping\ndata: {\"type\":\"ping\"}\n\n", 0 },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(c); i++) {
		size_t got = fold_sse_fast(&m, c[i].s, strlen(c[i].s), SSE_MAX_EVENT);
		if (got != c[i].want)
			fail_msg("case %zu: took %zu bytes, want %zu", i, got, c[i].want);
	}
	/* The event cap counts every byte of the event: at its size exactly
	 * the event is taken, one byte below it is not. */
	assert_int_equal(fold_sse_fast(&m, d, dn, dn), dn);
	assert_int_equal(fold_sse_fast(&m, d, dn, dn - 1), 0);
	/* The text went into block 0: 2 + 1 + 1 + 1 + 1 + 1 deltas above. */
	assert_int_equal(m.blocks[0].text_len, 7 * strlen("Hello, 0123456789abcdef w\xc3\xb6rld "));
	/* A failed message takes nothing. */
	const char *bad = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}}";
	assert_int_equal(fold_event(&m, "error", bad, strlen(bad), NULL), -1);
	assert_int_equal(fold_sse_fast(&m, d, dn, SSE_MAX_EVENT), 0);
	fold_release(&m);
}

/* Streams at the fast path's edges fold the same with it and without it,
 * whole and cut anywhere, with the default cap and a small one. */
static void test_fold_sse_fast_agrees(void **state)
{
	const char *streams[] = {
		HEAD DELTA("0", "plain ") DELTA("0", "text") DELTA("0", "") TAIL,
		HEAD DELTA("0", "esc \\\"q\\\" \\u00e9\\n") DELTA("0", "x\\\"}}") TAIL,
		HEAD DELTA("0", "caf\xc3\xa9 \xf0\x9f\x99\x82") DELTA("0", "tab\there") DELTA("0", "nul\\u0000cut") TAIL,
		HEAD "id: 7\nretry: 10\n" DELTA("0", "after id") ": comment\n" DELTA("0", "x") TAIL,
		HEAD DELTA("00", "zero index") DELTA("1", "no block") TAIL,
		HEAD STOP("0") DELTA("0", "after stop") TAIL,
		HEAD "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" DELTA("1", "to thinking") TAIL,
		HEAD "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"two\"}}\ndata: lines\n\n" TAIL,
		HEAD "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"comment\"}}\n:c\n\n" TAIL,
		HEAD "event: other\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"named other\"}}\n\n" TAIL,
		HEAD "event:content_block_delta\ndata:{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"no spaces\"}}\n\n" TAIL,
		HEAD DELTA("0", "0123456789012345678901234567890123456789012345678901234567890123456789 long enough for a small cap") TAIL,
		HEAD DELTA("0", "cut at the end"),
		HEAD "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"cut",
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(streams); i++) {
		size_t len = strlen(streams[i]);
		for (int c = 0; c < 2; c++) {
			size_t cap = c ? 200 : 0;
			for (unsigned drop = 0; drop <= FOLD_DROP_TEXT; drop += FOLD_DROP_TEXT) {
				struct run base;
				run_bytes(&base, streams[i], len, cap, FX_BYTES, 0, drop);
				int cut0 = sse_finish(base.p);
				char *want = msg_str(&base.m);
				enum fx_split hows[] = { FX_WHOLE, FX_RANDOM, FX_RANDOM, FX_CRLF };
				for (size_t k = 0; k < SBX_ARRAY_LEN(hows); k++) {
					struct run r;
					run_bytes(&r, streams[i], len, cap, hows[k], (unsigned)(k * 31 + i), drop | RUN_FAST);
					int cut = sse_finish(r.p);
					char *got = msg_str(&r.m);
					if (strcmp(got, want) != 0 || r.rc != base.rc || cut != cut0 ||
					    strcmp(r.w.text ? r.w.text : "", base.w.text ? base.w.text : "") != 0)
						fail_msg("stream %zu cap %zu drop %u cut %zu: rc %d/%d cut %d/%d\n%s\n---\n%s", i, cap,
							 drop, k, r.rc, base.rc, cut, cut0, got, want);
					free(got);
					run_done(&r);
				}
				free(want);
				run_done(&base);
			}
		}
	}
}

/* The API refuses a text block of only whitespace anywhere in the history
 * ("text content blocks must contain non-whitespace text"): one the model
 * streamed ("\n\n" before a tool call) is shown but not kept, or every
 * later request of the conversation would fail. */
static void test_fold_blank_text_not_kept(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\n\\n \\t\\r\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\",\"input\":{}}}",
		"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a\\\"}\"}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\" ok \"}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	cJSON *c = fold_content_take(&m);
	char *s = cJSON_PrintUnformatted(c);
	assert_string_equal(s, "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\",\"input\":{\"path\":\"a\"}},"
			       "{\"type\":\"text\",\"text\":\" ok \"}]");
	free(s);
	cJSON_Delete(c);
	fold_release(&m);
}

/* A thinking block whose signature is empty, or a redacted_thinking block
 * without its data, is not kept: the API refuses either in a history, and
 * the session refuses to store a round holding one, so before, such a
 * round (and the calls it ran) was missing from the stored session, and
 * every later request of the conversation carried it. */
static void test_fold_thinking_without_proof_not_kept(void **state)
{
	struct fold_msg m;
	(void)state;
	const char *evs[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"\"}}",
		"{\"type\":\"content_block_stop\",\"index\":0}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"redacted_thinking\"}}",
		"{\"type\":\"content_block_stop\",\"index\":1}",
		"{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}",
		"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"\"}}",
		"{\"type\":\"content_block_stop\",\"index\":2}",
		"{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwK\"}}",
		"{\"type\":\"content_block_stop\",\"index\":3}",
		"{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}",
		"{\"type\":\"content_block_stop\",\"index\":4}",
	};
	fold_all(&m, evs, SBX_ARRAY_LEN(evs));
	cJSON *c = fold_content_take(&m);
	char *s = cJSON_PrintUnformatted(c);
	assert_string_equal(s, "[{\"type\":\"redacted_thinking\",\"data\":\"EmwK\"},{\"type\":\"text\",\"text\":\"ok\"}]");
	free(s);
	cJSON_Delete(c);
	fold_release(&m);
}

static void test_fold_content_take_moves_text(void **state)
{
	struct run r;
	run_fixture(&r, "thinking.sse", FX_WHOLE, 0, 0);
	cJSON *copy = fold_content_json(&r.m);
	char *text = r.m.blocks[1].text;
	cJSON *taken = fold_content_take(&r.m);
	char *a = cJSON_PrintUnformatted(copy), *b = cJSON_PrintUnformatted(taken);
	assert_string_equal(a, b);
	/* The very buffer moved into the tree; the block is left empty. */
	assert_ptr_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(taken, 1), "text")->valuestring, text);
	assert_string_equal(r.m.blocks[1].text, "");
	free(a);
	free(b);
	cJSON_Delete(copy);
	run_done(&r);
	cJSON_Delete(taken);	/* outlives the message */
}

static void test_fold_error_text_made_printable(void **state)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	const char *ev = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\\u001b[2J\\u009b31m\\r\\ny\"}}";
	char *err = NULL;
	assert_int_equal(fold_event(&m, "error", ev, strlen(ev), &err), -1);
	assert_null(strchr(err, '\x1b'));
	assert_null(strchr(err, '\r'));
	assert_null(strstr(err, "\xc2\x9b"));
	assert_non_null(strstr(err, "overloaded_error: x?[2J??31m??y"));
	free(err);
	fold_release(&m);
}

/* Fold block starts whose content_block is KIND (its members up to a last
 * string's opening) then a 3 MiB string, until one fails; how many were
 * taken. */
static int big_starts(struct fold_msg *m, const char *kind)
{
	size_t big = 3u << 20;
	char *ev = xmalloc(big + 256);
	int ok = 0;
	for (int b = 0; b < 64; b++) {
		int n = snprintf(ev, 256, "{\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{%s\"", b, kind);
		memset(ev + n, 'D', big);
		memcpy(ev + n + big, "\"}}", 3);
		if (fold_event(m, NULL, ev, (size_t)n + big + 3, NULL) < 0)
			break;
		ok++;
	}
	free(ev);
	return ok;
}

/* What a block's start keeps (redacted data, ids, names) counts against
 * the message's cap: 3 MiB starts fail at the 22nd, never 1,024 of them. */
static void test_fold_block_start_meta_capped(void **state)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	int ok = big_starts(&m, "\"type\":\"redacted_thinking\",\"data\":");
	assert_int_equal(ok, (int)(FOLD_MAX_MESSAGE / (3u << 20)));
	assert_non_null(m.err);
	assert_non_null(strstr(m.err, "cap"));
	fold_release(&m);
	/* the same through tool_use ids */
	fold_init(&m, 0, NULL);
	ok = big_starts(&m, "\"type\":\"tool_use\",\"name\":\"bash\",\"id\":");
	assert_int_equal(ok, (int)(FOLD_MAX_MESSAGE / (3u << 20)));
	assert_non_null(m.err);
	fold_release(&m);
}

/* After message_stop nothing is folded: not a new block, not a delta to
 * an old one, not an error; with or without the fast path, at any cut. */
static void test_fold_after_stop_ignored(void **state)
{
	static const char sse[] =
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\"}}\n\n"
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"one\"}}\n\n"
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"TWO\"}}\n\n"
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"THREE\"}}\n\n"
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"late\"}}\n\n";
	for (unsigned fast = 0; fast <= RUN_FAST; fast += RUN_FAST)
		for (int how = 0; how < 3; how++) {
			struct run r;
			run_bytes(&r, sse, sizeof(sse) - 1, 0, how == 0 ? FX_WHOLE : how == 1 ? FX_BYTES : FX_RANDOM, 5, fast);
			assert_int_equal(r.rc, 0);
			assert_true(r.m.done);
			assert_null(r.m.err);
			assert_int_equal(r.m.nblocks, 1);
			assert_string_equal(r.m.blocks[0].text, "one");
			run_done(&r);
		}
}

static void test_fold_message_and_signature_caps(void **state)
{
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	size_t chunk = 1u << 20;
	char *ev = xmalloc(chunk + 256);
	int rc = 0, blocks = 0;
	size_t added = 0;
	/* Text blocks of up to 30 MiB each until the 64 MiB message cap. */
	for (int b = 0; b < 4 && rc == 0; b++) {
		char *st = xasprintf("{\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}", b);
		assert_int_equal(fold_event(&m, NULL, st, strlen(st), NULL), 0);
		free(st);
		blocks++;
		int n = snprintf(ev, 256, "{\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\"", b);
		memset(ev + n, 'a', chunk);
		memcpy(ev + n + chunk, "\"}}", 3);
		for (int k = 0; k < 30 && rc == 0; k++) {
			rc = fold_event(&m, NULL, ev, (size_t)n + chunk + 3, NULL);
			if (rc == 0)
				added += chunk;
		}
	}
	assert_int_equal(rc, -1);
	assert_int_equal(blocks, 3);
	assert_int_equal(added, FOLD_MAX_MESSAGE);
	assert_non_null(strstr(m.err, "cap"));
	fold_release(&m);
	free(ev);

	/* Signature deltas past 1 MiB fail too. */
	fold_init(&m, 0, NULL);
	const char *st = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}";
	assert_int_equal(fold_event(&m, NULL, st, strlen(st), NULL), 0);
	size_t part = 64u << 10;
	ev = xmalloc(part + 256);
	int n = snprintf(ev, 256, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"");
	memset(ev + n, 'S', part);
	memcpy(ev + n + part, "\"}}", 3);
	int ok = 0;
	rc = 0;
	while (rc == 0 && ok < 100) {
		rc = fold_event(&m, NULL, ev, (size_t)n + part + 3, NULL);
		ok += rc == 0;
	}
	assert_int_equal(rc, -1);
	assert_int_equal(ok, (int)(FOLD_MAX_SIGNATURE / part));
	assert_int_equal(strlen(m.blocks[0].signature), FOLD_MAX_SIGNATURE);
	fold_release(&m);
	free(ev);
}

/* The fast path hands kept text to the hook once per run of deltas to one
 * block, from the kept text; with the text dropped, once per delta. */
struct calls {
	size_t index[16];
	char text[16][64];
	int n;
};

static void record_text(void *ctx, size_t index, const char *s, size_t n)
{
	struct calls *c = ctx;
	assert_true(c->n < 16 && n < 64);
	c->index[c->n] = index;
	memcpy(c->text[c->n], s, n);
	c->text[c->n][n] = '\0';
	c->n++;
}

static void test_fold_fast_hook_per_run(void **state)
{
	const char *starts[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
	};
	const char *s = DELTA("0", "a") DELTA("0", "b") DELTA("0", "c") DELTA("1", "d") DELTA("1", "e") DELTA("0", "f");
	for (unsigned drop = 0; drop <= FOLD_DROP_TEXT; drop += FOLD_DROP_TEXT) {
		struct calls c = { 0 };
		struct fold_hooks h = { record_text, NULL, NULL, NULL, &c };
		struct fold_msg m;
		fold_init(&m, drop, &h);
		for (size_t i = 0; i < 2; i++)
			assert_int_equal(fold_event(&m, NULL, starts[i], strlen(starts[i]), NULL), 0);
		assert_int_equal(fold_sse_fast(&m, s, strlen(s), SSE_MAX_EVENT), strlen(s));
		if (drop) {
			assert_int_equal(c.n, 6);
			assert_string_equal(c.text[5], "f");
		} else {
			assert_int_equal(c.n, 3);
			assert_int_equal(c.index[0], 0);
			assert_string_equal(c.text[0], "abc");
			assert_int_equal(c.index[1], 1);
			assert_string_equal(c.text[1], "de");
			assert_int_equal(c.index[2], 0);
			assert_string_equal(c.text[2], "f");
			assert_string_equal(m.blocks[0].text, "abcf");
			assert_string_equal(m.blocks[1].text, "de");
		}
		fold_release(&m);
	}
}

/* An empty delta is no text: the hook is not called for it on either
 * path, kept or dropped (the general path called it with 0 bytes, the
 * fast one, keeping text, did not: fuzz_sse found the two disagree). */
static void test_fold_empty_delta_not_hooked(void **state)
{
	const char *starts[] = {
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
	};
	const char *s = DELTA("0", "a") DELTA("1", "") DELTA("0", "b");
	for (int fast = 0; fast < 2; fast++) {
		for (unsigned drop = 0; drop <= FOLD_DROP_TEXT; drop += FOLD_DROP_TEXT) {
			struct calls c = { 0 };
			struct fold_hooks h = { record_text, NULL, NULL, NULL, &c };
			struct fold_msg m;
			fold_init(&m, drop, &h);
			for (size_t i = 0; i < 2; i++)
				assert_int_equal(fold_event(&m, NULL, starts[i], strlen(starts[i]), NULL), 0);
			struct sse_parser *p = sse_new(0, fold_sse_event, &m);
			if (fast)
				sse_set_fast(p, fold_sse_fast);
			assert_int_equal(sse_feed(p, s, strlen(s), NULL), 0);
			for (int k = 0; k < c.n; k++)
				if (!c.text[k][0])
					fail_msg("fast %d drop %u: call %d (block %zu) has no text", fast, drop, k, c.index[k]);
			for (int k = 0; k < c.n; k++)
				assert_int_equal(c.index[k], 0);
			sse_free(p);
			fold_release(&m);
		}
	}
}

/* A long text: the bytes past it are faulted in a step ahead of the copies
 * (madvise MADV_POPULATE_WRITE, Linux 5.14), never more than a step, and
 * the text is what was sent. */
static void test_fold_populate_ahead(void **state)
{
	const size_t each = 48, count = (3u << 20) / 48;
	const char *st = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}";
	const char *pre = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
			  "\"delta\":{\"type\":\"text_delta\",\"text\":\"";
	const char *post = "\"}}\n\n";
	size_t ev = strlen(pre) + each + strlen(post), page = (size_t)getpagesize();
	char *buf = xmalloc(ev * 1024);
	struct fold_msg m;
	fold_init(&m, 0, NULL);
	assert_int_equal(fold_event(&m, NULL, st, strlen(st), NULL), 0);
	for (size_t done = 0; done < count;) {
		size_t k = count - done < 1024 ? count - done : 1024, len = 0;
		for (size_t j = 0; j < k; j++, done++) {
			memcpy(buf + len, pre, strlen(pre));
			len += strlen(pre);
			for (size_t x = 0; x < each; x++)
				buf[len++] = (char)('a' + (done + x) % 26);
			memcpy(buf + len, post, strlen(post));
			len += strlen(post);
		}
		assert_int_equal(fold_sse_fast(&m, buf, len, SSE_MAX_EVENT), len);
	}
	const struct fold_block *b = &m.blocks[0];
	assert_int_equal(b->text_len, count * each);
	for (size_t i = 0; i < count; i++)
		for (size_t x = 0; x < each; x++)
			if (b->text[i * each + x] != (char)('a' + (i + x) % 26))
				fail_msg("text differs at %zu", i * each + x);
	assert_true(b->text_cap >= FOLD_POPULATE_FROM);
	assert_true(b->text_ready > b->text_len && b->text_ready <= b->text_cap);

	/* Does this kernel populate?  A mapping of our own says. */
	char *probe = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(probe != MAP_FAILED);
	int populates = madvise(probe, 2 * page, MADV_POPULATE_WRITE) == 0;
	munmap(probe, 2 * page);
	if (!populates) {
		assert_int_equal(b->text_ready, b->text_cap);	/* page faults, as before */
	} else {
		/* At most a step past the text's last page, and every page from
		 * that one to the populated end resident. */
		uintptr_t base = (uintptr_t)b->text;
		uintptr_t from = (base + b->text_len) & ~(uintptr_t)(page - 1);
		uintptr_t to = base + b->text_ready;
		assert_true(to <= from + page + FOLD_POPULATE_STEP);
		assert_true(to > from);
		size_t pages = (to - from + page - 1) / page;
		unsigned char *vec = xmalloc(pages);
		assert_int_equal(mincore((void *)from, to - from, vec), 0);
		for (size_t i = 0; i < pages; i++)
			if (!(vec[i] & 1))
				fail_msg("page %zu of %zu ahead of the text is not resident", i, pages);
		free(vec);
	}
	fold_release(&m);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_fixtures_every_split),
		cmocka_unit_test(test_fold_text_answer),
		cmocka_unit_test(test_fold_tool_use_joined),
		cmocka_unit_test(test_fold_thinking_signature),
		cmocka_unit_test(test_fold_redacted_thinking),
		cmocka_unit_test(test_fold_pings_and_comments_ignored),
		cmocka_unit_test(test_fold_error_event_fails),
		cmocka_unit_test(test_fold_max_tokens_inside_tool_use),
		cmocka_unit_test(test_fold_tool_input_nul),
		cmocka_unit_test(test_fold_tool_input_nul_start),
		cmocka_unit_test(test_fold_text_nul_kept),
		cmocka_unit_test(test_fold_tool_input_flat),
		cmocka_unit_test(test_fold_tool_id_refused),
		cmocka_unit_test(test_fold_content_utf8),
		cmocka_unit_test(test_fold_unknown_ignored),
		cmocka_unit_test(test_fold_malformed_fails),
		cmocka_unit_test(test_fold_drop_text_still_hooks),
		cmocka_unit_test(test_fold_empty_delta_not_hooked),
		cmocka_unit_test(test_fold_text_grows_by_doubling),
		cmocka_unit_test(test_fold_compact_and_spaced_agree),
		cmocka_unit_test(test_fold_sse_fast_takes),
		cmocka_unit_test(test_fold_sse_fast_agrees),
		cmocka_unit_test(test_fold_fast_hook_per_run),
		cmocka_unit_test(test_fold_populate_ahead),
		cmocka_unit_test(test_fold_content_take_moves_text),
		cmocka_unit_test(test_fold_blank_text_not_kept),
		cmocka_unit_test(test_fold_thinking_without_proof_not_kept),
		cmocka_unit_test(test_fold_error_text_made_printable),
		cmocka_unit_test(test_fold_message_and_signature_caps),
		cmocka_unit_test(test_fold_block_start_meta_capped),
		cmocka_unit_test(test_fold_after_stop_ignored),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
