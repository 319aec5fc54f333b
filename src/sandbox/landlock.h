/*
 * landlock.h — the Landlock wall of the command stage.
 *
 * landlock_abi() asks the kernel; the helper refuses below LANDLOCK_ABI_MIN
 * and uses min(kernel, LANDLOCK_ABI_MAX).  Every filesystem right the
 * chosen ABI has is handled (denied unless a rule grants it), plus the
 * abstract-unix-socket and signal scopes, plus TCP bind/connect when the
 * policy names ports.  Anything short of that refuses the run.
 *
 * The rights computation is pure (landlock_rights_*) and unit-tested.
 */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include <stdint.h>

#include "sandbox/policy.h"

#define LANDLOCK_ABI_MIN 5	/* 6.10: IOCTL_DEV, the floor for full enforcement */
#define LANDLOCK_ABI_MAX 7	/* newest this code knows (6.15) */

/* >= 1 the ABI; -EOPNOTSUPP Landlock disabled at boot; -ENOSYS absent. */
int landlock_abi(void);

/* The ABI the helper works at, from the kernel's answer abi: no higher
 * than LANDLOCK_ABI_MAX (the supervisor's and the namespace child's must
 * agree: the command stage takes the child's ruleset only at its own). */
int landlock_abi_used(int abi);

/* Every filesystem right of abi (the handled set). */
uint64_t landlock_fs_handled(int abi);

/* Rights a grant's access bits give at abi; files get file rights only. */
uint64_t landlock_rights(unsigned access, int is_dir, int abi);

/* Scopes handled at abi (0 below 6). */
uint64_t landlock_scopes(int abi);

/* 1 when the policy needs the abstract-unix-socket scope and abi lacks it:
 * the command shares the host's network namespace (host_net: port or bare
 * mode) and may create AF_UNIX sockets (allow_unix).  The run is refused. */
int landlock_scope_missing(int abi, int host_net, int allow_unix);

/*
 * The flags of the command stage's landlock_restrict_self at abi: from 7
 * on, LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF, so no domain the command
 * makes inside the sandbox's writes to the host's audit log (landlock.c).
 */
uint32_t landlock_restrict_flags(int abi);

/*
 * An extra rule for the view's own files (minimal /dev).  path is opened
 * O_PATH in the current root.
 */
struct landlock_extra {
	const char *path;
	uint64_t rights;
};

/*
 * Build and apply the ruleset for p in the current mount view: each grant
 * is opened O_PATH (checked against its pin unless it is under /proc), the
 * extras added, then landlock_restrict_self.  Needs no_new_privs already
 * set.  Returns 0, or -1 with *label and *arg set for the audit channel.
 */
int landlock_apply(const struct policy *p, int abi, const struct landlock_extra *extra,
		   size_t nextra, int *label, int *arg);

/*
 * Part of that ruleset made ahead, elsewhere: in the harness's namespace
 * child (nschild.c), on the CPU that is idle while the init builds the
 * view.  A rule names an inode, and the view's trees are clones of the
 * host's, so a grant opened at its path on the host (and checked against
 * its pin) is the grant in the view; so is each extra that is a clone of
 * the host's node (the view's /dev).  A grant under /proc is not: the
 * view's /proc is the sandbox's own.  The ruleset's descriptor with
 * those rules, or -1 (the command stage then builds it all).  System
 * calls only, no allocation: the namespace child is a fork of a harness
 * that may have threads.
 */
int landlock_prebuild(const struct policy *p, int abi, const struct landlock_extra *host_extra,
		      size_t nhost_extra);

/*
 * landlock_apply on rfd, a ruleset landlock_prebuild made for the same p
 * and abi: what it left out (the grants under /proc) and extra (the
 * view's own trees) added, then landlock_restrict_self.  rfd is closed.
 */
int landlock_apply_prebuilt(int rfd, const struct policy *p, int abi, const struct landlock_extra *extra,
			    size_t nextra, int *label, int *arg);

#endif
