/*
 * auditch.h — the helper's one-way audit channel.
 *
 * The helper stages write fixed-size records to a pipe whose read end only
 * the harness holds.  A record carries a label from the closed set below
 * and one integer (an errno, or a grant index): never bytes the command
 * could choose.  The command stage holds the write end only until its
 * execve (close-on-exec), so the confined program has no descriptor for it.
 * The harness turns each record into an audit line and, for refusals, the
 * error message that says what to change.
 */
#ifndef SBX_AUDITCH_H
#define SBX_AUDITCH_H

#include <stdint.h>

enum auditch_label {
	ACH_NONE = 0,
	/* refusals: the run does not happen, exit 125 */
	ACH_REF_USERNS,		/* unshare(CLONE_NEWUSER...) refused; arg errno */
	ACH_REF_IDMAP,		/* uid_map/gid_map/setgroups write failed; arg errno */
	ACH_REF_NETNS_LO,	/* netns not made or loopback not up; arg errno */
	ACH_REF_GRANT_OPEN,	/* a grant could not be opened in the helper; arg index */
	ACH_REF_GRANT_CHANGED,	/* a grant is no longer the vetted object; arg index */
	ACH_REF_MOUNT,		/* building the mount view failed; arg errno */
	ACH_REF_MOUNT_GRANT,	/* mounting one grant failed; arg index */
	ACH_REF_LANDLOCK_OFF,	/* Landlock not enabled at boot */
	ACH_REF_LANDLOCK_ABI,	/* ABI below 5; arg the ABI, or -errno when none */
	ACH_REF_LANDLOCK,	/* ruleset/rule/restrict failed; arg errno */
	ACH_REF_SECCOMP,	/* the filter could not be built or loaded; arg errno */
	ACH_REF_PRIVS,		/* no_new_privs, capset, securebits, rlimit; arg errno */
	ACH_REF_FORK,		/* a stage could not be forked; arg errno */
	ACH_REF_LIMIT,		/* a resource limit could not be set; arg kind */
	ACH_REF_DNS,		/* the pre-resolved /etc files could not be bound; arg errno */
	ACH_REF_CGROUPNS,	/* the cgroup namespace could not be made; arg errno */
	ACH_REF_LANDLOCK_SCOPE,	/* the policy needs a scope the ABI lacks; arg the ABI */
	ACH_REF_STDIO,		/* descriptor 0-2 is a directory or an O_PATH handle,
				   a way around the view; arg the descriptor */
	ACH_REF_JOBCTL,		/* a stopped job could not be held stopped: the
				   sandbox was killed; arg errno */
	ACH_REF_STDIO_TTY,	/* descriptor 0-2 is a terminal no session of the
				   caller's holds, under a grant: the command
				   could take it; arg the descriptor */
	ACH_REF_MQUEUE,		/* the host's mqueue mount in a grant could not be
				   replaced with the sandbox's own; arg its index
				   in policy.mqueue */
	ACH_REF_HUGETLBFS,	/* the host's hugetlbfs mount in a grant could not
				   be hidden behind an empty directory; arg its
				   index in policy.hugetlbfs */
	ACH_REF_PIN,		/* the pinned program is not the same file at its
				   path in the view; arg errno (ESTALE: another
				   file is there) */
	ACH_REF_COREDUMP,	/* the core limit could not be one byte (the
				   caller's hard limit is 0) and core_pattern
				   hands a dump to the host; arg errno */
	ACH_REF_SCHED,		/* the command's real-time and nice limits could
				   not be 0, or an inherited real-time policy not
				   be left (helper.c, sched_ordinary); arg errno */
	ACH_REF_USER_LIMIT,	/* a per-user kernel counter could not be halved for
				   the sandbox (limits.h); arg limits_ucount_arg() */
	ACH_REF_STDIO_MEMFD,	/* descriptor 0-2 is an anonymous memory file, which
				   Landlock does not govern; arg the descriptor */
	ACH_REF_STDIO_SOCKET,	/* descriptor 0-2 is a socket of the caller's that
				   can name a destination (datagram), beyond the
				   network policy; arg the descriptor */
	ACH_REF_STDIO_ASYNC,	/* descriptor 0-2 is a device of the caller's with
				   O_ASYNC on: F_SETSIG there picks the signal its
				   owner, outside, is sent; arg the descriptor */
	ACH_REF_STDIO_DEVICE,	/* descriptor 0-2 is a device node the caller owns
				   that could not be opened again through a
				   read-only mount; arg the descriptor.
				   The last refusal: auditch_is_refusal() */
	/* degradations: the run goes on, recorded */
	ACH_DEG_PROC,		/* the sandbox's own /proc could not be mounted; arg errno */
	ACH_DEG_CAPBSET,	/* the capability bounding set not cleared; arg errno */
	ACH_DEG_LIMIT,		/* a limit enforced by rlimit, not cgroup; arg kind */
	/* exec outcome */
	ACH_EXEC_FAILED,	/* execve failed; arg errno */
	ACH_LIMIT_HIT,		/* the command was killed for a limit; arg kind */
	ACH_DEG_LIMIT_OFF,	/* a limit could not be enforced at all (RLIMIT_NPROC
				   does not bind uid 0 and no pids cgroup); arg kind */
	ACH_DEG_CGROUP,		/* the sandbox's cgroup could not be removed (or the
				   supervisor not moved out of it); arg errno */
	ACH_DEG_USER_LIMIT,	/* the per-user limits could not be halved: the
				   host's /proc/sys is read-only; arg
				   limits_ucount_arg() */
	ACH_DONE,		/* the supervisor's last record: every process of the
				   sandbox but itself is gone; arg its exit code */
	ACH__COUNT
};

struct auditch_rec {
	uint16_t label;
	uint16_t pad;
	int32_t arg;
};

/* Write one record; async-signal-safe; errors ignored (the harness
 * notices a stage that exits 125 without a record and says so). */
void auditch_send(int fd, enum auditch_label label, int32_t arg);

/* Name of a label for the audit line ("userns", "proc-mount", ...). */
const char *auditch_name(enum auditch_label label);
int auditch_is_refusal(enum auditch_label label);

#endif
