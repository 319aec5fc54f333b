#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/policy.h"

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
}

void policy_release(struct policy *p)
{
	for (size_t i = 0; i < p->ngrants; i++) {
		free(p->grants[i].path);
		free(p->grants[i].link);
	}
	free(p->grants);
	strv_free(&p->env);
	strv_free(&p->dns);
	strv_free(&p->mqueue);
	strv_free(&p->hugetlbfs);
	free(p->cwd);
	memset(p, 0, sizeof(*p));
}

static struct policy_grant *grant_slot(struct policy *p, const char *path, char **err)
{
	for (size_t i = 0; i < p->ngrants; i++)
		if (strcmp(p->grants[i].path, path) == 0)
			return &p->grants[i];
	if (p->ngrants >= POLICY_MAX_GRANTS) {
		if (p->nfloor)
			*err = xasprintf("too many path grants at '%s': at most %zu can be given (%zu of the %d "
					 "are the floor every sandbox gets) — grant a common parent instead",
					 path, POLICY_MAX_GRANTS - p->nfloor, p->nfloor, POLICY_MAX_GRANTS);
		else
			*err = xasprintf("too many path grants (at most %d) at '%s' — grant a common parent instead",
					 POLICY_MAX_GRANTS, path);
		return NULL;
	}
	p->grants = xrealloc(p->grants, (p->ngrants + 1) * sizeof(*p->grants));
	struct policy_grant *g = &p->grants[p->ngrants++];
	memset(g, 0, sizeof(*g));
	g->path = xstrdup(path);
	return g;
}

static int add_grant(struct policy *p, const char *path, unsigned access, int exact, char **err)
{
	char *real;
	struct stat st;

	if (!path || !*path) {
		*err = xstrdup("empty path in a grant — name a file or directory");
		return -1;
	}
	real = realpath(path, NULL);
	if (!real) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			*err = xasprintf("granted path '%s' does not exist — create it or grant an existing path", path);
		else
			*err = xasprintf("cannot resolve granted path '%s': %s", path, strerror(e));
		return -1;
	}
	if (exact && strcmp(real, path) != 0) {
		*err = xasprintf("granted path '%s' now resolves to '%s': it changed while it was checked — "
				 "look at what changed it, then run again", path, real);
		free(real);
		return -1;
	}
	if (lstat(real, &st) < 0) {
		*err = xasprintf("cannot stat granted path '%s': %s", real, strerror(errno));
		free(real);
		return -1;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		*err = xasprintf("granted path '%s' is neither a directory nor a regular file — grant its directory", real);
		free(real);
		return -1;
	}
	struct policy_grant *g = grant_slot(p, real, err);
	if (!g) {
		free(real);
		return -1;
	}
	g->access |= access;
	g->is_dir = S_ISDIR(st.st_mode);
	g->is_proc = path_within(real, "/proc");
	g->dev = st.st_dev;
	g->ino = st.st_ino;
	free(g->link);
	g->link = NULL;
	free(real);
	return 0;
}

int policy_add_grant(struct policy *p, const char *path, unsigned access, char **err)
{
	return add_grant(p, path, access, 0, err);
}

int policy_add_grant_resolved(struct policy *p, const char *real, unsigned access, char **err)
{
	return add_grant(p, real, access, 1, err);
}

void policy_add_link(struct policy *p, const char *path, const char *target)
{
	char *err = NULL;
	struct policy_grant *g = grant_slot(p, path, &err);
	if (!g) {
		free(err);
		return;
	}
	free(g->link);
	g->link = xstrdup(target);
}

const struct policy_grant *policy_find(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->ngrants; i++)
		if (strcmp(p->grants[i].path, path) == 0)
			return &p->grants[i];
	return NULL;
}

static int grant_cmp(const void *a, const void *b)
{
	const struct policy_grant *x = a, *y = b;
	return strcmp(x->path, y->path);
}

void policy_sort(struct policy *p)
{
	/* Lexical order puts "/a" before "/a/b" and "/a b" after "/a/..."? No:
	 * ' ' < '/', so "/a b" sorts before "/a/b" — harmless, since only the
	 * parent-before-child property matters and a parent is a prefix. */
	if (p->ngrants > 1)
		qsort(p->grants, p->ngrants, sizeof(*p->grants), grant_cmp);
}

static void append(char **s, const char *sep, const char *v)
{
	char *n = *s ? xasprintf("%s%s%s", *s, sep, v) : xstrdup(v);
	free(*s);
	*s = n;
}

char *policy_escape_path(const char *path)
{
	/* The summary's separators (' ' between classes, '=' after a class,
	 * ',' between paths) and the escape character itself, as \xNN: the
	 * scheme the audit record uses for control characters. */
	return str_hex_escape(path, " ,=\\", 0);
}

/* The summary's classes, in the order they are printed: every mix of the
 * three rights has its own, so no right a grant holds goes unsaid (an
 * rwx grant shown as rx would hide that the command may write there). */
static const struct {
	unsigned access;
	const char *name;
} describe_classes[] = {
	{ POL_READ | POL_EXEC, "rx" },
	{ POL_READ, "ro" },
	{ POL_READ | POL_WRITE, "rw" },
	{ POL_WRITE, "wo" },
	{ POL_READ | POL_WRITE | POL_EXEC, "rwx" },
	{ POL_WRITE | POL_EXEC, "wx" },
	{ POL_EXEC, "xo" },
	{ 0, "none" },
};

const char *policy_access_class(unsigned access)
{
	for (size_t c = 0; c < SBX_ARRAY_LEN(describe_classes); c++)
		if (describe_classes[c].access == (access & (POL_READ | POL_WRITE | POL_EXEC)))
			return describe_classes[c].name;
	return "none";	/* not reached: the table holds every mix */
}

char *policy_describe_paths(const struct policy *p)
{
	char *out = NULL;
	for (size_t c = 0; c < SBX_ARRAY_LEN(describe_classes); c++) {
		char *list = NULL;
		for (size_t i = 0; i < p->ngrants; i++) {
			const struct policy_grant *g = &p->grants[i];
			if (g->link || (g->access & (POL_READ | POL_WRITE | POL_EXEC)) != describe_classes[c].access)
				continue;
			char *e = policy_escape_path(g->path);
			append(&list, ",", e);
			free(e);
		}
		if (!list)
			continue;
		char *cls = xasprintf("%s=%s", describe_classes[c].name, list);
		append(&out, " ", cls);
		free(cls);
		free(list);
	}
	return out ? out : xstrdup("");
}

char *policy_describe_net(const struct policy *p)
{
	char *s = NULL;
	switch (p->net) {
	case POL_NET_NONE:
		return xstrdup("denied");
	case POL_NET_ANY:
		return xstrdup("any");
	case POL_NET_PORTS:
		for (size_t i = 0; i < p->nports; i++) {
			char b[8];
			snprintf(b, sizeof(b), "%u", p->ports[i]);
			append(&s, ",", b);
		}
		char *r = xasprintf("ports=%s", s ? s : "");
		free(s);
		return r;
	}
	return xstrdup("denied");
}

/*
 * argv format, one option per word group:
 *   --grant ACCESS DEV INO PATH     ACCESS: any of r w x, or "-" for none
 *   --link PATH TARGET
 *   --env NAME
 *   --net none|any|ports:P,P
 *   --dns NAME   --dns-tcp   --unix
 *   --limit KIND VALUE
 *   --cwd PATH
 *   --
 */
static const char *const limit_names[LIM__COUNT] = { "procs", "memory", "cpu", "fsize", "nofile" };

void policy_to_argv(const struct policy *p, struct strv *out)
{
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (g->link) {
			strv_push(out, "--link");
			strv_push(out, g->path);
			strv_push(out, g->link);
			continue;
		}
		char acc[4], *q = acc;
		if (g->access & POL_READ) *q++ = 'r';
		if (g->access & POL_WRITE) *q++ = 'w';
		if (g->access & POL_EXEC) *q++ = 'x';
		if (q == acc) *q++ = '-';
		*q = '\0';
		strv_push(out, "--grant");
		strv_push(out, acc);
		strv_push_own(out, xasprintf("%llu", (unsigned long long)g->dev));
		strv_push_own(out, xasprintf("%llu", (unsigned long long)g->ino));
		strv_push(out, g->path);
	}
	for (size_t i = 0; i < p->env.n; i++) {
		strv_push(out, "--env");
		strv_push(out, p->env.v[i]);
	}
	strv_push(out, "--net");
	if (p->net == POL_NET_PORTS) {
		char *d = policy_describe_net(p);
		d[5] = ':';	/* "ports=" -> "ports:" */
		strv_push_own(out, d);
	} else {
		strv_push(out, p->net == POL_NET_ANY ? "any" : "none");
	}
	for (size_t i = 0; i < p->dns.n; i++) {
		strv_push(out, "--dns");
		strv_push(out, p->dns.v[i]);
	}
	if (p->dns_over_tcp)
		strv_push(out, "--dns-tcp");
	if (p->allow_unix)
		strv_push(out, "--unix");
	for (int k = 0; k < LIM__COUNT; k++) {
		if (!p->limits[k])
			continue;
		strv_push(out, "--limit");
		strv_push(out, limit_names[k]);
		strv_push_own(out, xasprintf("%llu", (unsigned long long)p->limits[k]));
	}
	if (p->cwd) {
		strv_push(out, "--cwd");
		strv_push(out, p->cwd);
	}
	for (size_t i = 0; i < p->mqueue.n; i++) {
		strv_push(out, "--mqueue");
		strv_push(out, p->mqueue.v[i]);
	}
	for (size_t i = 0; i < p->hugetlbfs.n; i++) {
		strv_push(out, "--hugetlbfs");
		strv_push(out, p->hugetlbfs.v[i]);
	}
}

static int need(int i, int k, int argc, const char *opt, char **err)
{
	if (i + k >= argc) {
		*err = xasprintf("helper: '%s' is missing its value", opt);
		return -1;
	}
	return 0;
}

int policy_from_argv(struct policy *p, char **argv, int argc, char **err)
{
	int i = 0;
	while (i < argc) {
		const char *o = argv[i];
		uint64_t a, b;
		if (strcmp(o, "--") == 0)
			return i;
		if (strcmp(o, "--grant") == 0) {
			if (need(i, 4, argc, o, err) < 0)
				return -1;
			const char *acc = argv[i + 1];
			unsigned access = 0;
			for (const char *c = acc; *c; c++) {
				if (*c == 'r') access |= POL_READ;
				else if (*c == 'w') access |= POL_WRITE;
				else if (*c == 'x') access |= POL_EXEC;
				else if (*c != '-') { *err = xasprintf("helper: bad access '%s'", acc); return -1; }
			}
			if (parse_u64(argv[i + 2], 0, UINT64_MAX, &a) < 0 ||
			    parse_u64(argv[i + 3], 0, UINT64_MAX, &b) < 0 || argv[i + 4][0] != '/') {
				*err = xasprintf("helper: bad grant for '%s'", argv[i + 4]);
				return -1;
			}
			struct policy_grant *g = grant_slot(p, argv[i + 4], err);
			if (!g)
				return -1;
			g->access = access;
			g->dev = (dev_t)a;
			g->ino = (ino_t)b;
			g->is_proc = path_within(g->path, "/proc");
			g->is_dir = -1;	/* learnt when the helper opens it */
			i += 5;
		} else if (strcmp(o, "--link") == 0) {
			if (need(i, 2, argc, o, err) < 0)
				return -1;
			policy_add_link(p, argv[i + 1], argv[i + 2]);
			i += 3;
		} else if (strcmp(o, "--env") == 0) {
			if (need(i, 1, argc, o, err) < 0)
				return -1;
			strv_push(&p->env, argv[i + 1]);
			i += 2;
		} else if (strcmp(o, "--net") == 0) {
			if (need(i, 1, argc, o, err) < 0)
				return -1;
			const char *v = argv[i + 1];
			if (strcmp(v, "none") == 0) {
				p->net = POL_NET_NONE;
			} else if (strcmp(v, "any") == 0) {
				p->net = POL_NET_ANY;
			} else if (strncmp(v, "ports:", 6) == 0) {
				p->net = POL_NET_PORTS;
				char *dup = xstrdup(v + 6), *save = NULL;
				for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
					if (p->nports >= POLICY_MAX_PORTS || parse_u64(t, 1, 65535, &a) < 0) {
						*err = xasprintf("helper: bad port list '%s'", v);
						free(dup);
						return -1;
					}
					p->ports[p->nports++] = (uint16_t)a;
				}
				free(dup);
			} else {
				*err = xasprintf("helper: bad network policy '%s'", v);
				return -1;
			}
			i += 2;
		} else if (strcmp(o, "--dns") == 0) {
			if (need(i, 1, argc, o, err) < 0)
				return -1;
			strv_push(&p->dns, argv[i + 1]);
			i += 2;
		} else if (strcmp(o, "--dns-tcp") == 0) {
			p->dns_over_tcp = 1;
			i++;
		} else if (strcmp(o, "--unix") == 0) {
			p->allow_unix = 1;
			i++;
		} else if (strcmp(o, "--limit") == 0) {
			if (need(i, 2, argc, o, err) < 0)
				return -1;
			int k;
			for (k = 0; k < LIM__COUNT; k++)
				if (strcmp(argv[i + 1], limit_names[k]) == 0)
					break;
			if (k == LIM__COUNT || parse_u64(argv[i + 2], 0, UINT64_MAX, &a) < 0) {
				*err = xasprintf("helper: bad limit '%s'", argv[i + 1]);
				return -1;
			}
			p->limits[k] = a;
			i += 3;
		} else if (strcmp(o, "--mqueue") == 0 || strcmp(o, "--hugetlbfs") == 0) {
			if (need(i, 1, argc, o, err) < 0)
				return -1;
			if (argv[i + 1][0] != '/') {
				*err = xasprintf("helper: bad %s mount point '%s'", o + 2, argv[i + 1]);
				return -1;
			}
			strv_push(o[2] == 'm' ? &p->mqueue : &p->hugetlbfs, argv[i + 1]);
			i += 2;
		} else if (strcmp(o, "--cwd") == 0) {
			if (need(i, 1, argc, o, err) < 0)
				return -1;
			free(p->cwd);
			p->cwd = xstrdup(argv[i + 1]);
			i += 2;
		} else {
			*err = xasprintf("helper: unknown word '%s'", o);
			return -1;
		}
	}
	*err = xstrdup("helper: missing '--' before the program");
	return -1;
}

const char *const policy_scratch_dirs[POLICY_NSCRATCH] = { "/dev/shm", "/tmp" };

int policy_scratch_private(const struct policy *p, size_t i)
{
	for (size_t g = 0; g < p->ngrants; g++)
		if (path_within(p->grants[g].path, policy_scratch_dirs[i]))
			return 0;
	return 1;
}
