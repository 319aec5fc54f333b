/*
 * test_json.c — json_print_capped: the text is cJSON's own for every
 * length around the sizes it tries (64 KiB, then 8 times more each time)
 * and around the cap; one byte over the cap is NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_lengths_around_tries),
		cmocka_unit_test(test_json_small_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
