/*
 * tools_walk.c — the tree walk under find and grep.  Every step is one
 * name relative to an open directory, opened O_NOFOLLOW: a symlink is an
 * entry to report, never a way out of the root the walk started in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tools/fsguard.h"
#include "tools/tools_int.h"

static int skipped_dir(const char *name)
{
	return strcmp(name, ".git") == 0 || strcmp(name, ".hg") == 0 || strcmp(name, ".svn") == 0;
}

static void walk_dir(struct walk *w, DIR *d, int depth);

/* Visit one entry and descend into it when it is a directory. */
static int walk_entry(struct walk *w, int dfd, const char *name, unsigned char type, int depth)
{
	size_t keep = w->plen, nl = strlen(name);
	if (w->plen + nl + 2 >= sizeof(w->path)) {
		w->long_skipped++;	/* deeper than any path we can show: said in the result */
		return 0;
	}
	if (w->plen > 0)
		w->path[w->plen++] = '/';
	memcpy(w->path + w->plen, name, nl + 1);
	w->plen += nl;

	if (type == DT_UNKNOWN) {
		struct stat st;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
			       S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
	}
	tool_hook(w->ctx, "entry", w->path);
	int stop = w->visit(w, dfd, name, type);
	if (!stop && type == DT_DIR && !skipped_dir(name)) {
		if (depth >= TOOLS_MAX_DEPTH) {
			w->deep_skipped++;
		} else {
			int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			/* gone or swapped since readdir is nothing left out;
			 * a mode that refuses the user (0300) is */
			if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
				tskip_add(&w->unopened, errno, w->path);
			/* not into a proc mounted beneath the root (the host's),
			 * nor into a /dev/shm that bash sees as its own */
			if (fd >= 0 && (fsguard_is_proc(fd) || fsguard_is_hidden(w->ctx->guard, fd))) {
				close(fd);
				fd = -1;
			}
			DIR *sub = fd >= 0 ? fdopendir(fd) : NULL;
			if (sub)
				walk_dir(w, sub, depth + 1);
			else if (fd >= 0)
				close(fd);
		}
	}
	w->plen = keep;
	w->path[keep] = '\0';
	return stop || w->stop != WALK_DONE;
}

static void walk_dir(struct walk *w, DIR *d, int depth)
{
	int dfd = dirfd(d);
	struct dirent *de;

	while (w->stop == WALK_DONE && (de = readdir(d))) {
		if (tool_stopped(w->ctx)) {
			w->stop = WALK_CANCELLED;
			break;
		}
		if (w->deadline && mono_ms() >= w->deadline) {
			w->stop = WALK_TIME;
			break;
		}
		const char *n = de->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (walk_entry(w, dfd, n, de->d_type, depth))
			break;
	}
	closedir(d);
}

void tskip_add(struct tskip *s, int err, const char *path)
{
	if (s->n++ == 0) {
		s->err = err;
		s->first = tools_name_visible(path);
	}
}

void tskip_note(const struct tskip *s, struct tout *o, const char *one, const char *many)
{
	if (!s->n)
		return;
	tout_note(o, "(%llu %s could not be opened (%s) and %s not searched, %s'%s' — check %s mode with bash "
		     "(ls -ld))\n", (unsigned long long)s->n, s->n == 1 ? one : many, strerror(s->err),
		  s->n == 1 ? "was" : "were", s->n == 1 ? "" : "the first ", s->first, s->n == 1 ? "its" : "their");
}

void tskip_release(struct tskip *s)
{
	free(s->first);
	memset(s, 0, sizeof(*s));
}

void walk_notes(struct walk *w, struct tout *o)
{
	if (w->stop == WALK_TIME)
		tout_note(o, "(stopped after %.1f s, the search's time budget, before the walk was done: what it found "
			     "so far is shown — shorten the glob (it is matched against every path) or search a "
			     "narrower path)\n", (double)w->budget_ms / 1000);
	if (w->deep_skipped)
		tout_note(o, "(%llu %s deeper than %d levels not searched: search a deeper path)\n",
			  (unsigned long long)w->deep_skipped,
			  w->deep_skipped == 1 ? "directory" : "directories", TOOLS_MAX_DEPTH);
	tskip_note(&w->unopened, o, "directory", "directories");
	tskip_release(&w->unopened);
	if (w->long_skipped)
		tout_note(o, "(%llu %s with a path too long to show not searched: search a deeper path)\n",
			  (unsigned long long)w->long_skipped, w->long_skipped == 1 ? "entry" : "entries");
}

void walk_tree(struct walk *w, int dfd, const char *base)
{
	size_t bl = strlen(base);
	if (bl >= sizeof(w->path) - 2)
		bl = 0;
	memcpy(w->path, base, bl);
	w->path[bl] = '\0';
	w->plen = bl;
	w->base_len = bl ? bl + 1 : 0;
	w->stop = WALK_DONE;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	walk_dir(w, d, 0);
}
