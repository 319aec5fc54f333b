/*
 * tools_testutil.h — scratch trees for test_fsguard.c and test_tools.c.
 *
 * Life cycle: tt_setup() makes a fresh directory under $TMPDIR and returns
 * its real path (malloc'd); tt_file()/tt_link()/tt_dir() fill it;
 * tt_teardown() removes it (rm -rf) and frees the path.
 */
#ifndef SBX_TOOLS_TESTUTIL_H
#define SBX_TOOLS_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

static inline char *tt_setup(void)
{
	const char *t = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/sbxtools.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpl))
		abort();
	char *real = realpath(tmpl, NULL);
	free(tmpl);
	return real;
}

static inline void tt_teardown(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	free(dir);
}

static inline char *tt_path(const char *dir, const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

static inline void tt_dir(const char *dir, const char *rel)
{
	char *p = tt_path(dir, rel);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		abort();
	free(p);
}

static inline void tt_filen(const char *dir, const char *rel, const char *data, size_t n)
{
	char *p = tt_path(dir, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, data, n) < 0)
		abort();
	close(fd);
	free(p);
}

static inline void tt_file(const char *dir, const char *rel, const char *data)
{
	tt_filen(dir, rel, data, strlen(data));
}

static inline void tt_link(const char *dir, const char *rel, const char *target)
{
	char *p = tt_path(dir, rel);
	if (symlink(target, p) < 0)
		abort();
	free(p);
}

/* Whole content of dir/rel, malloc'd, or NULL. */
static inline char *tt_slurp(const char *dir, const char *rel)
{
	char *p = tt_path(dir, rel);
	FILE *f = fopen(p, "re");
	free(p);
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

#endif
