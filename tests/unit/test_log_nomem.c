/*
 * test_log_nomem.c — an error message when memory is short: sbx_err may
 * be reporting that shortage, and must still be written.  The shortage is
 * this file's: its vasprintf (and __vasprintf_chk, which _FORTIFY_SOURCE
 * calls instead), newlocale and duplocale (their definitions
 * win over libc's for the objects of libsandbx.a linked in, as in
 * test_utf8_nolocale.c) fail with ENOMEM while short is set, as glibc's
 * do when malloc does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/log.h"

static int short_of_memory, refused;

int vasprintf(char **out, const char *fmt, va_list ap)
{
	if (short_of_memory) {
		refused++;
		errno = ENOMEM;
		return -1;
	}
	int (*real)(char **, const char *, va_list) = (int (*)(char **, const char *, va_list))dlsym(RTLD_NEXT,
												      "vasprintf");
	return real(out, fmt, ap);
}

/* what vasprintf is under _FORTIFY_SOURCE, as libsandbx.a is built */
int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);
int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap)
{
	if (short_of_memory) {
		refused++;
		errno = ENOMEM;
		return -1;
	}
	int (*real)(char **, int, const char *, va_list) =
		(int (*)(char **, int, const char *, va_list))dlsym(RTLD_NEXT, "__vasprintf_chk");
	return real(out, flag, fmt, ap);
}

locale_t newlocale(int mask, const char *name, locale_t base)
{
	if (short_of_memory) {
		refused++;
		errno = ENOMEM;
		return (locale_t)0;
	}
	locale_t (*real)(int, const char *, locale_t) = (locale_t(*)(int, const char *, locale_t))dlsym(RTLD_NEXT,
													      "newlocale");
	return real(mask, name, base);
}

locale_t duplocale(locale_t l)
{
	if (short_of_memory) {
		refused++;
		errno = ENOMEM;
		return (locale_t)0;
	}
	locale_t (*real)(locale_t) = (locale_t(*)(locale_t))dlsym(RTLD_NEXT, "duplocale");
	return real(l);
}

/* What sbx_err writes on fd 2 for a name it quotes, read back from a file. */
static char *err_of(const char *name)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0 && dup2(fileno(f), 2) == 2);
	sbx_err("cannot open '%s': Cannot allocate memory \xe2\x80\x94 free some and run it again", name);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	off_t n = lseek(fileno(f), 0, SEEK_END);
	assert_true(n >= 0);
	char *s = calloc(1, (size_t)n + 1);
	assert_true(pread(fileno(f), s, (size_t)n, 0) == n);
	fclose(f);
	return s;
}

/* With no memory to be had the message is written whole, escaped as
 * ever: a mark on an ASCII letter and a Cyrillic a among ASCII letters
 * as \xNN, a newline too (one line); the em dash as it is.  Before, it
 * went through vasprintf, and nothing was written. */
static void test_sbx_err_without_memory(void **state)
{
	(void)state;
	short_of_memory = 1;
	char *s = err_of("/w/a\xcc\xb8" "b/p\xd0\xb0sswd\nsandbx audit exited code=0");
	short_of_memory = 0;
	assert_true(refused > 0);	/* the shortage is what is tested */
	assert_string_equal(s, "sandbx: cannot open '/w/a\\xcc\\xb8" "b/p\\xd0\\xb0sswd\\x0asandbx audit exited code=0': "
			       "Cannot allocate memory \xe2\x80\x94 free some and run it again\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbx_err_without_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
