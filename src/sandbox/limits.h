/*
 * limits.h — resource limits of the confined command (issue 5).
 *
 * Mechanism, per limit kind (enum policy_limit):
 *   procs   cgroup v2 pids.max where the caller can create a cgroup with the
 *           pids controller enabled; else a cgroup v1 pids hierarchy where
 *           writable (root on a hybrid host); else RLIMIT_NPROC, which the
 *           kernel counts per (user namespace, uid) — the sandbox's own
 *           namespace, so none of the caller's other processes are charged.
 *           RLIMIT_NPROC never binds uid 0: a root caller with no pids
 *           cgroup gets a `limit-unenforced` degraded record.
 *   memory  cgroup v2 memory.max + memory.swap.max=0 (the whole sandbox);
 *           else RLIMIT_AS (per process address space, degraded record).
 *   cpu     RLIMIT_CPU in every case (soft N: SIGXCPU, hard N+1: SIGKILL);
 *           cgroup cpu.max only throttles, it never stops a spin.
 *   fsize   RLIMIT_FSIZE (SIGXFSZ / EFBIG); no cgroup equivalent.
 *   nofile  RLIMIT_NOFILE; no cgroup equivalent.
 * An rlimit only ever lowers the caller's: min(current, asked).
 * Every sandbox process counts against procs: the limit N is the number of
 * the command's processes and threads (the command included); the init
 * (and, for RLIMIT_NPROC, the supervisor) are added on top.
 *
 * Helper-side life cycle (called from helper.c, single-threaded stages):
 *   0. limits_cgroup_find(p, fd)      the harness, once the start message
 *                                     is sent: where a cgroup could be
 *                                     made (the caller's cgroup and the
 *                                     cgroup mounts, read and parsed there,
 *                                     off the supervisor's path), as
 *                                     directory descriptors, only those
 *                                     the caller may write; they follow
 *                                     the start message (helper.h)
 *   1. limits_prepare(p, fd, audit_fd) supervisor, after unshare + id maps:
 *                                     create the per-sandbox cgroup(s) in
 *                                     the directories the harness found,
 *                                     checking again that it may, and
 *                                     move the supervisor in, so the init
 *                                     is born inside (no window in which
 *                                     the command runs outside)
 *   2. limits_attach(p, init, fd)     supervisor, after forking the init:
 *                                     move the supervisor back out
 *   3. limits_apply_rlimits(p, fd)    command stage: the rlimit part,
 *                                     open files apart:
 *      limits_apply_nofile(p, fd)     command stage, last before the
 *                                     exec: RLIMIT_NOFILE, once Landlock
 *                                     has opened the grants, so a limit
 *                                     below what the stage holds open
 *                                     binds the command, not the stage
 *   4. limits_report_kill(p, sig, ms, fd) init: the command died by
 *                                     sig — was it a limit?  (ACH_LIMIT_HIT)
 *   5. limits_finish(p, fd)           supervisor, after the init exited:
 *                                     OOM attribution, cgroup.kill, rmdir
 * Per-user counters (kernel/ucount.c), apart from the limits above: the
 * kernel counts inotify instances and watches, fanotify groups and marks,
 * message-queue bytes and pending signals per user across every user
 * namespace, so a command could take all of the caller's and its own
 * programs would get EMFILE.  The sandbox gets at most half of each.  (The
 * namespace counters of /proc/sys/user are not touched: the filter denies
 * the command every way to make a namespace, and halving them cost two
 * thirds of this work on every spawn.)
 *   a. limits_ucounts_read(v, &arg)  the harness, in the caller's user
 *                                    namespace (a read answers for the
 *                                    opener's): the caller's four
 *                                    /proc/sys/user/max_* values, sent in
 *                                    the start message (helper.h)
 *   b. limits_ucounts_rlimits(&arg)  the supervisor, after the id maps:
 *                                    the hard RLIMIT_MSGQUEUE and
 *                                    RLIMIT_SIGPENDING to half the
 *                                    caller's soft ones, for the init and
 *                                    the command
 *   c. limits_ucounts_halve(dfd, v, &arg)  the init, building the view,
 *                                    before it forks the command: each
 *                                    max_* of the sandbox's own namespace
 *                                    set to half the caller's (it starts
 *                                    at INT_MAX; a process holding
 *                                    CAP_SYS_RESOURCE there may write it),
 *                                    through dfd, the sys/user directory of
 *                                    the sandbox's own /proc (a lookup
 *                                    answers for the looker's namespace);
 *                                    the host's /proc/sys/user where that
 *                                    /proc could not be mounted.  Not the
 *                                    host's otherwise: every lookup of a
 *                                    name there walks one dentry per user
 *                                    namespace that looked it up and is
 *                                    not freed yet (the network
 *                                    namespaces of earlier runs keep
 *                                    theirs alive for a while), which made
 *                                    the eight lookups of a run cost up to
 *                                    a millisecond in runs back to back
 *                                    (docs/internals/spawn.md)
 * A charge counts at every level up to the initial namespace, so the
 * caller's level keeps at least half.
 * Each fails closed: -1 and arg = limits_ucount_arg(which, errno) for
 * the refusal (ACH_REF_USER_LIMIT).
 *
 * State lives in limits_sys.c statics (each stage is its own process).
 * A supervisor killed before step 5 leaves an empty cgroup named
 * sandbx-PID; the next limits_prepare removes those whose PID is gone.
 *
 * The pure part (limits.c) formats sizes and messages, plans rlimit
 * values and parses /proc/self/cgroup and mountinfo; it is unit-tested.
 */
#ifndef SBX_LIMITS_H
#define SBX_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox/policy.h"

/* Caps of the buffers this module reads and builds. */
#define LIMITS_MAX_PATH 4096		/* a cgroup directory path */
#define LIMITS_MAX_FILE 65536		/* /proc/self/cgroup, mountinfo read */
#define LIMITS_PIDS_MAX 4194304		/* PID_MAX_LIMIT: pids.max's ceiling */
#define LIMITS_HELPER_PROCS 2		/* supervisor + init, in the userns */

/*
 * Defaults (README explains the choice).  sandbox-run confines any command
 * the person chose, like bwrap: only the process count is capped, because
 * a fork bomb takes the whole host down.  The agent's bash runs what a
 * model wrote: the host must stay responsive with no flag given.
 */
#define LIMITS_RUN_PROCS 4096
#define LIMITS_AGENT_PROCS 512
#define LIMITS_AGENT_FSIZE (1ULL << 30)		/* 1 GiB per file */
#define LIMITS_AGENT_NOFILE 4096
#define LIMITS_AGENT_MEMORY_MIN (256ULL << 20)	/* floor of the half-RAM rule */

/*
 * Fill out[] with the defaults: agent 0 (sandbox-run) or 1 (the agent's
 * bash); ram is the host's physical memory in bytes (0 if unknown: no
 * memory default).  The agent's memory default is half of ram, in whole
 * MiB, at least LIMITS_AGENT_MEMORY_MIN.  CPU has no default: the bash
 * tool's wall clock bounds a call.
 */
void limits_defaults(int agent, uint64_t ram, uint64_t out[LIM__COUNT]);

/* ---- helper hooks (limits_sys.c) ---- */
/* limits_cgroup_find's descriptors, by index; -1 where none. */
enum {
	LIMITS_CG_V2_PARENT,		/* where the v2 sibling cgroup goes */
	LIMITS_CG_V2_HOME,		/* the caller's own v2 cgroup */
	LIMITS_CG_V1_PIDS,		/* the caller's v1 pids cgroup (hybrid) */
	LIMITS_CG_NFD
};
/* mountinfo: the caller's /proc/self/mountinfo text when it has it, or
 * NULL: read here. */
void limits_cgroup_find(const struct policy *p, const char *mountinfo, int fd[LIMITS_CG_NFD]);
/* Takes fd[] (limits_cgroup_find's, passed on): each is closed or kept. */
int limits_prepare(struct policy *p, int fd[LIMITS_CG_NFD], int audit_fd);
void limits_attach(struct policy *p, pid_t init, int audit_fd);
void limits_apply_rlimits(const struct policy *p, int audit_fd);
void limits_apply_nofile(const struct policy *p, int audit_fd);
/* 1 when a cgroup enforces limit kind (after limits_prepare, in the
 * supervisor and what it forks), 0 when an rlimit does or nothing. */
int limits_by_cgroup(int kind);
/* In the init: the CPU time of its child pid (the command), in ms, as
 * RLIMIT_CPU counts it, or -1.  Read before the reap, which ends it. */
long long limits_cpu_sample(pid_t pid);
/* cpu_ms: limits_cpu_sample of the command, or -1 (then the init's
 * children rusage stands in). */
void limits_report_kill(const struct policy *p, int sig, long long cpu_ms, int audit_fd);
void limits_finish(struct policy *p, int audit_fd);
/* In the init, right after the fork: close its copies of the cgroup
 * directories (the sandbox's, their parents, the supervisor's own), which
 * only the supervisor uses (limits_attach, limits_finish), so no handle on
 * the host's cgroup tree lives in the sandbox's pid namespace. */
void limits_init_release(void);
/* Whether limits_finish() could still report anything after the command
 * died this way (st: its wait status): a cgroup to remove, or a SIGKILL
 * to attribute.  The init's copy of the state answers as well. */
int limits_finish_has_news(int st);

int limits_ucounts_rlimits(int *arg);

/* ---- pure part (limits.c) ---- */

/*
 * The per-user counters limits_ucounts_* halve, by index: the four
 * /proc/sys/user/max_* files a command can spend (LIMITS_UC_SYSCTLS), then the
 * two rlimit-backed ones, then the directory itself (for a refusal that
 * concerns them all).
 */
#define LIMITS_UC_DIR_PATH "/proc/sys/user"
enum {
	LIMITS_UC_SYSCTLS = 4,
	LIMITS_UC_MSGQUEUE = LIMITS_UC_SYSCTLS,
	LIMITS_UC_SIGPENDING,
	LIMITS_UC_DIR,
	LIMITS_UC__COUNT
};
#define LIMITS_UC_VALUE_MAX 32		/* one decimal int and a newline */

/* limits_sys.c, as above: 0, or -1 with *arg (limits_ucount_arg). */
int limits_ucounts_read(uint32_t v[LIMITS_UC_SYSCTLS], int *arg);
/* 0; 1 with *arg when dfd's /proc is read-only (nothing is halved:
 * degraded, not refused); -1 with *arg (dfd not procfs, any other
 * failure). */
int limits_ucounts_halve(int dfd, const uint32_t v[LIMITS_UC_SYSCTLS], int *arg);

/* "max_inotify_instances", "RLIMIT_MSGQUEUE", "/proc/sys/user"; "?" out of range. */
const char *limits_ucount_name(int which);

/* The refusal's one integer: which counter, and the errno (0: the
 * directory is not the kernel's procfs). */
int limits_ucount_arg(int which, int err);

/* The refusal message for that integer, without "sandbx: ".  Malloc'd. */
char *limits_ucount_message(int arg);

/*
 * RLIMIT_MSGQUEUE or RLIMIT_SIGPENDING for the sandbox, given the
 * caller's: hard = half the caller's soft value, soft no higher.  An
 * unlimited soft value is kept (the caller's programs have no ceiling to
 * run into).  0 with *out filled when it changes, 1 when nothing does.
 */
int limits_plan_half(const struct rlimit *cur, struct rlimit *out);

/* A /proc/sys/user value as read ("128\n"): 0 and *out, or -1. */
int limits_ucount_parse(const char *text, uint64_t *out);

/*
 * The message for a command killed by limit kind (sandbox_result.limit_hit
 * - 1), without the "sandbx: " prefix: "the command was killed: memory
 * limit 512M reached".  Malloc'd; the caller frees.
 */
char *limits_hit_message(const struct policy *p, int kind);

/* A limit value for people: "512M", "1G", "1536K", "100B" (sizes, exact
 * unit), "1s" (cpu), "64" (counts).  Malloc'd. */
char *limits_format(int kind, uint64_t v);

/* The word for a kind: "process", "memory", "CPU time", "file size",
 * "open files". */
const char *limits_kind_word(int kind);

/* The RLIMIT_* resource of kind (procs: RLIMIT_NPROC, memory: RLIMIT_AS,
 * cpu: RLIMIT_CPU, fsize: RLIMIT_FSIZE, nofile: RLIMIT_NOFILE), or -1. */
int limits_resource(int kind);

/*
 * The rlimit for kind asked as v (non-zero), given the current one: never
 * above the current soft or hard value.  procs: v + extra (the sandbox's
 * own processes in the namespace); cpu: soft v, hard v + 1 (SIGXCPU
 * first, SIGKILL a second later).  Returns the RLIMIT_* resource.
 */
int limits_plan_rlimit(int kind, uint64_t v, unsigned extra, const struct rlimit *cur,
		       struct rlimit *out);

/*
 * From /proc/self/cgroup text: the path of this process's cgroup in the
 * v2 hierarchy (controller NULL, the "0::" line) or in the v1 hierarchy
 * holding controller.  0 and out filled, or -1 (absent, too long).
 */
int limits_cgroup_of(const char *text, const char *controller, char *out, size_t n);

/*
 * From /proc/self/mountinfo text: the mount point and mount root of the
 * cgroup2 hierarchy (controller NULL) or of the v1 hierarchy whose super
 * options name controller.  Octal escapes (\040) are decoded.  0 or -1.
 */
int limits_find_mount(const char *text, const char *controller, char *mnt, size_t nmnt, char *root,
		      size_t nroot);

/*
 * From /proc/self/mountinfo text: a mount of one of the kernel's interface
 * filesystems (proc, sysfs, cgroup, cgroup2, devtmpfs, devpts, securityfs,
 * debugfs, tracefs, bpf, configfs, efivarfs, pstore, fusectl, binfmt_misc,
 * mqueue: the host's POSIX message queues, hugetlbfs: its huge pages)
 * whose mount point holds path or is path, or (beneath non-zero) lies
 * beneath it; only non-NULL: that type alone.  1 with its mount point and
 * type in mnt and type; 0 when there is none; -1 when a line cannot be
 * read (the caller refuses: it cannot tell).
 */
int limits_kernel_mount_near(const char *text, const char *path, const char *only, int beneath, char *mnt,
			     size_t nmnt, char *type, size_t ntype);

/*
 * From /proc/self/mountinfo text: a mount of the filesystem major:minor
 * (st_dev) whose mount point is at or beneath path.  1 with the mount
 * point in mnt, 0 when there is none, -1 when a line cannot be read.
 */
int limits_dev_mount_under(const char *text, const char *path, unsigned major, unsigned minor, char *mnt,
			   size_t nmnt);

/*
 * From /proc/self/mountinfo text: a mount whose mount point lies strictly
 * beneath path and that shows obj (a resolved path) under another name:
 * the filesystem obj lies on (major:minor of the mount holding it), with
 * obj at or beneath the mount's root there; with either, also a mount
 * showing only a part of obj (its root beneath obj's).  A bind mount of
 * sandbx's program, store or home inside a grant, which the view copies.
 * 1 with the mount point in mnt, 0 when there is none, -1 when a line
 * cannot be read or obj lies on no mount.
 */
int limits_mount_shows(const char *text, const char *path, const char *obj, int either, char *mnt, size_t nmnt);

/*
 * From /proc/self/mountinfo text: where the resolved path obj lies, as the
 * filesystem sees it: the major:minor of the mount holding it in dev and
 * its path within that filesystem (the mount's root, then the rest of obj)
 * in fsobj.  0, or -1 when a line cannot be read, obj lies on no mount or
 * a buffer is too short.
 */
int limits_fs_path(const char *text, const char *obj, char *dev, size_t ndev, char *fsobj, size_t nfs);

/* From /proc/self/mountinfo text: 1 when a mount point lies strictly
 * beneath path (the cheap test before limits_mount_shows), 0 when none
 * does, -1 when a line cannot be read. */
int limits_mount_beneath(const char *text, const char *path);

/*
 * From /proc/self/mountinfo text: call fn(ctx, mount point, mount root,
 * major:minor) for each mount, in table order, octal escapes decoded.
 * 0; -1 when a line cannot be read; fn's value when it is nonzero (which
 * stops the walk).  One pass, no syscall: the callers judge many paths
 * against the table at once.
 */
int limits_each_mount(const char *text, int (*fn)(void *ctx, const char *mnt, const char *root, const char *devno),
		      void *ctx);

/*
 * From /proc/self/mountinfo text: call fn(ctx, mount point) for each mount
 * of type fstype, in table order (a mount point listed twice, twice).
 * 0; -1 when a line cannot be read (or fn returns -1).  Where the text
 * names no such type at all (" - TYPE " appears nowhere) it returns 0
 * without splitting a line: the common case costs one strstr.
 */
int limits_each_mount_of(const char *text, const char *fstype, int (*fn)(void *ctx, const char *mnt), void *ctx);

/*
 * The directory of cgroup path cg (as in /proc/self/cgroup) under a mount
 * at mnt whose root is root.  -1 when cg is not beneath root.
 */
int limits_cgroup_dir(const char *mnt, const char *root, const char *cg, char *out, size_t n);

/* 1 if the space-separated list (cgroup.controllers) holds word. */
int limits_has_word(const char *list, const char *word);

#endif
