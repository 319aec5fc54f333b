/* test_fsguard.c — FsGuard: lexical normalisation, resolution beneath held
 * roots, the uniform "not found", rights, swapped roots, file grants and
 * the no-openat2 fallback. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "tools/fsguard.h"
#include "util/log.h"
#include "tools_testutil.h"

struct fx {
	char *dir;		/* scratch */
	char *root;		/* dir/root: granted read+write */
	struct policy p;
	struct fsguard *g;
};

/*
 * dir/root/a.txt          "inside"
 * dir/root/sub/b.txt      "bee"
 * dir/root/ro/c.txt       read-only inner grant
 * dir/root/link_in  -> a.txt
 * dir/root/link_out -> ../outside.txt
 * dir/root/dirlink  -> sub
 * dir/outside.txt         "secret"
 * dir/file.txt            granted as a file
 */
static struct fx *fx_new(unsigned flags)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char *err = NULL;
	f->dir = tt_setup();
	tt_dir(f->dir, "root");
	tt_dir(f->dir, "root/sub");
	tt_dir(f->dir, "root/ro");
	tt_file(f->dir, "root/a.txt", "inside");
	tt_file(f->dir, "root/sub/b.txt", "bee");
	tt_file(f->dir, "root/ro/c.txt", "sea");
	tt_link(f->dir, "root/link_in", "a.txt");
	tt_link(f->dir, "root/link_out", "../outside.txt");
	tt_link(f->dir, "root/dirlink", "sub");
	tt_file(f->dir, "outside.txt", "secret");
	tt_file(f->dir, "file.txt", "filegrant");
	f->root = tt_path(f->dir, "root");
	policy_init(&f->p);
	char *ro = tt_path(f->dir, "root/ro"), *fg = tt_path(f->dir, "file.txt");
	assert_int_equal(policy_add_grant(&f->p, f->root, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(policy_add_grant(&f->p, ro, POL_READ, &err), 0);
	assert_int_equal(policy_add_grant(&f->p, fg, POL_READ | POL_WRITE, &err), 0);
	free(ro);
	free(fg);
	assert_int_equal(fsguard_new(&f->p, f->root, flags, &f->g, &err), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	fsguard_free(f->g);
	policy_release(&f->p);
	free(f->root);
	tt_teardown(f->dir);
	free(f);
}

/* Open path for reading; return its content (malloc'd) or NULL with *rc. */
static char *rd(struct fsguard *g, const char *path, int *rc, char **err)
{
	char buf[256];
	*err = NULL;
	int fd = fsguard_open(g, path, O_RDONLY, POL_READ, NULL, err);
	*rc = fd < 0 ? fd : 0;
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	return xstrndup(buf, (size_t)n);
}

/* The message with the quoted path removed: "not found" must read the same
 * whatever the reason. */
static char *msg_shape(const char *err, const char *path)
{
	char *q = xasprintf("'%s'", path);
	const char *at = strstr(err, q);
	assert_non_null(at);
	char *s = xasprintf("%.*s%s", (int)(at - err), err, at + strlen(q));
	free(q);
	return s;
}

static void fsg_normalize(void **state)
{
	struct { const char *cwd, *in, *out; } c[] = {
		{ "/w", "a/b", "/w/a/b" },
		{ "/w", "./a//b/", "/w/a/b" },
		{ "/w", "../x", "/x" },
		{ "/w", "a/../../../../etc", "/etc" },
		{ "/w", "/abs/./p/..", "/abs" },
		{ "/w", "..", "/" },
		{ "/", "/", "/" },
		{ "/w/r", "sub/../../r2/f", "/w/r2/f" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(c); i++) {
		char *n = fsguard_normalize(c[i].cwd, c[i].in);
		assert_non_null(n);
		assert_string_equal(n, c[i].out);
		free(n);
	}
	assert_null(fsguard_normalize("/w", ""));
	char *longp = xmalloc(8000);
	memset(longp, 'a', 7999);
	longp[7999] = '\0';
	assert_null(fsguard_normalize("/w", longp));
	free(longp);
}

static void check_inside(struct fsguard *g)
{
	int rc;
	char *err, *s = rd(g, "a.txt", &rc, &err);
	assert_non_null(s);
	assert_string_equal(s, "inside");
	free(s);
	s = rd(g, "sub/b.txt", &rc, &err);
	assert_non_null(s);
	assert_string_equal(s, "bee");
	free(s);
}

/* Each of these names an existing object that must not be reached; each
 * answer must be the same "not found" an absent path gets. */
static void check_refusals(struct fx *f)
{
	const char *bad[] = {
		"../outside.txt",		/* '..' escape */
		"sub/../../outside.txt",	/* '..' escape through a real directory */
		"link_out",			/* last component: a link pointing out */
		"link_in",			/* last component: a link pointing in */
		"dirlink/b.txt",		/* a link in the middle */
		"/etc/passwd",			/* absolute, outside every root */
	};
	int rc;
	char *err, *absent_shape;
	assert_null(rd(f->g, "no-such-file", &rc, &err));
	assert_int_equal(rc, -ENOENT);
	absent_shape = msg_shape(err, "no-such-file");
	free(err);
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *s = rd(f->g, bad[i], &rc, &err);
		if (s)
			fail_msg("'%s' was reached: %s", bad[i], s);
		assert_int_equal(rc, -ENOENT);
		char *shape = msg_shape(err, bad[i]);
		assert_string_equal(shape, absent_shape);
		free(shape);
		free(err);
	}
	/* the outside file by its absolute path too */
	char *abs = tt_path(f->dir, "outside.txt");
	assert_null(rd(f->g, abs, &rc, &err));
	assert_int_equal(rc, -ENOENT);
	free(err);
	free(abs);
	free(absent_shape);
}

static void fsg_inside_and_refusals(void **state)
{
	struct fx *f = fx_new(0);
	check_inside(f->g);
	check_refusals(f);
	fx_free(f);
}

static void fsg_fallback_without_openat2(void **state)
{
	struct fx *f = fx_new(FSG_NO_OPENAT2);
	check_inside(f->g);
	check_refusals(f);
	char *name = NULL, *err = NULL;
	struct fsguard_made made = { 0 };
	int fd = fsguard_open_parent(f->g, "dirlink/new.txt", POL_WRITE, &made, &name, &err);
	assert_int_equal(fd, -ENOENT);
	assert_int_equal(made.n, 0);
	free(err);
	fx_free(f);
}

static void fsg_rights_innermost_root(void **state)
{
	struct fx *f = fx_new(0);
	char *err = NULL, *name = NULL;
	/* dir/root is read+write, dir/root/ro inside it read-only: the inner wins */
	int fd = fsguard_open(f->g, "ro/c.txt", O_WRONLY, POL_WRITE, NULL, &err);
	assert_int_equal(fd, -EACCES);
	assert_non_null(strstr(err, "--allow-write"));
	free(err);
	fd = fsguard_open_parent(f->g, "ro/new.txt", POL_WRITE, NULL, &name, &err);
	assert_int_equal(fd, -EACCES);
	free(err);
	fd = fsguard_open(f->g, "ro/c.txt", O_RDONLY, POL_READ, NULL, &err);
	assert_true(fd >= 0);
	close(fd);
	fd = fsguard_open(f->g, "a.txt", O_WRONLY, POL_WRITE, NULL, &err);
	assert_true(fd >= 0);
	close(fd);
	fx_free(f);
}

/* The granted directory is renamed away and another put in its place
 * while the guard is held: accesses still reach the vetted directory. */
static void fsg_root_swapped_while_held(void **state)
{
	struct fx *f = fx_new(0);
	char *old = tt_path(f->dir, "root.old"), *abs = tt_path(f->dir, "root/a.txt");
	assert_int_equal(rename(f->root, old), 0);
	tt_dir(f->dir, "root");
	tt_file(f->dir, "root/a.txt", "impostor");
	int rc;
	char *err = NULL, *s = rd(f->g, abs, &rc, &err);
	if (s) {
		assert_string_equal(s, "inside");
		free(s);
	} else {
		assert_int_equal(rc, -ENOENT);
		free(err);
	}
	free(old);
	free(abs);
	fx_free(f);
}

/* A granted directory replaced between the policy's vetting and the
 * guard's construction: the guard refuses to be built. */
static void fsg_pin_mismatch_refused(void **state)
{
	char *dir = tt_setup(), *err = NULL;
	struct policy p;
	struct fsguard *g = NULL;
	tt_dir(dir, "r");
	char *r = tt_path(dir, "r"), *moved = tt_path(dir, "r.old");
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, r, POL_READ, &err), 0);
	assert_int_equal(rename(r, moved), 0);
	tt_dir(dir, "r");
	assert_int_equal(fsguard_new(&p, dir, 0, &g, &err), -1);
	assert_null(g);
	assert_non_null(strstr(err, "replaced"));
	free(err);
	policy_release(&p);
	free(r);
	free(moved);
	tt_teardown(dir);
}

static void fsg_file_grant(void **state)
{
	struct fx *f = fx_new(0);
	char *fg = tt_path(f->dir, "file.txt"), *sub = tt_path(f->dir, "file.txt/x"), *err = NULL;
	int rc;
	char *s = rd(f->g, fg, &rc, &err);
	assert_non_null(s);
	assert_string_equal(s, "filegrant");
	free(s);
	assert_null(rd(f->g, sub, &rc, &err));
	assert_int_equal(rc, -ENOENT);
	free(err);
	/* replaced after vetting: the pin no longer matches */
	tt_file(f->dir, "file2.txt", "swapped");
	char *f2 = tt_path(f->dir, "file2.txt");
	assert_int_equal(rename(f2, fg), 0);
	assert_null(rd(f->g, fg, &rc, &err));
	assert_int_equal(rc, -ENOENT);
	free(err);
	free(f2);
	free(fg);
	free(sub);
	fx_free(f);
}

/* A FIFO beneath a root is refused from its O_PATH handle: even a
 * non-blocking open(2) would complete a waiting writer's open. */
static void fsg_fifo_not_opened(void **state)
{
	struct fx *f = fx_new(0);
	char *err = NULL, *pipe = tt_path(f->dir, "root/pipe");
	(void)state;
	assert_int_equal(mkfifo(pipe, 0600), 0);
	int fd = fsguard_open(f->g, "pipe", O_RDONLY | O_NONBLOCK, POL_READ, NULL, &err);
	assert_int_equal(fd, -ENXIO);
	assert_non_null(strstr(err, "'pipe' is a FIFO or a socket"));
	free(err);
	/* no reader was ever there: a writer's non-blocking open finds none */
	int w = open(pipe, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_int_equal(w, -1);
	assert_int_equal(errno, ENXIO);
	free(pipe);
	fx_free(f);
}

/* A file grant's parent swapped for a link to another directory holding a
 * file of the same name: the open is refused and that file is untouched
 * (it was truncated before the pin was compared, once). */
static void fsg_file_grant_parent_swap(void **state)
{
	char *dir = tt_setup(), *err = NULL;
	struct policy p;
	struct fsguard *g = NULL;
	(void)state;
	tt_dir(dir, "fgd");
	tt_file(dir, "fgd/config", "grant");
	tt_dir(dir, "victim");
	tt_file(dir, "victim/config", "VICTIM");
	char *fg = tt_path(dir, "fgd/config"), *fgd = tt_path(dir, "fgd"), *old = tt_path(dir, "fgd.old");
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, fg, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(fsguard_new(&p, dir, 0, &g, &err), 0);
	assert_int_equal(rename(fgd, old), 0);
	tt_link(dir, "fgd", "victim");

	int fd = fsguard_open(g, fg, O_WRONLY | O_TRUNC, POL_WRITE, NULL, &err);
	assert_true(fd < 0);
	free(err);
	err = NULL;
	char *v = tt_slurp(dir, "victim/config");
	assert_string_equal(v, "VICTIM");
	free(v);
	/* put back, the grant works and truncates its own file */
	assert_int_equal(unlink(fgd), 0);
	assert_int_equal(rename(old, fgd), 0);
	assert_int_equal(chmod(fg, 06755), 0);
	fd = fsguard_open(g, fg, O_WRONLY | O_TRUNC, POL_WRITE, NULL, &err);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new", 3), 3);
	close(fd);
	v = tt_slurp(dir, "fgd/config");
	assert_string_equal(v, "new");
	free(v);
	/* written in place, it loses its set-id bits (root keeps them else) */
	struct stat st;
	assert_int_equal(stat(fg, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	fsguard_free(g);
	policy_release(&p);
	free(fg);
	free(fgd);
	free(old);
	tt_teardown(dir);
}

/* A /proc grant reaches the bash tool's own /proc; the in-process tools,
 * which would read the host's, refuse it and say why. */
static void fsg_proc_refused(void **state)
{
	struct policy p;
	struct fsguard *g = NULL;
	char *err = NULL;
	(void)state;
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/proc", POL_READ, &err), 0);
	assert_int_equal(fsguard_new(&p, "/", 0, &g, &err), 0);
	int fd = fsguard_open(g, "/proc/1/status", O_RDONLY, POL_READ, NULL, &err);
	assert_int_equal(fd, -EACCES);
	assert_non_null(strstr(err, "'/proc/1/status' is in /proc, which this tool would read outside the sandbox"));
	free(err);
	err = NULL;
	fd = fsguard_open(g, "/proc", O_RDONLY | O_DIRECTORY, POL_READ, NULL, &err);
	assert_int_equal(fd, -EACCES);
	free(err);
	fsguard_free(g);
	policy_release(&p);
}

/* A proc mounted under another name inside a grant after the policy was
 * vetted (the agent runs for long): FsGuard knows it by its type, read
 * refuses it and a walk does not enter it.  Needs a private mount
 * namespace (root, as CI runs the unit tests). */
static void fsg_proc_by_type(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		skip();
	char *dir = tt_setup(), *err = NULL;
	struct policy p;
	struct fsguard *g = NULL;
	tt_dir(dir, "pp");
	char *pp = tt_path(dir, "pp"), *host = tt_path(dir, "pp/sys/kernel/hostname");
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, dir, POL_READ, &err), 0);
	assert_int_equal(fsguard_new(&p, dir, 0, &g, &err), 0);
	assert_int_equal(mount("/proc", pp, "none", MS_BIND | MS_REC, NULL), 0);
	int fd = fsguard_open(g, host, O_RDONLY, POL_READ, NULL, &err);
	assert_int_equal(fd, -EACCES);
	assert_non_null(strstr(err, "is on a proc filesystem"));
	free(err);
	fd = open("/proc", O_RDONLY | O_DIRECTORY);
	assert_int_equal(fsguard_is_proc(fd), 1);
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(fsguard_is_proc(fd), 0);
	close(fd);
	umount2(pp, MNT_DETACH);
	fsguard_free(g);
	policy_release(&p);
	free(pp);
	free(host);
	tt_teardown(dir);
}

static void fsg_open_parent(void **state)
{
	struct fx *f = fx_new(0);
	char *name = NULL, *err = NULL;
	struct fsguard_made made = { 0 };
	int fd = fsguard_open_parent(f->g, "new/deep/x.txt", POL_WRITE, &made, &name, &err);
	assert_true(fd >= 0);
	assert_string_equal(name, "x.txt");
	assert_int_equal(made.n, 2);
	fsguard_made_keep(&made);
	assert_int_equal(made.n, 0);
	close(fd);
	free(name);
	struct stat st;
	char *deep = tt_path(f->dir, "root/new/deep");
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(deep);
	/* a link in the parent chain is not followed, not even to create */
	fd = fsguard_open_parent(f->g, "dirlink/x.txt", POL_WRITE, &made, &name, &err);
	assert_int_equal(fd, -ENOENT);
	free(err);
	fd = fsguard_open_parent(f->g, "../escape.txt", POL_WRITE, &made, &name, &err);
	assert_int_equal(fd, -ENOENT);
	free(err);
	fd = fsguard_open_parent(f->g, f->root, POL_WRITE, &made, &name, &err);
	assert_int_equal(made.n, 0);
	assert_int_equal(fd, -EISDIR);
	free(err);
	/* O_CREAT is not fsguard_open's business */
	fd = fsguard_open(f->g, "c.txt", O_WRONLY | O_CREAT, POL_WRITE, NULL, &err);
	assert_int_equal(fd, -EINVAL);
	free(err);
	fx_free(f);
}

static int fx_exists(struct fx *f, const char *rel)
{
	struct stat st;
	char *p = tt_path(f->dir, rel);
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

/* One open_parent: the directories it made, noted by the directory each
 * was made in and its name, removed again innermost first when the write
 * fails, and only those: never one that was there, one another program
 * put a file in, or one put in place of one it made; a call that fails
 * while it makes them leaves none. */
static void check_made(unsigned flags)
{
	struct fx *f = fx_new(flags);
	struct fsguard_made m = { 0 };
	char *name = NULL, *err = NULL;
	int fd = fsguard_open_parent(f->g, "n1/n2/x.txt", POL_WRITE, &m, &name, &err);
	assert_true(fd >= 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.v[0].name, "n1");
	assert_string_equal(m.v[1].name, "n2");
	int t = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(t >= 0);	/* a temp file, gone before the undo */
	close(t);
	assert_int_equal(unlinkat(fd, name, 0), 0);
	close(fd);
	free(name);
	fsguard_made_undo(&m);
	assert_int_equal(m.n, 0);
	assert_false(fx_exists(f, "root/n1"));
	/* beneath one that was there */
	fd = fsguard_open_parent(f->g, "sub/n3/x.txt", POL_WRITE, &m, &name, &err);
	assert_true(fd >= 0);
	assert_int_equal(m.n, 1);
	close(fd);
	free(name);
	fsguard_made_undo(&m);
	assert_false(fx_exists(f, "root/sub/n3"));
	assert_true(fx_exists(f, "root/sub/b.txt"));
	/* someone else's file in one made: it stays, the empty one in it goes */
	fd = fsguard_open_parent(f->g, "n4/n5/x.txt", POL_WRITE, &m, &name, &err);
	assert_true(fd >= 0);
	close(fd);
	free(name);
	tt_file(f->dir, "root/n4/theirs.txt", "t");
	fsguard_made_undo(&m);
	assert_false(fx_exists(f, "root/n4/n5"));
	assert_true(fx_exists(f, "root/n4/theirs.txt"));
	/* moved away and another made in its place: neither is touched */
	fd = fsguard_open_parent(f->g, "n6/x.txt", POL_WRITE, &m, &name, &err);
	assert_true(fd >= 0);
	close(fd);
	free(name);
	char *a = tt_path(f->dir, "root/n6"), *b = tt_path(f->dir, "root/n6-moved");
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(mkdir(a, 0755), 0);
	fsguard_made_undo(&m);
	assert_true(fx_exists(f, "root/n6"));
	assert_true(fx_exists(f, "root/n6-moved"));
	free(a);
	free(b);
	/* kept */
	fd = fsguard_open_parent(f->g, "k1/x.txt", POL_WRITE, &m, &name, &err);
	assert_true(fd >= 0);
	close(fd);
	free(name);
	fsguard_made_keep(&m);
	assert_true(fx_exists(f, "root/k1"));
	/* the second cannot be made (a name over 255 bytes): the first goes */
	char *path = xmalloc(400);
	memset(path, 'x', 399);
	path[399] = '\0';
	memcpy(path, "m1/", 3);
	memcpy(path + 300, "/x.txt", 7);
	fd = fsguard_open_parent(f->g, path, POL_WRITE, &m, &name, &err);
	assert_int_equal(fd, -ENAMETOOLONG);
	assert_int_equal(m.n, 0);
	assert_null(name);
	free(err);
	free(path);
	assert_false(fx_exists(f, "root/m1"));
	fx_free(f);
}

static void fsg_open_parent_made(void **state)
{
	(void)state;
	check_made(0);
	check_made(FSG_NO_OPENAT2);
}

/* Descriptors run out (EMFILE): the soft open-files limit lowered to 64
 * and every descriptor under it taken but spare.  fd_restore gives them
 * back and the limit. */
struct fdfill {
	struct rlimit old;
	int fds[64];
	int n;
};

static void fd_exhaust(struct fdfill *ff, int spare)
{
	struct rlimit low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &ff->old), 0);
	low = ff->old;
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	ff->n = 0;
	int fd;
	while (ff->n < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		ff->fds[ff->n++] = fd;
	assert_int_equal(errno, EMFILE);
	assert_true(ff->n >= spare);
	while (spare-- > 0)
		close(ff->fds[--ff->n]);
}

static void fd_restore(struct fdfill *ff)
{
	while (ff->n > 0)
		close(ff->fds[--ff->n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &ff->old), 0);
}

/* Out of descriptors, the guard says so and what to do: it blamed the
 * grant ("it vanished or was replaced after it was checked"), which was
 * there all along; and a path it could not open for want of one was a
 * bare "Too many open files". */
static void fsg_out_of_descriptors(void **state)
{
	struct fx *f = fx_new(0);
	struct fsguard *g = NULL;
	struct fdfill ff;
	char *err = NULL, *name = NULL;
	(void)state;
	for (int spare = 0; spare <= 1; spare++) {
		fd_exhaust(&ff, spare);
		int rc = fsguard_new(&f->p, f->root, 0, &g, &err);
		fd_restore(&ff);
		assert_int_equal(rc, -1);
		assert_null(g);
		assert_non_null(strstr(err, "ran out of file descriptors"));
		assert_non_null(strstr(err, "ulimit -n"));
		assert_null(strstr(err, "vanished"));
		assert_null(strstr(err, "replaced"));
		free(err);
		err = NULL;
	}
	for (int spare = 0; spare <= 1; spare++) {
		fd_exhaust(&ff, spare);
		int fd = fsguard_open(f->g, "a.txt", O_RDONLY, POL_READ, NULL, &err);
		fd_restore(&ff);
		assert_int_equal(fd, -EMFILE);
		assert_non_null(strstr(err, "ran out of file descriptors"));
		assert_non_null(strstr(err, "ulimit -n"));
		free(err);
		err = NULL;
	}
	fd_exhaust(&ff, 0);
	int fd = fsguard_open_parent(f->g, "sub/new.txt", POL_WRITE, NULL, &name, &err);
	fd_restore(&ff);
	assert_int_equal(fd, -EMFILE);
	assert_non_null(strstr(err, "ulimit -n"));
	free(err);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fsg_normalize),
		cmocka_unit_test(fsg_inside_and_refusals),
		cmocka_unit_test(fsg_fallback_without_openat2),
		cmocka_unit_test(fsg_rights_innermost_root),
		cmocka_unit_test(fsg_root_swapped_while_held),
		cmocka_unit_test(fsg_pin_mismatch_refused),
		cmocka_unit_test(fsg_file_grant),
		cmocka_unit_test(fsg_file_grant_parent_swap),
		cmocka_unit_test(fsg_fifo_not_opened),
		cmocka_unit_test(fsg_proc_refused),
		cmocka_unit_test(fsg_proc_by_type),
		cmocka_unit_test(fsg_open_parent),
		cmocka_unit_test(fsg_open_parent_made),
		cmocka_unit_test(fsg_out_of_descriptors),
	};
	log_set_level(LOG_OFF);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
