/*
 * tool_ls.c — ls: one directory's entries, sorted, with type and size.
 * Every entry is read; the first by name are kept (at most --max-results,
 * and --max-scan-files, the entries stat'ed) whatever order readdir gives.
 * Entries are looked at with fstatat(AT_SYMLINK_NOFOLLOW) relative to the
 * directory's descriptor: a link is listed as a link, never followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tools/tools_int.h"

struct lsent {
	char *name;
	unsigned char dtype;	/* readdir's word, for an entry fstatat cannot look at */
	const char *type;
	long long size;		/* -1: a directory's, not shown; -2: not known */
};

/* Keep the k smallest names seen (a max-heap on strcmp, its largest at
 * v[0]): a listing sorted by name must begin with the directory's first
 * names, whatever order readdir returns them in, in memory for k names. */
static void heap_swap(struct lsent *v, size_t a, size_t b)
{
	struct lsent t = v[a];
	v[a] = v[b];
	v[b] = t;
}

static void heap_down(struct lsent *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && strcmp(v[l].name, v[m].name) > 0)
			m = l;
		if (r < n && strcmp(v[r].name, v[m].name) > 0)
			m = r;
		if (m == i)
			return;
		heap_swap(v, i, m);
		i = m;
	}
}

static void heap_offer(struct lsent **vp, size_t *n, size_t *alloc, uint64_t k, const struct dirent *de)
{
	struct lsent *v = *vp;
	if (*n < k) {
		if (*n == *alloc) {	/* grown as names come: k may be any --max-results */
			*alloc = *alloc ? *alloc * 2 : 64;
			v = *vp = xrealloc(v, *alloc * sizeof(*v));
		}
		size_t i = (*n)++;
		v[i] = (struct lsent){ .name = xstrdup(de->d_name), .dtype = de->d_type };
		while (i > 0 && strcmp(v[(i - 1) / 2].name, v[i].name) < 0) {
			heap_swap(v, i, (i - 1) / 2);
			i = (i - 1) / 2;
		}
	} else if (k > 0 && strcmp(de->d_name, v[0].name) < 0) {
		free(v[0].name);
		v[0] = (struct lsent){ .name = xstrdup(de->d_name), .dtype = de->d_type };
		heap_down(v, *n, 0);
	}
}

static int cmp_lsent(const void *a, const void *b)
{
	return strcmp(((const struct lsent *)a)->name, ((const struct lsent *)b)->name);
}

static const char *type_word(mode_t m)
{
	return S_ISDIR(m) ? "dir" : S_ISREG(m) ? "file" : S_ISLNK(m) ? "link" : "other";
}

static const char *dtype_word(unsigned char t)
{
	return t == DT_DIR ? "dir" : t == DT_REG ? "file" : t == DT_LNK ? "link"
	       : t == DT_UNKNOWN ? "?" : "other";
}

int tool_ls_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path");
	char *err = NULL;
	struct stat st;
	/* Looked at first through a handle that opens nothing: a FIFO, a
	 * socket or a device is described as its directory's listing shows
	 * it, where opening it would act on it (a FIFO's waiting writer is
	 * released) and read refuses it */
	int fd = fsguard_open(c->guard, path, O_PATH, POL_READ, NULL, &err);
	if (fd < 0)
		return tool_fail_own(out, err);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return tool_fail(out, "cannot list '%s': %s", path, strerror(errno));
	}
	close(fd);
	if (!S_ISDIR(st.st_mode))
		return tool_ok_own(out, xasprintf("%-5s %12lld  %s\n", type_word(st.st_mode),
						  (long long)st.st_size, path));
	/* A directory is opened for what it holds; one swapped for a FIFO
	 * or a device since is refused by that open */
	fd = fsguard_open(c->guard, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
	if (fd < 0)
		return tool_fail_own(out, err);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return tool_fail(out, "cannot list '%s': %s", path, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return tool_ok_own(out, xasprintf("%-5s %12lld  %s\n", type_word(st.st_mode), (long long)st.st_size, path));
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return tool_fail(out, "cannot list '%s': %s", path, strerror(errno));
	}
	/* Entries shown are the first by name: the smallest of however
	 * many there are, at most --max-results, and at most the
	 * entries-looked-at cap (each is stat'ed) */
	uint64_t cap = tlim_files(c), maxr = tlim_results(c);
	uint64_t k = cap < maxr ? cap : maxr, unstat = 0;
	size_t n = 0, nalloc = 0;
	struct lsent *v = NULL;
	struct dirent *de;
	int cancelled = 0, stat_err = 0;
	uint64_t total = 0;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		if (tool_stopped(c)) {
			cancelled = 1;
			break;
		}
		total++;
		heap_offer(&v, &n, &nalloc, k, de);
		tool_hook(c, "entry", nm);
	}
	/* stopped, the entries read so far are listed all the same, as a
	 * stopped bash call keeps its output (before: "cancelled" alone) */
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_lsent);
	for (size_t i = 0; i < n; i++) {
		struct stat es;
		if (fstatat(dirfd(d), v[i].name, &es, AT_SYMLINK_NOFOLLOW) == 0) {
			v[i].type = type_word(es.st_mode);
			v[i].size = S_ISDIR(es.st_mode) ? -1 : (long long)es.st_size;
		} else {
			/* a directory read but not searched (mode 0444):
			 * readdir still says what each entry is */
			if (!unstat++)
				stat_err = errno;
			v[i].type = dtype_word(v[i].dtype);
			v[i].size = v[i].dtype == DT_DIR ? -1 : -2;
		}
	}
	closedir(d);
	struct tout o;
	tout_init(&o, TOOLS_MAX_OUTPUT);
	{
		uint64_t shown = 0;
		for (size_t i = 0; i < n && shown < maxr; i++) {
			char *vis = tools_name_visible(v[i].name);
			const char *nosize = v[i].size == -1 ? "-" : "?", *slash = strcmp(v[i].type, "dir") ? "" : "/";
			int r = v[i].size >= 0 ? tout_printf(&o, "%-5s %12lld  %s\n", v[i].type, v[i].size, vis)
					       : tout_printf(&o, "%-5s %12s  %s%s\n", v[i].type, nosize, vis, slash);
			free(vis);
			if (r < 0)
				break;
			shown++;
		}
		if (total == 0)
			tout_force(&o, cancelled ? "(no entries read)\n" : "(empty directory)\n");
		else if (shown < total) {
			char *m = xasprintf("(showing %llu of %llu entries%s)\n", (unsigned long long)shown,
					    (unsigned long long)total, o.full ? ": output cap of 256 KiB reached"
					    : cap < maxr ? ": scan cap reached, raise --max-scan-files"
					    : "; raise --max-results for more");
			tout_force(&o, m);
			free(m);
		}
		if (unstat)
			tout_note(&o, "(%llu %s could not be looked at (%s): their type is the directory listing's, "
				      "a size not known is '?' — check the directory's mode with bash (ls -ld))\n",
				  (unsigned long long)unstat, unstat == 1 ? "entry" : "entries", strerror(stat_err));
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	if (cancelled) {
		tool_stop_note(c, &o, "listing");
		return tool_fail_own(out, tout_detach(&o));
	}
	return tool_ok_own(out, tout_detach(&o));
}
