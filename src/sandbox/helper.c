/*
 * helper.c — the three helper stages (see helper.h for the process model).
 *
 * Everything runs single-threaded in a freshly executed image, so plain
 * libc is safe after fork here; nothing of the harness's heap or
 * environment is present.  Each failure that stops the run is sent as a
 * label on the audit channel (fd 3) and the stage exits 125.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/securebits.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <linux/seccomp.h>
#include <netinet/in.h>

#include "sandbox/auditch.h"
#include "sandbox/helper.h"
#include "sandbox/landlock.h"
#include "sandbox/limits.h"
#include "sandbox/netpolicy.h"
#include "sandbox/seccomp.h"
#include "util/compat.h"
#include "util/util.h"

#define AUDIT_FD HELPER_AUDIT_FD
#define PIN_FD HELPER_PIN_FD
#define EXIT_REFUSED 125

extern char **environ;

/* The supervisor's init, once forked (0 in the init and the command
 * stage): on_term and refuse end it. */
static volatile pid_t term_init;

/* The caller's per-user limits, from the harness's second message
 * (helper.h, read_ucounts); the init halves them for the sandbox's
 * namespace (halve_ucounts). */
static uint32_t caller_ucounts[LIMITS_UC_SYSCTLS];

static _Noreturn void refuse(enum auditch_label label, int arg)
{
	auditch_send(AUDIT_FD, label, arg);
	/* A refusal after the init's fork (the namespace child's): the init,
	 * which has started no command, is ended and reaped here, so nothing
	 * of the run is left for the caller's subreaper to collect. */
	if (term_init > 0) {
		kill(term_init, SIGKILL);
		while (waitpid(term_init, NULL, 0) < 0 && errno == EINTR)
			;
	}
	_exit(EXIT_REFUSED);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* ---- stage 1: the supervisor ------------------------------------------ */

/* One byte over a unix socket, with descriptor fd when fd >= 0; 0, or -1
 * with errno. */
static int send_fd(int sock, int fd)
{
	char one = 1;
	return send_with_fds(sock, &one, 1, &fd, fd >= 0) == 1 ? 0 : -1;
}

/* The other end: 1 when the byte came (*fd its descriptor, or -1), 0 at
 * end of file (the sender exited first), -1 on error. */
static int recv_fd(int sock, int *fd)
{
	char one;
	int nfd;
	ssize_t n = recv_with_fds(sock, &one, 1, fd, 1, &nfd);
	if (n != 1)
		return n < 0 ? -1 : 0;
	if (nfd != 1) {
		if (nfd > 1)
			close(*fd);	/* more than one: none is taken */
		*fd = -1;
	}
	return 1;
}

static int ns_reply(void);
static int ns_rules(int abi);
static void ns_pre(void);

/*
 * In the init: wait for the supervisor's word that it may go on (the
 * supervisor has stepped out of the sandbox's cgroup: limits_attach),
 * then, with want_net, take the network namespace the namespace child
 * made: its reply comes to this process straight (ns_reply, on the
 * channel the init inherited), so the supervisor, which shares a CPU
 * with the init more often than not, need not wake while the view is
 * built.  A supervisor that refused has exited: end of file, and the
 * init goes too.
 */
static void enter_netns(int sock, int want_net)
{
	int fd;
	if (recv_fd(sock, &fd) != 1)
		_exit(EXIT_REFUSED);
	close(sock);
	if (fd >= 0)
		close(fd);	/* the word carries none */
	if (!want_net)
		return;
	fd = ns_reply();
	if (setns(fd, CLONE_NEWNET) < 0)
		refuse(ACH_REF_NETNS_LO, errno);
	close(fd);
}

static int wait_status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_REFUSED;
}

/* ---- stage 2: the mount view ------------------------------------------ */

/* Open rel (relative, no leading '/') beneath root without following any
 * symlink: the target of a mount must be where its name says. */
static int open_beneath(int root, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, root, rel[0] ? rel : ".", &how, sizeof(how));
}

/*
 * Make every missing component of rel beneath root; the last one is a
 * directory (is_dir) or an empty file.  Components are created only in
 * the view's own tmpfs (tmpfs_dev): a missing component inside a bound
 * host tree would mean the host changed under us, and is refused.  The
 * last component opened O_PATH (a directory's with O_DIRECTORY), or -1
 * with errno: what the caller mounts on, or makes things in, without a
 * second walk from root.
 */
static int make_path_open(int root, const char *rel, int is_dir, dev_t tmpfs_dev)
{
	char buf[PATH_MAX];
	if (strlen(rel) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, rel);
	int dfd = root;	/* not closed: the caller's */
	/* 1 when dfd is a directory this call has just made on the staging
	 * tmpfs: empty, so its next component is made without a look first
	 * or a question of where dfd lies (two system calls a component, not
	 * four).  Nothing else mounts or writes in the staging tree while the
	 * view is built. */
	int made = 0;
	char *save = NULL, *comp = strtok_r(buf, "/", &save);
	if (!comp) {
		errno = EINVAL;
		return -1;
	}
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		int last = next == NULL;
		struct stat st;
		struct open_how how = {
			.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (last && is_dir ? O_DIRECTORY : 0),
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		int nfd = made ? -1 : (int)syscall(SYS_openat2, dfd, comp, &how, sizeof(how));
		int e = errno;
		if (made || (nfd < 0 && e == ENOENT)) {
			if (!made && (fstat(dfd, &st) < 0 || st.st_dev != tmpfs_dev)) {
				if (dfd != root)
					close(dfd);
				errno = ENOENT;
				return -1;
			}
			made = 0;
			if (!last || is_dir) {
				if (mkdirat(dfd, comp, 0755) == 0)
					made = 1;
				else if (errno != EEXIST) {
					e = errno;
					if (dfd != root)
						close(dfd);
					errno = e;
					return -1;
				}
			} else {
				int f = openat(dfd, comp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
				if (f < 0 && errno != EEXIST) {
					e = errno;
					if (dfd != root)
						close(dfd);
					errno = e;
					return -1;
				}
				if (f >= 0)
					close(f);
			}
			nfd = (int)syscall(SYS_openat2, dfd, comp, &how, sizeof(how));
			e = errno;
		} else {
			made = 0;
		}
		if (dfd != root)
			close(dfd);
		if (nfd < 0) {
			errno = e;
			return -1;
		}
		dfd = nfd;
		comp = next;
	}
	return dfd;
}

static int make_path(int root, const char *rel, int is_dir, dev_t tmpfs_dev)
{
	int fd = make_path_open(root, rel, is_dir, tmpfs_dev);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int fd_path(char *out, size_t n, int fd)
{
	return snprintf(out, n, "/proc/self/fd/%d", fd) < (int)n ? 0 : -1;
}

static int set_mount_attr(int root, const char *rel, uint64_t set, int recursive)
{
	int fd = open_beneath(root, rel, O_PATH);
	if (fd < 0)
		return -1;
	struct mount_attr a = { .attr_set = set };
	int r = (int)syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
			     &a, sizeof(a));
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

/*
 * Clone the mount tree at fd (open_tree, recursive) into a detached copy
 * restricted with attrs.  Cloned before the staging tmpfs exists, so a
 * grant that holds the staging point (a grant of /tmp) does not carry the
 * staging mount along.
 */
static int clone_tree(int fd, uint64_t attrs)
{
	int t = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
	if (t < 0)
		return -1;
	struct mount_attr a = { .attr_set = attrs };
	if (syscall(__NR_mount_setattr, t, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0) {
		int e = errno;
		close(t);
		errno = e;
		return -1;
	}
	return t;
}

/* Attach the detached tree tree_fd at rel beneath root. */
/*
 * /proc/keys and /proc/key-users list the kernel keys their reader may
 * view, and no namespace separates keys: the command would read the names
 * of the caller's keyrings and keys (a session keyring, Kerberos or AFS
 * tokens, fscrypt keys) and how many each user holds.  keyctl is denied,
 * so the contents are out of reach; the listing is masked too, with the
 * view's /dev/null bound over each (reading gives nothing), where a grant
 * reaches them.  A kernel without keys has neither file.  0, or -1.
 */
static int proc_keys_granted(const struct policy *p)
{
	for (size_t i = 0; i < p->ngrants; i++)
		if (p->grants[i].is_proc && (strcmp(p->grants[i].path, "/proc") == 0 ||
					     strncmp(p->grants[i].path, "/proc/key", 9) == 0))
			return 1;
	return 0;
}

static int mask_proc_keys(int root)
{
	static const char *const files[] = { "proc/keys", "proc/key-users" };
	int nul = open_beneath(root, "dev/null", O_PATH | O_NOFOLLOW), r = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(files) && r == 0; i++) {
		int t = open_beneath(root, files[i], O_PATH | O_NOFOLLOW);
		if (t < 0 && errno == ENOENT)
			continue;
		int tree = nul < 0 || t < 0 ? -1 : (int)syscall(SYS_open_tree, nul, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (tree < 0 || syscall(SYS_move_mount, tree, "", t, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			r = -1;
		int e = errno;
		if (tree >= 0)
			close(tree);
		if (t >= 0)
			close(t);
		errno = e;
	}
	int e = errno;
	if (nul >= 0)
		close(nul);
	errno = e;
	return r;
}

static int attach_at(int root, const char *rel, int tree_fd, int is_dir, dev_t tmpfs_dev)
{
	int tfd = make_path_open(root, rel, is_dir, tmpfs_dev);
	if (tfd < 0)
		return -1;
	int r = (int)syscall(SYS_move_mount, tree_fd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	int e = errno;
	close(tfd);
	errno = e;
	return r;
}

/*
 * A grant nested in a writable one is its own mount, so it cannot itself
 * be renamed or removed (EBUSY); but a directory between the two could be,
 * and a fresh one made in its place: the command would then write where
 * the inner grant's path names on the host (a read-only file, an exec
 * tree the user runs later).  Each directory between outer_rel and
 * inner_rel is bound onto itself (a recursive clone keeps the outer
 * grant's attributes and what is mounted beneath), which makes it a mount
 * point too; once each (pinned: the ones done, for the next nested grant).
 * 0, or -1 with errno.
 */
static int pin_between(int root, const char *outer_rel, const char *inner_rel, struct strv *pinned)
{
	char buf[PATH_MAX];
	size_t ol = strlen(outer_rel);
	if (snprintf(buf, sizeof(buf), "%s", inner_rel) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = strchr(buf + ol + (ol ? 1 : 0), '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (strv_has(pinned, buf)) {
			*s = '/';
			continue;
		}
		strv_push(pinned, buf);
		int fd = open_beneath(root, buf, O_PATH | O_NOFOLLOW | O_DIRECTORY);
		int t = fd < 0 ? -1
			       : (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
						       AT_EMPTY_PATH);
		int r = t < 0 ? -1
			      : (int)syscall(SYS_move_mount, t, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
		int e = errno;
		if (t >= 0)
			close(t);
		if (fd >= 0)
			close(fd);
		if (r < 0) {
			errno = e;
			return -1;
		}
		*s = '/';
	}
	return 0;
}

static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

const struct landlock_extra helper_dev_rules[] = {
	{ "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		       LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/zero", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		       LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/full", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		       LANDLOCK_ACCESS_FS_IOCTL_DEV },
	{ "/dev/random", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/dev/tty", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_IOCTL_DEV },
	/* /dev/fd, /dev/stdin... are links into the sandbox's own /proc */
};
const size_t helper_ndev_rules = SBX_ARRAY_LEN(helper_dev_rules);

/*
 * /dev/shm and /tmp: the sandbox's own tmpfs each (POSIX shared memory
 * and semaphores for Python's multiprocessing or a browser; temporary
 * files for cc, mktemp, sort, pytest), empty, noexec like every tree the
 * command can write, at most PRIVATE_MAX bytes each and never more than
 * the memory limit, since an rlimit does not count tmpfs pages.  Not
 * mounted where a grant names the directory or a path beneath it
 * (policy_scratch_private): then the user chose what it holds.
 */
#define PRIVATE_MAX (64ull << 20)
#define PRIVATE_RIGHTS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
			LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
			LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR | \
			LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
			LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER)
static void mount_private(const struct policy *p, int root, dev_t tmpfs_dev)
{
	uint64_t size = PRIVATE_MAX;
	char opts[96], dst[64];
	if (p->limits[LIM_MEMORY] && p->limits[LIM_MEMORY] < size)
		size = p->limits[LIM_MEMORY];
	size = (size + 4095) & ~4095ull;	/* tmpfs rounds up to pages */
	snprintf(opts, sizeof(opts), "mode=1777,size=%llu,nr_inodes=4096", (unsigned long long)size);
	for (size_t i = 0; i < POLICY_NSCRATCH; i++) {
		const char *rel = policy_scratch_dirs[i] + 1;
		if (!policy_scratch_private(p, i))
			continue;
		int fd = make_path_open(root, rel, 1, tmpfs_dev);
		if (fd < 0)
			refuse(ACH_REF_MOUNT, errno);
		fd_path(dst, sizeof(dst), fd);
		if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
			refuse(ACH_REF_MOUNT, errno);
		close(fd);
	}
}

/*
 * Over each mount point in pts, beneath root: a mount of fstype (NULL:
 * none) or, should the kernel refuse that, an empty read-only tmpfs;
 * read-only, nodev, nosuid, noexec.  Neither: the run is refused with
 * label why and the point's index.
 */
static void mask_mounts(const struct strv *pts, const char *fstype, enum auditch_label why, int root)
{
	for (size_t i = 0; i < pts->n; i++) {
		const unsigned long fl = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY;
		char dst[64];
		int fd = open_beneath(root, pts->v[i] + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			refuse(why, (int)i);
		fd_path(dst, sizeof(dst), fd);
		if ((!fstype || mount(fstype, dst, fstype, fl, NULL) < 0) &&
		    mount("tmpfs", dst, "tmpfs", fl, "mode=0755,size=4k,nr_inodes=1") < 0)
			refuse(why, (int)i);
		close(fd);
	}
}

/*
 * The host's POSIX message queues: an mqueue mount that a grant holds
 * (systemd's /dev/mqueue under --allow-read /dev) is the host ipc
 * namespace's, and a file of it opened here takes the host's messages
 * (mq_timedreceive accepts it).  Over each (policy.mqueue, found by the
 * CLI in the mount table it reads anyway) goes a fresh mqueue mount of
 * the sandbox's own ipc namespace, which the init may make while it holds
 * its namespace capabilities; read-only (mq_open does not go through it),
 * or, should the kernel refuse that, an empty read-only tmpfs.  Neither:
 * the run is refused.
 *
 * The machine's huge pages: a hugetlbfs mount that a grant holds
 * (systemd's /dev/hugepages under --allow-read /dev) hands out pages of
 * the pool to whoever maps a readable file of holes there, and they stay
 * with the file after the run.  Over each (policy.hugetlbfs) goes an
 * empty read-only tmpfs, or the run is refused.
 */
static void mount_masks(const struct policy *p, int root)
{
	mask_mounts(&p->mqueue, "mqueue", ACH_REF_MQUEUE, root);
	mask_mounts(&p->hugetlbfs, NULL, ACH_REF_HUGETLBFS, root);
}

/*
 * A descriptor 0-2 on a device node the caller owns (root's: >/dev/kmsg,
 * </dev/sdb, a loop device; anyone's own terminal, /dev/pts/N) that is
 * not one of the view's nodes (stdio_view_devices): the node is the
 * host's, on the host's /dev, and the command, its owner, could fchmod it
 * through the descriptor or /proc/self/fd/N (Landlock has no right for
 * that) — a disk made 0666 for every user of the machine while the run
 * lasted, the caller's terminal made readable by every user, who then
 * read the keys typed, for good were sandbx killed first — and chgrp it
 * to its own group.  Opened again here, the same way, through a
 * read-only clone of the node's own mount, detached and named by no
 * path: reads, writes and a terminal's ioctls work (a device is not
 * written through its inode; a terminal's settings are the terminal's,
 * not the description's), fchmod, fchown, utimes and xattrs fail with
 * EROFS.  O_NONBLOCK while opening: a serial line without carrier would
 * hold the open.  Where the node cannot be found again at its path
 * (another mount namespace's, removed), or opened so, the run is refused;
 * but a terminal is passed as it was (sandbox-run puts its mode back
 * after the run), since the caller's own terminal under `docker exec -t`
 * is a devpts node no path of the container names.  Before the staging
 * tmpfs, while the host's paths are still there.
 */
static void stdio_own_devices(void)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st, ns;
		char fdp[64], link[PATH_MAX];
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) ||
		    st.st_uid != geteuid())
			continue;
		int tty = isatty(fd);
		/* A pty's master (5,2, /dev/ptmx or a devpts ptmx): every open
		 * of it makes a new pty, not the caller's.  A memory device
		 * and /dev/tty (5,0, swapped for the terminal it names by the
		 * supervisor) are the view's own nodes already. */
		if (S_ISCHR(st.st_mode) && (st.st_rdev == makedev(5, 2) || st.st_rdev == makedev(5, 0) ||
					    helper_view_memdev(st.st_rdev)))
			continue;
		fd_path(fdp, sizeof(fdp), fd);
		ssize_t n = readlink(fdp, link, sizeof(link) - 1);
		int node = -1;
		if (n > 0 && link[0] == '/') {
			link[n] = '\0';
			node = open(link, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (node >= 0 && (fstat(node, &ns) < 0 || ns.st_dev != st.st_dev || ns.st_ino != st.st_ino ||
				  ns.st_rdev != st.st_rdev)) {
			close(node);
			node = -1;
		}
		if (node < 0 && tty)
			continue;
		if (node < 0)
			refuse(ACH_REF_STDIO_DEVICE, fd);
		int t = clone_tree(node, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
		close(node);
		if (t < 0)
			refuse(ACH_REF_STDIO_DEVICE, fd);
		fd_path(fdp, sizeof(fdp), t);
		int nfd = open(fdp, (fl & (O_ACCMODE | O_APPEND)) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		close(t);
		if (nfd < 0 || (!(fl & O_NONBLOCK) && fcntl(nfd, F_SETFL, fl & O_APPEND) < 0) || dup2(nfd, fd) < 0)
			refuse(ACH_REF_STDIO_DEVICE, fd);
		close(nfd);
	}
}

/*
 * Half of each of the caller's per-user limits (caller_ucounts) for the
 * sandbox's namespace (limits.h): through the sys/user of the sandbox's own
 * /proc, just mounted beneath root, whose lookups walk no other
 * namespace's entries; where it could not be mounted (root -1), through
 * the host's /proc/sys/user, still visible here before pivot_root.  A
 * lookup answers for this process's user namespace: the sandbox's.
 */
static void halve_ucounts(int root)
{
	int arg, dfd = root >= 0 ? open_beneath(root, "proc/sys/user", O_RDONLY | O_DIRECTORY)
				 : open(LIMITS_UC_DIR_PATH, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		refuse(ACH_REF_USER_LIMIT, limits_ucount_arg(LIMITS_UC_DIR, errno));
	int r = limits_ucounts_halve(dfd, caller_ucounts, &arg);
	close(dfd);
	if (r < 0)
		refuse(ACH_REF_USER_LIMIT, arg);
	if (r > 0)
		auditch_send(AUDIT_FD, ACH_DEG_USER_LIMIT, arg);
}

/*
 * Build the command's root: an empty tmpfs holding each grant bound at its
 * own path, a minimal /dev, the sandbox's own /proc and the pre-resolved
 * /etc files; then make the tmpfs read-only and pivot into it.  Runs in
 * the init (PID 1 of the new pid namespace) because procfs takes its pid
 * namespace from the mounting process, and must be mounted while the
 * host's /proc is still visible in this mount namespace.
 */
static void build_view(struct policy *p, const struct netpol_files *dns)
{
	int *fds = calloc(p->ngrants ? p->ngrants : 1, sizeof(int));
	struct stat st;

	if (!fds)
		refuse(ACH_REF_MOUNT, ENOMEM);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		refuse(ACH_REF_MOUNT, errno);
	/* Parents before children.  The harness sorted already, so grant
	 * indices on the audit channel match its own order. */
	policy_sort(p);

	/* Open and re-check every grant before anything is mounted: the pin is
	 * what was vetted in the harness. */
	for (size_t i = 0; i < p->ngrants; i++) {
		struct policy_grant *g = &p->grants[i];
		char link[PATH_MAX], fdp[64];
		fds[i] = -1;
		if (g->link || g->is_proc)
			continue;
		fds[i] = open(g->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fds[i] < 0)
			refuse(ACH_REF_GRANT_OPEN, (int)i);
		if (fstat(fds[i], &st) < 0 || st.st_dev != g->dev || st.st_ino != g->ino)
			refuse(ACH_REF_GRANT_CHANGED, (int)i);
		fd_path(fdp, sizeof(fdp), fds[i]);
		ssize_t n = readlink(fdp, link, sizeof(link) - 1);
		if (n < 0)
			refuse(ACH_REF_GRANT_OPEN, (int)i);
		link[n] = '\0';
		if (strcmp(link, g->path) != 0)
			refuse(ACH_REF_GRANT_CHANGED, (int)i);
		g->is_dir = S_ISDIR(st.st_mode);
		uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
		if (!(g->access & POL_WRITE))
			attrs |= MOUNT_ATTR_RDONLY;
		if (!(g->access & POL_EXEC))
			attrs |= MOUNT_ATTR_NOEXEC;
		int t = clone_tree(fds[i], attrs);
		if (t < 0)
			refuse(ACH_REF_MOUNT_GRANT, (int)i);
		close(fds[i]);
		fds[i] = t;
	}
	int devfds[SBX_ARRAY_LEN(dev_nodes)];
	for (size_t i = 0; i < SBX_ARRAY_LEN(dev_nodes); i++) {
		char path[32];
		snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
		/* The node cloned by its path (three system calls each, not
		 * five: no descriptor of the host's node to open and close);
		 * one that is not a character device is let go. */
		devfds[i] = (int)syscall(SYS_open_tree, AT_FDCWD, path,
					 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
		if (devfds[i] < 0)
			continue;
		/* Read-only: the node's own reads and writes do not need a
		 * writable mount (a device is not written through its inode),
		 * but chmod, utimes and xattrs would reach the host's node. */
		struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC };
		if (fstat(devfds[i], &st) < 0 || !S_ISCHR(st.st_mode) ||
		    syscall(__NR_mount_setattr, devfds[i], "", AT_EMPTY_PATH, &a, sizeof(a)) < 0) {
			close(devfds[i]);
			devfds[i] = -1;
		}
	}

	stdio_own_devices();

	/* The staging point: /tmp of this private mount namespace; the host's
	 * /tmp is untouched and every grant is already held by descriptor. */
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m,nr_inodes=4096") < 0)
		refuse(ACH_REF_MOUNT, errno);
	int root = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || fstat(root, &st) < 0)
		refuse(ACH_REF_MOUNT, errno);
	dev_t tmpfs_dev = st.st_dev;

	struct strv pinned = { 0 };
	for (size_t i = 0; i < p->ngrants; i++) {
		struct policy_grant *g = &p->grants[i];
		int fd = fds[i];
		if (g->link || g->is_proc)
			continue;
		/* The innermost grant holding this one, attached already
		 * (parents come first); writable: pin what lies between. */
		const struct policy_grant *outer = NULL;
		for (size_t k = 0; k < i; k++) {
			const struct policy_grant *o = &p->grants[k];
			if (!o->link && !o->is_proc && o->is_dir && strcmp(o->path, g->path) != 0 &&
			    path_within(g->path, o->path) && (!outer || strlen(o->path) > strlen(outer->path)))
				outer = o;
		}
		if (outer && (outer->access & POL_WRITE) && pin_between(root, outer->path + 1, g->path + 1, &pinned) < 0)
			refuse(ACH_REF_MOUNT_GRANT, (int)i);
		if (attach_at(root, g->path + 1, fd, g->is_dir, tmpfs_dev) < 0)
			refuse(ACH_REF_MOUNT_GRANT, (int)i);
	}
	strv_free(&pinned);
	for (size_t i = 0; i < p->ngrants; i++) {
		struct policy_grant *g = &p->grants[i];
		if (!g->link)
			continue;
		char *slash = strrchr(g->path, '/');
		if (slash && slash != g->path) {
			*slash = '\0';
			int r = make_path(root, g->path + 1, 1, tmpfs_dev);
			*slash = '/';
			if (r < 0)
				refuse(ACH_REF_MOUNT, errno);
		}
		if (symlinkat(g->link, root, g->path + 1) < 0 && errno != EEXIST)
			refuse(ACH_REF_MOUNT, errno);
	}

	/* A minimal /dev: the host's character devices bound one by one
	 * (a user namespace cannot mknod), and links into /proc. */
	int dfd = make_path_open(root, "dev", 1, tmpfs_dev);
	if (dfd < 0)
		refuse(ACH_REF_MOUNT, errno);
	/* With /dev on the staging tmpfs (no grant holds it), each node's
	 * mount point is a file made here, new (O_EXCL), and the node is
	 * moved onto that descriptor: three system calls, not seven.  A
	 * name already there (a grant of /dev/null) takes the general way. */
	int dev_staged = fstat(dfd, &st) == 0 && st.st_dev == tmpfs_dev;
	for (size_t i = 0; i < SBX_ARRAY_LEN(dev_nodes); i++) {
		if (devfds[i] < 0)
			continue;
		int f = dev_staged ? openat(dfd, dev_nodes[i], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644)
				   : -1;
		int r = f >= 0 ? (int)syscall(SYS_move_mount, devfds[i], "", f, "",
					      MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
			       : attach_at(dfd, dev_nodes[i], devfds[i], 0, tmpfs_dev);
		if (r < 0)
			refuse(ACH_REF_MOUNT, errno);
		if (f >= 0)
			close(f);
		close(devfds[i]);
	}
	{
		static const char *const links[][2] = {
			{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
			{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
		};
		for (size_t i = 0; i < SBX_ARRAY_LEN(links); i++)
			if (symlinkat(links[i][1], dfd, links[i][0]) < 0 && errno != EEXIST)
				refuse(ACH_REF_MOUNT, errno);
		close(dfd);
	}

	if (p->net == POL_NET_NONE)
		ns_pre();
	mount_private(p, root, tmpfs_dev);
	mount_masks(p, root);

	/* The sandbox's own /proc, read-only: it lists this pid namespace only,
	 * never the harness or the supervisor.  Writable for a moment first:
	 * the sandbox's half of the caller's per-user limits is written
	 * through it. */
	{
		int pfd = make_path_open(root, "proc", 1, tmpfs_dev);
		if (pfd < 0)
			refuse(ACH_REF_MOUNT, errno);
		char dst[64];
		fd_path(dst, sizeof(dst), pfd);
		int mounted = pfd >= 0 && mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0;
		if (!mounted)
			auditch_send(AUDIT_FD, ACH_DEG_PROC, errno);
		halve_ucounts(mounted ? root : -1);
		if (mounted && set_mount_attr(root, "proc", MOUNT_ATTR_RDONLY, 0) < 0)
			refuse(ACH_REF_MOUNT, errno);
		if (mounted && proc_keys_granted(p) && mask_proc_keys(root) < 0)
			refuse(ACH_REF_MOUNT, errno);
		if (pfd >= 0)
			close(pfd);
	}

	if (netpol_bind_files(root, dns, tmpfs_dev) < 0)
		refuse(ACH_REF_DNS, netpol_refusal_arg(errno, -1));

	for (size_t i = 0; i < p->ngrants; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);

	/* Nothing more is created in the root: make it read-only, then pivot. */
	if (set_mount_attr(root, "", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0) < 0)
		refuse(ACH_REF_MOUNT, errno);
	if (fchdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		refuse(ACH_REF_MOUNT, errno);
	if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		refuse(ACH_REF_MOUNT, errno);
	close(root);
}

int helper_env_for_command_only(const char *name)
{
	/* glibc's unsecure-envvars.h, as of 2.36; LD_ covers its LD_ names
	 * and any a later loader reads. */
	static const char *const names[] = {
		"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
		"NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR",
	};
	if (strncmp(name, "LD_", 3) == 0 || strncmp(name, "MALLOC_", 7) == 0 ||
	    strncmp(name, HELPER_CMDENV_PREFIX, sizeof(HELPER_CMDENV_PREFIX) - 1) == 0)
		return 1;
	for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

/* The command's own names back (helper_env_for_command_only). */
static void command_env(void)
{
	const size_t pl = sizeof(HELPER_CMDENV_PREFIX) - 1;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, HELPER_CMDENV_PREFIX, pl) == 0)
			*e += pl;
}

/* ---- stage 3: the command --------------------------------------------- */

/*
 * Job control.  The command runs in a session of its own (setsid: no
 * controlling terminal, so no TIOCSTI and no VT ioctls), where the
 * kernel's job control does not reach it: put in the background (started
 * with '&', or ^Z then bg) it would go on reading the terminal it was
 * given, taking the keys typed for the shell in the foreground (a
 * password), where a background job of the shell is stopped by SIGTTIN.
 * The init is still in the caller's process group, so it gets what the
 * terminal and the shell send that group (SIGTSTP on ^Z, SIGCONT on fg and
 * bg) and passes it on: a stop stops every other process of the sandbox,
 * a continue continues them only while the caller is in the foreground.
 * The signals are blocked in the init from its start (a namespace's init
 * discards a default-action signal it does not block), so a ^Z while the
 * view is built is not lost; the command stage gives the caller's mask
 * back.
 */
static sigset_t caller_mask;

static void job_signals(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGCHLD);
	sigaddset(s, SIGTSTP);
	sigaddset(s, SIGTTIN);
	sigaddset(s, SIGTTOU);
	sigaddset(s, SIGCONT);
}

int helper_stdio_tty_eio(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (!isatty(fd))
			continue;
		ssize_t r;
		while ((r = read(fd, NULL, 0)) < 0 && errno == EINTR)
			;
		if (r < 0 && errno == EIO)
			return fd;
	}
	return -1;
}

/* 1 when the caller's job is in the background of the terminal it gave
 * the command.  Process groups cannot be compared here (the caller's lie
 * outside this pid namespace), so the terminal's own check answers: with
 * SIGTTIN blocked it fails with EIO in the background of the init's
 * controlling terminal. */
static int caller_in_background(void)
{
	return helper_stdio_tty_eio() >= 0;
}

/* How often the init looks whether a caller held in the background was
 * brought to the foreground: fg of a job running in the background moves
 * the terminal without a signal. */
#define JOB_POLL_MS 100

/* Before the command exists: wait until the caller is in the foreground. */
static void wait_foreground(void)
{
	sigset_t s;
	struct timespec tick = { 0, JOB_POLL_MS * 1000000L };
	job_signals(&s);
	sigdelset(&s, SIGCHLD);
	while (caller_in_background())
		if (sigtimedwait(&s, NULL, &tick) < 0 && errno != EAGAIN && errno != EINTR)
			_exit(EXIT_REFUSED);
}

/* The value of the SIGCONT the supervisor queues to an init that was
 * stopped by a signal it cannot block or see (SIGSTOP): it continues the
 * init, which then stops and holds the sandbox as for a ^Z (hold_init). */
#define JOB_RESTOP 0x53544f50

/* What the init did to the sandbox's other processes for job control. */
enum job_state { JOB_RUNNING, JOB_STOPPED, JOB_HELD_BG };

/*
 * A stop must hold.  SIGSTOP alone does not: a stopped process is
 * continued by any SIGCONT the kernel generates for it, and the command
 * can arm those itself (a POSIX timer, or O_ASYNC with F_SETSIG on the
 * terminal, which fires as a key arrives) and then read the keys typed
 * for the shell.  So the init also seizes every thread of the sandbox
 * (PTRACE_SEIZE, PTRACE_INTERRUPT): a tracee in a ptrace stop is not woken
 * by SIGCONT, only by its tracer.  What a seized process forks is seized
 * with it and starts stopped; each pass stops everything first, and the
 * passes end when one finds no thread left to seize.
 */
#define FREEZE_PASSES 64
#define SEIZE_OPTS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)

/* Why a stop could not be made to hold (an errno), 0 while it can. */
static int freeze_err;

/* fn on every thread of the sandbox but the init's; the sum of its answers. */
static int each_thread(int (*fn)(pid_t))
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d) {
		freeze_err = ENOENT;	/* no /proc of the sandbox's own: its threads cannot be found */
		return 0;
	}
	while ((e = readdir(d))) {
		char path[64];
		uint64_t v;
		if (parse_u64(e->d_name, 2, INT_MAX, &v) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%llu/task", (unsigned long long)v);
		DIR *t = opendir(path);
		struct dirent *f;
		while (t && (f = readdir(t)))
			if (parse_u64(f->d_name, 2, INT_MAX, &v) == 0)
				n += fn((pid_t)v);
		if (t)
			closedir(t);
	}
	closedir(d);
	return n;
}

/* /proc/TID/NAME into buf; its length, -1 when the thread is gone. */
static ssize_t read_task_file(pid_t tid, const char *name, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
	ssize_t n = read_small_at(AT_FDCWD, path, 0, buf, cap);
	return n > 0 ? n : -1;
}

/* 1 when the thread cannot run again unheld: the init traces it, or it is
 * exiting (PF_EXITING, which a zombie has too, refuses a seize with EPERM)
 * or gone. */
static int thread_held(pid_t tid)
{
	char buf[1024];
	if (read_task_file(tid, "stat", buf, sizeof(buf)) < 0)
		return 1;
	const char *f = strrchr(buf, ')');
	unsigned long flags = 0;
	/* after the name: state ppid pgrp session tty_nr tpgid flags */
	if (!f || sscanf(f + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return 0;
	if (flags & PF_EXITING)
		return 1;
	if (read_task_file(tid, "status", buf, sizeof(buf)) < 0)
		return 1;
	const char *t = strstr(buf, "\nTracerPid:");
	return t && strtol(t + 12, NULL, 10) == 1;
}

static int seize(pid_t tid)
{
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)SEIZE_OPTS) == 0) {
		(void)ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
		return 1;
	}
	/* EPERM is also the answer for a thread seized already: one the
	 * init does not hold (ptrace refused by an LSM such as Yama's
	 * ptrace_scope 3, or the thread traced from the host) would go on
	 * at the first SIGCONT. */
	int e = errno;
	if (e != ESRCH && !thread_held(tid) && !freeze_err)
		freeze_err = e;
	return 0;
}

/*
 * Reap one child that is ready, without blocking: its pid (st filled), 0
 * when none is, -1 on error.  Looked at first and reaped by its pid, so
 * the command's CPU time can be read while it is a zombie still: a
 * reaped process's clock is gone, and the rusage it leaves behind is not
 * the figure RLIMIT_CPU was held against (limits_report_kill).
 */
static pid_t reap_one(pid_t child, int *st, long long *cpu_ms)
{
	siginfo_t si;
	si.si_pid = 0;
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
		return -1;
	if (si.si_pid == 0)
		return 0;
	if (si.si_pid == child && (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED))
		*cpu_ms = limits_cpu_sample(child);
	return waitpid(si.si_pid, st, __WALL | WNOHANG);
}

/* Let a seized thread go, with the signal it was stopped delivering (a
 * stop signal is dropped: a continue follows). */
static int release(pid_t tid)
{
	siginfo_t si;
	long sig = 0;
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0 && !(si.si_signo == SIGTRAP && (si.si_code >> 8) != 0) &&
	    si.si_signo != SIGSTOP && si.si_signo != SIGTSTP && si.si_signo != SIGTTIN && si.si_signo != SIGTTOU)
		sig = si.si_signo;
	(void)ptrace(PTRACE_DETACH, tid, NULL, (void *)sig);
	return 0;
}

/* Stop the sandbox and hold it stopped.  Where it cannot be held, the
 * stop fails closed: every process of the sandbox is killed, and the
 * run is reported refused (mechanism=job-control), since a stopped job
 * left able to run could read the keys typed for the shell. */
static void freeze(void)
{
	int i;
	for (i = 0; i < FREEZE_PASSES; i++) {
		kill(-1, SIGSTOP);
		if (!each_thread(seize) || freeze_err)
			break;
	}
	if (i == FREEZE_PASSES && !freeze_err)
		freeze_err = EAGAIN;	/* new threads outran every pass */
	if (freeze_err) {
		kill(-1, SIGKILL);
		auditch_send(AUDIT_FD, ACH_REF_JOBCTL, freeze_err);
	}
}

/* Every seized thread that is in its stop now; one still on its way there
 * is released when it reports the stop (init_stage). */
static void thaw(void)
{
	(void)each_thread(release);
	kill(-1, SIGCONT);
}

/*
 * What the last job-control signal of one signalfd batch asks (stop or
 * cont, never both).  A stop always stops; only a continue lets the
 * sandbox go on (after ^Z the terminal stays the caller's until its shell
 * takes it back), and only in the foreground: continued in the background
 * (bg) it stays stopped, held until the caller is in the foreground again.
 */
static enum job_state job_control(enum job_state now, int stop, int cont)
{
	if (cont && !caller_in_background()) {
		if (now != JOB_RUNNING)
			thaw();
		return JOB_RUNNING;
	}
	if (cont || stop) {
		freeze();
		return cont ? JOB_HELD_BG : JOB_STOPPED;
	}
	return now;
}

/*
 * The capability bounding set, emptied once the user namespace exists
 * (make_namespaces): the supervisor holds every capability there then,
 * and the set passes unchanged to the init and the command stage, which
 * execute nothing before the command.  It bounds only what an execve
 * gives, so the init's own capabilities are untouched.  Done there, in
 * the supervisor's wait for the start message, rather than as forty-odd
 * system calls in the command stage.  bset_err: -1 not yet, else 0 or
 * the first error (the command stage records it).
 */
static int bset_err = -1;

static void drop_bounding_set(void)
{
	bset_err = 0;
	for (int c = 0; c <= 63; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;	/* past the last capability this kernel knows */
			if (!bset_err)
				bset_err = errno;
		}
	}
}

static void drop_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	/* A uid 0 inside the namespace must not regain capabilities on execve. */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
					     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
					     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		  0, 0, 0) < 0)
		refuse(ACH_REF_PRIVS, errno);
	if (bset_err < 0)
		drop_bounding_set();
	if (bset_err)
		auditch_send(AUDIT_FD, ACH_DEG_CAPBSET, bset_err);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		refuse(ACH_REF_PRIVS, errno);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		refuse(ACH_REF_PRIVS, errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		refuse(ACH_REF_PRIVS, errno);
}

/*
 * A descriptor 0-2 that is one of the view's character devices but the
 * caller's node (</dev/null, >/dev/null, 2>/dev/urandom) is swapped for
 * the view's own: the same device, opened the same way, but on the view's
 * read-only mount (the inode may be the same: the mount differs), so fchmod, fchown, utimes and xattrs through it
 * (/proc/self/fd/0 too) fail with EROFS instead of changing the host's
 * node for every user — which sandbox-run could put back only if it got
 * to, and not between two runs that overlap.  /dev/tty is left alone:
 * opening it names the session's terminal, not a device of its own.
 */
static void stdio_view_devices(void)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st, vs;
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
			continue;
		for (size_t i = 0; i < SBX_ARRAY_LEN(dev_nodes); i++) {
			char path[32];
			snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i]);
			if (strcmp(dev_nodes[i], "tty") == 0 || stat(path, &vs) < 0 || !S_ISCHR(vs.st_mode) ||
			    vs.st_rdev != st.st_rdev)
				continue;
			int nfd = open(path, (fl & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_NOCTTY | O_CLOEXEC);
			if (nfd < 0 || dup2(nfd, fd) < 0)
				refuse(ACH_REF_MOUNT, errno);
			close(nfd);
			break;
		}
	}
}

/*
 * A binfmt_misc handler registered with the F flag ("fix binary", as
 * qemu-user's and Docker's binfmt register theirs) holds its interpreter
 * open from registration, on the host's mount: a file of its format in an
 * execute grant ran that interpreter in the sandbox even when it lay
 * outside every grant, and its /proc/self/exe led back to the host's
 * mount, where its owner may chmod it (Landlock has no right for that).
 * Since Linux 6.7 (below the Landlock ABI sandbx needs) a user namespace
 * may have a binfmt_misc of its own, which the kernel consults instead of
 * its ancestors'; creating one, empty, for the sandbox's namespace leaves
 * the host's handlers out.  Its superblock is made and let go, never
 * mounted: the namespace keeps its (empty) table.  A kernel without
 * binfmt_misc (ENODEV) has no handlers to leave out.
 */
static void own_binfmt_misc(void)
{
	int fs = fsopen("binfmt_misc", FSOPEN_CLOEXEC);
	if (fs < 0 && errno == ENODEV)
		return;
	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		refuse(ACH_REF_MOUNT, errno);
	close(fs);
}

/*
 * The pinned program's path as the supervisor found it, on the host's
 * root, before any namespace: the path of the descriptor the harness
 * opened and hashed (/proc/self/fd/PIN_FD), every link resolved.
 */
static char pin_path[PATH_MAX];

/*
 * The harness opened and hashed the pinned program on the host's own
 * mount, where the file's owner (root, for a root caller's system
 * programs) may chmod it, change its times and xattrs: Landlock has no
 * right for these, only a read-only mount refuses them.  Executed
 * through that descriptor, the command's /proc/self/exe led back to that
 * mount.  So open the program again at its path in the view, whose
 * mount of it is read-only, nosuid and nodev, and execute that
 * descriptor instead, if it is the very inode the harness hashed: the
 * pin's descriptor still holds that inode, so its number cannot have
 * been reused.  A program renamed, removed or replaced since it was
 * hashed refuses the run.
 */
static void pin_through_view(void)
{
	struct stat want, got;
	int fd = open(pin_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		refuse(ACH_REF_PIN, errno);
	if (fstat(PIN_FD, &want) < 0 || fstat(fd, &got) < 0)
		refuse(ACH_REF_PIN, errno);
	if (want.st_dev != got.st_dev || want.st_ino != got.st_ino)
		refuse(ACH_REF_PIN, ESTALE);
	if (dup3(fd, PIN_FD, O_CLOEXEC) < 0)
		refuse(ACH_REF_PIN, errno);
	close(fd);
}

int helper_core_pattern_to_host(const char *pattern)
{
	return pattern[0] == '|' || pattern[0] == '@';
}

/*
 * The command dumps no core, neither into a file of its view nor to the
 * host.  A core_pattern that is a pipe (Ubuntu's apport, systemd-coredump
 * on most other distributions) has the kernel start that program, as
 * root and outside every namespace of the sandbox, and write the dump to
 * it, whatever RLIMIT_CORE says: a limit of 0 stops only a file.  A limit
 * of exactly one byte is the kernel's own mark for "no dump through a
 * pipe" (fs/coredump.c, for a crash of the helper itself), and is less
 * than the smallest ELF core a file could hold.  So the limit is one
 * byte, soft and hard, and the filter keeps the command from lowering
 * it (seccomp.c).  A caller whose hard limit is 0 cannot give 1 (raising
 * a hard limit takes CAP_SYS_RESOURCE): it keeps 0, which is enough for
 * a file pattern, and the run is refused where the pattern reaches the
 * host, or cannot be read.
 */
static void core_limit(void)
{
	struct rlimit one = { 1, 1 }, zero = { 0, 0 };
	char pat[64];
	if (setrlimit(RLIMIT_CORE, &one) == 0)
		return;
	int e = errno;
	if (setrlimit(RLIMIT_CORE, &zero) < 0)
		refuse(ACH_REF_PRIVS, errno);
	if (read_small_at(AT_FDCWD, "/proc/sys/kernel/core_pattern", 0, pat, sizeof(pat)) < 0)
		refuse(ACH_REF_COREDUMP, errno);
	if (helper_core_pattern_to_host(pat))
		refuse(ACH_REF_COREDUMP, e);
}

/*
 * The command schedules as an ordinary user's process does.  Its
 * capabilities inside the user namespace count for nothing here: the
 * kernel asks CAP_SYS_NICE of the initial namespace, and without it
 * looks only at RLIMIT_RTPRIO (SCHED_FIFO/SCHED_RR, through
 * sched_setscheduler, sched_setattr, pthread_setschedparam) and
 * RLIMIT_NICE (a nice value below the present one, and leaving
 * SCHED_IDLE).  A caller's may be raised (audio groups get rtprio 95 from
 * limits.d; root's hard limits are unlimited), and a real-time thread
 * that spins keeps the host's ordinary processes off its CPU but for the
 * kernel's throttling share.  So both are 0, soft and hard, which the
 * command cannot raise again; and a real-time policy the caller itself
 * runs under (chrt) is left for SCHED_OTHER, keeping the caller's nice
 * value, since a task already SCHED_FIFO stays so whatever its limit.
 * SCHED_DEADLINE needs CAP_SYS_NICE whatever the limits, and a deadline
 * task cannot fork, so none reaches here.  RLIMIT_RTTIME is left as it
 * is: it bounds only a real-time task, which the command can no longer
 * make itself, and even then only CPU time between two blocking calls,
 * so a thread that sleeps a moment each tick would not meet it.
 */
static void sched_ordinary(void)
{
	struct rlimit zero = { 0, 0 };
	struct sched_param other = { .sched_priority = 0 };
	if (setrlimit(RLIMIT_RTPRIO, &zero) < 0 || setrlimit(RLIMIT_NICE, &zero) < 0)
		refuse(ACH_REF_SCHED, errno);
	int pol = sched_getscheduler(0);
	if (pol < 0)
		refuse(ACH_REF_SCHED, errno);
	pol &= ~SCHED_RESET_ON_FORK;
	if ((pol == SCHED_FIFO || pol == SCHED_RR) && sched_setscheduler(0, SCHED_OTHER, &other) < 0)
		refuse(ACH_REF_SCHED, errno);
}

/* notify_fd >= 0 (port mode): the filter answers listen() through the
 * init; its listener descriptor goes to the init over notify_fd. */
static _Noreturn void command_stage(struct policy *p, char **cmd, int have_pin, int abi,
				    const struct netpol_files *dns, int bpf_fd, int notify_fd)
{
	static struct seccomp_bpf bpf;

	sigprocmask(SIG_SETMASK, &caller_mask, NULL);	/* the init's job signals */
	/* Most of the Landlock ruleset, made by the namespace child while the
	 * view was built (helper.h). */
	int prebuilt = p->net == POL_NET_NONE ? ns_rules(abi) : -1;

	/* Descriptors 0-2 cross as the caller chose, so one of them must not
	 * be a way around the view: a directory (openat, fchmodat, connect
	 * through /proc/self/fd/N/..., any path of the host beneath it) or an
	 * O_PATH handle. */
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && ((fl & O_PATH) || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))))
			refuse(ACH_REF_STDIO, fd);
	}
	stdio_view_devices();

	/* The supervisor compiled the filter while the view was built. */
	int sr = seccomp_filter_read(bpf_fd, &bpf);
	if (sr < 0)
		refuse(ACH_REF_SECCOMP, -sr);
	close(bpf_fd);

	if (setsid() < 0)
		refuse(ACH_REF_PRIVS, errno);
	/* Only 0-2, the audit channel (closed by execve) and the pin cross;
	 * the socket to the init sits just above them until the filter's
	 * listener has been passed, and is closed before the exec. */
	fcntl(AUDIT_FD, F_SETFD, FD_CLOEXEC);
	if (have_pin)
		pin_through_view();
	int keep = have_pin ? PIN_FD + 1 : AUDIT_FD + 1;
	if (notify_fd >= 0) {
		if (notify_fd != keep && (dup3(notify_fd, keep, O_CLOEXEC) < 0 || close(notify_fd) < 0))
			refuse(ACH_REF_PRIVS, errno);
		notify_fd = keep++;
	}
	if (prebuilt >= 0) {
		if (prebuilt != keep && (dup3(prebuilt, keep, O_CLOEXEC) < 0 || close(prebuilt) < 0))
			refuse(ACH_REF_PRIVS, errno);
		prebuilt = keep++;
	}
	if (syscall(__NR_close_range, keep, ~0U, 0) < 0)
		refuse(ACH_REF_PRIVS, errno);
	if (!p->cwd || chdir(p->cwd) < 0) {
		if (chdir("/") < 0)
			refuse(ACH_REF_MOUNT, errno);
	}
	core_limit();
	sched_ordinary();
	/* A memory limit held by rlimits: no System V objects (seccomp.h).
	 * Built and loaded before the limits apply: libseccomp allocates, and
	 * under a sanitizer's allocator an address-space limit fails it. */
	if (p->limits[LIM_MEMORY] && !limits_by_cgroup(LIM_MEMORY) && seccomp_sysv_install() < 0)
		refuse(ACH_REF_SECCOMP, EINVAL);
	/* No signal scope below ABI 6: no SIGIO the kernel addresses to the
	 * terminal's foreground process group, the caller's job (seccomp.h). */
	if (!(landlock_scopes(abi) & LANDLOCK_SCOPE_SIGNAL) && seccomp_async_install() < 0)
		refuse(ACH_REF_SECCOMP, EINVAL);
	limits_apply_rlimits(p, AUDIT_FD);
	command_env();
	netpol_apply_env(p);
	drop_privileges();

	int listener = -1;
	int r = seccomp_filter_load_bpf(&bpf, notify_fd >= 0 ? &listener : NULL);
	if (r < 0)
		refuse(ACH_REF_SECCOMP, -r);
	if (notify_fd >= 0) {
		if (send_fd(notify_fd, listener) < 0)
			refuse(ACH_REF_SECCOMP, errno ? errno : EPROTO);
		close(listener);
		close(notify_fd);
	}
	int label = 0, arg = 0;
	struct landlock_extra rules[SBX_ARRAY_LEN(helper_dev_rules) + POLICY_NSCRATCH + NETPOL_NRULES];
	size_t nrules = SBX_ARRAY_LEN(helper_dev_rules);
	memcpy(rules, helper_dev_rules, sizeof(helper_dev_rules));
	for (size_t i = 0; i < POLICY_NSCRATCH; i++)	/* what build_view mounted */
		if (policy_scratch_private(p, i))
			rules[nrules++] = (struct landlock_extra){ policy_scratch_dirs[i], PRIVATE_RIGHTS };
	if (dns->active) {
		memcpy(rules + nrules, netpol_landlock_rules, sizeof(netpol_landlock_rules));
		nrules += NETPOL_NRULES;
	}
	/* The namespace child's ruleset holds the device nodes' rules; the
	 * view's own trees, and grants under its /proc, are added to it. */
	if (prebuilt >= 0 ? landlock_apply_prebuilt(prebuilt, p, abi, rules + helper_ndev_rules,
						    nrules - helper_ndev_rules, &label, &arg) < 0
			  : landlock_apply(p, abi, rules, nrules, &label, &arg) < 0)
		refuse((enum auditch_label)label, arg);
	/* Last: Landlock opens each grant, and --limit-open-files may be
	 * lower than the descriptors that takes. */
	limits_apply_nofile(p, AUDIT_FD);

	if (have_pin)
		syscall(SYS_execveat, PIN_FD, "", cmd, environ, AT_EMPTY_PATH);
	else
		execvp(cmd[0], cmd);
	int e = errno;
	/* execve answers EACCES for a directory as for a file without its
	 * execute bit, and "needs an --allow-exec grant" then misleads */
	struct stat dst;
	if (e == EACCES && !have_pin && strchr(cmd[0], '/') && stat(cmd[0], &dst) == 0 && S_ISDIR(dst.st_mode))
		e = EISDIR;
	auditch_send(AUDIT_FD, ACH_EXEC_FAILED, e);
	_exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* ---- stage 2: the init ------------------------------------------------- */

/* The port an inet socket reports bound (getsockname), 0 for none, -1 for
 * another family or an error (errno). */
static int sock_port(int sock, int *family)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	if (getsockname(sock, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*family = a.ss_family;
	if (a.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&a)->sin_port);
	if (a.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
	return -1;
}

/*
 * Port mode: answer one listen() of the command's (seccomp user
 * notification).  The init takes the very socket from the caller
 * (pidfd_getfd) and makes the listen() itself on it: continuing the
 * caller's call instead would let another of its threads put an unbound
 * socket under the same descriptor number in between.  It refuses (EACCES)
 * a socket whose port is not one of the policy's, since listen() would
 * bind it to an ephemeral port that Landlock's bind rule never sees.  The
 * port getsockname reports can be stale (the one a failed or undone
 * connect() took and gave back), so the port after the listen() must be
 * the same one; if not, the socket is shut down again, before the call
 * returns to anyone who could accept on it.
 *
 * A forked child of the init's does this, never the init, and the init
 * does not wait for it.  A close() that is the last one of a TCP socket
 * with SO_LINGER set and data still unsent waits until the peer takes
 * the data, up to the linger time, and the command can make this
 * child's the last (by closing its own descriptor while the child holds
 * the socket).  The child's last reference does not always go at its
 * exit, where the kernel never lingers: on Linux 6.18 it was seen to go
 * in a system call before it, the close running on that call's return
 * (task work), so the child lingered there.  While the child was a vfork
 * the init waited with it, answering no listen() and passing on no stop
 * of the terminal's for the linger time.  Now only the child waits; the
 * init kills it with the rest when the command ends.
 */
static _Noreturn void answer_listen(int listener, const struct policy *p, const struct seccomp_notif *rq)
{
	struct seccomp_notif req = *rq;
	struct seccomp_notif_resp resp;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = -EPERM;
	/* req.pid is the calling thread: a thread pidfd where the kernel has
	 * them (6.9), else the caller must be a thread-group leader. */
	int pidfd = (int)syscall(SYS_pidfd_open, req.pid, PIDFD_THREAD), sock = -1;
	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, req.pid, 0);
	/* The id still pending means req.pid is still the caller: pidfd
	 * then names it, whatever happens to the number later. */
	if (req.data.nr == __NR_listen && pidfd >= 0 && ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0)
		sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)req.data.args[0], 0);
	if (sock < 0 && errno == EBADF)
		resp.error = -EBADF;
	if (sock >= 0) {
		int family = AF_UNSPEC, port = sock_port(sock, &family), listed = 0;
		for (size_t i = 0; i < p->nports && port > 0; i++)
			listed |= p->ports[i] == port;
		if (port < 0 && family == AF_UNSPEC) {
			resp.error = -errno;	/* not a socket, ... */
		} else if (port < 0) {
			/* not inet (a socketpair end): nothing to bind */
			resp.error = listen(sock, (int)req.data.args[1]) < 0 ? -errno : 0;
		} else if (!listed) {
			resp.error = -EACCES;
		} else if (listen(sock, (int)req.data.args[1]) < 0) {
			resp.error = -errno;
		} else {
			int f2 = AF_UNSPEC;
			if (sock_port(sock, &f2) == port) {
				resp.error = 0;
			} else {
				shutdown(sock, SHUT_RDWR);
				resp.error = -EACCES;
			}
		}
	}
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	_exit(0);	/* sock and pidfd go with the exit, if no call above let them go */
}

/*
 * Receive one listen() and have a child answer it (answer_listen); the
 * init reaps it with the rest.  A fork, not a vfork: a vfork's parent
 * waits until the child exits, and the child can be held in a lingering
 * close (above).  It costs the copy of the init's page tables: a listen()
 * was answered in 1.4 ms (median) instead of 0.14 ms with the vfork, on
 * this PVM guest.
 * No child to be had (the command holds every process the limit
 * allows): EAGAIN, the socket untouched.
 */
static void serve_listen(int listener, const struct policy *p)
{
	struct seccomp_notif req;
	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;	/* the caller died, or was interrupted */
	pid_t c = fork();
	if (c == 0)
		answer_listen(listener, p, &req);
	if (c < 0) {
		struct seccomp_notif_resp resp = { .id = req.id, .error = -EAGAIN };
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

static _Noreturn void init_stage(struct policy *p, char **cmd, int have_pin, int abi, int alive_fd,
				 const struct netpol_files *dns, int bpf_fd, int ns_sock)
{
	struct pollfd pf = { .fd = alive_fd, .events = POLLIN };
	sigset_t all, jobs;

	/* The job-control signals queue from here on (job_signals). */
	job_signals(&jobs);
	sigprocmask(SIG_BLOCK, &jobs, &caller_mask);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* The supervisor may have died before the line above: its end of the
	 * liveness pipe is then closed. */
	if (poll(&pf, 1, 0) > 0)
		_exit(EXIT_REFUSED);
	close(alive_fd);

	build_view(p, dns);
	enter_netns(ns_sock, p->net == POL_NET_NONE);
	/* The supervisor's message above comes after it moved this process
	 * into the sandbox's cgroup (limits_attach), if one was made.  Root a
	 * cgroup namespace here, so the command's /proc/self/cgroup reads "/"
	 * rather than the host's hierarchy and the caller's session path. */
	if (unshare(CLONE_NEWCGROUP) < 0)
		refuse(ACH_REF_CGROUPNS, errno);

	int nsk[2] = { -1, -1 };
	if (p->net == POL_NET_PORTS && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, nsk) < 0)
		refuse(ACH_REF_FORK, errno);
	/* The init: nothing of ours is needed in the view any more.  Before
	 * the command exists, so the init is never dumpable while it runs
	 * (the command's own flag comes back with its execve). */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Started in the background ('&'): the command waits for fg. */
	wait_foreground();
	/*
	 * The command stage starts as a vfork: in the init's memory, while
	 * the init waits, until its execve or its exit.  A fork would copy
	 * the init's page tables and then fault in a private copy of each
	 * page either process writes, for memory the execve throws away: on
	 * a virtual machine where a fault costs microseconds, that was most
	 * of a millisecond (docs/internals/spawn.md).
	 *
	 * What the stage changes stays its own: descriptors, root and cwd,
	 * rlimits, session, credentials, seccomp and Landlock are per
	 * process.  What it writes to memory (the environment, the filter's
	 * buffer, the heap) is written by this code alone, before the exec,
	 * while the init is stopped; the command's program never shares the
	 * init's memory, since its execve gives it its own.  The stage never
	 * returns into this frame: command_stage ends in execve or _exit.
	 */
	/*
	 * The harness's read lease (open_pinned) holds writers off the pinned
	 * program until the exec, but a writer waits only fs.lease-break-time
	 * (45 s by default) for it, then the kernel breaks it and lets the
	 * writer through: a run held longer between the hash and here (started
	 * in the background and waiting for fg above, or stopped) would run
	 * what that writer wrote.  Still whole here, it is whole at the exec,
	 * a few system calls away (a writer arriving now waits a second and
	 * more, and then finds the program running: ETXTBSY).
	 */
	if (have_pin == 2 && fcntl(PIN_FD, F_GETLEASE) != F_RDLCK)
		refuse(ACH_REF_PIN, ETXTBSY);
	pid_t child = vfork();
	if (child < 0)
		refuse(ACH_REF_FORK, errno);
	if (child == 0) {
		if (nsk[0] >= 0)
			close(nsk[0]);
		command_stage(p, cmd, have_pin, abi, dns, bpf_fd, nsk[1]);
	}
	if (p->net == POL_NET_NONE)
		close(HELPER_NS_FD);	/* the command stage's now (ns_rules) */
	close(bpf_fd);

	/* The command stage has executed the pinned program (or failed to):
	 * from here the exec holds writers off itself, and the harness's
	 * read lease (open_pinned), which held them off until now, is let
	 * go so that a writer waiting on it need not wait for the run. */
	if (have_pin) {
		fcntl(PIN_FD, F_SETLEASE, F_UNLCK);
		close(PIN_FD);
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	enum job_state job = JOB_RUNNING;
	/* With a terminal among 0-2, whether the caller is still in the
	 * foreground is looked at every JOB_POLL_MS while the command runs. */
	int on_tty = isatty(0) || isatty(1) || isatty(2);
	long next_look = 0;	/* mono_ms() of the next look, 0: none due */
	long long cpu_ms = -1;
	int listener = -1, sfd = signalfd(-1, &jobs, SFD_CLOEXEC);
	if (sfd < 0)
		_exit(EXIT_REFUSED);	/* nothing could be reaped */
	if (nsk[0] >= 0) {
		close(nsk[1]);
		if (recv_fd(nsk[0], &listener) != 1)
			listener = -1;	/* it refused first: its record says why */
		close(nsk[0]);
	}
	for (;;) {
		int st;
		/* Wait for a signal (a child to reap, a job-control stop or
		 * continue) or, in port mode, a listen() to answer; then reap
		 * without blocking until none is left. */
		struct pollfd w2[2] = { { .fd = sfd, .events = POLLIN }, { .fd = listener, .events = POLLIN } };
		int watch = job == JOB_HELD_BG || (job == JOB_RUNNING && on_tty);
		/* A deadline, not poll's timeout alone: the command can make
		 * the init's SIGCHLDs come faster than that (orphans that
		 * exit), and poll would then never time out. */
		long t = mono_ms();
		if (!watch)
			next_look = 0;
		else if (!next_look)
			next_look = t + JOB_POLL_MS;
		int ready = poll(w2, listener >= 0 ? 2 : 1, !watch ? -1 : next_look > t ? (int)(next_look - t) : 0);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_REFUSED);
		}
		int look = watch && mono_ms() >= next_look;
		if (look)
			next_look = 0;
		if (look && job == JOB_HELD_BG && !caller_in_background()) {
			thaw();	/* fg of a job held in the background */
			job = JOB_RUNNING;
		} else if (look && job == JOB_RUNNING && caller_in_background()) {
			/* The caller's job lost the terminal without a signal
			 * the init saw: the harness alone was stopped (kill
			 * -STOP of its pid), and the shell took the terminal
			 * back.  Held as a job continued in the background is. */
			freeze();
			job = JOB_HELD_BG;
		}
		if (w2[0].revents & POLLIN) {
			struct signalfd_siginfo si[8];
			ssize_t n = read(sfd, si, sizeof(si));
			int stop = 0, cont = 0;
			for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(si[0]); i++) {
				uint32_t sig = si[i].ssi_signo;
				/* The last one counts.  A stop signal drops a
				 * pending SIGCONT and a SIGCONT every pending
				 * stop (the kernel's prepare_signal), so both
				 * are in one batch only when the second came
				 * while read() was dequeuing: it is later. */
				if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU ||
				    (sig == SIGCONT && si[i].ssi_code == SI_QUEUE && si[i].ssi_int == JOB_RESTOP)) {
					stop = 1;
					cont = 0;
				} else if (sig == SIGCONT) {
					cont = 1;
					stop = 0;
				}
			}
			job = job_control(job, stop, cont);
		}
		if (listener >= 0 && (w2[1].revents & POLLIN))
			serve_listen(listener, p);
		if (listener >= 0 && (w2[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
			close(listener);	/* no process uses the filter now */
			listener = -1;
		}
		pid_t w;
		while ((w = reap_one(child, &st, &cpu_ms)) != 0) {	/* 0: nobody else now */
			if (w < 0 && errno != EINTR)
				_exit(EXIT_REFUSED);
			if (w > 0 && WIFSTOPPED(st)) {
				/* A seized thread in its stop (freeze): held while
				 * the job is stopped, let go once it runs again. */
				if (job == JOB_RUNNING)
					release(w);
			} else if (w == child) {
				break;
			}
		}
		if (w == child) {
			int code = wait_status_code(st);
			if (WIFSIGNALED(st))
				limits_report_kill(p, WTERMSIG(st), cpu_ms, AUDIT_FD);
			/* Exiting empties the pid namespace: every process the
			 * command left behind is killed by the kernel.  Do it
			 * here first — kill everything (pid 1 is spared), reap
			 * until none is left — so the run can be reported over
			 * before this exit and the supervisor's: the harness
			 * need not wait for either.  Not when the supervisor
			 * may still have a record to add (limits_finish).  No
			 * child left, nothing is left to kill: a process of the
			 * namespace whose parent died is the init's child, and
			 * the kill would walk every process of the machine
			 * (some 40 µs here) to find none. */
			siginfo_t left;
			if (waitid(P_ALL, 0, &left, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 || errno != ECHILD) {
				kill(-1, SIGKILL);
				while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
					;
			}
			if (!limits_finish_has_news(st))
				auditch_send(AUDIT_FD, ACH_DONE, code);
			_exit(code);
		}
	}
}

/*
 * A descriptor among 0-2 that is an anonymous memory file (memfd_create,
 * of ordinary or huge pages): the first one, -1 when none is.  Its inode hangs from no directory of any mount a process
 * can see, on the kernel's internal mount, and Landlock lets every access
 * to such a file through (the path walk ends at a disconnected root of an
 * internal mount, which it allows): reopened through /proc/self/fd/N the
 * command could write a program into it, whatever the caller opened it
 * for, and execute it, where memfd_create itself is denied so that no code
 * without a path of an execute grant runs.  Told by the name the kernel
 * gives it ("/memfd:NAME (deleted)") on a tmpfs or hugetlbfs inode; an
 * unlinked file of /tmp (a here-document's) still has its directory,
 * which Landlock checks, and is passed as before.  One sealed against
 * every change is refused too: the command could not write it, but could
 * still execute it through /proc/self/fd/N, code from no execute grant.
 * Looked at in the supervisor, whose /proc is the caller's; a name that
 * cannot be read refuses.
 */
static int stdio_memfd(int fd, const struct stat *st)
{
	struct statfs sf;
	char fdp[64], link[16];
	if (!S_ISREG(st->st_mode) || fstatfs(fd, &sf) < 0 ||
	    (sf.f_type != TMPFS_MAGIC && sf.f_type != HUGETLBFS_MAGIC))
		return 0;
	fd_path(fdp, sizeof(fdp), fd);
	ssize_t n = readlink(fdp, link, sizeof(link));
	return n < 0 || (n >= 7 && memcmp(link, "/memfd:", 7) == 0);
}

/*
 * A socket among descriptors 0-2 that sandbx does not relay (relay.c
 * turns connected and unconnected stream sockets into pipes) is the
 * caller's own, in the caller's network namespace: a datagram socket
 * (UDP, a unix datagram socket, also when connected) sends to any address
 * given to sendto(), whatever the command's namespace and filter allow
 * for sockets it makes itself.  Measured: UDP through such a standard
 * input reached a host listener with no network flag and in port mode.
 * Passed: a unix stream or seqpacket socket that listens or is connected
 * (it accepts, or reaches its peer only), and in port mode a listening
 * TCP socket: a connection it accepts can be disconnected (connect with
 * AF_UNSPEC) and connected again anywhere, which Landlock's connect rule
 * polices in port mode only.  With no network, that took a command to a
 * host listener as soon as one client had connected (seen on 6.18).  Any
 * other is refused where the policy denies what it reaches: a unix one
 * without --allow-unix-sockets, any other without bare --allow-network
 * (SCTP's one-to-many socket sends to any address listening or not,
 * RDS's connected or not, a connected TCP one is reconnected as above).
 */
static int stdio_socket(const struct policy *p, int fd, const struct stat *st)
{
	struct sockaddr_storage peer;
	int type = 0, family = 0, proto = 0, listening = 0;
	socklen_t l = sizeof(type), lf = sizeof(family), lpr = sizeof(proto), ll = sizeof(listening),
		  lp = sizeof(peer);
	if (!S_ISSOCK(st->st_mode))
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &lf) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &lpr) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) < 0)
		return 1;	/* cannot tell: fails closed */
	if (family == AF_UNIX && (type == SOCK_STREAM || type == SOCK_SEQPACKET) &&
	    (listening || getpeername(fd, (struct sockaddr *)&peer, &lp) == 0))
		return 0;
	if ((family == AF_INET || family == AF_INET6) && type == SOCK_STREAM && proto == IPPROTO_TCP &&
	    listening && p->net == POL_NET_PORTS)
		return 0;
	return family == AF_UNIX ? !p->allow_unix : p->net != POL_NET_ANY;
}

/*
 * A terminal among descriptors 0-2 that is not the caller's controlling
 * terminal (a serial line, or a pty no session holds, redirected in) is
 * taken as the controlling terminal of any session leader that opens it
 * without O_NOCTTY: the seccomp rule on TIOCSCTTY does not see an open.
 * The command cannot open it through the view (no devpts, a granted /dev
 * is nodev), but /dev/stdin, a link to /proc/self/fd/0, reopens the very
 * file on the host's own mount, and Landlock then allows it where a grant
 * holds the terminal's path (--allow-read /dev).  Such a run is refused,
 * in the supervisor, before any namespace exists: here the caller's
 * session and the host's paths are still this process's.  A grant holds
 * the path by name, or by object (a directory above it granted under
 * another name): Landlock's rules go by inode.  A path that cannot be
 * read back refuses too.  The common cases cost one fstat a descriptor
 * (not a character device) or three syscalls (the caller's own terminal).
 */
static int stdio_tty_taken(const struct policy *p, int fd, const struct stat *st)
{
	struct stat up[64];
	pid_t sid;
	char link[PATH_MAX], fdp[64];
	size_t nup = 0;
	if (!S_ISCHR(st->st_mode) || !isatty(fd) || ioctl(fd, TIOCGSID, &sid) == 0)
		return 0;	/* no terminal, or the caller's session holds it */
	fd_path(fdp, sizeof(fdp), fd);
	ssize_t n = readlink(fdp, link, sizeof(link) - 1);
	if (n <= 0)
		return 1;
	link[n] = '\0';
	if (link[0] != '/' || stat(link, &up[0]) < 0 || up[0].st_rdev != st->st_rdev || up[0].st_ino != st->st_ino)
		return 1;	/* cannot tell where it lies */
	for (size_t i = 0; i < p->ngrants; i++)
		if (!p->grants[i].link && !p->grants[i].is_proc && path_within(link, p->grants[i].path))
			return 1;
	/* The directories above it, as objects. */
	for (char *slash = strrchr(link, '/'); slash && nup < SBX_ARRAY_LEN(up); slash = strrchr(link, '/')) {
		if (slash == link) {
			if (link[1] == '\0')
				break;
			link[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (stat(link, &up[nup]) == 0)
			nup++;
	}
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		for (size_t k = 0; k < nup && !g->link && !g->is_proc; k++)
			if (up[k].st_dev == g->dev && up[k].st_ino == g->ino)
				return 1;
	}
	return 0;
}

/*
 * SIGTERM asks the supervisor to end the run (sandbox_wait, at a timeout
 * or a stop): it kills the init and goes on waiting for it, and the init's
 * exit is reported only once the kernel has emptied its pid namespace.  A
 * killed supervisor, by contrast, is reaped at once while the init and the
 * command may still be running: sandbx returned, put the terminal's flags
 * back, and the command set O_NONBLOCK on it again.
 */
static void on_term(int sig)
{
	(void)sig;
	if (term_init > 0)
		kill(term_init, SIGKILL);
	else
		_exit(EXIT_REFUSED);	/* no command yet: nothing to wait for */
}

/*
 * The init was stopped by SIGSTOP (kill -STOP of the caller's job, or of
 * the init itself), the one stop it cannot block and pass on: the
 * sandbox's other processes, in a session of their own, would go on
 * running, and reading the terminal whose keys are now typed for the
 * shell.  Continue the init with a SIGCONT it tells from any other
 * (JOB_RESTOP), which it takes as a stop: it stops and holds them all,
 * as for a ^Z, until the job is continued in the foreground.
 */
static void hold_init(pid_t init)
{
	union sigval v = { .sival_int = JOB_RESTOP };
	if (sigqueue(init, SIGCONT, v) < 0 && errno != ESRCH)
		kill(init, SIGKILL);	/* cannot be held: fail closed */
}

char *helper_start_join(const struct strv *args, const struct strv *env, size_t *len)
{
	size_t n = 0;
	for (size_t i = 0; i < args->n; i++)
		n += strlen(args->v[i]) + 1;
	for (size_t i = 0; i < env->n; i++)
		n += strlen(env->v[i]) + 1;
	if (n > HELPER_START_MAX_LEN)
		return NULL;
	char *buf = xmalloc(n ? n : 1), *q = buf;
	for (size_t i = 0; i < args->n; i++)
		q = stpcpy(q, args->v[i]) + 1;
	for (size_t i = 0; i < env->n; i++)
		q = stpcpy(q, env->v[i]) + 1;
	*len = n;
	return buf;
}

int helper_start_split(char *buf, size_t len, uint32_t nargs, uint32_t nenv, char **v, char **env)
{
	char *q = buf, *end = buf + len;
	for (uint64_t i = 0; i < (uint64_t)nargs + nenv; i++) {
		char *z = q < end ? memchr(q, '\0', (size_t)(end - q)) : NULL;
		if (!z)
			return -1;
		if (i < nargs)
			v[i] = q;
		else
			env[i - nargs] = q;
		q = z + 1;
	}
	v[nargs] = NULL;
	env[nenv] = NULL;
	return q == end ? 0 : -1;
}

/* Read exactly n bytes; 0, or -1 (end of file, or an error). */
static int read_exact(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/*
 * The user, mount, pid and uts namespaces, the id maps, half the
 * caller's RLIMIT_MSGQUEUE and RLIMIT_SIGPENDING, the uts names and an
 * empty binfmt_misc.  The network namespace is the namespace child's,
 * once the byte at the end is sent (ns_reply); so is the ipc namespace
 * (ns_pre), unless network is granted (no child): ipc_namespace then.
 * Made before the start message when the harness says "early", so
 * before the policy says which.
 */
static void make_namespaces(void)
{
	int ucarg;
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS) < 0)
		refuse(ACH_REF_USERNS, errno);
	char map[64];
	if (write_file("/proc/self/setgroups", "deny") < 0)
		refuse(ACH_REF_IDMAP, errno);
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		refuse(ACH_REF_IDMAP, errno);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		refuse(ACH_REF_IDMAP, errno);
	/* Half the caller's message-queue bytes and pending signals, for
	 * the init and the command alike. */
	if (limits_ucounts_rlimits(&ucarg) < 0)
		refuse(ACH_REF_USER_LIMIT, ucarg);
	/* The new uts namespace starts with the caller's names: neither the
	 * host's node name nor its NIS domain name (often the site's DNS
	 * domain) is the command's to read. */
	(void)!sethostname("sandbx", 6);
	(void)!setdomainname("(none)", 6);
	own_binfmt_misc();
	/* The namespace child may join now (nschild.c), by this namespace's
	 * descriptor: a pidfd of this process would need it to stay
	 * dumpable until then.  No reader (it was never started, or is
	 * gone): the init's ns_reply refuses the run. */
	int userns = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (userns < 0)
		refuse(ACH_REF_FORK, errno);
	(void)send_with_fds(HELPER_NS_FD, "", 1, &userns, 1);
	close(userns);
	drop_bounding_set();
}

/* With network granted there is no namespace child (ns_pre): the ipc
 * namespace is the supervisor's to make, in its user namespace, before
 * it forks the init. */
static void ipc_namespace(void)
{
	if (unshare(CLONE_NEWIPC) < 0)
		refuse(ACH_REF_USERNS, errno);
}

int helper_ns_rules_take(const struct helper_ns_rules *m, size_t n, int fd, int abi)
{
	if (n == sizeof(*m) && m->magic == HELPER_NS_RULES_MAGIC && m->ok == 1 && m->abi == abi && fd >= 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * In the command stage, with network not granted: the Landlock ruleset
 * the namespace child made ahead (helper.h, struct helper_ns_rules), or
 * -1 when there is none to take.  It comes after the child's reply,
 * which the init has read; HELPER_NS_FD is closed here either way.
 */
static int ns_rules(int abi)
{
	struct helper_ns_rules m;
	int fd = -1, nfd;
	ssize_t n = recv_with_fds(HELPER_NS_FD, &m, sizeof(m), &fd, 1, &nfd);
	close(HELPER_NS_FD);
	if (n < 0 || nfd > 1) {
		if (nfd > 1)
			close(fd);
		return -1;
	}
	fd = helper_ns_rules_take(&m, (size_t)n, fd, abi);
	if (fd >= 0 && fd < 16) {
		/* Above 0-2 (one of them may be free) and the stage's own */
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, 16);
		close(fd);
		fd = hi;
	}
	return fd;
}

/* Both messages before the ruleset (helper.h): magic, and the one label
 * besides ACH_REF_FORK the child refuses with in it. */
static int ns_msg_check(const struct helper_ns_reply *r, size_t n, int fd, uint32_t magic, int theirs, int *label,
			int *arg)
{
	*label = ACH_REF_PRIVS;
	*arg = EPROTO;
	if (n == 0) {
		*label = ACH_REF_FORK;
		*arg = ECHILD;
		return -1;
	}
	if (n != sizeof(*r) || r->magic != magic)
		return -1;
	if (r->refusal) {
		if (fd >= 0 || (r->refusal != theirs && r->refusal != ACH_REF_FORK))
			return -1;
		*label = r->refusal;
		*arg = r->arg;
		return -1;
	}
	return fd >= 0 ? 0 : -1;
}

int helper_ns_reply_check(const struct helper_ns_reply *r, size_t n, int fd, int *label, int *arg)
{
	return ns_msg_check(r, n, fd, HELPER_NS_MAGIC, ACH_REF_NETNS_LO, label, arg);
}

int helper_ns_pre_check(const struct helper_ns_reply *m, size_t n, int fd, int *label, int *arg)
{
	return ns_msg_check(m, n, fd, HELPER_NS_PRE_MAGIC, ACH_REF_USERNS, label, arg);
}

/*
 * In the init: one of the namespace child's messages before its ruleset
 * (nschild.c), as check takes it: the descriptor it carries.  What the
 * child could not do ends the run here, with its reason; so does its end
 * without the message.  HELPER_NS_FD stays open: the ruleset is the
 * command stage's (ns_rules), and the init closes it once the command
 * stage has run.
 */
static int ns_take(int (*check)(const struct helper_ns_reply *, size_t, int, int *, int *))
{
	struct helper_ns_reply r;
	int fd = -1, nfd, label, arg;
	ssize_t n = recv_with_fds(HELPER_NS_FD, &r, sizeof(r), &fd, 1, &nfd);
	if (n < 0)
		refuse(ACH_REF_FORK, errno);
	if (nfd > 1)
		refuse(ACH_REF_PRIVS, EPROTO);
	if (check(&r, (size_t)n, fd, &label, &arg) < 0)
		refuse((enum auditch_label)label, arg);
	return fd;
}

/*
 * In the init, building the view, when network is not granted: enter the
 * ipc namespace of the child's first message, before any mount of the
 * view can depend on it (an mqueue mount takes the mounter's).
 */
static void ns_pre(void)
{
	int fd = ns_take(helper_ns_pre_check);
	if (setns(fd, CLONE_NEWIPC) < 0)
		refuse(ACH_REF_USERNS, errno);
	close(fd);
}

/* In the init: the network namespace of the child's reply. */
static int ns_reply(void)
{
	return ns_take(helper_ns_reply_check);
}

/*
 * The start message (helper.h): the words that follow PARENT-PID in argv
 * (pin word, policy, "--", command), put in *argvp after the three the
 * helper was executed with; the environment made environ; the standard
 * descriptors and the pin's put in place.  The harness holds the other
 * end alone; an end of file before the whole message (it refused the run,
 * or died) ends this process quietly: nothing outside it was made (an
 * early helper's namespaces go with it).
 */
static void read_start(int *argcp, char ***argvp)
{
	struct helper_start h;
	int fds[4], nfd;
	ssize_t n = recv_with_fds(HELPER_CHAN_FD, &h, sizeof(h), fds, 4, &nfd);
	if (n < (ssize_t)sizeof(h))
		_exit(EXIT_REFUSED);
	unsigned want = 0;
	for (int i = 0; i < 3; i++)
		want += (h.fds & HELPER_START_STDIO(i)) != 0;
	want += (h.fds & HELPER_START_PIN) != 0;
	int sides = 1;
	for (int i = 0; i < 3; i++)
		sides &= !(h.fds & HELPER_START_STDIO(i)) != !(h.fds & HELPER_START_NOSTDIO(i));
	if (h.magic != HELPER_START_MAGIC || nfd != (int)want || !sides ||
	    h.len > HELPER_START_MAX_LEN || h.nargs < 2 || h.nargs + (uint64_t)h.nenv > h.len)
		refuse(ACH_REF_PRIVS, EPROTO);
	char *buf = xmalloc(h.len ? h.len : 1);
	if (read_exact(HELPER_CHAN_FD, buf, h.len) < 0)
		_exit(EXIT_REFUSED);
	char **v = xcalloc((size_t)h.nargs + 3 + 1, sizeof(char *));
	char **env = xcalloc((size_t)h.nenv + 1, sizeof(char *));
	for (int i = 0; i < 3; i++)
		v[i] = (*argvp)[i];
	if (helper_start_split(buf, h.len, h.nargs, h.nenv, v + 3, env) < 0)
		refuse(ACH_REF_PRIVS, EPROTO);
	*argcp = (int)h.nargs + 3;
	*argvp = v;
	environ = env;

	/* Above 0-2 and 4, where the placeholders are (helper_main). */
	for (int i = 0; i < nfd; i++) {
		int hi = fcntl(fds[i], F_DUPFD_CLOEXEC, 16);
		if (hi < 0)
			refuse(ACH_REF_PRIVS, errno);
		close(fds[i]);
		fds[i] = hi;
	}
	int k = 0;
	for (int i = 0; i < 3; i++) {
		if (h.fds & HELPER_START_STDIO(i)) {
			if (dup2(fds[k], i) < 0)
				refuse(ACH_REF_PRIVS, errno);
			close(fds[k++]);
		} else {
			close(i);
		}
	}
	if (h.fds & HELPER_START_PIN) {
		if (dup2(fds[k], PIN_FD) < 0)
			refuse(ACH_REF_PRIVS, errno);
		close(fds[k]);
	} else {
		close(PIN_FD);
	}
}

/*
 * The harness's second message (helper.h): the caller's per-user limits,
 * for the init to halve (halve_ucounts).  End of file: the harness
 * refused the run, or died.
 */
int helper_ucounts_check(const struct helper_ucounts *u, size_t n, const int *fds, int nfd,
			 int out[HELPER_UCOUNTS_NCG], int *label, int *arg)
{
	*label = ACH_REF_PRIVS;
	*arg = EPROTO;
	for (int i = 0; i < HELPER_UCOUNTS_NCG; i++)
		out[i] = -1;
	if (n != sizeof(*u) || u->magic != HELPER_UCOUNTS_MAGIC || u->cg >> HELPER_UCOUNTS_NCG ||
	    nfd != __builtin_popcount(u->cg))
		return -1;
	if (u->bad) {
		if (nfd)
			return -1;
		*label = ACH_REF_USER_LIMIT;
		*arg = u->arg;
		return -1;
	}
	for (int i = 0, k = 0; i < HELPER_UCOUNTS_NCG; i++)
		if (u->cg & (1u << i))
			out[i] = fds[k++];
	return 0;
}

/*
 * The harness's second message (helper.h): the caller's per-user limits,
 * for the init to halve (halve_ucounts), and the cgroup directories it
 * found, for limits_prepare (into cg[]).  End of file: the harness
 * refused the run, or died.
 */
static void read_ucounts(int cg[HELPER_UCOUNTS_NCG])
{
	struct helper_ucounts u;
	int fds[HELPER_UCOUNTS_NCG], nfd, label, arg;
	_Static_assert(HELPER_UCOUNTS_NCG == LIMITS_CG_NFD, "the harness's cgroup directories");
	ssize_t n = recv_with_fds(HELPER_CHAN_FD, &u, sizeof(u), fds, HELPER_UCOUNTS_NCG, &nfd);
	if (n < (ssize_t)sizeof(u))
		_exit(EXIT_REFUSED);
	if (helper_ucounts_check(&u, (size_t)n, fds, nfd, cg, &label, &arg) < 0)
		refuse((enum auditch_label)label, arg);
	_Static_assert(sizeof(caller_ucounts) == sizeof(u.v), "the harness's per-user limits");
	memcpy(caller_ucounts, u.v, sizeof(caller_ucounts));
}

int helper_main(int argc, char **argv)
{
	/* argv: sandbx HELPER_ARGV1 PARENT-PID; the start message adds
	 * pin|pinheld|nopin POLICY... -- CMD... */
	struct policy p;
	struct netpol_files dns;
	char *err = NULL;
	uint64_t ppid;
	int alive[2];

	/* The harness execs this process with every signal blocked
	 * (sandbox.c, helper_child): none of its handlers could run between
	 * its vfork and the execve.  Each is at its default now. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* 0-2 and 4 are the start message's (read_start): held until it
	 * comes by copies of the channel, so that nothing this process opens
	 * before lands there.  Nothing the harness left at 4 stays. */
	close(PIN_FD);
	for (int fd = 0; fd <= PIN_FD; fd++)
		if (fd != AUDIT_FD && fcntl(fd, F_GETFD) < 0 && fcntl(HELPER_CHAN_FD, F_DUPFD_CLOEXEC, fd) != fd)
			_exit(EXIT_REFUSED);
	xalloc_exit_code(EXIT_REFUSED);	/* no stage may exit as the command */
	if (argc < 3 || argc > 4 || parse_u64(argv[2], 1, INT_MAX, &ppid) < 0)
		_exit(EXIT_REFUSED);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if ((uint64_t)getppid() != ppid)
		_exit(EXIT_REFUSED);	/* the harness died before we armed */
	struct sigaction term = { .sa_handler = on_term, .sa_flags = SA_RESTART };
	sigemptyset(&term.sa_mask);
	sigaction(SIGTERM, &term, NULL);

	/* What needs no policy, while the harness vets the grants. */
	int abi = landlock_abi();

	/* "early": the run has no pin and no --allow-dns name (the harness
	 * knows from the command line), so nothing before the unshare needs
	 * the host's namespaces but what ran above: the namespaces are made
	 * before the start message too.  The Landlock refusals needing no
	 * policy come first, as they do otherwise. */
	int early = argc == 4 && strcmp(argv[3], HELPER_EARLY) == 0;
	if (early) {
		if (abi == -EOPNOTSUPP)
			refuse(ACH_REF_LANDLOCK_OFF, 0);
		if (abi < LANDLOCK_ABI_MIN)
			refuse(ACH_REF_LANDLOCK_ABI, abi);
		make_namespaces();
	}
	read_start(&argc, &argv);
	/* 2: the harness holds a read lease on the program (init_stage) */
	int have_pin = strcmp(argv[3], "pinheld") == 0 ? 2 : strcmp(argv[3], "pin") == 0;
	if (early && have_pin)
		refuse(ACH_REF_PRIVS, EPROTO);
	if (have_pin) {
		char fdp[32];
		fd_path(fdp, sizeof(fdp), PIN_FD);
		ssize_t n = readlink(fdp, pin_path, sizeof(pin_path) - 1);
		if (n <= 0 || pin_path[0] != '/')
			refuse(ACH_REF_PIN, n < 0 ? errno : ENOENT);
		pin_path[n] = '\0';
	}
	policy_init(&p);
	int dd = policy_from_argv(&p, argv + 4, argc - 4, &err);
	if (dd < 0 || 4 + dd + 1 >= argc) {
		auditch_send(AUDIT_FD, ACH_REF_PRIVS, EINVAL);
		_exit(EXIT_REFUSED);
	}
	char **cmd = argv + 4 + dd + 1;
	if (early && p.dns.n)
		refuse(ACH_REF_PRIVS, EPROTO);

	if (abi == -EOPNOTSUPP)
		refuse(ACH_REF_LANDLOCK_OFF, 0);
	if (abi < LANDLOCK_ABI_MIN)
		refuse(ACH_REF_LANDLOCK_ABI, abi);	/* -errno: no answer at all */
	abi = landlock_abi_used(abi);
	if (landlock_scope_missing(abi, p.net != POL_NET_NONE, p.allow_unix))
		refuse(ACH_REF_LANDLOCK_SCOPE, abi);

	/* Descriptors 0-2 that would be a way around the policy: one fstat
	 * each, shared by the checks.  A device of the caller's with O_ASYNC
	 * on (a terminal a program of the caller's takes SIGIO from) has its
	 * owner set by that program, unconfined, and Landlock's signal scope
	 * judges the signal by the owner's setter: the command could not set
	 * the owner, but F_SETSIG on the shared description picks the signal,
	 * SIGKILL, and the next line typed killed the owner's process group
	 * (measured on 6.18, ABI 7).  Pipes, FIFOs and sockets are relayed:
	 * the command never holds the caller's description. */
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0)
			continue;
		int fl;
		if (S_ISCHR(st.st_mode) && (fl = fcntl(fd, F_GETFL)) >= 0 && (fl & O_ASYNC))
			refuse(ACH_REF_STDIO_ASYNC, fd);
		if (stdio_tty_taken(&p, fd, &st))
			refuse(ACH_REF_STDIO_TTY, fd);
		if (stdio_memfd(fd, &st))
			refuse(ACH_REF_STDIO_MEMFD, fd);
		if (stdio_socket(&p, fd, &st))
			refuse(ACH_REF_STDIO_SOCKET, fd);
	}

	/* Resolve --allow-dns names now, with the host's resolver, before any
	 * namespace exists. */
	if (netpol_prepare(&p, &dns) < 0)
		refuse(ACH_REF_DNS, netpol_refusal_arg(errno, dns.bad_name));

	if (!early)
		make_namespaces();
	if (p.net != POL_NET_NONE)
		ipc_namespace();

	int cg[LIMITS_CG_NFD];
	read_ucounts(cg);
	if (limits_prepare(&p, cg, AUDIT_FD) < 0)
		_exit(EXIT_REFUSED);

	int ns[2];
	if (pipe2(alive, O_CLOEXEC) < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ns) < 0)
		refuse(ACH_REF_FORK, errno);
	/* The harness writes the compiled filter to this one (sandbox.c). */
	int bpf_fd = HELPER_CHAN_FD;
	fcntl(bpf_fd, F_SETFD, FD_CLOEXEC);
	pid_t init = fork();
	if (init < 0)
		refuse(ACH_REF_FORK, errno);
	if (init == 0) {
		signal(SIGTERM, SIG_DFL);
		close(alive[1]);
		close(ns[0]);
		/* The supervisor's: the init holds nothing of the host it
		 * does not use (the cgroup directories; the namespace
		 * channel when there is no namespace to take). */
		if (p.net != POL_NET_NONE)
			close(HELPER_NS_FD);
		limits_init_release();
		init_stage(&p, cmd, have_pin, abi, alive[0], &dns, bpf_fd, ns[1]);
	}
	term_init = init;
	close(alive[0]);
	close(ns[1]);
	close(bpf_fd);
	if (have_pin)
		close(PIN_FD);
	/* Out of the sandbox's cgroup before the init may fork the command
	 * (the message below lets it), so the supervisor is never counted
	 * with the command's processes. */
	limits_attach(&p, init, AUDIT_FD);
	/* The word that lets the init fork the command, once it has built
	 * the view and taken the network namespace (enter_netns); the
	 * namespace child's reply is the init's to read.  A failure ends the
	 * init with this process. */
	close(HELPER_NS_FD);
	if (send_fd(ns[0], -1) < 0)
		refuse(ACH_REF_FORK, errno);
	close(ns[0]);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

	/* A session of the supervisor's own (hold_init): a SIGSTOP sent to the
	 * caller's process group (kill -STOP %1) stops the init and the
	 * harness, not this process.  The init stays in the caller's group and
	 * session, and a process of another session does not count as a parent
	 * that keeps that group from being orphaned, so a stopped job whose
	 * shell is gone still gets the kernel's SIGHUP and SIGCONT. */
	int own_session = setsid() >= 0;
	int st;
	for (;;) {
		pid_t w = waitpid(init, &st, own_session ? WUNTRACED : 0);
		if (w < 0) {
			if (errno != EINTR)
				_exit(EXIT_REFUSED);
		} else if (WIFSTOPPED(st)) {
			hold_init(init);
		} else {
			break;
		}
	}
	limits_finish(&p, AUDIT_FD);
	/* The init relays the command's status as an exit code (it cannot die
	 * by a signal it sends itself); a killed init is reported as killed.
	 * The init's exit emptied the pid namespace, so the command and all it
	 * started are gone: say so now, before this process's own teardown
	 * (its mount namespace, the last reference, goes with it), so a
	 * harness about to exit need not wait for that. */
	int code = wait_status_code(st);
	auditch_send(AUDIT_FD, ACH_DONE, code);
	/* _exit: the supervisor's root is the view now (no /proc, nothing of
	 * the host), and nothing registered with atexit belongs to it. */
	_exit(code);
}
