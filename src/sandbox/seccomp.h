/*
 * seccomp.h — the syscall filter of the command stage (libseccomp).
 *
 * A denylist: everything Landlock cannot see that would reshape the view or
 * the host (mounts, namespaces, io_uring, ptrace, memfd, keyrings, module
 * and kexec loading, TIOCSTI...), what tells the command of the host's
 * reads (read watches, page-cache eviction and residency calls), foreign
 * ABIs (x32 included) killed, the socket rules of the policy's network
 * mode, and ENOSYS for any syscall
 * newer than the tables were reviewed against.  Installed after no_new_privs
 * and before Landlock.
 *
 * seccomp_filter_build() is separate from loading so the unit suite can
 * export the BPF and evaluate it without a kernel.
 *
 * Two ways to install it:
 *   - seccomp_filter_install(p): build, compile and load in one go, in the
 *     thread to confine (libseccomp's compiler runs there: ~0.1-0.3 ms).
 *   - split, to take the compiler off the critical path of a spawn:
 *       1. seccomp_filter_export(p, fd) anywhere, e.g. in a process that
 *          is idle meanwhile (the harness, while its helper starts),
 *          writing the compiled program to a pipe or a stream socket
 *       2. seccomp_filter_read(fd, &bpf) in the thread to confine, before
 *          its descriptors are closed (struct seccomp_bpf is caller-owned,
 *          no allocation); it reads to end of file, so every copy of the
 *          pipe's write end must be closed once the writer is done
 *       3. seccomp_filter_load_bpf(&bpf): one seccomp(2) call, no libseccomp
 */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include <seccomp.h>
#include <linux/filter.h>

#include "sandbox/policy.h"

/* Build the filter for p; 0 and *out (seccomp_release it), or -errno. */
int seccomp_filter_build(const struct policy *p, scmp_filter_ctx *out);

/* Open libseccomp now (it is otherwise opened at the first filter built);
 * 0, or -1 with *err. */
int seccomp_preload(char **err);

/* Build, compile and load into the calling thread, after setting
 * no_new_privs; 0 or -errno. */
int seccomp_filter_install(const struct policy *p);

/*
 * The second, small filter of a command whose memory limit is an rlimit
 * (no memory cgroup): shmget, msgget and semget answer ENOSPC.  System V
 * objects live in the sandbox's IPC namespace under the kernel's default
 * limits (gigabytes), outside every address space RLIMIT_AS counts, and a
 * caller whose user namespace maps no uid 0 cannot lower them; under a
 * memory cgroup their pages are charged like any other, so they stay
 * allowed there (PostgreSQL needs one segment).  Built in the command
 * stage itself, which alone knows which mechanism holds the limit.
 * seccomp_sysv_build gives the context (tests); _install builds and loads.
 */
int seccomp_sysv_build(scmp_filter_ctx *out);
int seccomp_sysv_install(void);

/*
 * The second, small filter of a command under a Landlock ABI without the
 * signal scope (below 6): fcntl(F_SETFL) turning O_ASYNC on and
 * ioctl(FIOASYNC) answer EPERM.  Turned on for a terminal, O_ASYNC makes
 * the kernel itself name the owner of the SIGIO (or F_SETSIG's signal) a
 * key then sends: the terminal's foreground process group, the caller's
 * job (sandbx, and the programs of its pipeline or the script that ran
 * it), which the pid namespace does not hide, since no pid is given.
 * From ABI 6 Landlock's scope refuses that signal (the domain of the
 * process that set the owner is kept with the file), and nothing is
 * filtered.  Built in the command stage, which knows the ABI;
 * seccomp_async_build gives the context (tests); _install builds and
 * loads.
 */
int seccomp_async_build(scmp_filter_ctx *out);
int seccomp_async_install(void);

/* The kernel's BPF_MAXINSNS: no seccomp program is longer. */
#define SECCOMP_BPF_MAX_INSNS 4096

/* A compiled program (raw classic BPF, as seccomp(2) takes it). */
struct seccomp_bpf {
	struct sock_filter insns[SECCOMP_BPF_MAX_INSNS];
	unsigned short len;
};

/*
 * Build and compile p's filter into out: libseccomp's program behind a
 * prefix that answers ENOSYS for every native syscall number above newest
 * (SBX_SYSCALL_NEWEST, util/compat.h; the unit suite passes a lower one
 * to show the prefix at work on a syscall this kernel has).  0 or -errno.
 */
int seccomp_filter_compile(const struct policy *p, uint32_t newest, struct seccomp_bpf *out);

/*
 * Build p's filter and write the compiled program to fd, only once it is
 * complete: a 32-bit native-endian instruction count, then the
 * instructions; when the compile fails, a count of 0 and its errno
 * (32 bits).  0 or -errno (-ENOMEM also when too little address space is
 * left for libseccomp's export, which does not survive a failed
 * allocation).
 */
int seccomp_filter_export(const struct policy *p, int fd);

/* The writing half of seccomp_filter_export: bpf when r is 0, else r's
 * errno; returns r, or the write's -errno. */
int seccomp_filter_write(int fd, int r, const struct seccomp_bpf *bpf);

/* The file libseccomp was opened from (the first filter built opened
 * it), for filtcache.h; NULL before that, or when the loader cannot say. */
const char *seccomp_lib_path(void);

/*
 * Read one program written by seccomp_filter_export from fd, up to end
 * of file; 0, or -errno: the writer's, when it wrote a count of 0 and an
 * errno; -EINVAL when empty, oversized, or the count does not match what
 * followed (e.g. the writer failed half-way).
 */
int seccomp_filter_read(int fd, struct seccomp_bpf *out);

/* Load a read program into the calling thread (no_new_privs must be
 * set); 0 or -errno.  listener non-NULL: the program has user
 * notifications (port mode's listen()), and *listener gets the descriptor
 * another process answers them on (SECCOMP_FILTER_FLAG_NEW_LISTENER). */
int seccomp_filter_load_bpf(const struct seccomp_bpf *bpf, int *listener);

#endif
