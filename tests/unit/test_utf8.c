/*
 * test_utf8.c — utf8_decode, utf8_term_write (whole, byte by byte and at
 * every split, with the caller's carry) and the audit record's escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "util/log.h"
#include "util/utf8.h"

static const char sample[] = "ok é \x1b[2J\r\x7f\t\n\xc2\x9b \xe2\x80\xae \xe2\x81\xa6 \xd8\x9c \xff\xc0\xaf end \xf0\x9f\x99\x82";
static const char shown[] = "ok é ^[[2J^M^?\t\n<U+009B> <U+202E> <U+2066> <U+061C> \\xff\\xc0\\xaf end \xf0\x9f\x99\x82";

/* Feed s in pieces of at most step bytes (0: whole), keeping the carry as
 * a caller must; the output. */
static char *feed(const char *s, size_t n, size_t step)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	char carry[8];
	size_t nc = 0, i = 0;
	while (i < n) {
		size_t take = step && n - i > step ? step : n - i;
		char buf[64];
		assert_true(nc + take <= sizeof(buf));
		memcpy(buf, carry, nc);
		memcpy(buf + nc, s + i, take);
		size_t all = nc + take, used = utf8_term_write(f, buf, all, 0);
		assert_true(all - used <= 3);
		memcpy(carry, buf + used, all - used);
		nc = all - used;
		i += take;
	}
	utf8_term_write(f, carry, nc, 1);
	fclose(f);
	return out;
}

static void test_utf8_term_write_whole_and_split(void **state)
{
	(void)state;
	size_t n = sizeof(sample) - 1;
	for (size_t step = 0; step <= 7; step++) {
		char *out = feed(sample, n, step);
		assert_string_equal(out, shown);
		free(out);
	}
}

static void test_utf8_term_write_cut_short(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(utf8_term_write(f, "a\xe2\x80", 3, 0), 1);	/* the sequence waits */
	assert_int_equal(utf8_term_write(f, "\xe2\x80", 2, 1), 2);	/* the end: as bytes */
	fclose(f);
	assert_string_equal(out, "a\\xe2\\x80");
	free(out);
}

static void test_utf8_decode(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(utf8_decode((const unsigned char *)"\xe2\x80", 2, &cp), 0);
	assert_int_equal(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), -1);	/* surrogate */
	assert_int_equal(utf8_decode((const unsigned char *)"\xe0\x80\x80", 3, &cp), -1);	/* overlong */
	assert_int_equal(utf8_decode((const unsigned char *)"\x80", 1, &cp), -1);
	assert_true(utf8_is_bidi(0x202e) && utf8_is_bidi(0x2069) && !utf8_is_bidi(0x2070));
}

static void test_audit_record_escapes_controls(void **state)
{
	(void)state;
	const char *kv[] = { "command", "echo a\nb\x1b[2J\xc2\x9b\xe2\x80\xae\xff é", "cwd", "/tmp/é" };
	char *r = audit_format("spawned", kv, 4);
	assert_string_equal(r, "sandbx audit spawned command=\"echo a\\x0ab\\x1b[2J\\xc2\\x9b\\xe2\\x80\\xae\\xff é\" cwd=/tmp/é");
	free(r);
}

/* While the screen is up records are held in memory: 100 of 100 KiB each
 * (a bash call's command, quoted twice) keep 4 MiB, not 10, and the rest
 * are counted in one line when they are printed. */
static void test_audit_held_bounded(void **state)
{
	(void)state;
	char *big = malloc(100 * 1024 + 1);
	memset(big, 'x', 100 * 1024);
	big[100 * 1024] = '\0';
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	log_hold(1);
	for (int i = 0; i < 100; i++)
		audit(LOG_INFO, "spawned", "tool", "bash", "command", big, NULL);
	log_hold(0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	long size = ftell(tmp);
	assert_true(size > 3 * 1024 * 1024 && size < 4 * 1024 * 1024 + 1024);
	char tail[600] = "";
	fseek(tmp, -500, SEEK_END);
	size_t k = fread(tail, 1, sizeof(tail) - 1, tmp);
	tail[k] = '\0';
	assert_non_null(strstr(tail, "sandbx: 60 more audit records ("));
	assert_non_null(strstr(tail, "past the 4 MiB kept meanwhile, and are not shown"));
	assert_non_null(strstr(tail, "redirect stderr to a file (2>audit.log)"));
	fclose(tmp);
	free(big);
}

static void test_utf8_cut(void **state)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac";	/* a é € */
	(void)state;
	assert_int_equal(utf8_cut(s, 6, 1), 1);
	assert_int_equal(utf8_cut(s, 6, 2), 1);		/* inside é */
	assert_int_equal(utf8_cut(s, 6, 3), 3);
	assert_int_equal(utf8_cut(s, 6, 5), 3);		/* inside € */
	assert_int_equal(utf8_cut(s, 6, 9), 6);		/* past the end */
	assert_int_equal(utf8_cut("\x80\x80\x80\x80\x80", 5, 4), 1);	/* stray bytes: 3 back at most */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_term_write_whole_and_split),
		cmocka_unit_test(test_utf8_term_write_cut_short),
		cmocka_unit_test(test_utf8_decode),
		cmocka_unit_test(test_utf8_cut),
		cmocka_unit_test(test_audit_record_escapes_controls),
		cmocka_unit_test(test_audit_held_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
