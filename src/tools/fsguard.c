/*
 * fsguard.c — resolution of model paths beneath held roots (fsguard.h).
 *
 * Why lexical '..' first: the model's path is matched to a root by its
 * text, so the text must already be the place meant; openat2 with
 * RESOLVE_BENEATH then refuses whatever the kernel would resolve outside
 * (a '..' cannot remain, a symlink is refused by RESOLVE_NO_SYMLINKS, a
 * magic link by RESOLVE_NO_MAGICLINKS).  Roots are held by descriptor,
 * so renaming a granted directory away and putting another in its place
 * changes nothing for a guard already built: it still reaches the
 * directory that was vetted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "tools/fsguard.h"
#include "tools/tools_limits.h"
#include "util/log.h"

struct fsg_root {
	char *path;
	size_t len;
	unsigned access;
	int fd;			/* O_PATH directory, or -1 for a file grant */
	int is_dir;
	dev_t dev;
	ino_t ino;
};

/* A scratch directory (/dev/shm, /tmp) that a grant holds without naming
 * it or a path beneath it: bash gets its own empty tmpfs there
 * (policy_scratch_private), so the tools must not show the host's.  Or
 * an mqueue mount a grant holds (policy.mqueue): bash sees its own
 * queues there, the tools would list the host's.  Or a hugetlbfs mount a
 * grant holds (policy.hugetlbfs): bash sees an empty directory there. */
enum fsg_hide { FSG_HIDE_SCRATCH, FSG_HIDE_MQUEUE, FSG_HIDE_HUGETLBFS };

struct fsg_hidden {
	char *path;
	enum fsg_hide kind;
	int have_id;
	dev_t dev;
	ino_t ino;
};

struct fsguard {
	struct fsg_root *roots;
	size_t n;
	struct fsg_hidden *hidden;
	size_t nhidden;
	char *cwd;
	int no_openat2;
};

#define FSG_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
/* openat2 returns EAGAIN when a concurrent rename may have let a '..'
 * race; retrying is what the man page asks for. */
#define FSG_EAGAIN_RETRIES 16

char *fsguard_normalize(const char *cwd, const char *path)
{
	if (!path || !*path || strlen(path) > TOOLS_MAX_PATH)
		return NULL;
	char *full = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", cwd ? cwd : "/", path);
	size_t n = strlen(full);
	char *out = xmalloc(n + 2);
	size_t o = 0;
	const char *s = full;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, '/');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == 1 && s[0] == '.') {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;	/* drop the slash too */
		} else {
			out[o++] = '/';
			memcpy(out + o, s, len);
			o += len;
		}
		s += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(full);
	return out;
}

static void root_release(struct fsg_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
}

void fsguard_free(struct fsguard *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		root_release(&g->roots[i]);
	free(g->roots);
	for (size_t i = 0; i < g->nhidden; i++)
		free(g->hidden[i].path);
	free(g->hidden);
	free(g->cwd);
	free(g);
}

/*
 * What to say when an open failed for want of a descriptor (EMFILE: this
 * process's open-files limit; ENFILE: the system's table): nothing is
 * wrong with the path then, and the grant must not be blamed.  Malloc'd.
 */
static char *nofile_words(int e)
{
	struct rlimit rl;
	if (e == ENFILE)
		return xstrdup("the system ran out of file descriptors (its table, sysctl fs.file-max, is full): "
			       "end some programs or raise fs.file-max, and try again");
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return xasprintf("sandbx ran out of file descriptors (its open-files limit, ulimit -n, is %llu): "
				 "raise the limit (ulimit -n), or start sandbx holding fewer descriptors open",
				 (unsigned long long)rl.rlim_cur);
	return xstrdup("sandbx ran out of file descriptors: raise the open-files limit (ulimit -n), or start "
		       "sandbx holding fewer descriptors open");
}

static int have_openat2(void)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = FSG_RESOLVE };
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd >= 0) {
		close((int)fd);
		return 1;
	}
	return errno != ENOSYS;
}

/* Hide path sd (kind) from the tools when a directory root holds it. */
static void hide(struct fsguard *g, const char *sd, enum fsg_hide kind)
{
	struct stat st;
	for (size_t j = 0; j < g->n; j++) {
		if (!g->roots[j].is_dir || !path_within(sd, g->roots[j].path))
			continue;
		struct fsg_hidden *h = &g->hidden[g->nhidden++];
		h->path = xstrdup(sd);
		h->kind = kind;
		if (lstat(sd, &st) == 0 && S_ISDIR(st.st_mode)) {
			h->have_id = 1;
			h->dev = st.st_dev;
			h->ino = st.st_ino;
		}
		return;
	}
}

int fsguard_new(const struct policy *p, const char *cwd, unsigned flags, struct fsguard **out, char **err)
{
	struct fsguard *g = xcalloc(1, sizeof(*g));
	char buf[PATH_MAX];

	*out = NULL;
	if (cwd)
		g->cwd = xstrdup(cwd);
	else
		g->cwd = xstrdup(getcwd(buf, sizeof(buf)) ? buf : "/");
	g->no_openat2 = (flags & FSG_NO_OPENAT2) || !have_openat2();
	g->roots = xcalloc(p->ngrants ? p->ngrants : 1, sizeof(*g->roots));
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *pg = &p->grants[i];
		if (pg->link)
			continue;
		struct fsg_root *r = &g->roots[g->n];
		struct stat st;
		r->fd = -1;
		if (pg->is_dir) {
			int fd = open(pg->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
				int e = errno;
				char *why = nofile_words(e);
				*err = xasprintf("cannot open granted directory '%s': %s — %s; nothing was run", pg->path,
						 strerror(e), why);
				free(why);
				goto fail;
			}
			if (fd < 0) {
				*err = xasprintf("granted directory '%s' cannot be opened (%s) — it vanished or was replaced "
						 "after it was checked; nothing was run", pg->path, strerror(errno));
				goto fail;
			}
			if (fstat(fd, &st) < 0 || st.st_dev != pg->dev || st.st_ino != pg->ino) {
				close(fd);
				*err = xasprintf("granted directory '%s' is no longer the directory that was checked (it was "
						 "replaced) — nothing was run; check who changes it and run again", pg->path);
				goto fail;
			}
			r->fd = fd;
		}
		r->path = xstrdup(pg->path);
		r->len = strlen(pg->path);
		r->access = pg->access;
		r->is_dir = pg->is_dir;
		r->dev = pg->dev;
		r->ino = pg->ino;
		g->n++;
		if (!r->is_dir)
			audit(LOG_INFO, "degraded", "mechanism", "fsguard-path", "root", r->path, "reason",
			      "grant names a file: checked path access", NULL);
		else if (g->no_openat2)
			audit(LOG_INFO, "degraded", "mechanism", "fsguard-path", "root", r->path, "reason",
			      "no openat2: checked component walk", NULL);
	}
	g->hidden = xcalloc(POLICY_NSCRATCH + p->mqueue.n + p->hugetlbfs.n, sizeof(*g->hidden));
	for (size_t i = 0; i < POLICY_NSCRATCH; i++)
		if (policy_scratch_private(p, i))
			hide(g, policy_scratch_dirs[i], FSG_HIDE_SCRATCH);
	for (size_t i = 0; i < p->mqueue.n; i++)
		hide(g, p->mqueue.v[i], FSG_HIDE_MQUEUE);
	for (size_t i = 0; i < p->hugetlbfs.n; i++)
		hide(g, p->hugetlbfs.v[i], FSG_HIDE_HUGETLBFS);
	*out = g;
	return 0;
fail:
	fsguard_free(g);
	return -1;
}

const char *fsguard_cwd(const struct fsguard *g)
{
	return g->cwd;
}

/* The innermost root holding abs, or NULL. */
static struct fsg_root *find_root(struct fsguard *g, const char *abs)
{
	struct fsg_root *best = NULL;
	for (size_t i = 0; i < g->n; i++) {
		struct fsg_root *r = &g->roots[i];
		if (path_within(abs, r->path) && (!best || r->len > best->len))
			best = r;
	}
	return best;
}

static const char *rel_of(const struct fsg_root *r, const char *abs)
{
	if (strcmp(abs, r->path) == 0)
		return ".";
	if (r->len == 1)	/* the root "/" */
		return abs + 1;
	return abs + r->len + 1;
}

static char *not_found(const char *path)
{
	return xasprintf("'%s' not found — no such file or directory beneath the granted paths "
			 "(symlinks are not followed)", path);
}

/* Refuse a descriptor that names a symlink (possible with O_PATH|O_NOFOLLOW). */
static int no_link(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
		close(fd);
		return -ELOOP;
	}
	return fd;
}

static int open_beneath(int root, const char *rel, int oflags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(oflags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (oflags & O_CREAT) ? mode : 0,
		.resolve = FSG_RESOLVE,
	};
	for (int i = 0; i < FSG_EAGAIN_RETRIES; i++) {
		long fd = syscall(SYS_openat2, root, rel, &how, sizeof(how));
		if (fd >= 0)
			return (oflags & O_PATH) ? no_link((int)fd) : (int)fd;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

/* Fallback without openat2: one component at a time, never following a
 * link (the text holds no '..' after normalisation). */
static int open_walk(int root, const char *rel, int oflags, mode_t mode)
{
	int cur = root, fd;
	char *dup = xstrdup(rel), *save = NULL;
	char *comp = strtok_r(dup, "/", &save);
	if (!comp || strcmp(rel, ".") == 0) {
		free(dup);
		fd = openat(root, ".", oflags | O_CLOEXEC | O_NOFOLLOW, mode);
		return fd < 0 ? -errno : ((oflags & O_PATH) ? no_link(fd) : fd);
	}
	for (;;) {
		char *next = strtok_r(NULL, "/", &save);
		if (!next) {
			fd = openat(cur, comp, oflags | O_CLOEXEC | O_NOFOLLOW, mode);
			fd = fd < 0 ? -errno : ((oflags & O_PATH) ? no_link(fd) : fd);
			break;
		}
		fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			break;
		}
		if ((fd = no_link(fd)) < 0)
			break;
		if (cur != root)
			close(cur);
		cur = fd;
		comp = next;
	}
	if (cur != root)
		close(cur);
	free(dup);
	return fd;
}

static int root_open(struct fsguard *g, struct fsg_root *r, const char *rel, int oflags, mode_t mode)
{
	return g->no_openat2 ? open_walk(r->fd, rel, oflags, mode) : open_beneath(r->fd, rel, oflags, mode);
}

/*
 * Open the very inode the O_PATH handle pfd holds, through /proc/self/fd,
 * with oflags (never creating), and close pfd.  The descriptor, or
 * -errno: the name was there (pfd), so ENOENT now is a /proc missing, not
 * a file gone, and must not pass for one (EIO).
 */
static int reopen(int pfd, int oflags)
{
	char via[32];
	snprintf(via, sizeof(via), "/proc/self/fd/%d", pfd);
	int fd = open(via, (oflags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC | O_NOCTTY);
	int e = errno == ENOENT ? EIO : errno;
	close(pfd);
	return fd < 0 ? -e : fd;
}

/*
 * Open rel beneath a directory root without opening a device: opening one
 * can act (a watchdog starts its countdown, a tape rewinds, a serial line
 * resets a board), and a granted tree (--allow-read /dev) may hold any.
 * The path is taken as O_PATH first, which opens nothing; only a file that
 * is not a device is then opened, that very inode, through /proc/self/fd.
 */
static int dir_open(struct fsguard *g, struct fsg_root *r, const char *rel, int oflags)
{
	struct stat st;
	if (oflags & O_PATH)
		return root_open(g, r, rel, oflags, 0);
	int pfd = root_open(g, r, rel, O_PATH, 0);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &st) < 0 || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(pfd);
		return -ENODEV;
	}
	/* Nor a FIFO: even a non-blocking open completes the open(2) of a
	 * writer waiting on it, which then writes into a pipe no one reads
	 * (its data is lost, or it dies of SIGPIPE).  No tool reads one. */
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		close(pfd);
		return -ENXIO;
	}
	return reopen(pfd, oflags);
}

int fsguard_open_reg_at(int dfd, const char *name, int oflags)
{
	struct stat st;
	int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISLNK(st.st_mode) ? ELOOP : ENXIO;
		close(pfd);
		return -e;
	}
	return reopen(pfd, oflags & ~O_TRUNC);
}

/* A file grant: open the path itself, then compare the handle with the pin. */
static int file_open(const struct fsg_root *r, int oflags)
{
	/* A file grant has no directory to resolve beneath, so its path is
	 * walked again here, and a parent swapped for a symlink can land
	 * anywhere.  Nothing may happen to what it lands on: take it as
	 * O_PATH (no open side effects, no FIFO wait), compare it with the
	 * pin, and only then open that very inode (through /proc/self/fd)
	 * and truncate it if asked. */
	struct stat st;
	int pfd = open(r->path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || st.st_dev != r->dev || st.st_ino != r->ino || S_ISLNK(st.st_mode)) {
		close(pfd);
		return -ELOOP;	/* replaced since it was vetted: refused like a link */
	}
	/* Asked for a handle that opens nothing (ls describing it): the
	 * vetted one itself */
	if (oflags & O_PATH)
		return pfd;
	/* A grant may name a device (--allow-read /dev/ttyUSB0, which bash
	 * cannot open either: its view mounts every grant nodev).  Never
	 * opened here, as in a granted tree (dir_open). */
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(pfd);
		return -ENODEV;
	}
	int fd = reopen(pfd, oflags & ~O_TRUNC), e;
	if (fd < 0)
		return fd;
	if ((oflags & O_TRUNC) && ftruncate(fd, 0) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	/* Written in place, the file keeps its inode: take its set-id bits
	 * off, which a root caller's write (CAP_FSETID) would leave on. */
	if ((oflags & O_ACCMODE) != O_RDONLY && fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) &&
	    fchmod(fd, st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static const char *want_word(unsigned want)
{
	return (want & POL_WRITE) ? "write" : "read";
}

/* Turn a failed open into the audit record and the model's message. */
static int report_fail(const char *path, const char *abs, int e, unsigned want, char **err)
{
	switch (-e) {
	case ENOENT:
	case ENOTDIR:
		audit(LOG_INFO, "absent", "path", abs, "access", want_word(want), NULL);
		*err = not_found(path);
		return -ENOENT;
	case ELOOP:
	case EXDEV:
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason",
		      e == -ELOOP ? "symlink or replaced object" : "escapes its root", NULL);
		*err = not_found(path);
		return -ENOENT;
	case ENODEV:
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", "a device", NULL);
		/* bash is no way round: every grant is mounted nodev in its
		 * view, which holds only its own null, zero, full, random,
		 * urandom and tty */
		*err = xasprintf("'%s' is a device: the tools do not open devices (opening one can act on it), and "
				 "bash cannot open it either (granted paths are mounted without devices; bash has "
				 "only /dev/null, zero, full, random, urandom and tty)", path);
		return e;
	case ENXIO:	/* a FIFO or a unix socket's name (never opened: dir_open) */
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", "socket or FIFO", NULL);
		*err = xasprintf("'%s' is a FIFO or a socket, not a regular file: the tools do not open those "
				 "(opening a FIFO would act on whoever writes to it)", path);
		return e;
	case EMFILE:
	case ENFILE: {	/* nothing to do with the path: say what ran out */
		char *why = nofile_words(-e);
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", "out of file descriptors",
		      NULL);
		*err = xasprintf("cannot open '%s': %s — %s", path, strerror(-e), why);
		free(why);
		return e;
	}
	case EACCES:
	case EPERM:	/* the file's mode: what to look at, as open(2) does not say */
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", strerror(-e), NULL);
		*err = xasprintf("cannot open '%s': %s — its mode (or a directory's on the way) does not let the user "
				 "sandbx runs as %s it: check it with bash (ls -ld)", path, strerror(-e), want_word(want));
		return e;
	default:
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", strerror(-e), NULL);
		*err = xasprintf("cannot open '%s': %s", path, strerror(-e));
		return e;
	}
}

/* Normalise, find the root, check its rights.  NULL root: *err is set. */
static struct fsg_root *match(struct fsguard *g, const char *path, unsigned want, char **abs, int *rc, char **err)
{
	*abs = fsguard_normalize(g->cwd, path);
	if (!*abs) {
		*err = xstrdup(path && *path ? "path is too long — name a shorter path"
					      : "path is empty — give a file or directory path");
		*rc = -EINVAL;
		return NULL;
	}
	struct fsg_root *r = find_root(g, *abs);
	if (!r) {
		audit(LOG_INFO, "denied", "path", *abs, "access", want_word(want), "reason", "outside the grants", NULL);
		*err = not_found(path);
		*rc = -ENOENT;
		return NULL;
	}
	for (size_t i = 0; i < g->nhidden; i++) {
		if (!path_within(*abs, g->hidden[i].path))
			continue;
		enum fsg_hide kind = g->hidden[i].kind;
		audit(LOG_INFO, "denied", "path", *abs, "access", want_word(want), "reason",
		      kind == FSG_HIDE_MQUEUE	   ? "the host's message queues"
		      : kind == FSG_HIDE_HUGETLBFS ? "the machine's huge pages"
						   : "private to each bash call",
		      NULL);
		if (kind == FSG_HIDE_MQUEUE)
			*err = xasprintf("'%s' not found — %s holds the host's POSIX message queues, which bash does "
					 "not see (it sees its own there), so the tools do not show them either (the "
					 "user can grant %s itself to share them)", path, g->hidden[i].path,
					 g->hidden[i].path);
		else if (kind == FSG_HIDE_HUGETLBFS)
			*err = xasprintf("'%s' not found — %s is a hugetlbfs mount (the machine's huge pages), where "
					 "mapping a file takes pages of the pool that outlast the run: bash sees an "
					 "empty directory there, and the tools do not show it either", path,
					 g->hidden[i].path);
		else
			*err = xasprintf("'%s' not found — %s is not the host's here: bash gets an empty one of its own "
					 "for each call, so the tools do not show the host's (the user can grant %s itself "
					 "to share it)", path, g->hidden[i].path, g->hidden[i].path);
		*rc = -ENOENT;
		return NULL;
	}
	/* These tools run in the harness: its /proc is the host's (every
	 * process, their maps, kallsyms), not the sandbox's own that a
	 * --allow-read /proc shows the bash tool. */
	if (path_within(*abs, "/proc")) {
		audit(LOG_INFO, "denied", "path", *abs, "access", want_word(want), "reason", "the host's /proc", NULL);
		*err = xasprintf("'%s' is in /proc, which this tool would read outside the sandbox, from the host — "
				 "use the bash tool: its /proc is the sandbox's own", path);
		*rc = -EACCES;
		return NULL;
	}
	if ((r->access & want) != want) {
		audit(LOG_INFO, "denied", "path", *abs, "access", want_word(want), "reason", "right not granted", NULL);
		*err = xasprintf("'%s' is not %s: the granted path '%s' has no %s right — the user can grant it "
				 "with --allow-%s", path, (want & POL_WRITE) ? "writable" : "readable", r->path,
				 want_word(want), want_word(want));
		*rc = -EACCES;
		return NULL;
	}
	return r;
}

int fsguard_open(struct fsguard *g, const char *path, int oflags, unsigned want, char **abs_out, char **err)
{
	char *abs = NULL;
	int fd, try_only = !!(want & FSGUARD_TRY);

	want &= ~FSGUARD_TRY;
	if (abs_out)
		*abs_out = NULL;
	if (oflags & O_CREAT) {
		*err = xstrdup("internal: fsguard_open does not create files");
		return -EINVAL;
	}
	struct fsg_root *r = match(g, path, want, &abs, &fd, err);
	if (!r) {
		free(abs);
		return fd;
	}
	if (r->is_dir)
		fd = dir_open(g, r, rel_of(r, abs), oflags);
	else
		fd = strcmp(abs, r->path) == 0 ? file_open(r, oflags) : -ENOTDIR;
	if (fd < 0 && try_only && fd == -EACCES) {
		*err = xasprintf("cannot open '%s': %s", path, strerror(-fd));
		free(abs);
		return fd;
	}
	if (fd < 0) {
		fd = report_fail(path, abs, fd, want, err);
		free(abs);
		return fd;
	}
	/* A proc mounted under another name inside a grant is the host's
	 * too (match() refuses /proc by name). */
	if (fsguard_is_proc(fd)) {
		close(fd);
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason", "the host's /proc", NULL);
		*err = xasprintf("'%s' is on a proc filesystem, which this tool would read outside the sandbox, from "
				 "the host — use the bash tool", path);
		free(abs);
		return -EACCES;
	}
	audit(LOG_DEBUG, "allowed", "path", abs, "access", want_word(want), NULL);
	if (abs_out)
		*abs_out = abs;
	else
		free(abs);
	return fd;
}

void fsguard_made_keep(struct fsguard_made *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].own)
			close(m->v[i].dfd);
		free(m->v[i].name);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

void fsguard_made_undo(struct fsguard_made *m)
{
	struct stat st;
	/* Each by the descriptor it was made in: a path would find whatever
	 * is there now.  A directory another program has since put something
	 * in stays (ENOTEMPTY), with the ones around it; one replaced by
	 * another of the same name is not ours (dev, ino). */
	for (size_t i = m->n; i-- > 0;) {
		const struct fsguard_made_dir *d = &m->v[i];
		if (fstatat(d->dfd, d->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_dev == d->dev && st.st_ino == d->ino)
			(void)unlinkat(d->dfd, d->name, AT_REMOVEDIR);
	}
	fsguard_made_keep(m);
}

int fsguard_sync_dirs(int dfd, const struct fsguard_made *m)
{
	int e = dir_sync(dfd);
	/* innermost first: each made directory's parent holds its name */
	for (size_t i = m ? m->n : 0; !e && i-- > 0;)
		e = dir_sync(m->v[i].dfd);
	return e;
}

static int open_dir_at(struct fsguard *g, int dfd, const char *name)
{
	return g->no_openat2 ? open_walk(dfd, name, O_PATH | O_DIRECTORY, 0)
			     : open_beneath(dfd, name, O_PATH | O_DIRECTORY, 0);
}

/* Whether another directory root lacking a right of want exists: only
 * then must a path's directories be told apart by identity (weaker_at). */
static int has_weaker(const struct fsguard *g, const struct fsg_root *r, unsigned want)
{
	for (size_t i = 0; i < g->n; i++)
		if (&g->roots[i] != r && g->roots[i].is_dir && (g->roots[i].access & want) != want)
			return 1;
	return 0;
}

/* The directory root lacking a right of want that the directory fd is,
 * or NULL.  A root is matched to a path by its name, but the same
 * directory can have another name beneath a root that has the right: a
 * case-insensitive filesystem's RO for a read-only grant's ro (bash's
 * lookup of RO lands on ro's mount, read-only; the tools' on the
 * directory itself), or a bind mount of it. */
static const struct fsg_root *weaker_at(const struct fsguard *g, const struct fsg_root *r, int fd, unsigned want)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return r;	/* cannot tell: fail closed (the caller refuses) */
	for (size_t i = 0; i < g->n; i++) {
		const struct fsg_root *q = &g->roots[i];
		if (q != r && q->is_dir && (q->access & want) != want && q->dev == st.st_dev && q->ino == st.st_ino)
			return q;
	}
	return NULL;
}

/* Open (creating when made is given) each directory of rel beneath root,
 * one component at a time.  A directory made here is noted in made with
 * the descriptor of the one it was made in, which stays open for that;
 * on failure what was made is removed again, and *to_make says how many
 * the path lacked from the first one made (0: none was).  Each directory
 * on the way is checked not to be a root lacking a right of want (*weak
 * then names it, and -EROFS is returned) before anything is made in it. */
static int open_dirs(struct fsguard *g, struct fsg_root *r, const char *rel, struct fsguard_made *made,
		     unsigned want, const struct fsg_root **weak, size_t *to_make)
{
	*weak = NULL;
	*to_make = 0;
	if (strcmp(rel, ".") == 0 || (!made && !has_weaker(g, r, want)))
		return root_open(g, r, rel, O_PATH | O_DIRECTORY, 0);
	int cur = r->fd, held = 1, fd = -ENOENT;	/* held: cur is r->fd, or made keeps it */
	char *dup = xstrdup(rel), *save = NULL;
	size_t ncomp = 1, idx = 0, first_made = (size_t)-1;
	for (const char *q = rel; (q = strchr(q, '/')); q++)
		ncomp++;
	for (char *c = strtok_r(dup, "/", &save); c; c = strtok_r(NULL, "/", &save), idx++) {
		fd = open_dir_at(g, cur, c);
		if (fd == -ENOENT && made) {
			struct stat st;
			if (mkdirat(cur, c, 0777) == 0) {
				if (first_made == (size_t)-1)
					first_made = idx;
				if (fstatat(cur, c, &st, AT_SYMLINK_NOFOLLOW) < 0) {
					fd = -errno;
					(void)unlinkat(cur, c, AT_REMOVEDIR);
					break;
				}
				made->v = xrealloc(made->v, (made->n + 1) * sizeof(*made->v));
				made->v[made->n++] = (struct fsguard_made_dir){
					.dfd = cur, .own = cur != r->fd, .name = xstrdup(c),
					.dev = st.st_dev, .ino = st.st_ino,
				};
				held = 1;
			} else if (errno != EEXIST) {	/* EEXIST: made meanwhile, not ours */
				fd = -errno;
				break;
			}
			fd = open_dir_at(g, cur, c);
		}
		if (fd < 0)
			break;
		if (!held)
			close(cur);
		cur = fd;
		held = 0;
		if ((*weak = weaker_at(g, r, fd, want))) {
			fd = -EROFS;
			break;
		}
	}
	if (fd < 0) {
		if (!held)
			close(cur);
		if (made)
			fsguard_made_undo(made);
		if (first_made != (size_t)-1)
			*to_make = ncomp - first_made;
	}
	free(dup);
	return fd;
}

int fsguard_open_parent(struct fsguard *g, const char *path, unsigned want, struct fsguard_made *made, char **name,
			char **err)
{
	char *abs = NULL;
	int fd;

	*name = NULL;
	struct fsg_root *r = match(g, path, want, &abs, &fd, err);
	if (!r) {
		free(abs);
		return fd;
	}
	if (strcmp(abs, r->path) == 0) {
		*err = r->is_dir ? xasprintf("'%s' is a directory — name a file inside it", path)
				 : xstrdup("internal: a file grant has no parent to write in");
		free(abs);
		return r->is_dir ? -EISDIR : -EXDEV;
	}
	if (!r->is_dir) {
		/* beneath a file: nothing can be there */
		fd = report_fail(path, abs, -ENOTDIR, want, err);
		free(abs);
		return fd;
	}
	const char *rel = rel_of(r, abs);
	const char *slash = strrchr(rel, '/');
	char *dir = slash ? xstrndup(rel, (size_t)(slash - rel)) : xstrdup(".");
	const struct fsg_root *weak;
	size_t to_make;
	fd = open_dirs(g, r, dir, made, want, &weak, &to_make);
	free(dir);
	if (fd == -EMFILE && to_make) {
		/* The limit was not reached by what sandbx held but by the
		 * path: each directory made is held (its undo) until the file
		 * is in place */
		struct rlimit rl;
		char lim[32] = "lower than that";
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "%llu", (unsigned long long)rl.rlim_cur);
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason",
		      "out of file descriptors", NULL);
		*err = xasprintf("cannot make the directories of '%s': %s — the write holds a descriptor "
				 "for each directory it makes (%zu here) and sandbx's open-files limit "
				 "(ulimit -n) is %s: make them with bash first (mkdir -p), or raise the "
				 "limit; those it made were removed again", path, strerror(EMFILE), to_make,
				 lim);
		free(abs);
		return -EMFILE;
	}
	if (fd == -EROFS && weak) {
		audit(LOG_INFO, "denied", "path", abs, "access", want_word(want), "reason",
		      "a granted directory without the right, by another name", "root", weak->path, NULL);
		*err = xasprintf("'%s' is not %s: it lies in the granted path '%s', reached here by another name, "
				 "which has no %s right — the user can grant it with --allow-%s", path,
				 (want & POL_WRITE) ? "writable" : "readable", weak->path, want_word(want), want_word(want));
		free(abs);
		return -EACCES;
	}
	if (fd < 0) {
		fd = report_fail(path, abs, fd, want, err);
		free(abs);
		return fd;
	}
	*name = xstrdup(slash ? slash + 1 : rel);
	audit(LOG_DEBUG, "allowed", "path", abs, "access", want_word(want), NULL);
	free(abs);
	return fd;
}

int fsguard_is_hidden(const struct fsguard *g, int fd)
{
	struct stat st;
	if (!g->nhidden || fstat(fd, &st) < 0)
		return 0;
	for (size_t i = 0; i < g->nhidden; i++)
		if (g->hidden[i].have_id && st.st_dev == g->hidden[i].dev && st.st_ino == g->hidden[i].ino)
			return 1;
	return 0;
}

int fsguard_is_proc(int fd)
{
	struct statfs sf;
	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}
