/*
 * helper.h — the sandbox helper: sandbx re-executed through /proc/self/exe.
 *
 * Process model (ARCHITECTURE.md):
 *   harness ── vfork + execve ──> stage 1, supervisor (this binary,
 *     argv[1] = HELPER_ARGV1, no environment, every signal blocked until
 *     its first line)
 *       probes Landlock, then reads the start message: policy, command,
 *       environment, 0-2, pin (below); with HELPER_EARLY it makes the
 *       namespaces of the next step first
 *       unshare(USER|NS|PID|UTS), id maps, half the caller's soft
 *       RLIMIT_MSGQUEUE and RLIMIT_SIGPENDING as hard limits; then one
 *       byte on HELPER_NS_FD, with the user namespace's descriptor: it
 *       exists; then the capability bounding set emptied; with network
 *       granted (no namespace child) unshare(IPC) too
 *       └─ fork: stage 2, init (PID 1 of the new pid namespace)
 *            builds the mount view (tmpfs root, grant binds, /dev; then
 *            it enters the ipc namespace the namespace child made,
 *            before the private mounts and masks; /proc, and half the
 *            caller's per-user limits written through that /proc),
 *            pivots into it and detaches the host's tree, waits for
 *            the supervisor's word (it is out of the sandbox's
 *            cgroup), enters the network
 *            namespace the namespace child made, unshares a
 *            cgroup namespace (rooted at its cgroup), reaps
 *            orphans, passes the terminal's job-control stops and
 *            continues on to the command's processes (helper.c), relays
 *            the command's status
 *            └─ vfork: stage 3, the command (PID 2)
 *                 setsid, fds > 2 closed, limits, securebits, caps
 *                 emptied, no_new_privs, seccomp, Landlock, execve
 *   harness ── vfork (fork when an --allow-dns name is resolved), once
 *     the start message is sent, unless network is granted ──> the
 *     namespace child (nschild.c), parallel to the init's view: waits for
 *     the supervisor's byte, joins its user namespace (setns on the
 *     namespace's descriptor, which comes with the byte), makes the ipc
 *     namespace and sends it on HELPER_NS_FD (HELPER_NS_PRE_MAGIC), makes
 *     the network namespace with loopback up, and replies there (struct
 *     helper_ns_reply, the network namespace's fd by SCM_RIGHTS); then it
 *     makes most of the command's Landlock ruleset and sends it (struct
 *     helper_ns_rules), and exits.  The init, which inherited that
 *     descriptor from the supervisor (the supervisor closes its own once
 *     it has forked the init), reads the first message during the view
 *     and the reply once the view is built, entering each namespace,
 *     before it forks the command; the command stage reads the ruleset.
 *     The harness, meanwhile too, reads or compiles the seccomp program
 *     and writes it to the channel.  Last, the supervisor sends ACH_DONE
 *     with the exit code.
 *   The caller's /proc/sys/user/max_* values are read by the harness once
 *   the start message is sent, and follow it (struct helper_ucounts), with
 *   the cgroup directories the harness found for the limits
 *   (limits_cgroup_find); the supervisor reads them before it forks the
 *   init, which writes half of each value for the sandbox's namespace
 *   through the sandbox's own /proc (limits.h).
 *
 * Descriptors crossing into the supervisor: 0-2 where the caller chose
 * them at the spawn, else none (placeholders hold the numbers until the
 * start message brings the real ones), 3 = audit
 * channel write end (auditch.h), 5 = the channel: the read end of a
 * socket pair whose write end only the harness holds, carrying the start
 * message (below), then the compiled filter.  4 = the pinned program
 * (optional), which comes in the start message.  6 = the namespace
 * channel: one end of a socket pair whose other end the harness holds
 * until it forks the namespace child, which alone holds it then; the
 * supervisor passes it on to the init, which reads the reply.  The
 * supervisor's
 * command line holds only HELPER_ARGV1 and the harness's pid, and it is
 * executed with no environment at all: the policy, the command and the
 * allowlisted variables come in the start message.
 *
 * Harness side life cycle:
 *   1. struct sandbox_spawn s = { .policy = &p, .argv = prog, .pin_fd = -1,
 *      .stdio = {-1, -1, -1} };
 *   (1a. sandbox_prestart(&s, &err) before the policy is built, and
 *      sandbox_abandon(&s) on any way out that does not start the run)
 *   2. sandbox_start(&s, &err)       the supervisor is running
 *   3. sandbox_wait(&s, timeout_ms, &stop, &res)
 *      prints the helper's audit records, reaps, fills res
 * Killing s.pid with SIGKILL tears down the whole tree (each stage has
 * PR_SET_PDEATHSIG(SIGKILL); the init's death empties its pid namespace).
 * SIGTERM to s.pid (what sandbox_wait and the bash tool send at a timeout
 * or a stop) does the same and exits only once that namespace is empty.
 */
#ifndef SBX_HELPER_H
#define SBX_HELPER_H

#include <signal.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include "sandbox/auditch.h"
#include "sandbox/landlock.h"
#include "sandbox/policy.h"
#include "util/util.h"

#define HELPER_ARGV1 "__sandbx-helper"
/* After the pid: the namespaces may be made before the start message
 * (no pin, no --allow-dns name: sandbox_spawn.ns_early). */
#define HELPER_EARLY "early"

/*
 * An allowlisted variable that changes how the dynamic loader or libc
 * behaves (LD_PRELOAD, LD_LIBRARY_PATH, GCONV_PATH, GLIBC_TUNABLES...:
 * glibc's list of variables it drops for set-id programs, and every LD_
 * name) is the command's, never the helper's: the helper runs unconfined,
 * and such a value could name a library the command planted in a writable
 * grant on an earlier call.  It crosses under HELPER_CMDENV_PREFIX, which
 * nothing reads, and takes its own name back in the command stage, just
 * before the exec.
 */
#define HELPER_CMDENV_PREFIX "SANDBX_CMDENV_"
int helper_env_for_command_only(const char *name);

/*
 * The first of descriptors 0-2 that is a terminal answering EIO to a read
 * of no bytes, or -1.  Such a read runs only the terminal's job-control
 * check and consumes nothing.  With SIGTTIN blocked (the init) EIO means
 * the caller is in the background of that terminal; with SIGTTIN at its
 * default action (sandbox-run) a background caller is stopped there until
 * fg, and EIO means no fg can come (an orphaned process group, SIGTTIN
 * ignored, or the terminal hung up).
 */
int helper_stdio_tty_eio(void);

/*
 * 1 when a core_pattern (the text of /proc/sys/kernel/core_pattern) hands
 * a dump to the host rather than to a file: a program ('|') or, since
 * Linux 6.16, a socket ('@').  The kernel starts or reaches such a
 * handler whatever RLIMIT_CORE says, unless the limit is exactly one byte.
 */
int helper_core_pattern_to_host(const char *pattern);

/* The descriptors crossing into the supervisor, as above. */
#define HELPER_AUDIT_FD 3
#define HELPER_PIN_FD 4
#define HELPER_CHAN_FD 5
#define HELPER_NS_FD 6

/*
 * The namespace child's reply on HELPER_NS_FD (nschild.c), in
 * reply to the supervisor's byte there, when network is not granted
 * (with it, there is no child, and no reply is read); the init reads it.
 * With refusal 0 the network namespace's descriptor rides on it
 * (SCM_RIGHTS).  refusal: 0, or the label the init refuses the run with
 * (ACH_REF_NETNS_LO or ACH_REF_FORK), arg its argument.
 */
#define HELPER_NS_MAGIC 0x73626e32u	/* "sbn2" */
struct helper_ns_reply {
	uint32_t magic;
	int32_t refusal;
	int32_t arg;
};

/*
 * The namespace child's first message, before that reply: the same
 * struct, with this magic.  As soon as the child has joined the
 * supervisor's user namespace it makes the sandbox's ipc namespace
 * there (with network granted there is no child, and the supervisor
 * makes it itself); its descriptor rides on the message when refusal is
 * 0.  The init reads it while it builds the view, before any mount that
 * takes the mounter's ipc namespace (an mqueue mount), and enters that
 * namespace.  refusal: 0, or ACH_REF_USERNS or ACH_REF_FORK.
 */
#define HELPER_NS_PRE_MAGIC 0x73627031u	/* "sbp1" */

/*
 * The namespace child's last message on HELPER_NS_FD, once its reply
 * is sent: the part of the command's Landlock ruleset that is the same
 * on the host as in the view (landlock_prebuild), made on the harness's
 * CPU, idle by then, while the init builds the view.  ok 1: the ruleset's
 * descriptor rides on it (SCM_RIGHTS), made for abi, the ABI the child
 * asked the kernel for (helper_landlock_abi).  The command stage reads
 * it; anything else (ok 0, a short message, another ABI, no descriptor)
 * and the command stage builds the whole ruleset itself, as with network
 * granted, where there is no child.
 */
#define HELPER_NS_RULES_MAGIC 0x73626c31u	/* "sbl1" */
struct helper_ns_rules {
	uint32_t magic;
	int32_t ok;
	int32_t abi;
};

/*
 * The ruleset in message m (n bytes read, fd the descriptor that came
 * with it or -1) when it is whole, ok, and made for abi: fd.  Else -1,
 * and fd is closed.
 */
int helper_ns_rules_take(const struct helper_ns_rules *m, size_t n, int fd, int abi);

/* The view's device nodes' Landlock rules: clones of the host's nodes,
 * so the same rules on the host's paths (landlock_prebuild). */
extern const struct landlock_extra helper_dev_rules[];
extern const size_t helper_ndev_rules;

/*
 * Whether the init may go on with reply r (n bytes read, fd the
 * descriptor that came with it or -1).  0; or -1 with *label and *arg,
 * the refusal to end the run with: the child's own, or ACH_REF_FORK/ECHILD
 * when it ended without a reply (n == 0), or ACH_REF_PRIVS/EPROTO for
 * anything malformed (no descriptor with no refusal, one with a refusal).
 */
int helper_ns_reply_check(const struct helper_ns_reply *r, size_t n, int fd, int *label, int *arg);
/* The same for the first message (HELPER_NS_PRE_MAGIC): fd its ipc
 * namespace; the child's own refusals are ACH_REF_USERNS and
 * ACH_REF_FORK. */
int helper_ns_pre_check(const struct helper_ns_reply *m, size_t n, int fd, int *label, int *arg);

/*
 * In the harness, once the start message is sent, when network is not
 * granted: start the namespace child, which reaches the supervisor and
 * then the init through chan (the harness's end of HELPER_NS_FD; closed
 * here).  With no --allow-dns name it runs while this thread waits
 * (vfork, nschild.c says why) and is reaped here: 0.  Otherwise it is
 * forked: its pid.  -1 when it could not be started: the init is sent
 * the refusal (ACH_REF_FORK, errno) in its place.
 */
pid_t nschild_start(int chan, const struct policy *p);
/* One reply on chan, with fd when fd >= 0: 0, or -1. */
int nschild_send(int chan, const struct helper_ns_reply *r, int fd);

/*
 * The start message, the first thing on the channel: this header, then
 * len bytes of NUL-terminated strings, nargs of them (the pin word, the
 * policy's words, "--", the command) and then nenv (the environment, as
 * the command stage and the supervisor's resolver are to see it).  The
 * descriptors ride on the header's first byte (SCM_RIGHTS): the standard
 * descriptors whose HELPER_START_STDIO bit is set, in order, then the
 * pinned program's when HELPER_START_PIN is set.  A standard descriptor
 * whose HELPER_START_NOSTDIO bit is set is closed (the harness has none
 * there).  The supervisor reads it after its own start-up, which runs
 * while the harness vets the grants (sandbox_prestart).  Then comes the
 * harness's struct helper_ucounts, and then the filter.
 */
#define HELPER_START_MAGIC 0x73627832u	/* "sbx2" */
#define HELPER_START_STDIO(i) (1u << (i))
#define HELPER_START_NOSTDIO(i) (1u << ((i) + 3))
#define HELPER_START_PIN (1u << 6)
#define HELPER_START_MAX_LEN (256u << 20)
struct helper_start {
	uint32_t magic;
	uint32_t nargs;
	uint32_t nenv;
	uint32_t fds;
	uint64_t len;
};

/*
 * The second message on the channel: the caller's four /proc/sys/user/max_*
 * values as the harness read them (limits.h), which the init halves for
 * the sandbox's namespace; bad: 1 when they could not be read, arg then
 * the refusal's argument (ACH_REF_USER_LIMIT).  cg: which of
 * limits_cgroup_find's directories come with it (bit i: LIMITS_CG_i,
 * limits.h; the descriptors in that order).  Made by the harness after
 * the start message is sent, and read by the supervisor just before it
 * forks the init: off the path from one to the other.
 */
#define HELPER_UCOUNTS_MAGIC 0x73627532u	/* "sbu2" */
#define HELPER_UCOUNTS_NCG 3			/* LIMITS_CG_NFD (helper.c checks) */
struct helper_ucounts {
	uint32_t magic;
	uint32_t bad;
	int32_t arg;
	uint32_t v[4];		/* LIMITS_UC_SYSCTLS (sandbox.c checks) */
	uint32_t cg;
};

/*
 * The supervisor's check of that message (n bytes came, with the nfd
 * descriptors fds): 0 with out[i] the descriptor of cgroup directory i,
 * or -1; -1 with *label and *arg for the refusal otherwise (a short or
 * foreign message, descriptors other than cg says: ACH_REF_PRIVS EPROTO;
 * values the harness could not read: ACH_REF_USER_LIMIT, its arg).
 */
int helper_ucounts_check(const struct helper_ucounts *u, size_t n, const int *fds, int nfd,
			 int out[HELPER_UCOUNTS_NCG], int *label, int *arg);

/* The start message's strings, args then env, one buffer (malloc'd);
 * *len its length.  NULL when longer than HELPER_START_MAX_LEN. */
char *helper_start_join(const struct strv *args, const struct strv *env, size_t *len);

/* Split buf (len bytes, as helper_start_join made it) into v[0..nargs)
 * and env[0..nenv), pointing into buf, each array then NULL-terminated
 * (room for nargs + 1 and nenv + 1).  0, or -1 when the strings are not
 * exactly nargs + nenv NUL-terminated ones filling len. */
int helper_start_split(char *buf, size_t len, uint32_t nargs, uint32_t nenv, char **v, char **env);

struct sandbox_spawn {
	const struct policy *policy;
	char *const *argv;	/* program and arguments */
	int pin_fd;		/* -1, or O_RDONLY fd of the pinned program */
	int pin_held;		/* pin_fd's description holds a read lease, which
				   the init checks is still whole before the exec */
	int stdio[3];		/* -1 = inherit the harness's */
	/* The value the command gets for a variable the policy passes, or
	 * NULL for none; NULL here: the harness's own (getenv).  sandbox-run
	 * gives its caller's, where a re-exec cleaned the harness's own. */
	const char *(*env_value)(const char *name);
	/* The XDG state base whose sandbx/filters keeps the compiled
	 * seccomp program between runs (filtcache.h); NULL: compiled for
	 * every run. */
	const char *filter_cache;
	/* The caller's /proc/self/mountinfo text, read as the policy was
	 * built (cli_build_policy_mi), or NULL: where the limits' cgroup
	 * could go is looked up in it (limits_cgroup_find), not in the
	 * table read again. */
	const char *mountinfo;
	int no_reap;		/* the caller exits right after sandbox_wait: return
				   once the supervisor reports the run over, without
				   waiting for its own exit (it is not reaped) */
	pid_t pid;		/* out: the supervisor */
	int audit_fd;		/* out: read end of the audit channel */
	int ns_early;		/* for sandbox_prestart: the run has no pin and no
				   --allow-dns name, so the helper may make its
				   namespaces before the start message */
	int started;		/* sandbox_prestart ran: chan is the harness's end
				   of the channel, the start message not sent yet */
	int chan;
	int ns_chan;		/* the harness's end of HELPER_NS_FD, until sandbox_start
				   starts the namespace child; then -1 */
	pid_t ns_pid;		/* the namespace child (nschild_start) when it
				   was forked, or -1; sandbox_wait reaps it,
				   else the caller (sandbox_nschild_reap) */
	int ns_pidfd;		/* its pidfd, or -1 */
};

struct sandbox_result {
	int code;		/* exit code to report (CLI.md mapping) */
	int timed_out;
	int cancelled;
	int stopped_by;		/* a held signal (sandbox_sigs_hold) ended the run: its number */
	int refused;		/* a stage refused: code is 125 */
	enum auditch_label refusal;
	int refusal_arg;
	int exec_errno;		/* execve failed with this errno (126/127) */
	int limit_hit;		/* the command was killed for this limit + 1 */
	int done;		/* the supervisor reported the run over (ACH_DONE) */
	int done_code;		/* ... with this exit code */
};

/*
 * SIGTERM, SIGHUP and SIGINT, where they would end sandbx at once (their
 * action is the default), are held while a sandbox runs, so sandbx does
 * not die between the run's spawned record and its exited one.  Caught,
 * the run is ended the way a timeout ends it (the supervisor empties the
 * sandbox's pid namespace before it exits), the caller writes the exited
 * record, and sandbox_sigs_release() ends sandbx by that signal, as it
 * would have ended at once before: the same wait status for the caller's
 * shell.  A signal ignored or handled (the tui's, tool's) is left alone.
 *
 *   struct sandbox_sigs h;
 *   sandbox_sigs_hold(&h);              before the spawned record
 *   ... sandbox_start, sandbox_wait (which watches sandbox_sigs_fd(); a
 *       caller with its own loop polls it too and reads sandbox_sigs_caught())
 *   ... the exited record, with stopped=sandbox_sig_name(sig) when one came
 *   sandbox_sigs_release(&h);           does not return when one was caught
 *
 * One holder at a time.  The handler only stores the number and writes a
 * byte to a pipe (async-signal-safe); the wait loop does the rest.
 */
struct sandbox_sigs {
	unsigned held;			/* bit i: sandbox_end_sigs[i] is ours */
	struct sigaction old[3];
};
void sandbox_sigs_hold(struct sandbox_sigs *h);
int sandbox_sigs_caught(void);		/* the first held signal that came, or 0 */
int sandbox_sigs_fd(void);		/* readable once one came; -1 when none is held */
void sandbox_sigs_release(struct sandbox_sigs *h);
/* "SIGTERM", "SIGHUP" or "SIGINT" (the audit value), "?" otherwise */
const char *sandbox_sig_name(int sig);

/*
 * Start the supervisor's image before the policy exists: its exec, loader
 * and own start-up run while the caller vets the grants, and it waits for
 * the start message (HELPER_START_MAGIC) that sandbox_start sends.  Only
 * s->stdio (-1: none yet; sandbox_start sends the harness's own as they
 * are then) and s->ns_early are read.  0, or -1 with *err.  Then either
 * sandbox_start, or sandbox_abandon when the run is not to happen.
 */
int sandbox_prestart(struct sandbox_spawn *s, char **err);

/* Start the run: sandbox_prestart if not done, then the start message
 * and the filter.  0, or -1 with *err (nothing is left running). */
int sandbox_start(struct sandbox_spawn *s, char **err);

/* End a prestarted supervisor that got no start message, and reap it:
 * it has done nothing outside its own process. */
void sandbox_abandon(struct sandbox_spawn *s);

/* For a caller that waits for the supervisor itself (the bash tool): the
 * namespace child's pidfd for its poll set, readable once the child has
 * exited, or -1 when there is none (any more); and its reap, which waits
 * (the child ends once the supervisor has its reply, or is gone). */
int sandbox_nschild_fd(const struct sandbox_spawn *s);
void sandbox_nschild_reap(struct sandbox_spawn *s);

/*
 * Wait for the run to end.  timeout_ms < 0: no timeout; *stop (may be NULL)
 * is polled every 50 ms and ends the run when set.  Audit records from the
 * helper are printed (log.h) as they arrive, refusals with their message.
 * Closes s->audit_fd and reaps the supervisor and the namespace child,
 * unless s->no_reap and the supervisor said the run is over (ACH_DONE):
 * every process of the sandbox but the exiting supervisor is gone by then.
 */
void sandbox_wait(struct sandbox_spawn *s, long timeout_ms, volatile sig_atomic_t *stop,
		  struct sandbox_result *res);

/*
 * Fold one audit-channel record into res (for callers with their own wait
 * loop, e.g. the bash tool draining output pipes).  Degradations are
 * written as audit records; refusals and exec failures are printed too
 * unless quiet (the caller reports them).
 */
void sandbox_take_record(const struct sandbox_spawn *s, const struct auditch_rec *rec,
			 struct sandbox_result *res, int quiet);

/* The message for a refusal label (what failed and what to change). */
char *sandbox_refusal_message(const struct policy *p, enum auditch_label label, int arg);

/* Entry point of the helper stages (argv[1] == HELPER_ARGV1). */
int helper_main(int argc, char **argv);

/* A memory device the sandbox's view has a node of: /dev/null, zero,
 * full, random, urandom (1:3, 1:5, 1:7, 1:8, 1:9).  A standard descriptor
 * on one reaches the command as the view's own node, opened again
 * (helper.c, stdio_view_devices): the command never holds the caller's
 * description of it, nor its host node. */
static inline int helper_view_memdev(dev_t rdev)
{
	unsigned mi = minor(rdev);
	return major(rdev) == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9);
}

#endif
