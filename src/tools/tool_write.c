/*
 * tool_write.c — write, and the atomic replacement edit shares.
 *
 * The new content goes to a temp file created O_EXCL|O_NOFOLLOW in the
 * target's own directory (that directory opened beneath its root), then
 * renameat() puts it in place.  rename never follows a link at the
 * destination: a symlink named like the target would be replaced, not
 * written through — and it is refused before that, so the model learns
 * nothing about where it pointed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "tools/tools_int.h"
#include "util/log.h"

/* Temp names tried before giving up (each is random). */
#define WRITE_TMP_TRIES 8

static int write_in_place(const struct tool_ctx *c, const char *path, const char *data, size_t n, char **err)
{
	int fd = fsguard_open(c->guard, path, O_WRONLY | O_TRUNC | O_NOCTTY, POL_WRITE, NULL, err);
	if (fd < 0)
		return -1;
	int r = write_all(fd, data, n);
	int e = errno;
	if (close(fd) < 0 && r == 0)
		r = -1, e = errno;
	if (r < 0) {
		*err = xasprintf("cannot write '%s': %s", path, strerror(e));
		return -1;
	}
	return 0;
}

/* The replaced file's owner and group, where the caller may give them:
 * root always, anyone else the group when they are in it (as sed -i).
 * Otherwise the new file is the caller's, as a rename-replace makes it.
 * Before the fchmod, which puts back what a chown may clear. */
static void keep_owner(int fd, const struct stat *old)
{
	struct stat now;
	if (fstat(fd, &now) < 0 || (now.st_uid == old->st_uid && now.st_gid == old->st_gid))
		return;
	if (fchown(fd, old->st_uid, old->st_gid) == 0 || now.st_gid == old->st_gid)
		return;
	if (fchown(fd, (uid_t)-1, old->st_gid) < 0)
		return;	/* not in that group: the caller's, as said */
}

int tools_write_atomic(const struct tool_ctx *c, const char *path, const char *data, size_t n,
		       int *created, char **err)
{
	char *name = NULL, *tmp = NULL;
	struct stat st;
	int dfd, fd = -1, r = -1;

	*created = 0;
	dfd = fsguard_open_parent(c->guard, path, POL_WRITE, 1, &name, err);
	if (dfd == -EXDEV) {
		/* the grant names this very file: no directory of ours to
		 * hold a temp file, so the pinned file is rewritten in place */
		free(*err);
		*err = NULL;
		return write_in_place(c, path, data, n, err);
	}
	if (dfd < 0)
		return -1;
	int exists = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISLNK(st.st_mode)) {
		audit(LOG_INFO, "denied", "path", path, "access", "write", "reason", "symlink", NULL);
		*err = xasprintf("'%s' not found — no such file or directory beneath the granted paths "
				 "(symlinks are not followed)", path);
		goto out;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		*err = xasprintf("'%s' is a directory — name a file", path);
		goto out;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		*err = xasprintf("'%s' is not a regular file — write replaces regular files only", path);
		goto out;
	}
	for (int i = 0; i < WRITE_TMP_TRIES && fd < 0; i++) {
		uint32_t rnd = 0;
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (uint32_t)getpid() * 2654435761u + (uint32_t)i;
		free(tmp);
		tmp = xasprintf(".%.200s.sandbx-%08x", name, rnd);
		/* never wider than the file it replaces: a 0600 file's new
		 * text (an edit's keeps the rest of the old) is not for others
		 * to open while it is written, nor after through a handle they
		 * took then */
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    exists ? st.st_mode & 0777 : 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = xasprintf("cannot create a temp file next to '%s': %s", path, strerror(errno));
		goto out;
	}
	/* The replaced file's mode, but never its set-id bits: the new file
	 * belongs to whoever runs sandbx (root, maybe) and holds what the
	 * model wrote, as the syscall filter keeps the bash tool from making
	 * one (a write by someone else clears them in the kernel too). */
	int wr = write_all(fd, data, n);
	if (wr == 0)
		tool_hook(c, "temp", tmp);
	if (wr == 0 && exists)
		keep_owner(fd, &st);
	if (wr < 0 || (exists && fchmod(fd, st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) < 0) ||
	    fsync(fd) < 0) {
		*err = xasprintf("cannot write '%s': %s", path, strerror(errno));
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, name) < 0) {
		*err = xasprintf("cannot put '%s' in place: %s", path, strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	*created = !exists;
	r = 0;
out:
	free(tmp);
	free(name);
	close(dfd);
	return r;
}

int tool_write_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path"), *content = tin_str(in, "content");
	char *err = NULL;
	int created;
	size_t n = strlen(content);
	if (tools_write_atomic(c, path, content, n, &created, &err) < 0)
		return tool_fail_own(out, err);
	return tool_ok_own(out, xasprintf("%s '%s' (%zu bytes)", created ? "created" : "replaced", path, n));
}
