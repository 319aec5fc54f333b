/*
 * compat.h — kernel uapi values newer than the build host's headers.
 *
 * Debian 12 ships the 6.1 uapi headers; sandbx runs on newer kernels and
 * negotiates at run time.  Every value here names the kernel release that
 * introduced it.  Each is defined only when the headers lack it, so a newer
 * build host's own definitions win.
 */
#ifndef SBX_COMPAT_H
#define SBX_COMPAT_H

#include <stdint.h>
#include <linux/types.h>
#include <linux/landlock.h>
#include <sys/syscall.h>

/* Landlock ABI 2 (5.19). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER		(1ULL << 13)
#endif
/* Landlock ABI 3 (6.2). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)
#endif
/* Landlock ABI 5 (6.10). */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)
#endif
/* Landlock ABI 4 (6.7): TCP bind/connect rules. */
#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT			2
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
/* Landlock ABI 6 (6.12): scopes. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif
/* Landlock ABI 7 (6.15): audit logging flags of landlock_restrict_self. */
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0)
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON		(1U << 1)
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF	(1U << 2)
#endif

/*
 * The ruleset attribute grew handled_access_net (6.7) and scoped (6.12);
 * the 6.1 header's struct has only the first member, so sandbx uses its own
 * layout-identical copy and passes its size.
 */
struct sbx_landlock_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};

/* struct landlock_net_port_attr (6.7). */
struct sbx_landlock_net_port_attr {
	__u64 allowed_access;
	__u64 port;
};

/* mount_setattr(2) (5.12) and its attribute struct. */
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef MOUNT_ATTR_SIZE_VER0
struct mount_attr {
	__u64 attr_set;
	__u64 attr_clr;
	__u64 propagation;
	__u64 userns_fd;
};
#define MOUNT_ATTR_SIZE_VER0 32
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* Syscalls the filter names whose numbers the 6.1 headers or libseccomp
 * 2.5.4 may not know (x86_64 numbers; the unified table is shared by every
 * architecture from 5.1 on, hence one value for all). */
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467		/* 6.15 */
#endif
#ifndef __NR_clone3
#define __NR_clone3 435			/* 5.3 */
#endif
#ifndef __NR_close_range
#define __NR_close_range 436		/* 5.9 */
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)	/* 5.11 */
#endif
/*
 * The newest syscall number the filter's tables were reviewed against:
 * file_setattr, 469, Linux 6.17 (6.18 adds none; listns, 470, is 6.19).
 * Every number above it answers ENOSYS in the filter (seccomp.c), so a
 * syscall a later kernel adds is refused until someone reviews it and
 * raises this.  One value for every architecture: the unified table.
 */
#define SBX_SYSCALL_NEWEST 469
#ifndef __NR_mseal
#define __NR_mseal 462			/* 6.10 */
#endif
#ifndef __NR_listmount
#define __NR_listmount 458		/* 6.8 */
#endif
#ifndef __NR_statmount
#define __NR_statmount 457		/* 6.8 */
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452		/* 6.6 */
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451		/* 6.5 */
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue 456		/* 6.7 */
#endif
/* pidfd_open(2) of a thread, not only of a thread-group leader. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL		/* 6.9 */
#endif

/* fanotify: the pre-content access event (6.14), a permission event
 * asked before a file's content is read. */
#ifndef FAN_PRE_ACCESS
#define FAN_PRE_ACCESS 0x00100000	/* 6.14 */
#endif

/* prctl: KSM merging of every page of the process (6.4). */
#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67		/* 6.4 */
#endif

/* A process's CPU-time clock as clock_gettime(2) names it (2.6.12): the
 * pid, inverted, shifted above the three bits that say which clock.  Not
 * in the uapi headers (include/linux/posix-timers_types.h); glibc builds
 * the same for clock_getcpuclockid(), but only the SCHED clock.  PROF is
 * user plus system time as the scheduler tick charged it: the figure the
 * kernel holds RLIMIT_CPU against (kernel/time/posix-cpu-timers.c). */
#define SBX_CPUCLOCK_PROF 0
#define SBX_PROCESS_CPUCLOCK(pid, which) ((clockid_t)(~(unsigned)(pid) << 3) | (which))

/* The flags word of /proc/PID/stat (field 9) is the task's PF_* flags,
 * which no uapi header defines: PF_EXITING has been 0x4 since 2.6. */
#ifndef PF_EXITING
#define PF_EXITING 0x00000004		/* include/linux/sched.h, 2.6 */
#endif

#endif /* SBX_COMPAT_H */
