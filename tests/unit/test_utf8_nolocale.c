/*
 * test_utf8_nolocale.c — which characters are marks (utf8_is_combining)
 * when the C.UTF-8 locale object cannot be made: newlocale is this file's
 * (its definition wins over libc's for the objects of libsandbx.a linked
 * in) and fails for C.UTF-8, as on a machine without that locale.  The
 * rule must then show more than glibc's wcwidth would, never less.
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
#include <wchar.h>
#include <cmocka.h>

#include "agent/gate.h"
#include "util/utf8.h"

static int refused;	/* C.UTF-8 asked for and refused */

locale_t newlocale(int mask, const char *name, locale_t base)
{
	if (name && strcmp(name, "C.UTF-8") == 0) {
		refused++;
		errno = ENOENT;
		return (locale_t)0;
	}
	locale_t (*real)(int, const char *, locale_t) = (locale_t(*)(int, const char *, locale_t))dlsym(RTLD_NEXT,
													      "newlocale");
	return real(mask, name, base);
}

/* glibc's own C.UTF-8 (its name spelled so this file's newlocale lets it
 * through), to compare with. */
static locale_t glibc_utf8(void)
{
	locale_t l = newlocale(LC_CTYPE_MASK, "C.utf8", (locale_t)0);
	assert_non_null(l);
	return l;
}

/* Every character glibc's wcwidth gives no columns (a mark, Hangul's
 * medial jamo, what draws nothing) is a mark to the fallback.  On the old fallback (the blocks of
 * combining marks) a Hebrew point, Arabic's harakat and Devanagari's
 * vowel signs were not. */
static void test_utf8_combining_fallback_shows_more(void **state)
{
	(void)state;
	assert_true(utf8_is_combining(0x0338));
	assert_true(refused >= 1);	/* the fallback is what is tested */
	locale_t l = glibc_utf8();
	locale_t old = uselocale(l);
	size_t missed = 0;
	uint32_t first = 0;
	for (uint32_t cp = 0xa0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		if (wcwidth((wchar_t)cp) == 0 && !utf8_is_combining(cp) && !missed++)
			first = cp;
	}
	uselocale(old);
	freelocale(l);
	if (missed)
		fail_msg("%zu characters glibc draws with no columns are taken as drawn alone, first U+%04X", missed,
			 (unsigned)first);
}

/* What still draws as it is in the fallback: the letters of Latin,
 * Greek, Cyrillic, Armenian, Hebrew, CJK and Hangul, the symbols. */
static void test_utf8_combining_fallback_keeps_text(void **state)
{
	(void)state;
	const uint32_t text[] = { 0xe9, 0x142, 0x3b1, 0x430, 0x501, 0x561, 0x5e9, 0x1ea1, 0x2014, 0x20ac,
				  0x2192, 0x2500, 0x26a0, 0x3042, 0x4e16, 0xac00, 0xff21, 0x1f600 };
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		if (utf8_is_combining(text[i]))
			fail_msg("U+%04X taken as a mark", (unsigned)text[i]);
	/* as the question shows them: a Hebrew point on an ASCII letter, a
	 * Devanagari vowel sign on a space; Russian drawn */
	char *v = gate_visible_path("a\xd6\xb8" "b \xe0\xa4\xbf \xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb", 512);
	assert_string_equal(v, "a<U+05B8>b <U+093F> \xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb");
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_combining_fallback_shows_more),
		cmocka_unit_test(test_utf8_combining_fallback_keeps_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
