/*
 * schedfail.c — run a program on a kernel that refuses one of the
 * scheduling changes the sandbox's command stage makes (helper.c,
 * sched_ordinary) with EPERM: a seccomp filter of this process's (a plain
 * SECCOMP_RET_ERRNO, no listener), inherited by PROG and everything it
 * starts, sandbx's helper included.  The integration tests use it to show
 * sandbx's refusal (exit 125, refused mechanism=scheduling) where a real
 * kernel would refuse only under a policy this machine has no way to set
 * up for a test (a container runtime's seccomp profile, an LSM's
 * task_setrlimit or task_setscheduler hook).
 *
 *   schedfail --rtprio -- PROG [ARG...]        setting RLIMIT_RTPRIO fails
 *                                              (prlimit64 given a new limit:
 *                                              glibc's setrlimit)
 *   schedfail --setscheduler -- PROG [ARG...]  sched_setscheduler fails
 *
 * Every other call, reading RLIMIT_RTPRIO included, goes to the kernel.
 * Start PROG with a policy to leave before this (chrt -f 1 schedfail
 * ...): chrt itself would be refused after it.
 *
 * Exit status: PROG's (it is executed in place), 64 on a usage error,
 * 125 when the filter could not be installed.  Linux only, x86_64 and
 * aarch64 (the audit arch is checked; on another, nothing is refused).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define SF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SF_ARCH AUDIT_ARCH_AARCH64
#else
#error "schedfail: no audit arch for this machine"
#endif

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define ARCH offsetof(struct seccomp_data, arch)
#define NR offsetof(struct seccomp_data, nr)
/* the halves of a 64-bit argument (little-endian, both arches) */
#define LO(i) offsetof(struct seccomp_data, args[i])
#define HI(i) (offsetof(struct seccomp_data, args[i]) + 4)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

/* prlimit64(pid, RLIMIT_RTPRIO, new != NULL, old): EPERM */
static struct sock_filter rtprio[] = {
	/* 0 */ LD(ARCH),
	/* 1 */ JEQ(SF_ARCH, 0, 10),
	/* 2 */ LD(NR),
	/* 3 */ JEQ(SYS_prlimit64, 0, 8),
	/* 4 */ LD(LO(1)),
	/* 5 */ JEQ(RLIMIT_RTPRIO, 0, 6),
	/* 6 */ LD(HI(1)),
	/* 7 */ JEQ(0, 0, 4),
	/* 8 */ LD(LO(2)),
	/* 9 */ JEQ(0, 0, 3),
	/* 10 */ LD(HI(2)),
	/* 11 */ JEQ(0, 0, 1),
	/* 12 */ ALLOW,
	/* 13 */ DENY,
};

static struct sock_filter setscheduler[] = {
	/* 0 */ LD(ARCH),
	/* 1 */ JEQ(SF_ARCH, 0, 2),
	/* 2 */ LD(NR),
	/* 3 */ JEQ(SYS_sched_setscheduler, 1, 0),
	/* 4 */ ALLOW,
	/* 5 */ DENY,
};

int main(int argc, char **argv)
{
	struct sock_fprog prog;
	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: schedfail --rtprio|--setscheduler -- PROG [ARG...]\n");
		return 64;
	}
	if (strcmp(argv[1], "--rtprio") == 0) {
		prog = (struct sock_fprog){ .len = sizeof(rtprio) / sizeof(rtprio[0]), .filter = rtprio };
	} else if (strcmp(argv[1], "--setscheduler") == 0) {
		prog = (struct sock_fprog){ .len = sizeof(setscheduler) / sizeof(setscheduler[0]),
					    .filter = setscheduler };
	} else {
		fprintf(stderr, "schedfail: unknown option '%s'\n", argv[1]);
		return 64;
	}
	/* no_new_privs: what a filter needs without CAP_SYS_ADMIN, and
	 * sandbx sets it for the command anyway */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		fprintf(stderr, "schedfail: cannot install the filter: %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "schedfail: cannot run '%s': %s\n", argv[3], strerror(errno));
	return 127;
}
