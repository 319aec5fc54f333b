/*
 * fs.c — filesystem, process and environment probes for the sandbox
 * boundary tests (tests/integration/test_sandbox.sh).
 *
 *   fs read PATH            open O_RDONLY and read a byte
 *   fs write PATH           open O_WRONLY|O_CREAT and write a byte
 *   fs exec PATH            execve PATH (prints err or never returns)
 *   fs stat PATH            stat
 *   fs chmod PATH MODE      chmod (octal)
 *   fs chown PATH           chown to the caller's own ids
 *   fs utimes PATH          utimes to the epoch
 *   fs setxattr PATH        setxattr user.sbx
 *   fs link OLD NEW         hard link
 *   fs rename OLD NEW       rename
 *   fs symlink TARGET NEW   create a symlink
 *   fs ls DIR               list a directory
 *   fs env NAME             print the variable or "err unset"
 *   fs grep-proc ELDEEN     search every readable /proc/<pid>/{environ,cmdline}
 *                           for the reverse of ELDEEN (so the needle itself
 *                           is on no command line); "ok" if absent,
 *                           "found PATH" if not
 *   fs fds                  print the open descriptors above 2
 *   fs caps                 print CapInh CapPrm CapEff CapAmb (capget), NoNewPrivs, the
 *                           securebits and how many capabilities CapBnd holds
 *   fs getpid               print getpid()
 *   fs kill PID             kill(PID, 0)
 *   fs connect PORT         TCP connect to 127.0.0.1:PORT
 *   fs unix-connect PATH    connect a SOCK_STREAM unix socket to PATH
 *   fs self-ino             print dev:ino of the running executable
 *   fs map-read FILE STEP   map FILE shared and read-only, read one byte of
 *                           every STEP: "ok N" for N bytes read (on a
 *                           hugetlbfs, each fills a hole with a pool page)
 *   binfmt-interp FILE...   (the probe copied under that name, run as the
 *                           interpreter of a binfmt_misc handler) chmod
 *                           /proc/self/exe to the mode it has: "interp ok"
 *                           where that file's mount lets its owner change
 *                           it, "interp err EROFS" on a read-only one
 *   fs daemon FILE SECS     setsid + double fork; the grandchild writes its
 *                           pid to FILE and sleeps SECS
 *   fs cont-read FILE       continue itself while stopped: a POSIX timer
 *                           sends it SIGCONT every 10 ms (a handler keeps
 *                           the timer armed), and standard input, when it
 *                           has data, sends SIGCONT too (O_ASYNC + F_SETSIG);
 *                           then copy standard input to FILE, each read
 *                           prefixed "stolen:"
 *   fs nonblock-spin N      N processes that set O_NONBLOCK on standard
 *                           input over and over, for good
 *   fs append-spin N FILE   N processes with standard input, output and
 *                           error closed that append a byte to FILE over
 *                           and over, for good: FILE grows while one runs
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>

#include "probe.h"

extern char **environ;

static void on_cont(int sig)
{
	(void)sig;
}

static int grep_file(const char *path, const char *needle)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	size_t nl = strlen(needle);
	for (ssize_t i = 0; i + (ssize_t)nl <= n; i++)
		if (memcmp(buf + i, needle, nl) == 0)
			return 1;
	return 0;
}

/*
 * Turn on O_ASYNC for standard input (a terminal), by fcntl (way
 * "setfl") or by ioctl (way "fioasync"), print the answer, then wait
 * 1.5 s for a line typed on the terminal.  On a terminal the kernel sends
 * that SIGIO to the terminal's foreground process group, the caller's job,
 * which only Landlock's signal scope (ABI 6) keeps from host processes.
 */
static int tty_async(const char *way)
{
	int on = 1;
	long r = !strcmp(way, "fioasync") ? ioctl(0, FIOASYNC, &on)
					   : fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_ASYNC);
	(void)probe_report(r);
	usleep(1500 * 1000);
	printf("ran on\n");
	fflush(stdout);
	return 0;
}

/*
 * Send the sandbox's init (pid 1) a stop signal every way a process can:
 * the init takes SIGTSTP as the job's ^Z and freezes the whole sandbox.
 * Each answer is printed as it comes; "ran on" after a pause means the
 * sandbox was not frozen (through a SIGIO the kernel sends for a pipe
 * owned by pid 1 too, which has no answer of its own).
 */
static int signal_init(void)
{
	int p[2];
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	if (pipe(p) == 0 && fcntl(p[0], F_SETOWN, 1) == 0 && fcntl(p[0], F_SETSIG, SIGTSTP) == 0 &&
	    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) == 0 && write(p[1], "x", 1) == 1)
		printf("sigio sent\n");
	for (int i = 0; i < 3; i++) {
		long r = i == 0 ? kill(1, SIGTSTP)
		       : i == 1 ? syscall(SYS_tgkill, 1, 1, SIGTSTP)
			       : syscall(SYS_rt_sigqueueinfo, 1, SIGTSTP, &si);
		printf("%s\n", r < 0 ? probe_errname(errno) : "sent");
	}
	fflush(stdout);
	usleep(500 * 1000);
	printf("ran on\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "binfmt-interp")) {
		struct stat st;
		if (stat("/proc/self/exe", &st) < 0)
			return probe_report(-1);
		printf("interp ");
		return probe_report(chmod("/proc/self/exe", st.st_mode & 07777));
	}
	if (argc < 2)
		return 2;
	const char *c = argv[1];
	const char *a = argc > 2 ? argv[2] : "";
	const char *b = argc > 3 ? argv[3] : "";

	if (!strcmp(c, "read")) {
		char x;
		int fd = open(a, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return probe_report(-1);
		long r = read(fd, &x, 1);
		return probe_report(r);
	}
	if (!strcmp(c, "write")) {
		int fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return probe_report(-1);
		return probe_report(write(fd, "x", 1));
	}
	if (!strcmp(c, "exec")) {
		char *args[] = { (char *)a, NULL };
		execve(a, args, environ);
		return probe_report(-1);
	}
	if (!strcmp(c, "stat")) {
		struct stat st;
		return probe_report(stat(a, &st));
	}
	if (!strcmp(c, "chmod"))
		return probe_report(chmod(a, (mode_t)strtol(b, NULL, 8)));
	if (!strcmp(c, "chown"))
		return probe_report(chown(a, getuid(), getgid()));
	if (!strcmp(c, "utimes")) {
		struct timeval tv[2] = { { 0, 0 }, { 0, 0 } };
		return probe_report(utimes(a, tv));
	}
	if (!strcmp(c, "setxattr"))
		return probe_report(setxattr(a, "user.sbx", "1", 1, 0));
	if (!strcmp(c, "link"))
		return probe_report(link(a, b));
	if (!strcmp(c, "rename"))
		return probe_report(rename(a, b));
	if (!strcmp(c, "symlink"))
		return probe_report(symlink(a, b));
	if (!strcmp(c, "ls")) {
		DIR *d = opendir(a);
		if (!d)
			return probe_report(-1);
		struct dirent *e;
		printf("ok");
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				printf(" %s", e->d_name);
		printf("\n");
		return 0;
	}
	if (!strcmp(c, "env")) {
		const char *v = getenv(a);
		if (!v) {
			printf("err unset\n");
			return 1;
		}
		printf("ok %s\n", v);
		return 0;
	}
	if (!strcmp(c, "grep-proc")) {
		char needle[256];
		size_t nl = strlen(a);
		if (nl >= sizeof(needle))
			return 2;
		for (size_t k = 0; k < nl; k++)
			needle[k] = a[nl - 1 - k];
		needle[nl] = '\0';
		a = needle;
		DIR *d = opendir("/proc");
		char path[300];
		if (!d)
			return probe_report(-1);
		struct dirent *e;
		int found = 0;
		while ((e = readdir(d))) {
			static const char *const files[] = { "environ", "cmdline" };
			if (e->d_name[0] < '0' || e->d_name[0] > '9')
				continue;
			for (int i = 0; i < 2; i++) {
				snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, files[i]);
				if (grep_file(path, a)) {
					printf("found %s\n", path);
					found = 1;
				}
			}
		}
		closedir(d);
		if (found)
			return 1;
		printf("ok\n");
		return 0;
	}
	/* proc-reach PID: open each of PID's descriptors through /proc, for
	 * reading and for writing, and its memory; "ok" when none opens. */
	if (!strcmp(c, "proc-reach")) {
		char path[64];
		int opened = 0;
		for (int fd = 0; fd < 64; fd++)
			for (int m = 0; m < 2; m++) {
				snprintf(path, sizeof(path), "/proc/%s/fd/%d", a, fd);
				int f = open(path, (m ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NONBLOCK);
				if (f >= 0) {
					printf("opened %s%s\n", path, m ? " for writing" : "");
					opened = 1;
					close(f);
				}
			}
		snprintf(path, sizeof(path), "/proc/%s/mem", a);
		int f = open(path, O_RDWR | O_CLOEXEC);
		if (f >= 0) {
			printf("opened %s\n", path);
			opened = 1;
			close(f);
		}
		if (opened)
			return 1;
		printf("ok\n");
		return 0;
	}
	if (!strcmp(c, "fds")) {
		printf("ok");
		for (int fd = 3; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				printf(" %d", fd);
		printf("\n");
		return 0;
	}
	if (!strcmp(c, "caps")) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		if (syscall(SYS_capget, &h, d) < 0)
			return probe_report(-1);
		uint64_t inh = d[0].inheritable | ((uint64_t)d[1].inheritable << 32);
		uint64_t prm = d[0].permitted | ((uint64_t)d[1].permitted << 32);
		uint64_t eff = d[0].effective | ((uint64_t)d[1].effective << 32);
		int amb = 0;
		for (int cap = 0; cap < 64; cap++) {
			int r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
			if (r > 0)
				amb = 1;
		}
		/* the bounding set: how many it still holds */
		int bnd = 0;
		for (int cap = 0; cap < 64; cap++) {
			int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
			if (r < 0)
				break;	/* past the last this kernel knows */
			bnd += r > 0;
		}
		printf("ok inh=%llx prm=%llx eff=%llx amb=%d nnp=%d secbits=%x bnd=%d\n", (unsigned long long)inh,
		       (unsigned long long)prm, (unsigned long long)eff, amb,
		       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), (unsigned)prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), bnd);
		return 0;
	}
	if (!strcmp(c, "getpid")) {
		printf("ok %d\n", (int)getpid());
		return 0;
	}
	if (!strcmp(c, "kill"))
		return probe_report(kill((pid_t)atoi(a), 0));
	if (!strcmp(c, "signal-init"))
		return signal_init();
	if (!strcmp(c, "tty-async"))
		return tty_async(a);
	if (!strcmp(c, "connect")) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(a)) };
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return probe_report(-1);
		return probe_report(connect(s, (struct sockaddr *)&sa, sizeof(sa)));
	}
	if (!strcmp(c, "unix-connect")) {
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		snprintf(su.sun_path, sizeof(su.sun_path), "%s", a);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			return probe_report(-1);
		return probe_report(connect(s, (struct sockaddr *)&su, sizeof(su)));
	}
	if (!strcmp(c, "self-ino")) {
		struct stat st;
		int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			return probe_report(-1);
		printf("ok %lu:%lu\n", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
		return 0;
	}
	if (!strcmp(c, "map-read")) {
		struct stat st;
		long step = strtol(b, NULL, 10), n = 0;
		int fd = open(a, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || step <= 0)
			return probe_report(-1);
		volatile const char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return probe_report(-1);
		for (off_t o = 0; o < st.st_size; o += step, n++)
			(void)m[o];
		printf("ok %ld\n", n);
		return 0;
	}
	if (!strcmp(c, "daemon")) {
		if (fork() != 0)
			return 0;
		setsid();
		if (fork() != 0)
			_exit(0);
		int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%d\n", (int)getpid());
			close(fd);
		}
		close(0);
		close(1);
		close(2);
		sleep((unsigned)atoi(b));
		_exit(0);
	}
	if (!strcmp(c, "nonblock-spin")) {
		for (int i = 1; i < atoi(a); i++)
			if (fork() == 0)
				break;
		for (;;)
			fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	}
	if (!strcmp(c, "append-spin")) {
		int fd = open(b, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return probe_report(-1);
		close(0);
		close(1);
		close(2);
		for (int i = 1; i < atoi(a); i++)
			if (fork() == 0)
				break;
		for (;;)
			if (write(fd, "x", 1) < 0)
				_exit(1);
	}
	if (!strcmp(c, "cont-read")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_cont;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGCONT, &sa, NULL);
		struct sigevent ev;
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = SIGCONT;
		timer_t t;
		struct itimerspec its = { { 0, 10000000 }, { 0, 10000000 } };
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) < 0 || timer_settime(t, 0, &its, NULL) < 0)
			return probe_report(-1);
		fcntl(0, F_SETOWN, getpid());
		fcntl(0, F_SETSIG, SIGCONT);
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_ASYNC);
		int fd = open(a, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return probe_report(-1);
		char buf[256];
		ssize_t n;
		while ((n = read(0, buf, sizeof(buf))) != 0) {
			if (n < 0) {
				if (errno == EINTR || errno == EAGAIN)
					continue;
				break;
			}
			(void)!write(fd, "stolen:", 7);
			(void)!write(fd, buf, (size_t)n);
		}
		return 0;
	}
	return 2;
}
