/*
 * test_session.c — the session line format, torn-line recovery, resume
 * refusals (modes, owners, symlinks), repair of a dangling tool_use, the
 * full-disk append and listing.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <valgrind/valgrind.h>

#include "store/fsutil.h"
#include "store/session.h"
#include "fsync_spy.h"
#include "store_testutil.h"

#define HDR "{\"type\":\"header\",\"version\":1,\"id\":\"abcd1234\",\"created\":1700000000}\n"
#define PROMPT1 "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"list the files\\nplease\"}]}\n"
#define ASSIST1 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}," \
		"{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"ls\",\"input\":{\"path\":\".\"}}]}\n"
#define RESULT1 "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\"," \
		"\"content\":\"a\\nb\",\"is_error\":false}]}\n"
#define ASSIST2 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"two files\"}]}\n"
#define TURN1 "{\"type\":\"turn\",\"stop_reason\":\"end_turn\",\"rounds\":2,\"usage\":{\"input_tokens\":5,\"output_tokens\":7}}\n"
#define PROMPT2 "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"thanks\"}]}\n"
#define ASSIST3 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"welcome\"}]}\n"
#define TURN2 "{\"type\":\"turn\",\"stop_reason\":\"end_turn\",\"rounds\":1}\n"
#define SAMPLE HDR PROMPT1 ASSIST1 RESULT1 ASSIST2 TURN1 PROMPT2 ASSIST3 TURN2

/* ---- parser helpers ---- */

static void expect_error(const char *text, const char *needle);

static struct session_parser *parse_split(const char *text, size_t len, int mode, unsigned seed)
{
	struct session_parser *p = session_parser_new(0);
	size_t i = 0;
	srand(seed);
	while (i < len) {
		size_t k = mode == 0 ? len - i : mode == 1 ? 1 : 1 + (size_t)rand() % 97;
		if (k > len - i)
			k = len - i;
		if (session_parser_feed(p, text + i, k) < 0)
			break;
		i += k;
	}
	session_parser_finish(p);
	return p;
}

static char *messages_json(struct session_parser *p)
{
	cJSON *m = session_parser_take_messages(p);
	char *s = m ? cJSON_PrintUnformatted(m) : NULL;
	cJSON_Delete(m);
	return s;
}

static void test_session_parse_any_split(void **state)
{
	struct session_parser *p = parse_split(SAMPLE, strlen(SAMPLE), 0, 0);
	assert_null(session_parser_error(p));
	const struct session_info *in = session_parser_info(p);
	assert_int_equal(in->turns, 2);
	assert_int_equal(in->cut_short, 0);
	assert_int_equal(in->created, 1700000000);
	assert_string_equal(in->id, "abcd1234");
	assert_string_equal(in->first_prompt, "list the files");
	assert_int_equal(session_parser_good_end(p), strlen(SAMPLE));
	char *whole = messages_json(p);
	assert_non_null(whole);
	/* user, assistant, user (results), assistant, user, assistant */
	cJSON *arr = cJSON_Parse(whole);
	assert_int_equal(cJSON_GetArraySize(arr), 6);
	cJSON_Delete(arr);
	session_parser_free(p);

	for (int mode = 1; mode <= 2; mode++) {
		for (unsigned seed = 1; seed <= (mode == 1 ? 1u : 200u); seed++) {
			p = parse_split(SAMPLE, strlen(SAMPLE), mode, seed);
			assert_null(session_parser_error(p));
			assert_int_equal(session_parser_info(p)->turns, 2);
			char *s = messages_json(p);
			assert_string_equal(s, whole);
			free(s);
			session_parser_free(p);
		}
	}
	free(whole);
}

static void test_session_parse_unknown_fields_dropped(void **state)
{
	const char *t = "{\"type\":\"header\",\"version\":1,\"id\":\"x1\",\"created\":1,\"host\":\"h\"}\n"
			"{\"type\":\"message\",\"role\":\"user\",\"future\":1,\"content\":[{\"type\":\"text\",\"text\":\"hi\",\"cache\":2}]}\n"
			"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"yo\"}]}\n";
	struct session_parser *p = parse_split(t, strlen(t), 0, 0);
	assert_null(session_parser_error(p));
	char *s = messages_json(p);
	assert_string_equal(s, "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
			       "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"yo\"}]}]");
	free(s);
	session_parser_free(p);

	/* thinking blocks are kept with their signature (the API wants them) */
	const char *th = HDR PROMPT1
		"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\","
		"\"signature\":\"c2ln\",\"x\":1},{\"type\":\"redacted_thinking\",\"data\":\"ZGF0\"},{\"type\":\"text\",\"text\":\"a\"}]}\n";
	p = parse_split(th, strlen(th), 0, 0);
	assert_null(session_parser_error(p));
	s = messages_json(p);
	assert_non_null(strstr(s, "{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"c2ln\"},"
				 "{\"type\":\"redacted_thinking\",\"data\":\"ZGF0\"}"));
	free(s);
	session_parser_free(p);
	expect_error(HDR PROMPT1 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
		     "\"thinking\":\"hmm\"}]}\n", "line 3: a thinking block lacks");
}

/* A text block of only whitespace is refused by the API wherever it is in
 * the history: one an earlier sandbx stored is left out of the replay (an
 * assistant message of nothing else says "(no answer)"), and none is
 * written, so such a session does not fail every later turn. */
static void test_session_blank_text_not_replayed(void **state)
{
	const char *t = HDR PROMPT1
		"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"\\n\\n\"},"
		"{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"ls\",\"input\":{\"path\":\".\"}}]}\n" RESULT1
		"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\" \\t\\r\\n\"}]}\n";
	struct session_parser *p = parse_split(t, strlen(t), 0, 0);
	assert_null(session_parser_error(p));
	char *s = messages_json(p);
	assert_string_equal(s, "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"list the files\\nplease\"}]},"
			       "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"ls\","
			       "\"input\":{\"path\":\".\"}}]},"
			       "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\",\"content\":\"a\\nb\"}]},"
			       "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"(no answer)\"}]}]");
	free(s);
	session_parser_free(p);
}

static void test_session_title_is_terminal_safe(void **state)
{
	const char *t = HDR "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\","
			"\"text\":\"  \\u001b[31mred\\u009b2J\\u007fok\\nline two\"}]}\n";
	struct session_parser *p = session_parser_new(SESSION_PARSE_SUMMARY);
	assert_int_equal(session_parser_feed(p, t, strlen(t)), 0);
	assert_int_equal(session_parser_finish(p), 0);
	assert_string_equal(session_parser_info(p)->first_prompt, "?[31mred?2J?ok");
	assert_null(session_parser_take_messages(p));	/* summary mode keeps none */
	session_parser_free(p);
}

static void expect_error(const char *text, const char *needle)
{
	for (int mode = 0; mode <= 2; mode++) {
		struct session_parser *p = parse_split(text, strlen(text), mode, 7);
		const char *e = session_parser_error(p);
		assert_non_null(e);
		if (!strstr(e, needle))
			fail_msg("error '%s' lacks '%s'", e, needle);
		session_parser_free(p);
	}
}

static void test_session_parse_unknown_version(void **state)
{
	expect_error("{\"type\":\"header\",\"version\":2,\"id\":\"ab\",\"created\":1}\n" PROMPT1, "line 1: session version 2");
	/* a newer sandbx's is said to be one; a version no sandbx writes is
	 * shown as it is (before, 1.0000000001 read "version 1 is not one
	 * this sandbx reads (it reads 1)"), and a version that is not a
	 * number is not called missing */
	expect_error("{\"type\":\"header\",\"version\":2,\"id\":\"ab\",\"created\":1}\n" PROMPT1, "a newer sandbx");
	expect_error("{\"type\":\"header\",\"version\":1.0000000001,\"id\":\"ab\",\"created\":1}\n" PROMPT1,
		     "session version 1.0000000001 is");
	expect_error("{\"type\":\"header\",\"version\":0,\"id\":\"ab\",\"created\":1}\n" PROMPT1,
		     "no sandbx writes");
	expect_error("{\"type\":\"header\",\"version\":\"1\",\"id\":\"ab\",\"created\":1}\n" PROMPT1,
		     "line 1: the header's version is not a number");
}

static void test_session_parse_unknown_record_type(void **state)
{
	expect_error(HDR PROMPT1 "{\"type\":\"checkpoint\",\"x\":1}\n" ASSIST2, "line 3: unknown record type 'checkpoint'");
	expect_error(HDR "{\"role\":\"user\"}\n", "line 2: a record without");
	expect_error(HDR PROMPT1 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"image\"}]}\n",
		     "line 3: unknown content block type 'image'");
}

static void test_session_parse_no_header(void **state)
{
	expect_error(PROMPT1, "line 1:");
	expect_error("", "no session header");
	expect_error(HDR HDR, "line 2: a second session header");
}

static void test_session_parse_torn_no_newline(void **state)
{
	const char *torn = SAMPLE "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"ty";
	for (int mode = 0; mode <= 2; mode++) {
		struct session_parser *p = parse_split(torn, strlen(torn), mode, 3);
		assert_null(session_parser_error(p));
		assert_int_equal(session_parser_good_end(p), strlen(SAMPLE));
		assert_int_equal(session_parser_notes(p)->n, 1);
		assert_non_null(strstr(session_parser_notes(p)->v[0], "line 10 has no newline"));
		assert_int_equal(session_parser_info(p)->turns, 2);
		assert_int_equal(session_parser_info(p)->cut_short, 1);
		session_parser_free(p);
	}
	/* A complete-looking last line without its newline is torn as well. */
	const char *nonl = HDR PROMPT1 "{\"type\":\"turn\",\"stop_reason\":\"end_turn\"}";
	struct session_parser *p = parse_split(nonl, strlen(nonl), 0, 0);
	assert_null(session_parser_error(p));
	assert_int_equal(session_parser_good_end(p), strlen(HDR PROMPT1));
	session_parser_free(p);
}

static void test_session_parse_torn_invalid_last(void **state)
{
	static const char torn[] = SAMPLE "{\"type\":\"mess\0\0\0\n";
	size_t len = sizeof(torn) - 1;
	struct session_parser *p = parse_split(torn, len, 1, 0);
	assert_null(session_parser_error(p));
	assert_int_equal(session_parser_good_end(p), strlen(SAMPLE));
	assert_non_null(strstr(session_parser_notes(p)->v[0], "line 10, the last, is not JSON"));
	session_parser_free(p);
	/* ...but not JSON in the middle is damage, named by its line. */
	expect_error(HDR PROMPT1 "{garbage\n" ASSIST2, "line 3: not a JSON object");
}

/* A line nested past cJSON's limit (1000 levels) may be JSON, but cJSON
 * does not read it: said as that, with the limit, not as "not a JSON
 * object", and damage wherever it is (an append cut short is never
 * deeper than the line sandbx wrote, a few levels), so resume refuses the
 * file instead of cutting the line off it as a torn tail. */
static char *deep_line(size_t levels)
{
	static const char head[] = "{\"type\":\"message\",\"role\":\"user\",\"content\":";
	size_t n = levels - 1, hn = sizeof(head) - 1;
	char *s = malloc(hn + 2 * n + 6), *p = s;
	memcpy(p, head, hn);
	p += hn;
	memset(p, '[', n);
	p += n;
	memcpy(p, "\"x\"", 3);
	p += 3;
	memset(p, ']', n);
	p += n;
	memcpy(p, "}\n", 3);
	return s;
}

static void test_session_parse_too_deep(void **state)
{
	char want[96];
	snprintf(want, sizeof(want), "line 3: nested more than %d levels deep", CJSON_NESTING_LIMIT);
	char *deep = deep_line(CJSON_NESTING_LIMIT + 1);
	char *text = malloc(strlen(HDR PROMPT1) + strlen(deep) + strlen(ASSIST2) + 1);
	/* in the middle */
	strcpy(text, HDR PROMPT1);
	strcat(text, deep);
	strcat(text, ASSIST2);
	expect_error(text, want);
	/* the last line */
	strcpy(text, HDR PROMPT1);
	strcat(text, deep);
	expect_error(text, want);
	expect_error(text, "not a line sandbx wrote");
	free(deep);
	/* at the limit it is read, and refused for what it holds */
	deep = deep_line(CJSON_NESTING_LIMIT);
	strcpy(text, HDR PROMPT1);
	strcat(text, deep);
	strcat(text, ASSIST2);
	for (int mode = 0; mode <= 2; mode++) {
		struct session_parser *p = parse_split(text, strlen(text), mode, 11);
		const char *e = session_parser_error(p);
		if (e && strstr(e, "nested"))
			fail_msg("%d levels, within the limit, said as too deep: %s", CJSON_NESTING_LIMIT, e);
		session_parser_free(p);
	}
	free(deep);
	free(text);
}

/* A NUL byte is in no line sandbx wrote (cJSON escapes it), and cJSON
 * would cut the string there without a word ("list the files" read as
 * "list"): damage, named by its line, or a torn tail when it is last. */
static void test_session_parse_nul_byte(void **state)
{
	static const char mid[] = HDR "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\","
				  "\"text\":\"list\0 the files\"}]}\n" ASSIST2;
	for (int mode = 0; mode <= 2; mode++) {
		struct session_parser *p = parse_split(mid, sizeof(mid) - 1, mode, 5);
		const char *e = session_parser_error(p);
		assert_non_null(e);
		assert_non_null(strstr(e, "line 2: "));
		session_parser_free(p);
	}
	static const char last[] = HDR PROMPT1 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
				   "\"text\",\"text\":\"o\0k\"}]}\n";
	struct session_parser *p = parse_split(last, sizeof(last) - 1, 0, 0);
	assert_null(session_parser_error(p));
	assert_int_equal(session_parser_good_end(p), strlen(HDR PROMPT1));
	assert_non_null(strstr(session_parser_notes(p)->v[0], "line 3, the last, is not JSON"));
	session_parser_free(p);
}

/* The escape \u0000 is a NUL byte too: cJSON ends the string there, so
 * "list\u0000 the files" replayed as "list" without a word.  It is in no
 * line sandbx writes (its strings are C strings): damage, as the raw byte
 * is; an escaped backslash before "u0000" is text, and is kept. */
static void test_session_parse_nul_escape(void **state)
{
	static const char mid[] = HDR "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\","
				  "\"text\":\"list\\u0000 the files\"}]}\n" ASSIST2;
	for (int mode = 0; mode <= 2; mode++) {
		struct session_parser *p = parse_split(mid, sizeof(mid) - 1, mode, 5);
		const char *e = session_parser_error(p);
		if (!e) {
			char *m = messages_json(p);
			fail_msg("parsed as %s", m);
		}
		assert_non_null(strstr(e, "line 2: "));
		session_parser_free(p);
	}
	static const char text[] = HDR "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\","
				   "\"text\":\"a \\\\u0000 b\"}]}\n" ASSIST2;
	struct session_parser *p = parse_split(text, sizeof(text) - 1, 0, 0);
	assert_null(session_parser_error(p));
	char *m = messages_json(p);
	assert_non_null(strstr(m, "a \\\\u0000 b"));
	free(m);
	session_parser_free(p);
}

static void test_session_parse_line_cap(void **state)
{
	struct session_parser *p = session_parser_new(0);
	assert_int_equal(session_parser_feed(p, HDR, strlen(HDR)), 0);
	char *big = malloc(1 << 20);
	memset(big, 'a', 1 << 20);
	int r = 0;
	for (int i = 0; i < 17 && r == 0; i++)
		r = session_parser_feed(p, big, 1 << 20);
	assert_int_equal(r, -1);
	assert_non_null(strstr(session_parser_error(p), "line 2: longer than"));
	/* sticky */
	assert_int_equal(session_parser_feed(p, "\n", 1), -1);
	free(big);
	session_parser_free(p);
}

/* A long session (or a file of 100k lines put together by hand) parses
 * whole, each tool call paired with its result.  Its time is linear in
 * the messages (each used to be appended after counting the array, and
 * the pairing check fetched messages by index: 20,000 messages took
 * 3.5 s, 100,000 some minutes; now 0.13 s and 0.85 s, resume and request
 * included); that is measured, not timed here (no timed unit tests). */
static void test_session_parse_long_history(void **state)
{
	(void)state;
	const int rounds = RUNNING_ON_VALGRIND ? 1000 : 5000;
	struct session_parser *p = session_parser_new(0);
	char line[512];
	assert_int_equal(session_parser_feed(p, HDR PROMPT1, strlen(HDR PROMPT1)), 0);
	for (int i = 0; i < rounds; i++) {
		int n = snprintf(line, sizeof(line),
				 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
				 "\"id\":\"t%d\",\"name\":\"ls\",\"input\":{}}]}\n"
				 "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
				 "\"tool_use_id\":\"t%d\",\"content\":\"r\"}]}\n", i, i);
		assert_int_equal(session_parser_feed(p, line, (size_t)n), 0);
	}
	assert_int_equal(session_parser_feed(p, ASSIST2 TURN1, strlen(ASSIST2 TURN1)), 0);
	assert_int_equal(session_parser_finish(p), 0);
	cJSON *m = session_parser_take_messages(p);
	assert_non_null(m);
	assert_int_equal(cJSON_GetArraySize(m), 2 * rounds + 2);
	/* the last call and its result, in order */
	const cJSON *call = cJSON_GetArrayItem(m, 2 * rounds - 1), *res = cJSON_GetArrayItem(m, 2 * rounds);
	char want[32];
	snprintf(want, sizeof(want), "t%d", rounds - 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(call, "content"), 0), "id")->valuestring, want);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0), "tool_use_id")->valuestring, want);
	cJSON_Delete(m);
	session_parser_free(p);
}

static void test_session_parse_dangling_tool_use(void **state)
{
	const char *t = HDR PROMPT1 ASSIST1;
	struct session_parser *p = parse_split(t, strlen(t), 0, 0);
	assert_null(session_parser_error(p));
	assert_int_equal(session_parser_dangling(p)->n, 1);
	assert_string_equal(session_parser_dangling(p)->v[0], "tu1");
	assert_int_equal(session_parser_info(p)->cut_short, 1);
	session_parser_free(p);
	/* A tool_use without result followed by more history is damage. */
	expect_error(HDR PROMPT1 ASSIST1 PROMPT2 ASSIST3, "line 3: a tool call here has no result");
	expect_error(HDR PROMPT1 ASSIST2 RESULT1, "line 4: a tool_result answers no tool call");
}

/* ---- the store ---- */

static struct store_tmp T;

static int setup(void **state)
{
	store_tmp_init(&T);
	return 0;
}

static int teardown(void **state)
{
	store_tmp_release(&T);
	return 0;
}

static cJSON *msg(const char *json)
{
	cJSON *m = cJSON_Parse(json);
	if (!m)
		fail_msg("bad test json %s", json);
	return m;
}

static void round_one(struct session *s, const char *prompt)
{
	char *err = NULL;
	cJSON *a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read\","
		       "\"input\":{\"path\":\"x\"}}]}");
	cJSON *u = msg("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"data\"}]}");
	if (session_append_round(s, prompt, a, u, &err) < 0)
		fail_msg("append: %s", err);
	cJSON_Delete(a);
	cJSON_Delete(u);
	a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
	if (session_append_round(s, NULL, a, NULL, &err) < 0)
		fail_msg("append: %s", err);
	cJSON_Delete(a);
	struct session_turn_end end = { .stop_reason = "end_turn", .rounds = 2, .input_tokens = 3, .output_tokens = 4 };
	assert_int_equal(session_end_turn(s, &end, &err), 0);
}

static char *session_file(const char *id)
{
	return xasprintf("%s/%s.jsonl", T.x.sessions_dir, id);
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* A new session survives a crash once session_create returns: its file
 * is synced into the sessions directory, and each directory the create
 * made (the state home, sandbx/, sessions/) into the one that holds it.
 * Before, the directories made were not synced: after a power loss the
 * store could be gone with the session in it. */
static void test_session_create_syncs_dirs(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	n_dir_syncs = 0;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	session_close(s);
	/* the sessions directory holds the file; each other one a directory made */
	const char *synced[] = { T.x.sessions_dir, T.root, T.x.state_home, T.x.state_dir };
	for (size_t i = 0; i < SBX_ARRAY_LEN(synced); i++)
		if (!dir_synced_with(synced[i], NULL))
			fail_msg("'%s' was not synced after a name was put in it (%d directory syncs)", synced[i],
				 n_dir_syncs);
	strv_free(&notes);
}

static char *new_session_with_round(void);

/* A directory sync that fails is said: a directory made but not synced
 * says so, with nothing in it yet; a session file whose directory cannot
 * be synced is removed again, and the message says so (before, it was
 * left in place while the create failed), the sessions stored before
 * untouched. */
static void test_session_dir_sync_error_said(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	dir_sync_fails = 1;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), -1);
	dir_sync_fails = 0;
	char *want = xasprintf("made the directory '%s', but the directory holding it could not be synced to disk: "
			       "Input/output error — nothing was put in it yet: check the filesystem (dmesg), then "
			       "try again", T.x.state_home);
	if (strcmp(err, want) != 0)
		fail_msg("create making its directories said: %s", err);
	free(want);
	free(err);
	err = NULL;
	/* A session stored before stays; the one whose create failed goes:
	 * the command fails, and a file with a header and no turn would be
	 * what --continue takes up next. */
	char *kept = new_session_with_round();
	dir_sync_fails = 1;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), -1);
	dir_sync_fails = 0;
	assert_null(s);
	want = xasprintf("cannot create '%s/", T.x.sessions_dir);
	if (strncmp(err, want, strlen(want)) != 0 ||
	    !strstr(err, ".jsonl': its directory could not be synced to disk: Input/output error — the new file was "
			 "removed again (a crash may still bring it back): check the filesystem (dmesg), then try "
			 "again") || strstr(err, "XDG_"))
		fail_msg("create said: %s", err);
	free(want);
	free(err);
	err = NULL;
	char *kept_name = xasprintf("%s.jsonl", kept);
	DIR *d = opendir(T.x.sessions_dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, kept_name) != 0)
			fail_msg("the failed create left '%s'", e->d_name);
	closedir(d);
	free(kept_name);
	assert_int_equal(session_resume(&T.x, kept, &s, &notes, &err), 0);
	assert_int_equal(session_turns(s), 1);
	session_close(s);
	free(kept);
	strv_free(&notes);
}

static void test_session_round_trip(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	const char *id = session_id(s);
	assert_int_equal(strlen(id), SESSION_ID_LEN);
	assert_true(session_id_valid(id));
	char *idc = xstrdup(id);
	round_one(s, "first prompt");
	round_one(s, "second prompt");
	session_close(s);

	struct stat st;
	char *path = session_file(idc);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(T.x.sessions_dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(T.x.state_dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);

	assert_int_equal(session_resume(&T.x, idc, &s, &notes, &err), 0);
	assert_int_equal(notes.n, 0);
	assert_int_equal(session_turns(s), 2);
	assert_int_equal(session_cut_short(s), 0);
	cJSON *h = session_take_history(s);
	/* per turn: user, assistant(tool_use), user(result), assistant(done) */
	assert_int_equal(cJSON_GetArraySize(h), 8);
	cJSON *last = cJSON_GetArrayItem(h, 7);
	assert_string_equal(cJSON_GetObjectItem(last, "role")->valuestring, "assistant");
	cJSON_Delete(h);
	session_close(s);
	free(path);
	free(idc);
	strv_free(&notes);
}

static void test_session_create_narrows_own_dirs_only(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	struct stat st;
	assert_int_equal(mkdir(T.x.state_home, 0755), 0);
	assert_int_equal(mkdir(T.x.state_dir, 0755), 0);
	assert_int_equal(chmod(T.x.state_dir, 0755), 0);
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	assert_int_equal(stat(T.x.state_dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(T.x.state_home, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755 & ~0);	/* the user's XDG base: untouched */
	assert_true(notes.n >= 1);
	assert_non_null(strstr(notes.v[0], "narrowed"));
	session_close(s);
	strv_free(&notes);
}

/* A session and its directories get sandbx's modes whatever the umask:
 * under umask 0777 they were made 0000, and under 0277 the new state
 * directory could not be entered to make the next. */
static void test_session_create_any_umask(void **state)
{
	static const mode_t masks[] = { 0777, 0277, 0 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(masks); i++) {
		struct session *s = NULL;
		struct strv notes = { 0 };
		char *err = NULL, *cmd = xasprintf("rm -rf '%s'", T.x.state_home);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		mode_t old = umask(masks[i]);
		int r = session_create(&T.x, &s, &notes, &err);
		umask(old);
		if (r < 0)
			fail_msg("umask %04o: %s", (unsigned)masks[i], err);
		char *id = xstrdup(session_id(s)), *path = session_file(id);
		round_one(s, "hello");
		session_close(s);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0600);
		assert_int_equal(stat(T.x.sessions_dir, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0700);
		assert_int_equal(stat(T.x.state_dir, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0700);
		assert_int_equal(stat(T.x.state_home, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0700);
		assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
		assert_int_equal(session_turns(s), 1);
		session_close(s);
		strv_free(&notes);
		free(id);
		free(path);
	}
}

/* An assistant message of one text block; text is a cJSON string (taken). */
static cJSON *assistant_msg(cJSON *text)
{
	cJSON *a = cJSON_CreateObject(), *c = cJSON_CreateArray(), *b = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "role", "assistant");
	cJSON_AddItemToObject(a, "content", c);
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddItemToObject(b, "text", text);
	cJSON_AddItemToArray(c, b);
	return a;
}

/* fork; in the child, *s is the session id resumed (or the child exits 10). */
static pid_t fork_resumed(const char *id, struct session **s)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct strv notes = { 0 };
		char *err = NULL;
		if (session_resume(&T.x, id, s, &notes, &err) < 0)
			_exit(10);
		strv_free(&notes);
	}
	return pid;
}

/* The forked child pid exited 0 (its other codes say which step failed). */
static void child_passed(pid_t pid)
{
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static char *new_session_with_round(void)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	if (session_create(&T.x, &s, &notes, &err) < 0)
		fail_msg("create: %s", err);
	round_one(s, "hello");
	char *id = xstrdup(session_id(s));
	session_close(s);
	strv_free(&notes);
	return id;
}

static int resume_rc(const char *id, char **err, struct strv *notes)
{
	struct session *s = NULL;
	int r = session_resume(&T.x, id, &s, notes, err);
	session_close(s);
	return r;
}

static void test_session_resume_refuses_wide_modes(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id), *err = NULL;
	struct strv notes = { 0 };

	assert_int_equal(chmod(path, 0620), 0);
	assert_int_not_equal(resume_rc(id, &err, &notes), 0);
	assert_non_null(strstr(err, "mode 0620"));
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;
	assert_int_equal(chmod(path, 0602), 0);
	assert_int_not_equal(resume_rc(id, &err, &notes), 0);
	free(err);
	err = NULL;

	/* group/other read: resumes, with a note */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(resume_rc(id, &err, &notes), 0);
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.v[0], "can read it"));
	strv_free(&notes);
	assert_int_equal(chmod(path, 0600), 0);

	assert_int_equal(chmod(T.x.sessions_dir, 0770), 0);
	assert_int_not_equal(resume_rc(id, &err, &notes), 0);
	assert_non_null(strstr(err, "mode 0770"));
	free(err);
	err = NULL;
	assert_int_equal(chmod(T.x.sessions_dir, 0750), 0);
	assert_int_equal(resume_rc(id, &err, &notes), 0);
	assert_int_equal(notes.n, 1);
	strv_free(&notes);
	assert_int_equal(chmod(T.x.sessions_dir, 0700), 0);
	assert_int_equal(chmod(T.x.state_dir, 0777), 0);
	assert_int_not_equal(resume_rc(id, &err, &notes), 0);
	free(err);
	assert_int_equal(chmod(T.x.state_dir, 0700), 0);
	free(id);
	free(path);
}

static void test_session_resume_refuses_symlink_and_fifo(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id), *err = NULL;
	char *link = session_file("lnk1"), *fifo = session_file("fifo1");
	struct strv notes = { 0 };
	assert_int_equal(symlink(path, link), 0);
	assert_int_not_equal(resume_rc("lnk1", &err, &notes), 0);
	assert_non_null(strstr(err, "symbolic link"));
	free(err);
	err = NULL;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_not_equal(resume_rc("fifo1", &err, &notes), 0);
	assert_non_null(strstr(err, "not a regular file"));
	free(err);
	err = NULL;
	assert_int_equal(resume_rc("nosuch", &err, &notes), -ENOENT);
	free(err);
	free(id);
	free(path);
	free(link);
	free(fifo);
}

struct foreign_arg {
	const char *id;
};

static int check_refused(void *v)
{
	struct foreign_arg *a = v;
	char *err = NULL;
	struct strv notes = { 0 };
	int r = resume_rc(a->id, &err, &notes);
	int ok = r != 0 && err && strstr(err, "owned by uid") != NULL;
	if (!ok)
		fprintf(stderr, "resume gave %d: %s\n", r, err ? err : "(no error)");
	free(err);
	strv_free(&notes);
	return ok ? 0 : 1;
}

static void test_session_resume_refuses_other_owner(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id);
	struct foreign_arg a = { id };
	int r = with_foreign_owner(path, check_refused, &a);
	if (r == 77)
		skip();
	assert_int_equal(r, 0);
	r = with_foreign_owner(T.x.sessions_dir, check_refused, &a);
	assert_int_equal(r, 0);
	free(id);
	free(path);
}

/* A session file with a second name (a hard link, which may lie in a tree
 * a confined command can write) is refused: appending, or cutting a torn
 * tail, would change the file under its other name too, and whoever can
 * write that name could change what the model is shown.  Nothing is
 * changed; with the link gone it resumes. */
static void test_session_resume_refuses_hard_link(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id), *err = NULL;
	char *other = xasprintf("%s/notes.jsonl", T.root);
	struct strv notes = { 0 };
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"type\":\"mess", 13), 13);	/* a torn tail resume would cut */
	close(fd);
	off_t size = file_size(path);
	assert_int_equal(link(path, other), 0);

	struct session *s = NULL;
	assert_int_not_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_null(s);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "2 hard links"));
	assert_non_null(strstr(err, "-samefile"));
	assert_int_equal(file_size(other), size);	/* nothing cut, nothing appended */
	free(err);
	err = NULL;
	strv_free(&notes);

	/* --continue refuses it the same way, rather than resuming another */
	assert_int_not_equal(session_resume_latest(&T.x, &s, &notes, &err), 0);
	assert_null(s);
	assert_non_null(strstr(err, "hard links"));
	free(err);
	err = NULL;
	strv_free(&notes);
	assert_int_equal(file_size(other), size);

	assert_int_equal(unlink(other), 0);
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	session_close(s);
	strv_free(&notes);
	free(other);
	free(id);
	free(path);
}

/* A second name made while the session is open (a backup's cp -al, an
 * ln) would take every later append too: the append is refused, naming
 * the link count, and nothing is written under either name. */
static void test_session_append_refuses_hard_link(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	round_one(s, "first");
	char *path = session_file(session_id(s)), *other = xasprintf("%s/snapshot.jsonl", T.root);
	assert_int_equal(link(path, other), 0);
	off_t size = file_size(other);
	cJSON *a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"more\"}]}");
	assert_int_equal(session_append_round(s, "second", a, NULL, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "2 hard links"));
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;
	assert_int_equal(file_size(other), size);
	assert_int_equal(unlink(other), 0);
	assert_int_equal(session_append_round(s, "second", a, NULL, &err), 0);
	cJSON_Delete(a);
	session_close(s);
	free(path);
	free(other);
}

/* A session file removed while sandbx holds it open (an rm of the store,
 * a cleaner) takes appends into an inode no name reaches: each round was
 * "stored" where no resume finds it, without a word.  The append is
 * refused, saying so. */
static void test_session_append_refuses_removed_file(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	round_one(s, "first");
	char *path = session_file(session_id(s));
	assert_int_equal(unlink(path), 0);
	cJSON *a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"more\"}]}");
	assert_int_equal(session_append_round(s, "second", a, NULL, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "was removed"));
	assert_non_null(strstr(err, path));
	free(err);
	cJSON_Delete(a);
	session_close(s);
	free(path);
}

static void test_session_resume_cuts_torn_tail(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id), *err = NULL;
	struct strv notes = { 0 };
	off_t good = file_size(path);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"type\":\"mess", 13), 13);
	close(fd);

	struct session *s = NULL;
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_int_equal(file_size(path), good);
	assert_true(notes.n >= 2);
	assert_int_equal(session_turns(s), 1);
	assert_int_equal(session_cut_short(s), 1);
	round_one(s, "again");
	session_close(s);
	strv_free(&notes);
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_int_equal(notes.n, 0);
	assert_int_equal(session_turns(s), 2);
	assert_int_equal(session_cut_short(s), 0);
	session_close(s);
	free(id);
	free(path);
}

static void test_session_resume_repairs_dangling_tool_use(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(mkdir(T.x.state_home, 0700), 0);
	assert_int_equal(mkdir(T.x.state_dir, 0700), 0);
	assert_int_equal(mkdir(T.x.sessions_dir, 0700), 0);
	char *path = session_file("dang1");
	write_file(path, HDR PROMPT1 ASSIST1, 0600);

	struct session *s = NULL;
	assert_int_equal(session_resume(&T.x, "dang1", &s, &notes, &err), 0);
	assert_int_equal(session_cut_short(s), 1);
	cJSON *h = session_take_history(s);
	assert_int_equal(cJSON_GetArraySize(h), 3);
	cJSON *last = cJSON_GetArrayItem(h, 2);
	cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(last, "content"), 0);
	assert_string_equal(cJSON_GetObjectItem(b, "tool_use_id")->valuestring, "tu1");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(b, "is_error")));
	/* A round is stored after its calls ran: the result was lost, the
	 * call may well have run (a model told "not run" would run it again). */
	const char *said = cJSON_GetObjectItem(b, "content")->valuestring;
	assert_null(strstr(said, "not run"));
	assert_non_null(strstr(said, "may have run"));
	assert_non_null(strstr(notes.v[notes.n - 1], "may have run"));
	cJSON_Delete(h);
	/* the next turn continues from a valid history */
	cJSON *a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}");
	assert_int_equal(session_append_round(s, "go on", a, NULL, &err), 0);
	cJSON_Delete(a);
	session_close(s);
	strv_free(&notes);

	/* the repair is durable: the file parses clean now */
	assert_int_equal(session_resume(&T.x, "dang1", &s, &notes, &err), 0);
	assert_int_equal(notes.n, 0);
	h = session_take_history(s);
	/* user, assistant, user(repair + "go on" merged), assistant */
	assert_int_equal(cJSON_GetArraySize(h), 4);
	cJSON_Delete(h);
	session_close(s);
	free(path);
}

static void test_session_append_validates(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	off_t before = file_size(session_path(s));
	cJSON *tu = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"ls\",\"input\":{}}]}");
	cJSON *wrong = msg("{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"b\",\"content\":\"x\"}]}");
	cJSON *text = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"t\"}]}");
	assert_int_equal(session_append_round(s, "p", tu, NULL, &err), -1);
	free(err);
	err = NULL;
	assert_int_equal(session_append_round(s, "p", tu, wrong, &err), -1);
	free(err);
	err = NULL;
	assert_int_equal(session_append_round(s, NULL, text, NULL, &err), -1);	/* no prompt on a first round */
	free(err);
	err = NULL;
	assert_int_equal(session_append_round(s, "p", wrong, NULL, &err), -1);	/* wrong role */
	free(err);
	err = NULL;
	assert_int_equal(file_size(session_path(s)), before);
	cJSON_Delete(tu);
	cJSON_Delete(wrong);
	cJSON_Delete(text);
	session_close(s);
}

static void test_session_stop_before_first_round_stores_nothing(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	off_t before = file_size(session_path(s));
	struct session_turn_end end = { .stop_reason = "stopped", .stopped = 1 };
	assert_int_equal(session_end_turn(s, &end, &err), 0);
	assert_int_equal(file_size(session_path(s)), before);

	/* a stop after one finished round keeps it and notes the stop */
	cJSON *a = msg("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"part\"}]}");
	assert_int_equal(session_append_round(s, "long job", a, NULL, &err), 0);
	cJSON_Delete(a);
	end.rounds = 1;
	assert_int_equal(session_end_turn(s, &end, &err), 0);
	char *id = xstrdup(session_id(s));
	session_close(s);
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_int_equal(session_turns(s), 1);
	assert_int_equal(session_cut_short(s), 1);
	session_close(s);
	free(id);
}

static void test_session_full_disk_append(void **state)
{
	/* valgrind does not deliver RLIMIT_FSIZE to its guest the way the kernel does */
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();
	char *id = new_session_with_round(), *path = session_file(id);
	off_t good = file_size(path);
	struct session *s = NULL;
	pid_t pid = fork_resumed(id, &s);
	if (pid == 0) {
		char *err = NULL;
		/* SIGXFSZ keeps its default action (kill): the store must
		 * turn the limit into an error by itself. */
		signal(SIGXFSZ, SIG_DFL);
		struct rlimit rl = { (rlim_t)good + 100, (rlim_t)good + 100 };
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(11);
		char *big = malloc(4096);
		memset(big, 'z', 4095);
		big[4095] = '\0';
		cJSON *a = assistant_msg(cJSON_CreateString(big));
		int r = session_append_round(s, "fill the disk", a, NULL, &err);
		if (r == 0)
			_exit(12);
		if (!strstr(err, "File too large") || !strstr(err, "earlier turns are kept"))
			_exit(13);
		session_close(s);
		cJSON_Delete(a);
		free(big);
		free(err);
		free(id);	/* the parent's copies, unused here */
		free(path);
		child_exit(0);
	}
	child_passed(pid);
	/* the partial write was cut back: exactly the earlier lines remain */
	assert_int_equal(file_size(path), good);
	struct strv notes = { 0 };
	char *err = NULL;
	s = NULL;
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_int_equal(notes.n, 0);
	assert_int_equal(session_turns(s), 1);
	session_close(s);
	free(id);
	free(path);
}

/*
 * A session is read back only up to SESSION_MAX_FILE: an append that would
 * carry it past that is refused, so what is stored stays resumable (a
 * hostile endpoint's 16 MiB rounds reach the cap in a few turns).  The
 * file is brought near the cap with blank lines, which the parser skips.
 */
static void test_session_append_stops_at_file_cap(void **state)
{
	char *id = new_session_with_round(), *path = session_file(id);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	size_t chunk = SESSION_MAX_LINE - 1;
	char *blank = malloc(chunk);
	assert_non_null(blank);
	memset(blank, ' ', chunk - 1);
	blank[chunk - 1] = '\n';
	while ((uint64_t)file_size(path) + chunk <= SESSION_MAX_FILE - 2048)
		assert_int_equal(write(fd, blank, chunk), (ssize_t)chunk);
	size_t rest = (size_t)(SESSION_MAX_FILE - 2048 - (uint64_t)file_size(path));
	memset(blank + rest - 1, '\n', 1);
	assert_int_equal(write(fd, blank, rest), (ssize_t)rest);
	close(fd);
	free(blank);
	off_t near = file_size(path);

	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	char big[4096];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cJSON *a = assistant_msg(cJSON_CreateString(big));
	assert_int_equal(session_append_round(s, "one more", a, NULL, &err), -1);
	assert_non_null(strstr(err, "--session"));
	free(err);
	err = NULL;
	cJSON_Delete(a);
	session_close(s);
	assert_int_equal(file_size(path), near);

	/* still resumable, with every turn it held */
	s = NULL;
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	assert_int_equal(session_turns(s), 1);
	session_close(s);
	strv_free(&notes);
	unlink(path);
	free(id);
	free(path);
}

/*
 * A round too large for a line is refused without being printed whole:
 * 30 MiB of control characters would print as 180 MiB of escapes.  The
 * child has 96 MiB of address space to spare, more than the 16 MiB line.
 */
static void test_session_record_line_bounded(void **state)
{
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();	/* valgrind's own mappings count against RLIMIT_AS */
#if defined(__SANITIZE_ADDRESS__)
	skip();		/* so do ASan's shadow mappings */
#endif
	char *id = new_session_with_round(), *path = session_file(id);
	off_t good = file_size(path);
	struct session *s = NULL;
	pid_t pid = fork_resumed(id, &s);
	if (pid == 0) {
		char *err = NULL;
		size_t n = 30u << 20;
		char *big = malloc(n + 1);
		if (!big)
			_exit(11);
		memset(big, 1, n);
		big[n] = '\0';
		cJSON *a = assistant_msg(cJSON_CreateStringReference(big));
		/* clean_message copies the text once (30 MiB): counted in */
		unsigned long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(12);
		fclose(f);
		struct rlimit rl = { (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (96u << 20), RLIM_INFINITY };
		rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(13);
		int r = session_append_round(s, "a huge round", a, NULL, &err);
		if (r == 0)
			_exit(14);
		if (!strstr(err, "line limit"))
			_exit(15);
		session_close(s);
		cJSON_Delete(a);	/* a reference to big: freed after */
		free(big);
		free(err);
		free(id);	/* the parent's copies, unused here */
		free(path);
		child_exit(0);
	}
	child_passed(pid);
	assert_int_equal(file_size(path), good);
	free(id);
	free(path);
}

static void test_session_one_writer_at_a_time(void **state)
{
	struct session *s = NULL, *t = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	char *id = xstrdup(session_id(s));
	assert_int_equal(session_resume(&T.x, id, &t, &notes, &err), -EBUSY);
	assert_null(t);
	assert_non_null(strstr(err, "in use by another sandbx"));
	free(err);
	err = NULL;
	session_close(s);
	assert_int_equal(session_resume(&T.x, id, &t, &notes, &err), 0);
	char *line = session_resume_line(t);
	assert_non_null(strstr(line, "0 turns loaded"));
	free(line);
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), -EBUSY);
	free(err);
	session_close(t);
	free(id);
}

/* In a child with its own mount namespace (and user namespace when not
 * root): a 64 KiB tmpfs as the state home, filled by appends until the
 * disk is full.  Exit 0 when the failing append said so and left exactly
 * the earlier lines, which resume reads back. */
static int enospc_child(const char *dir)
{
	char map[64];
	if (geteuid() != 0) {
		uid_t uid = geteuid();
		gid_t gid = getegid();
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return 77;
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
		if (write_id_map("/proc/self/uid_map", map) < 0)
			return 77;
		write_id_map("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
		if (write_id_map("/proc/self/gid_map", map) < 0)
			return 77;
	} else if (unshare(CLONE_NEWNS) < 0) {
		return 77;
	}
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700") < 0)
		return 77;
	setenv("XDG_STATE_HOME", dir, 1);
	struct xdg_paths x;
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	if (xdg_paths_get(&x, &err) < 0 || session_create(&x, &s, &notes, &err) < 0)
		return 21;
	char *text = xmalloc(3001);
	memset(text, 'q', 3000);
	text[3000] = '\0';
	cJSON *a = assistant_msg(cJSON_CreateString(text));
	struct stat st;
	off_t good = 0;
	int turns = 0, r = 0;
	for (int i = 0; i < 100 && r == 0; i++) {
		if (stat(session_path(s), &st) < 0)
			return 22;
		good = st.st_size;
		r = session_append_round(s, "fill", a, NULL, &err);
		if (r == 0) {
			struct session_turn_end end = { .stop_reason = "end_turn", .rounds = 1 };
			if (stat(session_path(s), &st) < 0)
				return 22;
			good = st.st_size;	/* the turn record may be what does not fit */
			r = session_end_turn(s, &end, &err);
			if (r == 0)
				turns++;
		}
	}
	if (r == 0)
		return 23;	/* 64 KiB never filled? */
	if (!strstr(err, "No space left") || !strstr(err, "the disk is full"))
		return 24;
	if (stat(session_path(s), &st) < 0 || st.st_size != good)
		return 25;
	char *id = xstrdup(session_id(s));
	session_close(s);
	if (session_resume(&x, id, &s, &notes, &err) < 0 || notes.n != 0)
		return 26;
	/* the round whose turn record did not fit is there, its turn open */
	if (session_turns(s) < turns || session_turns(s) > turns + 1)
		return 27;
	/* what the child made is freed: child_exit checks */
	session_close(s);
	cJSON_Delete(a);
	free(text);
	free(id);
	free(err);
	strv_free(&notes);
	xdg_paths_release(&x);
	return 0;
}

static void test_session_disk_full_tmpfs(void **state)
{
	/* under valgrind the tmpfs child cannot run (unshare/mount unsupported) */
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();
	char *dir = xasprintf("%s/tmpfs", T.root);
	assert_int_equal(mkdir(dir, 0700), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int code = enospc_child(dir);
		free(dir);	/* the parent's copy */
		child_exit(code);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	free(dir);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void set_mtime(const char *id, time_t t)
{
	char *p = session_file(id);
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };
	assert_int_equal(utimes(p, tv), 0);
	free(p);
}

static void test_session_list_newest_first_and_continue(void **state)
{
	struct session_info *v = NULL;
	size_t n = 9;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);	/* no store yet */
	assert_int_equal(n, 0);
	char *a = new_session_with_round(), *b = new_session_with_round(), *c = new_session_with_round();
	set_mtime(a, 1000);
	set_mtime(b, 3000);
	set_mtime(c, 2000);
	char *bad = session_file("broken1");
	write_file(bad, "not a session\n", 0600);
	set_mtime("broken1", 4000);
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].id, "broken1");
	assert_non_null(v[0].error);
	assert_string_equal(v[1].id, b);
	assert_string_equal(v[2].id, c);
	assert_string_equal(v[3].id, a);
	assert_int_equal(v[1].turns, 1);
	assert_string_equal(v[1].first_prompt, "hello");
	session_list_free(v, n);

	/* the most recent is unreadable: refused, never an older one instead */
	struct session *s = NULL;
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err, "the most recent session 'broken1' cannot be read"));
	free(err);
	err = NULL;
	/* written in the same instant as the newest good one: still refused */
	set_mtime("broken1", 3000);
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), -1);
	assert_non_null(strstr(err, "'broken1'"));
	free(err);
	err = NULL;
	assert_int_equal(unlink(bad), 0);
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), 0);
	assert_string_equal(session_id(s), b);
	session_close(s);
	free(a);
	free(b);
	free(c);
	free(bad);
}

/* Bytes this process has read(2) so far. */
static unsigned long long bytes_read(void)
{
	char buf[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/io", "re");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "rchar: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* --continue reads the newest session (and any written in the same
 * instant), not the whole store: before, every file was parsed to its
 * end first, 6 s of reading for a store of 300 sessions of 5 MB. */
static void test_session_continue_reads_only_newest(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	char *newest = new_session_with_round(), *other = new_session_with_round();
	set_mtime(newest, 5000);
	set_mtime(other, 4000);
	/* ten older sessions of 1 MiB each */
	size_t big = 1u << 20;
	char *text = xmalloc(big + 256);
	int k = snprintf(text, big + 256, HDR PROMPT1 "{\"type\":\"message\",\"role\":\"assistant\",\"content\":"
			 "[{\"type\":\"text\",\"text\":\"");
	memset(text + k, 'a', big);
	strcpy(text + k + big, "\"}]}\n");
	for (int i = 0; i < 10; i++) {
		char id[16];
		snprintf(id, sizeof(id), "old%d", i);
		char *path = session_file(id);
		write_file(path, text, 0600);
		set_mtime(id, 1000 + i);
		free(path);
	}
	free(text);

	struct session *s = NULL;
	unsigned long long before = bytes_read();
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), 0);
	unsigned long long spent = bytes_read() - before;
	assert_string_equal(session_id(s), newest);
	session_close(s);
	if (spent > big)
		fail_msg("--continue read %llu bytes: the older sessions were read", spent);

	/* the listing names them all (of a file over 1 MiB it reads the ends:
	 * these end in an open turn, whose count is not within reach) */
	struct session_info *v = NULL;
	size_t n = 0;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_int_equal(n, 12);
	assert_string_equal(v[0].id, newest);
	assert_string_equal(v[1].id, other);
	assert_string_equal(v[11].id, "old0");
	assert_int_equal(v[11].turns, SESSION_TURNS_UNKNOWN);
	assert_int_equal(v[11].cut_short, 1);
	assert_string_equal(v[11].first_prompt, "list the files");
	session_list_free(v, n);
	strv_free(&notes);
	free(newest);
	free(other);
}

#define TURN_N(n) "{\"type\":\"turn\",\"stop_reason\":\"end_turn\",\"rounds\":1,\"turns\":" #n "}\n"
#define BIG_TEXT (8u << 20)

/* A session file: its start, an assistant line of BIG_TEXT bytes, then end. */
static void write_big_session(const char *id, const char *start, const char *end)
{
	size_t a = strlen(start), b = strlen(end), cap = a + BIG_TEXT + 128 + b;
	char *text = xmalloc(cap);
	int k = snprintf(text, cap, "%s{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
			 "\"text\":\"", start);
	memset(text + k, 'a', BIG_TEXT);
	snprintf(text + k + BIG_TEXT, cap - k - BIG_TEXT, "\"}]}\n%s", end);
	char *path = session_file(id);
	write_file(path, text, 0600);
	free(path);
	free(text);
}

/* `sandbx sessions` reads a large file's header and first prompt, and its
 * last lines for the turn count the closing turn record carries: before,
 * every file was parsed to its end (2.7 s here for 300 sessions of 5 MB). */
static void test_session_list_reads_head_and_tail(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	char *first = new_session_with_round();
	set_mtime(first, 1000);
	/* closed: three turns, the count in the last turn record */
	write_big_session("closed1", HDR PROMPT1, TURN_N(1) PROMPT2 ASSIST3 TURN_N(2) PROMPT2 ASSIST3 TURN_N(3));
	set_mtime("closed1", 5000);
	/* open: a prompt and its answer after the last turn record */
	write_big_session("open1", HDR PROMPT1, TURN_N(1) PROMPT2 ASSIST3 TURN_N(2) PROMPT2 ASSIST3);
	set_mtime("open1", 4000);
	/* the huge line is the last: no turn record within reach */
	write_big_session("huge1", HDR PROMPT1, "");
	set_mtime("huge1", 3000);
	/* an earlier sandbx's turn records carry no count */
	write_big_session("older1", HDR PROMPT1, TURN1 PROMPT2 ASSIST3 TURN2);
	set_mtime("older1", 2000);

	struct session_info *v = NULL;
	size_t n = 0;
	unsigned long long before = bytes_read();
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	unsigned long long spent = bytes_read() - before;
	if (spent > 4 * (SESSION_LIST_TAIL + 65536) + 65536)	/* reads of 64 KiB */
		fail_msg("the listing read %llu bytes of four files of 8 MiB", spent);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < 4; i++) {
		assert_null(v[i].error);
		assert_string_equal(v[i].first_prompt, "list the files");
		assert_int_equal(v[i].created, 1700000000);
	}
	assert_string_equal(v[0].id, "closed1");
	assert_int_equal(v[0].turns, 3);
	assert_int_equal(v[0].cut_short, 0);
	assert_string_equal(v[1].id, "open1");
	assert_int_equal(v[1].turns, 3);
	assert_int_equal(v[1].cut_short, 1);
	assert_string_equal(v[2].id, "huge1");
	assert_int_equal(v[2].turns, SESSION_TURNS_UNKNOWN);
	assert_int_equal(v[2].cut_short, 1);
	assert_string_equal(v[3].id, "older1");
	assert_int_equal(v[3].turns, SESSION_TURNS_UNKNOWN);
	assert_int_equal(v[3].cut_short, 0);
	assert_string_equal(v[4].id, first);	/* small: read whole, counted */
	assert_int_equal(v[4].turns, 1);
	session_list_free(v, n);

	/* a torn last line is cut short, the count before it kept */
	char *path = session_file("closed1");
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"type\":\"mess", 13), 13);
	close(fd);
	free(path);
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_string_equal(v[0].id, "closed1");
	assert_int_equal(v[0].turns, 3);
	assert_int_equal(v[0].cut_short, 1);
	session_list_free(v, n);
	assert_int_equal(notes.n, 0);
	free(first);
}

/* The turn record carries the count of turns so far, which the listing
 * takes from a large file's last line. */
static void test_session_turn_record_counts_turns(void **state)
{
	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_create(&T.x, &s, &notes, &err), 0);
	round_one(s, "one");
	char *text = xmalloc(SESSION_LIST_WHOLE + 2);
	memset(text, 'b', SESSION_LIST_WHOLE + 1);
	text[SESSION_LIST_WHOLE + 1] = '\0';
	cJSON *a = assistant_msg(cJSON_CreateString(text));
	free(text);
	assert_int_equal(session_append_round(s, "two", a, NULL, &err), 0);
	cJSON_Delete(a);
	struct session_turn_end end = { .stop_reason = "end_turn", .rounds = 1 };
	assert_int_equal(session_end_turn(s, &end, &err), 0);
	char *id = xstrdup(session_id(s)), *path = xstrdup(session_path(s));
	session_close(s);
	/* resumed, the count goes on */
	assert_int_equal(session_resume(&T.x, id, &s, &notes, &err), 0);
	round_one(s, "three");
	session_close(s);
	char *body = NULL;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fsu_read_all(fd, 64u << 20, path, &body, &len, &err), 0);
	close(fd);
	assert_non_null(strstr(body, "\"turns\":1}"));
	assert_non_null(strstr(body, "\"turns\":2}"));
	assert_non_null(strstr(body + len - 200, "\"turns\":3}\n"));
	free(body);

	struct session_info *v = NULL;
	size_t n = 0;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].turns, 3);
	assert_int_equal(v[0].cut_short, 0);
	assert_string_equal(v[0].first_prompt, "one");
	session_list_free(v, n);
	strv_free(&notes);
	free(id);
	free(path);
}

/* In a child: load the n instructions of f (no_new_privs first); 0, or -1
 * when seccomp cannot be loaded. */
static int load_filter(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { .len = n, .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* session_create in a child under the filter load(arg) loads: its wait
 * status (the test is skipped where seccomp cannot be loaded). */
static int create_in_child(int (*load)(int), int arg)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct session *s = NULL;
		struct strv notes = { 0 };
		char *err = NULL;
		if (load(arg) < 0)
			_exit(77);
		if (session_create(&T.x, &s, &notes, &err) < 0) {
			fprintf(stderr, "session_create: %s\n", err);
			_exit(1);
		}
		session_close(s);
		strv_free(&notes);
		child_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	return status;
}

/* The path of the only hidden file in the session directory, or NULL. */
static char *only_hidden_temp(void)
{
	DIR *d = opendir(T.x.sessions_dir);
	assert_non_null(d);
	char *found = NULL;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] != '.' || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		assert_null(found);
		found = xasprintf("%s/%s", T.x.sessions_dir, e->d_name);
	}
	closedir(d);
	return found;
}

/* In a child: kill the process at its first write(2) to a descriptor
 * above stderr (SIGSYS), as a kill between a file's create and its first
 * write would.  0, or -1 when seccomp cannot be loaded. */
static int kill_at_first_file_write(int unused)
{
	(void)unused;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

/* A kill between the session file's create and the write of its header
 * leaves no session file without its header: before, an empty one, which
 * --continue then refused, so nothing could be continued. */
static void test_session_create_killed_leaves_no_headerless_file(void **state)
{
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();	/* valgrind does not pass a seccomp filter through */
	char *older = new_session_with_round();
	set_mtime(older, 1000);
	int status = create_in_child(kill_at_first_file_write, 0);
	assert_true(WIFSIGNALED(status));	/* not an exit: the kill came */
	assert_int_equal(WTERMSIG(status), SIGSYS);

	struct session_info *v = NULL;
	size_t n = 0;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	for (size_t i = 0; i < n; i++)
		if (v[i].error)
			fail_msg("session '%s' left unreadable: %s", v[i].id, v[i].error);
	assert_int_equal(n, 1);
	session_list_free(v, n);
	struct session *s = NULL;
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), 0);
	assert_string_equal(session_id(s), older);
	session_close(s);
	assert_int_equal(notes.n, 0);
	free(older);

	/* The kill left the create's temporary file, hidden: the next create
	 * removes it once it is ten minutes old, and nothing else. */
	char *left = only_hidden_temp();
	assert_non_null(left);
	char *fresh = xasprintf("%s/.abcd1234.jsonl.abcd1234", T.x.sessions_dir);
	const char *others[] = { ".ABC.jsonl.abcd1234", ".abc.jsonl.abcd123", ".abc.json.abcd1234", ".jsonl.abcd1234" };
	write_file(fresh, "{}\n", 0600);
	for (size_t i = 0; i < SBX_ARRAY_LEN(others); i++) {
		char *o = xasprintf("%s/%s", T.x.sessions_dir, others[i]);
		write_file(o, "{}\n", 0600);
		struct timeval tv[2] = { { 1000, 0 }, { 1000, 0 } };
		assert_int_equal(utimes(o, tv), 0);
		free(o);
	}
	struct session *again = NULL;
	assert_int_equal(session_create(&T.x, &again, &notes, &err), 0);
	session_close(again);
	assert_int_equal(access(left, F_OK), 0);	/* not yet ten minutes old */
	struct timeval tv[2] = { { time(NULL) - SESSION_TEMP_AGE - 5, 0 }, { time(NULL) - SESSION_TEMP_AGE - 5, 0 } };
	assert_int_equal(utimes(left, tv), 0);
	assert_int_equal(session_create(&T.x, &again, &notes, &err), 0);
	session_close(again);
	if (access(left, F_OK) == 0)
		fail_msg("'%s' was left", left);
	assert_int_equal(access(fresh, F_OK), 0);
	for (size_t i = 0; i < SBX_ARRAY_LEN(others); i++) {
		char *o = xasprintf("%s/%s", T.x.sessions_dir, others[i]);
		if (access(o, F_OK) != 0)
			fail_msg("'%s' was removed", others[i]);
		free(o);
	}
	assert_int_equal(notes.n, 0);
	free(left);
	free(fresh);
}

/* In a child: flock answers errno e (a filesystem without locks). */
static int fail_flock(int e)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_flock, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

/* A lock the filesystem cannot take (ENOLCK: an NFS mount without its
 * lock daemon) is refused as that, not as a session "in use by another
 * sandbx", which sent the user looking for a process that is not there. */
static void test_session_resume_lock_unsupported(void **state)
{
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();	/* valgrind does not pass a seccomp filter through */
	char *id = new_session_with_round(), *path = session_file(id);
	off_t size = file_size(path);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct session *s = NULL;
		struct strv notes = { 0 };
		char *err = NULL;
		if (fail_flock(ENOLCK) < 0)
			_exit(77);
		int r = session_resume(&T.x, id, &s, &notes, &err);
		if (r == 0)
			_exit(2);
		if (r == -EBUSY || strstr(err, "in use")) {
			fprintf(stderr, "resume said: %s\n", err);
			_exit(3);
		}
		if (!strstr(err, strerror(ENOLCK)) || !strstr(err, path)) {
			fprintf(stderr, "resume said: %s\n", err);
			_exit(4);
		}
		free(err);
		strv_free(&notes);
		child_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(file_size(path), size);
	free(id);
	free(path);
}

/* In a child: renameat2 answers EINVAL (a filesystem without
 * RENAME_NOREPLACE) and, when no_links, linkat EPERM (vfat). */
static int fail_noreplace(int no_links)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_renameat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, no_links ? __NR_linkat : ~0u, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

/* In a child: renameat2 answers EINVAL, so the create links its file into
 * place, and the unlink of the temporary name that follows kills it. */
static int kill_between_link_and_unlink(int unused)
{
	(void)unused;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_renameat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unlinkat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	return load_filter(f, sizeof(f) / sizeof(f[0]));
}

/* A create killed between linking its file into place and removing the
 * temporary name leaves the session with two names, the second sandbx's
 * own hidden one: resume removes that one (noted) and resumes, rather
 * than refusing the file as a hard link of something else. */
static void test_session_resume_drops_create_leftover_link(void **state)
{
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();	/* valgrind does not pass a seccomp filter through */
	int status = create_in_child(kill_between_link_and_unlink, 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSYS);
	char *left = only_hidden_temp(), *id = NULL;
	assert_non_null(left);
	DIR *d = opendir(T.x.sessions_dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] != '.' && n > 6 && strcmp(e->d_name + n - 6, ".jsonl") == 0)
			id = xstrndup(e->d_name, n - 6);
	}
	closedir(d);
	assert_non_null(id);
	char *path = session_file(id);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 2);

	struct session *s = NULL;
	struct strv notes = { 0 };
	char *err = NULL;
	if (session_resume(&T.x, id, &s, &notes, &err) < 0)
		fail_msg("resume: %s", err);
	assert_int_equal(access(left, F_OK), -1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	assert_true(notes.n >= 1);
	assert_non_null(strstr(notes.v[0], "interrupted"));
	round_one(s, "hello");
	session_close(s);
	strv_free(&notes);
	free(left);
	free(id);
	free(path);
}

/* Where the state directory's filesystem has no RENAME_NOREPLACE, the
 * session is linked into place, and where it has no hard links either,
 * renamed: either way it is whole, and no temporary name is left. */
static void test_session_create_without_noreplace(void **state)
{
	(void)state;
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();	/* valgrind does not pass a seccomp filter through */
	for (int no_links = 0; no_links < 2; no_links++) {
		int status = create_in_child(fail_noreplace, no_links);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	DIR *d = opendir(T.x.sessions_dir);
	assert_non_null(d);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.')
			fail_msg("a temporary name was left: %s", e->d_name);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 2);
	struct session_info *v = NULL;
	size_t n = 0;
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_null(v[i].error);
	session_list_free(v, n);
}

/* An empty session file (an earlier sandbx killed while creating it) is
 * passed over by --continue with a note naming it, and kept; the listing
 * and a resume by its id say what it is. */
static void test_session_continue_passes_over_empty_file(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	char *older = new_session_with_round();
	set_mtime(older, 1000);
	char *empty = session_file("empty001"), *part = session_file("part0001");
	write_file(empty, "", 0600);
	set_mtime("empty001", 3000);
	write_file(part, "{\"type\":\"header\",\"vers", 0600);
	set_mtime("part0001", 2000);

	struct session *s = NULL;
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), 0);
	assert_string_equal(session_id(s), older);
	session_close(s);
	assert_int_equal(notes.n, 2);
	assert_non_null(strstr(notes.v[0], empty));
	assert_non_null(strstr(notes.v[0], "is empty"));
	assert_non_null(strstr(notes.v[0], "can be removed"));
	assert_non_null(strstr(notes.v[1], part));
	assert_non_null(strstr(notes.v[1], "no complete line"));
	strv_free(&notes);
	assert_int_equal(file_size(empty), 0);	/* never removed for the user */
	assert_int_equal(file_size(part), 22);

	/* the listing names them; a resume by id says why it cannot */
	struct session_info *v = NULL;
	size_t n = 0;
	assert_int_equal(session_list(&T.x, &v, &n, &notes, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].id, "empty001");
	assert_non_null(v[0].error);
	assert_non_null(strstr(v[0].error, "can be removed"));
	session_list_free(v, n);
	assert_int_equal(session_resume(&T.x, "empty001", &s, &notes, &err), -1);
	assert_non_null(strstr(err, "is empty"));
	free(err);
	err = NULL;

	/* only such files: nothing to continue, said as for an empty store */
	char *p = session_file(older);
	assert_int_equal(unlink(p), 0);
	free(p);
	assert_int_equal(session_resume_latest(&T.x, &s, &notes, &err), -ENOENT);
	assert_non_null(strstr(err, "no stored session to continue"));
	free(err);
	strv_free(&notes);
	free(empty);
	free(part);
	free(older);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_parse_any_split),
		cmocka_unit_test(test_session_parse_unknown_fields_dropped),
		cmocka_unit_test(test_session_title_is_terminal_safe),
		cmocka_unit_test(test_session_blank_text_not_replayed),
		cmocka_unit_test(test_session_parse_unknown_version),
		cmocka_unit_test(test_session_parse_unknown_record_type),
		cmocka_unit_test(test_session_parse_no_header),
		cmocka_unit_test(test_session_parse_torn_no_newline),
		cmocka_unit_test(test_session_parse_torn_invalid_last),
		cmocka_unit_test(test_session_parse_too_deep),
		cmocka_unit_test(test_session_parse_line_cap),
		cmocka_unit_test(test_session_parse_nul_byte),
		cmocka_unit_test(test_session_parse_nul_escape),
		cmocka_unit_test(test_session_parse_dangling_tool_use),
		cmocka_unit_test(test_session_parse_long_history),
		cmocka_unit_test_setup_teardown(test_session_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_create_narrows_own_dirs_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_create_any_umask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_create_syncs_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_dir_sync_error_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_refuses_wide_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_refuses_symlink_and_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_refuses_other_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_refuses_hard_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_append_refuses_hard_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_cuts_torn_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_repairs_dangling_tool_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_append_validates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_stop_before_first_round_stores_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_full_disk_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_disk_full_tmpfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_list_newest_first_and_continue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_continue_reads_only_newest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_list_reads_head_and_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_turn_record_counts_turns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_create_killed_leaves_no_headerless_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_create_without_noreplace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_drops_create_leftover_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_continue_passes_over_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_append_refuses_removed_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_one_writer_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_resume_lock_unsupported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_record_line_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_append_stops_at_file_cap, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
