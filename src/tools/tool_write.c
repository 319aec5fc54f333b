/*
 * tool_write.c — write, and the atomic replacement edit shares.
 *
 * The new content goes to an O_TMPFILE in the target's own directory
 * (that directory opened beneath its root; a temp file created
 * O_EXCL|O_NOFOLLOW where the filesystem has no O_TMPFILE), which is
 * linked to a temp name once whole, then renameat() puts it in place.
 * rename never follows a link at the destination: a symlink named like
 * the target would be replaced, not written through — and it is refused
 * before that, so the model learns nothing about where it pointed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "tools/tools_int.h"
#include "util/log.h"

/* Temp names tried before giving up (each is random). */
#define WRITE_TMP_TRIES 8

/* Whether the file open as fd (-1: there is none) is still what the
 * approval question showed; 0, or -1 with *err. */
static int expect_holds(const struct tool_ctx *c, int fd, const char *path, char **err)
{
	const struct tool_expect *ex = c->expect;
	const char *why = NULL;
	struct stat st;
	if (!ex)
		return 0;
	if (fd < 0) {
		if (ex->present)
			why = "it was removed";
	} else if (!ex->present) {
		why = "it was shown as a new file, and now exists";
	} else if (fstat(fd, &st) < 0) {
		why = "it cannot be checked";
	} else if (ex->content) {
		char *now = xmalloc(ex->len + 1);
		size_t got = 0;
		ssize_t r = 1;
		while (got < ex->len + 1 && r > 0) {	/* one byte more: longer is changed too */
			r = pread(fd, now + got, ex->len + 1 - got, (off_t)got);
			if (r < 0 && errno == EINTR)
				r = 1;
			else if (r > 0)
				got += (size_t)r;
		}
		if (r < 0 || got != ex->len || memcmp(now, ex->content, ex->len) != 0)
			why = "its content is not what the diff showed";
		free(now);
	} else if (st.st_dev != ex->dev || st.st_ino != ex->ino || st.st_size != ex->size ||
		   st.st_mtim.tv_sec != ex->mtime.tv_sec || st.st_mtim.tv_nsec != ex->mtime.tv_nsec) {
		why = "it is no longer the file the question named";
	}
	if (!why)
		return 0;
	audit(LOG_INFO, "refused", "path", path, "reason", "changed since approved", NULL);
	*err = xasprintf("'%s' changed after the question showed the user its diff (%s) — nothing was written: "
			 "another program changed it; read it again and retry", path, why);
	return -1;
}

/* n bytes over the file size limit: EFBIG before anything is written. */
static int over_fsize(size_t n)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)n > rl.rlim_cur;
}

/* "cannot write 'path': why", with what to do about a full disk or a
 * size limit, and that the file is as it was. */
static char *write_error(const char *path, int e)
{
	return xasprintf("cannot write '%s': %s%s — the file is unchanged", path, strerror(e),
			 e == EFBIG ? " (a file size limit, ulimit -f, was hit: raise it)"
			 : (e == ENOSPC || e == EDQUOT) ? " (free some disk space and try again)" : "");
}

/*
 * A file granted by name has no directory of ours for a temp file: it is
 * rewritten in place, which must not lose the old text when the new does
 * not fit.  So nothing is cut first: the room is reserved (fallocate) and
 * the size limit checked before a byte changes, and what the new text
 * overwrites is kept to be put back should the write fail all the same
 * (a filesystem without fallocate); the file is cut to its new size last.
 */
static int write_in_place(const struct tool_ctx *c, const char *path, const char *data, size_t n, char **err)
{
	int fd = fsguard_open(c->guard, path, O_RDWR | O_NOCTTY, POL_WRITE | FSGUARD_TRY, NULL, err);
	if (fd == -EACCES) {	/* a file its owner may write, not read */
		free(*err);
		*err = NULL;
		fd = fsguard_open(c->guard, path, O_WRONLY | O_NOCTTY, POL_WRITE, NULL, err);
	}
	if (fd < 0)
		return -1;
	struct stat st;
	char *keep = NULL;
	size_t kn = 0;
	int e = 0;
	sigset_t mask;
	if (expect_holds(c, fd, path, err) < 0) {
		close(fd);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (over_fsize(n)) {
		e = EFBIG;
		goto fail;
	}
	if ((uint64_t)n > (uint64_t)st.st_size && fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)n) < 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) {
		e = errno;
		goto fail;
	}
	kn = (uint64_t)st.st_size < n ? (size_t)st.st_size : n;
	keep = xmalloc(kn + 1);
	ssize_t got = kn ? pread(fd, keep, kn, 0) : 0;
	if (got != (ssize_t)kn) {
		free(keep);
		keep = NULL;	/* write-only: nothing to put back */
	}
	xfsz_block(&mask);
	size_t done = 0;
	while (done < n && !e) {
		ssize_t w = pwrite(fd, data + done, n - done, (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	if (!e && ftruncate(fd, (off_t)n) < 0)
		e = errno;
	if (!e && fsync(fd) < 0)
		e = errno;
	if (e && done) {
		/* over the old text's own blocks: this fits where that did */
		int back = keep && pwrite(fd, keep, kn, 0) == (ssize_t)kn && ftruncate(fd, st.st_size) == 0;
		if (!back) {
			xfsz_restore(&mask);
			*err = xasprintf("cannot write '%s': %s — and its old content could not be put back: the file "
					 "is damaged, restore it from a copy", path, strerror(e));
			free(keep);
			close(fd);
			return -1;
		}
	}
	xfsz_restore(&mask);
	free(keep);
	if (close(fd) < 0 && !e)
		e = errno;
	if (e) {
		*err = write_error(path, e);
		return -1;
	}
	return 0;
fail:
	free(keep);
	close(fd);
	*err = write_error(path, e);
	return -1;
}

/* The replaced file's owner and group, where the caller may give them:
 * root always, anyone else the group when they are in it (as sed -i).
 * Otherwise the new file is the caller's, as a rename-replace makes it.
 * Before the fchmod, which puts back what a chown may clear.  Whether
 * the new file's group is the old one's: when it is not, the old group
 * bits are not the new group's to have. */
static int keep_owner(int fd, const struct stat *old)
{
	struct stat now;
	if (fstat(fd, &now) < 0)
		return 0;
	if (now.st_uid == old->st_uid && now.st_gid == old->st_gid)
		return 1;
	if (fchown(fd, old->st_uid, old->st_gid) == 0 || now.st_gid == old->st_gid)
		return 1;
	return fchown(fd, (uid_t)-1, old->st_gid) == 0;	/* not in that group: the caller's */
}

/* Room for an ACL of 512 entries (ext4's own limit is about 500; one
 * larger fails the write, it is never dropped: ERANGE). */
#define WRITE_ACL_MAX (4 + 8 * 512)
#define ACL_XATTR "system.posix_acl_access"

/*
 * The access ACL of the file open as pfd (O_PATH), into acl (*n bytes; 0
 * when it has none).  It must go to the file that takes its place: the
 * mode alone carries the ACL's mask in its group bits, which would give
 * the owning group what the mask allows even where the ACL's own entry
 * for it allows nothing.  -1 with errno when it cannot be read.
 */
static int acl_get(int pfd, char *acl, size_t *n)
{
	char via[32];
	snprintf(via, sizeof(via), "/proc/self/fd/%d", pfd);
	ssize_t k = getxattr(via, ACL_XATTR, acl, WRITE_ACL_MAX);
	*n = 0;
	if (k < 0)
		return errno == ENODATA || errno == EOPNOTSUPP ? 0 : -1;
	*n = (size_t)k;
	return 0;
}

/* A temp name next to name, random (the i-th try). */
static char *temp_name(const char *name, int i)
{
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)getpid() * 2654435761u + (uint32_t)i;
	return xasprintf(".%.200s.sandbx-%08x", name, rnd);
}

/* Give the O_TMPFILE fd a temp name in dfd (*tmp), to be renamed over the
 * target: a file cannot be linked over another.  Through /proc/self/fd,
 * as linkat's AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH.  0, or -1 with
 * errno. */
static int link_temp(int fd, int dfd, const char *name, char **tmp)
{
	char via[32];
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	for (int i = 0; i < WRITE_TMP_TRIES; i++) {
		free(*tmp);
		*tmp = temp_name(name, i);
		if (linkat(AT_FDCWD, via, dfd, *tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int tools_write_atomic(const struct tool_ctx *c, const char *path, const char *data, size_t n, int mkdirs,
		       int *created, char **err)
{
	char *name = NULL, *tmp = NULL;
	struct stat st;
	struct fsguard_made made = { 0 };
	int dfd, fd = -1, r = -1;
	char *acl = NULL;
	size_t acln = 0;

	*created = 0;
	/* What can be refused before anything is made, is: a write over
	 * the size limit; one approved over a file that was there, whose
	 * directories then were too (missing now, the file is gone). */
	if (over_fsize(n)) {
		*err = write_error(path, EFBIG);
		return -1;
	}
	if (c->expect && c->expect->present)
		mkdirs = 0;
	dfd = fsguard_open_parent(c->guard, path, POL_WRITE, mkdirs ? &made : NULL, &name, err);
	if (dfd == -EXDEV) {
		/* the grant names this very file: no directory of ours to
		 * hold a temp file, so the pinned file is rewritten in place */
		free(*err);
		*err = NULL;
		return write_in_place(c, path, data, n, err);
	}
	if (dfd == -ENOENT && c->expect && c->expect->present) {
		free(*err);
		*err = NULL;
		expect_holds(c, -1, path, err);
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
	if (exists) {
		/* its ACL from the very file whose mode is copied */
		struct stat now;
		int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int bad = pfd < 0 || fstat(pfd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino;
		if (!bad)
			acl = xmalloc(WRITE_ACL_MAX);
		if (!bad && acl_get(pfd, acl, &acln) < 0) {
			*err = xasprintf("cannot read the ACL of '%s': %s — nothing was written (the file that takes its "
					 "place must keep it)", path, strerror(errno));
			close(pfd);
			goto out;
		}
		if (pfd >= 0)
			close(pfd);
		if (bad) {
			*err = xasprintf("'%s' was replaced while it was being written — nothing was written; retry", path);
			goto out;
		}
	}
	if (c->expect) {
		/* checked regular above, but a FIFO or a device swapped in
		 * since is not opened */
		int cur = exists ? fsguard_open_reg_at(dfd, name, O_RDONLY | O_NONBLOCK) : -1;
		int bad = (exists && cur < 0) || expect_holds(c, cur, path, err) < 0;
		if (cur >= 0)
			close(cur);
		if (bad) {
			if (!*err)
				*err = xasprintf("cannot open '%s' to check it: %s — nothing was written", path,
						 strerror(cur < -1 ? -cur : errno));
			goto out;
		}
	}
	/* The new content goes first to an O_TMPFILE, which has no name
	 * until it is whole, with its owner, ACL and mode: a harness killed
	 * meanwhile leaves nothing in the directory (the kernel frees it),
	 * and no one can open it by name while it is written.  A filesystem
	 * without O_TMPFILE gets a named temp file of a random name. */
	mode_t cmode = exists ? st.st_mode & 0700 : 0666;
	int anon = 0;
	if (!c->no_tmpfile) {
		fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, cmode);
		anon = fd >= 0;
		/* EISDIR: a kernel without O_TMPFILE */
		if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			goto no_temp;
	}
	for (int i = 0; i < WRITE_TMP_TRIES && fd < 0; i++) {
		free(tmp);
		tmp = temp_name(name, i);
		/* its owner's alone while it is written: a 0600 file's new
		 * text (an edit's keeps the rest of the old) is not for others
		 * to open then, nor after through a handle they took then; nor
		 * is any file's before its group and ACL are settled */
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, cmode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
no_temp:
	if (fd < 0) {
		int e = errno;
		*err = e == EACCES || e == EPERM
			? xasprintf("cannot create a temp file next to '%s': %s — write replaces a file through a new one "
				    "in its directory, whose mode does not let the user sandbx runs as create it: check it "
				    "with bash (ls -ld)", path, strerror(e))
			: xasprintf("cannot create a temp file next to '%s': %s", path, strerror(e));
		goto out;
	}
	/* The replaced file's mode, but never its set-id bits: the new file
	 * belongs to whoever runs sandbx (root, maybe) and holds what the
	 * model wrote, as the syscall filter keeps the bash tool from making
	 * one (a write by someone else clears them in the kernel too). */
	sigset_t mask;
	xfsz_block(&mask);
	int wr = write_all(fd, data, n);
	int we = errno;
	xfsz_restore(&mask);
	errno = we;
	if (wr == 0) {
		tool_hook(c, "filled", name);
		if (!anon)
			tool_hook(c, "temp", tmp);
	}
	mode_t mode = st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
	if (wr == 0 && exists && !keep_owner(fd, &st))
		mode &= ~(mode_t)S_IRWXG;
	/* the ACL before the mode: set, it makes the group bits its mask,
	 * which the old mode's are */
	if (wr < 0 || (acln && fsetxattr(fd, ACL_XATTR, acl, acln, 0) < 0) || (exists && fchmod(fd, mode) < 0) ||
	    fsync(fd) < 0) {
		*err = write_error(path, errno);
		close(fd);
		if (!anon)
			unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (anon && link_temp(fd, dfd, name, &tmp) < 0) {
		*err = xasprintf("cannot put '%s' in place: %s — the file is unchanged", path,
				 strerror(errno));
		close(fd);
		goto out;
	}
	close(fd);
	if (anon)
		tool_hook(c, "temp", tmp);
	if (renameat(dfd, tmp, dfd, name) < 0) {
		*err = xasprintf("cannot put '%s' in place: %s", path, strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	*created = !exists;
	r = 0;
out:
	/* a failed write leaves no directory it made (the temp file in the
	 * innermost is already gone) */
	if (r < 0)
		fsguard_made_undo(&made);
	else
		fsguard_made_keep(&made);
	free(tmp);
	free(name);
	free(acl);
	close(dfd);
	return r;
}

int tool_write_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *path = tin_str(in, "path"), *content = tin_str(in, "content");
	char *err = NULL;
	int created;
	size_t n = strlen(content);
	if (tools_write_atomic(c, path, content, n, 1, &created, &err) < 0)
		return tool_fail_own(out, err);
	return tool_ok_own(out, xasprintf("%s '%s' (%zu bytes)", created ? "created" : "replaced", path, n));
}
