/*
 * nschild.c — the harness's namespace child (helper.h): a fork of the
 * harness that joins the sandbox's user namespace once the supervisor has
 * made it and makes the ipc namespace and the network namespace there
 * (loopback up), while the supervisor forks the init and the init builds
 * the view.  Its messages on HELPER_NS_FD (which the init inherits from
 * the supervisor) are what let the init go on: the ipc namespace's before
 * the view's private mounts, the network namespace's before it forks the
 * command.  Then, its CPU idle otherwise, it makes
 * most of the command's Landlock ruleset (landlock_prebuild: the grants,
 * opened at their host paths and checked against their pins, and the
 * view's device nodes) and sends it as a last message, which the
 * command stage takes (helper.h, struct helper_ns_rules).
 *
 * Why a child of the harness.  A new network namespace costs about as much
 * as the view.  The supervisor made it while the init built the view, but
 * a forked process starts on its parent's CPU: the init mostly waited for
 * the supervisor's to be free, while the harness's, waiting for the run,
 * was idle (docs/internals/spawn.md, thirty-sixth session).  This child
 * starts on the harness's.  The ipc namespace came here for the same
 * reason (fortieth session): made with the others in the supervisor's
 * unshare, it and its teardown were about 0.1 ms of each run's path; the
 * binfmt_misc and the per-user limits could not follow (fsopen asks for
 * CAP_SYS_ADMIN over the caller's mount namespace, which the child does
 * not have; a write to the host's /proc/sys/user from the sandbox's user
 * namespace took 0.4 ms).
 *
 * Started by vfork when the run resolves no --allow-dns name: the harness's
 * thread has nothing left to do for the run until the child is done, and a
 * fork's copy of the harness's page tables, with the copy-on-write faults
 * that follow in both, was most of what stood between the start message
 * and the network namespace (thirty-ninth session).  So the child writes
 * to nothing but its own stack (and errno), allocates nothing, and runs
 * with every signal blocked from before the vfork.  With a name to resolve
 * the supervisor resolves it before it makes the user namespace the child
 * waits for, which can take the resolver's timeouts; the harness must not
 * be held that long, and the child is forked.
 *
 * What it has is the harness's memory, shared or copied (in the agent:
 * the credentials and the conversation), so:
 *   - it keeps no descriptor but its channel (and, for a moment each,
 *     the user namespace's, which the supervisor sends with its word,
 *     the grants' it opens O_PATH for their rules, and the ruleset's,
 *     closed once sent), and blocks every signal that can be blocked;
 *   - it is not dumpable (main cleared the flag; a fork keeps it, and a
 *     vfork's child shares the harness's memory and its flag) and its
 *     memory belongs to the host's user namespace, so no process of the
 *     sandbox's namespace may trace it or read its memory, whatever
 *     capabilities it holds there;
 *   - it stays in the host's pid namespace, which no process of the
 *     sandbox sees (their /proc is their own pid namespace's);
 *   - it has ended its work before the command exists.
 * The harness may have threads (the tui's worker runs the bash tool): only
 * async-signal-safe calls are made here, and no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox/helper.h"
#include "sandbox/landlock.h"

int nschild_send(int chan, const struct helper_ns_reply *r, int fd)
{
	return send_with_fds(chan, r, sizeof(*r), &fd, fd >= 0) == (ssize_t)sizeof(*r) ? 0 : -1;
}

/* A network namespace of the caller's user namespace, loopback up: 0 and
 * *fd (the namespace, as SIOCGSKNS gives it: no /proc needed), or errno. */
static int make_netns(int *fd)
{
	struct ifreq ifr;
	if (unshare(CLONE_NEWNET) < 0)
		return errno;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	int e = 0;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		e = errno;
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0 || (*fd = ioctl(s, SIOCGSKNS)) < 0)
			e = errno;
	}
	close(s);
	return e;
}

/* Close every descriptor but keep. */
static void keep_only(unsigned keep)
{
	if (keep > 0)
		close_range(0, keep - 1, 0);
	close_range(keep + 1, ~0u, 0);
}

/*
 * The second message (struct helper_ns_rules): most of the command's
 * Landlock ruleset, made here on the harness's CPU, which is idle now,
 * while the init builds the view on the other (landlock_prebuild).
 */
static void send_rules(int chan, const struct policy *p)
{
	struct helper_ns_rules m = { .magic = HELPER_NS_RULES_MAGIC };
	int rfd = -1, abi = landlock_abi_used(landlock_abi());
	if (abi >= LANDLOCK_ABI_MIN)
		rfd = landlock_prebuild(p, abi, helper_dev_rules, helper_ndev_rules);
	m.ok = rfd >= 0;
	m.abi = abi;
	(void)send_with_fds(chan, &m, sizeof(m), &rfd, rfd >= 0);
	if (rfd >= 0)
		close(rfd);
}

/* An ipc namespace of the caller's user namespace: 0 and *fd, or errno. */
static int make_ipcns(int *fd)
{
	if (unshare(CLONE_NEWIPC) < 0)
		return errno;
	*fd = open("/proc/thread-self/ns/ipc", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? errno : 0;
}

/*
 * The first message (HELPER_NS_PRE_MAGIC): the sandbox's ipc namespace
 * (fd), made here rather than on the supervisor's CPU, where the view
 * waits for it; or the refusal (label, arg) the init reads instead.
 */
static void send_pre(int chan, int label, int arg, int fd)
{
	struct helper_ns_reply m = { .magic = HELPER_NS_PRE_MAGIC, .refusal = label, .arg = arg };
	(void)nschild_send(chan, &m, fd);
}

static _Noreturn void child_main(pid_t harness, int chan, const struct policy *p)
{
	struct helper_ns_reply r = { .magic = HELPER_NS_MAGIC };
	int netfd = -1, userns = -1, ipcfd = -1, nfd, e;
	sigset_t all;
	char ready;
	ssize_t n;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != harness)
		_exit(0);	/* the harness died before the line above */
	keep_only((unsigned)chan);

	/* The supervisor's word that its user namespace and id maps exist,
	 * with that namespace's descriptor.  End of file: it refused, or was
	 * killed; nothing to do. */
	n = recv_with_fds(chan, &ready, 1, &userns, 1, &nfd);
	if (n != 1)
		_exit(0);
	if (nfd != 1 || setns(userns, CLONE_NEWUSER) < 0) {
		send_pre(chan, ACH_REF_FORK, nfd != 1 ? EPROTO : errno, -1);
		_exit(0);
	}
	close(userns);
	if ((e = make_ipcns(&ipcfd)) != 0) {
		send_pre(chan, ACH_REF_USERNS, e, -1);
		_exit(0);
	}
	send_pre(chan, 0, 0, ipcfd);
	close(ipcfd);
	if ((e = make_netns(&netfd)) != 0) {
		r.refusal = ACH_REF_NETNS_LO;
		r.arg = e;
	}
	(void)nschild_send(chan, &r, r.refusal ? -1 : netfd);
	if (!r.refusal) {
		close(netfd);
		send_rules(chan, p);
	}
	_exit(0);
}

pid_t nschild_start(int chan, const struct policy *p)
{
	pid_t harness = getpid(), c;
	if (p->dns.n) {
		c = fork();
		if (c == 0)
			child_main(harness, chan, p);
	} else {
		/* Every signal blocked until the child is gone: no handler
		 * of the harness's may run in it, on this thread's memory. */
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		c = vfork();
		if (c == 0)
			child_main(harness, chan, p);
		int e = errno;
		if (c > 0) {
			while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
				;
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = e;
		if (c > 0)
			c = 0;
	}
	if (c < 0) {
		/* The init refuses the run with this, when it reads the
		 * first message. */
		send_pre(chan, ACH_REF_FORK, errno, -1);
	}
	close(chan);
	return c;
}
