/*
 * utf8.c — see utf8.h.
 */
#include <string.h>

#include "util/utf8.h"

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

/* utf8_term_write, and with json the same walk inside printed JSON,
 * where every changed character is spelled as a JSON escape. */
static size_t term_write(FILE *f, const char *str, size_t n, int final, int json)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
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
