/*
 * limits_sys.c — the helper side of the resource limits (life cycle and
 * mechanism choice in limits.h).
 *
 * Runs in the helper's freshly executed, single-threaded stages: the
 * supervisor (prepare, attach, finish), the init (report_kill) and the
 * command stage (apply_rlimits); the per-user counters' read in the
 * harness, their halve in the init.  State is kept in statics, inherited
 * by fork: the command stage sees which limits a cgroup already enforces.
 *
 * Kernel facts this relies on (checked on 6.18, see docs/claims/limits.md):
 * - after unshare(CLONE_NEWUSER) with the 1:1 id map, a root caller still
 *   passes cgroupfs permission checks (the inodes' owner, uid 0, is mapped
 *   and the supervisor holds CAP_DAC_OVERRIDE in its namespace); an
 *   unprivileged caller needs a delegated (owned) cgroup, as before;
 * - RLIMIT_NPROC is charged per (user namespace, uid) since 5.14 (ucounts):
 *   the caller's processes outside the sandbox do not count; but it never
 *   binds a process whose real uid is global root (INIT_USER);
 * - cgroup v2 does not move memory charges on migration, so the
 *   supervisor's short stay in the sandbox's cgroup costs it nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/magic.h>

#include "sandbox/auditch.h"
#include "sandbox/limits.h"
#include "util/compat.h"
#include "util/util.h"

#define CG_PREFIX "sandbx-"
#define RMDIR_TRIES 200		/* x 5 ms: the pid namespace is being torn down */

/*
 * Held by descriptor, opened before the init pivots: pivot_root moves the
 * root of every process of the mount namespace that the supervisor shares
 * with the init, so after it no host path resolves in the supervisor.
 */
struct lim_cg {
	int parent_fd;			/* O_PATH of the directory holding it */
	int dir_fd;			/* O_PATH of the sandbox's cgroup; -1 = none */
	int home_fd;			/* O_PATH of the supervisor's own cgroup */
	char name[32];			/* sandbx-PID */
	int inside;			/* the supervisor is in dir_fd */
};

/* Written by the init (report_kill), read by the supervisor (finish). */
struct lim_shared {
	volatile int sig;		/* the command died by this signal */
	volatile long long cpu_ms;	/* the command's CPU time (report_kill) */
};

static struct {
	struct lim_cg v2, v1pids;
	int had_cgroup;			/* the init's copy: it released one */
	int init_done;
	unsigned by_cgroup;		/* 1 << kind: a cgroup enforces it */
	struct lim_shared *shared;
} st;

static int read_text(const char *path, char *buf, size_t cap)
{
	return read_small_at(AT_FDCWD, path, 0, buf, cap) < 0 ? -1 : 0;
}

/* Write s to name beneath the directory dfd; 0 or -errno. */
static int cg_write(int dfd, const char *name, const char *s)
{
	int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, s, strlen(s));
	int e = n < 0 ? errno : 0;
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -(e ? e : EIO);
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int cg_rmdir(const struct lim_cg *cg)
{
	for (int i = 0; i < RMDIR_TRIES; i++) {
		if (unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		pause_ms(5);
	}
	return -EBUSY;
}

/* Remove empty sandbx-PID cgroups under parent whose supervisor is gone
 * (it was SIGKILLed, by a timeout, before limits_finish).  rmdir fails on
 * a populated cgroup, so nothing alive is touched. */
static void sweep_stale(int parent_fd)
{
	int fd = openat(parent_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		uint64_t pid;
		if (strncmp(e->d_name, CG_PREFIX, strlen(CG_PREFIX)) != 0 ||
		    parse_u64(e->d_name + strlen(CG_PREFIX), 1, INT32_MAX, &pid) < 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		(void)unlinkat(parent_fd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void cg_reset(struct lim_cg *cg)
{
	if (cg->dir_fd >= 0)
		close(cg->dir_fd);
	if (cg->parent_fd >= 0)
		close(cg->parent_fd);
	if (cg->home_fd >= 0)
		close(cg->home_fd);
	cg->dir_fd = cg->parent_fd = cg->home_fd = -1;
	cg->inside = 0;
}

/* Create sandbx-PID in parent_fd and hold it, parent_fd and home_fd
 * (the supervisor's own cgroup directory), both taken.  0 or -errno,
 * nothing held. */
static int cg_create(struct lim_cg *cg, int parent_fd, int home_fd)
{
	snprintf(cg->name, sizeof(cg->name), CG_PREFIX "%d", (int)getpid());
	cg->parent_fd = parent_fd;
	cg->home_fd = home_fd;
	if (cg->parent_fd < 0 || cg->home_fd < 0) {
		cg_reset(cg);
		return -EBADF;
	}
	/* The harness looked already (limits_cgroup_find); this process is
	 * in another user namespace: one access check more before listing
	 * the parent for stale ones. */
	if (faccessat(cg->parent_fd, ".", W_OK, 0) < 0) {
		int e = errno;
		cg_reset(cg);
		return -e;
	}
	sweep_stale(cg->parent_fd);
	if (mkdirat(cg->parent_fd, cg->name, 0755) < 0 ||
	    (cg->dir_fd = openat(cg->parent_fd, cg->name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		int e = errno;
		(void)unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR);
		cg_reset(cg);
		return -e;
	}
	return 0;
}

/* Give up a created cgroup before anything was moved into it. */
static void cg_discard(struct lim_cg *cg)
{
	(void)unlinkat(cg->parent_fd, cg->name, AT_REMOVEDIR);
	cg_reset(cg);
}

/* Move the supervisor into its cgroup; on failure the cgroup is removed. */
static int cg_enter(struct lim_cg *cg)
{
	int r = cg_write(cg->dir_fd, "cgroup.procs", "0");
	if (r == 0) {
		cg->inside = 1;
		return 0;
	}
	cg_discard(cg);
	return r;
}

static void cg_leave(struct lim_cg *cg, int audit_fd)
{
	if (!cg->inside)
		return;
	int r = cg_write(cg->home_fd, "cgroup.procs", "0");
	if (r == 0)
		cg->inside = 0;
	else
		auditch_send(audit_fd, ACH_DEG_CGROUP, -r);
}

static void pids_value(const struct policy *p, char *buf, size_t n)
{
	/* + 1: the init lives in the cgroup too. */
	uint64_t v = p->limits[LIM_PROCS] + 1;
	if (v > LIMITS_PIDS_MAX)
		v = LIMITS_PIDS_MAX;
	snprintf(buf, n, "%llu", (unsigned long long)v);
}

/*
 * cgroup v2: a sibling of the caller's cgroup (limits_cgroup_find says
 * where).  Only controllers already enabled in that parent's
 * subtree_control are used: enabling one would change the host's cgroup
 * layout.
 */
static void prepare_v2(const struct policy *p, int parent_fd, int home_fd)
{
	char ctl[1024], buf[32];

	if (parent_fd < 0 || home_fd < 0 ||
	    read_small_at(parent_fd, "cgroup.subtree_control", O_NOFOLLOW, ctl, sizeof(ctl)) < 0) {
		if (parent_fd >= 0)
			close(parent_fd);
		if (home_fd >= 0)
			close(home_fd);
		return;
	}
	if (cg_create(&st.v2, parent_fd, home_fd) < 0)
		return;
	unsigned got = 0;
	if (p->limits[LIM_PROCS] && limits_has_word(ctl, "pids")) {
		pids_value(p, buf, sizeof(buf));
		if (cg_write(st.v2.dir_fd, "pids.max", buf) == 0)
			got |= 1u << LIM_PROCS;
	}
	if (p->limits[LIM_MEMORY] && limits_has_word(ctl, "memory")) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)p->limits[LIM_MEMORY]);
		/* No swap: a limit the command can page around is no limit.
		 * ENOENT: swap accounting is off, nothing to close. */
		int sr = cg_write(st.v2.dir_fd, "memory.swap.max", "0");
		if (cg_write(st.v2.dir_fd, "memory.max", buf) == 0 && (sr == 0 || sr == -ENOENT))
			got |= 1u << LIM_MEMORY;
	}
	if (cg_enter(&st.v2) < 0)
		return;
	st.by_cgroup |= got;
}

/* cgroup v1 pids (hybrid hosts): a child of the caller's pids cgroup
 * (v1 has no rule against processes in inner cgroups). */
static void prepare_v1_pids(const struct policy *p, int home_fd)
{
	char buf[32];
	int again = home_fd < 0 ? -1 : fcntl(home_fd, F_DUPFD_CLOEXEC, 0);
	if (again < 0) {
		if (home_fd >= 0)
			close(home_fd);
		return;
	}
	if (cg_create(&st.v1pids, home_fd, again) < 0)
		return;
	pids_value(p, buf, sizeof(buf));
	if (cg_write(st.v1pids.dir_fd, "pids.max", buf) < 0) {
		cg_discard(&st.v1pids);
		return;
	}
	if (cg_enter(&st.v1pids) == 0)
		st.by_cgroup |= 1u << LIM_PROCS;
}

/* An O_PATH descriptor of dir, if the caller may write there (make a
 * cgroup in it), else -1. */
static int open_writable(const char *dir)
{
	if (faccessat(AT_FDCWD, dir, W_OK, 0) < 0)
		return -1;
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

void limits_cgroup_find(const struct policy *p, const char *mountinfo, int fd[LIMITS_CG_NFD])
{
	char mnt[LIMITS_MAX_PATH], root[LIMITS_MAX_PATH], cg[LIMITS_MAX_PATH];
	char home[LIMITS_MAX_PATH], parent[LIMITS_MAX_PATH];

	for (int i = 0; i < LIMITS_CG_NFD; i++)
		fd[i] = -1;
	if (!p->limits[LIM_PROCS] && !p->limits[LIM_MEMORY])
		return;	/* cpu, fsize, nofile: rlimits in every case */
	char *cgtext = malloc(LIMITS_MAX_FILE), *own = mountinfo ? NULL : malloc(LIMITS_MAX_FILE);
	const char *mi = mountinfo ? mountinfo : own;
	if (!cgtext || !mi || read_text("/proc/self/cgroup", cgtext, LIMITS_MAX_FILE) < 0 ||
	    (own && read_text("/proc/self/mountinfo", own, LIMITS_MAX_FILE) < 0))
		goto out;
	/* v2: a child of the caller's cgroup's parent (a non-root cgroup
	 * holding processes cannot enable controllers for its children), or
	 * of the root cgroup when the caller is there. */
	if (limits_find_mount(mi, NULL, mnt, sizeof(mnt), root, sizeof(root)) == 0 &&
	    limits_cgroup_of(cgtext, NULL, cg, sizeof(cg)) == 0 &&
	    limits_cgroup_dir(mnt, root, cg, home, sizeof(home)) == 0) {
		memcpy(parent, home, sizeof(parent));
		char *slash = strrchr(parent, '/');
		int up = strcmp(cg, "/") != 0 && strcmp(parent, mnt) != 0;
		if (!up || (slash && slash != parent)) {
			if (up)
				*slash = '\0';
			fd[LIMITS_CG_V2_PARENT] = open_writable(parent);
			if (fd[LIMITS_CG_V2_PARENT] >= 0 &&
			    (fd[LIMITS_CG_V2_HOME] = open(home, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
				close(fd[LIMITS_CG_V2_PARENT]);
				fd[LIMITS_CG_V2_PARENT] = -1;
			}
		}
	}
	if (p->limits[LIM_PROCS] && limits_find_mount(mi, "pids", mnt, sizeof(mnt), root, sizeof(root)) == 0 &&
	    limits_cgroup_of(cgtext, "pids", cg, sizeof(cg)) == 0 &&
	    limits_cgroup_dir(mnt, root, cg, home, sizeof(home)) == 0)
		fd[LIMITS_CG_V1_PIDS] = open_writable(home);
out:
	free(cgtext);
	free(own);
}

static void state_init(void)
{
	if (st.init_done)
		return;
	st.v2.dir_fd = st.v2.parent_fd = st.v2.home_fd = -1;
	st.v1pids.dir_fd = st.v1pids.parent_fd = st.v1pids.home_fd = -1;
	st.init_done = 1;
}

int limits_prepare(struct policy *p, int fd[LIMITS_CG_NFD], int audit_fd)
{
	state_init();
	void *m = mmap(NULL, sizeof(struct lim_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	st.shared = m == MAP_FAILED ? NULL : m;

	if (!p->limits[LIM_PROCS] && !p->limits[LIM_MEMORY]) {
		for (int i = 0; i < LIMITS_CG_NFD; i++)
			if (fd[i] >= 0)
				close(fd[i]);
		return 0;	/* cpu, fsize, nofile: rlimits in every case */
	}
	prepare_v2(p, fd[LIMITS_CG_V2_PARENT], fd[LIMITS_CG_V2_HOME]);
	if (p->limits[LIM_PROCS] && !(st.by_cgroup & (1u << LIM_PROCS)))
		prepare_v1_pids(p, fd[LIMITS_CG_V1_PIDS]);
	else if (fd[LIMITS_CG_V1_PIDS] >= 0)
		close(fd[LIMITS_CG_V1_PIDS]);
	for (int i = 0; i < LIMITS_CG_NFD; i++)
		fd[i] = -1;	/* each closed or kept above */

	/* RLIMIT_NPROC in the sandbox's own user namespace counts exactly the
	 * sandbox's tasks and cannot be raised from inside: the limit holds as
	 * asked, not degraded — except for uid 0, which it never binds. */
	if (p->limits[LIM_PROCS] && !(st.by_cgroup & (1u << LIM_PROCS)) && getuid() == 0)
		auditch_send(audit_fd, ACH_DEG_LIMIT_OFF, LIM_PROCS);
	/* RLIMIT_AS bounds each process, not the sandbox's total. */
	if (p->limits[LIM_MEMORY] && !(st.by_cgroup & (1u << LIM_MEMORY)))
		auditch_send(audit_fd, ACH_DEG_LIMIT, LIM_MEMORY);
	return 0;
}

void limits_attach(struct policy *p, pid_t init, int audit_fd)
{
	state_init();
	/* The init was forked inside the cgroup(s): only the supervisor
	 * itself goes back, so it is neither counted nor killed with them. */
	cg_leave(&st.v2, audit_fd);
	cg_leave(&st.v1pids, audit_fd);
}

int limits_by_cgroup(int kind)
{
	state_init();
	return (st.by_cgroup & (1u << kind)) != 0;
}

static void apply_rlimit(const struct policy *p, int k, int audit_fd)
{
	struct rlimit cur, want;
	if (!p->limits[k] || (st.by_cgroup & (1u << k)))
		return;
	int res = limits_resource(k);
	if (getrlimit(res, &cur) < 0) {
		auditch_send(audit_fd, ACH_REF_LIMIT, k);
		_exit(125);
	}
	limits_plan_rlimit(k, p->limits[k], LIMITS_HELPER_PROCS, &cur, &want);
	if (setrlimit(res, &want) < 0) {
		auditch_send(audit_fd, ACH_REF_LIMIT, k);
		_exit(125);
	}
}

void limits_apply_rlimits(const struct policy *p, int audit_fd)
{
	for (int k = 0; k < LIM__COUNT; k++)
		if (k != LIM_NOFILE)
			apply_rlimit(p, k, audit_fd);
}

void limits_apply_nofile(const struct policy *p, int audit_fd)
{
	apply_rlimit(p, LIM_NOFILE, audit_fd);
}

/* ---- per-user counters (limits.h, a to c) ---- */

int limits_ucounts_read(uint32_t v[LIMITS_UC_SYSCTLS], int *arg)
{
	char buf[LIMITS_UC_VALUE_MAX];
	struct statfs sf;
	int r = -1;

	int dfd = open(LIMITS_UC_DIR_PATH, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*arg = limits_ucount_arg(LIMITS_UC_DIR, errno);
		return -1;
	}
	if (fstatfs(dfd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
		*arg = limits_ucount_arg(LIMITS_UC_DIR, 0);
		goto out;
	}
	for (int i = 0; i < LIMITS_UC_SYSCTLS; i++) {
		/* One read: a sysctl hands its whole value to the first. */
		int fd = openat(dfd, limits_ucount_name(i), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		int e = n < 0 ? errno : EINVAL;
		uint64_t x;
		if (fd >= 0)
			close(fd);
		if (n <= 0 || (buf[n] = '\0', limits_ucount_parse(buf, &x) < 0)) {
			*arg = limits_ucount_arg(i, e);
			goto out;
		}
		v[i] = (uint32_t)x;	/* parsed to at most INT32_MAX */
	}
	r = 0;
out:
	close(dfd);
	return r;
}

static int halve_rlimit(int res, int which, int *arg)
{
	struct rlimit cur, want;
	if (getrlimit(res, &cur) < 0 ||
	    (limits_plan_half(&cur, &want) == 0 && setrlimit(res, &want) < 0)) {
		*arg = limits_ucount_arg(which, errno);
		return -1;
	}
	return 0;
}

int limits_ucounts_rlimits(int *arg)
{
	return halve_rlimit(RLIMIT_MSGQUEUE, LIMITS_UC_MSGQUEUE, arg) < 0 ||
	       halve_rlimit(RLIMIT_SIGPENDING, LIMITS_UC_SIGPENDING, arg) < 0 ? -1 : 0;
}

int limits_ucounts_halve(int dfd, const uint32_t v[LIMITS_UC_SYSCTLS], int *arg)
{
	char buf[LIMITS_UC_VALUE_MAX];
	struct statfs sf;

	if (fstatfs(dfd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
		*arg = limits_ucount_arg(LIMITS_UC_DIR, 0);
		return -1;
	}
	for (int i = 0; i < LIMITS_UC_SYSCTLS; i++) {
		int n = snprintf(buf, sizeof(buf), "%u", (unsigned)(v[i] / 2));
		int fd = openat(dfd, limits_ucount_name(i), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t w = fd < 0 ? -1 : write(fd, buf, (size_t)n);
		int e = w < 0 ? errno : EIO;
		if (fd >= 0)
			close(fd);
		if (w != n) {
			*arg = limits_ucount_arg(i, e);
			/* The host made /proc/sys read-only (a container's
			 * runtime does) and the sandbox's own /proc could not
			 * be mounted: no value can be changed, the caller's
			 * own limits still bind the sandbox, and the run goes
			 * on, recorded (ACH_DEG_USER_LIMIT). */
			return e == EROFS && i == 0 ? 1 : -1;
		}
	}
	return 0;
}

/* CPU time of the init's reaped children, the command among them, ms. */
static long long children_cpu_ms(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return -1;
	return (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

long long limits_cpu_sample(pid_t pid)
{
	struct timespec ts;
	if (clock_gettime(SBX_PROCESS_CPUCLOCK(pid, SBX_CPUCLOCK_PROF), &ts) < 0)
		return -1;
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void limits_report_kill(const struct policy *p, int sig, long long cpu_ms, int audit_fd)
{
	/* The limit's own clock: the figure the kernel checked, so a
	 * command it stopped is at or past the limit, however loaded the
	 * host.  The rusage figure is the scheduler's exact runtime, which
	 * the tick-charged one outruns on a busy host (865 ms of rusage at
	 * the 1 s SIGXCPU, measured with three spinning loops beside it):
	 * only when the clock could not be read, and then at 90%. */
	int pct = 100;
	if (cpu_ms < 0) {
		cpu_ms = children_cpu_ms();
		pct = 90;
	}
	/* SIGXCPU is the soft limit only if the time was spent: any process
	 * may send the signal (kill -XCPU $$), and the line would then claim
	 * a limit that was never reached. */
	if (sig == SIGXCPU && p->limits[LIM_CPU] && cpu_ms >= (long long)p->limits[LIM_CPU] * 10 * pct)
		auditch_send(audit_fd, ACH_LIMIT_HIT, LIM_CPU);
	else if (sig == SIGXFSZ && p->limits[LIM_FSIZE])
		auditch_send(audit_fd, ACH_LIMIT_HIT, LIM_FSIZE);
	if (st.shared) {
		/* A SIGKILL is the OOM killer or the CPU hard limit (or anyone
		 * else): the supervisor decides, it can read memory.events. */
		st.shared->cpu_ms = cpu_ms;
		st.shared->sig = sig;
	}
}

static long long oom_kills(int dfd)
{
	char buf[1024];
	if (read_small_at(dfd, "memory.events", O_NOFOLLOW, buf, sizeof(buf)) <= 0)
		return 0;
	for (char *s = buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (strncmp(s, "oom_kill ", 9) == 0)
			return strtoll(s + 9, NULL, 10);
	return 0;
}

static void cg_remove(struct lim_cg *cg, int use_kill, int audit_fd)
{
	if (cg->dir_fd < 0)
		return;
	cg_leave(cg, audit_fd);
	/* The init's exit emptied the pid namespace already; cgroup.kill
	 * (5.14) is the belt to those braces.  v1 has no cgroup.kill. */
	if (use_kill && !cg->inside)
		(void)cg_write(cg->dir_fd, "cgroup.kill", "1");
	int r = cg_rmdir(cg);
	if (r < 0)
		auditch_send(audit_fd, ACH_DEG_CGROUP, -r);
	cg_reset(cg);
}

void limits_init_release(void)
{
	st.had_cgroup = st.v2.dir_fd >= 0 || st.v1pids.dir_fd >= 0;
	cg_reset(&st.v2);
	cg_reset(&st.v1pids);
}

int limits_finish_has_news(int status)
{
	return st.had_cgroup || st.v2.dir_fd >= 0 || st.v1pids.dir_fd >= 0 ||
	       (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

void limits_finish(struct policy *p, int audit_fd)
{
	int sig = st.shared ? st.shared->sig : 0;
	long long cpu_ms = st.shared ? st.shared->cpu_ms : 0;

	state_init();
	if (sig == SIGKILL && (st.by_cgroup & (1u << LIM_MEMORY)) && st.v2.dir_fd >= 0 &&
	    oom_kills(st.v2.dir_fd) > 0)
		auditch_send(audit_fd, ACH_LIMIT_HIT, LIM_MEMORY);
	else if (sig == SIGKILL && p->limits[LIM_CPU] && cpu_ms >= (long long)p->limits[LIM_CPU] * 1000)
		/* Killed past the soft limit: SIGXCPU was caught or ignored
		 * and the hard limit (a second later) struck.  The threshold
		 * is the soft limit, which leaves a second of slack when the
		 * figure is the rusage fallback (limits_report_kill). */
		auditch_send(audit_fd, ACH_LIMIT_HIT, LIM_CPU);
	cg_remove(&st.v2, 1, audit_fd);
	cg_remove(&st.v1pids, 0, audit_fd);
}
