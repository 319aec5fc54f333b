/*
 * sys.c — one syscall the sandbox's filter should refuse (or allow), named
 * by argv[1], made with harmless arguments.  Where the kernel itself
 * would fail the call, the arguments are chosen so that its own answer
 * is not EPERM (a bad pointer, a bad fd, bad flags), so an EPERM is the
 * filter's.  Prints probe_report's line; a foreign ABI call is expected
 * to kill the probe (SIGSYS, 128+31 from sandbox-run).
 *
 *   sys NAME                  one of the names in the table below
 *   sys socket FAM TYPE PROTO socket(2) with numeric arguments
 *   sys socketpair FAM TYPE   socketpair(2)
 *   sys reuseport-cbpf        a TCP socket with SO_REUSEPORT given a
 *                             classic BPF program that picks the group's
 *                             listener (SO_ATTACH_REUSEPORT_CBPF);
 *                             reuseport-ebpf the same with program fd -1
 *                             (the kernel's EBADF), reuseport-detach
 *                             takes the group's away (ENOENT: none)
 *   sys mmap-hugetlb          an anonymous MAP_HUGETLB mapping, and
 *                             shmget-hugetlb a SHM_HUGETLB segment, both
 *                             of length 0 (the kernel's EINVAL)
 *   sys ksm-madvise           KSM merging of one anonymous page; ksm-prctl
 *                             of every page (PR_SET_MEMORY_MERGE);
 *                             ksm-process-madvise the page's through
 *                             process_madvise on itself (PIDFD_SELF, 6.15)
 *   sys io_setup-all N        a native AIO context of N events (fs.aio-nr
 *                             counts them for the whole machine)
 *   sys genl-family NAME      ask generic netlink's controller for the
 *                             family NAME (CTRL_CMD_GETFAMILY): "ok" when
 *                             it exists, the kernel's ENOENT when not (on
 *                             a kernel with modules, after it asked
 *                             modprobe for one), EPERM from socket()
 *   sys write-file PATH       open PATH O_WRONLY and write one line
 *   sys setlease PATH         a write lease on PATH opened read-only (let
 *                             go at once); setlease-high with garbage in
 *                             the high half of the command
 *   sys futex-wait PATH SECS  wait on the futex at offset 0 of PATH mapped
 *                             read-only and shared ("ok" when woken, the
 *                             kernel's ETIMEDOUT after SECS); futex-wake
 *                             PATH wakes one there (ESRCH: none in 3 s);
 *                             futex-requeue PATH moves its waiters to a
 *                             futex of the probe's own (FUTEX_CMP_REQUEUE,
 *                             shared; ESRCH: none in 3 s), futex-requeue2
 *                             the same by futex_requeue (6.7);
 *                             futex-requeue-private requeues between two
 *                             futexes of its own (FUTEX_PRIVATE_FLAG)
 *   sys MODE-NAME PATH        a mode-taking call on PATH (created first
 *                             where the call needs a file): chmod-suid,
 *                             chmod-sgid, chmod-suid-high, fchmod-suid,
 *                             fchmodat-suid, fchmodat2-suid, open-suid,
 *                             openat-suid, creat-suid, mknod-suid,
 *                             mknodat-suid, openat2; controls chmod-plain,
 *                             open-plain, chmod-sticky (PATH a directory)
 *   sys rename-whiteout PATH  renameat2(PATH, PATH.moved, RENAME_WHITEOUT),
 *                             PATH made first: the kernel leaves a 0:0
 *                             character device at PATH, no capability
 *                             asked (5.8+); rename-whiteout-high with
 *                             garbage in the high half of the flags;
 *                             rename-noreplace the same with
 *                             RENAME_NOREPLACE, which leaves nothing;
 *                             mknod-whiteout, mknodat-whiteout and
 *                             mknodat-whiteout-high make that device
 *                             at PATH directly (mknod S_IFCHR 0:0, no
 *                             capability asked either)
 *   sys fchmod-stdout-suid    fchmod(1, 04755): the inherited stdout;
 *                             reported on stderr
 *   sys shmget|msgget|semget  make one System V object (removed at once)
 *   sys nr N                  syscall number N with fd -1 and NULL
 *                             pointers (used above the newest number
 *                             the filter was reviewed against)
 *   sys sync                  sync(2), which returns nothing: "ok"
 *   sys ustat DEV             ustat(2) of device number DEV (a filesystem's
 *                             free space, by number: any mounted one)
 *   sys prlimit-init          set pid 1's open-files limit to its value;
 *                             prlimit-init-read only reads it,
 *                             prlimit-self sets this process's own
 *   sys peer-pidfd            the pidfd of fd 1's peer (SO_PEERPIDFD: a
 *                             host process when stdout is a unix socket),
 *                             and what it reaches: "ok info=A ns=B
 *                             signal=C wait=D", each "ok" or an errno
 *                             name (PIDFD_GET_INFO, PIDFD_GET_USER_NAMESPACE,
 *                             pidfd_send_signal of signal 0, waitid)
 *   sys stdio-shutdown        shutdown(0, SHUT_RD) and shutdown(1, SHUT_WR):
 *                             "rd=A wr=B" on stderr (fd 1 is shut)
 *   sys stdio-sockopt         SO_RCVTIMEO of 1 ms on fd 0, SO_SNDBUF of
 *                             4096 on fd 1: "rcvtimeo=A sndbuf=B" on stderr
 *   sys stdio-peer            SO_PEERCRED of fd 0 and getpeername of fd 1:
 *                             "cred=A name=B" (ENOTSOCK: not sockets)
 *   sys core-limit            lower this process's core limit to 0 (as
 *                             ssh-agent does), then print "ok SOFT HARD"
 *                             as getrlimit reads it (exit 0 whether or
 *                             not the lowering took)
 *   sys core-limit-getset     prlimit64 setting the core limit to 0 and
 *                             asking the old value in the same call
 *   sys sched                 this process's scheduling as it starts and
 *                             what asking for more answers: "ok
 *                             rtprio=SOFT/HARD nice=SOFT/HARD
 *                             rttime=SOFT/HARD policy=NAME/PRIO niceval=N
 *                             fifo=R setprio=R deadline=R", each R "ok" or
 *                             an errno name: sched_setscheduler(SCHED_FIFO,
 *                             priority 1), setpriority(-5) (nice -5 below
 *                             a start at 0), sched_setattr(SCHED_DEADLINE,
 *                             1 ms of every 10); a policy it got is left
 *                             at once for SCHED_OTHER
 *   sys landlock-nested FLAGS N  make a Landlock domain of its own under
 *                             the sandbox's, handling file reads with no
 *                             rule, landlock_restrict_self(FLAGS: a
 *                             number, 2 = LOG_NEW_EXEC_ON), then open
 *                             itself (argv[0]) for reading N times, each
 *                             denied by that domain alone: "ok abi=A
 *                             restrict=R denied=D/N" (D the EACCES)
 *
 * The terminal probes (tiocsti... tiocswinsz, tcxonc, tiocsctty) act on fd 0.  Those that
 * would change it (tiocsetd, tiocexcl, tiocswinsz) first check that fd 0
 * is a terminal and answer ENOTTY otherwise, never "ok" and never EPERM,
 * and they are harmless if the filter lets them through: the line
 * discipline and the window size are set to what they already are, and
 * exclusive mode is undone at once.
 */
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <linux/vm_sockets.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <termios.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/fscrypt.h>
#include <linux/futex.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "probe.h"
#include "util/compat.h"

#define HIGH_GARBAGE 0xdead000100000000UL

/* A System V object of each kind, removed at once when made. */
static long sysv(const char *kind)
{
	long id;
	if (!strcmp(kind, "shmget")) {
		id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		if (id >= 0)
			shmctl((int)id, IPC_RMID, NULL);
	} else if (!strcmp(kind, "msgget")) {
		id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
		if (id >= 0)
			msgctl((int)id, IPC_RMID, NULL);
	} else {
		id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
		if (id >= 0)
			semctl((int)id, 0, IPC_RMID);
	}
	return id;
}

/* prlimit64 on PID (0 = this process) setting the open-files limit to
 * what it already is (harmless if let through), or only reading it. */
static long prlimit_same(pid_t pid, int set)
{
	struct rlimit cur;
	if (syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, NULL, &cur) < 0)
		return -1;
	if (!set)
		return 0;
	return syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &cur, NULL);
}

/* ustat(2) of a device number (x86_64 only; no libc wrapper since glibc
 * 2.28): "ok FREE-BLOCKS" on stdout before the report's line is left to
 * the caller, so only the outcome is reported. */
/* Linux 6.5 and 6.13; the Debian 6.1 headers have neither. */
#define PROBE_SO_PEERPIDFD 77
#define PROBE_PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)
struct probe_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define PROBE_PIDFD_GET_INFO _IOWR(0xFF, 11, struct probe_pidfd_info)

static const char *answer(long r)
{
	return r < 0 ? probe_errname(errno) : "ok";
}

static int peer_pidfd(void)
{
	int pfd;
	socklen_t l = sizeof(pfd);
	if (getsockopt(1, SOL_SOCKET, PROBE_SO_PEERPIDFD, &pfd, &l) < 0)
		return probe_report(-1);
	struct probe_pidfd_info pi = { .mask = 0x3 };	/* PID, CREDS */
	siginfo_t si;
	const char *info = answer(ioctl(pfd, PROBE_PIDFD_GET_INFO, &pi));
	long ns = ioctl(pfd, PROBE_PIDFD_GET_USER_NAMESPACE, 0);
	const char *nsa = answer(ns);
	if (ns >= 0)
		close((int)ns);
	const char *sig = answer(syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0));
	const char *wait = answer(waitid(P_PIDFD, (id_t)pfd, &si, WEXITED | WNOHANG));
	printf("ok info=%s ns=%s signal=%s wait=%s\n", info, nsa, sig, wait);
	return 0;
}

/* What a command can do to standard descriptors that are sockets
 * (a shutdown, an option) and what it learns of their peer. */
static int stdio_sock(const char *n)
{
	if (!strcmp(n, "stdio-shutdown")) {
		const char *rd = answer(shutdown(0, SHUT_RD)), *wr = answer(shutdown(1, SHUT_WR));
		fprintf(stderr, "rd=%s wr=%s\n", rd, wr);
	} else if (!strcmp(n, "stdio-sockopt")) {
		struct timeval tv = { 0, 1000 };
		int sz = 4096;
		const char *a = answer(setsockopt(0, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
		const char *b = answer(setsockopt(1, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)));
		fprintf(stderr, "rcvtimeo=%s sndbuf=%s\n", a, b);
	} else {
		struct ucred uc;
		struct sockaddr_storage sa;
		socklen_t l = sizeof(uc), sl = sizeof(sa);
		const char *a = answer(getsockopt(0, SOL_SOCKET, SO_PEERCRED, &uc, &l));
		const char *b = answer(getpeername(1, (struct sockaddr *)&sa, &sl));
		printf("cred=%s name=%s\n", a, b);
	}
	return 0;
}

/* The core limit after an attempt to lower it to 0: "ok SOFT HARD". */
static int core_limit(void)
{
	struct rlimit z = { 0, 0 }, now;
	(void)setrlimit(RLIMIT_CORE, &z);
	if (getrlimit(RLIMIT_CORE, &now) < 0)
		return probe_report(-1);
	printf("ok %llu %llu\n", (unsigned long long)now.rlim_cur, (unsigned long long)now.rlim_max);
	return 0;
}

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
/* struct sched_attr, first version (48 bytes; glibc 2.36 has no wrapper). */
struct probe_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

static const char *res_name(long r)
{
	return r < 0 ? probe_errname(errno) : "ok";
}

static void print_limit(const char *name, int res)
{
	struct rlimit l;
	if (getrlimit(res, &l) < 0) {
		printf(" %s=%s", name, probe_errname(errno));
		return;
	}
	printf(" %s=", name);
	if (l.rlim_cur == RLIM_INFINITY)
		printf("unlimited/");
	else
		printf("%llu/", (unsigned long long)l.rlim_cur);
	if (l.rlim_max == RLIM_INFINITY)
		printf("unlimited");
	else
		printf("%llu", (unsigned long long)l.rlim_max);
}

static int sched_probe(void)
{
	static const char *const names[] = { "other", "fifo", "rr", "batch", "iso", "idle", "deadline" };
	struct sched_param fifo = { .sched_priority = 1 }, other = { .sched_priority = 0 }, now;
	struct probe_sched_attr dl = { .size = sizeof(dl), .policy = SCHED_DEADLINE, .runtime = 1000000,
				       .deadline = 10000000, .period = 10000000 };
	int pol = sched_getscheduler(0);
	if (pol < 0 || sched_getparam(0, &now) < 0)
		return probe_report(-1);
	pol &= ~SCHED_RESET_ON_FORK;
	printf("ok");
	print_limit("rtprio", RLIMIT_RTPRIO);
	print_limit("nice", RLIMIT_NICE);
	print_limit("rttime", RLIMIT_RTTIME);
	errno = 0;
	int nv = getpriority(PRIO_PROCESS, 0);
	printf(" policy=%s/%d niceval=%d", pol >= 0 && pol <= 6 ? names[pol] : "?", now.sched_priority,
	       errno ? 99 : nv);
	long r = sched_setscheduler(0, SCHED_FIFO, &fifo);
	printf(" fifo=%s", res_name(r));
	sched_setscheduler(0, SCHED_OTHER, &other);
	r = setpriority(PRIO_PROCESS, 0, -5);
	printf(" setprio=%s", res_name(r));
	r = syscall(SYS_sched_setattr, 0, &dl, 0);
	printf(" deadline=%s\n", res_name(r));
	sched_setscheduler(0, SCHED_OTHER, &other);
	return 0;
}

/* A nested domain of the command's own and N denials of it (above). */
static int landlock_nested(const char *self, unsigned flags, int n)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr.handled_access_fs), 0);
	if (rfd < 0)
		return probe_report(-1);
	long r = syscall(SYS_landlock_restrict_self, rfd, flags);
	const char *rs = res_name(r);
	int denied = 0;
	for (int i = 0; i < n && r == 0; i++) {
		int fd = open(self, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else if (errno == EACCES)
			denied++;
	}
	printf("ok abi=%ld restrict=%s denied=%d/%d\n", abi, rs, denied, n);
	return 0;
}

static long do_ustat(unsigned long dev)
{
#ifdef SYS_ustat
	struct {
		long tfree;
		unsigned long tinode;
		char fname[6], fpack[6];
	} u;
	return syscall(SYS_ustat, dev, &u);
#else
	(void)dev;
	errno = ENOSYS;
	return -1;
#endif
}

static long wait_child(long pid)
{
	int st;
	if (pid < 0)
		return pid;
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, &st, __WALL);
	return 0;
}

static long do_clone(unsigned long flags)
{
	return wait_child(syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0));
}

static long do_clone3(uint64_t flags)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	} args = { .flags = flags, .exit_signal = SIGCHLD };
	return wait_child(syscall(__NR_clone3, &args, sizeof(args)));
}

static void *thread_fn(void *arg)
{
	return arg;
}

static long do_thread(void)
{
	pthread_t t;
	int e = pthread_create(&t, NULL, thread_fn, NULL);
	if (e) {
		errno = e;
		return -1;
	}
	return pthread_join(t, NULL) ? -1 : 0;
}

/* memfd_create, fill it with this very program, exec it by /proc/self/fd. */
static long memfd_exec(char *self)
{
	char buf[65536], path[64];
	int fd = (int)syscall(SYS_memfd_create, "x", 0);
	if (fd < 0)
		return -1;
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	char *argv[] = { self, (char *)"getpid", NULL };
	execv(path, argv);
	return -1;
}

static long do_io_uring_setup(void)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	return syscall(SYS_io_uring_setup, 1, &p);
}

/* An ioctl on fd 0 with a buffer large enough for any of the requests
 * used here (a byte to push for TIOCSTI, subcode 0 for TIOCLINUX, a
 * struct termios for TCGETS). */
static long tty_ioctl(unsigned long req)
{
	char buf[256] = { 0 };
	if ((req & 0xffffffffUL) == TIOCSTI)
		buf[0] = '\n';
	return syscall(SYS_ioctl, 0, req, buf);
}

/* fd 0 is a terminal, or -1 with the errno of TCGETS (ENOTTY). */
static long need_tty(void)
{
	char t[256];		/* a struct termios, with room */
	return syscall(SYS_ioctl, 0, TCGETS, t) < 0 ? -1 : 0;
}

/* TIOCSETD with the line discipline fd 0 already has: a no-op if allowed. */
static long tiocsetd_same(void)
{
	int disc;
	if (need_tty() < 0 || syscall(SYS_ioctl, 0, TIOCGETD, &disc) < 0)
		return -1;
	return syscall(SYS_ioctl, 0, TIOCSETD, &disc);
}

/* TIOCEXCL, undone at once if it was allowed. */
static long tiocexcl_undone(void)
{
	if (need_tty() < 0)
		return -1;
	long r = syscall(SYS_ioctl, 0, TIOCEXCL, 0);
	if (r == 0)
		syscall(SYS_ioctl, 0, TIOCNXCL, 0);
	return r;
}

/* TCXONC TCOOFF (output stopped), undone at once if it was allowed. */
static long tcxonc_undone(void)
{
	if (need_tty() < 0)
		return -1;
	long r = syscall(SYS_ioctl, 0, TCXONC, TCOOFF);
	if (r == 0)
		syscall(SYS_ioctl, 0, TCXONC, TCOON);
	return r;
}

/* TIOCSCTTY on fd 0: take it as the controlling terminal, as a session
 * leader (setsid first where this is not one; in the sandbox the command
 * stage made it one).  Only a terminal that is no session's can be taken. */
static long tiocsctty_take(void)
{
	if (need_tty() < 0)
		return -1;
	(void)setsid();
	return syscall(SYS_ioctl, 0, TIOCSCTTY, 0);
}

/* Reopen fd 0 through /dev/stdin (the link into /proc/self/fd/0) without
 * O_NOCTTY, as a session leader: on a terminal that is no session's, the
 * open itself takes it as the controlling terminal, no TIOCSCTTY needed.
 * "ok" when it was taken (TIOCGSID answers), else the error of the open
 * or of TIOCGSID (ENOTTY: opened, but not taken). */
static long ctty_reopen(void)
{
	pid_t sid;
	if (need_tty() < 0)
		return -1;
	(void)setsid();
	if (open("/dev/stdin", O_RDONLY) < 0)
		return -1;
	/* Asked on fd 0: Landlock refuses device ioctls on the new
	 * descriptor without IOCTL_DEV, not on one opened before. */
	return syscall(SYS_ioctl, 0, TIOCGSID, &sid);
}

/* TIOCSWINSZ with the size fd 0 already has: no SIGWINCH if allowed. */
static long tiocswinsz_same(void)
{
	struct winsize ws;
	if (need_tty() < 0 || syscall(SYS_ioctl, 0, TIOCGWINSZ, &ws) < 0)
		return -1;
	return syscall(SYS_ioctl, 0, TIOCSWINSZ, &ws);
}

/* A fresh regular file at path, mode 0644; its descriptor (O_RDWR) or -1. */
static int fresh_file(const char *path)
{
	unlink(path);
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

/* Check path's mode is want (permission, set-id and sticky bits). */
static long mode_is(const char *path, mode_t want)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if ((st.st_mode & 07777) != want) {
		printf("mode 0%o, wanted 0%o\n", (unsigned)(st.st_mode & 07777), (unsigned)want);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The mode-taking calls on path, raw (glibc's wrappers would narrow the
 * mode or pick another syscall).  A set-id mode is expected to answer
 * EPERM; the kernel itself would allow each of them on the caller's own
 * file in a writable grant. */
static long mode_call(const char *n, const char *path)
{
	int fd = -1;
	if (!strcmp(n, "open-suid") || !strcmp(n, "openat-suid") || !strcmp(n, "creat-suid") ||
	    !strcmp(n, "mknod-suid") || !strcmp(n, "mknodat-suid") || !strcmp(n, "openat2") ||
	    !strcmp(n, "open-plain"))
		unlink(path);		/* these create it */
	else if ((fd = fresh_file(path)) < 0)
		return -1;
	else if (strcmp(n, "fchmod-suid") != 0)
		close(fd);

	if (!strcmp(n, "chmod-suid"))
		return syscall(SYS_chmod, path, 04755);
	if (!strcmp(n, "chmod-sgid"))
		return syscall(SYS_chmod, path, 02755);
	if (!strcmp(n, "chmod-suid-high"))
		return syscall(SYS_chmod, path, HIGH_GARBAGE | 04755);
	if (!strcmp(n, "fchmod-suid"))
		return syscall(SYS_fchmod, fd, 04755);
	if (!strcmp(n, "fchmodat-suid"))
		return syscall(SYS_fchmodat, AT_FDCWD, path, 04755);
	if (!strcmp(n, "fchmodat2-suid"))
		return syscall(__NR_fchmodat2, AT_FDCWD, path, 04755, 0);
	if (!strcmp(n, "open-suid"))
		return syscall(SYS_open, path, O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
	if (!strcmp(n, "openat-suid"))
		return syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
	if (!strcmp(n, "creat-suid"))
		return syscall(SYS_creat, path, 04755);
	if (!strcmp(n, "mknod-suid"))
		return syscall(SYS_mknod, path, S_IFREG | 04755, 0);
	if (!strcmp(n, "mknodat-suid"))
		return syscall(SYS_mknodat, AT_FDCWD, path, S_IFREG | 04755, 0);
	if (!strcmp(n, "openat2")) {
		struct open_how how = { .flags = O_WRONLY | O_CREAT | O_CLOEXEC, .mode = 04755 };
		return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	}
	/* Controls: ordinary modes still work and are what was asked. */
	if (!strcmp(n, "chmod-plain"))
		return syscall(SYS_chmod, path, 0755) < 0 ? -1 : mode_is(path, 0755);
	if (!strcmp(n, "open-plain")) {
		umask(022);
		return syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) < 0
			       ? -1
			       : mode_is(path, 0644);
	}
	errno = EINVAL;
	return -1;
}

/* renameat2 with flags of a fresh PATH to PATH.moved: with
 * RENAME_WHITEOUT, where the kernel makes it, a whiteout (a character
 * device 0:0) is left at PATH.  Garbage in the flags' high half is
 * dropped by the kernel (flags is an unsigned int). */
static long rename_flags(const char *path, unsigned long flags)
{
	char moved[PATH_MAX];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(moved, sizeof(moved), "%s.moved", path);
	return syscall(SYS_renameat2, AT_FDCWD, path, AT_FDCWD, moved, flags);
}

/* chmod 01777 on a directory (created when missing), as /tmp has. */
static long sticky_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	return syscall(SYS_chmod, path, 01777) < 0 ? -1 : mode_is(path, 01777);
}

static long tcp_opt(int opt, const void *val, socklen_t len)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	return setsockopt(s, SOL_TCP, opt, val, len);
}

/* sendto with MSG_FASTOPEN to 127.0.0.1:9 (discard: nothing listens). */
static long fastopen_sendto(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	return sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&a, sizeof(a));
}

static long addrinfo(void)
{
	struct addrinfo hints = { .ai_flags = AI_ADDRCONFIG | AI_NUMERICHOST, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int r = getaddrinfo("127.0.0.1", "80", &hints, &res);
	if (r != 0) {
		printf("gai %s\n", gai_strerror(r));
		errno = EINVAL;
		return -1;
	}
	freeaddrinfo(res);
	return 0;
}

/* A write lease on PATH, opened for reading only (a read-only grant), let
 * go at once if it was taken: while held, every other open of the file,
 * a host process's too, waits for the holder up to lease-break-time.
 * high: garbage for the command's high half, which the kernel drops. */
static long setlease(const char *path, unsigned long high)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long r = syscall(SYS_fcntl, fd, high | F_SETLEASE, F_WRLCK);
	if (r == 0)
		syscall(SYS_fcntl, fd, F_SETLEASE, F_UNLCK);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

/* The futex at offset 0 of PATH, mapped read-only and shared: a host
 * process mapping the same file shares it (keyed by inode and offset). */
static uint32_t *futex_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	errno = e;
	return m == MAP_FAILED ? NULL : m;
}

/* One futex op on PATH's futex ("wait", "wake", "requeue", "requeue2"),
 * retried every 100 ms for 3 s until it reaches a waiter (not "wait"):
 * the other side may not be waiting yet.  ESRCH when none was reached. */
static long futex_file(const char *op, const char *path, int secs)
{
	static uint32_t own;
	uint32_t *w = futex_of(path);
	if (!w)
		return -1;
	if (!strcmp(op, "wait")) {
		struct timespec ts = { secs, 0 };
		return syscall(SYS_futex, w, FUTEX_WAIT, 0, &ts, NULL, 0);
	}
	for (int i = 0; i < 30; i++) {
		long r;
		if (!strcmp(op, "wake")) {
			r = syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
		} else if (!strcmp(op, "requeue")) {
			r = syscall(SYS_futex, w, FUTEX_CMP_REQUEUE, 0, (void *)1000L, &own, 0);
		} else {
			/* struct futex_waitv: the flags of each futex its own */
			struct { uint64_t val, uaddr; uint32_t flags, res; } v[2] = {
				{ 0, (uintptr_t)w, 2 /* FUTEX2_SIZE_U32 */, 0 },
				{ 0, (uintptr_t)&own, 2, 0 },
			};
			r = syscall(__NR_futex_requeue, v, 0, 0, 1000);
		}
		if (r != 0)
			return r < 0 ? -1 : 0;
		usleep(100000);
	}
	errno = ESRCH;
	return -1;
}

/* A requeue between two futexes of the probe's own memory. */
static long futex_requeue_private(void)
{
	static uint32_t a, b;
	return syscall(SYS_futex, &a, FUTEX_CMP_REQUEUE_PRIVATE, 0, (void *)1000L, &b, 0);
}

static long write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return write(fd, "pwned\n", 6);
}

/*
 * A family lookup by name.  The kernel's controller, when it knows no
 * such family, asks modprobe for "net-pf-16-proto-16-family-NAME" before
 * it answers, whatever the caller's capabilities.
 */
static long genl_family(const char *name)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[64];
	} req;
	size_t len = strlen(name) + 1;
	if (len > GENL_NAMSIZ) {
		errno = EINVAL;
		return -1;
	}
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	struct nlattr *a = (struct nlattr *)req.attrs;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, name, len);
	req.n.nlmsg_len = (unsigned)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len));
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = 1;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	if (sendto(s, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -1;
	union {
		struct nlmsghdr n;
		char buf[8192];
	} ans;
	ssize_t got = recv(s, ans.buf, sizeof(ans.buf), 0);
	if (got < 0)
		return -1;
	close(s);
	if (got < (ssize_t)NLMSG_LENGTH(sizeof(int)) || ans.n.nlmsg_type != NLMSG_ERROR)
		return 0;	/* the family's description */
	int e = ((struct nlmsgerr *)NLMSG_DATA(&ans.n))->error;
	if (e == 0)
		return 0;
	errno = -e;
	return -1;
}

/* SO_ATTACH_REUSEPORT_CBPF, _EBPF or SO_DETACH_REUSEPORT_BPF on a TCP
 * socket that joined no group yet (SO_REUSEPORT set, not bound). */
static long reuseport_prog(int opt)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, none = -1;
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		return -1;
	struct sock_filter first = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &first };
	if (opt == SO_ATTACH_REUSEPORT_CBPF)
		return setsockopt(s, SOL_SOCKET, opt, &prog, sizeof(prog));
	return setsockopt(s, SOL_SOCKET, opt, opt == SO_ATTACH_REUSEPORT_EBPF ? &none : &one, sizeof(int));
}

static long num(const char *s)
{
	return strtol(s, NULL, 0);
}

int main(int argc, char **argv)
{
	char one = 0, dst = 0;
	struct iovec lv = { &dst, 1 }, rv = { &one, 1 };
	long r;
	if (argc < 2) {
		fprintf(stderr, "usage: sys NAME [ARGS]\n");
		return 2;
	}
	const char *n = argv[1];
	errno = 0;

	/* Allowed: controls. */
	if (!strcmp(n, "getpid"))
		r = getpid();
	else if (!strcmp(n, "fork"))
		r = do_clone(0);
	else if (!strcmp(n, "thread"))
		r = do_thread();
	else if (!strcmp(n, "tcgets"))
		r = tty_ioctl(TCGETS);
	/* Other processes. */
	else if (!strcmp(n, "ptrace"))
		r = syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
	else if (!strcmp(n, "process_vm_readv"))
		r = syscall(SYS_process_vm_readv, getpid(), &lv, 1, &rv, 1, 0);
	else if (!strcmp(n, "process_vm_writev"))
		r = syscall(SYS_process_vm_writev, getpid(), &lv, 1, &rv, 1, 0);
	else if (!strcmp(n, "pidfd_open"))
		r = syscall(SYS_pidfd_open, getpid(), 0);
	else if (!strcmp(n, "pidfd_getfd"))
		r = syscall(SYS_pidfd_getfd, -1, 0, 0);
	/* Mounts. */
	else if (!strcmp(n, "mount"))
		r = syscall(SYS_mount, "none", "/nonexistent", (char *)1, 0, NULL);
	else if (!strcmp(n, "umount2"))
		r = syscall(SYS_umount2, "/nonexistent", 0xffff);
	else if (!strcmp(n, "pivot_root"))
		r = syscall(SYS_pivot_root, "/nonexistent", "/nonexistent");
	else if (!strcmp(n, "chroot"))
		r = syscall(SYS_chroot, "/nonexistent");
	else if (!strcmp(n, "open_tree"))
		r = syscall(SYS_open_tree, -1, "/", 0xffffffffU);
	else if (!strcmp(n, "open_tree_attr"))
		r = syscall(__NR_open_tree_attr, -1, "/", 0xffffffffU, NULL, 0);
	else if (!strcmp(n, "move_mount"))
		r = syscall(SYS_move_mount, -1, "", -1, "", 0xffffffffU);
	else if (!strcmp(n, "fsopen"))
		r = syscall(SYS_fsopen, "nonexistentfs", 0xffffffffU);
	else if (!strcmp(n, "fsconfig"))
		r = syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0);
	else if (!strcmp(n, "fsmount"))
		r = syscall(SYS_fsmount, -1, 0xffffffffU, 0);
	else if (!strcmp(n, "fspick"))
		r = syscall(SYS_fspick, -1, "", 0xffffffffU);
	else if (!strcmp(n, "mount_setattr"))
		r = syscall(__NR_mount_setattr, -1, "", 0xffffffffU, NULL, 0);
	else if (!strcmp(n, "listmount"))
		r = syscall(__NR_listmount, NULL, NULL, 0, 0);
	else if (!strcmp(n, "statmount"))
		r = syscall(__NR_statmount, NULL, NULL, 0, 0);
	/* Namespaces. */
	else if (!strcmp(n, "setns"))
		r = syscall(SYS_setns, -1, 0);
	else if (!strcmp(n, "unshare"))
		r = syscall(SYS_unshare, CLONE_NEWUSER);
	else if (!strcmp(n, "clone-newuser"))
		r = do_clone(CLONE_NEWUSER);
	else if (!strcmp(n, "clone-newns"))
		r = do_clone(CLONE_NEWNS);
	else if (!strcmp(n, "clone-newpid"))
		r = do_clone(CLONE_NEWPID);
	else if (!strcmp(n, "clone-newnet"))
		r = do_clone(CLONE_NEWNET);
	else if (!strcmp(n, "clone-newuts"))
		r = do_clone(CLONE_NEWUTS);
	else if (!strcmp(n, "clone-newipc"))
		r = do_clone(CLONE_NEWIPC);
	else if (!strcmp(n, "clone-newcgroup"))
		r = do_clone(CLONE_NEWCGROUP);
	else if (!strcmp(n, "clone-newuser-high"))
		r = wait_child(syscall(SYS_clone, HIGH_GARBAGE | CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
	else if (!strcmp(n, "clone3"))
		r = do_clone3(0);
	else if (!strcmp(n, "clone3-newuser"))
		r = do_clone3(CLONE_NEWUSER);
	/* File handles. */
	else if (!strcmp(n, "name_to_handle_at"))
		r = syscall(SYS_name_to_handle_at, AT_FDCWD, "/", NULL, NULL, 0);
	else if (!strcmp(n, "open_by_handle_at"))
		r = syscall(SYS_open_by_handle_at, -1, NULL, 0);
	/* The kernel. */
	else if (!strcmp(n, "init_module"))
		r = syscall(SYS_init_module, NULL, 0, "");
	else if (!strcmp(n, "finit_module"))
		r = syscall(SYS_finit_module, -1, "", 0);
	else if (!strcmp(n, "delete_module"))
		r = syscall(SYS_delete_module, "nonexistent", 0);
	else if (!strcmp(n, "kexec_load"))
		r = syscall(SYS_kexec_load, 0, 0, NULL, 0xffffffffUL);
	else if (!strcmp(n, "kexec_file_load"))
		r = syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0xffffffffUL);
	else if (!strcmp(n, "bpf"))
		r = syscall(SYS_bpf, 1000, NULL, 0);
	else if (!strcmp(n, "perf_event_open"))
		r = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
	else if (!strcmp(n, "lookup_dcookie"))
		r = syscall(SYS_lookup_dcookie, 0, NULL, 0);
#ifdef SYS_uselib
	else if (!strcmp(n, "uselib"))
		r = syscall(SYS_uselib, "/nonexistent");
#endif
#ifdef SYS__sysctl
	else if (!strcmp(n, "_sysctl"))
		r = syscall(SYS__sysctl, NULL);
#endif
	else if (!strcmp(n, "syslog"))
		r = syscall(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	else if (!strcmp(n, "add_key"))
		r = syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
	else if (!strcmp(n, "request_key"))
		r = syscall(SYS_request_key, NULL, NULL, NULL, 0);
	else if (!strcmp(n, "keyctl"))
		r = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0);
	/* The filesystem's keyring of fscrypt master keys, reached by an
	 * ioctl on any file of the filesystem.  A NULL argument: the kernel's
	 * own answer is EFAULT (fscrypt), EOPNOTSUPP (no encryption) or
	 * ENOTTY (tmpfs), never EPERM. */
	else if (!strcmp(n, "fscrypt-add-key") || !strcmp(n, "fscrypt-remove-key") ||
		 !strcmp(n, "fscrypt-remove-key-all")) {
		unsigned long req = !strcmp(n, "fscrypt-add-key")      ? FS_IOC_ADD_ENCRYPTION_KEY
				    : !strcmp(n, "fscrypt-remove-key") ? FS_IOC_REMOVE_ENCRYPTION_KEY
								       : FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS;
		int fd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = fd < 0 ? -1 : syscall(SYS_ioctl, fd, req, NULL);
	}
	/* Around the hooked syscalls. */
	else if (!strcmp(n, "userfaultfd"))
		r = syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */ | O_CLOEXEC);
	else if (!strcmp(n, "io_uring_setup"))
		r = do_io_uring_setup();
	else if (!strcmp(n, "io_uring_enter"))
		r = syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	else if (!strcmp(n, "io_uring_register"))
		r = syscall(SYS_io_uring_register, -1, 0, NULL, 0);
	/* The machine's huge page pool.  A length of 0: the kernel's own
	 * answer is EINVAL (ENOMEM would be an empty pool's). */
	else if (!strcmp(n, "mmap-hugetlb"))
		r = (long)mmap(NULL, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	else if (!strcmp(n, "shmget-hugetlb"))
		r = shmget(IPC_PRIVATE, 0, IPC_CREAT | SHM_HUGETLB | 0600);
	/* Kernel same-page merging asked for one page, or for the whole
	 * process: the kernel's answer is "ok" where KSM is built in (if
	 * off, nothing merges), EINVAL where it is not. */
	else if (!strcmp(n, "ksm-madvise")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = p == MAP_FAILED ? -1 : madvise(p, 4096, MADV_MERGEABLE);
	}
	else if (!strcmp(n, "ksm-prctl"))
		r = prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0);
	else if (!strcmp(n, "ksm-process-madvise")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct iovec iov = { p, 4096 };
		/* PIDFD_SELF_THREAD_GROUP: -10001 since 6.17 */
		r = p == MAP_FAILED ? -1 : syscall(SYS_process_madvise, -10001, &iov, 1UL, MADV_MERGEABLE, 0U);
	}
	/* Native AIO: a bad pointer for the context, so the kernel's own
	 * answer is EFAULT (ENOSYS only built without AIO). */
	else if (!strcmp(n, "io_setup"))
		r = syscall(SYS_io_setup, 1, NULL);
	else if (!strcmp(n, "io_setup-all") && argc == 3) {
		aio_context_t ctx = 0;
		r = syscall(SYS_io_setup, (unsigned)num(argv[2]), &ctx);
	}
	else if (!strcmp(n, "nr") && argc == 3)
		r = syscall((long)num(argv[2]), -1L, 0L, 0L, 0L, 0L, 0L);
	else if (!strcmp(n, "memfd_create"))
		r = syscall(SYS_memfd_create, "x", 0);
	else if (!strcmp(n, "memfd-exec"))
		r = memfd_exec(argv[0]);
	else if (!strcmp(n, "memfd_secret"))
		r = syscall(SYS_memfd_secret, 0);
	/* The host. */
	else if (!strcmp(n, "reboot"))
		r = syscall(SYS_reboot, 0, 0, 0, NULL);
	else if (!strcmp(n, "swapon"))
		r = syscall(SYS_swapon, "/nonexistent", 0);
	else if (!strcmp(n, "swapoff"))
		r = syscall(SYS_swapoff, "/nonexistent");
	else if (!strcmp(n, "settimeofday"))
		r = syscall(SYS_settimeofday, NULL, NULL);
	else if (!strcmp(n, "clock_settime"))
		r = syscall(SYS_clock_settime, 0, NULL);
	else if (!strcmp(n, "clock_adjtime"))
		r = syscall(SYS_clock_adjtime, 0, NULL);
	else if (!strcmp(n, "adjtimex"))
		r = syscall(SYS_adjtimex, NULL);
	else if (!strcmp(n, "acct"))
		r = syscall(SYS_acct, NULL);
	else if (!strcmp(n, "quotactl"))
		r = syscall(SYS_quotactl, 0, NULL, 0, NULL);
	else if (!strcmp(n, "quotactl_fd"))
		r = syscall(SYS_quotactl_fd, -1, 0, 0, NULL);
	else if (!strcmp(n, "vhangup"))
		r = syscall(SYS_vhangup);
#ifdef __x86_64__
	else if (!strcmp(n, "ioperm"))
		r = syscall(SYS_ioperm, 0, 0, 0);
	else if (!strcmp(n, "iopl"))
		r = syscall(SYS_iopl, 0);
	else if (!strcmp(n, "modify_ldt")) {
		char ldt[16];
		r = syscall(SYS_modify_ldt, 0, ldt, sizeof(ldt));
	}
	/* Foreign ABIs: expected to be killed before printing. */
	else if (!strcmp(n, "int80")) {
		long ret;
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L /* i386 getpid */) : "memory");
		r = ret < 0 ? (errno = (int)-ret, -1) : ret;
	} else if (!strcmp(n, "x32"))
		r = syscall(0x40000000 | SYS_getpid);
	/* The same with a set-id chmod: killed before the mode is read
	 * (the path pointer does not survive i386's 32-bit registers). */
	else if (!strcmp(n, "int80-chmod")) {
		static const char path[] = "sbx-int80";
		long ret;
		__asm__ volatile("int $0x80"
				 : "=a"(ret)
				 : "a"(15L /* i386 chmod */), "b"(path), "c"(04755L)
				 : "memory");
		r = ret < 0 ? (errno = (int)-ret, -1) : ret;
	} else if (!strcmp(n, "x32-chmod"))
		r = syscall(0x40000000 | SYS_chmod, "sbx-x32", 04755);
#endif
	/* System V IPC (refused under --limit-memory) and the init's limits. */
	else if (!strcmp(n, "shmget") || !strcmp(n, "msgget") || !strcmp(n, "semget"))
		r = sysv(n);
	else if (!strcmp(n, "sync")) {
		sync();		/* void: "ok" says only that it returned */
		r = 0;
	} else if (!strcmp(n, "ustat") && argc == 3)
		r = do_ustat(strtoul(argv[2], NULL, 0));
	else if (!strcmp(n, "prlimit-init"))
		r = prlimit_same(1, 1);
	else if (!strcmp(n, "prlimit-init-read"))
		r = prlimit_same(1, 0);
	else if (!strcmp(n, "prlimit-self"))
		r = prlimit_same(0, 1);
	else if (!strcmp(n, "peer-pidfd"))
		return peer_pidfd();
	else if (!strncmp(n, "stdio-", 6) && (!strcmp(n + 6, "shutdown") || !strcmp(n + 6, "sockopt") ||
					       !strcmp(n + 6, "peer")))
		return stdio_sock(n);
	else if (!strcmp(n, "core-limit"))
		return core_limit();
	else if (!strcmp(n, "landlock-nested") && argc > 3)
		return landlock_nested(argv[0], (unsigned)strtoul(argv[2], NULL, 0), atoi(argv[3]));
	else if (!strcmp(n, "sched"))
		return sched_probe();
	else if (!strcmp(n, "core-limit-getset")) {
		struct rlimit z = { 0, 0 }, old;
		r = syscall(SYS_prlimit64, 0, RLIMIT_CORE, &z, &old);
	}
	/* Terminal. */
	else if (!strcmp(n, "tiocsti"))
		r = tty_ioctl(TIOCSTI);
	else if (!strcmp(n, "tiocsti-high"))
		r = tty_ioctl(HIGH_GARBAGE | TIOCSTI);
	else if (!strcmp(n, "tioclinux"))
		r = tty_ioctl(TIOCLINUX);
	else if (!strcmp(n, "tiocsetd"))
		r = tiocsetd_same();
	else if (!strcmp(n, "tiocexcl"))
		r = tiocexcl_undone();
	else if (!strcmp(n, "tiocswinsz"))
		r = tiocswinsz_same();
	else if (!strcmp(n, "tcxonc"))
		r = tcxonc_undone();
	else if (!strcmp(n, "tiocsctty"))
		r = tiocsctty_take();
	else if (!strcmp(n, "ctty-reopen"))
		r = ctty_reopen();
	/* File modes. */
	else if (!strcmp(n, "fchmod-stdout-suid")) {
		/* Reported on stderr: a write to the file would itself
		 * clear the bit and hide a failure. */
		r = syscall(SYS_fchmod, 1, 04755);
		int e = errno;
		dup2(2, 1);
		errno = e;
	}
	else if (!strcmp(n, "chmod-sticky") && argc == 3)
		r = sticky_dir(argv[2]);
	else if (strstr(n, "-suid") || strstr(n, "-sgid") || !strcmp(n, "openat2") ||
		 !strcmp(n, "chmod-plain") || !strcmp(n, "open-plain")) {
		if (argc != 3) {
			fprintf(stderr, "sys: %s needs a PATH\n", n);
			return 2;
		}
		r = mode_call(n, argv[2]);
	}
	/* Network. */
	else if (!strcmp(n, "socket") && argc == 5)
		r = socket((int)num(argv[2]), (int)num(argv[3]) | SOCK_CLOEXEC, (int)num(argv[4]));
	else if (!strcmp(n, "socketpair") && argc == 4) {
		int sv[2];
		r = socketpair((int)num(argv[2]), (int)num(argv[3]) | SOCK_CLOEXEC, 0, sv);
	} else if (!strcmp(n, "reuseport-cbpf"))
		r = reuseport_prog(SO_ATTACH_REUSEPORT_CBPF);
	else if (!strcmp(n, "reuseport-ebpf"))
		r = reuseport_prog(SO_ATTACH_REUSEPORT_EBPF);
	else if (!strcmp(n, "reuseport-detach"))
		r = reuseport_prog(SO_DETACH_REUSEPORT_BPF);
	else if (!strcmp(n, "genl-family") && argc == 3)
		r = genl_family(argv[2]);
	else if (!strcmp(n, "tcp_ulp"))
		r = tcp_opt(TCP_ULP, "tls", 3);
	else if (!strcmp(n, "tcp_fastopen_connect")) {
		int one_i = 1;
		r = tcp_opt(TCP_FASTOPEN_CONNECT, &one_i, sizeof(one_i));
	} else if (!strcmp(n, "msg_fastopen"))
		r = fastopen_sendto();
	else if (!strcmp(n, "getaddrinfo"))
		r = addrinfo();
	else if (!strcmp(n, "write-file") && argc == 3)
		r = write_file(argv[2]);
	else if (!strcmp(n, "futex-wait") && argc == 4)
		r = futex_file("wait", argv[2], atoi(argv[3]));
	else if (!strncmp(n, "futex-", 6) && strcmp(n, "futex-requeue-private") && argc == 3)
		r = futex_file(n + 6, argv[2], 0);
	else if (!strcmp(n, "futex-requeue-private"))
		r = futex_requeue_private();
	else if (!strcmp(n, "setlease") && argc == 3)
		r = setlease(argv[2], 0);
	else if (!strcmp(n, "setlease-high") && argc == 3)
		r = setlease(argv[2], HIGH_GARBAGE);
	else if (!strcmp(n, "rename-whiteout") && argc == 3)
		r = rename_flags(argv[2], RENAME_WHITEOUT);
	else if (!strcmp(n, "rename-whiteout-high") && argc == 3)
		r = rename_flags(argv[2], HIGH_GARBAGE | RENAME_WHITEOUT);
	else if (!strcmp(n, "rename-noreplace") && argc == 3)
		r = rename_flags(argv[2], RENAME_NOREPLACE);
	else if (!strcmp(n, "mknod-whiteout") && argc == 3)
		r = unlink(argv[2]) < 0 && errno != ENOENT ? -1 : syscall(SYS_mknod, argv[2], S_IFCHR | 0600, 0);
	else if (!strcmp(n, "mknodat-whiteout") && argc == 3)
		r = unlink(argv[2]) < 0 && errno != ENOENT ? -1
								: syscall(SYS_mknodat, AT_FDCWD, argv[2], S_IFCHR | 0600, 0);
	else if (!strcmp(n, "mknodat-whiteout-high") && argc == 3)
		r = unlink(argv[2]) < 0 && errno != ENOENT
			    ? -1
			    : syscall(SYS_mknodat, AT_FDCWD, argv[2], HIGH_GARBAGE | S_IFCHR | 0600, 0);
	else {
		fprintf(stderr, "sys: unknown probe '%s'\n", n);
		return 2;
	}
	return probe_report(r);
}
