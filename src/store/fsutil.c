#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "store/fsutil.h"

void fsu_mode_str(mode_t m, char out[8])
{
	snprintf(out, 8, "%04o", (unsigned)(m & 07777));
}

void fsu_random_name(char *buf, size_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[64];
	size_t got = 0;
	while (got < n) {
		size_t want = n - got < sizeof(r) ? n - got : sizeof(r);
		ssize_t k = getrandom(r, want, 0);
		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			abort();	/* getrandom cannot fail for short reads after boot */
		}
		/* 36 letters: reject the top bytes so each is equally likely. */
		for (ssize_t i = 0; i < k && got < n; i++)
			if (r[i] < 252)
				buf[got++] = alphabet[r[i] % 36];
	}
}

/*
 * dirfd/name, a directory just made with mkdirat, gets FSU_DIR_MODE
 * whatever the umask: one that takes the owner's own bits (umask 0777 made
 * it 0000, 0277 0500) leaves a directory its owner cannot enter or write,
 * and sandbx's modes are its own.  Not followed when a link took its
 * place (glibc then refuses); a kernel without /proc to do that goes by
 * the name.  0, or -1 with *err.
 */
static int made_dir_mode(int dirfd, const char *name, const char *display, char **err)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) == FSU_DIR_MODE)
		return 0;	/* what opens it next says what is wrong */
	int r = fchmodat(dirfd, name, FSU_DIR_MODE, AT_SYMLINK_NOFOLLOW);
	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOTSUP)) {
		struct stat again;
		if (fstatat(dirfd, name, &again, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(again.st_mode) &&
		    again.st_ino == st.st_ino && again.st_dev == st.st_dev)
			r = fchmodat(dirfd, name, FSU_DIR_MODE, 0);
	}
	if (r < 0) {
		/* (the umask is not read back: setting it to read it would
		 * widen what another thread creates meanwhile) */
		int e = errno;
		char was[8];
		fsu_mode_str(st.st_mode, was);
		*err = xasprintf("cannot give the new directory '%s' mode 0700 (the umask made it %s): %s — set a "
				 "umask that keeps your own bits (umask 077) and try again", display, was, strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * A directory was just made in dirfd (display: its path): its name there,
 * and so what sandbx then puts in it, survives a crash or a power loss
 * only once dirfd is synced.  0, or -1 with *err.
 */
static int made_dir_synced(int dirfd, const char *display, char **err)
{
	int e = dir_sync(dirfd);
	if (!e)
		return 0;
	*err = xasprintf("made the directory '%s', but the directory holding it could not be synced to disk: %s — "
			 "nothing was put in it yet: check the filesystem (dmesg), then try again", display, strerror(e));
	errno = e;
	return -1;
}

int fsu_open_base(const char *path, unsigned flags, char **err)
{
	if (!path || path[0] != '/') {
		*err = xasprintf("'%s' is not an absolute path — set the XDG variables to absolute paths", path ? path : "");
		errno = EINVAL;
		return -1;
	}
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("cannot open '/': %s", strerror(errno));
		return -1;
	}
	char *dup = xstrdup(path), *save = NULL;
	for (char *c = strtok_r(dup, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && (flags & FSU_CREATE)) {
			int made = mkdirat(fd, c, FSU_DIR_MODE) == 0;
			char *sub = made ? xasprintf("%.*s", (int)(c - dup + strlen(c)), path) : NULL;
			int bad = (!made && errno != EEXIST) ||
				  (made && (made_dir_mode(fd, c, path, err) < 0 || made_dir_synced(fd, sub, err) < 0));
			int e = errno;
			free(sub);
			if (bad) {
				if (!made)
					*err = xasprintf("cannot create a directory on the way to '%s': %s", path,
							 strerror(e));
				close(fd);
				free(dup);
				errno = e;
				return -1;
			}
			next = openat(fd, c, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno;
			*err = xasprintf("cannot open the directory '%s': %s", path, strerror(e));
			close(fd);
			free(dup);
			errno = e;
			return -1;
		}
		close(fd);
		fd = next;
	}
	free(dup);
	return fd;
}

char *fsu_open_error(int dirfd, const char *name, const char *display, const char *what, int e, mode_t want)
{
	struct stat st;
	char *msg;
	if (e == EACCES && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == geteuid() &&
	    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		char m[8];
		fsu_mode_str(st.st_mode, m);
		msg = xasprintf("cannot open %s'%s' (mode %s): %s — it is yours and sandbx's own: chmod %o '%s'", what,
				display, m, strerror(e), (unsigned)want, display);
	} else {
		msg = xasprintf("cannot open %s'%s': %s", what, display, strerror(e));
	}
	errno = e;
	return msg;
}

void fsu_advise(char **err, const char *advice)
{
	int e = errno;
	if (*err && !strstr(*err, " — ")) {
		char *was = *err;
		*err = xasprintf("%s — %s", was, advice);
		free(was);
	}
	errno = e;
}

int fsu_check_owner(const struct stat *st, const char *display, char **err)
{
	if (st->st_uid == geteuid())
		return 0;
	*err = xasprintf("'%s' is owned by uid %u, not by you (uid %u) — sandbx uses only files and directories you own; "
			 "remove it or point XDG_STATE_HOME/XDG_CONFIG_HOME elsewhere",
			 display, (unsigned)st->st_uid, (unsigned)geteuid());
	errno = EPERM;
	return -1;
}

int fsu_open_subdir(int dirfd, const char *name, const char *display, unsigned flags, struct stat *st,
		    struct strv *notes, char **err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (flags & FSU_CREATE)) {
		int made = mkdirat(dirfd, name, FSU_DIR_MODE) == 0;
		if (!made && errno != EEXIST) {
			int e = errno;
			*err = xasprintf("cannot create the directory '%s': %s", display, strerror(e));
			errno = e;
			return -1;
		}
		if (made && (made_dir_mode(dirfd, name, display, err) < 0 || made_dir_synced(dirfd, display, err) < 0))
			return -1;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP || e == ENOTDIR)
			*err = xasprintf("'%s' is a symbolic link or not a directory — sandbx keeps its state only in a real "
					 "directory; move it away", display);
		else
			*err = fsu_open_error(dirfd, name, display, "the directory ", e, FSU_DIR_MODE);
		errno = e;
		return -1;
	}
	if (fstat(fd, st) < 0) {
		int e = errno;
		*err = xasprintf("cannot stat the directory '%s': %s", display, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (fsu_check_owner(st, display, err) < 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if ((flags & FSU_NARROW) && (st->st_mode & 077)) {
		char was[8];
		fsu_mode_str(st->st_mode, was);
		if (fchmod(fd, FSU_DIR_MODE) < 0 || fstat(fd, st) < 0) {
			int e = errno;
			*err = xasprintf("cannot narrow the directory '%s' (mode %s) to 0700: %s — chmod 700 it yourself",
					 display, was, strerror(e));
			close(fd);
			errno = e;
			return -1;
		}
		if (notes)
			strv_push_own(notes, xasprintf("narrowed '%s' from mode %s to 0700: it is sandbx's own directory",
						       display, was));
	}
	return fd;
}

/* "cannot WHAT 'display': why" and what to do about a full disk or a limit. */
static char *io_error(const char *what, const char *display, int e)
{
	return xasprintf("cannot %s '%s': %s%s", what, display, strerror(e),
			 e == EFBIG ? " — a file size limit (ulimit -f) was hit; raise it and try again"
			 : (e == ENOSPC || e == EDQUOT) ? " — free some disk space and try again" : "");
}

/*
 * A temporary file ".name.XXXXXXXX" in dirfd, created 0600 with O_EXCL,
 * holding the n bytes of buf, fsync'ed.  Its descriptor (O_WRONLY|O_APPEND)
 * and name in *tmp, or -1 with *err and nothing left behind.
 */
static int temp_with(int dirfd, const char *name, const char *display, const void *buf, size_t n, char **tmp,
		     char **err)
{
	char rnd[FSU_TEMP_SUFFIX + 1];
	int fd = -1;
	*tmp = NULL;
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		fsu_random_name(rnd, FSU_TEMP_SUFFIX);
		rnd[FSU_TEMP_SUFFIX] = '\0';
		free(*tmp);
		*tmp = xasprintf(".%s.%s", name, rnd);
		fd = openat(dirfd, *tmp, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			    FSU_FILE_MODE);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = xasprintf("cannot create a temporary file beside '%s': %s", display, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	/* 0600 whatever the umask: one that takes the owner's bits (0777)
	 * made it 0000, and the rename then replaced the old file (an old
	 * key) with one its owner cannot read. */
	const char *what = "chmod";
	if (fchmod(fd, FSU_FILE_MODE) < 0)
		goto fail;
	what = "write";
	sigset_t mask;
	xfsz_block(&mask);
	int wr = write_all(fd, buf, n);
	int we = errno;
	xfsz_restore(&mask);
	errno = we;
	if (wr == 0) {
		what = "fsync";
		if (fsync(fd) == 0)
			return fd;
	}
fail:;
	int e = errno;
	*err = io_error(what, display, e);
	close(fd);
	unlinkat(dirfd, *tmp, 0);
	free(*tmp);
	*tmp = NULL;
	errno = e;
	return -1;
}

/* Remove each regular file of dirfd named as a temporary file (".NAME."
 * and the suffix, NAME not empty) that gone(NAME, its length, its stat,
 * ud) picks.  How many went. */
static int sweep(int dirfd, int (*gone)(const char *name, size_t len, const struct stat *st, const void *ud),
		 const void *ud)
{
	int n = 0, d = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *ds = d >= 0 ? fdopendir(d) : NULL;
	if (!ds) {
		if (d >= 0)
			close(d);
		return 0;
	}
	for (struct dirent *e; (e = readdir(ds)) != NULL;) {
		size_t len = strlen(e->d_name);
		const char *r = e->d_name + len - FSU_TEMP_SUFFIX;
		struct stat st;
		if (e->d_name[0] != '.' || len < FSU_TEMP_SUFFIX + 3 || r[-1] != '.' ||
		    strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789") != FSU_TEMP_SUFFIX)
			continue;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    gone(e->d_name + 1, len - FSU_TEMP_SUFFIX - 2, &st, ud) && unlinkat(dirfd, e->d_name, 0) == 0)
			n++;
	}
	closedir(ds);
	return n;
}

struct old_temps {
	int (*keep)(const char *name, size_t len);
	time_t before;		/* modified at or before; 0: any */
};

static int old_temp(const char *name, size_t len, const struct stat *st, const void *ud)
{
	const struct old_temps *o = ud;
	return o->keep(name, len) && (!o->before || st->st_mtime <= o->before);
}

int fsu_sweep_temps(int dirfd, int (*keep)(const char *name, size_t len), time_t min_age)
{
	struct old_temps o = { keep, min_age > 0 ? time(NULL) - min_age : 0 };
	return sweep(dirfd, old_temp, &o);
}

struct temp_link {
	const char *name;
	const struct stat *st;
};

static int temp_link(const char *name, size_t len, const struct stat *st, const void *ud)
{
	const struct temp_link *t = ud;
	return len == strlen(t->name) && memcmp(name, t->name, len) == 0 && st->st_dev == t->st->st_dev &&
	       st->st_ino == t->st->st_ino;
}

int fsu_drop_temp_links(int dirfd, const char *name, const struct stat *st)
{
	struct temp_link t = { name, st };
	return sweep(dirfd, temp_link, &t);
}

char *fsu_links_advice(const char *display)
{
	return xasprintf("remove the other links (find \"$(stat -c %%m '%s')\" -xdev -samefile '%s' lists them)",
			 display, display);
}

/* The rename or link is durable only once the directory is synced: 0,
 * or FSU_UNSYNCED with *err saying that the file is in place all the
 * same (not "cannot": the caller must not say nothing changed). */
static int placed_synced(int dirfd, const char *display, char **err)
{
	int e = dir_sync(dirfd);
	if (!e)
		return 0;
	*err = xasprintf("'%s' is in place, but its directory could not be synced to disk: %s — a crash or power "
			 "loss may still undo that: check the filesystem (dmesg)", display, strerror(e));
	errno = e;
	return FSU_UNSYNCED;
}

int fsu_write_atomic(int dirfd, const char *name, const char *display, const void *buf, size_t n, char **err)
{
	char *tmp;
	int fd = temp_with(dirfd, name, display, buf, n, &tmp, err);
	if (fd < 0)
		return -1;
	const char *what = "close";
	int r = close(fd);
	if (r == 0) {
		what = "rename";
		r = renameat(dirfd, tmp, dirfd, name);
	}
	if (r < 0) {
		int e = errno;
		*err = io_error(what, display, e);
		unlinkat(dirfd, tmp, 0);
		free(tmp);
		errno = e;
		return -1;
	}
	free(tmp);
	return placed_synced(dirfd, display, err);
}

/*
 * The create's name is in place but its directory could not be synced
 * (placed_synced said so in *err): take the name away again, so a command
 * that fails leaves no file of its own making behind.  Nothing else is
 * touched: only the file fd is, under name, goes.  -1 with *err saying
 * nothing was created; FSU_UNSYNCED with *err as it was when the name
 * is not fd's or cannot be removed.
 */
static int unplace(int dirfd, const char *name, const char *display, int fd, char **err)
{
	int e = errno;
	struct stat mine, now;
	if (fstat(fd, &mine) < 0 || fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    mine.st_dev != now.st_dev || mine.st_ino != now.st_ino || unlinkat(dirfd, name, 0) < 0) {
		errno = e;
		return FSU_UNSYNCED;
	}
	free(*err);
	/* The removal is no more durable than the create was: said. */
	*err = xasprintf("cannot create '%s': its directory could not be synced to disk: %s — the new file was "
			 "removed again%s: check the filesystem (dmesg), then try again", display, strerror(e),
			 dir_sync(dirfd) ? " (a crash may still bring it back)" : "");
	errno = e;
	return -1;
}

int fsu_create_with(int dirfd, const char *name, const char *display, const void *buf, size_t n, char **err)
{
	char *tmp;
	int fd = temp_with(dirfd, name, display, buf, n, &tmp, err);
	if (fd < 0)
		return -1;
	/* Locked before anyone can find it under its name. */
	flock(fd, LOCK_EX | LOCK_NB);
	/* Renamed without replacing; a filesystem that cannot do that
	 * (EINVAL) may still link, and one without hard links (vfat: EPERM)
	 * rename.  The last resort replaces nothing either: name was free a
	 * moment ago, and a file that appeared meanwhile is refused. */
	int r = renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE), e = errno;
	if (r < 0 && e == EINVAL) {
		r = linkat(dirfd, tmp, dirfd, name, 0);
		e = errno;
		if (r < 0 && (e == EPERM || e == EOPNOTSUPP)) {
			if (faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
				e = EEXIST;
			else
				r = renameat(dirfd, tmp, dirfd, name), e = errno;
		}
		unlinkat(dirfd, tmp, 0);
	} else if (r < 0) {
		unlinkat(dirfd, tmp, 0);
	}
	free(tmp);
	if (r < 0) {
		*err = e == EEXIST ? xasprintf("'%s' exists already", display) : io_error("create", display, e);
		close(fd);
		errno = e;
		return -1;
	}
	r = placed_synced(dirfd, display, err);
	if (r < 0)
		r = unplace(dirfd, name, display, fd, err);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int fsu_read_all(int fd, size_t cap, const char *display, char **out, size_t *n, char **err)
{
	/* Room for cap + 1 bytes: reading the extra one means too large. */
	size_t len = 0, size = cap + 1 < 4096 ? cap + 1 : 4096;
	char *b = xmalloc(size + 1);
	for (;;) {
		if (len > cap) {
			free(b);
			*err = xasprintf("'%s' is larger than %zu bytes — it is not a file sandbx wrote", display, cap);
			errno = EFBIG;
			return -1;
		}
		if (len == size) {
			size = size * 2 > cap + 1 ? cap + 1 : size * 2;
			b = xrealloc(b, size + 1);
		}
		ssize_t k = read(fd, b + len, size - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(b);
			*err = xasprintf("cannot read '%s': %s", display, strerror(e));
			errno = e;
			return -1;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	b[len] = '\0';
	*out = b;
	*n = len;
	return 0;
}
