/*
 * utf8.c — see utf8.h.
 */
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "util/utf8.h"

/* Set when the terminal's charset is not UTF-8: its LC_CTYPE. */
static locale_t term_loc;
/* Run once: term_decide at the first need, or nothing once a caller set
 * term_loc itself (utf8_term_charset_init, _set). */
static pthread_once_t term_once = PTHREAD_ONCE_INIT;

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	int len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2; v = c & 0x1f; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3; v = c & 0x0f; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4; v = c & 0x07; min = 0x10000;
	} else {
		return -1;
	}
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return 0;
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return -1;
	*cp = v;
	return len;
}

int utf8_is_bidi(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int utf8_is_invisible(uint32_t cp)
{
	/* Unicode's Default_Ignorable_Code_Point (the bidi controls among
	 * them are utf8_is_bidi's), the interlinear annotation marks, and the
	 * line and paragraph separators, which a terminal draws as nothing or
	 * a blank, never as the line break an editor makes of them. */
	static const uint32_t r[][2] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x115f, 0x1160 }, { 0x17b4, 0x17b5 },
		{ 0x180b, 0x180f }, { 0x200b, 0x200d }, { 0x2028, 0x2029 }, { 0x2060, 0x206f },
		{ 0x3164, 0x3164 }, { 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 },
		{ 0xfff0, 0xfffb }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
	};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

int utf8_is_blank_lookalike(uint32_t cp)
{
	return cp == 0x00a0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x202f || cp == 0x205f ||
	       cp == 0x2800 || cp == 0x3000;
}

/* C.UTF-8, for wcwidth whatever LC_CTYPE is (agent-run keeps "C"). */
static locale_t width_loc;
static pthread_once_t width_once = PTHREAD_ONCE_INIT;

static void width_init(void)
{
	width_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/*
 * Without C.UTF-8 (a locale that could not be made: none installed, no
 * memory), what is known to draw on its own: the blocks that hold no
 * character of width 0 in glibc's tables (test_utf8_nolocale checks every
 * code point against them), Latin, Greek, Cyrillic, Armenian, Hebrew's
 * letters, the symbols, CJK and Hangul's syllables among them.  Anything
 * else is taken as a mark: the question shows more, never less (before,
 * only the blocks of combining marks were, and a Hebrew point or a
 * Devanagari vowel sign on an ASCII letter was drawn on it).
 */
static int draws_alone(uint32_t cp)
{
	static const uint32_t r[][2] = {
		{ 0x00a0, 0x02ff }, { 0x0370, 0x0482 }, { 0x048a, 0x058f }, { 0x05d0, 0x05ff },
		{ 0x1e00, 0x1fff }, { 0x2010, 0x2027 }, { 0x2030, 0x205f }, { 0x2070, 0x20cf },
		{ 0x2100, 0x2cee }, { 0x2e80, 0x3029 }, { 0x3030, 0x3098 }, { 0x309b, 0x9fff },
		{ 0xac00, 0xd7a3 }, { 0xff01, 0xffef }, { 0x1f000, 0x1faff }, { 0x20000, 0x3ffff },
	};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

int utf8_is_combining(uint32_t cp)
{
	if (cp < 0x80)
		return 0;
	pthread_once(&width_once, width_init);
	if (!width_loc)
		return !draws_alone(cp);
	locale_t old = uselocale(width_loc);
	int w = wcwidth((wchar_t)cp);
	uselocale(old);
	/* -1: a code point glibc's tables do not know (its Unicode is older
	 * than the terminal's, or it is unassigned): a terminal that knows
	 * it as a mark draws it on the character before, so it counts as one */
	return w <= 0;
}

/* Their punctuation and numeral signs count too: the Greek question mark
 * U+037E is drawn as ';'.  Drawn as Latin: a c e o p x y in Cyrillic,
 * d q w in its Supplement, h n u o in Armenian, omicron. */
int utf8_is_lookalike_script(uint32_t cp)
{
	return (cp >= 0x0370 && cp <= 0x058f) || (cp >= 0x1f00 && cp <= 0x1fff);
}

static int ascii_letter(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A byte of a word: an ASCII letter or digit, '.', '_', '-', and every
 * byte of a character that is not ASCII.  Anything else parts words:
 * '/', a space, '=', quotes, a backslash. */
static int word_byte(unsigned char c)
{
	return c >= 0x80 || ascii_letter(c) || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* The word starting at s[i] (n bytes): where it ends, *mixed whether it
 * has both ASCII letters and letters of a look-alike script. */
static size_t word_scan(const unsigned char *s, size_t n, size_t i, int *mixed)
{
	int ascii = 0, other = 0;
	while (i < n && word_byte(s[i])) {
		uint32_t cp;
		int l = s[i] < 0x80 ? 1 : utf8_decode(s + i, n - i, &cp);
		if (s[i] < 0x80)
			ascii |= ascii_letter(s[i]);
		else if (l > 0)
			other |= utf8_is_lookalike_script(cp);
		i += l > 0 ? (size_t)l : 1;
	}
	*mixed = ascii && other;
	return i;
}

void utf8_name_rules_init(struct utf8_name_rules *r, int json, const char *s, size_t n)
{
	uint64_t any = 0, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {	/* eight bytes a step: far cheaper than judging words */
		memcpy(&w, s + i, 8);
		any |= w;
	}
	for (; i < n; i++)
		any |= (unsigned char)s[i];
	*r = (struct utf8_name_rules){ .on_ascii = 1, .json = json,
				       .word_end = any & 0x8080808080808080ull ? 0 : n };
}

int utf8_name_shown_at(struct utf8_name_rules *r, const unsigned char *s, size_t n, size_t i, uint32_t cp)
{
	if (i >= r->word_end) {
		r->mixed = 0;
		if (r->json && s[i] == '\\')	/* '\n' is no 'n' of the next word */
			r->word_end = i + (i + 1 < n && s[i + 1] == 'u' ? 6 : 2);
		else if (word_byte(s[i]))
			r->word_end = word_scan(s, n, i, &r->mixed);
	}
	if (cp < 0x80)
		return 0;
	/* the locale's wcwidth last: it costs the most */
	return utf8_is_blank_lookalike(cp) || (r->mixed && i < r->word_end && utf8_is_lookalike_script(cp)) ||
	       (r->on_ascii && utf8_is_combining(cp));
}

int utf8_is_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || utf8_is_bidi(cp);
}

/* Bytes that need a look: C0 but \t and \n, DEL, and everything not ASCII. */
static int plain(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

size_t utf8_cut(const char *s, size_t n, size_t k)
{
	if (k >= n)
		return n;
	for (int back = 0; back < 3 && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80; back++)
		k--;
	return k;
}

size_t utf8_valid_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		int l = u[i] < 0x80 ? 1 : utf8_decode(u + i, n - i, &cp);
		if (l <= 0)
			break;
		i += (size_t)l;
	}
	return i;
}

static void term_decided(void)
{
}

/*
 * The environment's LC_CTYPE (LC_ALL, LC_CTYPE, LANG) as utf8_term_charset_init
 * judges it (setlocale, then put back: the commands that get here are
 * single-threaded; agent-run and the screen decide at start): asked only
 * when a character that is not ASCII is first written, so a command that
 * prints none (sandbox-run on its spawn path) never loads a locale.
 */
static int charset_init(int keep);

static void term_decide(void)
{
	charset_init(0);
}

/* The terminal's locale when it is not UTF-8, else 0. */
static locale_t term_charset(void)
{
	pthread_once(&term_once, term_decide);
	return term_loc;
}

size_t utf8_to_charset(uint32_t cp, char *mb)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t k = wcrtomb(mb, (wchar_t)cp, &st);
	if (k == (size_t)-1 || k == 0 || (k == 1 && (unsigned char)mb[0] >= 0x80 && (unsigned char)mb[0] < 0xa0))
		return 0;
	return k;
}

/* A character that is not ASCII (and safe) for a terminal that is not
 * UTF-8: in term_loc's charset, else <U+XXXX> (JSON: \uXXXX, a pair of
 * them past U+FFFF). */
static void write_legacy(FILE *f, uint32_t cp, int json)
{
	char mb[MB_LEN_MAX];
	locale_t old = uselocale(term_loc);
	size_t k = utf8_to_charset(cp, mb);
	uselocale(old);
	if (k)
		fwrite(mb, 1, k, f);
	else if (!json)
		fprintf(f, "<U+%04X>", (unsigned)cp);
	else if (cp < 0x10000)
		fprintf(f, "\\u%04x", (unsigned)cp);
	else
		fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xd800 + ((cp - 0x10000) >> 10)),
			(unsigned)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
}

/* utf8_term_write, and with json the same walk inside printed JSON,
 * where every changed character is spelled as a JSON escape. */
static size_t term_write(FILE *f, const char *str, size_t n, int final, int json)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	int legacy = -1;	/* a terminal not UTF-8: asked at the first need */
	while (i < n) {
		size_t run = i;
		while (run < n && plain(s[run]))
			run++;
		if (run > i)
			fwrite(s + i, 1, run - i, f);
		i = run;
		if (i == n)
			break;
		uint32_t cp;
		int l = utf8_decode(s + i, n - i, &cp);
		if (l == 0 && !final)
			return i;	/* the rest of this sequence comes later */
		if (l <= 0) {
			if (json)
				fputs("\\ufffd", f);
			else
				fprintf(f, "\\x%02x", s[i]);
			i++;
		} else if (json && utf8_is_unsafe(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp);
			i += (size_t)l;
		} else if (cp < 0x20 || cp == 0x7f) {
			fprintf(f, "^%c", (char)(cp ^ 0x40));
			i++;
		} else if (utf8_is_unsafe(cp)) {
			fprintf(f, "<U+%04X>", (unsigned)cp);
			i += (size_t)l;
		} else {
			if (legacy < 0)
				legacy = isatty(fileno(f)) && term_charset();
			if (legacy)
				write_legacy(f, cp, json);
			else
				fwrite(s + i, 1, (size_t)l, f);
			i += (size_t)l;
		}
	}
	return n;
}

size_t utf8_term_write(FILE *f, const char *s, size_t n, int final)
{
	return term_write(f, s, n, final, 0);
}

void utf8_term_write_json(FILE *f, const char *json)
{
	term_write(f, json, strlen(json), 1, 1);
}

int utf8_term_charset_set(const char *locale)
{
	pthread_once(&term_once, term_decided);	/* set here, not decided later */
	if (term_loc) {
		freelocale(term_loc);
		term_loc = (locale_t)0;
	}
	if (locale) {
		term_loc = newlocale(LC_CTYPE_MASK, locale, (locale_t)0);
		if (!term_loc)	/* out of memory: ASCII, not UTF-8 */
			term_loc = newlocale(LC_CTYPE_MASK, "C", (locale_t)0);
	}
	return term_loc != (locale_t)0;
}

int utf8_term_legacy(int fd)
{
	return isatty(fd) && term_charset();
}

int utf8_term_charset_init(int keep)
{
	pthread_once(&term_once, term_decided);	/* decided here, not later */
	return charset_init(keep);
}

/* utf8_term_charset_init's work; also term_decide's, within the once. */
static int charset_init(int keep)
{
	const char *cur = setlocale(LC_CTYPE, NULL);
	char *was = cur ? strdup(cur) : NULL;
	int legacy = 0;
	setlocale(LC_CTYPE, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
		cur = setlocale(LC_CTYPE, NULL);
		if (!cur || strcmp(cur, "C") == 0 || strcmp(cur, "POSIX") == 0)
			setlocale(LC_CTYPE, "C.UTF-8");
		legacy = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	}
	/* A copy of the locale now set, not newlocale(its name): glibc's
	 * newlocale leaks its LOCPATH search list (LeakSanitizer), setlocale
	 * frees it. */
	if (term_loc)
		freelocale(term_loc);
	term_loc = legacy ? duplocale(LC_GLOBAL_LOCALE) : (locale_t)0;
	if (!keep && was)
		setlocale(LC_CTYPE, was);
	free(was);
	return legacy;
}

void utf8_term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* ASCII (an audit record, as a rule) needs no charset decided */
	size_t k = 0;
	while (k < (size_t)n && (unsigned char)s[k] < 0x80)
		k++;
	if (k < (size_t)n && isatty(fileno(f)) && term_charset())
		term_write(f, s, (size_t)n, 1, 0);
	else
		fwrite(s, 1, (size_t)n, f);
	free(s);
}

#ifdef __SANITIZE_ADDRESS__
/* glibc's setlocale and newlocale keep the LOCPATH search list they build
 * (argz) without freeing it: 32 bytes, once, not ours to free.  The
 * sanitized build's LeakSanitizer is told so here, so it reports ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:__argz_add_sep\n";
}
#endif
