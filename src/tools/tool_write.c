/*
 * tool_write.c — write, and the atomic replacement edit shares.
 *
 * The new content goes to an O_TMPFILE in the target's own directory
 * (that directory opened beneath its root; a temp file created
 * O_EXCL|O_NOFOLLOW where the filesystem has no O_TMPFILE), which is
 * linked to a temp name once whole, then renameat() puts it in place;
 * a new file's is linked to its own name, never over one that appeared
 * meanwhile (which also lets it be made in an append-only directory).
 * The content is synced before the file has a name, and the directory
 * (with those the write made) after, so a reported write survives a
 * crash.
 * rename never follows a link at the destination: a symlink named like
 * the target would be replaced, not written through — and it is refused
 * before that, so the model learns nothing about where it pointed.
 * The new file gets what the replaced one had that the rename would
 * drop (owner, mode, ACL, user.* xattrs, chattr flags and project ID)
 * before it has a name; what cannot be carried over fails the write, as
 * does a chattr flag that forbids the rename, checked before a temp file
 * is made.
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <linux/limits.h>

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

/* Whether name in dfd is still what the approval question showed (the
 * file that was there, or none); 0, or -1 with *err.  It was checked
 * regular, but a FIFO or a device swapped in since is not opened. */
static int still_as_shown(const struct tool_ctx *c, int dfd, const char *name, int exists, const char *path,
			  char **err)
{
	if (!c->expect)
		return 0;
	int cur = exists ? fsguard_open_reg_at(dfd, name, O_RDONLY | O_NONBLOCK) : -1;
	int gone = cur == -ENOENT;	/* said as "it was removed" */
	if (gone)
		cur = -1;
	int bad = (exists && cur < 0 && !gone) || expect_holds(c, cur, path, err) < 0;
	if (cur >= 0)
		close(cur);
	if (bad && !*err)
		*err = xasprintf("cannot open '%s' to check it: %s — nothing was written", path,
				 strerror(cur < -1 ? -cur : errno));
	return bad ? -1 : 0;
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
static const char *flag_refusing(const struct tool_ctx *c, int fd, int dir);
static char *flag_error(const char *path, const char *flag, int on_dir, int exists);

static int write_in_place(const struct tool_ctx *c, const char *path, const char *data, size_t n, char **err)
{
	/* chattr +i or +a: refused as a replace is, naming the flag, not
	 * with the open's bare EPERM */
	int pfd = fsguard_open(c->guard, path, O_PATH, POL_WRITE, NULL, err);
	if (pfd < 0)	/* as the open below would, and said so once */
		return -1;
	const char *flag = flag_refusing(c, pfd, 0);
	close(pfd);
	if (flag) {
		*err = flag_error(path, flag, 0, 1);
		return -1;
	}
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
	/* Synced before the file is cut to its new size: what is put back
	 * below is only what the new text overwrote, so a sync that fails
	 * (an NFS server refusing the data at fsync: ENOSPC, EDQUOT) must
	 * find the old tail still there.  Before, the file was cut first,
	 * and such a failure left the tail as NUL bytes, said "unchanged". */
	if (!e && fsync(fd) < 0)
		e = errno;
	if (!e) {
		/* cut also what another program appended meanwhile: the
		 * file is the new text alone */
		if (ftruncate(fd, (off_t)n) < 0) {
			e = errno;
		} else if (fsync(fd) < 0) {
			/* the new text is whole and cut to size; only its
			 * size may not be on the disk yet */
			e = errno;
			xfsz_restore(&mask);
			free(keep);
			close(fd);
			*err = xasprintf("'%s' is written, but it could not be synced to disk: %s — the new content is "
					 "in place, yet a crash or power loss may still undo it", path, strerror(e));
			return -1;
		}
	}
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
	if (close(fd) < 0 && !e) {
		/* the new text is written, cut to size and synced: a close
		 * that fails now (NFS, a FUSE flush) cannot take that back,
		 * so it is not "unchanged", which is what this said before */
		e = errno;
		*err = xasprintf("'%s' is written and synced to disk, but closing it failed: %s — the new content "
				 "is in place; read it back to check it", path, strerror(e));
		return -1;
	}
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

/* Remove the access ACL a new file fd inherited, if any (0 when it has
 * none or its filesystem keeps no ACLs). */
static int acl_drop(int fd)
{
	if (fremovexattr(fd, ACL_XATTR) == 0 || errno == ENODATA || errno == EOPNOTSUPP)
		return 0;
	return -1;
}

/* All of a file's user.* values together that are carried over (ext4
 * holds about 4 KiB of them in all; a file with more fails the write). */
#define WRITE_XATTR_MAX (1024 * 1024)

/*
 * The extended attributes that go to the file taking another's place:
 * the user's own (user.*: tags, checksums, user.mime_type), which an
 * editor's rename would otherwise drop without a word.  Not the others:
 * security.capability is what the kernel clears on any write, for a
 * reason (the new content is the model's); security.ima and security.evm
 * are hashes or signatures of the old content; security.selinux and the
 * other LSMs' labels are their policy's to give the new file, and setting
 * one needs CAP_SYS_ADMIN or the policy's relabel rights, which sandbx
 * does not mean to use on the model's behalf; trusted.* needs
 * CAP_SYS_ADMIN and belongs to the system (overlayfs).  The access ACL is
 * carried by acl_get; system.* others (an NFSv4 ACL) are not.
 */
struct uxattr {
	char *name;
	char *val;
	size_t len;
};

struct uxattrs {
	struct uxattr *v;
	size_t n;
};

static void uxattrs_free(struct uxattrs *xs)
{
	for (size_t i = 0; i < xs->n; i++) {
		free(xs->v[i].name);
		free(xs->v[i].val);
	}
	free(xs->v);
	xs->v = NULL;
	xs->n = 0;
}

/* The user.* attributes of the file open as pfd (O_PATH), into xs.  0, or
 * -1 with errno and *bad the attribute that could not be read (malloc'd;
 * NULL: the list itself). */
static int uxattrs_get(int pfd, struct uxattrs *xs, char **bad)
{
	char via[32];
	snprintf(via, sizeof(via), "/proc/self/fd/%d", pfd);
	char *list = xmalloc(XATTR_LIST_MAX), *val = xmalloc(XATTR_SIZE_MAX);
	ssize_t ln = listxattr(via, list, XATTR_LIST_MAX);
	size_t total = 0;
	int r = 0;
	*bad = NULL;
	if (ln < 0)
		r = errno == EOPNOTSUPP ? 0 : -1;
	for (char *p = list; ln > 0 && p < list + ln && !r; p += strlen(p) + 1) {
		if (strncmp(p, "user.", 5) != 0)
			continue;
		ssize_t k = getxattr(via, p, val, XATTR_SIZE_MAX);
		if (k < 0 && errno == ENODATA)	/* removed since the list */
			continue;
		if (k >= 0 && (total += (size_t)k) > WRITE_XATTR_MAX)
			errno = E2BIG;
		if (k < 0 || total > WRITE_XATTR_MAX) {
			*bad = xstrdup(p);
			r = -1;
			break;
		}
		xs->v = xrealloc(xs->v, (xs->n + 1) * sizeof(*xs->v));
		xs->v[xs->n].name = xstrdup(p);
		xs->v[xs->n].val = xmalloc((size_t)k + 1);
		memcpy(xs->v[xs->n].val, val, (size_t)k);
		xs->v[xs->n++].len = (size_t)k;
	}
	int e = errno;
	free(list);
	free(val);
	errno = e;
	return r;
}

/* Set them on the new file fd; 0, or -1 with errno and *bad the one that
 * would not go. */
static int uxattrs_put(int fd, const struct uxattrs *xs, const char **bad)
{
	for (size_t i = 0; i < xs->n; i++) {
		if (fsetxattr(fd, xs->v[i].name, xs->v[i].val, xs->v[i].len, 0) < 0) {
			*bad = xs->v[i].name;
			return -1;
		}
	}
	return 0;
}

/* One line: attribute name of path could not be read (get) or carried
 * over (put), and what to do. */
static char *uxattr_error(const char *path, const char *name, int e, int get)
{
	const char *todo = e == ENOSPC || e == EDQUOT
		? "free space on its filesystem and retry, or remove the attribute with bash if it is not "
		  "needed"
		: e == E2BIG ? "more than sandbx carries over (1 MiB in all): change the file with bash"
		: "change the file with bash, or remove the attribute with bash if it is not needed";
	if (!name)
		return xasprintf("cannot list the extended attributes of '%s': %s — nothing was written "
				 "(the file that takes its place must keep them)", path, strerror(e));
	return xasprintf("cannot %s the extended attribute '%s' of '%s'%s: %s — nothing was written, "
			 "the file is unchanged: %s", get ? "read" : "carry over", name, path,
			 get ? "" : " to the file that takes its place", strerror(e), todo);
}

/*
 * Which of chattr's flags forbids the replace, on the directory (dir) or
 * the file open as fd (O_PATH): NULL when none does, or it cannot be told.
 * A directory that is append-only (+a) lets a file be made in it but none
 * renamed or removed, so the temp file could neither take the target's
 * place nor go again; one that is immutable (+i) lets nothing be made; a
 * file that is either cannot be replaced.  statx tells without opening
 * anything (a directory of mode 0300, a file of 0200); a filesystem whose
 * statx does not report them is asked with FS_IOC_GETFLAGS, on the same
 * inode opened read-only when its mode lets it be.
 */
static const char *flag_refusing(const struct tool_ctx *c, int fd, int dir)
{
	const uint64_t both = STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE;
	struct statx sx;
	int immutable, append;
	if (!c->no_statx_attrs && statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0, &sx) == 0 &&
	    (sx.stx_attributes_mask & both) == both) {
		immutable = !!(sx.stx_attributes & STATX_ATTR_IMMUTABLE);
		append = !!(sx.stx_attributes & STATX_ATTR_APPEND);
	} else {
		char via[32];
		int flags = 0;
		snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
		int rfd = open(via, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
		int got = rfd >= 0 && ioctl(rfd, FS_IOC_GETFLAGS, &flags) == 0;
		if (rfd >= 0)
			close(rfd);
		if (!got)
			return NULL;
		immutable = !!(flags & FS_IMMUTABLE_FL);
		append = !!(flags & FS_APPEND_FL);
	}
	return immutable ? "+i" : append ? "+a" : NULL;
}

/*
 * The chattr flags a file that takes another's place gets from it, those
 * its owner may set and that say how the file is to be kept, not what it
 * is made of: s u (kept, if unused, by ext4), c m C (compress or not,
 * copy-on-write or not: btrfs), S (synchronous writes), d (nodump: left
 * out of backups), A (noatime), j (ext4 data journaling; CAP_SYS_RESOURCE
 * there), t (no tail merging), x (DAX).  Not: a and i, refused before
 * (flag_refusing; CAP_LINUX_IMMUTABLE); D T P F, a directory's, which
 * ext4 drops from a regular file; E V I e N h and the rest, kept by the
 * filesystem itself (encryption, verity, extents, inline data), which
 * FS_IOC_SETFLAGS does not set.  Set on the temp file while it is empty,
 * as +C must be.  Only added: what the directory gives each new file in
 * it (ext4 passes on s u c S d A j t x) stays, as on a file made with bash.
 */
static const struct {
	int fl;
	char c;
} keep_flags[] = {
	{ FS_SECRM_FL, 's' }, { FS_UNRM_FL, 'u' }, { FS_COMPR_FL, 'c' }, { FS_SYNC_FL, 'S' },
	{ FS_NODUMP_FL, 'd' }, { FS_NOATIME_FL, 'A' }, { FS_NOCOMP_FL, 'm' }, { FS_JOURNAL_DATA_FL, 'j' },
	{ FS_NOTAIL_FL, 't' }, { FS_NOCOW_FL, 'C' }, { FS_DAX_FL, 'x' },
};

static int keep_mask(void)
{
	int m = 0;
	for (size_t i = 0; i < sizeof(keep_flags) / sizeof(keep_flags[0]); i++)
		m |= keep_flags[i].fl;
	return m;
}

static char flag_letter(int fl)
{
	for (size_t i = 0; i < sizeof(keep_flags) / sizeof(keep_flags[0]); i++)
		if (keep_flags[i].fl == fl)
			return keep_flags[i].c;
	return '?';
}

/*
 * The flags of the file open as pfd (O_PATH) that keep_flags carries
 * over, and its project ID (chattr -p) in *projid.  FS_IOC_GETFLAGS and
 * FS_IOC_FSGETXATTR on the inode reopened read-only; a file whose mode
 * does not let it be read (a user's 0200 file) is not opened to write
 * just for this (a watcher would see it closed after a write): statx
 * tells its c, d and x then, and nothing its project ID (0).  None on a
 * filesystem without flags; project ID 0 on one without project IDs.
 */
static int flags_get(int pfd, unsigned *projid)
{
	char via[32];
	int fl = 0;
	struct statx sx;
	struct fsxattr fa;
	snprintf(via, sizeof(via), "/proc/self/fd/%d", pfd);
	int rfd = open(via, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int got = rfd >= 0 && ioctl(rfd, FS_IOC_GETFLAGS, &fl) == 0;
	*projid = rfd >= 0 && ioctl(rfd, FS_IOC_FSGETXATTR, &fa) == 0 ? fa.fsx_projid : 0;
	if (rfd >= 0)
		close(rfd);
	if (!got) {
		fl = 0;
		if (statx(pfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0, &sx) == 0) {
			fl |= sx.stx_attributes & STATX_ATTR_COMPRESSED ? FS_COMPR_FL : 0;
			fl |= sx.stx_attributes & STATX_ATTR_NODUMP ? FS_NODUMP_FL : 0;
			fl |= sx.stx_attributes & STATX_ATTR_DAX ? FS_DAX_FL : 0;
		}
	}
	return fl & keep_mask();
}

/* Add want (flags_get) to the new file fd, while it is empty, one flag
 * at a time so that a refusal names its flag; 0, or -1 with errno and
 * *bad the flag it would not take.  One the filesystem accepts but does
 * not keep is EOPNOTSUPP. */
static int flags_put(int fd, int want, int *bad)
{
	int cur = 0;
	if (!want)
		return 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &cur) < 0) {
		if (errno == ENOTTY)
			errno = EOPNOTSUPP;
		*bad = want & -want;
		return -1;
	}
	for (int left = want & ~cur; left; left &= left - 1) {
		int bit = left & -left, set = cur | bit;
		*bad = bit;
		if (ioctl(fd, FS_IOC_SETFLAGS, &set) < 0 || ioctl(fd, FS_IOC_GETFLAGS, &cur) < 0)
			return -1;
		if (!(cur & bit)) {
			errno = EOPNOTSUPP;
			return -1;
		}
	}
	return 0;
}

/*
 * Give the new file fd the replaced one's project ID (flags_get), the ID
 * a project quota (XFS; ext4 with the project feature) charges it to:
 * its owner may set it, in the initial user namespace only (elsewhere the
 * kernel refuses any change, EINVAL).  Not in a directory that passes its
 * own ID on (chattr +P, PROJINHERIT): the new file has that tree's ID
 * already, and the kernel refuses to link or rename a file of another ID
 * into the tree (EXDEV), to keep its quota whole; nor in one sandbx may
 * not read to ask.  0, or -1 with errno.
 */
static int projid_put(int fd, int dfd, unsigned want)
{
	struct fsxattr fa, da;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) < 0) {
		if (errno == ENOTTY)
			errno = EOPNOTSUPP;
		return want ? -1 : 0;
	}
	if (fa.fsx_projid == want)
		return 0;
	int d = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int inherit = d < 0 || ioctl(d, FS_IOC_FSGETXATTR, &da) < 0 || (da.fsx_xflags & FS_XFLAG_PROJINHERIT);
	if (d >= 0)
		close(d);
	if (inherit)
		return 0;
	fa.fsx_projid = want;
	return ioctl(fd, FS_IOC_FSSETXATTR, &fa);
}

/* One line: the project ID of path could not be given to the new file. */
static char *projid_keep_error(const char *path, unsigned projid, int e)
{
	return xasprintf("cannot keep the project ID %u of '%s' (chattr -p) on the file that takes its place: %s "
			 "— nothing was written, the file is unchanged: %s; change the file in place with bash",
			 projid, path, strerror(e),
			 e == EINVAL ? "sandbx runs in a user namespace, where the kernel lets no project ID change"
				     : "its filesystem does not give it to a new file there");
}

/* One line: the flag fl of path could not be given to the new file. */
static char *flag_keep_error(const char *path, int fl, int e)
{
	char c = flag_letter(fl);
	return xasprintf("cannot keep the chattr flag +%c of '%s' on the file that takes its place: %s — nothing "
			 "was written, the file is unchanged: %s; change the file in place with bash, or remove the "
			 "flag if it is not needed (chattr -%c)", c, path, strerror(e),
			 e == EPERM ? "setting it needs a privilege the user sandbx runs as lacks"
			 : "its filesystem does not give it to a new file there", c);
}

/* path's directory as the caller named it, with its slash ("" for none). */
static int dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? (int)(slash - path + 1) : 0;
}

/* The refusal for flag (flag_refusing) on path's directory or path. */
static char *flag_error(const char *path, const char *flag, int on_dir, int exists)
{
	int dl = dir_len(path);
	audit(LOG_INFO, "refused", "path", path, "reason", on_dir ? "directory flag" : "file flag", NULL);
	if (on_dir && flag[1] == 'a')
		return xasprintf("'%s' is in an append-only directory ('%.*s', chattr +a) — nothing was "
				 "written: files can be made there but none renamed or removed, and write and "
				 "edit put a file in place by renaming a new one over it; %s, or remove the "
				 "flag (chattr -a, as root)",
				 path, dl ? dl : 1, dl ? path : ".",
				 exists ? "change it in place with bash" : "create it with bash");
	if (on_dir)
		return xasprintf("'%s' is in an immutable directory ('%.*s', chattr +i) — nothing was "
				 "written: nothing can be made, renamed or removed there until the flag is "
				 "removed (chattr -i, as root)",
				 path, dl ? dl : 1, dl ? path : ".");
	if (flag[1] == 'a')
		return xasprintf("'%s' is append-only (chattr +a) — nothing was written: it can be appended "
				 "to but not replaced; append with bash (>>), or remove the flag (chattr -a, "
				 "as root)", path);
	return xasprintf("'%s' is immutable (chattr +i) — nothing was written: it cannot be changed or "
			 "replaced until the flag is removed (chattr -i, as root)", path);
}

/* After a failed step, the temp file tmp in dfd goes; when it cannot (an
 * append-only directory, made so since the check), *err says its name, to
 * be removed by hand. */
static void drop_temp(int dfd, const char *path, const char *tmp, char **err)
{
	if (unlinkat(dfd, tmp, 0) == 0 || errno == ENOENT)
		return;
	int e = errno, dl = dir_len(path);
	char *had = *err;
	*err = xasprintf("%s; and its temp file '%.*s%s' could not be removed (%s): remove it with bash, "
			 "or as root where the directory is append-only (chattr -a)", had, dl, path, tmp,
			 strerror(e));
	free(had);
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

/* Rename the temp file tmp to name, a new file, without replacing one
 * another program made there meanwhile (EEXIST), as link_new does for an
 * O_TMPFILE.  A filesystem that cannot rename so (EINVAL) may still link;
 * one without hard links either (vfat: EPERM) is renamed onto a name that
 * was free a moment ago.  0, or -1 with errno. */
static int rename_new(int dfd, const char *tmp, const char *name)
{
	if (renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	if (linkat(dfd, tmp, dfd, name, 0) == 0) {
		(void)unlinkat(dfd, tmp, 0);
		return 0;
	}
	if (errno != EPERM && errno != EOPNOTSUPP)
		return -1;
	if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		errno = EEXIST;
		return -1;
	}
	return renameat(dfd, tmp, dfd, name);
}

/* Link the O_TMPFILE fd as name in dfd itself: a new file.  0, or -1
 * with errno (EEXIST: the name is taken). */
static int link_new(int fd, int dfd, const char *name)
{
	char via[32];
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, via, dfd, name, AT_SYMLINK_FOLLOW);
}

/* The new name is in place (linked or renamed): it survives a crash or
 * a power loss only once its directory is synced, and the directories
 * the write made with theirs.  The file's own content was synced before
 * it got a name.  0, or -1 with *err. */
static int placed(int dfd, const struct fsguard_made *made, const char *path, char **err)
{
	int e = fsguard_sync_dirs(dfd, made);
	if (!e)
		return 0;
	*err = xasprintf("'%s' is written, but its directory could not be synced to disk: %s — the new content is in "
			 "place, yet a crash or power loss may still undo it: check the filesystem (dmesg)", path,
			 strerror(e));
	return -1;
}

/* The write's refusal of what stands at its name (st, not followed) and
 * is not a regular file it replaces; NULL for a regular file. */
static char *target_refusal(const char *path, const struct stat *st)
{
	if (S_ISLNK(st->st_mode)) {
		audit(LOG_INFO, "denied", "path", path, "access", "write", "reason", "symlink", NULL);
		return xasprintf("'%s' not found — no such file or directory beneath the granted paths "
				 "(symlinks are not followed)", path);
	}
	if (S_ISDIR(st->st_mode))
		return xasprintf("'%s' is a directory — name a file", path);
	if (!S_ISREG(st->st_mode))
		return xasprintf("'%s' is not a regular file — write replaces regular files only", path);
	return NULL;
}

char *tools_write_target_refusal(struct fsguard *g, const char *path)
{
	char *name = NULL, *err = NULL;
	struct stat st;
	int dfd = fsguard_open_parent(g, path, POL_WRITE, NULL, &name, &err);
	if (dfd == -EXDEV) {
		/* a file granted by name (write_in_place): its first open
		 * takes the pinned name O_PATH, which opens nothing, and its
		 * next refuses a device before any open of it */
		free(err);
		err = NULL;
		int pfd = fsguard_open(g, path, O_PATH, POL_WRITE, NULL, &err);
		if (pfd < 0)
			return err;
		int dev = fstat(pfd, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
		close(pfd);
		if (!dev)
			return NULL;
		int fd = fsguard_open(g, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, POL_WRITE, NULL, &err);
		if (fd < 0)
			return err;
		close(fd);	/* not a device after all: asked about */
		free(err);
		return NULL;
	}
	/* Not there: the write would make its directories (mkdirs), not
	 * fail; it is asked about. */
	if (dfd == -ENOENT) {
		free(err);
		return NULL;
	}
	if (dfd < 0)
		return err;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		err = target_refusal(path, &st);
	free(name);
	close(dfd);
	return err;
}

int tools_write_atomic(const struct tool_ctx *c, const char *path, const char *data, size_t n, int mkdirs,
		       int *created, char **err)
{
	char *name = NULL, *tmp = NULL;
	struct stat st;
	struct fsguard_made made = { 0 };
	int dfd, fd = -1, r = -1;
	char *acl = NULL, *xbad = NULL;
	size_t acln = 0;
	struct uxattrs xs = { 0 };
	const char *flag, *dflag;
	int oflags = 0, fbad = 0, in_place = 0;
	unsigned projid = 0;

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
	if (exists && (*err = target_refusal(path, &st)))
		goto out;
	/* a directory or a file chattr keeps from being replaced is refused
	 * before a temp file is made there, which could not go again; a new
	 * file in an append-only directory is made there without one, its
	 * O_TMPFILE linked to its name (the filesystem must have them) */
	dflag = flag_refusing(c, dfd, 1);
	if (dflag && (dflag[1] == 'i' || exists || c->no_tmpfile)) {
		*err = flag_error(path, dflag, 1, exists);
		goto out;
	}
	if (exists) {
		/* its ACL and xattrs from the very file whose mode is copied */
		struct stat now;
		int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int bad = pfd < 0 || fstat(pfd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino;
		if (!bad && (flag = flag_refusing(c, pfd, 0)))
			*err = flag_error(path, flag, 0, 1);
		if (!bad && !*err)
			acl = xmalloc(WRITE_ACL_MAX);
		if (!bad && !*err && acl_get(pfd, acl, &acln) < 0)
			*err = xasprintf("cannot read the ACL of '%s': %s — nothing was written (the file that takes its "
					 "place must keep it)", path, strerror(errno));
		if (!bad && !*err && uxattrs_get(pfd, &xs, &xbad) < 0)
			*err = uxattr_error(path, xbad, errno, 1);
		if (!bad && !*err)
			oflags = flags_get(pfd, &projid);
		if (pfd >= 0)
			close(pfd);
		if (bad)
			*err = xasprintf("'%s' was replaced while it was being written — nothing was written; retry", path);
		if (*err)
			goto out;
	}
	if (still_as_shown(c, dfd, name, exists, path, err) < 0)
		goto out;
	/* The new content goes first to an O_TMPFILE, which has no name
	 * until it is whole, with its owner, ACL and mode: a harness killed
	 * meanwhile leaves nothing in the directory (the kernel frees it),
	 * and no one can open it by name while it is written.  A filesystem
	 * without O_TMPFILE gets a named temp file of a random name. */
	mode_t cmode = exists ? st.st_mode & 0700 : 0666;
	if (xs.n)	/* setting a user.* xattr needs write permission, even on one's own file */
		cmode |= S_IWUSR;
	int anon = 0;
	if (!c->no_tmpfile) {
		fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, cmode);
		anon = fd >= 0;
		/* EISDIR: a kernel without O_TMPFILE */
		if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			goto no_temp;
	}
	if (fd < 0 && dflag) {	/* no O_TMPFILE here: a temp name could not go again */
		*err = flag_error(path, dflag, 1, exists);
		goto out;
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
	if (flags_put(fd, oflags, &fbad) < 0)
		*err = flag_keep_error(path, fbad, errno);
	else if (projid_put(fd, dfd, projid) < 0)
		*err = projid_keep_error(path, projid, errno);
	if (*err) {
		close(fd);
		if (!anon)
			drop_temp(dfd, path, tmp, err);
		goto out;
	}
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
	 * which the old mode's are; the user xattrs while the owner may
	 * still write the file.  A replaced file that had none gets none:
	 * the temp file took its directory's default ACL, whose named
	 * entries the old mode's group bits would then unmask */
	const char *xfail = NULL;
	if (wr < 0 || (acln && fsetxattr(fd, ACL_XATTR, acl, acln, 0) < 0) ||
	    (exists && !acln && acl_drop(fd) < 0) ||
	    uxattrs_put(fd, &xs, &xfail) < 0 || (exists && fchmod(fd, mode) < 0) || fsync(fd) < 0) {
		*err = xfail ? uxattr_error(path, xfail, errno, 0) : write_error(path, errno);
		close(fd);
		if (!anon)
			drop_temp(dfd, path, tmp, err);
		goto out;
	}
	if (anon && !exists) {
		/* a new file: its own name straight away, never one that
		 * appeared meanwhile (EEXIST), and no temp name to go again */
		int lr = link_new(fd, dfd, name);
		int e = errno;
		close(fd);
		if (lr < 0 && e == EEXIST)
			*err = xasprintf("'%s' was created by another program while it was being written — nothing "
					 "was written, and that file is left as it is: read it and retry", path);
		else if (lr < 0)
			*err = xasprintf("cannot put '%s' in place: %s — nothing was written", path, strerror(e));
		if (lr < 0)
			goto out;
		*created = in_place = 1;
		r = placed(dfd, &made, path, err);
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
	/* Checked again now the new text is whole and synced, which may have
	 * taken a while (a large file, a slow disk): a change made meanwhile
	 * is not replaced unseen.  What is left is the few system calls
	 * between this read and the rename. */
	if (exists && still_as_shown(c, dfd, name, exists, path, err) < 0) {
		drop_temp(dfd, path, tmp, err);
		goto out;
	}
	if ((exists ? renameat(dfd, tmp, dfd, name) : rename_new(dfd, tmp, name)) < 0) {
		/* a flag set since the check: said as the check says it */
		int e = errno, pfd = -1;
		if (e == EEXIST && !exists) {
			*err = xasprintf("'%s' was created by another program while it was being written — nothing "
					 "was written, and that file is left as it is: read it and retry", path);
			drop_temp(dfd, path, tmp, err);
			goto out;
		}
		const char *fflag = NULL;
		flag = e == EPERM ? flag_refusing(c, dfd, 1) : NULL;
		if (e == EPERM && !flag && exists)
			pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd >= 0) {
			fflag = flag_refusing(c, pfd, 0);
			close(pfd);
		}
		*err = flag ? flag_error(path, flag, 1, exists)
			    : fflag ? flag_error(path, fflag, 0, 1)
			    : xasprintf("cannot put '%s' in place: %s — the file is unchanged", path,
					strerror(e));
		drop_temp(dfd, path, tmp, err);
		goto out;
	}
	*created = !exists;
	in_place = 1;
	r = placed(dfd, &made, path, err);
out:
	/* a failed write leaves no directory it made (the temp file in the
	 * innermost is already gone); one that is in place keeps them */
	if (r < 0 && !in_place)
		fsguard_made_undo(&made);
	else
		fsguard_made_keep(&made);
	free(tmp);
	free(name);
	free(acl);
	free(xbad);
	uxattrs_free(&xs);
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
