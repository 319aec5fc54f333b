/*
 * tool_find.c — find: names matching a glob beneath a directory, walked
 * without following links (tools_walk.c).  Entries visited count against
 * the scan-files limit; matches beyond the result limit are counted, not
 * shown.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tools/tools_int.h"

struct findst {
	const char *glob;
	struct strv shown;
	uint64_t matched, visited, max_visit, max_shown;
	int out_full;
	size_t out_len;
};

static int find_visit(struct walk *w, int dfd, const char *name, unsigned char type)
{
	struct findst *f = w->arg;
	if (++f->visited > f->max_visit) {
		f->visited--;
		w->stop = WALK_CAP;
		return 1;
	}
	if (!tglob_match(f->glob, name, w->path + w->base_len))
		return 0;
	f->matched++;
	if (f->shown.n < f->max_shown && !f->out_full) {
		/* counted as shown: a control byte or one not UTF-8 takes four (\xNN) */
		char *vis = tools_path_visible(w->path, 0);
		size_t add = strlen(vis) + 2;
		if (f->out_len + add > TOOLS_MAX_OUTPUT) {
			f->out_full = 1;
			free(vis);
			return 0;
		}
		f->out_len += add;
		strv_push_own(&f->shown, type == DT_DIR ? xasprintf("%s/", vis) : xstrdup(vis));
		free(vis);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tool_find_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path"), *glob = tin_str(in, "name");
	char *err = NULL;
	struct stat st;
	if (!*glob)
		return tool_fail(out, "name is empty — give a glob such as *.c");
	int fd = fsguard_open(c->guard, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_READ, NULL, &err);
	if (fd < 0)
		return tool_fail_own(out, err);
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return tool_fail(out, "'%s' is not a directory — find searches beneath a directory", path);
	}
	struct findst f = { .glob = glob, .max_visit = tlim_files(c), .max_shown = tlim_results(c) };
	struct walk w = { .ctx = c, .visit = find_visit, .arg = &f, .budget_ms = tlim_ms(c) };
	w.deadline = mono_ms() + w.budget_ms;
	char *base = tdisplay_base(path);
	walk_tree(&w, fd, base);
	free(base);
	struct tout o;
	tout_init(&o, TOOLS_MAX_OUTPUT + 64);
	if (f.shown.n > 1)
		qsort(f.shown.v, f.shown.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < f.shown.n; i++) {
		tout_add(&o, f.shown.v[i], strlen(f.shown.v[i]));
		tout_add(&o, "\n", 1);
	}
	if (f.matched == 0)
		tout_force(&o, w.stop != WALK_DONE ? "(no matches in the entries scanned)\n" : "(no matches)\n");
	if (f.matched > f.shown.n) {
		char *m = xasprintf("(showing %zu of %llu matches%s)\n", f.shown.n, (unsigned long long)f.matched,
				    f.out_full ? ": output cap of 256 KiB reached" : "; raise --max-results for more");
		tout_force(&o, m);
		free(m);
	}
	if (w.stop == WALK_CAP) {
		char *m = xasprintf("(stopped after %llu entries: scan cap reached, raise --max-scan-files; "
				    "or search a narrower path)\n", (unsigned long long)f.visited);
		tout_force(&o, m);
		free(m);
	}
	walk_notes(&w, &o);
	strv_free(&f.shown);
	/* a stopped walk keeps what it found, as a stopped bash call keeps
	 * its output (before: "cancelled" alone), and is still an error */
	if (w.stop == WALK_CANCELLED) {
		tool_stop_note(c, &o, "search");
		return tool_fail_own(out, tout_detach(&o));
	}
	return tool_ok_own(out, tout_detach(&o));
}
