/*
 * llfake.c — run a program on a kernel that answers Landlock's version
 * question otherwise: landlock_create_ruleset(NULL, 0,
 * LANDLOCK_CREATE_RULESET_VERSION), and only that call, is answered by
 * this process through a seccomp user notification, with the ABI given
 * or the error given; every other syscall, Landlock's real rulesets
 * included, goes to the kernel.  The integration tests use it to show
 * sandbx's refusal on a kernel without Landlock (ENOSYS), with Landlock
 * off (EOPNOTSUPP), below ABI 5, or below ABI 6 where a scope is needed,
 * on a machine whose kernel has ABI 7.
 *
 * With --record, each landlock_restrict_self that PROG and what it
 * starts make is written to FILE as it reaches the kernel, one line "FD
 * 0xFLAGS", and goes on unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the
 * audit flags sandbx passes, which nothing outside shows while audit is
 * off.  Alone, the version question goes to the kernel too.
 *
 *   llfake --abi N [--record FILE] -- PROG [ARG...]
 *   llfake --errno ENOSYS|EOPNOTSUPP [--record FILE] -- PROG [ARG...]
 *   llfake --record FILE -- PROG [ARG...]
 *
 * A PROG that makes a filter with a listener of its own (sandbx's
 * --allow-ports) cannot run under it: the kernel allows one listener in
 * a chain of filters.
 *
 * Exit status: PROG's (128+n when a signal killed it), 64 on a usage
 * error, 125 when the filter could not be installed.  Linux only, x86_64
 * and aarch64 (the audit arch is checked; another arch is allowed through
 * unanswered, and the tests then see the real ABI).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "util/compat.h"

#if defined(__x86_64__)
#define LLF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define LLF_ARCH AUDIT_ARCH_AARCH64
#else
#error "llfake: no audit arch for this machine"
#endif

/* fake: the version question comes here; record: every restrict_self. */
static int install(int fake, int record)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LLF_ARCH, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 2),
		/* the flags argument's low half: the version question */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LANDLOCK_CREATE_RULESET_VERSION, fake ? 2 : 1, 1),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_restrict_self, record ? 1 : 0, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static int send_fd(int sock, int fd)
{
	char c = 'f';
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

/* One call answered: a restrict_self recorded and let go on, or the
 * version question answered as asked. */
static void answer(int nfd, long abi, int err, FILE *rec)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof(req));
	if (ioctl(nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	if (req.data.nr == SYS_landlock_restrict_self) {
		if (rec) {
			fprintf(rec, "%d 0x%x\n", (int)req.data.args[0], (unsigned)req.data.args[1]);
			fflush(rec);
		}
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else if (err) {
		resp.error = -err;
	} else {
		resp.val = abi;
	}
	/* ENOENT: the caller was killed meanwhile */
	(void)ioctl(nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

int main(int argc, char **argv)
{
	long abi = -1;
	int err = 0, sp[2], i;
	FILE *rec = NULL;
	for (i = 1; i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
		if (strcmp(argv[i], "--abi") == 0) {
			char *end;
			abi = strtol(argv[i + 1], &end, 10);
			if (*end || abi < 0 || abi > 1000)
				goto usage;
		} else if (strcmp(argv[i], "--errno") == 0) {
			if (strcmp(argv[i + 1], "ENOSYS") == 0)
				err = ENOSYS;
			else if (strcmp(argv[i + 1], "EOPNOTSUPP") == 0)
				err = EOPNOTSUPP;
			else
				goto usage;
		} else if (strcmp(argv[i], "--record") == 0 && !rec) {
			if (!(rec = fopen(argv[i + 1], "we"))) {
				perror("llfake: --record");
				return 125;
			}
		} else {
			goto usage;
		}
	}
	int fake = abi >= 0 || err;
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0 || (abi >= 0 && err) || (!fake && !rec))
		goto usage;
	argv += i - 3;	/* PROG at argv[4], as before the options grew */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		perror("llfake: socketpair");
		return 125;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("llfake: fork");
		return 125;
	}
	if (pid == 0) {
		close(sp[0]);
		int nfd = install(fake, rec != NULL);
		if (nfd < 0 || send_fd(sp[1], nfd) < 0) {
			fprintf(stderr, "llfake: cannot install the filter: %s\n", strerror(errno));
			_exit(125);
		}
		close(nfd);
		close(sp[1]);
		execv(argv[4], argv + 4);
		fprintf(stderr, "llfake: cannot execute '%s': %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	close(sp[1]);
	int nfd = recv_fd(sp[0]);
	close(sp[0]);
	int st;
	if (nfd < 0) {
		waitpid(pid, &st, 0);
		return 125;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct pollfd p = { nfd, POLLIN, 0 };
		int r = poll(&p, 1, 100);
		if (r > 0 && (p.revents & POLLIN))
			answer(nfd, abi, err, rec);
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return status_of(st);
		if (w < 0 && errno != EINTR)
			return 125;
	}
usage:
	fprintf(stderr, "usage: llfake [--abi N | --errno ENOSYS|EOPNOTSUPP] [--record FILE] -- PROG [ARG...]\n");
	return 64;
}
