/*
 * tool_ls.c — ls: one directory's entries, sorted, with type and size.
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
	const char *type;
	long long size;
};

static int cmp_lsent(const void *a, const void *b)
{
	return strcmp(((const struct lsent *)a)->name, ((const struct lsent *)b)->name);
}

static const char *type_word(mode_t m)
{
	return S_ISDIR(m) ? "dir" : S_ISREG(m) ? "file" : S_ISLNK(m) ? "link" : "other";
}

int tool_ls_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path");
	char *err = NULL;
	struct stat st;
	int fd = fsguard_open(c->guard, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
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
	struct lsent *v = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	int cancelled = 0;
	uint64_t cap = tlim_files(c);	/* entries looked at */
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
		if (n >= cap)
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		struct stat es;
		int ok = fstatat(dirfd(d), nm, &es, AT_SYMLINK_NOFOLLOW) == 0;
		v[n].name = xstrdup(nm);
		v[n].type = ok ? type_word(es.st_mode) : "other";
		v[n].size = ok && !S_ISDIR(es.st_mode) ? (long long)es.st_size : -1;
		n++;
	}
	closedir(d);
	struct tout o;
	tout_init(&o, TOOLS_MAX_OUTPUT);
	if (!cancelled) {
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_lsent);
		uint64_t shown = 0, maxr = tlim_results(c);
		for (size_t i = 0; i < n && shown < maxr; i++) {
			char *vis = tools_name_visible(v[i].name);
			int r = v[i].size >= 0 ? tout_printf(&o, "%-5s %12lld  %s\n", v[i].type, v[i].size, vis)
					       : tout_printf(&o, "%-5s %12s  %s%s\n", v[i].type, "-", vis,
							     strcmp(v[i].type, "dir") == 0 ? "/" : "");
			free(vis);
			if (r < 0)
				break;
			shown++;
		}
		if (total == 0)
			tout_force(&o, "(empty directory)\n");
		else if (shown < total) {
			char *m = xasprintf("(showing %llu of %llu entries%s)\n", (unsigned long long)shown,
					    (unsigned long long)total, o.full ? ": output cap of 256 KiB reached" :
					    shown < n ? "; raise --max-results for more" : ": scan cap reached, raise --max-scan-files");
			tout_force(&o, m);
			free(m);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	if (cancelled) {
		tout_release(&o);
		return tool_fail(out, "cancelled");
	}
	return tool_ok_own(out, tout_detach(&o));
}
