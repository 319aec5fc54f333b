/*
 * sse_fixtures.h — shared by test_sse.c and test_fold.c: read the SSE
 * fixtures (the .sse files of tests/fixtures/sse, or $SBX_FIXTURES) and cut a byte
 * stream into slices in the ways the parser must not notice.
 */
#ifndef SBX_TEST_SSE_FIXTURES_H
#define SBX_TEST_SSE_FIXTURES_H

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

static const char *fx_dir(void)
{
	const char *d = getenv("SBX_FIXTURES");
	return d && *d ? d : "tests/fixtures/sse";
}

/* Whole file, NUL-terminated; NULL when missing. */
static char *fx_read(const char *name, size_t *len)
{
	char *path = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", fx_dir(), name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

static int fx_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of every *.sse fixture. */
static struct strv fx_list(void)
{
	struct strv names = { 0 };
	DIR *d = opendir(fx_dir());
	if (!d)
		return names;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 4 && strcmp(e->d_name + n - 4, ".sse") == 0)
			strv_push(&names, e->d_name);
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(char *), fx_cmp);
	return names;
}

enum fx_split { FX_WHOLE, FX_BYTES, FX_RANDOM, FX_CRLF };

/* Deterministic xorshift: the same seed gives the same splits. */
static unsigned fx_rand(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Call feed(ctx, slice, n) over buf cut the chosen way: whole, one byte at
 * a time, at random lengths 1..97 (seeded), or right after every CR (so
 * each CR LF pair straddles two slices).  Stops at the first non-zero
 * feed return, which it returns.
 */
static int fx_slices(const char *buf, size_t len, enum fx_split how, unsigned seed,
		     int (*feed)(void *ctx, const char *s, size_t n), void *ctx)
{
	size_t i = 0;
	unsigned st = seed ? seed : 1;
	while (i < len) {
		size_t n;
		switch (how) {
		case FX_BYTES:
			n = 1;
			break;
		case FX_RANDOM:
			n = 1 + fx_rand(&st) % 97;
			break;
		case FX_CRLF: {
			const char *cr = memchr(buf + i, '\r', len - i);
			n = cr ? (size_t)(cr - (buf + i)) + 1 : len - i;
			break;
		}
		case FX_WHOLE:
		default:
			n = len - i;
			break;
		}
		if (n > len - i)
			n = len - i;
		int r = feed(ctx, buf + i, n);
		if (r)
			return r;
		i += n;
	}
	return 0;
}

#endif
