/*
 * seccomp.c — the syscall filter of the command stage.
 *
 * A denylist (default allow): Landlock bounds what a command opens,
 * executes and creates by path; the mount view bounds which paths exist.
 * What follows shuts what neither sees — syscalls that reshape the view
 * or the host, reach another process, run code no path names, or use a
 * foreign syscall ABI — and, per the policy, the sockets Landlock's TCP
 * port rules cannot police.  Each row says why.
 *
 * Denials answer EPERM so a program survives and reports them; clone3
 * and openat2 answer ENOSYS so libc and programs fall back to clone and
 * openat, whose flags and mode the filter can read (clone3 and openat2
 * pass them behind a pointer), and io_setup so libaio's users fall back
 * to threads, and ustat as on aarch64; advice to evict cached pages
 * (add_page_cache_rules) and sync() (add_beyond_view_rules) return 0 and
 * do nothing.  A foreign architecture kills the whole
 * process (libseccomp's bad-arch action).  A syscall newer than the
 * tables below were reviewed against (SBX_SYSCALL_NEWEST) answers ENOSYS,
 * as on a kernel without it: a denylist would otherwise allow whatever a
 * later kernel adds (enosys_stub).
 *
 * Integer arguments: seccomp sees the full 64-bit register, the kernel
 * uses only the low 32 bits of an int.  Every comparison of an int
 * argument is therefore masked to the low 32 bits (ARG32), so garbage in
 * the high half cannot slip past a rule (CVE-2019-10063, TIOCSTI).
 * libseccomp 2.5 accepts one comparison per argument in a rule, so "not
 * one of these values" is written as several rules, each a positive match.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <linux/vm_sockets.h>
#include <sys/ioctl.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <sys/mman.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sandbox/seccomp.h"
#include "util/compat.h"
#include "util/util.h"
#include "util/dl.h"
#include "util/log.h"

/*
 * libseccomp is opened on first use (util/dl.h says why): only the harness
 * compiles filters; the helper stages load raw BPF and never need it.
 * Each seccomp_* name used below is a pointer in this table.
 */
static struct {
	__typeof__(seccomp_arch_native) *arch_native;
	__typeof__(seccomp_attr_set) *attr_set;
	__typeof__(seccomp_export_bpf) *export_bpf;
	__typeof__(seccomp_init) *init;
	__typeof__(seccomp_load) *load;
	__typeof__(seccomp_release) *release;
	__typeof__(seccomp_rule_add) *rule_add;
	__typeof__(seccomp_syscall_resolve_name) *syscall_resolve_name;
} sc;

#define SC_SYM(n) DL_SYM(__typeof__(sc), n, "seccomp_" #n)
static const struct dl_sym sc_syms[] = {
	SC_SYM(arch_native),
	SC_SYM(attr_set),
	SC_SYM(export_bpf),
	SC_SYM(init),
	SC_SYM(load),
	SC_SYM(release),
	SC_SYM(rule_add),
	SC_SYM(syscall_resolve_name),
};

#undef seccomp_arch_native
#define seccomp_arch_native sc.arch_native
#undef seccomp_attr_set
#define seccomp_attr_set sc.attr_set
#undef seccomp_export_bpf
#define seccomp_export_bpf sc.export_bpf
#undef seccomp_init
#define seccomp_init sc.init
#undef seccomp_load
#define seccomp_load sc.load
#undef seccomp_release
#define seccomp_release sc.release
#undef seccomp_rule_add
#define seccomp_rule_add sc.rule_add
#undef seccomp_syscall_resolve_name
#define seccomp_syscall_resolve_name sc.syscall_resolve_name

static struct dl_lib sc_lib = DL_LIB("libseccomp.so.2", "libseccomp2", sc_syms, &sc);


/* Compare the low 32 bits of argument i with v (an int argument). */
#define ARG32(i, v) SCMP_CMP((i), SCMP_CMP_MASKED_EQ, 0xffffffffULL, (scmp_datum_t)(uint32_t)(v))
/* Argument i has every bit of m set, in its low 32 bits. */
#define ARGBITS(i, m) SCMP_CMP((i), SCMP_CMP_MASKED_EQ, (scmp_datum_t)(m), (scmp_datum_t)(m))
/* (argument i & m) == v. */
#define ARGMASK(i, m, v) SCMP_CMP((i), SCMP_CMP_MASKED_EQ, (scmp_datum_t)(m), (scmp_datum_t)(v))

#define DENY SCMP_ACT_ERRNO(EPERM)

/*
 * Rules cost time in every command stage (libseccomp compiles each one,
 * about 1 us apiece), so "not one of these few values" is written as a
 * small cover of masked matches rather than one rule per other value.
 * Each cover is checked exhaustively by tests/unit/test_seccomp.c.
 */
struct sc_mask {
	uint32_t mask, value;
};

/* Address families other than AF_UNIX (1), AF_INET (2), AF_INET6 (10),
 * among 0..63: bit 5 or 4 or 2 set, or low bits 011, x000, 1x01.
 * At or above 64 (and any high-half garbage) is a separate GE rule. */
static const struct sc_mask other_families[] = {
	{ 0x20, 0x20 }, { 0x10, 0x10 }, { 0x04, 0x04 },
	{ 0x03, 0x03 }, { 0x07, 0x00 }, { 0x0b, 0x09 },
};
#define SC_FAMILY_LIMIT 64

/* The same without a network: AF_NETLINK (16) stays too.  Among 0..63:
 * bit 5 set; bit 4 set with any of bits 0, 1, 3 (17-31 but 20-23, which
 * bit 2 covers); bit 2; low bits 011; bits 4, 2-0 clear (0, 8); 1x01. */
static const struct sc_mask other_families_offline[] = {
	{ 0x20, 0x20 }, { 0x11, 0x11 }, { 0x12, 0x12 }, { 0x18, 0x18 },
	{ 0x04, 0x04 }, { 0x03, 0x03 }, { 0x17, 0x00 }, { 0x0b, 0x09 },
};

/* Without a network, the IP protocols other than 0, ICMP (1), TCP (6),
 * UDP (17), ICMPv6 (58) and UDP-Lite (136), among 0..255; 256 and above
 * (MPTCP 262, SMC 256, any high-half garbage) is a separate GE rule.
 * socket() of a protocol no module has registered yet (SCTP, L2TP,
 * DCCP...) has the kernel load its module, with no capability asked:
 * code the command has no use for on loopback, left loaded on the host
 * after the run. */
static const struct sc_mask other_ip_protocols_offline[] = {
	{ 0x40, 0x40 }, { 0x03, 0x03 }, { 0x06, 0x04 }, { 0x22, 0x20 }, { 0x82, 0x82 }, { 0x31, 0x10 }, { 0x98, 0x08 },
	{ 0x28, 0x20 }, { 0x81, 0x81 }, { 0x09, 0x09 }, { 0x0c, 0x0c }, { 0x88, 0x80 }, { 0x0e, 0x02 },
};
#define SC_IP_PROTOCOL_LIMIT 256

/* The same for netlink: protocols other than NETLINK_ROUTE (0),
 * NETLINK_SOCK_DIAG (4), NETLINK_AUDIT (9) and NETLINK_KOBJECT_UEVENT
 * (15), all built into the kernel, among 0..31 (the kernel's MAX_LINKS);
 * each of the others is a module's (nfnetlink, xfrm_user, crypto_user,
 * the iSCSI and RDMA ones), loaded at socket().  NETLINK_GENERIC (16) is
 * built in but refused too: its controller, asked for a family by a name
 * it does not know (CTRL_CMD_GETFAMILY), has the kernel load the module
 * of that name (l2tp, gtp, wireguard, openvswitch, smc...) with no
 * capability asked, inside a message the filter cannot read. */
static const struct sc_mask other_netlink_protocols_offline[] = {
	{ 0x03, 0x02 }, { 0x06, 0x02 }, { 0x07, 0x05 }, { 0x09, 0x01 }, { 0x09, 0x08 }, { 0x10, 0x10 },
};
#define SC_NETLINK_PROTOCOL_LIMIT 32

/* Socket types other than SOCK_STREAM (1) in the low 4 bits (the type
 * proper, SOCK_TYPE_MASK; SOCK_NONBLOCK and SOCK_CLOEXEC sit above, any
 * other bit is EINVAL): even, or odd with bit 1, 2 or 3 set. */
static const struct sc_mask non_stream_types[] = {
	{ 0x1, 0x0 }, { 0x2, 0x2 }, { 0x4, 0x4 }, { 0x8, 0x8 },
};

/* IP protocols 1..5 (all but 0 and IPPROTO_TCP, 6, below 7): odd, 010, 10x.  At or
 * above 7 is a separate GE rule. */
static const struct sc_mask non_tcp_protocols[] = {
	{ 0x1, 0x1 }, { 0x6, 0x2 }, { 0x6, 0x4 },
};

struct sc_deny {
	const char *name;
	int fallback;		/* number when libseccomp 2.5.4 does not know the
				   name (unified table, 5.1+), or 0 */
};

/*
 * Denied with EPERM whatever the policy.  A name this architecture lacks
 * (ioperm on aarch64) resolves to nothing and is skipped.
 */
static const struct sc_deny deny_always[] = {
	/* Another process's memory, registers and descriptors. */
	{ "ptrace", 0 },
	{ "process_vm_readv", 0 },
	{ "process_vm_writev", 0 },
	{ "pidfd_open", 0 },		/* the way to pidfd_getfd and process_madvise */
	{ "pidfd_getfd", 0 },
	/* Reshaping the mount view: the old and the new mount API, and
	 * mount_setattr (it could clear the view's read-only and noexec). */
	{ "mount", 0 },
	{ "umount2", 0 },
	{ "pivot_root", 0 },
	{ "chroot", 0 },
	{ "open_tree", 0 },
	{ "open_tree_attr", __NR_open_tree_attr },
	{ "move_mount", 0 },
	{ "fsopen", 0 },
	{ "fsconfig", 0 },
	{ "fsmount", 0 },
	{ "fspick", 0 },
	{ "mount_setattr", __NR_mount_setattr },
	/* Mount-tree introspection by id: the young interfaces that take a
	 * mount-namespace id naming other namespaces (6.8+; /proc/self/
	 * mountinfo still shows the command its own view). */
	{ "listmount", __NR_listmount },
	{ "statmount", __NR_statmount },
	/* New namespaces (a user namespace gives back capabilities over a new
	 * view and a large kernel attack surface); clone is filtered by flag. */
	{ "setns", 0 },
	{ "unshare", 0 },
	/* Open a file by handle, bypassing every path: the "shocker" escape
	 * needs CAP_DAC_READ_SEARCH, name_to_handle_at leaks the handles. */
	{ "name_to_handle_at", 0 },
	{ "open_by_handle_at", 0 },
	/* Kernel code and the running kernel. */
	{ "init_module", 0 },
	{ "finit_module", 0 },
	{ "delete_module", 0 },
	{ "kexec_load", 0 },
	{ "kexec_file_load", 0 },
	{ "bpf", 0 },
	{ "perf_event_open", 0 },
	{ "lookup_dcookie", 0 },
	{ "uselib", 0 },		/* maps a library by path, a.out era */
	{ "_sysctl", 0 },
	{ "syslog", 0 },		/* the host's kernel log */
	/* Kernel keyrings are not namespaced: the user's keys and the host's. */
	{ "add_key", 0 },
	{ "request_key", 0 },
	{ "keyctl", 0 },
	/* Exploitation primitives and paths around the hooked syscalls:
	 * io_uring does file and socket work without the syscalls Landlock
	 * and this filter see; userfaultfd stalls kernel copies at will. */
	{ "userfaultfd", 0 },
	{ "io_uring_setup", 0 },
	{ "io_uring_enter", 0 },
	{ "io_uring_register", 0 },
	/* Code no path names: memfd_create + execveat(AT_EMPTY_PATH) or
	 * /proc/self/fd/N would run a file Landlock never saw. */
	{ "memfd_create", 0 },
	{ "memfd_secret", 0 },
	/* The host itself: power, swap, clock, accounting, quotas, consoles,
	 * I/O ports, 16-bit segments.  Each needs a capability of the initial
	 * user namespace the command never has; refused here as well. */
	{ "reboot", 0 },
	{ "swapon", 0 },
	{ "swapoff", 0 },
	{ "settimeofday", 0 },
	{ "clock_settime", 0 },
	{ "clock_adjtime", 0 },
	{ "adjtimex", 0 },
	{ "acct", 0 },
	{ "quotactl", 0 },
	{ "quotactl_fd", 0 },
	{ "vhangup", 0 },
	{ "ioperm", 0 },
	{ "iopl", 0 },
	{ "modify_ldt", 0 },
};

/* Every CLONE_NEW* flag; clone with any of them is refused, one rule each.
 * CLONE_NEWTIME (0x80) overlaps clone()'s exit-signal byte, where it is
 * an invalid signal (> 64) anyway, so refusing it costs nothing. */
static const uint64_t clone_new_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, 0x00000080 /* CLONE_NEWTIME, 5.6 */,
};

/* Terminal ioctls that act on the user's terminal (fds 0-2 are often the
 * caller's own; the view mounts no devpts and a granted /dev is nodev,
 * so no terminal is the sandbox's): TIOCSTI types into its input queue, TIOCLINUX reads
 * and pastes the virtual console, TIOCSETD changes its line discipline
 * for good (N_NULL leaves it dead after the run; with
 * dev.tty.ldisc_autoload it loads a module), TIOCEXCL makes every later
 * open of it fail with EBUSY (sudo, ssh, editors), TIOCSWINSZ has
 * the kernel send SIGWINCH to the host's foreground process group, and
 * TCXONC (tcflow: TCOOFF) stops its output, so the user's shell blocks on
 * its next write after the run, and TIOCSCTTY takes a terminal that is no
 * session's (a serial line redirected in) as the controlling terminal of
 * the command, a session leader: its exit then hangs the line up for
 * every other holder.  Not a terminal's: FS_IOC_ENABLE_VERITY
 * makes a file read-only for good, and needs only a descriptor open for
 * reading (a file redirected into the command).  Nor are the fscrypt
 * keyring's: on a filesystem with encryption, any descriptor of it (a
 * read-only grant) lets the command remove the user's own master key,
 * locking the user's encrypted directories there after the run, or add
 * keys that stay in the filesystem's keyring, charged to the user's key
 * quota, until it is unmounted (keyctl is denied for the same keys). */
static const unsigned long denied_ioctls[] = {
	TIOCSTI, TIOCLINUX, TIOCSETD, TIOCEXCL, TIOCSWINSZ, TCXONC, TIOCSCTTY,
	FS_IOC_ENABLE_VERITY,
	FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS,
};

/*
 * Syscalls that take a file mode, and the argument holding it.  A mode
 * with S_ISUID or S_ISGID is refused: a file the command owns (host
 * uid 0 when the caller is root) would keep the bit after the run, in a
 * writable grant or through a descriptor it inherited.  Only the two
 * bits are compared: garbage in the high half cannot hide them, and every
 * other mode (0644, 0755, sticky 01777) passes.  open and openat are refused whatever their flags: glibc
 * passes mode 0 when it creates nothing.  openat2 carries its mode in a
 * struct the filter cannot read; it answers ENOSYS (below) so programs
 * fall back to openat.  The foreign ABIs that would reach the same
 * kernel code under other numbers (i386, x32) are killed wholesale
 * (build_rules).
 */
static const struct sc_mode_arg {
	struct sc_deny sys;
	unsigned int arg;
} mode_args[] = {
	{ { "chmod", 0 }, 1 },
	{ { "fchmod", 0 }, 1 },
	{ { "fchmodat", 0 }, 2 },
	{ { "fchmodat2", __NR_fchmodat2 }, 2 },
	{ { "open", 0 }, 2 },
	{ { "openat", 0 }, 3 },
	{ { "creat", 0 }, 1 },
	{ { "mknod", 0 }, 1 },
	{ { "mknodat", 0 }, 2 },
};
static const uint32_t setid_bits[] = { S_ISUID, S_ISGID };

/*
 * Read events of a watch: a directory of a read-only grant (/usr/bin, a
 * project's node_modules) is the host's own inode, so a watch on it sees
 * every host process that opens, reads or executes a file there, as it
 * happens: the host's activity, told to the command.  A watch asking for
 * any of these is refused, one rule per bit (IN_ALL_EVENTS holds all
 * three); a watch for changes (IN_MODIFY, IN_CREATE, IN_DELETE, what
 * file watchers ask for) is not.  fanotify's mask is a 64-bit argument
 * on 64-bit ABIs; the permission events need a group of
 * FAN_CLASS_CONTENT or above, which the kernel gives only to
 * CAP_SYS_ADMIN, and are refused here as well.
 */
static const uint32_t inotify_read_events[] = { IN_ACCESS, IN_OPEN, IN_CLOSE_NOWRITE };
static const uint64_t fanotify_read_events[] = {
	FAN_ACCESS, FAN_OPEN, FAN_OPEN_EXEC, FAN_CLOSE_NOWRITE,
	FAN_ACCESS_PERM, FAN_OPEN_PERM, FAN_OPEN_EXEC_PERM, FAN_PRE_ACCESS,
};


static int resolve(const struct sc_deny *d)
{
	int nr = seccomp_syscall_resolve_name(d->name);
	if (nr < 0)
		return d->fallback > 0 ? d->fallback : -1;
	return nr;
}

/* One rule; libseccomp's return (negative errno) passed on. */
#define RULE(ctx, act, nr, ...) \
	do { \
		int r_ = seccomp_rule_add((ctx), (act), (nr), __VA_ARGS__); \
		if (r_ < 0) \
			return r_; \
	} while (0)

/*
 * The page cache of a granted file is the host's: one copy, shared by
 * every process that reads the file.  Evicting its pages needs only a
 * descriptor open for reading (fadvise) or a mapping of a file the
 * caller owns, a root caller owning /usr (MADV_PAGEOUT): the host's next
 * read of them then goes to the disk, slower, and the command can tell
 * by timing when the host reads them again.  Both are advice, which a
 * kernel may ignore: they return 0 and do nothing (ERRNO(0) answers
 * without running the call).  MADV_COLD only ages the pages, towards the
 * same end.  cachestat reports residency outright, the answer ENOSYS
 * (a kernel before 6.5); a read or write with RWF_NOWAIT fails with
 * EAGAIN when the data is not cached, and answers EOPNOTSUPP here, as on
 * a filesystem without nowait support.  process_madvise on the caller
 * itself (PIDFD_SELF, 6.15; another process needs CAP_SYS_NICE) is
 * madvise by another number, any advice included, KSM's too: ENOSYS (a
 * kernel before 5.10), and programs fall back to madvise, which the
 * filter reads.  mincore is left alone: the kernel itself reports
 * residency only of a file the caller owns or may write (a root caller:
 * /usr), and timing a read tells as much.
 */
static int add_page_cache_rules(scmp_filter_ctx ctx)
{
	const struct sc_deny cachestat = { "cachestat", __NR_cachestat };
	int nr = resolve(&cachestat);

	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(fadvise64), 1, ARG32(3, POSIX_FADV_DONTNEED));
	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(madvise), 1, ARG32(2, MADV_PAGEOUT));
	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(madvise), 1, ARG32(2, MADV_COLD));
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(process_madvise), 0);
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	RULE(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), SCMP_SYS(preadv2), 1, ARGBITS(5, RWF_NOWAIT));
	RULE(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), SCMP_SYS(pwritev2), 1, ARGBITS(5, RWF_NOWAIT));
	return 0;
}

/*
 * Filesystems beyond the view.  sync() writes back every filesystem of
 * the machine, those no grant reaches included, and its time tells how
 * much the host has written since the last one: run from the sandbox
 * every 200 ms, it took 0.5 ms with the host idle and 1.7 ms after each
 * 2 MB the host wrote to a file outside every grant.  It returns
 * nothing, so doing nothing is an answer a program cannot tell from the
 * kernel's (ERRNO(0), as for the page-cache advice); fsync, fdatasync and
 * syncfs, which reach only a file or a filesystem of the view, are left
 * alone.  ustat(dev) reports the free blocks and inodes of any mounted
 * filesystem by device number, with no permission asked, the host's own
 * tmpfs and other sandboxes' included: ENOSYS, what aarch64 (which never
 * had it) answers; glibc has had no wrapper since 2.28.
 */
static int add_beyond_view_rules(scmp_filter_ctx ctx)
{
	const struct sc_deny ustat = { "ustat", 0 };
	int nr = resolve(&ustat);

	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(sync), 0);
	if (nr >= 0)
		RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	return 0;
}

/* Watches that would report the host's reads (inotify_read_events). */
static int add_read_watch_rules(scmp_filter_ctx ctx)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(inotify_read_events); i++)
		RULE(ctx, DENY, SCMP_SYS(inotify_add_watch), 1, ARGBITS(2, inotify_read_events[i]));
	for (size_t i = 0; i < SBX_ARRAY_LEN(fanotify_read_events); i++)
		RULE(ctx, DENY, SCMP_SYS(fanotify_mark), 1, ARGBITS(2, fanotify_read_events[i]));
	/* dnotify's DN_ACCESS is the same event; its argument is read as an
	 * unsigned int, so only the bit is compared. */
	RULE(ctx, DENY, SCMP_SYS(fcntl), 2, ARG32(1, F_NOTIFY), ARGBITS(2, DN_ACCESS));
	return 0;
}

/*
 * Futexes of a file.  A futex in a mapping of a file is keyed by the
 * file's inode and offset, whoever maps it, so a command that may only
 * read a granted file shares the futexes of every host process that maps
 * it too (a process-shared mutex in LMDB's lock file).  A requeue moves
 * waiters from one futex to another: to a futex of the command's own
 * memory, where no wake of the host's ever reaches them, so they sleep on
 * after the run (a waiter of root's, moved by a command of sbxci given
 * --allow-read of the file, missed root's wake and slept out its timeout).
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE are refused unless
 * FUTEX_PRIVATE_FLAG keys both futexes in the caller's own memory, where
 * no host waiter can be; the op is an int, the clock bit is ignored
 * (a requeue with it is ENOSYS).  glibc before 2.25 then wakes every
 * waiter instead; later glibc, musl's shared condvars, Go and Rust do not
 * requeue shared futexes.  futex_requeue (6.7) keeps each futex's flags
 * in a struct the filter cannot read: ENOSYS, and nothing falls back
 * from it, since libcs do not call it yet.
 */
static int add_futex_rules(scmp_filter_ctx ctx)
{
	const struct sc_deny requeue2 = { "futex_requeue", __NR_futex_requeue };
	const scmp_datum_t op = 0xffffffffULL & ~(scmp_datum_t)FUTEX_CLOCK_REALTIME;

	RULE(ctx, DENY, SCMP_SYS(futex), 1, ARGMASK(1, op, FUTEX_REQUEUE));
	RULE(ctx, DENY, SCMP_SYS(futex), 1, ARGMASK(1, op, FUTEX_CMP_REQUEUE));
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), resolve(&requeue2), 0);
	return 0;
}

static int add_denylist(scmp_filter_ctx ctx)
{
	int r;

	for (size_t i = 0; i < SBX_ARRAY_LEN(deny_always); i++) {
		int nr = resolve(&deny_always[i]);
		if (nr < 0)
			continue;	/* absent on this architecture */
		RULE(ctx, DENY, nr, 0);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(clone_new_flags); i++)
		RULE(ctx, DENY, SCMP_SYS(clone), 1, ARGBITS(0, clone_new_flags[i]));
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	for (size_t i = 0; i < SBX_ARRAY_LEN(mode_args); i++) {
		int nr = resolve(&mode_args[i].sys);
		if (nr < 0)
			continue;	/* absent on this architecture (open on aarch64) */
		for (size_t j = 0; j < SBX_ARRAY_LEN(setid_bits); j++)
			RULE(ctx, DENY, nr, 1, ARGBITS(mode_args[i].arg, setid_bits[j]));
	}
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
	/* renameat2's RENAME_WHITEOUT leaves a character device 0:0 (an
	 * overlayfs whiteout) at the old name, and since 5.8 the kernel asks
	 * no capability for it: a device node the command could not mknod,
	 * left in a writable grant after the run.  overlayfs makes its own
	 * whiteouts in the kernel; no program needs the flag.  flags is an
	 * unsigned int: only the bit is compared. */
	RULE(ctx, DENY, SCMP_SYS(renameat2), 1, ARGBITS(4, RENAME_WHITEOUT));
	/* mknod of a character device 0:0 makes the same whiteout, with no
	 * capability asked either; every other device node needs CAP_MKNOD,
	 * which the command never has.  Both kinds are refused on the mode's
	 * type bits alone (the kernel keeps the mode's low 16 bits). */
	static const struct sc_mode_arg mknods[] = { { { "mknod", 0 }, 1 }, { { "mknodat", 0 }, 2 } };
	for (size_t i = 0; i < SBX_ARRAY_LEN(mknods); i++) {
		int nr = resolve(&mknods[i].sys);
		if (nr < 0)
			continue;	/* absent on this architecture (mknod on aarch64) */
		RULE(ctx, DENY, nr, 1, ARGMASK(mknods[i].arg, S_IFMT, S_IFCHR));
		RULE(ctx, DENY, nr, 1, ARGMASK(mknods[i].arg, S_IFMT, S_IFBLK));
	}
	/* Native AIO's events are counted for the whole machine together
	 * (fs.aio-max-nr, 65536 by default), with no capability exempting
	 * anyone: one io_setup asking for all of them left every other
	 * process, root's too, EAGAIN until the run ended.  ENOSYS, as a
	 * kernel built without AIO answers, has libaio's users fall back to
	 * threads; with no context the other io_* calls reach nothing. */
	RULE(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_setup), 0);
	/* The huge page pool (vm.nr_hugepages) is the machine's, reserved by
	 * its admin (databases, VMs), and charged to no user, no memory
	 * cgroup by default and no rlimit but the address space: a command
	 * took every page of it while it ran, and the host's own mappings
	 * failed.  ENOMEM is what an empty pool answers, as on most machines,
	 * so users of MAP_HUGETLB already fall back to ordinary pages.  The
	 * flag is one bit of mmap's flags and of shmget's shmflg, compared
	 * whatever the other bits hold; memfd_create is denied outright. */
	RULE(ctx, SCMP_ACT_ERRNO(ENOMEM), SCMP_SYS(mmap), 1, ARGBITS(3, MAP_HUGETLB));
	RULE(ctx, SCMP_ACT_ERRNO(ENOMEM), SCMP_SYS(shmget), 1, ARGBITS(2, SHM_HUGETLB));
	/* Kernel same-page merging, where the admin turned it on, merges a
	 * page the command made with an identical one of any process that
	 * opted in (a VM's guest memory): the time of a write to it then
	 * tells the command what the host holds.  Opting in needs no
	 * privilege; EINVAL is what a kernel without KSM answers. */
	RULE(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(madvise), 1, ARG32(2, MADV_MERGEABLE));
	RULE(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1, ARG32(0, PR_SET_MEMORY_MERGE));
	for (size_t i = 0; i < SBX_ARRAY_LEN(denied_ioctls); i++)
		RULE(ctx, DENY, SCMP_SYS(ioctl), 1, ARG32(1, denied_ioctls[i]));
	/* A file lease needs only a descriptor, read-only will do, of a file
	 * the caller owns (a root caller owns /usr and /etc): while it is
	 * held, every other open of the file (a write open for a read lease,
	 * any open for a write lease), a host process's too, waits for the
	 * holder, up to lease-break-time (45 s) each.  Landlock does not see
	 * it.  fcntl's cmd is an unsigned int: the low 32 bits are compared. */
	RULE(ctx, DENY, SCMP_SYS(fcntl), 1, ARG32(1, F_SETLEASE));
	if ((r = add_read_watch_rules(ctx)) < 0 || (r = add_page_cache_rules(ctx)) < 0 ||
	    (r = add_beyond_view_rules(ctx)) < 0 || (r = add_futex_rules(ctx)) < 0)
		return r;
	/* personality(2) is not filtered: its flags change only the
	 * command's own processes, READ_IMPLIES_EXEC does not lift a noexec
	 * mount, and MMAP_PAGE_ZERO is still bound by vm.mmap_min_addr. */
	return 0;
}

/* Refuse socket(family, type other than SOCK_STREAM, ...), or socketpair
 * (syscall nr). */
static int deny_nonstream(scmp_filter_ctx ctx, int nr, int family)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(non_stream_types); i++)
		RULE(ctx, DENY, nr, 2, ARG32(0, family),
		     ARGMASK(1, non_stream_types[i].mask, non_stream_types[i].value));
	return 0;
}

static int add_unix_rules(scmp_filter_ctx ctx)
{
	/* Every AF_UNIX socket(): connecting to a socket outside the view is
	 * impossible, but abstract sockets and those inside grants are not. */
	RULE(ctx, DENY, SCMP_SYS(socket), 1, ARG32(0, AF_UNIX));
	/* socketpair: a stream pair is a pipe that reaches nothing else, so it
	 * stays allowed (shells, Python's subprocess, test runners use it).
	 * A datagram socket of a pair can still sendto() any address, and
	 * seqpacket is refused with it to keep the rule "streams only". */
	return deny_nonstream(ctx, SCMP_SYS(socketpair), AF_UNIX);
}

/*
 * --allow-network PORTS: Landlock rules police TCP bind and connect on
 * AF_INET/AF_INET6 stream sockets only.  Everything that moves data
 * another way is refused here.
 */
static int add_port_rules(scmp_filter_ctx ctx)
{
	static const int inet[] = { AF_INET, AF_INET6 };
	int sock = SCMP_SYS(socket);

	/* Families: only AF_INET, AF_INET6 and AF_UNIX (the latter under its
	 * own rule).  AF_NETLINK is refused too: it reaches no other host, but
	 * in the host's namespace sock_diag lists every connection of the
	 * machine; glibc's getaddrinfo(AI_ADDRCONFIG) falls back without it. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(other_families); i++)
		RULE(ctx, DENY, sock, 1, ARGMASK(0, other_families[i].mask, other_families[i].value));
	RULE(ctx, DENY, sock, 1, SCMP_A0(SCMP_CMP_GE, SC_FAMILY_LIMIT));
	/* The same families through socketpair(): TIPC implements it (its
	 * connectionless pair can sendto() any TIPC address of the host's
	 * namespace), and a future family may too.  AF_UNIX pairs are under
	 * the unix rules; AF_INET/AF_INET6 have no socketpair. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(other_families); i++)
		RULE(ctx, DENY, SCMP_SYS(socketpair), 1,
		     ARGMASK(0, other_families[i].mask, other_families[i].value));
	RULE(ctx, DENY, SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_GE, SC_FAMILY_LIMIT));

	for (size_t i = 0; i < SBX_ARRAY_LEN(inet); i++) {
		int r = deny_nonstream(ctx, sock, inet[i]);
		if (r < 0)
			return r;
		/* Protocol 0 or IPPROTO_TCP only: not MPTCP (262), SCTP's
		 * one-to-one stream sockets (132) or IPPROTO_SMC (256). */
		for (size_t j = 0; j < SBX_ARRAY_LEN(non_tcp_protocols); j++)
			RULE(ctx, DENY, sock, 2, ARG32(0, inet[i]),
			     ARGMASK(2, non_tcp_protocols[j].mask, non_tcp_protocols[j].value));
		RULE(ctx, DENY, sock, 2, ARG32(0, inet[i]), SCMP_A2(SCMP_CMP_GE, IPPROTO_TCP + 1));
	}

	/* TCP_ULP swaps the socket's protocol ops (kTLS, espintcp);
	 * TCP_FASTOPEN_CONNECT and MSG_FASTOPEN send data in the SYN, a
	 * connect path the port rules were not written against. */
	RULE(ctx, DENY, SCMP_SYS(setsockopt), 2, ARG32(1, SOL_TCP), ARG32(2, TCP_ULP));
	RULE(ctx, DENY, SCMP_SYS(setsockopt), 2, ARG32(1, SOL_TCP), ARG32(2, TCP_FASTOPEN_CONNECT));
	/* A SO_REUSEPORT group on a listed port may be a host listener's of
	 * the same user, which the command can join: a program attached to
	 * the group picks which socket gets each connection (a classic one
	 * needs no privilege), so the command would take every connection
	 * rather than the hash's share, and the program stays on the host's
	 * group after the run; detaching takes the host's own away. */
	RULE(ctx, DENY, SCMP_SYS(setsockopt), 2, ARG32(1, SOL_SOCKET), ARG32(2, SO_ATTACH_REUSEPORT_CBPF));
	RULE(ctx, DENY, SCMP_SYS(setsockopt), 2, ARG32(1, SOL_SOCKET), ARG32(2, SO_ATTACH_REUSEPORT_EBPF));
	RULE(ctx, DENY, SCMP_SYS(setsockopt), 2, ARG32(1, SOL_SOCKET), ARG32(2, SO_DETACH_REUSEPORT_BPF));
	RULE(ctx, DENY, SCMP_SYS(sendto), 1, ARGBITS(3, MSG_FASTOPEN));
	RULE(ctx, DENY, SCMP_SYS(sendmsg), 1, ARGBITS(2, MSG_FASTOPEN));
	RULE(ctx, DENY, SCMP_SYS(sendmmsg), 1, ARGBITS(3, MSG_FASTOPEN));
	/* listen() on a socket never bound binds it to an ephemeral port
	 * inside the kernel, where Landlock's bind rule does not look: the
	 * init answers each listen() instead (helper.c, serve_listen), and
	 * refuses a socket with no port of its own. */
	RULE(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0);
	return 0;
}

/*
 * No network: the namespace is empty, so only loopback is reached through
 * IPv4 and IPv6, and netlink sees that namespace only.  Any other family
 * is kernel code that needs no network namespace to be reached: vsock
 * talks to the hypervisor's host and local vsock listeners, TIPC, RDS,
 * CAN, AF_ALG and the rest are large, rarely used and each has had its
 * local privilege escalation; on a kernel with loadable modules socket()
 * of one even loads its module.  Refused in socket() and socketpair()
 * alike (TIPC implements socketpair); AF_UNIX is under its own rules.
 */
static int add_offline_families(scmp_filter_ctx ctx)
{
	static const int nrs[] = { SCMP_SYS(socket), SCMP_SYS(socketpair) };
	for (size_t n = 0; n < SBX_ARRAY_LEN(nrs); n++) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(other_families_offline); i++)
			RULE(ctx, DENY, nrs[n], 1,
			     ARGMASK(0, other_families_offline[i].mask, other_families_offline[i].value));
		RULE(ctx, DENY, nrs[n], 1, SCMP_A0(SCMP_CMP_GE, SC_FAMILY_LIMIT));
	}
	static const int inet[] = { AF_INET, AF_INET6 };
	for (size_t f = 0; f < SBX_ARRAY_LEN(inet); f++) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(other_ip_protocols_offline); i++)
			RULE(ctx, DENY, SCMP_SYS(socket), 2, ARG32(0, inet[f]),
			     ARGMASK(2, other_ip_protocols_offline[i].mask, other_ip_protocols_offline[i].value));
		RULE(ctx, DENY, SCMP_SYS(socket), 2, ARG32(0, inet[f]), SCMP_A2(SCMP_CMP_GE, SC_IP_PROTOCOL_LIMIT));
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(other_netlink_protocols_offline); i++)
		RULE(ctx, DENY, SCMP_SYS(socket), 2, ARG32(0, AF_NETLINK),
		     ARGMASK(2, other_netlink_protocols_offline[i].mask, other_netlink_protocols_offline[i].value));
	RULE(ctx, DENY, SCMP_SYS(socket), 2, ARG32(0, AF_NETLINK), SCMP_A2(SCMP_CMP_GE, SC_NETLINK_PROTOCOL_LIMIT));
	return 0;
}

/*
 * The command's core limit stays one byte (helper.c says why: a host
 * whose core_pattern is a pipe runs its helper, as root and outside
 * every namespace, for a crash whose limit is 0, and skips only a limit
 * of exactly 1).  A command lowering its own limit to 0 would undo that,
 * and programs do lower it (ssh-agent and gpg-agent set 0 at start, and
 * exit when they cannot): setting RLIMIT_CORE returns 0 and does
 * nothing, as a limit already at 0 would.  prlimit64 asked for the old
 * value too is refused (EPERM, what raising a hard limit answers), since
 * a 0 would leave the old value unwritten.  Reading it stays allowed.
 */
static int add_core_rules(scmp_filter_ctx ctx)
{
	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(setrlimit), 1, ARG32(0, RLIMIT_CORE));
	RULE(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(prlimit64), 3, ARG32(1, RLIMIT_CORE), SCMP_A2(SCMP_CMP_NE, 0),
	     SCMP_A3(SCMP_CMP_EQ, 0));
	RULE(ctx, DENY, SCMP_SYS(prlimit64), 3, ARG32(1, RLIMIT_CORE), SCMP_A2(SCMP_CMP_NE, 0),
	     SCMP_A3(SCMP_CMP_NE, 0));
	return 0;
}

static int build_rules(const struct policy *p, scmp_filter_ctx ctx)
{
	int r;

	/* A foreign ABI (i386 via int $0x80, AArch32) and, on x86_64, x32
	 * (numbers with bit 30, same audit arch): libseccomp compiles only the
	 * native arch, sends every other one to the bad-arch action, and
	 * checks the x32 bit on x86_64 itself. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0)
		return r;
	/* A binary tree over syscall numbers: allowed syscalls, the common
	 * case, then pass about log2(n) comparisons instead of all of them. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
		return r;
	if ((r = add_denylist(ctx)) < 0)
		return r;
	if (!p->allow_unix && (r = add_unix_rules(ctx)) < 0)
		return r;
	/* The init's resource limits: prlimit64 on pid 1 with a new value
	 * (reading them stays allowed).  Nothing the init holds is loosened
	 * by it, but a low open-files or CPU limit would stop the init
	 * answering, or have the kernel kill it mid-run. */
	RULE(ctx, DENY, SCMP_SYS(prlimit64), 2, ARG32(0, 1), SCMP_A2(SCMP_CMP_NE, 0));
	if ((r = add_core_rules(ctx)) < 0)
		return r;
	if (p->net == POL_NET_NONE) {
		if ((r = add_offline_families(ctx)) < 0)
			return r;
	} else if (p->net == POL_NET_PORTS) {
		if ((r = add_port_rules(ctx)) < 0)
			return r;
	}
	return 0;
}

/* libseccomp opened and an empty allow-all context: 0 and *out, or -errno. */
static int new_ctx(scmp_filter_ctx *out)
{
	char *err = NULL;
	if (dl_load(&sc_lib, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		return -ELIBACC;
	}
	*out = seccomp_init(SCMP_ACT_ALLOW);
	return *out ? 0 : -ENOMEM;
}

int seccomp_filter_build(const struct policy *p, scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	int r = new_ctx(&ctx);
	if (r < 0)
		return r;
	r = build_rules(p, ctx);
	if (r < 0) {
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}

int seccomp_preload(char **err)
{
	return dl_load(&sc_lib, err) < 0 ? -1 : 0;
}

int seccomp_sysv_build(scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	int r = new_ctx(&ctx);
	if (r < 0)
		return r;
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSPC), SCMP_SYS(shmget), 0)) < 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSPC), SCMP_SYS(msgget), 0)) < 0 ||
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSPC), SCMP_SYS(semget), 0)) < 0) {
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}

/* Builds one of the small second filters and loads it. */
static int load_built(int (*build)(scmp_filter_ctx *))
{
	scmp_filter_ctx ctx;
	int r = build(&ctx);
	if (r < 0)
		return r;
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

int seccomp_sysv_install(void)
{
	return load_built(seccomp_sysv_build);
}

int seccomp_async_build(scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx;
	int r = new_ctx(&ctx);
	if (r < 0)
		return r;
	/* fcntl's cmd and ioctl's request are unsigned ints: the low 32 bits
	 * are compared.  setfl() reads its flags as an unsigned int too. */
	if ((r = seccomp_rule_add(ctx, DENY, SCMP_SYS(fcntl), 2, ARG32(1, F_SETFL), ARGBITS(2, O_ASYNC))) < 0 ||
	    (r = seccomp_rule_add(ctx, DENY, SCMP_SYS(ioctl), 1, ARG32(1, FIOASYNC))) < 0) {
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}

int seccomp_async_install(void)
{
	return load_built(seccomp_async_build);
}

int seccomp_filter_install(const struct policy *p)
{
	struct seccomp_bpf *bpf = xmalloc(sizeof(*bpf));
	int r = seccomp_filter_compile(p, SBX_SYSCALL_NEWEST, bpf);
	/* no_new_privs first, as seccomp_load does by default: without
	 * CAP_SYS_ADMIN the kernel takes no filter otherwise */
	if (r == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -errno;
	if (r == 0)
		r = seccomp_filter_load_bpf(bpf, NULL);
	free(bpf);
	return r;
}

/* Read fd to end of file into buf (at most cap bytes); the byte count, or
 * -errno (-EINVAL when there is more than cap). */
static ssize_t read_to_eof(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	for (;;) {
		char extra;
		/* One byte past the cap tells an oversized input from a full one. */
		ssize_t r = n < cap ? read(fd, buf + n, cap - n) : read(fd, &extra, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return (ssize_t)n;
		if (n == cap)
			return -EINVAL;
		n += (size_t)r;
	}
}

/*
 * What libseccomp cannot say: "every number above this one".  It matches
 * syscalls one number at a time (libseccomp issue 286; runc prepends a
 * stub of its own for the same reason), so the denylist it compiles lets
 * through any syscall a later kernel adds.  These six instructions run
 * ahead of its program:
 *   - a foreign arch, and x32's numbers (bit 30) on x86_64, go on to that
 *     program, which kills them;
 *   - a native number above newest returns ENOSYS, what a kernel without
 *     the syscall answers, so libc and programs take their fallback;
 *   - everything else goes on to the program, which loads what it
 *     compares itself.
 */
#define STUB_LEN 6
#define STUB_X32_BIT 0x40000000U

static void enosys_stub(uint32_t arch, uint32_t newest, struct sock_filter *out)
{
	const struct sock_filter stub[STUB_LEN] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, STUB_X32_BIT, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, newest, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	memcpy(out, stub, sizeof(stub));
}

/* What seccomp_export_bpf may take at its peak, four times over: for the
 * default policy it crashed with 64 KiB of room left and never with 128
 * (tool bash swept from ulimit -v 3320 to 6000 KiB by 8 or 16). */
#define EXPORT_ROOM (512 << 10)

/* 0 when n bytes of address space can still be mapped, else -ENOMEM.
 * libseccomp 2.5's seccomp_export_bpf does not survive an allocation
 * that fails: it follows the NULL (SIGSEGV, seen under ulimit -v) instead
 * of returning an error, so the room is checked before it runs. */
static int export_room(size_t n)
{
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	munmap(m, n);
	return 0;
}

int seccomp_filter_compile(const struct policy *p, uint32_t newest, struct seccomp_bpf *out)
{
	const size_t insn = sizeof(struct sock_filter);
	scmp_filter_ctx ctx;
	int tmp = -1, r;

	if ((r = seccomp_filter_build(p, &ctx)) < 0)
		return r;
	tmp = memfd_create("sandbx-seccomp", MFD_CLOEXEC);
	if (tmp < 0) {
		r = -errno;
		goto out;
	}
	if ((r = export_room(EXPORT_ROOM)) < 0 || (r = seccomp_export_bpf(ctx, tmp)) < 0)
		goto out;
	if (lseek(tmp, 0, SEEK_SET) < 0) {
		r = -errno;
		goto out;
	}
	ssize_t n = read_to_eof(tmp, (char *)(out->insns + STUB_LEN), sizeof(out->insns) - STUB_LEN * insn);
	if (n < 0) {
		r = (int)n;
		goto out;
	}
	if (n == 0 || (size_t)n % insn != 0) {
		r = -EINVAL;
		goto out;
	}
	enosys_stub(seccomp_arch_native(), newest, out->insns);
	out->len = (unsigned short)(STUB_LEN + (size_t)n / insn);
	r = 0;
out:
	if (tmp >= 0)
		close(tmp);
	seccomp_release(ctx);
	return r;
}

/*
 * The stream is a 32-bit instruction count, then the instructions.  The
 * program is compiled whole first and written in one go, so a failure
 * half-way leaves a count the reader finds unmatched rather than a
 * shorter program that might still load.  A compile that failed writes a
 * count of 0 and its errno, so the refusal can say why (ENOMEM: which
 * limit to raise) instead of "Invalid argument".
 */
int seccomp_filter_write(int fd, int r, const struct seccomp_bpf *bpf)
{
	if (r == 0) {
		uint32_t count = bpf->len;
		return write_all_nosignal(fd, &count, sizeof(count)) < 0 ||
				       write_all_nosignal(fd, bpf->insns, count * sizeof(struct sock_filter)) < 0
			       ? -errno
			       : 0;
	}
	uint32_t why[2] = { 0, r < 0 && r > -4096 ? (uint32_t)-r : EINVAL };
	(void)write_all_nosignal(fd, why, sizeof(why));
	return r;
}

int seccomp_filter_export(const struct policy *p, int fd)
{
	struct seccomp_bpf *bpf = xmalloc(sizeof(*bpf));
	int r = seccomp_filter_compile(p, SBX_SYSCALL_NEWEST, bpf);
	r = seccomp_filter_write(fd, r, bpf);
	free(bpf);
	return r;
}

const char *seccomp_lib_path(void)
{
	Dl_info i;
	if (sc_lib.state != 1 || !dladdr((void *)sc.init, &i) || !i.dli_fname || i.dli_fname[0] != '/')
		return NULL;
	return i.dli_fname;
}

int seccomp_filter_read(int fd, struct seccomp_bpf *out)
{
	uint32_t count;
	size_t got = 0;

	while (got < sizeof(count)) {
		ssize_t r = read(fd, (char *)&count + got, sizeof(count) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EINVAL;
		got += (size_t)r;
	}
	ssize_t n = read_to_eof(fd, (char *)out->insns, sizeof(out->insns));
	if (n < 0)
		return (int)n;
	if (count == 0) {
		/* the writer's errno, when it says one (seccomp_filter_export) */
		uint32_t e = 0;
		if (n == sizeof(e))
			memcpy(&e, out->insns, sizeof(e));
		return e > 0 && e < 4096 ? -(int)e : -EINVAL;
	}
	if (count > SECCOMP_BPF_MAX_INSNS || (size_t)n != count * sizeof(struct sock_filter))
		return -EINVAL;
	out->len = (unsigned short)count;
	return 0;
}

int seccomp_filter_load_bpf(const struct seccomp_bpf *bpf, int *listener)
{
	struct sock_fprog prog = {
		.len = bpf->len,
		.filter = (struct sock_filter *)bpf->insns,
	};
	if (bpf->len == 0)
		return -EINVAL;
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
	if (r < 0)
		return -errno;
	if (listener)
		*listener = (int)r;
	return 0;
}
