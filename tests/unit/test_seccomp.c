/*
 * test_seccomp.c — the syscall filter, evaluated without a kernel: each
 * policy's filter is built, exported as classic BPF (seccomp_export_bpf)
 * and run by the test-only interpreter (bpf_interp.h) on struct
 * seccomp_data inputs.  Syscall numbers come from <sys/syscall.h> and
 * compat.h, independently of the filter's own table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <linux/vm_sockets.h>

#include "bpf_interp.h"
#include "sandbox/policy.h"
#include "sandbox/seccomp.h"
#include "util/compat.h"

#define R_ALLOW SECCOMP_RET_ALLOW
#define R_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define R_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define R_ENOSPC (SECCOMP_RET_ERRNO | ENOSPC)
#define R_ENOMEM (SECCOMP_RET_ERRNO | ENOMEM)
#define R_EINVAL (SECCOMP_RET_ERRNO | EINVAL)
#define R_EOPNOTSUPP (SECCOMP_RET_ERRNO | EOPNOTSUPP)
#define R_ZERO SECCOMP_RET_ERRNO	/* returns 0, the call not run */
#define R_KILL SECCOMP_RET_KILL_PROCESS
#define X32_BIT 0x40000000
#define HIGH_GARBAGE 0xdead000100000000ULL

enum { F_DEFAULT, F_UNIX, F_PORTS, F_PORTS_UNIX, F_ANY, F_NONE_UNIX, F_MEMORY, F__COUNT };

static struct bpf_prog progs[F__COUNT];

static void export_ctx(scmp_filter_ctx ctx, struct bpf_prog *out)
{
	int fd = memfd_create("seccomp-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	seccomp_release(ctx);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(bpf_prog_from_fd(fd, out), 0);
	close(fd);
}

/* p's whole program, as the command stage loads it, with the ENOSYS
 * prefix cut at newest. */
static void compile_upto(struct policy *p, uint32_t newest, struct bpf_prog *out)
{
	static struct seccomp_bpf bpf;
	assert_int_equal(seccomp_filter_compile(p, newest, &bpf), 0);
	out->len = bpf.len;
	out->insns = malloc(bpf.len * sizeof(struct sock_filter));
	assert_non_null(out->insns);
	memcpy(out->insns, bpf.insns, bpf.len * sizeof(struct sock_filter));
}

static void compile(struct policy *p, struct bpf_prog *out)
{
	compile_upto(p, SBX_SYSCALL_NEWEST, out);
}

static int setup(void **state)
{
	static const struct { enum policy_net net; int unix_ok; uint64_t memory; } kinds[F__COUNT] = {
		[F_DEFAULT] = { POL_NET_NONE, 0 },
		[F_UNIX] = { POL_NET_NONE, 1 },
		[F_PORTS] = { POL_NET_PORTS, 0 },
		[F_PORTS_UNIX] = { POL_NET_PORTS, 1 },
		[F_ANY] = { POL_NET_ANY, 0 },
		[F_NONE_UNIX] = { POL_NET_NONE, 1 },
		[F_MEMORY] = { POL_NET_NONE, 0, 256ULL << 20 },
	};
	for (int i = 0; i < F__COUNT; i++) {
		struct policy p;
		policy_init(&p);
		p.net = kinds[i].net;
		p.allow_unix = kinds[i].unix_ok;
		p.limits[LIM_MEMORY] = kinds[i].memory;
		if (p.net == POL_NET_PORTS) {
			p.ports[0] = 443;
			p.nports = 1;
		}
		compile(&p, &progs[i]);
		policy_release(&p);
	}
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < F__COUNT; i++)
		bpf_prog_free(&progs[i]);
	return 0;
}

static uint32_t run_arch(int f, uint32_t arch, int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2, a3 } };
	return bpf_run(&progs[f], &d);
}

static uint32_t run(int f, int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return run_arch(f, seccomp_arch_native(), nr, a0, a1, a2, a3);
}

/* The same with the last two arguments (preadv2's flags are the sixth). */
static uint32_t run6(int f, int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct seccomp_data d = { .nr = nr, .arch = seccomp_arch_native(), .args = { a0, a1, a2, a3, a4, a5 } };
	return bpf_run(&progs[f], &d);
}

#define ASSERT_RET(got, want, what) \
	do { \
		uint32_t g_ = (got); \
		if (g_ != (uint32_t)(want)) \
			fail_msg("%s: got 0x%08x, want 0x%08x", (what), g_, (uint32_t)(want)); \
	} while (0)

/* The interpreter itself, on hand-written programs. */
static void test_bpf_interp_basics(void **state)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x40000000, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 7),
		BPF_STMT(BPF_RET | BPF_A, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct bpf_prog p = { insns, SBX_ARRAY_LEN(insns) };
	struct seccomp_data d = { .nr = 5 };
	assert_int_equal(bpf_run(&p, &d), 5);
	d.nr = 100;
	assert_int_equal(bpf_run(&p, &d), SECCOMP_RET_ERRNO | 7);
	d.nr = 0x40000001;
	assert_int_equal(bpf_run(&p, &d), SECCOMP_RET_KILL_PROCESS);

	/* A load past struct seccomp_data and running off the end are bad. */
	struct sock_filter bad[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, sizeof(struct seccomp_data)) };
	struct bpf_prog pb = { bad, 1 };
	assert_int_equal(bpf_run(&pb, &d), BPF_INTERP_BAD);
	struct sock_filter off[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
	struct bpf_prog po = { off, 1 };
	assert_int_equal(bpf_run(&po, &d), BPF_INTERP_BAD);
}

static const struct { const char *name; int nr; } denied[] = {
	{ "ptrace", SYS_ptrace },
	{ "process_vm_readv", SYS_process_vm_readv },
	{ "process_vm_writev", SYS_process_vm_writev },
	{ "pidfd_open", SYS_pidfd_open },
	{ "pidfd_getfd", SYS_pidfd_getfd },
	{ "mount", SYS_mount },
	{ "umount2", SYS_umount2 },
	{ "pivot_root", SYS_pivot_root },
	{ "chroot", SYS_chroot },
	{ "open_tree", SYS_open_tree },
	{ "open_tree_attr", __NR_open_tree_attr },
	{ "move_mount", SYS_move_mount },
	{ "fsopen", SYS_fsopen },
	{ "fsconfig", SYS_fsconfig },
	{ "fsmount", SYS_fsmount },
	{ "fspick", SYS_fspick },
	{ "mount_setattr", __NR_mount_setattr },
	{ "listmount", __NR_listmount },
	{ "statmount", __NR_statmount },
	{ "setns", SYS_setns },
	{ "unshare", SYS_unshare },
	{ "name_to_handle_at", SYS_name_to_handle_at },
	{ "open_by_handle_at", SYS_open_by_handle_at },
	{ "init_module", SYS_init_module },
	{ "finit_module", SYS_finit_module },
	{ "delete_module", SYS_delete_module },
	{ "kexec_load", SYS_kexec_load },
	{ "kexec_file_load", SYS_kexec_file_load },
	{ "bpf", SYS_bpf },
	{ "perf_event_open", SYS_perf_event_open },
	{ "lookup_dcookie", SYS_lookup_dcookie },
#ifdef SYS_uselib
	{ "uselib", SYS_uselib },
#endif
#ifdef SYS__sysctl
	{ "_sysctl", SYS__sysctl },
#endif
	{ "syslog", SYS_syslog },
	{ "add_key", SYS_add_key },
	{ "request_key", SYS_request_key },
	{ "keyctl", SYS_keyctl },
	{ "userfaultfd", SYS_userfaultfd },
	{ "io_uring_setup", SYS_io_uring_setup },
	{ "io_uring_enter", SYS_io_uring_enter },
	{ "io_uring_register", SYS_io_uring_register },
	{ "memfd_create", SYS_memfd_create },
	{ "memfd_secret", SYS_memfd_secret },
	{ "reboot", SYS_reboot },
	{ "swapon", SYS_swapon },
	{ "swapoff", SYS_swapoff },
	{ "settimeofday", SYS_settimeofday },
	{ "clock_settime", SYS_clock_settime },
	{ "clock_adjtime", SYS_clock_adjtime },
	{ "adjtimex", SYS_adjtimex },
	{ "acct", SYS_acct },
	{ "quotactl", SYS_quotactl },
	{ "quotactl_fd", SYS_quotactl_fd },
	{ "vhangup", SYS_vhangup },
#ifdef SYS_ioperm
	{ "ioperm", SYS_ioperm },
	{ "iopl", SYS_iopl },
#endif
#ifdef SYS_modify_ldt
	{ "modify_ldt", SYS_modify_ldt },
#endif
};

static void test_seccomp_denylist_eperm(void **state)
{
	char what[96];
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(denied); i++) {
			snprintf(what, sizeof(what), "%s (filter %d)", denied[i].name, f);
			ASSERT_RET(run(f, denied[i].nr, 0, 0, 0, 0), R_EPERM, what);
		}
}

/* No syscall beyond the table is refused: with all-zero arguments every
 * number up to past the current table answers as the table says, and
 * every number above the newest reviewed ENOSYS. */
static void test_seccomp_nothing_else_denied(void **state)
{
	const int fs[] = { F_DEFAULT, F_UNIX, F_ANY };
	char what[96];
	for (size_t k = 0; k < SBX_ARRAY_LEN(fs); k++)
		for (int nr = 0; nr < 1024; nr++) {
			uint32_t want = R_ALLOW;
			for (size_t i = 0; i < SBX_ARRAY_LEN(denied); i++)
				if (denied[i].nr == nr)
					want = R_EPERM;
			if (nr == __NR_clone3 || nr == SYS_openat2 || nr == SYS_io_setup ||
			    nr == SYS_process_madvise || nr == __NR_cachestat || nr == __NR_futex_requeue)
				want = R_ENOSYS;
#ifdef SYS_ustat
			if (nr == SYS_ustat)
				want = R_ENOSYS;	/* test_seccomp_beyond_view */
#endif
			if (nr == SYS_sync)
				want = R_ZERO;
			if (nr > SBX_SYSCALL_NEWEST)
				want = R_ENOSYS;	/* test_seccomp_newer_enosys */
			/* family 0 (AF_UNSPEC) is no family of an offline sandbox */
			if ((nr == SYS_socket || nr == SYS_socketpair) && fs[k] != F_ANY)
				want = R_EPERM;
			snprintf(what, sizeof(what), "syscall %d (filter %d)", nr, fs[k]);
			ASSERT_RET(run(fs[k], nr, 0, 0, 0, 0), want, what);
		}
}

/*
 * The prefix: every native number above SBX_SYSCALL_NEWEST answers ENOSYS
 * under every policy, up to the x32 bit; the newest itself and x32's and
 * foreign arches' numbers go on to libseccomp's program, which allows the
 * first and kills the others.  A lower cut moves the boundary with it.
 */
static void test_seccomp_newer_enosys(void **state)
{
	char what[96];
	const uint32_t above[] = { SBX_SYSCALL_NEWEST + 1, SBX_SYSCALL_NEWEST + 2, 1000, 65535, 0x10000000,
				   X32_BIT - 1 };
	for (int f = 0; f < F__COUNT; f++) {
		snprintf(what, sizeof(what), "the newest reviewed (filter %d)", f);
		ASSERT_RET(run(f, SBX_SYSCALL_NEWEST, 0, 0, 0, 0), R_ALLOW, what);
		for (size_t i = 0; i < SBX_ARRAY_LEN(above); i++) {
			snprintf(what, sizeof(what), "syscall %u (filter %d)", above[i], f);
			ASSERT_RET(run(f, (int)above[i], 0, 0, 0, 0), R_ENOSYS, what);
		}
	}
#ifdef __x86_64__
	/* x32's read and x32 numbers above the cut: killed, as before */
	ASSERT_RET(run(F_DEFAULT, X32_BIT | 0, 0, 0, 0, 0), R_KILL, "x32 read");
	ASSERT_RET(run(F_DEFAULT, X32_BIT | 600, 0, 0, 0, 0), R_KILL, "x32 600");
	/* i386 through int $0x80, a number above the cut: killed, not ENOSYS */
	ASSERT_RET(run_arch(F_DEFAULT, AUDIT_ARCH_I386, 600, 0, 0, 0, 0), R_KILL, "i386 600");
#endif
	struct policy p;
	struct bpf_prog low;
	policy_init(&p);
	compile_upto(&p, 300, &low);
	policy_release(&p);
	struct seccomp_data d = { .nr = 300, .arch = seccomp_arch_native() };
	ASSERT_RET(bpf_run(&low, &d), R_ALLOW, "300 under a cut at 300");
	d.nr = 301;
	ASSERT_RET(bpf_run(&low, &d), R_ENOSYS, "301 under a cut at 300");
	d.nr = (int)SYS_unshare;	/* still denied below the cut */
	ASSERT_RET(bpf_run(&low, &d), R_EPERM, "unshare under a cut at 300");
	bpf_prog_free(&low);
}

/*
 * The same prefix loaded into a real kernel (in a child): the newest
 * syscall this kernel implements, at most SBX_SYSCALL_NEWEST, answers its
 * own error without a filter and under the real cut, and ENOSYS under a
 * cut one below it.  Calls are made with fd -1 and NULL pointers (the
 * syscalls probed, mseal to file_setattr, only fail on those).
 */
static long try_nr(long nr)
{
	errno = 0;
	long r = syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L);
	return r < 0 ? errno : 0;
}

static int child_answer(uint32_t cut, long nr)
{
	static struct seccomp_bpf bpf;
	struct policy p;
	policy_init(&p);
	assert_int_equal(seccomp_filter_compile(&p, cut, &bpf), 0);
	policy_release(&p);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_filter_load_bpf(&bpf, NULL) < 0)
			_exit(255);
		_exit((int)try_nr(nr));
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 255);
	return WEXITSTATUS(st);
}

static void test_seccomp_newer_enosys_kernel(void **state)
{
	long nr;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		skip();
	for (nr = SBX_SYSCALL_NEWEST; nr >= __NR_mseal; nr--)
		if (try_nr(nr) != ENOSYS)
			break;
	if (nr < __NR_mseal) {
		print_message("no syscall from mseal (6.10) up answers here: nothing to cut\n");
		skip();
	}
	int own = (int)try_nr(nr);
	print_message("syscall %ld answers %s here\n", nr, strerror(own));
	assert_int_equal(child_answer(SBX_SYSCALL_NEWEST, nr), own);
	assert_int_equal(child_answer((uint32_t)nr - 1, nr), ENOSYS);
	assert_int_equal(child_answer((uint32_t)nr - 1, nr - 1), (int)try_nr(nr - 1));
}

static void test_seccomp_ordinary_allowed(void **state)
{
	static const struct { const char *name; int nr; } ok[] = {
		{ "read", SYS_read }, { "write", SYS_write }, { "openat", SYS_openat },
#ifdef SYS_open
		{ "open", SYS_open },
#endif
		{ "close", SYS_close }, { "execve", SYS_execve }, { "execveat", SYS_execveat },
		{ "mmap", SYS_mmap }, { "mprotect", SYS_mprotect }, { "futex", SYS_futex },
		{ "landlock_create_ruleset", SYS_landlock_create_ruleset },
		{ "landlock_add_rule", SYS_landlock_add_rule },
		{ "landlock_restrict_self", SYS_landlock_restrict_self },
		{ "seccomp", SYS_seccomp }, { "prctl", SYS_prctl }, { "wait4", SYS_wait4 },
		{ "mseal", __NR_mseal }, { "close_range", __NR_close_range },
		{ "getpid", SYS_getpid }, { "exit_group", SYS_exit_group },
		{ "socket AF_INET", SYS_socket },
	};
	char what[96];
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(ok); i++) {
			snprintf(what, sizeof(what), "%s (filter %d)", ok[i].name, f);
			/* a0 = 2 (AF_INET for socket, a fd for the others) */
			ASSERT_RET(run(f, ok[i].nr, 2, SOCK_STREAM, 0, 0), R_ALLOW, what);
		}
}

static const uint64_t clone_new[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, 0x80 /* CLONE_NEWTIME */,
};

static void test_seccomp_clone_namespaces(void **state)
{
	char what[96];
	uint64_t all = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(clone_new); i++) {
		all |= clone_new[i];
		snprintf(what, sizeof(what), "clone 0x%llx", (unsigned long long)clone_new[i]);
		ASSERT_RET(run(F_DEFAULT, SYS_clone, clone_new[i], 0, 0, 0), R_EPERM, what);
		ASSERT_RET(run(F_ANY, SYS_clone, clone_new[i] | SIGCHLD, 0, 0, 0), R_EPERM, what);
		ASSERT_RET(run(F_DEFAULT, SYS_clone, clone_new[i] | CLONE_VM | CLONE_VFORK | HIGH_GARBAGE, 0, 0, 0),
			   R_EPERM, what);
	}
	ASSERT_RET(run(F_DEFAULT, SYS_clone, all, 0, 0, 0), R_EPERM, "clone all CLONE_NEW*");
	ASSERT_RET(run(F_DEFAULT, SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0, 0, 0), R_EPERM,
		   "clone NEWUSER|NEWNS");
}

static void test_seccomp_clone_plain_allowed(void **state)
{
	/* glibc's pthread_create and fork, posix_spawn's vfork-like clone. */
	const uint64_t thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	ASSERT_RET(run(F_DEFAULT, SYS_clone, thread, 0, 0, 0), R_ALLOW, "thread clone");
	ASSERT_RET(run(F_DEFAULT, SYS_clone, CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0, 0),
		   R_ALLOW, "fork clone");
	ASSERT_RET(run(F_DEFAULT, SYS_clone, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0), R_ALLOW, "vfork clone");
	ASSERT_RET(run(F_PORTS, SYS_clone, CLONE_PIDFD | SIGCHLD, 0, 0, 0), R_ALLOW, "pidfd clone");
	ASSERT_RET(run(F_DEFAULT, SYS_fork, 0, 0, 0, 0), R_ALLOW, "fork");
}

static void test_seccomp_clone3_enosys(void **state)
{
	for (int f = 0; f < F__COUNT; f++)
		ASSERT_RET(run(f, __NR_clone3, 0, 88, 0, 0), R_ENOSYS, "clone3");
}

/* The huge page pool is the machine's: a MAP_HUGETLB mapping and a
 * SHM_HUGETLB segment answer ENOMEM, as an empty pool does, whatever else
 * their flags hold; other mappings and segments are untouched. */
static void test_seccomp_hugetlb_enomem(void **state)
{
	const uint64_t map = MAP_PRIVATE | MAP_ANONYMOUS;
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_mmap, 0, 2 << 20, PROT_READ, map | MAP_HUGETLB), R_ENOMEM, "MAP_HUGETLB");
		ASSERT_RET(run(f, SYS_mmap, 0, 2 << 20, PROT_READ, HIGH_GARBAGE | map | MAP_HUGETLB | (21U << 26)),
			   R_ENOMEM, "MAP_HUGETLB 2MB, high bits");
		ASSERT_RET(run(f, SYS_mmap, 0, 2 << 20, PROT_READ, map), R_ALLOW, "mmap");
		ASSERT_RET(run(f, SYS_mmap, 0, 2 << 20, PROT_READ, map | MAP_POPULATE | MAP_NORESERVE), R_ALLOW,
			   "mmap populate");
		ASSERT_RET(run(f, SYS_shmget, 0, 2 << 20, IPC_CREAT | SHM_HUGETLB | 0600, 0), R_ENOMEM, "SHM_HUGETLB");
		ASSERT_RET(run(f, SYS_shmget, 0, 4096, IPC_CREAT | 0600, 0), R_ALLOW, "shmget");
	}
}

/* Kernel same-page merging: MADV_MERGEABLE and PR_SET_MEMORY_MERGE answer
 * EINVAL, as without KSM, whatever the high bits; the other advice and
 * options are untouched. */
static void test_seccomp_ksm_einval(void **state)
{
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_madvise, 0x7ffd0000, 4096, MADV_MERGEABLE, 0), R_EINVAL, "MADV_MERGEABLE");
		ASSERT_RET(run(f, SYS_madvise, 0x7ffd0000, 4096, HIGH_GARBAGE | MADV_MERGEABLE, 0), R_EINVAL,
			   "MADV_MERGEABLE high bits");
		ASSERT_RET(run(f, SYS_madvise, 0x7ffd0000, 4096, MADV_UNMERGEABLE, 0), R_ALLOW, "MADV_UNMERGEABLE");
		ASSERT_RET(run(f, SYS_madvise, 0x7ffd0000, 4096, MADV_DONTNEED, 0), R_ALLOW, "MADV_DONTNEED");
		ASSERT_RET(run(f, SYS_prctl, PR_SET_MEMORY_MERGE, 1, 0, 0), R_EINVAL, "PR_SET_MEMORY_MERGE");
		ASSERT_RET(run(f, SYS_prctl, HIGH_GARBAGE | PR_SET_MEMORY_MERGE, 1, 0, 0), R_EINVAL,
			   "PR_SET_MEMORY_MERGE high bits");
		ASSERT_RET(run(f, SYS_prctl, PR_SET_MEMORY_MERGE + 1, 0, 0, 0), R_ALLOW, "PR_GET_MEMORY_MERGE");
		ASSERT_RET(run(f, SYS_prctl, PR_SET_NAME, 0x7ffd0000, 0, 0), R_ALLOW, "PR_SET_NAME");
	}
}

/*
 * The host's page cache: eviction advice (POSIX_FADV_DONTNEED,
 * MADV_PAGEOUT, MADV_COLD) returns 0 without running, whatever the high
 * bits; cachestat and process_madvise answer ENOSYS; RWF_NOWAIT in
 * preadv2's and pwritev2's flags EOPNOTSUPP.  The other advice and
 * flags are untouched.
 */
static void test_seccomp_page_cache(void **state)
{
	const uint64_t addr = 0x7ffd0000;
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_fadvise64, 3, 0, 0, POSIX_FADV_DONTNEED), R_ZERO, "FADV_DONTNEED");
		ASSERT_RET(run(f, SYS_fadvise64, 3, 4096, 1 << 20, HIGH_GARBAGE | POSIX_FADV_DONTNEED), R_ZERO,
			   "FADV_DONTNEED high bits");
		ASSERT_RET(run(f, SYS_fadvise64, 3, 0, 0, POSIX_FADV_WILLNEED), R_ALLOW, "FADV_WILLNEED");
		ASSERT_RET(run(f, SYS_fadvise64, 3, 0, 0, POSIX_FADV_SEQUENTIAL), R_ALLOW, "FADV_SEQUENTIAL");
		ASSERT_RET(run(f, SYS_fadvise64, 3, 0, 0, POSIX_FADV_NOREUSE), R_ALLOW, "FADV_NOREUSE");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, MADV_PAGEOUT, 0), R_ZERO, "MADV_PAGEOUT");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, HIGH_GARBAGE | MADV_PAGEOUT, 0), R_ZERO,
			   "MADV_PAGEOUT high bits");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, MADV_COLD, 0), R_ZERO, "MADV_COLD");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, MADV_WILLNEED, 0), R_ALLOW, "MADV_WILLNEED");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, MADV_DONTNEED, 0), R_ALLOW, "MADV_DONTNEED");
		ASSERT_RET(run(f, SYS_madvise, addr, 4096, MADV_FREE, 0), R_ALLOW, "MADV_FREE");
		ASSERT_RET(run(f, SYS_process_madvise, (uint64_t)-10001, addr, 1, MADV_PAGEOUT), R_ENOSYS,
			   "process_madvise");
		ASSERT_RET(run(f, SYS_process_madvise, 3, addr, 1, MADV_WILLNEED), R_ENOSYS, "process_madvise 3");
		ASSERT_RET(run(f, __NR_cachestat, 3, addr, addr, 0), R_ENOSYS, "cachestat");
		ASSERT_RET(run6(f, SYS_preadv2, 3, addr, 1, 0, 0, RWF_NOWAIT), R_EOPNOTSUPP, "preadv2 RWF_NOWAIT");
		ASSERT_RET(run6(f, SYS_preadv2, 3, addr, 1, 0, 0, HIGH_GARBAGE | RWF_NOWAIT | RWF_HIPRI),
			   R_EOPNOTSUPP, "preadv2 RWF_NOWAIT high bits");
		ASSERT_RET(run6(f, SYS_pwritev2, 3, addr, 1, 0, 0, RWF_NOWAIT | RWF_DSYNC), R_EOPNOTSUPP,
			   "pwritev2 RWF_NOWAIT");
		ASSERT_RET(run6(f, SYS_preadv2, 3, addr, 1, 0, 0, RWF_HIPRI), R_ALLOW, "preadv2 RWF_HIPRI");
		ASSERT_RET(run6(f, SYS_pwritev2, 3, addr, 1, 0, 0, RWF_DSYNC | RWF_APPEND), R_ALLOW, "pwritev2 DSYNC");
		/* RWF_NOWAIT's bit in another argument is no flag */
		ASSERT_RET(run6(f, SYS_preadv2, 3, addr, RWF_NOWAIT, RWF_NOWAIT, RWF_NOWAIT, 0), R_ALLOW,
			   "preadv2 8 elsewhere");
	}
}

/* Filesystems beyond the view: sync() writes back every one of the
 * machine's and does nothing here (0); ustat(dev) reports any mounted
 * filesystem's free space by device number and answers ENOSYS, whatever
 * the argument.  fsync, fdatasync, syncfs and sync_file_range, which
 * reach a file or a filesystem of the view, stay allowed. */
static void test_seccomp_beyond_view(void **state)
{
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_sync, 0, 0, 0, 0), R_ZERO, "sync");
		ASSERT_RET(run(f, SYS_sync, HIGH_GARBAGE, 1, 2, 3), R_ZERO, "sync with arguments");
#ifdef SYS_ustat
		ASSERT_RET(run(f, SYS_ustat, 0xfe00, 0x7ffd0000, 0, 0), R_ENOSYS, "ustat");
		ASSERT_RET(run(f, SYS_ustat, HIGH_GARBAGE | 0x16, 0x7ffd0000, 0, 0), R_ENOSYS, "ustat high bits");
#endif
		ASSERT_RET(run(f, SYS_syncfs, 3, 0, 0, 0), R_ALLOW, "syncfs");
		ASSERT_RET(run(f, SYS_fsync, 3, 0, 0, 0), R_ALLOW, "fsync");
		ASSERT_RET(run(f, SYS_fdatasync, 3, 0, 0, 0), R_ALLOW, "fdatasync");
		ASSERT_RET(run(f, SYS_sync_file_range, 3, 0, 0, 7), R_ALLOW, "sync_file_range");
		ASSERT_RET(run(f, SYS_statfs, 0x7ffd0000, 0x7ffd1000, 0, 0), R_ALLOW, "statfs");
	}
}

/* Native AIO's events are counted for the whole machine (fs.aio-max-nr):
 * io_setup answers ENOSYS under every policy, as a kernel without AIO
 * does; the calls on a context, which none can then have, stay allowed. */
static void test_seccomp_io_setup_enosys(void **state)
{
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_io_setup, 65536, 0x7ffd0000, 0, 0), R_ENOSYS, "io_setup");
		ASSERT_RET(run(f, SYS_io_setup, 0xffffffff00000001ULL, 0, 0, 0), R_ENOSYS, "io_setup high bits");
		ASSERT_RET(run(f, SYS_io_submit, 0, 1, 0x7ffd0000, 0), R_ALLOW, "io_submit");
		ASSERT_RET(run(f, SYS_io_destroy, 0, 0, 0, 0), R_ALLOW, "io_destroy");
	}
}

/* A file lease blocks other openers of the file, on the host too, for
 * lease-break-time: F_SETLEASE is denied on its low 32 bits; reading a
 * lease and the other commands stay allowed. */
static void test_seccomp_setlease(void **state)
{
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_fcntl, 3, F_SETLEASE, F_WRLCK, 0), R_EPERM, "F_SETLEASE");
		ASSERT_RET(run(f, SYS_fcntl, 3, HIGH_GARBAGE | F_SETLEASE, F_RDLCK, 0), R_EPERM,
			   "F_SETLEASE high bits");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_GETLEASE, 0, 0), R_ALLOW, "F_GETLEASE");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_SETFL, 0, 0), R_ALLOW, "F_SETFL");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_SETLK, 0, 0), R_ALLOW, "F_SETLK");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_DUPFD_CLOEXEC, 0, 0), R_ALLOW, "F_DUPFD_CLOEXEC");
	}
}

/* renameat2's RENAME_WHITEOUT makes a 0:0 character device with no
 * capability asked: refused on its bit alone (the flags are an unsigned
 * int, high garbage is the kernel's to drop); the other flags and plain
 * renames stay allowed.  mknod makes the same device unasked: every
 * device node is refused by its type. */
static void test_seccomp_rename_whiteout(void **state)
{
	const uint64_t a = 0x7ffd0000, b = 0x7ffd1000;
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b), R_ALLOW, "renameat2 no flags");
		ASSERT_RET(run6(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_WHITEOUT, 0), R_EPERM,
			   "RENAME_WHITEOUT");
		ASSERT_RET(run6(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, HIGH_GARBAGE | RENAME_WHITEOUT, 0),
			   R_EPERM, "RENAME_WHITEOUT high bits");
		ASSERT_RET(run6(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE | RENAME_WHITEOUT, 0),
			   R_EPERM, "RENAME_NOREPLACE|RENAME_WHITEOUT");
		ASSERT_RET(run6(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE, 0), R_ALLOW,
			   "RENAME_NOREPLACE");
		ASSERT_RET(run6(f, SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE, 0), R_ALLOW,
			   "RENAME_EXCHANGE");
		ASSERT_RET(run(f, SYS_renameat, AT_FDCWD, a, AT_FDCWD, b), R_ALLOW, "renameat");
		/* the same device by mknod: every character or block device
		 * refused on the type bits, FIFOs, sockets and files not */
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, S_IFCHR | 0600, 0), R_EPERM, "mknodat S_IFCHR 0:0");
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, HIGH_GARBAGE | S_IFCHR, 0), R_EPERM,
			   "mknodat S_IFCHR high bits");
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, S_IFBLK | 0600, 0x801), R_EPERM, "mknodat S_IFBLK");
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, S_IFIFO | 0600, 0), R_ALLOW, "mknodat S_IFIFO");
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, S_IFSOCK | 0600, 0), R_ALLOW, "mknodat S_IFSOCK");
		ASSERT_RET(run(f, SYS_mknodat, AT_FDCWD, a, S_IFREG | 0600, 0), R_ALLOW, "mknodat S_IFREG");
#ifdef SYS_mknod
		ASSERT_RET(run(f, SYS_mknod, a, S_IFCHR | 0600, 0, 0), R_EPERM, "mknod S_IFCHR 0:0");
		ASSERT_RET(run(f, SYS_mknod, a, S_IFBLK | 0600, 0x801, 0), R_EPERM, "mknod S_IFBLK");
		ASSERT_RET(run(f, SYS_mknod, a, S_IFIFO | 0600, 0, 0), R_ALLOW, "mknod S_IFIFO");
#endif
	}
}

/*
 * A shared futex requeue could move a host process's waiters, on a futex
 * in a file the command may only read, to one of the command's own: the
 * shared FUTEX_REQUEUE and FUTEX_CMP_REQUEUE are refused on the op's low
 * 32 bits, its clock bit ignored; private requeues, waits, wakes and the
 * rest stay allowed; futex_requeue, flags in a struct, answers ENOSYS.
 */
static void test_seccomp_futex_requeue(void **state)
{
	static const uint64_t shared[] = { FUTEX_REQUEUE, FUTEX_CMP_REQUEUE };
	static const uint64_t allowed[] = {
		FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET, FUTEX_WAKE_OP,
		FUTEX_REQUEUE_PRIVATE, FUTEX_CMP_REQUEUE_PRIVATE, FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE,
		FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_WAIT_REQUEUE_PI, FUTEX_CMP_REQUEUE_PI,
		FUTEX_REQUEUE_PRIVATE | FUTEX_CLOCK_REALTIME, HIGH_GARBAGE | FUTEX_CMP_REQUEUE_PRIVATE,
		0x1000 | FUTEX_REQUEUE,	/* no such op: the kernel's ENOSYS */
	};
	const uint64_t uaddr = 0x7ffd0000;
	char what[96];
	for (int f = 0; f < F__COUNT; f++) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(shared); i++) {
			snprintf(what, sizeof(what), "futex op %llu (filter %d)", (unsigned long long)shared[i], f);
			ASSERT_RET(run6(f, SYS_futex, uaddr, shared[i], 0, 1000, uaddr + 8, 0), R_EPERM, what);
			ASSERT_RET(run6(f, SYS_futex, uaddr, HIGH_GARBAGE | shared[i], 0, 1000, uaddr + 8, 0), R_EPERM,
				   what);
			ASSERT_RET(run6(f, SYS_futex, uaddr, FUTEX_CLOCK_REALTIME | shared[i], 0, 1000, uaddr + 8, 0),
				   R_EPERM, what);
		}
		for (size_t i = 0; i < SBX_ARRAY_LEN(allowed); i++) {
			snprintf(what, sizeof(what), "futex op 0x%llx (filter %d)", (unsigned long long)allowed[i], f);
			ASSERT_RET(run6(f, SYS_futex, uaddr, allowed[i], 1, 0, uaddr + 8, 0), R_ALLOW, what);
		}
		ASSERT_RET(run(f, __NR_futex_requeue, uaddr, 0, 1, 1000), R_ENOSYS, "futex_requeue");
	}
}

/*
 * Read watches: an inotify watch, a fanotify mark or a dnotify request
 * that asks for any access, open or close-without-write event (or a
 * fanotify permission event) is refused, alone or among other bits,
 * whatever the high bits hold; watches for changes stay allowed.
 */
static void test_seccomp_read_watches(void **state)
{
	static const uint32_t in_read[] = { IN_ACCESS, IN_OPEN, IN_CLOSE_NOWRITE };
	static const uint64_t fan_read[] = {
		FAN_ACCESS, FAN_OPEN, FAN_OPEN_EXEC, FAN_CLOSE_NOWRITE,
		FAN_ACCESS_PERM, FAN_OPEN_PERM, FAN_OPEN_EXEC_PERM, 0x00100000 /* FAN_PRE_ACCESS, 6.14 */,
	};
	const uint32_t in_change = IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
				   IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
	const uint64_t fan_change = FAN_MODIFY | FAN_CLOSE_WRITE | FAN_CREATE | FAN_DELETE | FAN_MOVE |
				    FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD;
	const uint64_t path = 0x7ffd0000;
	char what[96];
	for (int f = 0; f < F__COUNT; f++) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(in_read); i++) {
			snprintf(what, sizeof(what), "inotify 0x%x (filter %d)", in_read[i], f);
			ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, in_read[i], 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, in_read[i] | in_change | IN_ONLYDIR, 0),
				   R_EPERM, what);
			ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, HIGH_GARBAGE | in_read[i], 0), R_EPERM, what);
		}
		ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, IN_ALL_EVENTS, 0), R_EPERM, "IN_ALL_EVENTS");
		ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, in_change | IN_MASK_ADD | IN_ONLYDIR, 0), R_ALLOW,
			   "inotify changes");
		ASSERT_RET(run(f, SYS_inotify_add_watch, 3, path, HIGH_GARBAGE | IN_MODIFY, 0), R_ALLOW,
			   "inotify IN_MODIFY high bits");
		for (size_t i = 0; i < SBX_ARRAY_LEN(fan_read); i++) {
			snprintf(what, sizeof(what), "fanotify 0x%llx (filter %d)", (unsigned long long)fan_read[i], f);
			ASSERT_RET(run(f, SYS_fanotify_mark, 3, FAN_MARK_ADD, fan_read[i], AT_FDCWD), R_EPERM, what);
			ASSERT_RET(run(f, SYS_fanotify_mark, 3, FAN_MARK_ADD, fan_read[i] | fan_change, AT_FDCWD),
				   R_EPERM, what);
			ASSERT_RET(run(f, SYS_fanotify_mark, 3, FAN_MARK_ADD, HIGH_GARBAGE | fan_read[i], AT_FDCWD),
				   R_EPERM, what);
		}
		ASSERT_RET(run(f, SYS_fanotify_mark, 3, FAN_MARK_ADD, fan_change, AT_FDCWD), R_ALLOW,
			   "fanotify changes");
		ASSERT_RET(run(f, SYS_fanotify_mark, 3, FAN_MARK_ADD, HIGH_GARBAGE | FAN_MODIFY, AT_FDCWD), R_ALLOW,
			   "fanotify FAN_MODIFY high bits (the kernel's EINVAL)");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_NOTIFY, DN_ACCESS, 0), R_EPERM, "DN_ACCESS");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_NOTIFY, DN_ACCESS | DN_MODIFY | DN_CREATE | DN_MULTISHOT, 0),
			   R_EPERM, "DN_ACCESS among others");
		ASSERT_RET(run(f, SYS_fcntl, 3, HIGH_GARBAGE | F_NOTIFY, HIGH_GARBAGE | DN_ACCESS, 0), R_EPERM,
			   "DN_ACCESS high bits");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_NOTIFY, DN_MODIFY | DN_CREATE | DN_DELETE | DN_RENAME | DN_ATTRIB |
								DN_MULTISHOT, 0),
			   R_ALLOW, "dnotify changes");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_SETSIG, DN_ACCESS, 0), R_ALLOW, "F_SETSIG 1");
		ASSERT_RET(run(f, SYS_fcntl, 3, F_SETFL, DN_ACCESS, 0), R_ALLOW, "F_SETFL 1");
	}
}

static void test_seccomp_tty_ioctls(void **state)
{
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCSTI, 0, 0), R_EPERM, "TIOCSTI");
	ASSERT_RET(run(F_ANY, SYS_ioctl, 1, TIOCLINUX, 0, 0), R_EPERM, "TIOCLINUX");
	/* CVE-2019-10063: the kernel uses the low 32 bits of the request. */
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, HIGH_GARBAGE | TIOCSTI, 0, 0), R_EPERM, "TIOCSTI high bits");
	ASSERT_RET(run(F_UNIX, SYS_ioctl, 0, 0xffffffff00000000ULL | TIOCSTI, 0, 0), R_EPERM,
		   "TIOCSTI all high bits");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, HIGH_GARBAGE | TIOCLINUX, 0, 0), R_EPERM, "TIOCLINUX high bits");
	/* The line discipline, exclusive mode, the window size, stopped
	 * output, taking a controlling terminal, fs-verity and the fscrypt
	 * keyring: each outlasts the run or signals the host (docs in seccomp.c). */
	const unsigned long more[] = { TIOCSETD, TIOCEXCL, TIOCSWINSZ, TCXONC, TIOCSCTTY, FS_IOC_ENABLE_VERITY,
				       FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY,
				       FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS };
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(more); i++) {
			ASSERT_RET(run(f, SYS_ioctl, 0, more[i], 0, 0), R_EPERM, "tty ioctl");
			ASSERT_RET(run(f, SYS_ioctl, 2, HIGH_GARBAGE | more[i], 0, 0), R_EPERM, "tty ioctl high bits");
			ASSERT_RET(run(f, SYS_ioctl, 1, 0xffffffff00000000ULL | more[i], 0, 0), R_EPERM,
				   "tty ioctl all high bits");
		}
	/* Their readers and the undo of TIOCEXCL stay allowed. */
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCGETD, 0, 0), R_ALLOW, "TIOCGETD");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCNXCL, 0, 0), R_ALLOW, "TIOCNXCL");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCNOTTY, 0, 0), R_ALLOW, "TIOCNOTTY");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCGEXCL, 0, 0), R_ALLOW, "TIOCGEXCL");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TCSETS, 0, 0), R_ALLOW, "TCSETS");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TCGETS, 0, 0), R_ALLOW, "TCGETS");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TCFLSH, 0, 0), R_ALLOW, "TCFLSH");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 1, TIOCGWINSZ, 0, 0), R_ALLOW, "TIOCGWINSZ");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 3, FIONREAD, 0, 0), R_ALLOW, "FIONREAD");
	ASSERT_RET(run(F_DEFAULT, SYS_ioctl, 0, TIOCSTI + 1, 0, 0), R_ALLOW, "TIOCSTI+1");
}

/* Syscalls taking a file mode, the mode's argument, independently of the
 * filter's own table. */
static const struct { const char *name; int nr; int arg; } mode_syscalls[] = {
#ifdef SYS_chmod
	{ "chmod", SYS_chmod, 1 },
#endif
	{ "fchmod", SYS_fchmod, 1 },
	{ "fchmodat", SYS_fchmodat, 2 },
	{ "fchmodat2", __NR_fchmodat2, 2 },
#ifdef SYS_open
	{ "open", SYS_open, 2 },
#endif
	{ "openat", SYS_openat, 3 },
#ifdef SYS_creat
	{ "creat", SYS_creat, 1 },
#endif
#ifdef SYS_mknod
	{ "mknod", SYS_mknod, 1 },
#endif
	{ "mknodat", SYS_mknodat, 2 },
};

static uint32_t run_mode(int f, int i, uint64_t mode, uint64_t other)
{
	uint64_t a[4] = { other, other, other, other };
	a[mode_syscalls[i].arg] = mode;
	return run(f, mode_syscalls[i].nr, a[0], a[1], a[2], a[3]);
}

/* Every mode below 010000 with S_ISUID or S_ISGID is refused, every other
 * allowed, for each syscall that takes a mode, under every policy; only
 * the mode argument counts. */
static void test_seccomp_setid_modes(void **state)
{
	char what[96];
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(mode_syscalls); i++)
			for (uint64_t m = 0; m < 010000; m++) {
				uint32_t want = (m & (S_ISUID | S_ISGID)) ? R_EPERM : R_ALLOW;
				snprintf(what, sizeof(what), "%s mode 0%llo (filter %d)", mode_syscalls[i].name,
					 (unsigned long long)m, f);
				ASSERT_RET(run_mode(f, (int)i, m, 0), want, what);
				/* Type bits (mknod, a stat mode) change nothing. */
				ASSERT_RET(run_mode(f, (int)i, S_IFREG | m, 0), want, what);
			}
	for (size_t i = 0; i < SBX_ARRAY_LEN(mode_syscalls); i++) {
		const char *n = mode_syscalls[i].name;
		/* The kernel uses the low bits only: garbage above them is no way past. */
		ASSERT_RET(run_mode(F_DEFAULT, (int)i, HIGH_GARBAGE | 04755, 0), R_EPERM, n);
		ASSERT_RET(run_mode(F_ANY, (int)i, 0xffffffff00000000ULL | 02755, 0), R_EPERM, n);
		ASSERT_RET(run_mode(F_DEFAULT, (int)i, HIGH_GARBAGE | 06755, 0), R_EPERM, n);
		ASSERT_RET(run_mode(F_DEFAULT, (int)i, ~0ULL, 0), R_EPERM, n);
		/* Ordinary modes with garbage above them stay allowed. */
		ASSERT_RET(run_mode(F_DEFAULT, (int)i, HIGH_GARBAGE | 0755, 0), R_ALLOW, n);
		/* Set-id bits in the other arguments (a path pointer, O_NONBLOCK
		 * is 04000 in open's flags, a device number) are not a mode. */
		ASSERT_RET(run_mode(F_DEFAULT, (int)i, 0644, 06000), R_ALLOW, n);
		ASSERT_RET(run_mode(F_PORTS, (int)i, 01777, ~0ULL & ~0xfffULL), R_ALLOW, n);
	}
	ASSERT_RET(run(F_DEFAULT, SYS_openat, AT_FDCWD, 0, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0), R_ALLOW,
		   "openat O_NONBLOCK");
	ASSERT_RET(run(F_DEFAULT, SYS_openat, AT_FDCWD, 0, O_WRONLY | O_CREAT | O_NONBLOCK, 0644), R_ALLOW,
		   "openat O_CREAT|O_NONBLOCK 0644");
	ASSERT_RET(run(F_DEFAULT, SYS_openat, AT_FDCWD, 0, O_WRONLY | O_CREAT, 04755), R_EPERM, "openat O_CREAT 04755");
}

/* openat2's mode sits in a struct the filter cannot read: ENOSYS, so
 * programs fall back to openat. */
static void test_seccomp_openat2_enosys(void **state)
{
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_openat2, AT_FDCWD, 0, 0, 24), R_ENOSYS, "openat2");
		ASSERT_RET(run(f, SYS_openat2, 3, 0x7ffd0000, 0x7ffd0100, 24), R_ENOSYS, "openat2 args");
	}
}

static void test_seccomp_unix_denied_by_default(void **state)
{
	const int fs[] = { F_DEFAULT, F_PORTS, F_ANY };
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs); i++) {
		int f = fs[i];
		ASSERT_RET(run(f, SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0), R_EPERM, "socket unix stream");
		ASSERT_RET(run(f, SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0), R_EPERM, "socket unix dgram");
		ASSERT_RET(run(f, SYS_socket, HIGH_GARBAGE | AF_UNIX, SOCK_STREAM, 0, 0), R_EPERM,
			   "socket unix high bits");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, 0), R_EPERM, "socketpair dgram");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0), R_EPERM,
			   "socketpair dgram|flags");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_SEQPACKET, 0, 0), R_EPERM, "socketpair seqpacket");
		ASSERT_RET(run(f, SYS_socketpair, HIGH_GARBAGE | AF_UNIX, HIGH_GARBAGE | SOCK_DGRAM, 0, 0), R_EPERM,
			   "socketpair dgram high bits");
		for (uint64_t t = 0; t < 16; t++)
			if (t != SOCK_STREAM)
				ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, t, 0, 0), R_EPERM, "socketpair non-stream type");
		/* A stream pair is a pipe: allowed. */
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, 0), R_ALLOW, "socketpair stream");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0), R_ALLOW,
			   "socketpair stream|flags");
	}
}

static void test_seccomp_unix_allowed_with_flag(void **state)
{
	const int fs[] = { F_UNIX, F_PORTS_UNIX, F_NONE_UNIX };
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs); i++) {
		int f = fs[i];
		ASSERT_RET(run(f, SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0), R_ALLOW, "socket unix stream");
		ASSERT_RET(run(f, SYS_socket, AF_UNIX, SOCK_DGRAM, 0, 0), R_ALLOW, "socket unix dgram");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, 0), R_ALLOW, "socketpair dgram");
		ASSERT_RET(run(f, SYS_socketpair, AF_UNIX, SOCK_SEQPACKET, 0, 0), R_ALLOW, "socketpair seqpacket");
	}
}

static void test_seccomp_ports_socket_rules(void **state)
{
	const int fs[] = { F_PORTS, F_PORTS_UNIX };
	const int inet[] = { AF_INET, AF_INET6 };
	char what[96];
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs); i++) {
		int f = fs[i];
		for (size_t j = 0; j < SBX_ARRAY_LEN(inet); j++) {
			int fam = inet[j];
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, 0, 0), R_ALLOW, "tcp");
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, IPPROTO_TCP, 0), R_ALLOW, "tcp proto 6");
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0), R_ALLOW,
				   "tcp|flags");
			for (uint64_t t = 0; t < 16; t++) {
				if (t == SOCK_STREAM)
					continue;
				snprintf(what, sizeof(what), "family %d type %llu", fam, (unsigned long long)t);
				ASSERT_RET(run(f, SYS_socket, fam, t, 0, 0), R_EPERM, what);
				ASSERT_RET(run(f, SYS_socket, fam, t | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0), R_EPERM, what);
				ASSERT_RET(run(f, SYS_socket, fam, HIGH_GARBAGE | t, 0, 0), R_EPERM, what);
			}
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_DGRAM, IPPROTO_UDP, 0), R_EPERM, "udp");
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_RAW, IPPROTO_ICMP, 0), R_EPERM, "raw");
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_PACKET, 0, 0), R_EPERM, "SOCK_PACKET");
			for (uint64_t proto = 1; proto < 600; proto++) {
				if (proto == IPPROTO_TCP)
					continue;
				snprintf(what, sizeof(what), "family %d stream protocol %llu", fam,
					 (unsigned long long)proto);
				ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, proto, 0), R_EPERM, what);
			}
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, IPPROTO_MPTCP, 0), R_EPERM, "mptcp");
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, HIGH_GARBAGE | IPPROTO_MPTCP, 0), R_EPERM,
				   "mptcp high bits");
		}
		for (uint64_t fam = 0; fam < 70; fam++) {
			if (fam == AF_INET || fam == AF_INET6 || fam == AF_UNIX)
				continue;
			snprintf(what, sizeof(what), "family %llu", (unsigned long long)fam);
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socket, HIGH_GARBAGE | fam, SOCK_STREAM, 0, 0), R_EPERM, what);
			/* socketpair: TIPC implements it */
			ASSERT_RET(run(f, SYS_socketpair, fam, SOCK_STREAM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socketpair, fam, SOCK_RDM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socketpair, HIGH_GARBAGE | fam, SOCK_DGRAM, 0, 0), R_EPERM, what);
		}
		ASSERT_RET(run(f, SYS_socketpair, 100000, SOCK_STREAM, 0, 0), R_EPERM, "socketpair family 100000");
		ASSERT_RET(run(f, SYS_socket, AF_NETLINK, SOCK_RAW, 0, 0), R_EPERM, "netlink");
		ASSERT_RET(run(f, SYS_socket, AF_PACKET, SOCK_RAW, 0, 0), R_EPERM, "packet");
		ASSERT_RET(run(f, SYS_socket, AF_VSOCK, SOCK_STREAM, 0, 0), R_EPERM, "vsock");
		ASSERT_RET(run(f, SYS_socket, 100000, SOCK_STREAM, 0, 0), R_EPERM, "family 100000");
	}
	/* The unix family follows --allow-unix-sockets alone. */
	ASSERT_RET(run(F_PORTS_UNIX, SYS_socket, AF_UNIX, SOCK_DGRAM, 0, 0), R_ALLOW, "unix dgram, allowed");
	ASSERT_RET(run(F_PORTS, SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0), R_EPERM, "unix stream, denied");
}

static void test_seccomp_ports_tcp_options(void **state)
{
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_TCP, TCP_ULP, 0), R_EPERM, "TCP_ULP");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, HIGH_GARBAGE | SOL_TCP, HIGH_GARBAGE | TCP_ULP, 0), R_EPERM,
		   "TCP_ULP high bits");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_TCP, TCP_FASTOPEN_CONNECT, 0), R_EPERM,
		   "TCP_FASTOPEN_CONNECT");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_TCP, TCP_NODELAY, 0), R_ALLOW, "TCP_NODELAY");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, SO_REUSEADDR, 0), R_ALLOW, "SO_REUSEADDR");
	/* SOL_SOCKET's option 31 is not TCP_ULP. */
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, TCP_ULP, 0), R_ALLOW, "SOL_SOCKET 31");

	ASSERT_RET(run(F_PORTS, SYS_sendto, 3, 0, 10, MSG_FASTOPEN), R_EPERM, "sendto MSG_FASTOPEN");
	ASSERT_RET(run(F_PORTS, SYS_sendto, 3, 0, 10, MSG_FASTOPEN | MSG_NOSIGNAL | MSG_DONTWAIT), R_EPERM,
		   "sendto MSG_FASTOPEN|others");
	ASSERT_RET(run(F_PORTS, SYS_sendto, 3, 0, 10, MSG_NOSIGNAL), R_ALLOW, "sendto MSG_NOSIGNAL");
	ASSERT_RET(run(F_PORTS, SYS_sendmsg, 3, 0, MSG_FASTOPEN, 0), R_EPERM, "sendmsg MSG_FASTOPEN");
	ASSERT_RET(run(F_PORTS, SYS_sendmsg, 3, 0, 0, 0), R_ALLOW, "sendmsg");
	ASSERT_RET(run(F_PORTS, SYS_sendmmsg, 3, 0, 1, MSG_FASTOPEN), R_EPERM, "sendmmsg MSG_FASTOPEN");
	ASSERT_RET(run(F_PORTS, SYS_sendmmsg, 3, 0, 1, 0), R_ALLOW, "sendmmsg");
}

/* The programs that steer a SO_REUSEPORT group, refused in port mode,
 * where the group may be a host listener's; any other socket option of
 * those numbers' neighbours stays allowed, and so does each elsewhere. */
static void test_seccomp_ports_reuseport_prog(void **state)
{
	const int opts[] = { SO_ATTACH_REUSEPORT_CBPF, SO_ATTACH_REUSEPORT_EBPF, SO_DETACH_REUSEPORT_BPF };
	char what[64];
	for (size_t i = 0; i < SBX_ARRAY_LEN(opts); i++) {
		snprintf(what, sizeof(what), "SOL_SOCKET %d", opts[i]);
		ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, opts[i], 0), R_EPERM, what);
		ASSERT_RET(run(F_PORTS_UNIX, SYS_setsockopt, 3, HIGH_GARBAGE | SOL_SOCKET, HIGH_GARBAGE | opts[i], 0),
			   R_EPERM, what);
		ASSERT_RET(run(F_ANY, SYS_setsockopt, 3, SOL_SOCKET, opts[i], 0), R_ALLOW, what);
		ASSERT_RET(run(F_DEFAULT, SYS_setsockopt, 3, SOL_SOCKET, opts[i], 0), R_ALLOW, what);
		ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_TCP, opts[i], 0), R_ALLOW, what);
	}
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, SO_REUSEPORT, 0), R_ALLOW, "SO_REUSEPORT");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, SO_ATTACH_FILTER, 0), R_ALLOW, "SO_ATTACH_FILTER");
	ASSERT_RET(run(F_PORTS, SYS_setsockopt, 3, SOL_SOCKET, SO_DETACH_FILTER, 0), R_ALLOW, "SO_DETACH_FILTER");
}

static void test_seccomp_other_modes_no_port_rules(void **state)
{
	/* Any network: nothing network-related beyond AF_UNIX. */
	ASSERT_RET(run(F_ANY, SYS_socket, AF_INET, SOCK_DGRAM, 0, 0), R_ALLOW, "any: udp");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6, 0), R_ALLOW, "any: raw");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_MPTCP, 0), R_ALLOW, "any: mptcp");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_NETLINK, SOCK_RAW, 0, 0), R_ALLOW, "any: netlink");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_VSOCK, SOCK_STREAM, 0, 0), R_ALLOW, "any: vsock");
	ASSERT_RET(run(F_ANY, SYS_setsockopt, 3, SOL_TCP, TCP_ULP, 0), R_ALLOW, "any: TCP_ULP");
	ASSERT_RET(run(F_ANY, SYS_sendto, 3, 0, 1, MSG_FASTOPEN), R_ALLOW, "any: MSG_FASTOPEN");
	/* No network: the namespace is empty, only vsock escapes it. */
	ASSERT_RET(run(F_DEFAULT, SYS_socket, AF_INET, SOCK_DGRAM, 0, 0), R_ALLOW, "none: udp");
	ASSERT_RET(run(F_DEFAULT, SYS_socket, AF_NETLINK, SOCK_RAW, 0, 0), R_ALLOW, "none: netlink");
	ASSERT_RET(run(F_DEFAULT, SYS_socket, AF_VSOCK, SOCK_STREAM, 0, 0), R_EPERM, "none: vsock");
	ASSERT_RET(run(F_NONE_UNIX, SYS_socket, HIGH_GARBAGE | AF_VSOCK, SOCK_DGRAM, 0, 0), R_EPERM,
		   "none: vsock high bits");
}

/*
 * No network: the namespace is empty, but a family the kernel implements
 * apart from the network stack (vsock reaches the hypervisor, TIPC, RDS,
 * CAN, AF_ALG...) is kernel code the command has no use for, and on a
 * kernel with modules socket() of it loads its module.  Unix, IPv4, IPv6
 * and netlink stay (loopback, getaddrinfo's probe, `ip addr`).
 */
static void test_seccomp_none_families(void **state)
{
	const int fs[] = { F_DEFAULT, F_NONE_UNIX };
	char what[96];
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs); i++) {
		int f = fs[i];
		for (uint64_t fam = 0; fam < 70; fam++) {
			if (fam == AF_INET || fam == AF_INET6 || fam == AF_UNIX || fam == AF_NETLINK)
				continue;
			snprintf(what, sizeof(what), "none: family %llu", (unsigned long long)fam);
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_STREAM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socket, fam, SOCK_DGRAM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socket, HIGH_GARBAGE | fam, SOCK_RAW, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socketpair, fam, SOCK_RDM, 0, 0), R_EPERM, what);
			ASSERT_RET(run(f, SYS_socketpair, HIGH_GARBAGE | fam, SOCK_STREAM, 0, 0), R_EPERM, what);
		}
		ASSERT_RET(run(f, SYS_socket, 100000, SOCK_STREAM, 0, 0), R_EPERM, "none: family 100000");
		ASSERT_RET(run(f, SYS_socketpair, 100000, SOCK_STREAM, 0, 0), R_EPERM, "none: socketpair 100000");
		ASSERT_RET(run(f, SYS_socket, AF_INET, SOCK_STREAM, 0, 0), R_ALLOW, "none: tcp");
		ASSERT_RET(run(f, SYS_socket, AF_INET6, SOCK_DGRAM, 0, 0), R_ALLOW, "none: udp6");
		ASSERT_RET(run(f, SYS_socket, AF_INET, SOCK_RAW, IPPROTO_ICMP, 0), R_ALLOW, "none: raw");
		ASSERT_RET(run(f, SYS_socket, AF_NETLINK, SOCK_DGRAM, 0, 0), R_ALLOW, "none: netlink");
		ASSERT_RET(run(f, SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0, 0), R_ALLOW, "none: netlink raw");
	}
	ASSERT_RET(run(F_NONE_UNIX, SYS_socket, AF_UNIX, SOCK_DGRAM, 0, 0), R_ALLOW, "none: unix, allowed");
	ASSERT_RET(run(F_DEFAULT, SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0), R_EPERM, "none: unix, denied");
	/* Protocols: only those built into the kernel, as a socket() of
	 * another has the kernel load its module (every value checked, so
	 * the mask covers in seccomp.c are exact). */
	const uint64_t ip_ok[] = { 0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6, IPPROTO_UDPLITE };
	const uint64_t nl_ok[] = { 0, 4, 9, 15 };	/* ROUTE, SOCK_DIAG, AUDIT, KOBJECT_UEVENT */
	const int inet[] = { AF_INET, AF_INET6 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs); i++)
		for (uint64_t proto = 0; proto < 600; proto++) {
			int ok = 0;
			for (size_t k = 0; k < SBX_ARRAY_LEN(ip_ok); k++)
				ok |= proto == ip_ok[k];
			for (size_t j = 0; j < SBX_ARRAY_LEN(inet); j++) {
				snprintf(what, sizeof(what), "none: family %d protocol %llu", inet[j], (unsigned long long)proto);
				ASSERT_RET(run(fs[i], SYS_socket, inet[j], SOCK_DGRAM, proto, 0), ok ? R_ALLOW : R_EPERM, what);
				ASSERT_RET(run(fs[i], SYS_socket, inet[j], SOCK_STREAM | SOCK_CLOEXEC, proto, 0),
					   ok ? R_ALLOW : R_EPERM, what);
				if (ok)
					ASSERT_RET(run(fs[i], SYS_socket, inet[j], SOCK_STREAM, HIGH_GARBAGE | proto, 0),
						   R_EPERM, what);
			}
			ok = 0;
			for (size_t k = 0; k < SBX_ARRAY_LEN(nl_ok); k++)
				ok |= proto == nl_ok[k];
			snprintf(what, sizeof(what), "none: netlink protocol %llu", (unsigned long long)proto);
			ASSERT_RET(run(fs[i], SYS_socket, AF_NETLINK, SOCK_RAW, proto, 0), ok ? R_ALLOW : R_EPERM, what);
			ASSERT_RET(run(fs[i], SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, proto, 0),
				   ok ? R_ALLOW : R_EPERM, what);
		}
	ASSERT_RET(run(F_DEFAULT, SYS_socket, AF_INET, SOCK_STREAM, (uint32_t)-1, 0), R_EPERM, "none: protocol -1");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_SCTP, 0), R_ALLOW, "any: sctp");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_NETLINK, SOCK_RAW, 12, 0), R_ALLOW, "any: nfnetlink");
	ASSERT_RET(run(F_ANY, SYS_socket, AF_NETLINK, SOCK_RAW, 16, 0), R_ALLOW, "any: generic netlink");
	/* bare --allow-network restricts no family */
	ASSERT_RET(run(F_ANY, SYS_socket, AF_PACKET, SOCK_RAW, 0, 0), R_ALLOW, "any: packet");
	ASSERT_RET(run(F_ANY, SYS_socket, 30, SOCK_RDM, 0, 0), R_ALLOW, "any: tipc");
}

/* personality is left alone (SECURITY.md, "Decided and not claimed", says why). */
static void test_seccomp_personality_allowed(void **state)
{
	const uint64_t vals[] = { 0xffffffff, PER_LINUX, PER_LINUX32, ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC };
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(vals); i++)
			ASSERT_RET(run(f, SYS_personality, vals[i], 0, 0, 0), R_ALLOW, "personality");
}

static void test_seccomp_foreign_arch_killed(void **state)
{
#if defined(__x86_64__)
	const uint32_t foreign = AUDIT_ARCH_I386;
#elif defined(__aarch64__)
	const uint32_t foreign = AUDIT_ARCH_ARM;
#else
	skip();
	const uint32_t foreign = 0;
#endif
	for (int f = 0; f < F__COUNT; f++) {
		/* i386: 0 restart_syscall, 3 read, 11 execve, 26 ptrace, 120 clone */
		const int nrs[] = { 0, 3, 11, 26, 120, 375 };
		for (size_t i = 0; i < SBX_ARRAY_LEN(nrs); i++)
			ASSERT_RET(run_arch(f, foreign, nrs[i], 0, 0, 0, 0), R_KILL, "foreign arch");
#if defined(__x86_64__)
		/* i386 numbers of the mode-taking syscalls and ioctl, with a
		 * set-id mode or a terminal request in every argument: killed
		 * before any argument is looked at.  5 open, 8 creat, 14
		 * mknod, 15 chmod, 54 ioctl, 94 fchmod, 295 openat, 297
		 * mknodat, 306 fchmodat, 437 openat2, 452 fchmodat2. */
		const int modes[] = { 5, 8, 14, 15, 54, 94, 295, 297, 306, 437, 452 };
		for (size_t i = 0; i < SBX_ARRAY_LEN(modes); i++) {
			ASSERT_RET(run_arch(f, foreign, modes[i], 04755, 04755, 04755, 04755), R_KILL,
				   "foreign arch, set-id mode");
			ASSERT_RET(run_arch(f, foreign, modes[i], 0, TIOCSETD, 0, 0), R_KILL, "foreign arch, ioctl");
		}
#endif
	}
	ASSERT_RET(run_arch(F_DEFAULT, 0, 0, 0, 0, 0, 0), R_KILL, "arch 0");
}

static void test_seccomp_x32_killed(void **state)
{
#if defined(__x86_64__)
	/* x32 shares AUDIT_ARCH_X86_64; its numbers carry bit 30.  x32's own
	 * table (512+) and the common part alike are killed. */
	const int nrs[] = { 0, 1, 2, SYS_ptrace, SYS_mount, 512, 520 /* x32 execve */, 545,
			    SYS_chmod, SYS_fchmod, SYS_fchmodat, __NR_fchmodat2, SYS_openat, SYS_openat2,
			    SYS_creat, SYS_mknod, SYS_mknodat, 514 /* x32 ioctl */ };
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(nrs); i++) {
			ASSERT_RET(run(f, X32_BIT | nrs[i], 0, 0, 0, 0), R_KILL, "x32");
			/* A set-id mode or a terminal request in any argument. */
			ASSERT_RET(run(f, X32_BIT | nrs[i], 3, 04755, 04755, 04755), R_KILL, "x32 set-id mode");
			ASSERT_RET(run(f, X32_BIT | nrs[i], 0, TIOCSETD, 0, 0), R_KILL, "x32 ioctl");
		}
#else
	skip();
#endif
}

/* The split path: export to a pipe, read back, same program. */
static void test_seccomp_export_read_roundtrip(void **state)
{
	static struct seccomp_bpf bpf;
	struct policy p;
	int fds[2];

	policy_init(&p);
	p.net = POL_NET_PORTS;
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	assert_int_equal(seccomp_filter_export(&p, fds[1]), 0);
	close(fds[1]);
	assert_int_equal(seccomp_filter_read(fds[0], &bpf), 0);
	close(fds[0]);
	policy_release(&p);

	assert_int_equal(bpf.len, progs[F_PORTS].len);
	assert_memory_equal(bpf.insns, progs[F_PORTS].insns, bpf.len * sizeof(struct sock_filter));
}

static int read_bytes(const void *data, size_t n, struct seccomp_bpf *out)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* Small enough for the pipe buffer: no writer thread needed. */
	assert_true(n <= 65536);
	assert_int_equal(write(fds[1], data, n), (ssize_t)n);
	close(fds[1]);
	int r = seccomp_filter_read(fds[0], out);
	close(fds[0]);
	return r;
}

static void test_seccomp_read_rejects_bad_programs(void **state)
{
	static struct seccomp_bpf bpf;
	static char buf[sizeof(uint32_t) + (SECCOMP_BPF_MAX_INSNS + 1) * sizeof(struct sock_filter)];
	const size_t insn = sizeof(struct sock_filter);
	uint32_t count;

	assert_int_equal(read_bytes("", 0, &bpf), -EINVAL);		/* empty */
	assert_int_equal(read_bytes("\2\0", 2, &bpf), -EINVAL);	/* torn count */
	count = 0;
	memcpy(buf, &count, 4);
	assert_int_equal(read_bytes(buf, 4, &bpf), -EINVAL);		/* no program */
	/* A count of 0 and an errno: the writer's compile failed, and why. */
	uint32_t why[2] = { 0, ENOMEM };
	assert_int_equal(read_bytes(why, sizeof(why), &bpf), -ENOMEM);
	why[1] = 0;
	assert_int_equal(read_bytes(why, sizeof(why), &bpf), -EINVAL);	/* no errno */
	why[1] = 5000;
	assert_int_equal(read_bytes(why, sizeof(why), &bpf), -EINVAL);	/* none such */
	why[1] = ENOMEM;
	assert_int_equal(read_bytes(why, sizeof(why) - 1, &bpf), -EINVAL);	/* torn */
	count = 2;
	memcpy(buf, &count, 4);
	assert_int_equal(read_bytes(buf, 4 + insn, &bpf), -EINVAL);	/* one short */
	assert_int_equal(read_bytes(buf, 4 + 3 * insn, &bpf), -EINVAL);	/* one too many */
	assert_int_equal(read_bytes(buf, 4 + 2 * insn + 3, &bpf), -EINVAL);	/* torn */
	assert_int_equal(read_bytes(buf, 4 + 2 * insn, &bpf), 0);
	assert_int_equal(bpf.len, 2);
	count = SECCOMP_BPF_MAX_INSNS + 1;
	memcpy(buf, &count, 4);
	assert_int_equal(read_bytes(buf, sizeof(buf), &bpf), -EINVAL);	/* too long */
	count = SECCOMP_BPF_MAX_INSNS;
	memcpy(buf, &count, 4);
	assert_int_equal(read_bytes(buf, sizeof(buf) - insn, &bpf), 0);	/* the longest */
	assert_int_equal(bpf.len, SECCOMP_BPF_MAX_INSNS);
}

/* A read program loaded with seccomp(2) refuses for real (in a child). */
static void test_seccomp_load_bpf_kernel(void **state)
{
	static struct seccomp_bpf bpf;
	struct policy p;
	int fds[2];

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		skip();
	policy_init(&p);
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	assert_int_equal(seccomp_filter_export(&p, fds[1]), 0);
	close(fds[1]);
	assert_int_equal(seccomp_filter_read(fds[0], &bpf), 0);
	close(fds[0]);
	policy_release(&p);

	char path[] = "/tmp/sbx-seccomp-test.XXXXXX";
	int tmp = mkstemp(path);
	assert_true(tmp >= 0);
	unlink(path);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_filter_load_bpf(&bpf, NULL) < 0)
			_exit(10);
		if (syscall(SYS_unshare, CLONE_NEWUSER) != -1 || errno != EPERM)
			_exit(11);
		if (syscall(SYS_memfd_create, "x", 0) != -1 || errno != EPERM)
			_exit(12);
		if (syscall(__NR_clone3, NULL, 0) != -1 || errno != ENOSYS)
			_exit(13);
		if (syscall(SYS_getpid) <= 0)
			_exit(14);
		/* A file of the caller's own keeps its mode. */
		if (fchmod(tmp, 04755) != -1 || errno != EPERM)
			_exit(15);
		if (fchmod(tmp, 02755) != -1 || errno != EPERM)
			_exit(16);
		if (fchmod(tmp, 0755) != 0)
			_exit(17);
		struct stat st;
		if (fstat(tmp, &st) != 0 || (st.st_mode & 07777) != 0755)
			_exit(18);
		if (syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) != -1 || errno != ENOSYS)
			_exit(19);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(tmp);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Setting RLIMIT_CORE (the stage leaves it at one byte, which a pipe
 * core_pattern honours and 0 does not) does nothing and says so, under
 * every policy, whatever the high bits of the resource hold; prlimit64
 * that also asks the old value is refused; reading it, and setting any
 * other limit, stays allowed. */
static void test_seccomp_core_limit(void **state)
{
	const uint64_t ptr = 0x7ffd0000ULL;
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_setrlimit, RLIMIT_CORE, ptr, 0, 0), R_ZERO, "setrlimit core");
		ASSERT_RET(run(f, SYS_setrlimit, HIGH_GARBAGE | RLIMIT_CORE, ptr, 0, 0), R_ZERO, "setrlimit core, high");
		ASSERT_RET(run(f, SYS_prlimit64, 0, RLIMIT_CORE, ptr, 0), R_ZERO, "prlimit64 set core");
		ASSERT_RET(run(f, SYS_prlimit64, 2, HIGH_GARBAGE | RLIMIT_CORE, ptr, 0), R_ZERO,
			   "prlimit64 set core of pid 2, high");
		ASSERT_RET(run(f, SYS_prlimit64, 0, RLIMIT_CORE, ptr, ptr), R_EPERM, "prlimit64 set+get core");
		ASSERT_RET(run(f, SYS_prlimit64, 0, RLIMIT_CORE, 0, ptr), R_ALLOW, "prlimit64 get core");
		ASSERT_RET(run(f, SYS_getrlimit, RLIMIT_CORE, ptr, 0, 0), R_ALLOW, "getrlimit core");
		ASSERT_RET(run(f, SYS_setrlimit, RLIMIT_NOFILE, ptr, 0, 0), R_ALLOW, "setrlimit nofile");
		ASSERT_RET(run(f, SYS_prlimit64, 0, RLIMIT_FSIZE, ptr, ptr), R_ALLOW, "prlimit64 set+get fsize");
		/* pid 1: still nothing changes, by either rule */
		uint32_t r1 = run(f, SYS_prlimit64, 1, RLIMIT_CORE, ptr, 0);
		assert_true(r1 == R_ZERO || r1 == R_EPERM);
	}
}

/* Building the filter stays cheap: it runs in every command stage. */
/* prlimit64 setting pid 1's limits is refused under every policy (high
 * bits of the pid ignored, as the kernel does); reading them, and setting
 * the command's own or another pid's, is not. */
static void test_seccomp_prlimit_init(void **state)
{
	const uint64_t ptr = 0x7ffd0000ULL;
	for (int f = 0; f < F__COUNT; f++) {
		ASSERT_RET(run(f, SYS_prlimit64, 1, RLIMIT_NOFILE, ptr, 0), R_EPERM, "prlimit64 set pid 1");
		ASSERT_RET(run(f, SYS_prlimit64, HIGH_GARBAGE | 1, RLIMIT_NOFILE, ptr, ptr), R_EPERM,
			   "prlimit64 set pid 1, high bits");
		ASSERT_RET(run(f, SYS_prlimit64, 1, RLIMIT_NOFILE, 0, ptr), R_ALLOW, "prlimit64 read pid 1");
		ASSERT_RET(run(f, SYS_prlimit64, 0, RLIMIT_NOFILE, ptr, 0), R_ALLOW, "prlimit64 set self");
		ASSERT_RET(run(f, SYS_prlimit64, 2, RLIMIT_NOFILE, ptr, 0), R_ALLOW, "prlimit64 set pid 2");
	}
}

/* The main filter lets System V objects be made under every policy, a
 * memory limit included; the small second filter of a command whose
 * memory limit is an rlimit refuses them (ENOSPC) and nothing else. */
static void test_seccomp_sysv_under_memory_limit(void **state)
{
	static const struct { const char *name; int nr; } sysv[] = {
		{ "shmget", SYS_shmget }, { "msgget", SYS_msgget }, { "semget", SYS_semget },
	};
	char what[96];
	for (int f = 0; f < F__COUNT; f++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(sysv); i++) {
			snprintf(what, sizeof(what), "%s (filter %d)", sysv[i].name, f);
			ASSERT_RET(run(f, sysv[i].nr, 0, 4096, 01600, 0), R_ALLOW, what);
		}
	scmp_filter_ctx ctx;
	struct bpf_prog sv = { 0 };
	assert_int_equal(seccomp_sysv_build(&ctx), 0);
	export_ctx(ctx, &sv);
	for (size_t i = 0; i < SBX_ARRAY_LEN(sysv); i++) {
		struct seccomp_data d = { .nr = sysv[i].nr, .arch = seccomp_arch_native(), .args = { 0, 4096, 01600 } };
		ASSERT_RET(bpf_run(&sv, &d), R_ENOSPC, sysv[i].name);
	}
	for (int nr = 0; nr < 512; nr++) {
		if (nr == SYS_shmget || nr == SYS_msgget || nr == SYS_semget)
			continue;
		struct seccomp_data d = { .nr = nr, .arch = seccomp_arch_native() };
		ASSERT_RET(bpf_run(&sv, &d), R_ALLOW, "another syscall");
	}
	bpf_prog_free(&sv);
}

/* Below Landlock ABI 6 (no signal scope) the command stage loads a second
 * filter: O_ASYNC turned on by fcntl(F_SETFL) or ioctl(FIOASYNC) answers
 * EPERM (on a terminal the kernel addresses that SIGIO to the caller's
 * job), whatever the high bits of cmd, request or flags hold; every other
 * fcntl and ioctl, and every other syscall, passes.  The main filter,
 * under every policy, leaves both alone (test_seccomp_nothing_else_denied). */
static void test_seccomp_async_below_signal_scope(void **state)
{
	(void)state;
	const uint64_t hi = 0xdead000000000000ULL | (0xbeefULL << 32);
	scmp_filter_ctx ctx;
	struct bpf_prog af = { 0 };
	assert_int_equal(seccomp_async_build(&ctx), 0);
	export_ctx(ctx, &af);
	static const struct { int nr; uint64_t a1, a2; int want; const char *what; } cases[] = {
		{ SYS_fcntl, F_SETFL, O_ASYNC, R_EPERM, "F_SETFL O_ASYNC" },
		{ SYS_fcntl, F_SETFL, O_ASYNC | O_NONBLOCK | O_APPEND, R_EPERM, "F_SETFL O_ASYNC|O_NONBLOCK|O_APPEND" },
		{ SYS_fcntl, F_SETFL, O_NONBLOCK, R_ALLOW, "F_SETFL O_NONBLOCK" },
		{ SYS_fcntl, F_SETFL, 0, R_ALLOW, "F_SETFL 0" },
		{ SYS_fcntl, F_GETFL, O_ASYNC, R_ALLOW, "F_GETFL" },
		{ SYS_fcntl, F_SETOWN, 1, R_ALLOW, "F_SETOWN" },
		{ SYS_fcntl, F_SETSIG, SIGIO, R_ALLOW, "F_SETSIG" },
		{ SYS_ioctl, FIOASYNC, 0, R_EPERM, "FIOASYNC" },
		{ SYS_ioctl, FIONBIO, 0, R_ALLOW, "FIONBIO" },
		{ SYS_ioctl, TCGETS, 0, R_ALLOW, "TCGETS" },
	};
	char what[96];
	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++)
		for (int h = 0; h < 2; h++) {
			struct seccomp_data d = { .nr = cases[i].nr, .arch = seccomp_arch_native(),
						  .args = { 0, cases[i].a1 | (h ? hi : 0), cases[i].a2 | (h ? hi : 0) } };
			snprintf(what, sizeof(what), "%s%s", cases[i].what, h ? " (high bits)" : "");
			ASSERT_RET(bpf_run(&af, &d), cases[i].want, what);
		}
	for (int nr = 0; nr < 512; nr++) {
		if (nr == SYS_fcntl || nr == SYS_ioctl)
			continue;
		struct seccomp_data d = { .nr = nr, .arch = seccomp_arch_native(), .args = { 0, F_SETFL, O_ASYNC } };
		ASSERT_RET(bpf_run(&af, &d), R_ALLOW, "another syscall");
	}
	for (int f = 0; f < F__COUNT; f++) {
		snprintf(what, sizeof(what), "F_SETFL O_ASYNC (main filter %d)", f);
		ASSERT_RET(run(f, SYS_fcntl, 0, F_SETFL, O_ASYNC, 0), R_ALLOW, what);
		snprintf(what, sizeof(what), "FIOASYNC (main filter %d)", f);
		ASSERT_RET(run(f, SYS_ioctl, 0, FIOASYNC, 0, 0), R_ALLOW, what);
	}
	bpf_prog_free(&af);
}

/* 200 builds and exports in a row: each releases what it made (the
 * sanitizers' leak check and valgrind watch this).  What one costs is
 * printed, not asserted: speed is bench/spawn.sh's, side by side with
 * bwrap, never a timed unit test (a 5 ms bound here failed under ASan on
 * a slower machine, at 5.0-5.3 ms, with nothing changed). */
static void test_seccomp_build_repeated(void **state)
{
	struct policy p;
	struct timespec a, b;
	const int n = 200;
	policy_init(&p);
	p.net = POL_NET_PORTS;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		scmp_filter_ctx ctx;
		assert_int_equal(seccomp_filter_build(&p, &ctx), 0);
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
		close(fd);
		seccomp_release(ctx);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / n;
	print_message("seccomp build+compile, ports policy: %.1f us\n", us);
	policy_release(&p);
}

int main(void)
{
	/* libseccomp probes the kernel with seccomp(2), which valgrind does not
	 * implement: the suite runs in the plain and the ASan passes instead. */
	if (getenv("SBX_UNDER_VALGRIND")) {
		printf("[  SKIPPED ] test_seccomp: libseccomp cannot run under valgrind\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpf_interp_basics),
		cmocka_unit_test(test_seccomp_denylist_eperm),
		cmocka_unit_test(test_seccomp_nothing_else_denied),
		cmocka_unit_test(test_seccomp_newer_enosys),
		cmocka_unit_test(test_seccomp_newer_enosys_kernel),
		cmocka_unit_test(test_seccomp_ordinary_allowed),
		cmocka_unit_test(test_seccomp_clone_namespaces),
		cmocka_unit_test(test_seccomp_clone_plain_allowed),
		cmocka_unit_test(test_seccomp_clone3_enosys),
		cmocka_unit_test(test_seccomp_tty_ioctls),
		cmocka_unit_test(test_seccomp_setlease),
		cmocka_unit_test(test_seccomp_rename_whiteout),
		cmocka_unit_test(test_seccomp_futex_requeue),
		cmocka_unit_test(test_seccomp_read_watches),
		cmocka_unit_test(test_seccomp_page_cache),
		cmocka_unit_test(test_seccomp_setid_modes),
		cmocka_unit_test(test_seccomp_openat2_enosys),
		cmocka_unit_test(test_seccomp_unix_denied_by_default),
		cmocka_unit_test(test_seccomp_unix_allowed_with_flag),
		cmocka_unit_test(test_seccomp_ports_socket_rules),
		cmocka_unit_test(test_seccomp_none_families),
		cmocka_unit_test(test_seccomp_ports_tcp_options),
		cmocka_unit_test(test_seccomp_io_setup_enosys),
		cmocka_unit_test(test_seccomp_beyond_view),
		cmocka_unit_test(test_seccomp_ksm_einval),
		cmocka_unit_test(test_seccomp_hugetlb_enomem),
		cmocka_unit_test(test_seccomp_ports_reuseport_prog),
		cmocka_unit_test(test_seccomp_other_modes_no_port_rules),
		cmocka_unit_test(test_seccomp_personality_allowed),
		cmocka_unit_test(test_seccomp_foreign_arch_killed),
		cmocka_unit_test(test_seccomp_x32_killed),
		cmocka_unit_test(test_seccomp_export_read_roundtrip),
		cmocka_unit_test(test_seccomp_read_rejects_bad_programs),
		cmocka_unit_test(test_seccomp_load_bpf_kernel),
		cmocka_unit_test(test_seccomp_prlimit_init),
		cmocka_unit_test(test_seccomp_core_limit),
		cmocka_unit_test(test_seccomp_sysv_under_memory_limit),
		cmocka_unit_test(test_seccomp_async_below_signal_scope),
		cmocka_unit_test(test_seccomp_build_repeated),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
