/*
 * sandbox.c — the harness side of the helper: start the supervisor with
 * no environment, the audit channel, the start channel and the namespace
 * channel, send it the start message (helper.h), fork the namespace child
 * (nschild.c), send the filter, then wait, relaying the helper's records
 * and mapping the outcome to an exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox/filtcache.h"
#include "sandbox/helper.h"
#include "sandbox/limits.h"
#include "sandbox/netpolicy.h"
#include "sandbox/seccomp.h"
#include "util/compat.h"
#include "util/log.h"

#define HIGH_FD 16
/* After asking the supervisor to end the run (SIGTERM), how long to wait
 * for it before killing it outright. */
#define END_GRACE_MS 5000

#define NOFILE_ADVICE "close descriptors this process holds open, or raise the open-files limit (ulimit -n)"

static int to_high(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
}

/* The signals a harness may ignore: an ignored signal stays ignored
 * across execve, and the helper wants each at its default.  (One it
 * catches is reset by the execve itself.) */
static const int helper_sig_reset[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGTTIN,
					SIGTTOU, SIGTSTP, SIGALRM, SIGUSR1, SIGUSR2, SIGWINCH };

/*
 * The vfork child of spawn_helper: it runs in the harness's memory, on
 * its stack, until the execve, so it makes system calls only, writes
 * nothing but *failed, and never returns.  Every signal is blocked (the
 * harness's handlers must not run here), and stays blocked through the
 * execve: the helper unblocks them first thing (helper_main).
 */
static _Noreturn void helper_child(const int *hi, char **args, volatile int *failed)
{
	static char *const env[] = { NULL };
	/* The kernel's struct sigaction: SIG_DFL, no flags, no mask.  The
	 * system calls are made raw: a library's wrapper of sigaction or
	 * close (a sanitizer's, say) could write to memory this child
	 * shares with the harness. */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} dfl = { SIG_DFL, 0, NULL, 0 };
	/* 0-2 not yet chosen: none until the start message gives them, so
	 * the helper never holds what the caller then replaces. */
	for (int i = 0; i < 3; i++)
		if (hi[i] >= 0 ? syscall(SYS_dup2, hi[i], i) < 0 : syscall(SYS_close, i) < 0 && errno != EBADF)
			goto fail;
	if (syscall(SYS_dup2, hi[HELPER_AUDIT_FD], HELPER_AUDIT_FD) < 0 ||
	    syscall(SYS_dup2, hi[HELPER_CHAN_FD], HELPER_CHAN_FD) < 0 ||
	    syscall(SYS_dup2, hi[HELPER_NS_FD], HELPER_NS_FD) < 0 ||
	    syscall(SYS_close_range, HELPER_NS_FD + 1, ~0U, 0) < 0)
		goto fail;
	for (size_t i = 0; i < SBX_ARRAY_LEN(helper_sig_reset); i++)
		(void)syscall(SYS_rt_sigaction, helper_sig_reset[i], &dfl, NULL, sizeof(dfl.mask));
	/* By inode, not by name: /proc/self/exe is the binary running now. */
	syscall(SYS_execve, "/proc/self/exe", args, env);
fail:
	*failed = errno;
	syscall(SYS_exit_group, 127);
	_exit(127);
}

/*
 * Start the helper: a vfork and an execve, so the harness waits only for
 * the exec.  Not posix_spawn: glibc's child asks for the disposition of
 * every one of the 64 signals (it blocks them all first, and then looks
 * at each blocked one), some hundred system calls on the spawn path for
 * the thirteen a harness may ignore.  0 and *pid, or an errno.
 */
static int spawn_helper(const int *hi, char **args, pid_t *pid)
{
	volatile int failed = 0;
	sigset_t all, was;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	pid_t c = vfork();
	if (c == 0)
		helper_child(hi, args, &failed);
	int e = c < 0 ? errno : failed;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (c > 0 && e) {
		/* it exited (127) without the exec: reap it */
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
	}
	*pid = e ? -1 : c;
	return e;
}

int sandbox_prestart(struct sandbox_spawn *s, char **err)
{
	/* hi[fd]: what goes to fd in the helper (hi[HELPER_PIN_FD] stays -1:
	 * the pin comes in the start message) */
	int pfd[2], bsk[2], nsk[2], hi[HELPER_NS_FD + 1];

	for (int i = 0; i <= HELPER_NS_FD; i++)
		hi[i] = -1;
	s->pid = -1;
	s->audit_fd = -1;
	s->started = 0;
	s->chan = -1;
	s->ns_chan = -1;
	s->ns_pid = -1;
	s->ns_pidfd = -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		*err = xasprintf("cannot create the audit channel: %s — %s", strerror(errno),
				 errno == EMFILE ? NOFILE_ADVICE : "try again");
		return -1;
	}
	/* The start message's and the seccomp program's way in: the program
	 * is compiled here while the helper starts (sandbox_start), read by
	 * the command stage.  A socket, so a write to a helper that already
	 * refused is EPIPE, not SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, bsk) < 0) {
		*err = xasprintf("cannot create the sandbox's filter channel: %s — %s", strerror(errno),
				 errno == EMFILE ? NOFILE_ADVICE : "try again");
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	/* The namespace child's way to the supervisor (nschild.c). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, nsk) < 0) {
		*err = xasprintf("cannot create the sandbox's namespace channel: %s — %s", strerror(errno),
				 errno == EMFILE ? NOFILE_ADVICE : "try again");
		close(pfd[0]);
		close(pfd[1]);
		close(bsk[0]);
		close(bsk[1]);
		return -1;
	}
	/* Move every descriptor that crosses above the target numbers so no
	 * dup2 below overwrites a source still to be used. */
	hi[HELPER_AUDIT_FD] = to_high(pfd[1]);
	close(pfd[1]);
	for (int i = 0; i < 3; i++)
		if (s->stdio[i] >= 0)
			hi[i] = to_high(s->stdio[i]);
	hi[HELPER_CHAN_FD] = to_high(bsk[0]);
	int dup_errno = errno;
	close(bsk[0]);
	hi[HELPER_NS_FD] = to_high(nsk[0]);
	if (hi[HELPER_NS_FD] < 0)
		dup_errno = errno;
	close(nsk[0]);
	/* A descriptor that could not be moved would not cross: the helper
	 * would start without its audit channel, filter or namespace channel
	 * and refuse with no reason the harness could read. */
	int moved = hi[HELPER_AUDIT_FD] >= 0 && hi[HELPER_CHAN_FD] >= 0 && hi[HELPER_NS_FD] >= 0;
	for (int i = 0; i < 3; i++)
		moved = moved && (s->stdio[i] < 0 || hi[i] >= 0);
	if (!moved) {
		*err = xasprintf("cannot pass the sandbox's helper its descriptors: %s — %s", strerror(dup_errno),
				 NOFILE_ADVICE);
		close(pfd[0]);
		close(bsk[1]);
		close(nsk[1]);
		for (int i = 0; i <= HELPER_NS_FD; i++)
			if (hi[i] >= 0)
				close(hi[i]);
		return -1;
	}

	char ppid[24];
	snprintf(ppid, sizeof(ppid), "%d", (int)getpid());
	char a0[] = "sandbx", a1[] = HELPER_ARGV1;
	char a3[] = HELPER_EARLY;
	char *args[] = { a0, a1, ppid, s->ns_early ? a3 : NULL, NULL };

	int e = spawn_helper(hi, args, &s->pid);
	for (int i = 0; i <= HELPER_NS_FD; i++)
		if (hi[i] >= 0)
			close(hi[i]);
	if (e != 0) {
		/* ENOMEM: the helper's image did not fit, most often under
		 * the caller's own ulimit -v, which the helper inherits */
		char mem[192];
		memory_limit_advice(mem, sizeof(mem));
		*err = xasprintf("cannot start the sandbox helper: %s — %s", strerror(e),
				 e == EAGAIN ? "the process limit is reached (ulimit -u): end some processes, or raise it"
				 : e == ENOMEM ? mem
				 : e == EMFILE || e == ENFILE ? NOFILE_ADVICE : "try again");
		close(pfd[0]);
		close(bsk[1]);
		close(nsk[1]);
		s->pid = -1;
		return -1;
	}
	s->audit_fd = pfd[0];
	s->chan = bsk[1];
	s->ns_chan = nsk[1];
	s->started = 1;
	return 0;
}

void sandbox_abandon(struct sandbox_spawn *s)
{
	if (!s->started)
		return;
	/* Closing the channel alone ends it once it reads; it may still be
	 * in its exec, and the caller may be about to exit or go on. */
	close(s->chan);
	close(s->audit_fd);
	if (s->ns_chan >= 0)
		close(s->ns_chan);
	kill(s->pid, SIGKILL);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	s->chan = s->audit_fd = s->ns_chan = -1;
	s->pid = -1;
	s->started = 0;
}

int sandbox_nschild_fd(const struct sandbox_spawn *s)
{
	return s->ns_pid > 0 ? s->ns_pidfd : -1;
}

void sandbox_nschild_reap(struct sandbox_spawn *s)
{
	if (s->ns_pid <= 0)
		return;
	while (waitpid(s->ns_pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (s->ns_pidfd >= 0)
		close(s->ns_pidfd);
	s->ns_pid = s->ns_pidfd = -1;
}

/* The start message (helper.h) on the channel, with its descriptors.
 * 0, or -1 with errno (E2BIG: longer than the helper takes). */
static int send_start(const struct sandbox_spawn *s)
{
	struct strv args = { 0 }, env = { 0 };
	struct helper_start h = { .magic = HELPER_START_MAGIC };
	int fds[4], nfd = 0, r = -1;

	strv_push(&args, s->pin_fd < 0 ? "nopin" : s->pin_held ? "pinheld" : "pin");
	policy_to_argv(s->policy, &args);
	strv_push(&args, "--");
	for (char *const *a = s->argv; *a; a++)
		strv_push(&args, *a);
	for (size_t i = 0; i < s->policy->env.n; i++) {
		const char *name = s->policy->env.v[i];
		const char *v = s->env_value ? s->env_value(name) : getenv(name);
		if (v)
			strv_push_own(&env, xasprintf("%s%s=%s", helper_env_for_command_only(name) ?
						      HELPER_CMDENV_PREFIX : "", name, v));
	}
	/* The standard descriptors as they are now: those the caller chose,
	 * else the harness's own, which may have changed since the spawn. */
	for (int i = 0; i < 3; i++) {
		int fd = s->stdio[i] >= 0 ? s->stdio[i] : i;
		if (fcntl(fd, F_GETFD) < 0) {
			h.fds |= HELPER_START_NOSTDIO(i);
			continue;
		}
		h.fds |= HELPER_START_STDIO(i);
		fds[nfd++] = fd;
	}
	if (s->pin_fd >= 0) {
		h.fds |= HELPER_START_PIN;
		fds[nfd++] = s->pin_fd;
	}
	h.nargs = (uint32_t)args.n;
	h.nenv = (uint32_t)env.n;
	size_t len;
	char *buf = helper_start_join(&args, &env, &len);
	if (!buf) {
		errno = E2BIG;
		goto out;
	}
	h.len = len;

	ssize_t n = send_with_fds(s->chan, &h, sizeof(h), fds, nfd);
	/* A stream socket takes the whole header or nothing this small */
	if (n == (ssize_t)sizeof(h) && write_all_nosignal(s->chan, buf, len) == 0)
		r = 0;
	else if (n >= 0 && n != (ssize_t)sizeof(h))
		errno = EIO;
	free(buf);
out:
	strv_free(&args);
	strv_free(&env);
	return r;
}

/* The filter (c: 0, or the compiler's -errno) on the channel, which is
 * then closed: the start message and the per-user limits went before. */
static void send_filter(struct sandbox_spawn *s, int c, const struct seccomp_bpf *bpf)
{
	(void)seccomp_filter_write(s->chan, c, bpf);
	close(s->chan);
	s->chan = -1;
}

int sandbox_start(struct sandbox_spawn *s, char **err)
{
	if (!s->started) {
		s->ns_early = 0;	/* the message follows at once */
		if (sandbox_prestart(s, err) < 0)
			return -1;
	}
	int sent = send_start(s);
	if (sent < 0) {
		int e = errno;
		/* EPIPE: the helper is gone already (its own start-up refused,
		 * on the audit channel): sandbox_wait says why. */
		if (e != EPIPE && e != ECONNRESET) {
			*err = xasprintf("cannot start the sandbox helper: %s — %s", strerror(e),
					 e == E2BIG ? "the command's arguments and environment, with the policy, "
						      "pass what the helper takes: pass fewer or shorter arguments "
						      "(through a file, or xargs)"
					 : e == EMFILE || e == ENFILE ? NOFILE_ADVICE : "try again");
			sandbox_abandon(s);
			return -1;
		}
	}
	if (sent == 0) {
		/* The caller's per-user limits, read here in the caller's user
		 * namespace while the supervisor reads the start message; the
		 * init halves them for the sandbox's.  A failure is the
		 * supervisor's to refuse; a failed send leaves it short of
		 * the message, and it ends. */
		struct helper_ucounts u = { .magic = HELPER_UCOUNTS_MAGIC };
		int cg[LIMITS_CG_NFD], fds[LIMITS_CG_NFD], nfd = 0;
		_Static_assert(SBX_ARRAY_LEN(u.v) == LIMITS_UC_SYSCTLS, "the harness's per-user limits");
		if (limits_ucounts_read(u.v, &u.arg) < 0)
			u.bad = 1;
		/* Where the supervisor could make the sandbox's cgroup:
		 * found here, where it is off the supervisor's path. */
		limits_cgroup_find(s->policy, s->mountinfo, cg);
		for (int i = 0; i < LIMITS_CG_NFD; i++) {
			if (cg[i] >= 0 && !u.bad) {
				u.cg |= 1u << i;
				fds[nfd++] = cg[i];
			} else if (cg[i] >= 0) {
				close(cg[i]);
			}
		}
		ssize_t n = send_with_fds(s->chan, &u, sizeof(u), fds, nfd);
		if (n > 0 && (size_t)n < sizeof(u))
			(void)write_all_nosignal(s->chan, (char *)&u + n, sizeof(u) - (size_t)n);
		for (int i = 0; i < nfd; i++)
			close(fds[i]);
	}
	/* The helper is starting up (exec, loader, namespaces, the mount
	 * view) for a millisecond and more before its command stage needs the
	 * filter: it is read from the cache (filtcache.h), or libseccomp's
	 * compiler runs, here.  A kept one is read and sent before the
	 * namespace child starts: that child runs on this CPU, and the init
	 * waits for its network namespace (docs/internals/spawn.md,
	 * thirty-ninth session).  A failure leaves the channel short and the
	 * command stage refuses the run. */
	struct seccomp_bpf *bpf = xmalloc(sizeof(*bpf));
	int hit = s->filter_cache && filtcache_load(s->filter_cache, s->policy, bpf) == 0;
	if (hit)
		send_filter(s, 0, bpf);
	if (sent == 0 && s->policy->net == POL_NET_NONE) {
		/* Before a filter is compiled here (no kept one): that takes a
		 * millisecond and more. */
		pid_t c = nschild_start(s->ns_chan, s->policy);
		/* Forked: the wait reaps it when it ends, not when the run
		 * does: no zombie for the length of the command.  Without a
		 * pidfd (EMFILE), at the run's end. */
		if (c > 0) {
			s->ns_pid = c;
			s->ns_pidfd = (int)syscall(SYS_pidfd_open, c, 0);
		}
	} else {
		/* With network granted there is no namespace to make: no
		 * child, and the supervisor waits for none.  With the
		 * helper already gone (EPIPE above) there is no one to make
		 * it for, and sandbox_wait says why. */
		close(s->ns_chan);
	}
	s->ns_chan = -1;
	if (!hit) {
		int c = seccomp_filter_compile(s->policy, SBX_SYSCALL_NEWEST, bpf);
		send_filter(s, c, bpf);
		/* Kept after the helper has it, so the run does not wait. */
		if (c == 0 && s->filter_cache)
			(void)filtcache_store(s->filter_cache, s->policy, seccomp_lib_path(), bpf);
	}
	s->started = 0;
	free(bpf);
	return 0;
}


/* Whether the program the helper could not find exists outside the
 * sandbox (by its path, or in a directory of PATH, which the command
 * gets): if it does not, no grant would help, and the message says so.
 * 1 when it cannot tell (no PATH), to keep the grant advice. */
static int exists_outside(const char *prog)
{
	struct stat st;
	if (strchr(prog, '/'))
		return stat(prog, &st) == 0;
	const char *path = getenv("PATH");
	if (!path || !*path)
		return 1;
	for (const char *p = path;;) {
		const char *e = strchrnul(p, ':');
		int len = (int)(e - p);
		char *cand = xasprintf("%.*s/%s", len ? len : 1, len ? p : ".", prog);
		int found = stat(cand, &st) == 0;
		free(cand);
		if (found)
			return 1;
		if (!*e)
			return 0;
		p = e + 1;
	}
}

static const char *const limit_words[LIM__COUNT] = { "process", "memory", "CPU time", "file size", "open files" };

void sandbox_take_record(const struct sandbox_spawn *s, const struct auditch_rec *rec,
			 struct sandbox_result *res, int quiet)
{
	enum auditch_label l = (enum auditch_label)rec->label;
	char num[32];
	snprintf(num, sizeof(num), "%d", rec->arg);
	if (auditch_is_refusal(l)) {
		if (res->refused)
			return;	/* the first refusal is the cause */
		res->refused = 1;
		res->refusal = l;
		res->refusal_arg = rec->arg;
		if (quiet)
			return;
		char *m = sandbox_refusal_message(s->policy, l, rec->arg);
		audit(LOG_INFO, "refused", "mechanism", auditch_name(l), "reason", m, NULL);
		sbx_err("%s", m);
		free(m);
		return;
	}
	switch (l) {
	case ACH_DEG_PROC:
	case ACH_DEG_CAPBSET:
		audit(LOG_INFO, "degraded", "mechanism", auditch_name(l), "error",
		      strerror(rec->arg), NULL);
		break;
	case ACH_DEG_LIMIT:
	case ACH_DEG_LIMIT_OFF:
		audit(LOG_INFO, "degraded", "mechanism", auditch_name(l), "limit",
		      (unsigned)rec->arg < LIM__COUNT ? limit_words[rec->arg] : num, NULL);
		break;
	case ACH_DEG_USER_LIMIT:
		audit(LOG_INFO, "degraded", "mechanism", auditch_name(l), "limit",
		      limits_ucount_name((rec->arg >> 16) & 0xff), "error", strerror(rec->arg & 0xffff), NULL);
		break;
	case ACH_EXEC_FAILED:
		res->exec_errno = rec->arg;
		if (quiet)
			break;
		if ((rec->arg == ENOENT || rec->arg == ENOTDIR) && !exists_outside(s->argv[0]))
			sbx_err(strchr(s->argv[0], '/') ? "cannot run '%s': no such file — check the name"
							: "cannot run '%s': no program of that name on PATH — check the name, "
							  "or give its path",
				s->argv[0]);
		else if (rec->arg == ENOENT || rec->arg == ENOTDIR)
			sbx_err("cannot run '%s': not found in the sandbox — grant its directory with --allow-exec",
				s->argv[0]);
		else if (rec->arg == EISDIR)
			sbx_err("cannot run '%s': it is a directory — name a program in it", s->argv[0]);
		else if (rec->arg == ETXTBSY)
			sbx_err("cannot run '%s': another process has it open for writing — run it again once "
				"that process is done", s->argv[0]);
		else
			sbx_err("cannot run '%s': %s — it needs execute permission and an --allow-exec grant",
				s->argv[0], strerror(rec->arg));
		break;
	case ACH_LIMIT_HIT:
		res->limit_hit = rec->arg + 1;
		break;
	case ACH_DONE:
		res->done = 1;
		res->done_code = rec->arg;
		break;
	default:
		audit(LOG_INFO, "degraded", "mechanism", auditch_name(l), "arg", num, NULL);
		break;
	}
}

static const int end_sigs[] = { SIGTERM, SIGHUP, SIGINT };
static volatile sig_atomic_t end_caught;
static int end_pipe[2] = { -1, -1 };

static void on_end_signal(int sig)
{
	int e = errno;
	if (!end_caught)
		end_caught = sig;
	(void)!write(end_pipe[1], "", 1);	/* non-blocking: a full pipe already says so */
	errno = e;
}

void sandbox_sigs_hold(struct sandbox_sigs *h)
{
	struct sigaction sa = { .sa_handler = on_end_signal, .sa_flags = SA_RESTART };
	memset(h, 0, sizeof(*h));
	end_caught = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < SBX_ARRAY_LEN(end_sigs); i++) {
		struct sigaction now;
		if (sigaction(end_sigs[i], NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL)
			h->held |= 1u << i;
		sigaddset(&sa.sa_mask, end_sigs[i]);
	}
	/* Without the pipe the wait could miss a signal that came just
	 * before it slept: then nothing is held, and a signal ends sandbx
	 * at once as it always did. */
	if (!h->held || pipe2(end_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		h->held = 0;
		return;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(end_sigs); i++)
		if (h->held & (1u << i))
			sigaction(end_sigs[i], &sa, &h->old[i]);
}

int sandbox_sigs_caught(void)
{
	return end_caught;
}

int sandbox_sigs_fd(void)
{
	return end_pipe[0];
}

void sandbox_sigs_release(struct sandbox_sigs *h)
{
	int sig = end_caught;
	if (!h->held)
		return;
	for (size_t i = 0; i < SBX_ARRAY_LEN(end_sigs); i++)
		if (h->held & (1u << i))
			sigaction(end_sigs[i], &h->old[i], NULL);
	close(end_pipe[0]);
	close(end_pipe[1]);
	end_pipe[0] = end_pipe[1] = -1;
	end_caught = 0;
	h->held = 0;
	if (sig) {
		/* its default action again: sandbx ends by it, as it would
		 * have at once, now that the run is over and recorded */
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
}

const char *sandbox_sig_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : sig == SIGINT ? "SIGINT" : "?";
}

void sandbox_wait(struct sandbox_spawn *s, long timeout_ms, volatile sig_atomic_t *stop,
		  struct sandbox_result *res)
{
	long deadline = timeout_ms >= 0 ? mono_ms() + timeout_ms : -1, killed_at = 0;
	int killed = 0, detached = 0, st = 0;
	char buf[sizeof(struct auditch_rec) * 16];
	size_t have = 0;

	memset(res, 0, sizeof(*res));
	for (;;) {
		int wait_ms = -1;
		if (!killed && deadline >= 0) {
			long left = deadline - mono_ms();
			wait_ms = left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
		}
		if (!killed && stop && (wait_ms < 0 || wait_ms > 50))
			wait_ms = 50;
		if (killed == 1) {
			long left = killed_at + END_GRACE_MS - mono_ms();
			wait_ms = left < 0 ? 0 : (int)left;
		}
		struct pollfd pf[3] = { { .fd = s->audit_fd, .events = POLLIN },
					{ .fd = killed ? -1 : sandbox_sigs_fd(), .events = POLLIN },
					{ .fd = sandbox_nschild_fd(s), .events = POLLIN } };
		int n = poll(pf, 3, wait_ms);
		if (n > 0 && pf[2].revents)
			sandbox_nschild_reap(s);
		if (n < 0 && errno != EINTR)
			break;
		if (!killed && sandbox_sigs_caught()) {
			/* sandbx itself is asked to end: end the run first */
			res->stopped_by = sandbox_sigs_caught();
			kill(s->pid, SIGTERM);
			killed = 1;
			killed_at = mono_ms();
			continue;
		}
		if (n > 0 && pf[0].revents) {
			ssize_t r = read(s->audit_fd, buf + have, sizeof(buf) - have);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;	/* every stage has exited or exec'd */
			have += (size_t)r;
			size_t off = 0;
			while (have - off >= sizeof(struct auditch_rec)) {
				struct auditch_rec rec;
				memcpy(&rec, buf + off, sizeof(rec));
				sandbox_take_record(s, &rec, res, 0);
				off += sizeof(rec);
			}
			memmove(buf, buf + off, have - off);
			have -= off;
			/* The supervisor is left to exit alone after a run,
			 * not after a refusal (the init's, from the view or
			 * the namespace child's reply, ends in the same
			 * record): a refused run leaves the caller no
			 * process to reap, and it was short. */
			if (res->done && s->no_reap && !killed && !res->refused) {
				detached = 1;
				break;
			}
			continue;
		}
		if (killed == 1 && mono_ms() >= killed_at + END_GRACE_MS) {
			kill(s->pid, SIGKILL);	/* it did not end the run */
			killed = 2;
		}
		if (killed)
			continue;
		/* The supervisor kills the init and reports the run over once
		 * the sandbox's pid namespace is empty (helper.c, on_term). */
		if (stop && *stop) {
			res->cancelled = 1;
			kill(s->pid, SIGTERM);
			killed = 1;
		} else if (deadline >= 0 && mono_ms() >= deadline) {
			res->timed_out = 1;
			kill(s->pid, SIGTERM);
			killed = 1;
		}
		if (killed)
			killed_at = mono_ms();
	}
	close(s->audit_fd);
	s->audit_fd = -1;
	if (detached) {
		res->code = res->refused ? 125 : res->done_code;
		return;
	}
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	sandbox_nschild_reap(s);
	if (res->stopped_by)
		res->code = 128 + res->stopped_by;
	else if (res->timed_out)
		res->code = 124;
	else if (res->refused)
		res->code = 125;
	else if (WIFEXITED(st))
		res->code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		res->code = 128 + WTERMSIG(st);
	else
		res->code = 125;
}

static const char *grant_path(const struct policy *p, int i)
{
	return (i >= 0 && (size_t)i < p->ngrants) ? p->grants[i].path : "?";
}

/* Descriptor 0, 1 or 2 as the refusals name it: "the command's standard
 * input". */
static const char *stdio_word(int fd)
{
	return fd == 0 ? "input" : fd == 1 ? "output" : "error";
}

char *sandbox_refusal_message(const struct policy *p, enum auditch_label label, int arg)
{
	switch (label) {
	case ACH_REF_USERNS:
		return xasprintf("cannot create the sandbox's user namespace (%s) — enable unprivileged user "
				 "namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, "
				 "or lift an AppArmor restrict_unprivileged_userns policy); nothing was run",
				 strerror(arg));
	case ACH_REF_IDMAP:
		return xasprintf("cannot map the caller's user id into the sandbox (%s) — the host refuses "
				 "user namespace id maps; nothing was run", strerror(arg));
	case ACH_REF_NETNS_LO:
		return xasprintf("cannot make the sandbox's network namespace or bring up its loopback (%s); nothing was run",
				 strerror(arg));
	case ACH_REF_GRANT_OPEN:
		return xasprintf("granted path '%s' could not be opened by the sandbox helper — it vanished "
				 "after it was checked; nothing was run", grant_path(p, arg));
	case ACH_REF_GRANT_CHANGED:
		return xasprintf("granted path '%s' is no longer the file or directory that was checked "
				 "(it was replaced) — nothing was run; check who changes it and run again",
				 grant_path(p, arg));
	case ACH_REF_MOUNT:
		return xasprintf("cannot build the sandbox's mount view (%s); nothing was run", strerror(arg));
	case ACH_REF_MOUNT_GRANT:
		return xasprintf("cannot mount granted path '%s' into the sandbox's view; nothing was run",
				 grant_path(p, arg));
	case ACH_REF_LANDLOCK_OFF:
		return xstrdup("Landlock is disabled on this kernel — add landlock to the lsm= boot parameter "
			       "(or CONFIG_LSM); sandbx will not run a command without it");
	case ACH_REF_LANDLOCK_ABI:
		if (arg == -ENOSYS)
			return xstrdup("this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK, or a "
				       "seccomp filter of the container sandbx runs in hides its syscalls); sandbx needs "
				       "Landlock ABI 5 (Linux 6.10) or newer — use a kernel with Landlock, or allow the "
				       "landlock_* syscalls in the container's profile; nothing was run");
		if (arg < 0)
			return xasprintf("the kernel would not say its Landlock ABI (%s); sandbx needs ABI 5 (Linux "
					 "6.10) or newer for full enforcement; nothing was run", strerror(-arg));
		return xasprintf("this kernel's Landlock ABI is %d; sandbx needs ABI %d (Linux 6.10) or newer "
				 "for full enforcement — upgrade the kernel; nothing was run", arg, 5);
	case ACH_REF_LANDLOCK:
		return xasprintf("Landlock could not be fully enforced (%s); a partial sandbox is refused — "
				 "nothing was run", strerror(arg));
	case ACH_REF_SECCOMP:
		if (arg == ENOMEM) {
			char advice[192];
			memory_limit_advice(advice, sizeof(advice));
			return xasprintf("the syscall filter could not be built: out of memory — %s; nothing was run",
					 advice);
		}
		return xasprintf("the syscall filter could not be installed (%s); nothing was run", strerror(arg));
	case ACH_REF_PRIVS:
		return xasprintf("the command's privileges could not be dropped (%s); nothing was run",
				 strerror(arg));
	case ACH_REF_FORK:
		return xasprintf("the sandbox could not start its processes (%s); nothing was run", strerror(arg));
	case ACH_REF_COREDUMP:
		return xasprintf("this machine hands core dumps to a program or socket of its own (kernel.core_pattern), "
				 "which runs for a crash of the command unless its core limit is one byte, and your hard "
				 "core limit is 0, which cannot be raised to that (%s) — raise it (ulimit -Hc unlimited, "
				 "or LimitCORE= / limits.conf) or use a file core_pattern; nothing was run",
				 strerror(arg));
	case ACH_REF_SCHED:
		return xasprintf("the sandbox could not keep real-time scheduling and raised priority from the "
				 "command (its RLIMIT_RTPRIO and RLIMIT_NICE at 0, a real-time policy of the caller's "
				 "left: %s); nothing was run", strerror(arg));
	case ACH_REF_USER_LIMIT:
		return limits_ucount_message(arg);
	case ACH_REF_LIMIT:
		return xasprintf("the %s limit could not be set; nothing was run",
				 (unsigned)arg < LIM__COUNT ? limit_words[arg] : "resource");
	case ACH_REF_LANDLOCK_SCOPE:
		return xasprintf("this kernel's Landlock ABI is %d: below 6 (Linux 6.12) it cannot keep a command that has "
				 "the host's network and --allow-unix-sockets from the host's abstract unix sockets — drop "
				 "--allow-unix-sockets or upgrade the kernel; nothing was run", arg);
	case ACH_REF_CGROUPNS:
		return xasprintf("cannot make the sandbox's cgroup namespace (%s); nothing was run", strerror(arg));
	case ACH_REF_STDIO:
		return xasprintf("the command's standard %s is a directory (or an O_PATH handle): through it the "
				 "command could reach the host's files outside every grant — redirect a file, a pipe or "
				 "/dev/null instead; nothing was run",
				 stdio_word(arg));
	case ACH_REF_STDIO_MEMFD:
		return xasprintf("the command's standard %s is an anonymous memory file (memfd), which the sandbox's "
				 "file rules do not reach: through /proc/self/fd the command could rewrite it and run a "
				 "program it wrote there — give it through a pipe (cat FILE | ...) or a file; nothing was "
				 "run",
				 stdio_word(arg));
	case ACH_REF_STDIO_SOCKET:
		return xasprintf("the command's standard %s is a socket of yours that can send to any address (a "
				 "datagram socket, or a listening TCP socket whose connections can be reconnected): "
				 "through it the command could reach what its network policy denies (the host's "
				 "network, or unix sockets) — give it a pipe or a file instead, or run with "
				 "--allow-network (its ports, for a listening socket; --allow-unix-sockets for a unix "
				 "one); nothing was run",
				 stdio_word(arg));
	case ACH_REF_STDIO_ASYNC:
		return xasprintf("the command's standard %s is a terminal (or another device) on which a program of "
				 "yours turned O_ASYNC on: the command could change the signal it sends as input "
				 "arrives (F_SETSIG) to SIGKILL, and the next line typed would kill that program, or "
				 "its process group, outside the sandbox — turn O_ASYNC off there first, or give the "
				 "command a file or a pipe; nothing was run",
				 stdio_word(arg));
	case ACH_REF_STDIO_DEVICE:
		return xasprintf("the command's standard %s is a device node of yours that could not be opened again "
				 "through a read-only mount (found no more at its path, or its open refused): through "
				 "it the command could change the node's mode and group for every user of the machine "
				 "— give it the data through a pipe (cat DEVICE | ...) or a file; nothing was run",
				 stdio_word(arg));
	case ACH_REF_STDIO_TTY:
		return xasprintf("the command's standard %s is a terminal that is not your controlling terminal, and a "
				 "grant holds its path: the command could reopen it through /dev/stdin and take it as "
				 "its own controlling terminal (whose end then hangs the line up, and whose console "
				 "ioctls it may use) — give it your own terminal, a file or a pipe, or grant a narrower "
				 "tree than the one holding the terminal; nothing was run",
				 stdio_word(arg));
	case ACH_REF_MQUEUE:
		return xasprintf("the granted tree holds the host's POSIX message queues (an mqueue mount at '%s'), "
				 "which the sandbox could not replace with its own: the command could list them and "
				 "take their messages — grant a tree without it, or grant the mount itself to share "
				 "the host's queues; nothing was run",
				 (size_t)arg < p->mqueue.n ? p->mqueue.v[arg] : "?");
	case ACH_REF_HUGETLBFS:
		return xasprintf("the granted tree holds a hugetlbfs mount at '%s' (the machine's huge pages), which "
				 "the sandbox could not hide behind an empty directory: a command mapping a file there "
				 "would take pages of the huge-page pool, and they would stay taken after the run — "
				 "grant a tree without it; nothing was run",
				 (size_t)arg < p->hugetlbfs.n ? p->hugetlbfs.v[arg] : "?");
	case ACH_REF_PIN:
		if (arg == ETXTBSY)
			return xstrdup("the pinned program was opened for writing while the run waited to start, longer "
				       "than the kernel holds a writer off (fs.lease-break-time): the bytes hashed may no "
				       "longer be the bytes there — nothing was run; check who writes it and run again");
		return xasprintf("the pinned program cannot be opened at its path in the sandbox's view (%s): it was "
				 "renamed, removed or replaced after it was hashed — nothing was run; check who changes "
				 "it and run again", arg == ESTALE ? "another file is there now" : strerror(arg));
	case ACH_REF_JOBCTL:
		return xasprintf("the job was stopped, but the sandbox could not be held stopped (%s%s): it was killed "
				 "rather than left able to read the keys typed for your shell — give the command standard "
				 "input, output and error away from the terminal (</dev/null >log 2>&1) to stop it safely",
				 arg == EAGAIN ? "its processes kept starting new ones"
				 : arg == ENOENT ? "it has no /proc of its own to find them in"
						 : "ptrace: ",
				 arg == EAGAIN || arg == ENOENT ? "" : strerror(arg));
	case ACH_REF_DNS:
		return netpol_refusal_message(arg, p);
	default:
		return xasprintf("the sandbox refused to run the command (%s)", auditch_name(label));
	}
}
