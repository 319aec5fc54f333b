/*
 * seccomp.h — the syscall filter of the command stage (libseccomp).
 *
 * A denylist: everything Landlock cannot see that would reshape the view or
 * the host (mounts, namespaces, io_uring, ptrace, memfd, keyrings, module
 * and kexec loading, TIOCSTI...), foreign ABIs killed, x32 refused, and the
 * socket rules of the policy's network mode.  Installed after no_new_privs
 * and before Landlock.
 *
 * seccomp_filter_build() is separate from loading so the unit suite can
 * export the BPF and evaluate it without a kernel.
 */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include <seccomp.h>

#include "sandbox/policy.h"

/* Build the filter for p; 0 and *out (seccomp_release it), or -errno. */
int seccomp_filter_build(const struct policy *p, scmp_filter_ctx *out);

/* Build and load into the calling thread; 0 or -errno. */
int seccomp_filter_install(const struct policy *p);

#endif
