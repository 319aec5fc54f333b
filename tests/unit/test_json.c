/*
 * test_json.c — json_print_capped: the text is cJSON's own for every
 * length around the sizes it tries (64 KiB, then 8 times more each time)
 * and around the cap; one byte over the cap is NULL.  json_too_deep: a
 * parse that failed at cJSON's nesting limit is told from one that failed
 * on text that is not JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/json.h"

/* {"s":"xxx..."}: its printed length is n + 8. */
static cJSON *of_len(size_t printed)
{
	size_t n = printed - 8;
	char *s = malloc(n + 1);
	memset(s, 'x', n);
	s[n] = '\0';
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "s", s);
	free(s);
	return o;
}

static void check(size_t printed, size_t cap)
{
	cJSON *o = of_len(printed);
	char *want = cJSON_PrintUnformatted(o);
	assert_int_equal(strlen(want), printed);
	size_t len = 0;
	char *got = json_print_capped(o, cap, &len);
	if (printed <= cap) {
		if (!got)
			fail_msg("%zu bytes under a cap of %zu: NULL", printed, cap);
		assert_int_equal(len, printed);
		assert_string_equal(got, want);
	} else if (got) {
		fail_msg("%zu bytes under a cap of %zu: printed", printed, cap);
	}
	free(got);
	free(want);
	cJSON_Delete(o);
}

static void test_json_lengths_around_tries(void **state)
{
	(void)state;
	const size_t cap = 5u << 20;
	const size_t around[] = { 64u << 10, 512u << 10, 4u << 20, cap };
	for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++)
		for (size_t d = 0; d < 12; d++) {
			if (around[i] - 6 + d >= 8)
				check(around[i] - 6 + d, cap);
		}
	check(9, cap);
}

static void test_json_small_cap(void **state)
{
	(void)state;
	for (size_t n = 8; n < 40; n++)
		check(n, 20);
}

/* n arrays, each in the last, the innermost holding "x", then tail. */
static char *nested(const char *head, size_t n, const char *open, const char *close, const char *tail)
{
	size_t ho = strlen(head), o = strlen(open), c = strlen(close), t = strlen(tail);
	char *s = malloc(ho + n * (o + c) + 3 + t + 1), *p = s;
	memcpy(p, head, ho);
	p += ho;
	for (size_t i = 0; i < n; i++, p += o)
		memcpy(p, open, o);
	memcpy(p, "\"x\"", 3);
	p += 3;
	for (size_t i = 0; i < n; i++, p += c)
		memcpy(p, close, c);
	memcpy(p, tail, t + 1);
	return s;
}

/* 1 if s parses; else *deep says whether json_too_deep blames the nesting. */
static int parses(const char *s, int *deep)
{
	const char *end = NULL;
	cJSON *o = cJSON_ParseWithLengthOpts(s, strlen(s), &end, 0);
	cJSON_Delete(o);
	*deep = o ? -1 : json_too_deep(s, strlen(s), end);
	return o != NULL;
}

static void test_json_too_deep(void **state)
{
	(void)state;
	int deep;
	const size_t lim = JSON_NESTING_LIMIT;
	/* the library's limit is the header's: JSON_NESTING_LIMIT levels
	 * read, one more refused, arrays and objects alike */
	static const char *const opens[] = { "[", "{\"a\":" }, *const closes[] = { "]", "}" };
	for (int k = 0; k < 2; k++) {
		char *s = nested("", lim, opens[k], closes[k], "");
		assert_true(parses(s, &deep));
		free(s);
		s = nested("", lim + 1, opens[k], closes[k], "");
		assert_false(parses(s, &deep));
		assert_int_equal(deep, 1);
		free(s);
		/* far deeper, and inside an object holding strings with
		 * brackets and escaped quotes first */
		s = nested("{\"a\\\"[[{\":\"]]\\\\\",\"b\":", 3 * lim, opens[k], closes[k], "}");
		assert_false(parses(s, &deep));
		assert_int_equal(deep, 1);
		free(s);
	}
	/* not JSON, however deep it would go: cJSON stops earlier */
	static const char *const heads[] = { "[1,,", "{\"a\" 1,", "[\"unclosed", "[tru" };
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		char *s = nested(heads[i], lim + 5, "[", "]", "");
		assert_false(parses(s, &deep));
		if (deep)
			fail_msg("'%s' then %zu levels: blamed on the nesting", heads[i], lim + 5);
		free(s);
	}
	/* brackets in a string are text: 3 * lim of them, then a bad value */
	char *s = nested("[\"", 3 * lim, "[", "{", "\", nope]");
	assert_false(parses(s, &deep));
	assert_int_equal(deep, 0);
	free(s);
	/* deep enough but cut short (a torn line): not the nesting */
	s = nested("", lim, "[", "]", "");
	s[lim] = '\0';
	assert_false(parses(s, &deep));
	assert_int_equal(deep, 0);
	free(s);
	/* closed again before going deeper: [A,B] with A and B each lim - 1
	 * levels deep is lim levels, read; with A and B of lim, one too many */
	for (size_t d = lim - 1; d <= lim; d++) {
		char *a = nested("", d, "[", "]", "");
		size_t an = strlen(a);
		char *head = malloc(an + 3);
		head[0] = '[';
		memcpy(head + 1, a, an);
		memcpy(head + 1 + an, ",", 2);
		s = nested(head, d, "[", "]", "]");
		int ok = parses(s, &deep);
		assert_int_equal(ok, d < lim);
		assert_int_equal(deep, d < lim ? -1 : 1);
		free(s);
		free(head);
		free(a);
	}
	/* what it is given that is not a failure it can judge */
	assert_int_equal(json_too_deep("[1]", 3, NULL), 0);
	assert_int_equal(json_too_deep(NULL, 0, NULL), 0);
	const char *t = "[[";
	assert_int_equal(json_too_deep(t, 2, t + 2), 0);
	assert_int_equal(json_too_deep(t, 2, t + 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_lengths_around_tries),
		cmocka_unit_test(test_json_small_cap),
		cmocka_unit_test(test_json_too_deep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
