/*
 * test_utf8.c — utf8_decode, utf8_term_write (whole, byte by byte and at
 * every split, with the caller's carry), the audit record's escaping, and
 * stderr held while the screen is up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>
#include <sys/stat.h>

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
	/* what draws nothing is escaped too: a zero-width space, a tag
	 * character (U+E0041), the word joiner */
	const char *kv2[] = { "path", "/w/a\xe2\x80\x8b" "b\xf3\xa0\x81\x81" "c\xe2\x81\xa0" };
	r = audit_format("denied", kv2, 2);
	assert_string_equal(r, "sandbx audit denied path=\"/w/a\\xe2\\x80\\x8bb\\xf3\\xa0\\x81\\x81c\\xe2\\x81\\xa0\"");
	free(r);
}

/* A blank that is none (U+00A0, U+2003, U+3000...) read as a space in
 * a record: "a<U+00A0>b" as two words, a path's trailing one not at
 * all.  Escaped as the other invisible characters, the value quoted. */
static void test_audit_record_escapes_blanks(void **state)
{
	(void)state;
	const char *kv[] = { "path", "/w/notes.txt\xc2\xa0", "command", "make\xc2\xa0# x; curl\xe2\x80\x83x\xe3\x80\x80y" };
	char *r = audit_format("denied", kv, 4);
	assert_string_equal(r, "sandbx audit denied path=\"/w/notes.txt\\xc2\\xa0\" "
			       "command=\"make\\xc2\\xa0# x; curl\\xe2\\x80\\x83x\\xe3\\x80\\x80y\"");
	free(r);
	/* each of them, alone in a value: quoted and escaped byte by byte */
	const uint32_t blanks[] = { 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x202f, 0x205f, 0x2800, 0x3000 };
	for (size_t i = 0; i < sizeof(blanks) / sizeof(blanks[0]); i++) {
		uint32_t cp = blanks[i];
		char in[4] = { 0 }, want[64];
		if (cp < 0x800) {
			in[0] = (char)(0xc0 | cp >> 6);
			in[1] = (char)(0x80 | (cp & 0x3f));
			snprintf(want, sizeof(want), "sandbx audit x v=\"\\x%02x\\x%02x\"", (unsigned char)in[0],
				 (unsigned char)in[1]);
		} else {
			in[0] = (char)(0xe0 | cp >> 12);
			in[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			in[2] = (char)(0x80 | (cp & 0x3f));
			snprintf(want, sizeof(want), "sandbx audit x v=\"\\x%02x\\x%02x\\x%02x\"", (unsigned char)in[0],
				 (unsigned char)in[1], (unsigned char)in[2]);
		}
		const char *kv1[] = { "v", in };
		r = audit_format("x", kv1, 2);
		assert_string_equal(r, want);
		free(r);
	}
	/* letters and a plain space are as before */
	const char *kv2[] = { "cwd", "/tmp/é", "v", "a b" };
	r = audit_format("x", kv2, 4);
	assert_string_equal(r, "sandbx audit x cwd=/tmp/é v=\"a b\"");
	free(r);
}

/* A combining mark on an ASCII character changes how a record reads:
 * 'pas' U+0338 'swd' is drawn as passwd with an 's' struck through, and
 * was written as it came, unquoted.  Escaped, the value quoted, as the
 * question shows it; each mark of a run (after an escape's digit); on a
 * letter of another script it is kept. */
static void test_audit_record_escapes_marks(void **state)
{
	(void)state;
	const char *kv[] = { "path", "/etc/pas\xcc\xb8swd", "command", "rm a\xcc\xb5\xcc\xb6 \xcc\x81x" };
	char *r = audit_format("denied", kv, 4);
	assert_string_equal(r, "sandbx audit denied path=\"/etc/pas\\xcc\\xb8swd\" "
			       "command=\"rm a\\xcc\\xb5\\xcc\\xb6 \\xcc\\x81x\"");
	free(r);
	/* at a value's start (drawn on its '='), an enclosing mark on '/' */
	const char *kv1[] = { "v", "\xcc\x81", "w", "/\xe2\x83\x9d" };
	r = audit_format("x", kv1, 4);
	assert_string_equal(r, "sandbx audit x v=\"\\xcc\\x81\" w=\"/\\xe2\\x83\\x9d\"");
	free(r);
	/* Greek with its accent, Vietnamese with two marks on a precomposed
	 * letter, Hindi's vowel sign: as they are, unquoted */
	const char *kv2[] = { "a", "\xce\xb1\xcc\x81", "b", "\xc3\xa2\xcc\x83\xcc\x80", "c", "\xe0\xa4\x95\xe0\xa4\xbf" };
	r = audit_format("x", kv2, 6);
	assert_string_equal(r, "sandbx audit x a=\xce\xb1\xcc\x81 b=\xc3\xa2\xcc\x83\xcc\x80 c=\xe0\xa4\x95\xe0\xa4\xbf");
	free(r);
}

/* A letter of Greek, Cyrillic or Armenian in a word of ASCII letters is
 * written \xNN, as the approval question shows it <U+XXXX>: before, the
 * record read path=/etc/passwd for another file.  A word in one script
 * is kept, and so is the record's form: key=value, quoted when escaped. */
static void test_audit_record_escapes_mixed_script(void **state)
{
	(void)state;
	const char *kv[] = { "path", "/etc/p\xd0\xb0sswd", "command", "cat x-\xd1\x84 \xd0\xbf\xd1\x80\xd0\xb8" };
	char *r = audit_format("denied", kv, 4);
	assert_string_equal(r, "sandbx audit denied path=\"/etc/p\\xd0\\xb0sswd\" "
			       "command=\"cat x-\\xd1\\x84 \xd0\xbf\xd1\x80\xd0\xb8\"");
	free(r);
	/* Greek omicron, Armenian oh, the Greek question mark (drawn as
	 * ';': 'a;rm' is one word); a mark after an escaped letter */
	const char *kv1[] = { "a", "g\xce\xbf", "b", "\xd6\x85k", "c", "a\xcd\xberm", "d", "p\xd0\xb0\xcc\x81ss" };
	r = audit_format("x", kv1, 8);
	assert_string_equal(r, "sandbx audit x a=\"g\\xce\\xbf\" b=\"\\xd6\\x85k\" c=\"a\\xcd\\xberm\" "
			       "d=\"p\\xd0\\xb0\\xcc\\x81ss\"");
	free(r);
	/* one script to a word, words parted by '/' and '=': unquoted */
	const char *kv2[] = { "p", "/tmp/\xd0\xbe\xd1\x82/passwd", "q", "\xce\xb1\xce\xb2:x" };
	r = audit_format("x", kv2, 4);
	assert_string_equal(r, "sandbx audit x p=/tmp/\xd0\xbe\xd1\x82/passwd q=\xce\xb1\xce\xb2:x");
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

/* Point fd 2 at a fresh temp file; returns the saved fd 2. */
static int stderr_to(FILE *tmp)
{
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	return saved;
}

static char *stderr_back(int saved, FILE *tmp, long *size)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	*size = ftell(tmp);
	char *all = calloc(1, (size_t)*size + 1);
	rewind(tmp);
	assert_int_equal(fread(all, 1, (size_t)*size, tmp), (size_t)*size);
	fclose(tmp);
	return all;
}

/* While held, whatever is written to fd 2 waits with the records, in the
 * order written; past the records kept and 1 MiB more, the rest is said
 * in bytes. */
static void test_stderr_held_then_shown(void **state)
{
	(void)state;
	FILE *tmp = tmpfile();
	long size;
	int saved = stderr_to(tmp);
	log_hold(1);
	assert_int_equal(write(2, "stray one\n", 10), 10);
	audit(LOG_INFO, "spawned", "tool", "bash", NULL);
	char *big = malloc(1536 * 1024);
	memset(big, 'y', 1536 * 1024);
	assert_int_equal(write(2, big, 1536 * 1024), 1536 * 1024);
	free(big);
	struct stat st;
	assert_int_equal(fstat(fileno(tmp), &st), 0);
	assert_int_equal(st.st_size, 0);	/* nothing reached the screen */
	log_hold(0);
	char *all = stderr_back(saved, tmp, &size);
	assert_true(strncmp(all, "stray one\nsandbx audit spawned tool=bash\ny", 41) == 0);
	const char *more = strstr(all, "sandbx: ");
	assert_non_null(more);
	/* the record (31 bytes) and 1 MiB of everything else */
	assert_int_equal(more - all, 31 + 1024 * 1024);
	assert_non_null(strstr(more, "sandbx: 524298 more bytes written to stderr while the screen was up are not shown"));
	free(all);
}

/* A fatal signal's handler gives fd 2 back with what was held; the end
 * of the hold after it prints nothing twice. */
static void test_stderr_held_crash(void **state)
{
	(void)state;
	FILE *tmp = tmpfile();
	long size;
	int saved = stderr_to(tmp);
	log_hold(1);
	audit(LOG_INFO, "exited", "tool", "bash", "code", "0", NULL);
	log_hold_crash();
	assert_int_equal(write(2, "report\n", 7), 7);	/* a sanitizer's, after */
	log_hold(0);
	char *all = stderr_back(saved, tmp, &size);
	assert_string_equal(all, "sandbx audit exited tool=bash code=0\nreport\n");
	free(all);
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

/* A terminal for the charset tests: a raw pty; *slave as a FILE. */
struct pty {
	int master;
	FILE *slave;
};

static void pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(p->master >= 0);
	assert_int_equal(grantpt(p->master), 0);
	assert_int_equal(unlockpt(p->master), 0);
	int s = open(ptsname(p->master), O_RDWR | O_NOCTTY);
	assert_true(s >= 0);
	struct termios t;
	assert_int_equal(tcgetattr(s, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(s, TCSANOW, &t), 0);
	p->slave = fdopen(s, "w");
	assert_non_null(p->slave);
}

/* What the terminal got since the last call, as a string. */
static char *pty_got(struct pty *p)
{
	static char buf[8192];
	size_t n = 0;
	struct pollfd pf = { .fd = p->master, .events = POLLIN };
	fflush(p->slave);
	while (n < sizeof(buf) - 1 && poll(&pf, 1, 200) > 0) {
		ssize_t r = read(p->master, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

static void pty_close(struct pty *p)
{
	fclose(p->slave);
	close(p->master);
}

static void assert_no_c1(const char *s)
{
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		assert_false(*u >= 0x80 && *u < 0xa0);
}

/* A terminal that is not UTF-8 takes each byte as a character: the second
 * byte of U+00C0..U+00DF is 0x80..0x9F, a C1 control (Û is C3 9B, CSI).
 * In the C locale's charset (ASCII) every character that is not ASCII is
 * written <U+XXXX> (\uXXXX in JSON); a pipe or a file still gets UTF-8. */
static void test_utf8_term_charset_ascii(void **state)
{
	(void)state;
	struct pty p;
	pty_open(&p);
	assert_true(utf8_term_charset_set("C"));
	assert_true(utf8_term_legacy(fileno(p.slave)));
	assert_int_equal(utf8_term_write(p.slave, sample, sizeof(sample) - 1, 1), sizeof(sample) - 1);
	char *got = pty_got(&p);
	assert_no_c1(got);
	assert_string_equal(got, "ok <U+00E9> ^[[2J^M^?\t\n<U+009B> <U+202E> <U+2066> <U+061C> \\xff\\xc0\\xaf end "
				 "<U+1F642>");
	/* split between two calls, the caller keeping the carry */
	assert_int_equal(utf8_term_write(p.slave, "A\xc3", 2, 0), 1);
	assert_int_equal(utf8_term_write(p.slave, "\xc3\x9b" "31m", 5, 0), 5);
	assert_string_equal(pty_got(&p), "A<U+00DB>31m");
	utf8_term_write_json(p.slave, "{\"t\":\"\xc3\x9b" "31m \xc2\x9b \xf0\x9f\x99\x82\"}");
	assert_string_equal(pty_got(&p), "{\"t\":\"\\u00db31m \\u009b \\ud83d\\ude42\"}");
	utf8_term_printf(p.slave, "sandbx: %s \xe2\x80\x94 %d\n", "\xc3\x9d" "52;c;x\xc3\x9c", 7);
	assert_string_equal(pty_got(&p), "sandbx: <U+00DD>52;c;x<U+00DC> <U+2014> 7\n");

	/* not a terminal: the bytes as before */
	char *out = feed(sample, sizeof(sample) - 1, 0);
	assert_string_equal(out, shown);
	free(out);
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	assert_false(utf8_term_legacy(fileno(f)));
	utf8_term_printf(f, "%s \xe2\x80\x94", "\xc3\x9b");
	fclose(f);
	assert_string_equal(mem, "\xc3\x9b \xe2\x80\x94");
	free(mem);

	/* a UTF-8 terminal: as before */
	assert_false(utf8_term_charset_set(NULL));
	assert_false(utf8_term_legacy(fileno(p.slave)));
	utf8_term_write(p.slave, sample, sizeof(sample) - 1, 1);
	assert_string_equal(pty_got(&p), shown);
	utf8_term_printf(p.slave, "%s \xe2\x80\x94", "\xc3\x9b");
	assert_string_equal(pty_got(&p), "\xc3\x9b \xe2\x80\x94");
	pty_close(&p);
}

/* What was held while the screen was up reaches a terminal that is not
 * UTF-8 in its charset too: an audit record, a line written to fd 2, a
 * character split across the copy's reads. */
static void test_utf8_term_charset_held(void **state)
{
	(void)state;
	struct pty p;
	pty_open(&p);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(p.slave), 2) == 2);
	assert_true(utf8_term_charset_set("C"));
	log_hold(1);
	audit(LOG_INFO, "spawned", "tool", "bash", "command", "echo \xc3\x9b" "31m", NULL);
	char pad[4095 - 52];	/* the record is 52 bytes: Ý straddles the first 4096 */
	memset(pad, 'y', sizeof(pad));
	pad[0] = '\n';
	assert_int_equal(write(2, pad, sizeof(pad)), (ssize_t)sizeof(pad));
	assert_int_equal(write(2, "\xc3\x9d\n", 3), 3);
	log_hold(0);
	char *got = pty_got(&p);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	utf8_term_charset_set(NULL);
	assert_no_c1(got);
	assert_non_null(strstr(got, "sandbx audit spawned tool=bash command=\"echo <U+00DB>31m\"\n"));
	assert_non_null(strstr(got, "yyy<U+00DD>\n"));
	pty_close(&p);
}

/* The charset's spelling of a character, none for what it lacks or spells
 * as a C1 byte. */
static void test_utf8_to_charset(void **state)
{
	(void)state;
	char mb[MB_LEN_MAX];
	assert_non_null(setlocale(LC_CTYPE, "C"));
	assert_int_equal(utf8_to_charset(0xe9, mb), 0);
	assert_int_equal(utf8_to_charset(0xdb, mb), 0);
	if (setlocale(LC_CTYPE, "C.UTF-8")) {
		assert_int_equal(utf8_to_charset(0xdb, mb), 2);
		assert_memory_equal(mb, "\xc3\x9b", 2);
	}
	assert_non_null(setlocale(LC_CTYPE, "C"));
}

/* Decided from the environment as the screen decides its ASCII mode:
 * nothing configured (C) is taken as UTF-8 when C.UTF-8 exists; LC_CTYPE
 * is left as it was unless kept. */
static void test_utf8_term_charset_init(void **state)
{
	(void)state;
	assert_non_null(setlocale(LC_CTYPE, "C"));
	setenv("LC_ALL", "C", 1);
	locale_t cu = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	int has_cutf8 = cu != (locale_t)0;
	if (cu)
		freelocale(cu);
	assert_int_equal(utf8_term_charset_init(0), !has_cutf8);
	assert_string_equal(setlocale(LC_CTYPE, NULL), "C");
	if (has_cutf8) {
		setenv("LC_ALL", "C.UTF-8", 1);
		assert_int_equal(utf8_term_charset_init(1), 0);
		assert_string_not_equal(setlocale(LC_CTYPE, NULL), "C");
	}
	unsetenv("LC_ALL");
	utf8_term_charset_set(NULL);
	assert_non_null(setlocale(LC_CTYPE, "C"));
}

/* The longest valid prefix: every kind of bad sequence stops it at its
 * first byte, a sequence cut short by the end too. */
static void test_utf8_valid_len(void **state)
{
	(void)state;
	static const struct { const char *s; size_t n, want; } c[] = {
		{ "", 0, 0 },
		{ "plain ascii", 11, 11 },
		{ "caf\xc3\xa9 \xe4\xb8\x96 \xf0\x9f\x99\x82", 15, 15 },
		{ "caf\xe9 au lait", 12, 3 },		/* Latin-1 */
		{ "ok \xff", 4, 3 },
		{ "be \xc0\x80", 5, 3 },		/* overlong NUL */
		{ "\xed\xa0\x80", 3, 0 },		/* a surrogate */
		{ "x\xf4\x90\x80\x80", 5, 1 },	/* past U+10FFFF */
		{ "ab\x80", 3, 2 },			/* a stray continuation */
		{ "ab\xe4\xb8", 4, 2 },		/* cut short */
		{ "a\0b", 3, 3 },			/* NUL is UTF-8 (callers look for it) */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_int_equal(utf8_valid_len(c[i].s, c[i].n), c[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_term_write_whole_and_split),
		cmocka_unit_test(test_utf8_term_write_cut_short),
		cmocka_unit_test(test_utf8_decode),
		cmocka_unit_test(test_utf8_cut),
		cmocka_unit_test(test_utf8_term_charset_ascii),
		cmocka_unit_test(test_utf8_term_charset_held),
		cmocka_unit_test(test_utf8_to_charset),
		cmocka_unit_test(test_utf8_term_charset_init),
		cmocka_unit_test(test_audit_record_escapes_controls),
		cmocka_unit_test(test_audit_record_escapes_marks),
		cmocka_unit_test(test_audit_record_escapes_mixed_script),
		cmocka_unit_test(test_audit_record_escapes_blanks),
		cmocka_unit_test(test_audit_held_bounded),
		cmocka_unit_test(test_stderr_held_then_shown),
		cmocka_unit_test(test_stderr_held_crash),
		cmocka_unit_test(test_utf8_valid_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
