/* test_provider.c — the pure parts of the provider: the request body, the
 * base URL policy, and the retry decisions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dlfcn.h>

#include "agent/curl.h"
#include "agent/provider.h"
#include "util/util.h"

static cJSON *parse(const char *s)
{
	cJSON *j = cJSON_Parse(s);
	assert_non_null(j);
	return j;
}

static void test_prov_body_fields(void **state)
{
	cJSON *msgs = parse("[{\"role\":\"user\",\"content\":\"hi\"}]");
	cJSON *tools = parse("[{\"name\":\"read\",\"description\":\"Read a file\",\"input_schema\":{\"type\":\"object\"}}]");
	struct prov_request rq = { .model = "claude-x", .max_tokens = 4096, .system = "be brief",
				   .messages = msgs, .tools = tools };
	char *err = NULL;
	cJSON *b = prov_body(&rq, &err);
	assert_non_null(b);
	char *s = cJSON_PrintUnformatted(b);
	assert_string_equal(s, "{\"model\":\"claude-x\",\"max_tokens\":4096,\"stream\":true,\"system\":\"be brief\","
			       "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
			       "\"tools\":[{\"name\":\"read\",\"description\":\"Read a file\",\"input_schema\":{\"type\":\"object\"}}]}");
	free(s);
	cJSON_Delete(b);

	/* Wrap-up round: tool_choice none; no system when empty. */
	rq.tool_choice_none = 1;
	rq.system = "";
	b = prov_body(&rq, &err);
	assert_null(cJSON_GetObjectItem(b, "system"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "tool_choice"), "type")->valuestring, "none");
	cJSON_Delete(b);

	/* No tools: neither tools nor tool_choice. */
	rq.tools = NULL;
	b = prov_body(&rq, &err);
	assert_null(cJSON_GetObjectItem(b, "tools"));
	assert_null(cJSON_GetObjectItem(b, "tool_choice"));
	cJSON_Delete(b);

	/* The body references the caller's arrays: they survive it. */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")->valuestring, "hi");
	cJSON_Delete(msgs);
	cJSON_Delete(tools);
}

static void test_prov_body_refuses_bad_requests(void **state)
{
	cJSON *msgs = parse("[{\"role\":\"user\",\"content\":\"hi\"}]");
	cJSON *empty = parse("[]");
	cJSON *obj = parse("{}");
	struct prov_request ok = { .model = "m", .max_tokens = 1, .messages = msgs };
	struct {
		struct prov_request rq;
		const char *needle;
	} bad[] = {
		{ { .model = NULL, .max_tokens = 1, .messages = msgs }, "--model" },
		{ { .model = "", .max_tokens = 1, .messages = msgs }, "--model" },
		{ { .model = "m", .max_tokens = 0, .messages = msgs }, "--max-tokens" },
		{ { .model = "m", .max_tokens = 1, .messages = empty }, "no messages" },
		{ { .model = "m", .max_tokens = 1, .messages = NULL }, "no messages" },
		{ { .model = "m", .max_tokens = 1, .messages = msgs, .tools = obj }, "not a JSON array" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *err = NULL;
		assert_null(prov_body(&bad[i].rq, &err));
		assert_non_null(err);
		assert_non_null(strstr(err, bad[i].needle));
		free(err);
	}
	char *err = NULL;
	cJSON *b = prov_body(&ok, &err);
	assert_non_null(b);
	cJSON_Delete(b);
	cJSON_Delete(msgs);
	cJSON_Delete(empty);
	cJSON_Delete(obj);
}

static void test_prov_url_policy(void **state)
{
	struct {
		const char *base, *want;
	} good[] = {
		{ "https://api.anthropic.com", "https://api.anthropic.com/v1/messages" },
		{ "https://api.anthropic.com/", "https://api.anthropic.com/v1/messages" },
		{ "https://gw.example.com:8443/anthropic/", "https://gw.example.com:8443/anthropic/v1/messages" },
		{ "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/messages" },
		{ "http://127.45.6.7:1", "http://127.45.6.7:1/v1/messages" },
		{ "http://localhost:9", "http://localhost:9/v1/messages" },
		{ "http://LocalHost:9", NULL },
		{ "http://[::1]:8080", "http://[::1]:8080/v1/messages" },
		{ "https://gw.example.com/v1/acct/anthropic", "https://gw.example.com/v1/acct/anthropic/v1/messages" },
		{ "https://gw.example.com/v10", "https://gw.example.com/v10/v1/messages" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(good); i++) {
		char *url = NULL, *err = NULL;
		if (prov_messages_url(good[i].base, &url, &err) != 0)
			fail_msg("'%s' refused: %s", good[i].base, err);
		if (good[i].want)
			assert_string_equal(url, good[i].want);
		free(url);
	}
	struct {
		const char *base, *needle;
	} bad[] = {
		{ "http://example.com", "not loopback" },
		{ "http://10.0.0.1:80", "not loopback" },
		{ "http://127.0.0.1.nip.io", "not loopback" },
		{ "http://localhost.example.com", "not loopback" },
		{ "http://[::2]:80", "not loopback" },
		{ "http://localhost@evil.example", "not loopback" },
		{ "ftp://127.0.0.1", "only https" },
		{ "file:///etc/passwd", "only https" },
		{ "https://user:pw@api.anthropic.com", "password" },
		{ "http://user@127.0.0.1", "password" },
		{ "https://api.anthropic.com/?x=1", "query" },
		{ "https://api.anthropic.com/#f", "fragment" },
		{ "https://api.anthropic.com#", "fragment" },
		{ "https://api.anthropic.com/?", "query" },
		{ "api.anthropic.com", "not a valid URL" },
		{ "", "not a valid URL" },
		{ "https://api.anthropic.com/v1", "ends in /v1" },
		{ "https://api.anthropic.com/v1/", "ends in /v1" },
		{ "https://gw.example.com/anthropic/V1//", "ends in /V1" },
		{ "https://api.anthropic.com/v1/messages", "ends in /v1/messages" },
		{ "http://127.0.0.1:9/v1/messages/", "ends in /v1/messages" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *url = NULL, *err = NULL;
		if (prov_messages_url(bad[i].base, &url, &err) == 0)
			fail_msg("'%s' accepted as '%s'", bad[i].base, url);
		assert_non_null(err);
		if (!strstr(err, bad[i].needle))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].base, err, bad[i].needle);
		free(err);
	}
}

static void test_prov_loopback_hosts(void **state)
{
	assert_true(prov_host_is_loopback("127.0.0.1"));
	assert_true(prov_host_is_loopback("127.255.255.254"));
	assert_true(prov_host_is_loopback("localhost"));
	assert_true(prov_host_is_loopback("[::1]"));
	assert_true(prov_host_is_loopback("::1"));
	assert_true(prov_host_is_loopback("[::ffff:127.0.0.1]"));
	assert_false(prov_host_is_loopback("128.0.0.1"));
	assert_false(prov_host_is_loopback("0.0.0.0"));
	assert_false(prov_host_is_loopback("[::]"));
	assert_false(prov_host_is_loopback("[::ffff:10.0.0.1]"));
	assert_false(prov_host_is_loopback("localhost.evil"));
	assert_false(prov_host_is_loopback(""));
}

static void test_prov_retry_statuses(void **state)
{
	long yes[] = { 408, 409, 429, 500, 502, 503, 504, 529 };
	long no[] = { 200, 400, 401, 403, 404, 413, 422 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(yes); i++)
		assert_true(prov_status_retryable(yes[i], NULL));
	for (size_t i = 0; i < SBX_ARRAY_LEN(no); i++)
		assert_false(prov_status_retryable(no[i], NULL));
	/* x-should-retry overrides either way; other values do not. */
	assert_true(prov_status_retryable(400, "true"));
	assert_false(prov_status_retryable(529, "false"));
	assert_false(prov_status_retryable(429, "FALSE"));
	assert_true(prov_status_retryable(429, "maybe"));
}

static void test_prov_retry_after(void **state)
{
	time_t now = 1700000000;
	assert_int_equal(prov_retry_after_ms("2", NULL, now), 2000);
	assert_int_equal(prov_retry_after_ms("1.5", NULL, now), 1500);
	assert_int_equal(prov_retry_after_ms("60", NULL, now), 60000);
	/* past 60 s the wait is still reported: the round fails on it
	 * (prov-retry-after-too-long), where it used to back off 0.5 s */
	assert_int_equal(prov_retry_after_ms("61", NULL, now), 61000);
	assert_int_equal(prov_retry_after_ms("100000", NULL, now), 100000000);
	assert_int_equal(prov_retry_after_ms("99999999999999999999", NULL, now), (long)PROV_RETRY_AFTER_CLAMP_MS);
	assert_int_equal(prov_retry_after_ms("0", NULL, now), -1);
	assert_int_equal(prov_retry_after_ms("-3", NULL, now), -1);
	assert_int_equal(prov_retry_after_ms("soon", NULL, now), -1);
	assert_int_equal(prov_retry_after_ms(NULL, NULL, now), -1);
	assert_int_equal(prov_retry_after_ms("30", "150", now), 150);	/* -ms wins */
	assert_int_equal(prov_retry_after_ms("3", "junk", now), 3000);
	assert_int_equal(prov_retry_after_ms(NULL, "60001", now), 60001);
	assert_int_equal(prov_retry_after_ms(NULL, "0x1f40", now), -1);	/* decimal only */
	assert_int_equal(prov_retry_after_ms(NULL, "8e3", now), -1);
	assert_int_equal(prov_retry_after_ms(NULL, "250 ", now), 250);
	/* An HTTP date 20 s ahead of now (1700000000 = Tue, 14 Nov 2023 22:13:20 GMT). */
	assert_int_equal(prov_retry_after_ms("Tue, 14 Nov 2023 22:13:40 GMT", NULL, now), 20000);
	assert_int_equal(prov_retry_after_ms("Tue, 14 Nov 2023 22:23:20 GMT", NULL, now), 600000);
	assert_int_equal(prov_retry_after_ms("Tue, 14 Nov 2023 22:13:00 GMT", NULL, now), -1);	/* past */
}

static void test_prov_backoff(void **state)
{
	assert_int_equal(prov_backoff_ms(1, 500, 8000, 0), 500);
	assert_int_equal(prov_backoff_ms(2, 500, 8000, 0), 1000);
	assert_int_equal(prov_backoff_ms(3, 500, 8000, 0), 2000);
	assert_int_equal(prov_backoff_ms(5, 500, 8000, 0), 8000);
	assert_int_equal(prov_backoff_ms(40, 500, 8000, 0), 8000);
	assert_int_equal(prov_backoff_ms(1, 500, 8000, 1), 375);	/* 25 % jitter at most */
	assert_int_equal(prov_backoff_ms(3, 500, 8000, 0.5), 1750);
	for (unsigned a = 1; a < 10; a++)
		for (double j = 0; j <= 1; j += 0.125) {
			unsigned d = prov_backoff_ms(a, 500, 8000, j);
			assert_true(d >= 375 && d <= 8000);
		}
}

/* A limit or a wait as the messages name it: a limit under a second was
 * "0 s" in the idle and cap messages (integer seconds), 1.5 s was "1 s". */
static void test_prov_duration(void **state)
{
	(void)state;
	static const struct { unsigned ms; const char *s; } c[] = {
		{ 1, "1 ms" }, { 400, "400 ms" }, { 999, "999 ms" }, { 1000, "1 s" }, { 1500, "1.5 s" },
		{ 90000, "90 s" }, { 90500, "90.5 s" }, { 600000, "600 s" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char b[32];
		prov_duration(c[i].ms, b, sizeof(b));
		assert_string_equal(b, c[i].s);
	}
	/* never "0 s" for a wait that was not nothing */
	for (unsigned ms = 1; ms < 3000; ms++) {
		char b[32];
		prov_duration(ms, b, sizeof(b));
		assert_true(strncmp(b, "0 ", 2) != 0 && strncmp(b, "0.0", 3) != 0);
	}
}

static void test_prov_retry_text(void **state)
{
	struct prov_retry r = { .attempt = 2, .max = 4, .delay_ms = 4000, .status = 529, .what = "overloaded", .detail = "" };
	char *t = prov_retry_text(&r);
	assert_string_equal(t, "overloaded — retrying in 4 s, attempt 2 of 4");
	free(t);
	r.delay_ms = 1500;
	r.what = "rate limited";
	t = prov_retry_text(&r);
	assert_string_equal(t, "rate limited — retrying in 1.5 s, attempt 2 of 4");
	free(t);
	r.delay_ms = 375;
	t = prov_retry_text(&r);
	assert_string_equal(t, "rate limited — retrying in 375 ms, attempt 2 of 4");
	free(t);
}

static void test_prov_new_checks(void **state)
{
	struct prov *p = NULL;
	char *err = NULL;
	struct prov_opts o = { .base_url = "http://example.com", .api_key = "sk-test-key" };
	assert_int_equal(prov_new(&o, &p, &err), -1);
	assert_non_null(strstr(err, "not loopback"));
	free(err);
	err = NULL;
	o.base_url = "http://127.0.0.1:1";
	o.api_key = "";
	assert_int_equal(prov_new(&o, &p, &err), -1);
	assert_non_null(strstr(err, "no API key"));
	free(err);
	err = NULL;
	o.api_key = "k\r\nx-evil: 1";
	assert_int_equal(prov_new(&o, &p, &err), -1);
	assert_non_null(strstr(err, "line break"));
	free(err);
	err = NULL;
	o.api_key = "k";		/* one letter: a slip, never sent */
	assert_int_equal(prov_new(&o, &p, &err), -1);
	assert_non_null(strstr(err, "shorter than 6 bytes"));
	free(err);
	err = NULL;
	o.api_key = "sk-test-key";
	assert_int_equal(prov_new(&o, &p, &err), 0);
	prov_free(p);
}

/*
 * libcurl's allocations, through curl_global_init_mem (its own hook, as
 * its torture tests use): passed to the C library, except that while
 * oom_from is non-zero every request of that many bytes or more fails.
 * The handle curl_easy_init makes is one such (5,360 bytes in 7.88); the
 * pieces of a short URL are under 100.  Installed before anything else
 * initialises libcurl in this process (group setup); works the same under
 * ASan and valgrind, where no RLIMIT_AS can be set.
 */
static size_t oom_from;
static unsigned oom_refused;

static int oom_hit(size_t n)
{
	if (oom_from && n >= oom_from) {
		oom_refused++;
		return 1;
	}
	return 0;
}
static void *oom_malloc(size_t n)
{
	return oom_hit(n) ? NULL : malloc(n);
}

static void *oom_realloc(void *p, size_t n)
{
	return oom_hit(n) ? NULL : realloc(p, n);
}

static void *oom_calloc(size_t k, size_t n)
{
	return oom_hit(k * n) ? NULL : calloc(k, n);
}

static char *oom_strdup(const char *s)
{
	return oom_hit(strlen(s) + 1) ? NULL : strdup(s);
}

static int install_curl_allocator(void **state)
{
	typedef CURLcode (*init_mem_fn)(long, curl_malloc_callback, curl_free_callback, curl_realloc_callback,
					curl_strdup_callback, curl_calloc_callback);
	/* as dlcurl_load opens it (curl.c: GnuTLS not initialised on load) */
	int set = !getenv("GNUTLS_NO_IMPLICIT_INIT");
	if (set)
		setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 1);
	void *h = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
	if (set)
		unsetenv("GNUTLS_NO_IMPLICIT_INIT");
	init_mem_fn init = h ? (init_mem_fn)dlsym(h, "curl_global_init_mem") : NULL;
	if (!init || init(CURL_GLOBAL_DEFAULT, oom_malloc, free, oom_realloc, oom_strdup, oom_calloc) != CURLE_OK) {
		fprintf(stderr, "cannot install libcurl's allocator: %s\n", dlerror());
		return -1;
	}
	return 0;		/* the library stays loaded, as dlcurl_load keeps it */
}

/* curl_easy_init failing (it fails only when an allocation does): the
 * message says the process is most likely out of memory and what to do,
 * not only that the call failed; with memory back, the same call works. */
static void test_prov_easy_init_out_of_memory(void **state)
{
	struct prov *p = NULL;
	char *err = NULL;
	struct prov_opts o = { .base_url = "http://127.0.0.1:1", .api_key = "sk-test-key" };
	oom_from = 1024;
	oom_refused = 0;
	int r = prov_new(&o, &p, &err);
	oom_from = 0;
	assert_int_equal(r, -1);
	assert_null(p);
	assert_true(oom_refused > 0);
	if (!strstr(err, "libcurl could not start a transfer (curl_easy_init failed) — most likely the process is out "
			 "of memory: close other programs, or raise its memory limit"))
		fail_msg("message: %s", err);
	free(err);
	err = NULL;
	assert_int_equal(prov_new(&o, &p, &err), 0);
	prov_free(p);
}

static void test_prov_judge_attempts(void **state)
{
	struct {
		struct prov_outcome o;
		enum prov_verdict want;
	} cases[] = {
		/* a complete answer */
		{ { .status = 200, .transfer_ok = 1, .done = 1, .content = 1 }, PROV_V_DONE },
		/* limits and the stop flag win over everything */
		{ { .stopped = 1, .status = 200, .transfer_ok = 1, .done = 1 }, PROV_V_STOPPED },
		{ { .idle = 1, .status = 200 }, PROV_V_TIMEOUT },
		{ { .over_total = 1, .status = 0 }, PROV_V_TIMEOUT },
		{ { .idle = 1, .status = 200, .headers_done = 1 }, PROV_V_TIMEOUT },
		{ { .idle = 1, .status = 400 }, PROV_V_TIMEOUT },	/* its headers never ended */
		/* an error status whose body stalled: the status is the
		 * answer, not a silent server; a stall is not retried */
		{ { .idle = 1, .status = 400, .headers_done = 1 }, PROV_V_FAIL },
		{ { .idle = 1, .status = 503, .headers_done = 1 }, PROV_V_FAIL },
		{ { .over_total = 1, .status = 401, .headers_done = 1 }, PROV_V_FAIL },
		{ { .stopped = 1, .status = 400, .headers_done = 1 }, PROV_V_STOPPED },
		/* error events: retried only before content, only server-side kinds */
		{ { .status = 200, .stream_failed = 1, .error_event = "overloaded_error" }, PROV_V_RETRY },
		{ { .status = 200, .stream_failed = 1, .error_event = "api_error" }, PROV_V_RETRY },
		{ { .status = 200, .stream_failed = 1, .error_event = "overloaded_error", .content = 1 }, PROV_V_FAIL },
		{ { .status = 200, .stream_failed = 1, .error_event = "invalid_request_error" }, PROV_V_FAIL },
		{ { .status = 200, .stream_failed = 1 }, PROV_V_FAIL },	/* malformed stream */
		/* a 2xx cut short: replayed only if nothing was shown */
		{ { .status = 200, .transfer_ok = 0, .transfer_retryable = 1 }, PROV_V_RETRY },
		{ { .status = 200, .transfer_ok = 1, .done = 0 }, PROV_V_RETRY },
		{ { .status = 200, .transfer_ok = 0, .transfer_retryable = 1, .content = 1 }, PROV_V_FAIL },
		{ { .status = 200, .transfer_ok = 1, .done = 0, .content = 1 }, PROV_V_FAIL },
		{ { .status = 200, .bad_type = 1 }, PROV_V_FAIL },
		/* what the same server would send again: not retried */
		{ { .status = 200, .header_cap = 1, .transfer_retryable = 0 }, PROV_V_FAIL },
		{ { .status = 503, .header_cap = 1 }, PROV_V_FAIL },
		{ { .status = 200, .unasked_encoding = 1, .transfer_ok = 0 }, PROV_V_FAIL },
		/* cut after message_stop: the message is whole all the same */
		{ { .status = 200, .transfer_ok = 0, .transfer_retryable = 1, .done = 1, .content = 1 }, PROV_V_DONE },
		/* no response at all */
		{ { .status = 0, .transfer_retryable = 1 }, PROV_V_RETRY },
		{ { .status = 0, .transfer_retryable = 0 }, PROV_V_FAIL },	/* e.g. a bad certificate */
		/* HTTP errors */
		{ { .status = 529 }, PROV_V_RETRY },
		{ { .status = 429 }, PROV_V_RETRY },
		{ { .status = 401 }, PROV_V_FAIL },
		/* a status that changed after content was shown (a trailer, a
		 * second response): never replayed */
		{ { .status = 500, .content = 1, .transfer_ok = 1 }, PROV_V_FAIL },
		{ { .status = 529, .content = 1, .should_retry = "true" }, PROV_V_FAIL },
		{ { .status = 0, .content = 1, .transfer_retryable = 1 }, PROV_V_FAIL },
		{ { .status = 307 }, PROV_V_FAIL },	/* redirects are not followed */
		{ { .status = 400, .should_retry = "true" }, PROV_V_RETRY },
		{ { .status = 503, .should_retry = "false" }, PROV_V_FAIL },
		/* a proxy that refused the tunnel (curl: a receive error):
		 * retried only when its status is a transient one */
		{ { .status = 0, .proxy_status = 403, .transfer_retryable = 1 }, PROV_V_FAIL },
		{ { .status = 0, .proxy_status = 407, .transfer_retryable = 1 }, PROV_V_FAIL },
		{ { .status = 0, .proxy_status = 503, .transfer_retryable = 1 }, PROV_V_RETRY },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++)
		if (prov_judge(&cases[i].o) != cases[i].want)
			fail_msg("case %zu: verdict %d, want %d", i, (int)prov_judge(&cases[i].o), (int)cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prov_body_fields),
		cmocka_unit_test(test_prov_body_refuses_bad_requests),
		cmocka_unit_test(test_prov_url_policy),
		cmocka_unit_test(test_prov_loopback_hosts),
		cmocka_unit_test(test_prov_retry_statuses),
		cmocka_unit_test(test_prov_judge_attempts),
		cmocka_unit_test(test_prov_retry_after),
		cmocka_unit_test(test_prov_backoff),
		cmocka_unit_test(test_prov_retry_text),
		cmocka_unit_test(test_prov_duration),
		cmocka_unit_test(test_prov_new_checks),
		cmocka_unit_test(test_prov_easy_init_out_of_memory),
	};
	return cmocka_run_group_tests(tests, install_curl_allocator, NULL);
}
