/*
 * cli_policy_exec.c — the part of cli_build_policy() that keeps a writable
 * grant and a grant with execute (the floor's included) from showing the
 * same files under two names.
 *
 * A grant nested by name inside another keeps its own, narrower rights at
 * its path: its mount covers the outer grant's there, and a grant without
 * write is mounted read-only, one without execute noexec.  That holds only
 * when the two names are the one path.  A bind mount gives a tree a second
 * name: `--allow-write D --allow-exec /opt/tools`, with /opt/tools a bind of
 * D/tools, shows the files writable at D/tools and executable at
 * /opt/tools, and a program the command writes runs from the execute tree
 * (and stays there, on the host).  So every writable grant is compared with
 * every grant that has execute but not write, by where their filesystem
 * holds them (the mount table: device, the mount's root and the rest of
 * the path, with each mount beneath either grant, which the view copies
 * with it) and by object ((dev, ino) of each directory above them).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_policy.h"
#include "sandbox/limits.h"
#include "util/util.h"

/* A tree the view shows with a grant's rights: the grant itself (own) or
 * a mount beneath it, copied with it. */
struct region {
	size_t g;
	int own;
	char dev[32];
	char *fs;	/* its path within the filesystem */
	char *name;	/* where the view shows it */
};

struct pass {
	const struct policy *p;
	const int *kind;	/* per grant: 0 ignored, 'w' writable, 'x' execute without write */
	size_t *best;		/* per grant: 1 + the length of its own mount's mount point, 0 none yet */
	struct region *own;	/* per grant */
	struct region *sub;
	size_t nsub;
	int toolong;
};

static char *fs_join(const char *root, const char *rest)
{
	return xasprintf("%s%s", strcmp(root, "/") == 0 && *rest ? "" : root, rest);
}

/* m lies in a grant nested by name strictly inside grant i, whose own
 * mount covers it in the view. */
static int covered(const struct policy *p, size_t i, const char *m)
{
	const char *gp = p->grants[i].path;
	for (size_t j = 0; j < p->ngrants; j++) {
		const struct policy_grant *h = &p->grants[j];
		if (j != i && !h->link && strcmp(h->path, gp) != 0 && path_within(h->path, gp) &&
		    path_within(m, h->path))
			return 1;
	}
	return 0;
}

static int on_mount(void *ctx, const char *m, const char *root, const char *devno)
{
	struct pass *c = ctx;
	const struct policy *p = c->p;
	size_t ml = strlen(m);
	if (strlen(devno) >= sizeof(c->own[0].dev)) {
		c->toolong = 1;
		return -1;
	}
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (!c->kind[i])
			continue;
		/* The mount holding the grant: the longest mount point above it,
		 * the last listed when one is mounted over another. */
		if (path_within(g->path, m) && ml + 1 >= c->best[i]) {
			struct region *o = &c->own[i];
			free(o->fs);
			o->fs = fs_join(root, g->path + (ml == 1 ? 0 : ml));
			strcpy(o->dev, devno);
			c->best[i] = ml + 1;
		}
		if (g->is_dir && strcmp(m, g->path) != 0 && path_within(m, g->path) && !covered(p, i, m)) {
			c->sub = xrealloc(c->sub, (c->nsub + 1) * sizeof(*c->sub));
			struct region *s = &c->sub[c->nsub++];
			s->g = i;
			s->own = 0;
			strcpy(s->dev, devno);
			s->fs = xstrdup(root);
			s->name = xstrdup(m);
		}
	}
	return 0;
}

/* The two regions nest by name exactly as their filesystem nests them:
 * the inner one is the outer one's own tree at that name, which the inner
 * one's mount covers (narrower rights inside). */
static int nested_as_named(const struct region *a, const struct region *b)
{
	const struct region *o = a, *in = b;
	if (!path_within(in->name, o->name)) {
		o = b;
		in = a;
		if (!path_within(in->name, o->name))
			return 0;
	}
	char *want = fs_join(o->fs, in->name + (strcmp(o->name, "/") == 0 ? 0 : strlen(o->name)));
	int same = strcmp(want, in->fs) == 0;
	free(want);
	return same;
}

static char *label(const struct policy *p, size_t i, int cwd_default)
{
	const struct policy_grant *g = &p->grants[i];
	if (i < p->nfloor && !(g->access & POL_WRITE))
		return xasprintf("the system directory '%s'", g->path);
	if (cwd_default && i >= p->nfloor)
		return xasprintf("the working directory '%s'", g->path);
	return xasprintf("%s '%s'", cli_flag_name(g->access), g->path);
}

static const char fix_own[] = "grant the tree by its own name (a grant nested by name keeps its narrower "
			      "rights), or unmount it";
static const char fix_sub[] = "grant a narrower tree without it, or unmount it";

static void refuse(const struct policy *p, const struct region *w, const struct region *x, int cwd_default,
		   char **err)
{
	char *wl = label(p, w->g, cwd_default), *xl = label(p, x->g, cwd_default);
	int holds = path_within(x->fs, w->fs);
	if (w->own && x->own)
		*err = xasprintf("%s %s %s under another name (a bind mount: on device %s, '%s' is within "
				 "'%s'): a program the command writes could be run from the execute tree — %s",
				 wl, strcmp(w->fs, x->fs) == 0 ? "is" : holds ? "holds" : "lies in", xl, w->dev,
				 holds ? x->fs : w->fs, holds ? w->fs : x->fs, fix_own);
	else if (x->own)
		*err = xasprintf("%s holds '%s', a mount that shows %s under another name: the view copies "
				 "it writable, and a program the command writes there could be run from the "
				 "execute tree — %s", wl, w->name, xl, fix_sub);
	else if (w->own)
		*err = xasprintf("%s holds '%s', a mount that shows %s under another name: the view copies "
				 "it with execute, and a program the command writes through '%s' could be run "
				 "there — %s", xl, x->name, wl, w->name, fix_sub);
	else
		*err = xasprintf("%s holds '%s' and %s holds '%s', mounts that show the same files (on "
				 "device %s): a program the command writes through the one could be run from "
				 "the other — unmount one, or grant narrower trees", wl, w->name, xl, x->name,
				 w->dev);
	free(wl);
	free(xl);
}

static int overlap(const struct region *a, const struct region *b)
{
	return strcmp(a->dev, b->dev) == 0 && (path_within(a->fs, b->fs) || path_within(b->fs, a->fs)) &&
	       !nested_as_named(a, b);
}

static int grant_kind(const struct policy_grant *g)
{
	if (g->link || g->is_proc)
		return 0;
	if (g->access & POL_WRITE)
		return 'w';
	return (g->access & POL_EXEC) ? 'x' : 0;
}

int cli_exec_alias_fs_check(const char *mi, const struct policy *p, int cwd_default, char **err)
{
	size_t n = p->ngrants;
	int nw = 0, nx = 0, r = 0;
	int *kind = xcalloc(n ? n : 1, sizeof(*kind));
	for (size_t i = 0; i < n; i++) {
		kind[i] = grant_kind(&p->grants[i]);
		nw += kind[i] == 'w';
		nx += kind[i] == 'x';
	}
	if (nw == 0 || nx == 0) {
		free(kind);
		return 0;
	}
	struct pass c = { .p = p, .kind = kind, .best = xcalloc(n, sizeof(size_t)),
			  .own = xcalloc(n, sizeof(struct region)) };
	for (size_t i = 0; i < n; i++) {
		c.own[i].g = i;
		c.own[i].own = 1;
		c.own[i].name = p->grants[i].path;
	}
	/* One pass over the table for every grant at once. */
	int bad = !mi || limits_each_mount(mi, on_mount, &c) != 0;
	for (size_t i = 0; i < n && !bad; i++)
		bad = kind[i] && !c.own[i].fs;
	if (bad) {
		*err = xasprintf("the mount table could not be read to check that no writable grant shows an "
				 "execute grant's files under another name — nothing was run");
		r = -1;
	}
	/* Each writable region (the grant, the mounts beneath it) against each
	 * execute one. */
	const struct region **wa = xcalloc(1 + c.nsub, sizeof(*wa)), **xa = xcalloc(1 + c.nsub, sizeof(*xa));
	for (size_t i = 0; i < n && r == 0; i++) {
		if (kind[i] != 'w')
			continue;
		for (size_t j = 0; j < n && r == 0; j++) {
			if (kind[j] != 'x')
				continue;
			size_t nwa = 0, nxa = 0;
			wa[nwa++] = &c.own[i];
			xa[nxa++] = &c.own[j];
			for (size_t k = 0; k < c.nsub; k++) {
				if (c.sub[k].g == i && !path_within(c.sub[k].name, p->grants[j].path))
					wa[nwa++] = &c.sub[k];
				if (c.sub[k].g == j && !path_within(c.sub[k].name, p->grants[i].path))
					xa[nxa++] = &c.sub[k];
			}
			for (size_t a = 0; a < nwa && r == 0; a++)
				for (size_t b = 0; b < nxa && r == 0; b++)
					if (overlap(wa[a], xa[b])) {
						refuse(p, wa[a], xa[b], cwd_default, err);
						r = -1;
					}
		}
	}
	free(wa);
	free(xa);
	for (size_t i = 0; i < n; i++)
		free(c.own[i].fs);
	for (size_t k = 0; k < c.nsub; k++) {
		free(c.sub[k].fs);
		free(c.sub[k].name);
	}
	free(c.sub);
	free(c.own);
	free(c.best);
	free(kind);
	return r;
}

/* A grant and each directory above it: (dev, ino) and the length of the
 * name it has there. */
struct anc {
	size_t n;
	dev_t *dev;
	ino_t *ino;
	size_t *len;
};

static void anc_load(const struct policy_grant *g, struct anc *a)
{
	size_t pl = strlen(g->path);
	a->n = 0;
	a->dev = xcalloc(pl + 1, sizeof(*a->dev));
	a->ino = xcalloc(pl + 1, sizeof(*a->ino));
	a->len = xcalloc(pl + 1, sizeof(*a->len));
	/* The grant itself is pinned: no stat. */
	a->dev[0] = g->dev;
	a->ino[0] = g->ino;
	a->len[0] = pl;
	a->n = 1;
	char *p = xstrdup(g->path);
	for (size_t l = pl; l > 1;) {
		while (l > 1 && p[l - 1] != '/')
			l--;
		if (l > 1)
			l--;		/* the slash before the last name */
		p[l] = '\0';
		struct stat st;
		if (stat(l == 0 ? "/" : p, &st) == 0) {
			a->dev[a->n] = st.st_dev;
			a->ino[a->n] = st.st_ino;
			a->len[a->n] = l == 0 ? 1 : l;
			a->n++;
		}
		if (l <= 1)
			break;
	}
	free(p);
}

static void anc_free(struct anc *a)
{
	free(a->dev);
	free(a->ino);
	free(a->len);
}

/* A directory at or above grant g (its ancestry a) that is grant o's object
 * under a name other than o's: its length, else 0. */
static size_t anc_alias(const struct policy_grant *g, const struct anc *a, const struct policy_grant *o)
{
	size_t ol = strlen(o->path);
	for (size_t k = 0; k < a->n; k++)
		if (a->dev[k] == o->dev && a->ino[k] == o->ino &&
		    !(a->len[k] == ol && strncmp(g->path, o->path, ol) == 0))
			return a->len[k];
	return 0;
}

int cli_exec_alias_obj_check(const struct policy *p, int cwd_default, char **err)
{
	size_t n = p->ngrants;
	int r = 0, nw = 0, nx = 0;
	for (size_t i = 0; i < n; i++) {
		int k = grant_kind(&p->grants[i]);
		nw += k == 'w';
		nx += k == 'x';
	}
	if (nw == 0 || nx == 0)
		return 0;
	struct anc *a = xcalloc(n, sizeof(*a));
	for (size_t i = 0; i < n; i++)
		if (grant_kind(&p->grants[i]))
			anc_load(&p->grants[i], &a[i]);
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct policy_grant *w = &p->grants[i];
		if (grant_kind(w) != 'w')
			continue;
		for (size_t j = 0; j < n && r == 0; j++) {
			const struct policy_grant *x = &p->grants[j];
			if (grant_kind(x) != 'x')
				continue;
			const struct policy_grant *in = x, *out = w;
			size_t l = anc_alias(x, &a[j], w);
			if (!l) {
				in = w;
				out = x;
				l = anc_alias(w, &a[i], x);
			}
			if (!l)
				continue;
			char *wl = label(p, i, cwd_default), *xl = label(p, j, cwd_default);
			*err = xasprintf("%s %s %s under another name (a bind mount: '%.*s' is '%s'): a "
					 "program the command writes could be run from the execute tree — %s", wl,
					 l == strlen(in->path) ? "is" : in == x ? "holds" : "lies in", xl, (int)l,
					 in->path, out->path, fix_own);
			free(wl);
			free(xl);
			r = -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (grant_kind(&p->grants[i]))
			anc_free(&a[i]);
	free(a);
	return r;
}
