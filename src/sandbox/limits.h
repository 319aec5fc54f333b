/*
 * limits.h — resource limits of the confined command (issue 5).
 *
 * Helper-side life cycle:
 *   1. limits_prepare(p, audit_fd)    supervisor, after unshare: create a
 *                                     per-sandbox cgroup where delegated
 *   2. limits_attach(p, init, fd)     supervisor: move the init into it
 *   3. limits_apply_rlimits(p, fd)    command stage: the rlimit part
 *   4. limits_report_kill(p, sig, fd) init: the command died by sig — was
 *                                     it a limit?  (ACH_LIMIT_HIT)
 *   5. limits_finish(p, fd)           supervisor: remove the cgroup
 */
#ifndef SBX_LIMITS_H
#define SBX_LIMITS_H

#include <sys/types.h>

#include "sandbox/policy.h"

int limits_prepare(struct policy *p, int audit_fd);
void limits_attach(struct policy *p, pid_t init, int audit_fd);
void limits_apply_rlimits(const struct policy *p, int audit_fd);
void limits_report_kill(const struct policy *p, int sig, int audit_fd);
void limits_finish(struct policy *p, int audit_fd);

#endif
