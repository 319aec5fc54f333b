/*
 * nsfail.c — run a program on a kernel that refuses, with EPERM, one of the
 * namespace calls sandbx's namespace child makes (src/sandbox/nschild.c):
 * a seccomp filter of this process's (a plain SECCOMP_RET_ERRNO, no
 * listener), inherited by PROG and everything it starts.  The integration
 * tests use it to show the run refused, the command never started, where a
 * real kernel would refuse only under a policy this machine has no way to
 * set up for a test (a container runtime's seccomp profile, an LSM).
 *
 *   nsfail --setns -- PROG [ARG...]   setns(2) fails, whatever its arguments
 *   nsfail --netns -- PROG [ARG...]   unshare(2) with CLONE_NEWNET among its
 *                                     flags fails; every other unshare goes
 *                                     to the kernel (the supervisor's, the
 *                                     init's cgroup namespace)
 *   nsfail --ipcns -- PROG [ARG...]   the same for CLONE_NEWIPC (the
 *                                     namespace child's ipc namespace, or
 *                                     the supervisor's with network
 *                                     granted)
 *
 * Exit status: PROG's (it is executed in place), 64 on a usage error, 125
 * when the filter could not be installed.  Linux only, x86_64 and aarch64
 * (the audit arch is checked; on another, nothing is refused).
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NF_ARCH AUDIT_ARCH_AARCH64
#else
#error "nsfail: no audit arch for this machine"
#endif

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define ARCH offsetof(struct seccomp_data, arch)
#define NR offsetof(struct seccomp_data, nr)
#define LO(i) offsetof(struct seccomp_data, args[i])	/* little-endian, both arches */
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

static struct sock_filter setns_f[] = {
	/* 0 */ LD(ARCH),
	/* 1 */ JEQ(NF_ARCH, 0, 2),
	/* 2 */ LD(NR),
	/* 3 */ JEQ(SYS_setns, 1, 0),
	/* 4 */ ALLOW,
	/* 5 */ DENY,
};

static struct sock_filter netns_f[] = {
	/* 0 */ LD(ARCH),
	/* 1 */ JEQ(NF_ARCH, 0, 4),
	/* 2 */ LD(NR),
	/* 3 */ JEQ(SYS_unshare, 0, 2),
	/* 4 */ LD(LO(0)),
	/* 5 */ JSET(CLONE_NEWNET, 1, 0),
	/* 6 */ ALLOW,
	/* 7 */ DENY,
};

static struct sock_filter ipcns_f[] = {
	/* 0 */ LD(ARCH),
	/* 1 */ JEQ(NF_ARCH, 0, 4),
	/* 2 */ LD(NR),
	/* 3 */ JEQ(SYS_unshare, 0, 2),
	/* 4 */ LD(LO(0)),
	/* 5 */ JSET(CLONE_NEWIPC, 1, 0),
	/* 6 */ ALLOW,
	/* 7 */ DENY,
};

int main(int argc, char **argv)
{
	struct sock_fprog prog;
	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: nsfail --setns|--netns|--ipcns -- PROG [ARG...]\n");
		return 64;
	}
	if (strcmp(argv[1], "--setns") == 0) {
		prog = (struct sock_fprog){ .len = sizeof(setns_f) / sizeof(setns_f[0]), .filter = setns_f };
	} else if (strcmp(argv[1], "--netns") == 0) {
		prog = (struct sock_fprog){ .len = sizeof(netns_f) / sizeof(netns_f[0]), .filter = netns_f };
	} else if (strcmp(argv[1], "--ipcns") == 0) {
		prog = (struct sock_fprog){ .len = sizeof(ipcns_f) / sizeof(ipcns_f[0]), .filter = ipcns_f };
	} else {
		fprintf(stderr, "nsfail: unknown option '%s'\n", argv[1]);
		return 64;
	}
	/* no_new_privs: what a filter needs without CAP_SYS_ADMIN */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		fprintf(stderr, "nsfail: cannot install the filter: %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "nsfail: cannot run '%s': %s\n", argv[3], strerror(errno));
	return 127;
}
