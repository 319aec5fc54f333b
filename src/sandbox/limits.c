/*
 * limits.c — the pure part of the resource limits (limits.h): formatting,
 * rlimit planning and the parsers of /proc/self/cgroup and mountinfo.
 * No syscalls here; the helper side is limits_sys.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sandbox/limits.h"
#include "util/util.h"

static const char *const kind_words[LIM__COUNT] = {
	[LIM_PROCS] = "process", [LIM_MEMORY] = "memory", [LIM_CPU] = "CPU time",
	[LIM_FSIZE] = "file size", [LIM_NOFILE] = "open files",
};

const char *limits_kind_word(int kind)
{
	return (unsigned)kind < LIM__COUNT ? kind_words[kind] : "resource";
}

void limits_defaults(int agent, uint64_t ram, uint64_t out[LIM__COUNT])
{
	for (int k = 0; k < LIM__COUNT; k++)
		out[k] = 0;
	if (!agent) {
		out[LIM_PROCS] = LIMITS_RUN_PROCS;
		return;
	}
	out[LIM_PROCS] = LIMITS_AGENT_PROCS;
	out[LIM_FSIZE] = LIMITS_AGENT_FSIZE;
	out[LIM_NOFILE] = LIMITS_AGENT_NOFILE;
	if (ram) {
		uint64_t half = (ram / 2) & ~((1ULL << 20) - 1);
		out[LIM_MEMORY] = half < LIMITS_AGENT_MEMORY_MIN ? LIMITS_AGENT_MEMORY_MIN : half;
	}
}

char *limits_format(int kind, uint64_t v)
{
	static const struct { uint64_t mul; char c; } units[] = {
		{ 1ULL << 40, 'T' }, { 1ULL << 30, 'G' }, { 1ULL << 20, 'M' }, { 1ULL << 10, 'K' },
	};
	if (kind == LIM_MEMORY || kind == LIM_FSIZE) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(units); i++)
			if (v >= units[i].mul && v % units[i].mul == 0)
				return xasprintf("%llu%c", (unsigned long long)(v / units[i].mul), units[i].c);
		return xasprintf("%lluB", (unsigned long long)v);
	}
	if (kind == LIM_CPU)
		return xasprintf("%llus", (unsigned long long)v);
	return xasprintf("%llu", (unsigned long long)v);
}

char *limits_hit_message(const struct policy *p, int kind)
{
	if ((unsigned)kind >= LIM__COUNT)
		return xstrdup("the command was killed: a resource limit was reached");
	if (!p->limits[kind])
		return xasprintf("the command was killed: %s limit reached", kind_words[kind]);
	char *v = limits_format(kind, p->limits[kind]);
	char *m = xasprintf("the command was killed: %s limit %s reached", kind_words[kind], v);
	free(v);
	return m;
}

static rlim_t cap_at(rlim_t cur, uint64_t want)
{
	if (want >= (uint64_t)RLIM_INFINITY)
		return cur;
	return cur == RLIM_INFINITY || (rlim_t)want < cur ? (rlim_t)want : cur;
}

int limits_resource(int kind)
{
	static const int res[LIM__COUNT] = {
		[LIM_PROCS] = RLIMIT_NPROC, [LIM_MEMORY] = RLIMIT_AS, [LIM_CPU] = RLIMIT_CPU,
		[LIM_FSIZE] = RLIMIT_FSIZE, [LIM_NOFILE] = RLIMIT_NOFILE,
	};
	return (unsigned)kind < LIM__COUNT ? res[kind] : -1;
}

int limits_plan_rlimit(int kind, uint64_t v, unsigned extra, const struct rlimit *cur,
		       struct rlimit *out)
{
	uint64_t soft = v, hard = v;
	if (kind == LIM_PROCS)
		soft = hard = v > UINT64_MAX - extra ? UINT64_MAX : v + extra;
	if (kind == LIM_CPU && v < UINT64_MAX)
		hard = v + 1;
	out->rlim_max = cap_at(cur->rlim_max, hard);
	out->rlim_cur = cap_at(cur->rlim_cur, soft);
	if (out->rlim_max != RLIM_INFINITY && (out->rlim_cur == RLIM_INFINITY || out->rlim_cur > out->rlim_max))
		out->rlim_cur = out->rlim_max;
	return limits_resource(kind);
}

static const char *const ucount_names[LIMITS_UC__COUNT] = {
	"max_inotify_instances", "max_inotify_watches", "max_fanotify_groups", "max_fanotify_marks",
	[LIMITS_UC_MSGQUEUE] = "RLIMIT_MSGQUEUE", [LIMITS_UC_SIGPENDING] = "RLIMIT_SIGPENDING",
	[LIMITS_UC_DIR] = LIMITS_UC_DIR_PATH,
};

const char *limits_ucount_name(int which)
{
	return (unsigned)which < LIMITS_UC__COUNT ? ucount_names[which] : "?";
}

int limits_ucount_arg(int which, int err)
{
	return (int)(((unsigned)which & 0xff) << 16 | ((unsigned)err & 0xffff));
}

char *limits_ucount_message(int arg)
{
	int which = (arg >> 16) & 0xff, err = arg & 0xffff;
	const char *why = err ? strerror(err) : "not the kernel's procfs";
	if (which == LIMITS_UC_DIR)
		return xasprintf("cannot read the caller's per-user kernel limits at '%s' (%s) — sandbx holds a "
				 "command to half of each so the caller's own programs keep the rest; run it where "
				 "/proc is the kernel's procfs; nothing was run", LIMITS_UC_DIR_PATH, why);
	return xasprintf("cannot hold the sandbox to half of the caller's per-user limit '%s' (%s) — sandbx "
			 "will not run a command that could take all of it from the caller's own programs; "
			 "check %s; nothing was run", limits_ucount_name(which), why,
			 which == LIMITS_UC_MSGQUEUE || which == LIMITS_UC_SIGPENDING
				 ? "the caller's own limits (ulimit -q, ulimit -i)"
				 : "that nothing is mounted over " LIMITS_UC_DIR_PATH " or its files");
}

int limits_plan_half(const struct rlimit *cur, struct rlimit *out)
{
	*out = *cur;
	if (cur->rlim_cur == RLIM_INFINITY)
		return 1;
	rlim_t half = cur->rlim_cur / 2;
	if (cur->rlim_max == half && cur->rlim_cur == half)
		return 1;
	out->rlim_max = half;
	out->rlim_cur = half;
	return 0;
}

int limits_ucount_parse(const char *text, uint64_t *out)
{
	char buf[LIMITS_UC_VALUE_MAX];
	size_t n = strlen(text);
	if (n && text[n - 1] == '\n')
		n--;
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return parse_u64(buf, 0, INT32_MAX, out);
}

/* Copy the line starting at s (up to '\n' or end) into buf; returns the
 * start of the next line or NULL at the end; -1 length means too long. */
static const char *next_line(const char *s, char *buf, size_t n, int *toolong)
{
	const char *e = strchr(s, '\n');
	size_t len = e ? (size_t)(e - s) : strlen(s);
	*toolong = len >= n;
	if (!*toolong) {
		memcpy(buf, s, len);
		buf[len] = '\0';
	}
	return e ? e + 1 : NULL;
}

static int copy_out(char *out, size_t n, const char *s)
{
	if (strlen(s) >= n)
		return -1;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* 1 if the comma-separated list holds word. */
static int has_item(const char *list, const char *word, char sep)
{
	size_t wl = strlen(word);
	for (const char *s = list; s && *s;) {
		const char *e = strchr(s, sep);
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l == wl && memcmp(s, word, l) == 0)
			return 1;
		s = e ? e + 1 : NULL;
	}
	return 0;
}

int limits_has_word(const char *list, const char *word)
{
	char buf[LIMITS_MAX_PATH];
	size_t n = strlen(list);
	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, list, n + 1);
	for (char *c = buf; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	return has_item(buf, word, ' ');
}

int limits_cgroup_of(const char *text, const char *controller, char *out, size_t n)
{
	char line[LIMITS_MAX_PATH + 128];
	int toolong;
	for (const char *s = text; s && *s;) {
		s = next_line(s, line, sizeof(line), &toolong);
		if (toolong)
			continue;
		/* hierarchy-id:controller-list:path */
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c1 = *c2 = '\0';
		if (!controller) {
			if (strcmp(line, "0") == 0 && c1[1] == '\0')
				return copy_out(out, n, c2 + 1);
		} else if (strcmp(line, "0") != 0 && has_item(c1 + 1, controller, ',')) {
			return copy_out(out, n, c2 + 1);
		}
	}
	return -1;
}

/* Decode mountinfo's octal escapes (\040 space, \011 tab, \012, \134). */
static int unescape(const char *s, char *out, size_t n)
{
	size_t o = 0;
	while (*s) {
		char c = *s++;
		if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
		    s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (o + 1 >= n)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* The next field of a line split in place at spaces, as strtok_r(.., " ")
 * would give it (a run of spaces is one separator), or NULL at the end;
 * *at moves past it.  By hand: the harness scans the mount table a dozen
 * times and more while it vets the grants, and strtok_r's strspn and
 * strcspn were most of that, some 0.1 ms of each run here. */
static char *next_field(char **at)
{
	char *p = *at;
	while (*p == ' ')
		p++;
	if (!*p) {
		*at = p;
		return NULL;
	}
	char *start = p;
	while (*p && *p != ' ')
		p++;
	if (*p)
		*p++ = '\0';
	*at = p;
	return start;
}

/* Split one mountinfo line in place: id parent maj:min root mountpoint
 * opts [optional...] - fstype source superopts.  0, or -1 when malformed. */
static int split_mountinfo(char *line, char **root, char **mnt, char **fstype, char **super, char **devno)
{
	char *f[6] = { 0 }, *at = line, *tok = next_field(&at);
	int i = 0;
	while (tok && i < 6) {
		f[i++] = tok;
		tok = next_field(&at);
	}
	if (i < 6)
		return -1;
	while (tok && strcmp(tok, "-") != 0)
		tok = next_field(&at);
	*fstype = tok ? next_field(&at) : NULL;
	char *source = *fstype ? next_field(&at) : NULL;
	*super = source ? next_field(&at) : NULL;
	*root = f[3];
	*mnt = f[4];
	if (devno)
		*devno = f[2];
	return *fstype ? 0 : -1;
}

int limits_find_mount(const char *text, const char *controller, char *mnt, size_t nmnt, char *root,
		      size_t nroot)
{
	char line[2 * LIMITS_MAX_PATH];
	int toolong;
	for (const char *s = text; s && *s;) {
		s = next_line(s, line, sizeof(line), &toolong);
		char *r, *m, *fstype, *super;
		if (toolong || split_mountinfo(line, &r, &m, &fstype, &super, NULL) < 0)
			continue;
		if (controller ? (strcmp(fstype, "cgroup") != 0 || !super || !has_item(super, controller, ','))
			       : strcmp(fstype, "cgroup2") != 0)
			continue;
		if (unescape(m, mnt, nmnt) < 0 || unescape(r, root, nroot) < 0)
			return -1;
		return 0;
	}
	return -1;
}

/* The kernel's own interfaces: writing into one reaches past any view. */
static const char *const kernel_fs[] = { "proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts",
					 "securityfs", "debugfs", "tracefs", "bpf", "configfs", "efivarfs",
					 "pstore", "fusectl", "binfmt_misc", "mqueue", "hugetlbfs" };

int limits_kernel_mount_near(const char *text, const char *path, const char *only, int beneath, char *mnt,
			     size_t nmnt, char *type, size_t ntype)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH];
	int toolong;
	for (const char *s = text; s && *s;) {
		s = next_line(s, line, sizeof(line), &toolong);
		char *r, *mp, *fstype, *super;
		if (toolong || split_mountinfo(line, &r, &mp, &fstype, &super, NULL) < 0 ||
		    unescape(mp, m, sizeof(m)) < 0) {
			snprintf(mnt, nmnt, "?");
			snprintf(type, ntype, "?");
			return -1;
		}
		int kernel = 0;
		for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]) && !kernel; i++)
			kernel = strcmp(fstype, kernel_fs[i]) == 0 && (!only || strcmp(fstype, only) == 0);
		if (!kernel || (!path_within(path, m) && !(beneath && path_within(m, path))))
			continue;
		if (copy_out(mnt, nmnt, m) < 0 || copy_out(type, ntype, fstype) < 0)
			return -1;
		return 1;
	}
	return 0;
}

int limits_dev_mount_under(const char *text, const char *path, unsigned major, unsigned minor, char *mnt,
			   size_t nmnt)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH], want[32];
	int toolong;
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	for (const char *s = text; s && *s;) {
		s = next_line(s, line, sizeof(line), &toolong);
		char *r, *mp, *fstype, *super, *devno;
		if (toolong || split_mountinfo(line, &r, &mp, &fstype, &super, &devno) < 0 ||
		    unescape(mp, m, sizeof(m)) < 0) {
			snprintf(mnt, nmnt, "?");
			return -1;
		}
		if (strcmp(devno, want) != 0 || !path_within(m, path))
			continue;
		return copy_out(mnt, nmnt, m) < 0 ? -1 : 1;
	}
	return 0;
}

/* The next line of mountinfo text s, split, its mount point and root
 * decoded into m and r (LIMITS_MAX_PATH each): the rest of s, with *bad
 * set when the line cannot be read. */
static const char *mi_next(const char *s, char *line, char *m, char *r, char **devno, int *bad)
{
	int toolong;
	char *rt, *mp, *fstype, *super;
	s = next_line(s, line, 2 * LIMITS_MAX_PATH, &toolong);
	*bad = toolong || split_mountinfo(line, &rt, &mp, &fstype, &super, devno) < 0 ||
	       unescape(mp, m, LIMITS_MAX_PATH) < 0 || unescape(rt, r, LIMITS_MAX_PATH) < 0;
	return s;
}

int limits_fs_path(const char *text, const char *obj, char *dev, size_t ndev, char *fsobj, size_t nfs)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH], r[LIMITS_MAX_PATH], *devno;
	size_t best = 0;
	int bad, found = 0;
	/* The mount with the longest mount point above obj (the last one
	 * listed, when one is mounted over another): its root, then the rest
	 * of obj. */
	for (const char *s = text; s && *s;) {
		s = mi_next(s, line, m, r, &devno, &bad);
		if (bad)
			return -1;
		size_t ml = strlen(m);
		if (!path_within(obj, m) || (found && ml < best))
			continue;
		const char *rest = obj + (ml == 1 ? 0 : ml);
		if (snprintf(fsobj, nfs, "%s%s", strcmp(r, "/") == 0 && *rest ? "" : r, rest) >= (int)nfs)
			return -1;
		if (copy_out(dev, ndev, devno) < 0)
			return -1;
		best = ml;
		found = 1;
	}
	return found ? 0 : -1;
}

int limits_mount_shows(const char *text, const char *path, const char *obj, int either, char *mnt, size_t nmnt)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH], r[LIMITS_MAX_PATH];
	char dev[32] = "", fsobj[2 * LIMITS_MAX_PATH], *devno;
	int bad;
	snprintf(mnt, nmnt, "?");
	/* Where obj lies: its filesystem and its path within it. */
	if (limits_fs_path(text, obj, dev, sizeof(dev), fsobj, sizeof(fsobj)) < 0)
		return -1;
	for (const char *s = text; s && *s;) {
		s = mi_next(s, line, m, r, &devno, &bad);
		if (bad)
			return -1;
		if (strcmp(devno, dev) != 0 || !path_within(m, path) || strcmp(m, path) == 0)
			continue;
		if (path_within(fsobj, r) || (either && path_within(r, fsobj)))
			return copy_out(mnt, nmnt, m) < 0 ? -1 : 1;
	}
	return 0;
}

int limits_each_mount(const char *text, int (*fn)(void *ctx, const char *mnt, const char *root, const char *devno),
		      void *ctx)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH], r[LIMITS_MAX_PATH], *devno;
	int bad;
	for (const char *s = text; s && *s;) {
		s = mi_next(s, line, m, r, &devno, &bad);
		if (bad)
			return -1;
		int x = fn(ctx, m, r, devno);
		if (x)
			return x;
	}
	return 0;
}

static int strictly_beneath(void *ctx, const char *mnt, const char *root, const char *devno)
{
	const char *path = ctx;
	(void)root;
	(void)devno;
	return path_within(mnt, path) && strcmp(mnt, path) != 0;
}

int limits_mount_beneath(const char *text, const char *path)
{
	return limits_each_mount(text, strictly_beneath, (void *)path);
}

int limits_each_mount_of(const char *text, const char *fstype, int (*fn)(void *ctx, const char *mnt), void *ctx)
{
	char line[2 * LIMITS_MAX_PATH], m[LIMITS_MAX_PATH], key[64];
	int toolong;
	if (snprintf(key, sizeof(key), " - %s ", fstype) >= (int)sizeof(key))
		return -1;
	if (!text || !strstr(text, key))
		return 0;
	for (const char *s = text; s && *s;) {
		char *r, *mp, *type, *super;
		s = next_line(s, line, sizeof(line), &toolong);
		if (toolong || split_mountinfo(line, &r, &mp, &type, &super, NULL) < 0 ||
		    unescape(mp, m, sizeof(m)) < 0)
			return -1;
		if (strcmp(type, fstype) == 0 && fn(ctx, m) < 0)
			return -1;
	}
	return 0;
}

int limits_cgroup_dir(const char *mnt, const char *root, const char *cg, char *out, size_t n)
{
	size_t rl = strlen(root);
	const char *rest;
	if (strcmp(root, "/") == 0) {
		rest = cg;
	} else {
		if (strncmp(cg, root, rl) != 0 || (cg[rl] != '\0' && cg[rl] != '/'))
			return -1;
		rest = cg + rl;
	}
	while (*rest == '/')
		rest++;
	if (strstr(cg, "/../") || (strlen(cg) >= 3 && strcmp(cg + strlen(cg) - 3, "/..") == 0))
		return -1;
	int w = *rest ? snprintf(out, n, "%s/%s", mnt, rest) : snprintf(out, n, "%s", mnt);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}
