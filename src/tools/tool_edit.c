/*
 * tool_edit.c — edit: exact replacement of old by new, which must match
 * once unless replace_all; the result is written atomically (tool_write.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tools/tools_int.h"

static size_t count_occ(const char *b, size_t n, const char *old, size_t on)
{
	size_t k = 0;
	const char *p = b, *e = b + n;
	while ((p = memmem(p, (size_t)(e - p), old, on))) {
		k++;
		p += on;
	}
	return k;
}

char *tools_edit_text(const char *buf, size_t n, const char *old, const char *new, int all, size_t *k,
		      uint64_t *grown)
{
	size_t on = strlen(old), nn = strlen(new);
	*k = on ? count_occ(buf, n, old, on) : 0;
	/* The result is bounded like the file it replaces: replace_all of a
	 * short text by a long one multiplies the size. */
	*grown = (uint64_t)n - (uint64_t)*k * on + (uint64_t)*k * nn;
	if (*k == 0 || (*k > 1 && !all) || *grown > TOOLS_MAX_EDIT_BYTES)
		return NULL;
	char *res = xmalloc((size_t)*grown + 1), *w = res;
	const char *p = buf, *e = buf + n, *q;
	while ((q = memmem(p, (size_t)(e - p), old, on))) {
		memcpy(w, p, (size_t)(q - p));
		w += q - p;
		memcpy(w, new, nn);
		w += nn;
		p = q + on;
	}
	memcpy(w, p, (size_t)(e - p));
	w[e - p] = '\0';
	return res;
}

/* The file's size bytes, and proof that there are no more: the text an
 * edit writes back is what was read, so a read error, or a file that grew
 * or shrank while it was read (another program appending), would cut the
 * file where the read stopped.  NULL with *err the errno of a failed
 * read, or 0 when the size changed.  Malloc'd (size + 1). */
static char *read_exact(int fd, size_t size, int *err)
{
	char *buf = xmalloc(size + 1), more;
	size_t got = 0;
	ssize_t r = 0;
	while (got < size) {
		r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == size)
		while ((r = read(fd, &more, 1)) < 0 && errno == EINTR)
			;
	if (r == 0 && got == size)
		return buf;
	*err = r < 0 ? errno : 0;
	free(buf);
	return NULL;
}

char *tools_edit_refusal(const char *path, const char *old, const char *new, int all, size_t k, uint64_t grown)
{
	if (!*old)
		return xstrdup("old is empty — give the exact text to replace (use write to create a file)");
	if (strcmp(old, new) == 0)
		return xstrdup("old and new are the same — nothing to change");
	if (k == 0)
		return xasprintf("old text not found in '%s' — read the file and copy the text exactly, "
				 "whitespace and indentation included", path);
	if (k > 1 && !all)
		return xasprintf("old text matches %zu times in '%s' — it must match exactly once: add "
				 "surrounding lines to make it unique, or set replace_all to replace all %zu", k, path, k);
	if (grown > TOOLS_MAX_EDIT_BYTES)
		return xasprintf("this edit would make '%s' %llu bytes, over the %u MiB edit limit — nothing was "
				 "changed; replace fewer occurrences or use bash", path, (unsigned long long)grown,
				 TOOLS_MAX_EDIT_BYTES >> 20);
	return NULL;
}

int tools_edit_open(struct fsguard *g, const char *path, const char *old, const char *new, int all, struct stat *st,
		    char **err)
{
	*err = tools_edit_refusal(path, old, new, all, 1, 0);	/* what no file changes */
	if (*err)
		return -1;
	int fd = fsguard_open(g, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ | POL_WRITE, NULL, err);
	if (fd < 0)
		return -1;
	free(*err);
	*err = NULL;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		*err = xasprintf("'%s' is not a regular file — edit changes text files", path);
		return -1;
	}
	return fd;
}

int tool_edit_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path"), *old = tin_str(in, "old"), *new = tin_str(in, "new");
	int all = tin_bool(in, "replace_all", 0), created;
	char *err = NULL;
	struct stat st;

	int fd = tools_edit_open(c->guard, path, old, new, all, &st, &err);
	if (fd < 0)
		return tool_fail_own(out, err);
	if ((uint64_t)st.st_size > TOOLS_MAX_EDIT_BYTES) {
		close(fd);
		return tool_fail(out, "'%s' is larger than %u MiB — too large to edit here; use bash (sed) instead",
				 path, TOOLS_MAX_EDIT_BYTES >> 20);
	}
	size_t size = (size_t)st.st_size;
	tool_hook(c, "sized", path);
	int e = 0;
	char *buf = read_exact(fd, size, &e);
	close(fd);
	if (!buf) {
		if (e)
			return tool_fail(out, "cannot read '%s': %s — nothing was changed", path, strerror(e));
		return tool_fail(out, "'%s' changed size while it was read — nothing was changed; read it again "
				 "and retry", path);
	}
	if (memchr(buf, 0, size)) {
		free(buf);
		return tool_fail(out, "'%s' is a binary file — edit changes text files", path);
	}
	size_t k, outn;
	uint64_t grown;
	char *res = tools_edit_text(buf, size, old, new, all, &k, &grown);
	free(buf);
	if (!res)
		return tool_fail_own(out, tools_edit_refusal(path, old, new, all, k, grown));
	outn = (size_t)grown;
	/* no directory is made: the file was read from one, and one gone
	 * since means the file went with it */
	int r = tools_write_atomic(c, path, res, outn, 0, &created, &err);
	free(res);
	if (r < 0)
		return tool_fail_own(out, err);
	return tool_ok_own(out, xasprintf("replaced %zu occurrence%s in '%s'", k, k == 1 ? "" : "s", path));
}
