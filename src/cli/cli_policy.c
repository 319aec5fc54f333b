/*
 * cli_policy.c — the CLI's convenience layer over the default-deny policy:
 * the floor (system directories read+execute, /etc/alternatives read,
 * seven startup variables),
 * the working-directory default and its refused shapes, and the vetting of
 * the user's own grants: refused when one reaches sandbx's own state or
 * program, writes into the kernel's trees, or is reached through a symlink.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli/cli.h"
#include "cli/cli_policy.h"
#include "sandbox/limits.h"
#include "store/xdg.h"
#include "tools/fsguard.h"
#include "util/log.h"

static const char *const floor_paths[] = { "/usr", "/bin", "/lib", "/lib64" };
/* Debian's alternatives: /usr/bin/awk, cc, c++, editor, java... are links
 * through it, which must exist in the view for them to run at all.  Read
 * only, and only that directory of links: where a link leads is judged by
 * the grants like any other path. */
static const char floor_links_dir[] = "/etc/alternatives";
static const char *const floor_env[] = { "PATH", "HOME", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ" };
static const char *const home_parents[] = { "/home", "/root", "/var/home" };
/* The system's own trees: no working-directory default at or beneath them. */
static const char *const system_trees[] = { "/etc", "/boot", "/dev", "/proc", "/sys", "/run" };
/* Roots shared by the system or by every user: refused as the default
 * themselves; a directory beneath (/var/www/site, /tmp/proj) is a project. */
static const char *const shared_roots[] = { "/var", "/opt", "/srv", "/tmp", "/var/tmp", "/dev/shm" };
/* The kernel's interfaces (cgroupfs among them, which holds the limits):
 * never writable through a grant. */
static const char *const kernel_trees[] = { "/proc", "/sys", "/dev" };

/* rest taken by name onto the resolved directory real: '.' dropped, '..'
 * taking off the last name (the directories that are not there yet will
 * be made as directories, so '..' is their parent). */
static char *fold_rest(const char *real, const char *rest)
{
	size_t cap = strlen(real) + strlen(rest) + 2, n = 0;
	char *out = xmalloc(cap);
	if (strcmp(real, "/") != 0) {
		n = strlen(real);
		memcpy(out, real, n);
	}
	while (*rest) {
		while (*rest == '/')
			rest++;
		size_t cl = strcspn(rest, "/");
		if (cl == 0)
			break;
		if (cl == 2 && rest[0] == '.' && rest[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else if (!(cl == 1 && rest[0] == '.')) {
			out[n++] = '/';
			memcpy(out + n, rest, cl);
			n += cl;
		}
		rest += cl;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/*
 * Where path is, or will be once its missing directories are made: the
 * longest prefix that exists resolved; a dangling symlink next in the path
 * followed to what it names (a store made through it lands there); the
 * rest, which does not exist, by name with '.' and '..' folded.  So a store
 * that does not exist yet, spelled through a symlink or a '..' after a
 * missing directory, is still compared by its real location.
 */
char *cli_resolve_prefix(const char *path)
{
	char *cur = xstrdup(path);
	for (int hops = 0; hops < 40; hops++) {
		if (cur[0] != '/')
			break;
		char *dup = xstrdup(cur), *real = NULL;
		for (;;) {
			real = realpath(dup, NULL);
			if (real)
				break;
			char *slash = strrchr(dup, '/');
			if (slash == dup) {
				dup[1] = '\0';	/* "/" always resolves */
				real = realpath(dup, NULL);
				break;
			}
			*slash = '\0';
		}
		if (!real) {
			free(dup);
			break;
		}
		/* rest: what follows the resolved prefix (after "/" itself, all) */
		const char *rest = strcmp(dup, "/") == 0 ? cur : cur + strlen(dup);
		free(dup);
		const char *c = rest;
		while (*c == '/')
			c++;
		size_t cl = strcspn(c, "/");
		char *next = NULL;
		if (cl > 0 && !(cl == 1 && c[0] == '.') && !(cl == 2 && c[0] == '.' && c[1] == '.')) {
			char *first = xasprintf("%s/%.*s", strcmp(real, "/") == 0 ? "" : real, (int)cl, c);
			struct stat st;
			char tgt[PATH_MAX];
			ssize_t tl;
			if (lstat(first, &st) == 0 && S_ISLNK(st.st_mode) &&
			    (tl = readlink(first, tgt, sizeof(tgt) - 1)) > 0) {
				tgt[tl] = '\0';
				next = tgt[0] == '/' ? xasprintf("%s%s", tgt, c + cl)
						     : xasprintf("%s/%s%s", strcmp(real, "/") == 0 ? "" : real, tgt, c + cl);
			}
			free(first);
		}
		if (!next) {
			char *out = fold_rest(real, rest);
			free(real);
			free(cur);
			return out;
		}
		free(real);
		free(cur);
		cur = next;
	}
	/* relative, or a loop of links: as given */
	free(cur);
	return xstrdup(path);
}

int cli_is_floor(const char *path)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(floor_paths); i++)
		if (strcmp(path, floor_paths[i]) == 0)
			return 1;
	return strcmp(path, floor_links_dir) == 0;
}

/*
 * stat(2), its answers kept while cli_build_policy checks its grants
 * (stat_memo_on): the bind-mount checks ask after sandbx's own
 * directories and every directory above them and above each grant, the
 * same few paths some forty times a run.  Off, a stat.
 */
struct stat_memo {
	char *path;
	int r, err;
	struct stat st;
};
static int stat_memo_on;
static struct stat_memo *stat_memo;
static size_t stat_memo_n;

static int memo_stat(const char *path, struct stat *st)
{
	if (!stat_memo_on)
		return stat(path, st);
	for (size_t i = 0; i < stat_memo_n; i++) {
		const struct stat_memo *m = &stat_memo[i];
		if (strcmp(m->path, path) == 0) {
			*st = m->st;
			errno = m->err;
			return m->r;
		}
	}
	stat_memo = xrealloc(stat_memo, (stat_memo_n + 1) * sizeof(*stat_memo));
	struct stat_memo *m = &stat_memo[stat_memo_n++];
	m->path = xstrdup(path);
	memset(&m->st, 0, sizeof(m->st));
	m->r = stat(path, &m->st);
	m->err = m->r < 0 ? errno : 0;
	*st = m->st;
	return m->r;
}

static void stat_memo_release(void)
{
	for (size_t i = 0; i < stat_memo_n; i++)
		free(stat_memo[i].path);
	free(stat_memo);
	stat_memo = NULL;
	stat_memo_n = 0;
	stat_memo_on = 0;
}

/* 1 when path, or a directory above it, is the object (dev, ino): the
 * same directory under another name (a bind mount) included.  Path need
 * not exist whole: the parts that do not are skipped. */
int cli_ancestry_has(const char *path, dev_t dev, ino_t ino)
{
	char *p = xstrdup(path);
	int hit = 0;
	for (;;) {
		struct stat st;
		if (memo_stat(p, &st) == 0 && st.st_dev == dev && st.st_ino == ino) {
			hit = 1;
			break;
		}
		char *slash = strrchr(p, '/');
		if (!slash)
			break;
		if (slash == p) {
			if (p[1] == '\0')
				break;
			p[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	free(p);
	return hit;
}

/* fn(ctx, dir, what) for each of sandbx's own directories (resolved): the
 * current XDG locations of the session store and the credential directory,
 * and the defaults under $HOME and the passwd home (a store written under
 * another XDG setting is still sandbx's own), until fn returns nonzero,
 * which is returned. */
static void links_on_way(const char *path, struct strv *out);

/* Those directories resolved, for x: lists[0] the store's, lists[1] the
 * credential directory's; lists[2] and [3] the symbolic links followed on
 * the way to each (links_on_way), each pushed with the directory it leads
 * to (link, dir, link, dir...). */
static void protected_resolve(const struct xdg_paths *x, struct strv lists[4])
{
	struct strv raw[2] = { { 0 }, { 0 } };
	xdg_protected_dirs(x, &raw[0], &raw[1]);
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < raw[l].n; i++) {
			struct strv links = { 0 };
			strv_push_own(&lists[l], cli_resolve_prefix(raw[l].v[i]));
			links_on_way(raw[l].v[i], &links);
			for (size_t j = 0; j < links.n; j++) {
				strv_push(&lists[2 + l], links.v[j]);
				strv_push(&lists[2 + l], raw[l].v[i]);
			}
			strv_free(&links);
		}
		strv_free(&raw[l]);
	}
}

/* Set by cli_build_policy for its own length: the lists for its x, which
 * every check of every grant walks (each a passwd lookup and a dozen
 * readlinks to make again: some 70 syscalls on sandbox-run's spawn path). */
static const struct xdg_paths *protected_for;
static struct strv protected_cached[4];

/* x's lists (protected_resolve): the cached ones for cli_build_policy's
 * own x, else made into own (the caller frees own's four). */
static struct strv *protected_lists(const struct xdg_paths *x, struct strv own[4])
{
	if (x == protected_for)
		return protected_cached;
	protected_resolve(x, own);
	return own;
}

static int each_protected(const struct xdg_paths *x, int (*fn)(void *ctx, const char *dir, const char *what),
			  void *ctx)
{
	struct strv own[4] = { { 0 } }, *lists = protected_lists(x, own);
	int r = 0;
	for (int l = 0; l < 2 && r == 0; l++)
		for (size_t i = 0; i < lists[l].n && r == 0; i++)
			r = fn(ctx, lists[l].v[i], l == 0 ? "session store" : "credential directory");
	for (int l = 0; l < 4; l++)
		strv_free(&own[l]);
	return r;
}

struct owned_ctx {
	const char *grant;
	struct stat gst;
	int have;
	char **err;
};

/* Compared by name, then as objects (dev, ino of the path and each
 * directory above it), so a bind mount of either's tree under another name
 * is caught too. */
static int owned_one(void *ctx, const char *o, const char *what)
{
	struct owned_ctx *c = ctx;
	struct stat ost;
	if (path_within(c->grant, o) || path_within(o, c->grant))
		*c->err = xasprintf("grant '%s' reaches sandbx's own %s '%s' — grant a narrower path that leaves it out",
				    c->grant, what, o);
	else if (c->have && cli_ancestry_has(o, c->gst.st_dev, c->gst.st_ino))
		*c->err = xasprintf("grant '%s' holds sandbx's own %s '%s' under another name (a bind mount) — grant a "
				    "narrower path that leaves it out", c->grant, what, o);
	else if (memo_stat(o, &ost) == 0 && cli_ancestry_has(c->grant, ost.st_dev, ost.st_ino))
		*c->err = xasprintf("grant '%s' lies in sandbx's own %s '%s' under another name (a bind mount) — grant a "
				    "narrower path that leaves it out", c->grant, what, o);
	else
		return 0;
	return -1;
}

/*
 * Onto out, where each symbolic link followed on the way to path lies, by
 * its real name (the directories before it resolved): whoever may write
 * there can point the link, and so path, elsewhere, though path itself,
 * resolved, lies outside.
 */
static void links_on_way(const char *path, struct strv *out)
{
	char *cur = xstrdup(path);
	for (int hops = 0; hops < 40 && cur[0] == '/'; hops++) {
		char real[PATH_MAX] = "", *next = NULL;
		const char *c = cur;
		for (;;) {
			while (*c == '/')
				c++;
			size_t cl = strcspn(c, "/"), rl = strlen(real);
			if (cl == 0)
				break;
			if (cl == 1 && c[0] == '.') {
				c += cl;
				continue;
			}
			if (cl == 2 && c[0] == '.' && c[1] == '.') {
				/* the directories before are real: '..' is their parent */
				char *slash = strrchr(real, '/');
				if (slash)
					*slash = '\0';
				c += cl;
				continue;
			}
			if (rl + 1 + cl >= sizeof(real))
				break;
			char cand[PATH_MAX], tgt[PATH_MAX];
			memcpy(cand, real, rl);
			cand[rl] = '/';
			memcpy(cand + rl + 1, c, cl);
			cand[rl + 1 + cl] = '\0';
			struct stat st;
			if (lstat(cand, &st) < 0)
				break;	/* the rest is missing: compared by name (cli_resolve_prefix) */
			c += cl;
			if (S_ISLNK(st.st_mode)) {
				ssize_t tl = readlink(cand, tgt, sizeof(tgt) - 1);
				if (tl <= 0)
					break;
				tgt[tl] = '\0';
				if (!strv_has(out, cand))
					strv_push(out, cand);
				next = tgt[0] == '/' ? xasprintf("%s%s", tgt, c) : xasprintf("%s/%s%s", real, tgt, c);
				break;
			}
			memcpy(real, cand, strlen(cand) + 1);
		}
		free(cur);
		cur = next;
		if (!cur)
			return;
	}
	free(cur);
}

int cli_owned_check(const char *grant, const struct xdg_paths *x, char **err)
{
	struct owned_ctx c = { .grant = grant, .err = err };
	c.have = memo_stat(grant, &c.gst) == 0;
	int r = each_protected(x, owned_one, &c);
	if (r)
		return r;
	/* A link on the way, in the grant: the command could repoint it at a
	 * tree of its own, which a later run would take for sandbx's state
	 * (a kept filter program, sandbox/filtcache.h). */
	struct strv own[4] = { { 0 } }, *lists = protected_lists(x, own);
	for (int l = 2; l < 4 && r == 0; l++)
		for (size_t i = 0; i + 1 < lists[l].n && r == 0; i += 2)
			if (path_within(lists[l].v[i], grant)) {
				*err = xasprintf("grant '%s' holds '%s', a symbolic link on the way to sandbx's own "
						 "%s '%s': the command could point it elsewhere — grant a narrower "
						 "path that leaves it out", grant, lists[l].v[i],
						 l == 2 ? "session store" : "credential directory", lists[l].v[i + 1]);
				r = -1;
			}
	for (int l = 0; l < 4; l++)
		strv_free(&own[l]);
	return r;
}

const char *cli_flag_name(unsigned access)
{
	if (access & POL_WRITE)
		return "--allow-write";
	return (access & POL_EXEC) ? "--allow-exec" : "--allow-read";
}

int cli_symlink_check(const char *given, unsigned access, const char *cwd, const char *real, char **err)
{
	/* The lexical form is the path the user wrote; realpath's answer is
	 * where the kernel lands.  They differ only when a symlink was
	 * followed on the way (a '..' through a link included), and a link
	 * in a tree an earlier confined run could write may have been planted. */
	char *lex = fsguard_normalize(cwd, given);
	int r = 0;
	if (!lex) {
		*err = xasprintf("%s '%s' cannot be read as a path — name a shorter, non-empty path",
				 cli_flag_name(access), given);
		return -1;
	}
	if (strcmp(lex, real) != 0) {
		*err = xasprintf("%s '%s' leads through a symlink to '%s' — a link may have been planted by an earlier "
				 "run; grant '%s' itself if that is what you mean", cli_flag_name(access), given, real, real);
		r = -1;
	}
	free(lex);
	return r;
}

int cli_cwd_check(const char *cwd, const char *home, const struct policy *p, const struct xdg_paths *x,
		  char **err)
{
	const char *fix = " — run sandbx from a project directory, or name what to grant with --allow-read/--allow-write";
	if (strcmp(cwd, "/") == 0) {
		*err = xasprintf("the working directory is the filesystem root, too wide to grant%s", fix);
		return -1;
	}
	if (home && path_within(home, cwd)) {
		*err = xasprintf(strcmp(home, cwd) == 0 ? "the working directory '%s' is your home directory, too wide to grant%s"
							 : "the working directory '%s' holds your home directory, too wide to grant%s",
				 cwd, fix);
		return -1;
	}
	struct stat cst;
	if (home && memo_stat(cwd, &cst) == 0 && cli_ancestry_has(home, cst.st_dev, cst.st_ino)) {
		*err = xasprintf("the working directory '%s' is your home directory '%s', or holds it, under another "
				 "name (a bind mount), too wide to grant%s", cwd, home, fix);
		return -1;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(home_parents); i++) {
		if (strcmp(cwd, home_parents[i]) == 0) {
			*err = xasprintf("the working directory '%s' holds users' home directories, too wide to grant%s",
					 cwd, fix);
			return -1;
		}
		if (!home) {
			char *slash = strrchr(cwd, '/');
			size_t plen = slash ? (size_t)(slash - cwd) : 0;
			if (plen == strlen(home_parents[i]) && strncmp(cwd, home_parents[i], plen) == 0) {
				*err = xasprintf("the working directory '%s' looks like a home directory and $HOME is unusable, "
						 "too wide to grant%s", cwd, fix);
				return -1;
			}
		}
	}
	if (home) {
		char *hp = xstrdup(home), *slash = strrchr(hp, '/');
		if (slash && slash != hp) {
			*slash = '\0';
			if (strcmp(cwd, hp) == 0) {
				*err = xasprintf("the working directory '%s' holds users' home directories, too wide to grant%s",
						 cwd, fix);
				free(hp);
				return -1;
			}
		}
		free(hp);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(system_trees); i++) {
		if (!path_within(cwd, system_trees[i]))
			continue;
		if (strcmp(cwd, system_trees[i]) == 0)
			*err = xasprintf("the working directory '%s' is a system directory, too wide to grant%s", cwd, fix);
		else
			*err = xasprintf("the working directory '%s' lies in the system directory '%s', too wide to grant%s",
					 cwd, system_trees[i], fix);
		return -1;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(shared_roots); i++) {
		if (strcmp(cwd, shared_roots[i]) == 0) {
			*err = xasprintf("the working directory '%s' is a shared system directory, too wide to grant%s",
					 cwd, fix);
			return -1;
		}
	}
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (g->link || !(g->access & POL_EXEC))
			continue;
		if (path_within(cwd, g->path) || path_within(g->path, cwd)) {
			*err = xasprintf("the working directory '%s' overlaps '%s', which is granted execute: "
					 "a writable default there would let a command change what runs%s",
					 cwd, g->path, fix);
			return -1;
		}
	}
	if (x && cli_owned_check(cwd, x, err) < 0)
		return -1;
	return 0;
}

int cli_write_tree_check(const char *real, unsigned access, char **err)
{
	/* Execute and read grants are mounted read-only: only write counts. */
	if (!(access & POL_WRITE))
		return 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(kernel_trees); i++) {
		const char *t = kernel_trees[i];
		if (!path_within(real, t) && !path_within(t, real))
			continue;
		*err = xasprintf("--allow-write '%s' %s '%s', the kernel's own interface (cgroups, devices, process "
				 "files): a command writing there could undo its limits or reach the host — grant "
				 "write on a project directory instead (read there stays allowed)",
				 real, path_within(real, t) ? "lies in" : "holds", t);
		return -1;
	}
	return 0;
}

/* The kernel's interfaces a read or execute grant may not reach: a proc
 * shows the host's processes, held or named; a hugetlbfs named (or a path
 * in it) hands out the machine's huge pages, while one a grant only holds
 * is given an empty directory in its place (cli_hugetlbfs_masks). */
static const struct {
	const char *type;
	int held;		/* holding one is refused too */
	const char *why, *fix;
} read_refused[] = {
	{ "proc", 1, "the host's processes would be in the view",
	  "grant /proc itself (the sandbox's own) or a tree without it" },
	{ "hugetlbfs", 0, "a command mapping a file there would take pages of the machine's huge-page pool, "
	  "which stay taken after the run",
	  "grant a tree without it (a directory above the mount, such as /dev, is given an empty one in its place)" },
};

static int mounts_unread(const char *what, const char *real, char **err)
{
	*err = xasprintf("%s '%s': the mount table could not be read to check it holds none of the "
			 "kernel's interfaces (cgroups, devices, process files) — nothing was run", what, real);
	return -1;
}

int cli_mounts_check(const char *mi, const char *real, unsigned access, int is_cwd, char **err)
{
	/* The view copies a grant with what is mounted beneath it.  Written,
	 * any kernel interface reaches past the sandbox; read, read_refused
	 * (/proc itself is the sandbox's own, apart). */
	const char *what = is_cwd ? "the working directory" : cli_flag_name(access);
	char mnt[LIMITS_MAX_PATH], type[64];
	int r;
	if (!mi)
		return mounts_unread(what, real, err);
	if (!(access & POL_WRITE)) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(read_refused); i++) {
			r = limits_kernel_mount_near(mi, real, read_refused[i].type, read_refused[i].held, mnt,
						     sizeof(mnt), type, sizeof(type));
			if (r < 0)
				return mounts_unread(what, real, err);
			if (r == 0)
				continue;
			*err = xasprintf("%s '%s' %s a %s mount at '%s': %s — %s", what, real,
					 path_within(real, mnt) ? "lies in" : "holds", type, mnt, read_refused[i].why,
					 read_refused[i].fix);
			return -1;
		}
		return 0;
	}
	r = limits_kernel_mount_near(mi, real, NULL, 1, mnt, sizeof(mnt), type, sizeof(type));
	if (r < 0)
		return mounts_unread(what, real, err);
	if (r == 0)
		return 0;
	*err = xasprintf("%s '%s' %s a %s mount at '%s', the kernel's own interface: a command "
			 "writing there could undo its limits or reach the host — grant write on a tree "
			 "without it", what, real, path_within(real, mnt) ? "lies in" : "holds", type, mnt);
	return -1;
}

struct masks_ctx {
	struct policy *p;
	struct strv *out;
};

/* Mount point m of a masked type: into out when a directory grant holds it
 * strictly beneath it and no grant names it or a path in it. */
static int mask_one(void *ctx, const char *m)
{
	struct masks_ctx *c = ctx;
	struct policy *p = c->p;
	int held = 0;
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (g->link || g->is_proc)
			continue;
		if (path_within(g->path, m))
			return 0;	/* named: mqueue shared with the granted rights,
					   hugetlbfs refused (cli_mounts_check) */
		if (g->is_dir && strcmp(g->path, m) != 0 && path_within(m, g->path))
			held = 1;
	}
	/* Under a private /dev/shm or /tmp it is hidden already. */
	for (size_t k = 0; k < POLICY_NSCRATCH; k++)
		if (policy_scratch_private(p, k) && path_within(m, policy_scratch_dirs[k]))
			return 0;
	if (held && !strv_has(c->out, m))
		strv_push(c->out, m);
	return 0;
}

/* The mount points of type a grant holds (mask_one) into out; -1 with
 * *err, naming what they are and what the sandbox must do with them,
 * when the mount table cannot be read. */
static int masks_of(const char *mi, struct policy *p, const char *type, struct strv *out, const char *what,
		    const char *must, char **err)
{
	struct masks_ctx c = { p, out };
	if (mi && limits_each_mount_of(mi, type, mask_one, &c) == 0)
		return 0;
	*err = xasprintf("the mount table could not be read to find the host's %s (%s) mounts in the granted "
			 "trees, which the sandbox must %s — nothing was run", what, type, must);
	return -1;
}

int cli_mqueue_masks(const char *mi, struct policy *p, char **err)
{
	return masks_of(mi, p, "mqueue", &p->mqueue, "message-queue", "replace with its own", err);
}

int cli_hugetlbfs_masks(const char *mi, struct policy *p, char **err)
{
	return masks_of(mi, p, "hugetlbfs", &p->hugetlbfs, "huge-page", "hide", err);
}

/* All of /proc/self/mountinfo (NULL when it cannot be read). */
static char *read_mountinfo(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 65536, len = 0;
	char *buf = NULL;
	if (!f)
		return NULL;
	for (;;) {
		buf = xrealloc(buf, cap + 1);
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap || cap >= (16u << 20))
			break;
		cap *= 2;
	}
	int bad = ferror(f) || (len == cap && !feof(f));
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

int cli_self_load(struct cli_self *s, char **err)
{
	char buf[PATH_MAX];
	struct stat st;
	memset(s, 0, sizeof(*s));
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/' || stat("/proc/self/exe", &st) < 0) {
		*err = xasprintf("cannot find sandbx's own program through '/proc/self/exe' (%s), so cannot keep it out "
				 "of the grants — run sandbx where /proc is mounted", n < 0 ? strerror(errno) : "no path");
		return -1;
	}
	buf[n] = '\0';
	s->exe = xstrdup(buf);
	/* The program itself (also through a hard link elsewhere), then each
	 * directory above it (also where bind-mounted under another name). */
	s->dev = xcalloc(1, sizeof(*s->dev));
	s->ino = xcalloc(1, sizeof(*s->ino));
	s->dev[0] = st.st_dev;
	s->ino[0] = st.st_ino;
	s->n = 1;
	s->links = st.st_nlink;
	/* Its owner may chmod it writable again, whatever its mode. */
	s->writable = st.st_uid == getuid() || access(s->exe, W_OK) == 0;
	for (char *slash = buf; slash; slash = strchr(slash + 1, '/')) {
		char c = slash[slash == buf ? 1 : 0];
		slash[slash == buf ? 1 : 0] = '\0';
		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
			s->dev = xrealloc(s->dev, (s->n + 1) * sizeof(*s->dev));
			s->ino = xrealloc(s->ino, (s->n + 1) * sizeof(*s->ino));
			s->dev[s->n] = st.st_dev;
			s->ino[s->n] = st.st_ino;
			s->n++;
		}
		slash[slash == buf ? 1 : 0] = c;
	}
	return 0;
}

void cli_self_release(struct cli_self *s)
{
	free(s->exe);
	free(s->dev);
	free(s->ino);
	memset(s, 0, sizeof(*s));
}

int cli_self_check(const char *path, dev_t dev, ino_t ino, const struct cli_self *s, int is_cwd, char **err)
{
	int is_exe = s->n > 0 && s->dev[0] == dev && s->ino[0] == ino;
	int hit = is_exe || path_within(s->exe, path);
	for (size_t i = 1; i < s->n && !hit; i++)
		hit = s->dev[i] == dev && s->ino[i] == ino;
	if (!hit)
		return 0;
	if (is_cwd)
		*err = xasprintf("the working directory '%s' holds sandbx's own program '%s': the command could replace "
				 "the sandbox itself — install sandbx outside it, or name a narrower tree with "
				 "--allow-read/--allow-write", path, s->exe);
	else
		*err = xasprintf("--allow-write '%s' %s sandbx's own program '%s': the command could replace the "
				 "sandbox itself — install sandbx elsewhere, or grant a narrower tree",
				 path, is_exe ? "is" : "holds", s->exe);
	return -1;
}

int cli_self_links_check(const char *mi, const char *path, dev_t dev, const struct cli_self *s, int is_cwd,
			 char **err)
{
	char mnt[LIMITS_MAX_PATH] = "";
	if (s->n == 0 || s->links <= 1 || !s->writable)
		return 0;
	int r = dev == s->dev[0] ? 1
		: mi ? limits_dev_mount_under(mi, path, major(s->dev[0]), minor(s->dev[0]), mnt, sizeof(mnt)) : -1;
	if (r == 0)
		return 0;
	const char *what = is_cwd ? "the working directory" : "--allow-write";
	/* root may write any file, owned or not */
	const char *alt = geteuid() == 0 ? "" : ", or install sandbx as a file you do not own";
	if (r < 0)
		*err = xasprintf("%s '%s': sandbx's own program '%s' has %lu hard links and the mount table could "
				 "not be read to tell whether one may lie inside — nothing was run", what, path, s->exe,
				 (unsigned long)s->links);
	else if (*mnt)
		*err = xasprintf("%s '%s' holds '%s', a mount of the filesystem of sandbx's own program '%s', which "
				 "has %lu hard links: one may lie inside and let the command replace the sandbox itself "
				 "— remove the other links (find '%s' -xdev -samefile '%s' lists them)%s", what, path,
				 mnt, s->exe, (unsigned long)s->links, mnt, s->exe, alt);
	else
		*err = xasprintf("%s '%s' is on the filesystem of sandbx's own program '%s', which has %lu hard "
				 "links: one may lie inside and let the command replace the sandbox itself — remove "
				 "the other links (find '%s' -xdev -samefile '%s' lists them)%s", what, path, s->exe,
				 (unsigned long)s->links, path, s->exe, alt);
	return -1;
}

int cli_self_fs_check(const char *mi, const struct policy_grant *g, const struct cli_self *s, int is_cwd,
		      char **err)
{
	char gdev[32], sdev[32], gfs[2 * LIMITS_MAX_PATH], sfs[2 * LIMITS_MAX_PATH];
	const char *what = is_cwd ? "the working directory" : "--allow-write";
	if (!s->exe || g->link || g->is_proc || !g->is_dir || !(g->access & POL_WRITE))
		return 0;
	if (!mi || limits_fs_path(mi, g->path, gdev, sizeof(gdev), gfs, sizeof(gfs)) < 0 ||
	    limits_fs_path(mi, s->exe, sdev, sizeof(sdev), sfs, sizeof(sfs)) < 0) {
		*err = xasprintf("%s '%s': the mount table could not be read to check it does not hold sandbx's own "
				 "program '%s' under another name — nothing was run", what, g->path, s->exe);
		return -1;
	}
	if (strcmp(gdev, sdev) != 0 || !path_within(sfs, gfs))
		return 0;
	*err = xasprintf("%s '%s' holds sandbx's own program '%s' under another name (a mount of its filesystem: "
			 "the program is '%s' on device %s, within '%s' there): the command could replace the sandbox "
			 "itself — install sandbx elsewhere, or grant a narrower tree", what, g->path, s->exe, sfs, sdev,
			 gfs);
	return -1;
}

/* One protected object against the mounts beneath grant g: 0, or -1 with
 * *err (a mount shows it, or the table cannot be read through). */
static int alias_check(const char *mi, const struct policy_grant *g, const char *obj, const char *name,
		       int either, const char *could, int is_cwd, char **err)
{
	char mnt[LIMITS_MAX_PATH];
	const char *what = is_cwd ? "the working directory" : cli_flag_name(g->access);
	int r = limits_mount_shows(mi, g->path, obj, either, mnt, sizeof(mnt));
	if (r == 0)
		return 0;
	if (r < 0)
		*err = xasprintf("%s '%s': the mount table could not be read to check that no mount beneath it "
				 "shows %s — nothing was run", what, g->path, name);
	else
		*err = xasprintf("%s '%s' holds '%s', a mount that shows %s '%s' under another name: "
				 "the view copies it, and the command could %s — grant a narrower tree without it, or "
				 "unmount it", what, g->path, mnt, name, obj, could);
	return -1;
}

struct alias_ctx {
	const char *mi;
	const struct policy_grant *g;
	int is_cwd;
	char **err;
};

/* The store or the credential directory, or a part of either. */
static int alias_one(void *ctx, const char *o, const char *what)
{
	struct alias_ctx *c = ctx;
	char *name = xasprintf("sandbx's own %s", what);
	int r = alias_check(c->mi, c->g, o, name, 1, strcmp(what, "session store") == 0 ? "read your sessions"
							: "read your API key", c->is_cwd, c->err);
	free(name);
	return r;
}

int cli_alias_mounts_check(const char *mi, const struct policy_grant *g, const struct cli_self *s,
			   const struct xdg_paths *x, const char *home, int is_cwd, char **err)
{
	if (g->link || g->is_proc || !g->is_dir)
		return 0;
	int b = mi ? limits_mount_beneath(mi, g->path) : -1;
	if (b == 0)
		return 0;	/* the common case: nothing mounted beneath */
	if (b < 0) {
		*err = xasprintf("%s '%s': the mount table could not be read to check what is mounted beneath it "
				 "— nothing was run", is_cwd ? "the working directory" : cli_flag_name(g->access), g->path);
		return -1;
	}
	if ((g->access & POL_WRITE) && s->exe &&
	    alias_check(mi, g, s->exe, "sandbx's own program", 0, "replace the sandbox itself", is_cwd, err) < 0)
		return -1;
	if (home && alias_check(mi, g, home, "your home directory", 0, "reach your keys and shell start-up files", is_cwd, err) < 0)
		return -1;
	if (!x)
		return 0;
	struct alias_ctx c = { mi, g, is_cwd, err };
	return each_protected(x, alias_one, &c);
}

struct fs_ctx {
	const char *mi;
	const struct policy_grant *g;
	const char *what;
	char dev[32], fs[2 * LIMITS_MAX_PATH];
	char **err;
};

/*
 * Where each of sandbx's own directories lies in the mount table
 * (limits_fs_path), the same for every grant: kept for the table
 * cli_build_policy reads, while it checks its grants, so the table is
 * scanned once per directory rather than once per directory and grant.
 */
struct fs_memo {
	char *obj;
	int r;
	char dev[32], fs[2 * LIMITS_MAX_PATH];
};
static const char *fs_memo_mi;
static struct fs_memo *fs_memo;
static size_t fs_memo_n;

static int fs_path_memo(const char *mi, const char *obj, char *dev, size_t ndev, char *fs, size_t nfs)
{
	if (mi != fs_memo_mi || !mi)
		return limits_fs_path(mi, obj, dev, ndev, fs, nfs);
	struct fs_memo *m = NULL;
	for (size_t i = 0; i < fs_memo_n && !m; i++)
		if (strcmp(fs_memo[i].obj, obj) == 0)
			m = &fs_memo[i];
	if (!m) {
		fs_memo = xrealloc(fs_memo, (fs_memo_n + 1) * sizeof(*fs_memo));
		m = &fs_memo[fs_memo_n++];
		m->obj = xstrdup(obj);
		m->r = limits_fs_path(mi, obj, m->dev, sizeof(m->dev), m->fs, sizeof(m->fs));
	}
	if (m->r < 0)
		return -1;
	if (snprintf(dev, ndev, "%s", m->dev) >= (int)ndev || snprintf(fs, nfs, "%s", m->fs) >= (int)nfs)
		return -1;
	return 0;
}

static void fs_memo_release(void)
{
	for (size_t i = 0; i < fs_memo_n; i++)
		free(fs_memo[i].obj);
	free(fs_memo);
	fs_memo = NULL;
	fs_memo_n = 0;
	fs_memo_mi = NULL;
}

/* The grant and one of sandbx's own directories as their filesystem sees
 * them: the same filesystem, and one path within the other there, is the
 * same tree whatever the names the mount table gives it. */
static int fs_one(void *ctx, const char *o, const char *what)
{
	struct fs_ctx *c = ctx;
	char dev[32], fs[2 * LIMITS_MAX_PATH];
	if (fs_path_memo(c->mi, o, dev, sizeof(dev), fs, sizeof(fs)) < 0) {
		*c->err = xasprintf("%s '%s': the mount table could not be read to check it does not show sandbx's "
				    "own %s '%s' under another name — nothing was run", c->what, c->g->path, what, o);
		return -1;
	}
	if (strcmp(dev, c->dev) != 0 || (!path_within(c->fs, fs) && !path_within(fs, c->fs)))
		return 0;
	*c->err = xasprintf("%s '%s' %s sandbx's own %s '%s' under another name (a bind mount: it is '%s' on "
			    "device %s) — grant a narrower path that leaves it out, or unmount it", c->what, c->g->path,
			    path_within(c->fs, fs) ? "lies in" : "holds", what, o, c->fs, c->dev);
	return -1;
}

int cli_owned_fs_check(const char *mi, const struct policy_grant *g, const struct xdg_paths *x, int is_cwd,
		       char **err)
{
	if (g->link || g->is_proc)
		return 0;
	struct fs_ctx c = { .mi = mi, .g = g, .what = is_cwd ? "the working directory" : cli_flag_name(g->access),
			    .err = err };
	if (!mi || limits_fs_path(mi, g->path, c.dev, sizeof(c.dev), c.fs, sizeof(c.fs)) < 0) {
		*err = xasprintf("%s '%s': the mount table could not be read to check it does not show sandbx's own "
				 "state under another name — nothing was run", c.what, g->path);
		return -1;
	}
	return each_protected(x, fs_one, &c);
}

int cli_cred_links_check(const char *mi, const struct policy_grant *g, const struct xdg_paths *x, int is_cwd,
			 char **err)
{
	int r = 0;
	if (g->link || g->is_proc)
		return 0;
	/* The credential directories resolved (protected_resolve): the
	 * lists kept for cli_build_policy's own x. */
	struct strv own[4] = { { 0 } }, *lists = protected_lists(x, own);
	const struct strv *config = &lists[1];
	for (size_t i = 0; i < config->n && r == 0; i++) {
		char *cred = xasprintf("%s/credentials.toml", config->v[i]);
		char mnt[LIMITS_MAX_PATH] = "";
		const char *what = is_cwd ? "the working directory" : cli_flag_name(g->access);
		struct stat st;
		if (stat(cred, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(cred);
			continue;
		}
		if (!g->is_dir) {
			/* One file: the credential itself under another name (a hard
			 * link, or a bind mount of the file) has its (dev, ino). */
			if (g->dev == st.st_dev && g->ino == st.st_ino) {
				*err = xasprintf("%s '%s' is sandbx's own credential file '%s' under another name (a hard "
						 "link or a bind mount): the command could read your API key — grant another "
						 "file, or remove that link", what, g->path, cred);
				r = -1;
			}
		} else if (st.st_nlink > 1) {
			/* A hard link deep in a tree cannot be found short of walking
			 * it: refused by shape, as for sandbx's own program. */
			int m = g->dev == st.st_dev ? 1
				: mi ? limits_dev_mount_under(mi, g->path, major(st.st_dev), minor(st.st_dev), mnt,
							      sizeof(mnt)) : -1;
			if (m < 0)
				*err = xasprintf("%s '%s': sandbx's own credential file '%s' has %lu hard links and the "
						 "mount table could not be read to tell whether one may lie inside — nothing "
						 "was run", what, g->path, cred, (unsigned long)st.st_nlink);
			else if (m > 0)
				*err = xasprintf("%s '%s' is on the filesystem of sandbx's own credential file '%s', which "
						 "has %lu hard links: one may lie inside and show the command your API key — "
						 "remove the other links (find '%s' -xdev -samefile '%s' lists them)", what,
						 g->path, cred, (unsigned long)st.st_nlink, *mnt ? mnt : g->path, cred);
			r = m == 0 ? 0 : -1;
		}
		free(cred);
	}
	for (int l = 0; l < 4; l++)
		strv_free(&own[l]);
	return r;
}

static int usable_home(const char *h, char **out)
{
	struct stat st;
	*out = NULL;
	if (!h || h[0] != '/')
		return 0;
	char *r = realpath(h, NULL);
	if (!r || stat(r, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(r);
		return 0;
	}
	*out = r;
	return 1;
}

int cli_build_policy(const struct cli_opts *o, int agent, struct policy *p, char **err)
{
	return cli_build_policy_mi(o, agent, p, NULL, err);
}

int cli_build_policy_mi(const struct cli_opts *o, int agent, struct policy *p, char **mountinfo, char **err)
{
	if (mountinfo)
		*mountinfo = NULL;
	struct xdg_paths x;
	struct cli_self self;
	char *xerr = NULL, *home = NULL, cwd[PATH_MAX];
	int have_x = xdg_paths_get(&x, &xerr) == 0;
	int have_cwd = getcwd(cwd, sizeof(cwd)) != NULL, cwd_errno = errno;
	int r = -1;

	free(xerr);
	policy_init(p);
	if (cli_nofile_prepare(err) < 0) {
		if (have_x)
			xdg_paths_release(&x);
		return -1;
	}
	if (cli_self_load(&self, err) < 0) {
		if (have_x)
			xdg_paths_release(&x);
		return -1;
	}
	if (have_x) {
		protected_resolve(&x, protected_cached);
		protected_for = &x;
	}
	stat_memo_on = 1;
	usable_home(getenv("HOME"), &home);

	for (size_t i = 0; i < SBX_ARRAY_LEN(floor_paths); i++) {
		struct stat st;
		char target[PATH_MAX];
		if (lstat(floor_paths[i], &st) < 0)
			continue;	/* e.g. no /lib64 on this architecture */
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(floor_paths[i], target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				policy_add_link(p, floor_paths[i], target);
			}
			continue;
		}
		if (policy_add_grant(p, floor_paths[i], POL_READ | POL_EXEC, err) < 0)
			goto out;
	}
	{
		struct stat st;
		if (lstat(floor_links_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
		    policy_add_grant(p, floor_links_dir, POL_READ, err) < 0)
			goto out;
	}
	p->nfloor = p->ngrants;

	if (o->npaths > 0) {
		for (size_t i = 0; i < o->npaths; i++) {
			const struct cli_path *cp = &o->paths[i];
			char *real = realpath(cp->path, NULL);
			if (real && cp->path[0] != '/' && !have_cwd) {
				*err = xasprintf("cannot read the working directory to place '%s' — name it by its absolute path",
						 cp->path);
				free(real);
				goto out;
			}
			/* What the target may not be comes first (granting it
			 * instead would be refused too), then the symlink rule, which
			 * holds the user's own paths only, not the floor. */
			if (real && (cli_write_tree_check(real, cp->access, err) < 0 ||
				     (have_x && cli_owned_check(real, &x, err) < 0) ||
				     cli_symlink_check(cp->path, cp->access, have_cwd ? cwd : "/", real, err) < 0)) {
				free(real);
				goto out;
			}
			if (!real && errno == ENOENT && cp->path[0] == '~') {
				/* --allow-read=~/src: no shell expands that '~' */
				int mine = cp->path[1] == '\0' || cp->path[1] == '/';
				*err = xasprintf("%s '%s' starts with '~', which the shell did not expand (it does not after "
						 "'=' or in quotes) — write %s %s without quotes, or %s%s", cli_flag_name(cp->access),
						 cp->path, cli_flag_name(cp->access), cp->path, mine ? "$HOME" : "its absolute path",
						 mine ? cp->path + 1 : "");
				goto out;
			}
			if (!real) {
				/* policy_add_grant says why it does not resolve */
				if (policy_add_grant(p, cp->path, cp->access, err) < 0)
					goto out;
				*err = xasprintf("%s '%s' changed while it was checked — run again", cli_flag_name(cp->access),
						 cp->path);
				goto out;
			}
			/* The path just vetted, not the given one resolved again: a
			 * link swapped in since cannot redirect the grant. */
			if (policy_add_grant_resolved(p, real, cp->access, err) < 0) {
				free(real);
				goto out;
			}
			const struct policy_grant *g = policy_find(p, real);
			if ((cp->access & POL_WRITE) && cli_self_check(real, g->dev, g->ino, &self, 0, err) < 0) {
				free(real);
				goto out;
			}
			free(real);
		}
		/* The CLI grants read wherever it grants write (the library keeps
		 * the axes apart: a write-only grant is expressible there). */
		for (size_t i = 0; i < p->ngrants; i++)
			if (p->grants[i].access & POL_WRITE)
				p->grants[i].access |= POL_READ;
	} else {
		if (!have_cwd) {
			if (cwd_errno == ENOENT)
				*err = xstrdup("the working directory was deleted — cd into a project directory");
			else if (cwd_errno == ERANGE || cwd_errno == ENAMETOOLONG)
				*err = xasprintf("the working directory's path is longer than %d bytes — cd into a directory with "
						 "a shorter path, or name what to grant with --allow-read/--allow-write", PATH_MAX);
			else
				*err = xasprintf("cannot read the working directory (%s) — cd into a project directory",
						 strerror(cwd_errno));
			goto out;
		}
		if (cli_cwd_check(cwd, home, p, have_x ? &x : NULL, err) < 0)
			goto out;
		if (policy_add_grant_resolved(p, cwd, POL_READ | POL_WRITE, err) < 0)
			goto out;
		const struct policy_grant *g = policy_find(p, cwd);
		if (cli_self_check(cwd, g->dev, g->ino, &self, 1, err) < 0)
			goto out;
	}

	/* Every writable grant, the working-directory default included:
	 * none may hold a mount of the kernel's interfaces, wherever the
	 * host mounted one (/proc, /sys and /dev are refused above by name). */
	char *mi = read_mountinfo();
	fs_memo_mi = mi;
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		int is_cwd = o->npaths == 0 && !cli_is_floor(g->path);
		if (!g->link && !g->is_proc &&
		    (cli_mounts_check(mi, g->path, g->access, o->npaths == 0, err) < 0 ||
		     ((g->access & POL_WRITE) && g->is_dir &&
		      cli_self_links_check(mi, g->path, g->dev, &self, o->npaths == 0, err) < 0) ||
		     cli_self_fs_check(mi, g, &self, o->npaths == 0, err) < 0 ||
		     cli_alias_mounts_check(mi, g, &self, have_x ? &x : NULL, is_cwd ? home : NULL, is_cwd, err) < 0 ||
		     (have_x && cli_owned_fs_check(mi, g, &x, is_cwd, err) < 0) ||
		     (have_x && !cli_is_floor(g->path) && cli_cred_links_check(mi, g, &x, is_cwd, err) < 0))) {
			free(mi);
			goto out;
		}
	}
	/* A writable grant and one with execute (the floor's included) that
	 * show the same files under two names: a program the command writes
	 * would run from the execute tree.  The same table, read once; a stat
	 * per directory above each grant. */
	if (cli_exec_alias_fs_check(mi, p, o->npaths == 0, err) < 0 ||
	    cli_exec_alias_obj_check(p, o->npaths == 0, err) < 0) {
		free(mi);
		goto out;
	}
	/* The host's POSIX message queues: an mqueue mount a grant holds
	 * (systemd's /dev/mqueue under --allow-read /dev) is the host's ipc
	 * namespace's; the view puts the sandbox's own there. */
	/* The machine's huge pages: a hugetlbfs mount a grant holds (systemd's
	 * /dev/hugepages under --allow-read /dev), where mapping a file takes
	 * pages of the pool; the view puts an empty directory there. */
	if (cli_mqueue_masks(mi, p, err) < 0 || cli_hugetlbfs_masks(mi, p, err) < 0) {
		free(mi);
		goto out;
	}
	fs_memo_release();	/* before the table it was kept for goes */
	if (mountinfo)
		*mountinfo = mi;
	else
		free(mi);

	for (size_t i = 0; i < SBX_ARRAY_LEN(floor_env); i++)
		strv_push(&p->env, floor_env[i]);
	for (size_t i = 0; i < o->env.n; i++)
		if (!strv_has(&p->env, o->env.v[i]))
			strv_push(&p->env, o->env.v[i]);

	if (cli_policy_network(o, p, err) < 0)
		goto out;
	if (cli_policy_limits(o, agent, p, err) < 0)
		goto out;

	if (getcwd(cwd, sizeof(cwd))) {
		for (size_t i = 0; i < p->ngrants; i++) {
			const struct policy_grant *g = &p->grants[i];
			if (!g->link && g->is_dir && !g->is_proc && path_within(cwd, g->path)) {
				p->cwd = xstrdup(cwd);
				break;
			}
		}
	}
	policy_sort(p);
	r = 0;
out:
	fs_memo_release();
	stat_memo_release();
	if (r < 0) {
		policy_release(p);
		/* Refused after the table was handed out (the network, the
		 * limits): the caller gets none. */
		if (mountinfo) {
			free(*mountinfo);
			*mountinfo = NULL;
		}
	}
	free(home);
	cli_self_release(&self);
	if (have_x) {
		protected_for = NULL;
		for (int l = 0; l < 4; l++)
			strv_free(&protected_cached[l]);
		xdg_paths_release(&x);
	}
	return r;
}
