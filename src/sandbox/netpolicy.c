/*
 * netpolicy.c — --allow-dns and the environment constants of a network
 * mode (life cycle in netpolicy.h).
 *
 * What makes an unlisted name fail at once: the view's nsswitch.conf says
 * "hosts: files", so glibc never loads its DNS module and looks only in
 * the view's hosts file, which holds the allowed names alone; resolv.conf
 * names no nameserver, for resolvers that read it directly (musl, Go's
 * netgo, c-ares).  The CLI refuses every combination that would leave a
 * real resolver reachable anyway (cli_policy_net.c).
 *
 * Why the files are copied into the view's tmpfs instead of bound from
 * the memfds: a memfd lives on the kernel's internal shm mount, which
 * belongs to no mount namespace, and a descriptor opened before
 * unshare(CLONE_NEWNS) belongs to the host's namespace; open_tree() and
 * bind mounts refuse both (EINVAL, checked on 6.18).  So the supervisor
 * renders into memfds (sealed, nothing can change them), and the init
 * copies each into a staging file of the view's own tmpfs, clones that
 * file as a read-only mount, moves the clone over etc/<file> and unlinks
 * the staging name: the view then holds the text at /etc only.
 *
 * The target is opened beneath the view's root with RESOLVE_NO_SYMLINKS:
 * when the user granted the host's /etc, a symlinked etc/hosts or
 * etc/nsswitch.conf there would be a file we cannot cover, and the run is
 * refused (ELOOP); resolv.conf, which decides nothing, is then left as is.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sandbox/netpolicy.h"
#include "util/compat.h"

#define STAGING_NAME ".sandbx-netpol"

static const char nsswitch_text[] =
	"# sandbx --allow-dns: names resolve from /etc/hosts only\n"
	"passwd:     files\n"
	"group:      files\n"
	"shadow:     files\n"
	"gshadow:    files\n"
	"hosts:      files\n"
	"networks:   files\n"
	"protocols:  files\n"
	"services:   files\n"
	"ethers:     files\n"
	"rpc:        files\n"
	"netgroup:   files\n";

static const char resolv_text[] =
	"# sandbx --allow-dns: no nameserver; the allowed names are in /etc/hosts\n"
	"options attempts:1 timeout:1\n";

const struct landlock_extra netpol_landlock_rules[NETPOL_NRULES] = {
	{ "/etc/hosts", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/etc/nsswitch.conf", LANDLOCK_ACCESS_FS_READ_FILE },
	{ "/etc/resolv.conf", LANDLOCK_ACCESS_FS_READ_FILE },
};

const char *netpol_nsswitch_text(void)
{
	return nsswitch_text;
}

const char *netpol_resolv_text(void)
{
	return resolv_text;
}

int netpol_name_ok(const char *name)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.";
	size_t n = strlen(name);
	if (n == 0 || n > NETPOL_MAX_NAME || strspn(name, ok) != n)
		return 0;
	return name[0] != '-' && name[0] != '.';
}

char *netpol_render_hosts(const struct netpol_host *h, size_t n)
{
	static const char head[] = "# sandbx --allow-dns: the host's answers for the allowed names\n";
	size_t len = sizeof(head) - 1;
	for (size_t i = 0; i < n; i++) {
		len += strlen(h[i].addr) + 1 + strlen(h[i].name) + 1;
		if (len > NETPOL_MAX_FILE)
			return NULL;
	}
	char *out = xmalloc(len + 1), *w = out;
	memcpy(w, head, sizeof(head) - 1);
	w += sizeof(head) - 1;
	for (size_t i = 0; i < n; i++) {
		size_t a = strlen(h[i].addr), b = strlen(h[i].name);
		memcpy(w, h[i].addr, a);
		w += a;
		*w++ = ' ';
		memcpy(w, h[i].name, b);
		w += b;
		*w++ = '\n';
	}
	*w = '\0';
	return out;
}

/* errno values are small: the index rides above them, plus one (0: none). */
#define NETPOL_ARG_ERRNO 4096

int netpol_refusal_arg(int e, int name)
{
	if (e < 0 || e >= NETPOL_ARG_ERRNO)
		e = EIO;
	if (name < 0 || name >= NETPOL_MAX_NAMES)
		name = -1;
	return (name + 1) * NETPOL_ARG_ERRNO + e;
}

char *netpol_refusal_message(int arg, const struct policy *p)
{
	int e = arg % NETPOL_ARG_ERRNO, i = arg / NETPOL_ARG_ERRNO - 1;
	const char *name = i >= 0 && p && (size_t)i < p->dns.n ? p->dns.v[i] : NULL;
	if (name && (e == ENXIO || e == EAGAIN)) {
		/* the name passed netpol_name_ok: nothing in it to escape */
		return e == ENXIO ? xasprintf("--allow-dns '%s' does not resolve on the host — check the name (the "
					      "host's resolver must answer it before the command starts); nothing "
					      "was run", name)
				  : xasprintf("the host's resolver could not answer --allow-dns '%s' for now — retry "
					      "when the host's DNS works; nothing was run", name);
	}
	switch (e) {
	case ELOOP:
		return xstrdup("/etc/hosts or /etc/nsswitch.conf is a symbolic link on the host, which the "
			       "--allow-dns files cannot cover — replace the link with a regular file, or run "
			       "without --allow-dns; nothing was run");
	case ENXIO:
		return xstrdup("an --allow-dns name does not resolve on the host — check the name (the host's "
			       "resolver must answer it before the command starts); nothing was run");
	case EAGAIN:
		return xstrdup("the host's resolver could not answer an --allow-dns name for now — retry when the "
			       "host's DNS works; nothing was run");
	case ENOENT:
		return xstrdup("the granted /etc has no hosts or nsswitch.conf to cover with the "
			       "--allow-dns files, and sandbx adds no file to the host — create it on the host or "
			       "grant a narrower path than /etc; nothing was run");
	case EINVAL:
		return xstrdup("an --allow-dns name is not a host name — use letters, digits, '-' and '.'; "
			       "nothing was run");
	default:
		return xasprintf("the --allow-dns files could not be prepared (%s) — run without --allow-dns "
				 "to confirm the sandbox itself works; nothing was run", strerror(e));
	}
}

void netpol_files_close(struct netpol_files *f)
{
	int *fds[3] = { &f->hosts_fd, &f->nsswitch_fd, &f->resolv_fd };
	for (int i = 0; i < 3; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	f->active = 0;
}

/* ---- supervisor: resolve and render ------------------------------------ */

static int host_not_symlink(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	return 0;
}

/* A sealed memfd holding text; -1 with errno. */
static int sealed_memfd(const char *name, const char *text)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int eai_errno(int r)
{
	switch (r) {
	case EAI_NONAME:
#ifdef EAI_NODATA
	case EAI_NODATA:
#endif
#ifdef EAI_ADDRFAMILY
	case EAI_ADDRFAMILY:
#endif
		return ENXIO;
	case EAI_AGAIN:
		return EAGAIN;
	case EAI_MEMORY:
		return ENOMEM;
	case EAI_SYSTEM:
		return errno ? errno : EIO;
	default:
		return EIO;
	}
}

/* Append name's host answers (numeric, deduplicated, capped) to addrs. */
static int resolve_one(const char *name, struct strv *addrs, struct strv *names)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	struct strv mine = { 0 };
	int r = getaddrinfo(name, NULL, &hints, &res);
	if (r != 0) {
		errno = eai_errno(r);
		return -1;
	}
	for (struct addrinfo *a = res; a && mine.n < NETPOL_MAX_ADDRS; a = a->ai_next) {
		char host[NI_MAXHOST];
		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof(host), NULL, 0, NI_NUMERICHOST) != 0)
			continue;
		/* A scoped IPv6 address ("fe80::1%eth0") names a host interface
		 * the hosts file cannot carry; leave it out. */
		if (strchr(host, '%') || strv_has(&mine, host))
			continue;
		strv_push(&mine, host);
	}
	freeaddrinfo(res);
	if (mine.n == 0) {
		strv_free(&mine);
		errno = ENXIO;
		return -1;
	}
	for (size_t i = 0; i < mine.n; i++) {
		strv_push(addrs, mine.v[i]);
		strv_push(names, name);
	}
	strv_free(&mine);
	return 0;
}

int netpol_prepare(const struct policy *p, struct netpol_files *f)
{
	struct strv addrs = { 0 }, names = { 0 };
	struct netpol_host *h = NULL;
	char *hosts = NULL;
	int r = -1, e = 0;

	f->active = 0;
	f->hosts_fd = f->nsswitch_fd = f->resolv_fd = -1;
	f->bad_name = -1;
	if (p->dns.n == 0)
		return 0;
	if (p->dns.n > NETPOL_MAX_NAMES) {
		errno = E2BIG;
		return -1;
	}
	if (host_not_symlink("/etc/hosts") < 0 || host_not_symlink("/etc/nsswitch.conf") < 0)
		return -1;
	for (size_t i = 0; i < p->dns.n; i++) {
		f->bad_name = (int)i;
		if (!netpol_name_ok(p->dns.v[i])) {
			errno = EINVAL;
			goto out;
		}
		if (resolve_one(p->dns.v[i], &addrs, &names) < 0)
			goto out;
		f->bad_name = -1;
	}
	h = xcalloc(addrs.n, sizeof(*h));
	for (size_t i = 0; i < addrs.n; i++) {
		h[i].addr = addrs.v[i];
		h[i].name = names.v[i];
	}
	hosts = netpol_render_hosts(h, addrs.n);
	if (!hosts) {
		errno = E2BIG;
		goto out;
	}
	f->hosts_fd = sealed_memfd("sandbx-hosts", hosts);
	f->nsswitch_fd = f->hosts_fd < 0 ? -1 : sealed_memfd("sandbx-nsswitch", nsswitch_text);
	f->resolv_fd = f->nsswitch_fd < 0 ? -1 : sealed_memfd("sandbx-resolv", resolv_text);
	if (f->resolv_fd < 0)
		goto out;
	f->active = 1;
	r = 0;
out:
	e = errno;
	if (r < 0)
		netpol_files_close(f);
	free(hosts);
	free(h);
	strv_free(&addrs);
	strv_free(&names);
	errno = e;
	return r;
}

/* ---- init: bind into the view ------------------------------------------ */

static int open_beneath(int dir, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
}

static int on_tmpfs(int fd, dev_t tmpfs_dev)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == tmpfs_dev;
}

/* The view's etc directory, made in the tmpfs when absent. */
static int open_etc(int root, dev_t tmpfs_dev)
{
	int fd = open_beneath(root, "etc", O_PATH | O_DIRECTORY);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (!on_tmpfs(root, tmpfs_dev)) {
		errno = ENOENT;
		return -1;
	}
	if (mkdirat(root, "etc", 0755) < 0 && errno != EEXIST)
		return -1;
	return open_beneath(root, "etc", O_PATH | O_DIRECTORY);
}

/* Copy the whole memfd src into the new file fd. */
static int copy_fd(int src, int dst)
{
	char buf[4096];
	off_t off = 0;
	for (;;) {
		ssize_t n = RETRY_EINTR(pread(src, buf, sizeof(buf), off));
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (write_all(dst, buf, (size_t)n) < 0)
			return -1;
		off += n;
		if (off > NETPOL_MAX_FILE) {
			errno = EFBIG;
			return -1;
		}
	}
}

/* The target etc/<name>: a regular file, never a symlink; created empty
 * when absent and etc is the view's own tmpfs. */
static int open_target(int etc, const char *name, dev_t tmpfs_dev)
{
	struct stat st;
	int fd = open_beneath(etc, name, O_PATH | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		if (!on_tmpfs(etc, tmpfs_dev)) {
			errno = ENOENT;
			return -1;
		}
		int c = openat(etc, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (c < 0)
			return -1;
		close(c);
		fd = open_beneath(etc, name, O_PATH | O_NOFOLLOW);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	return fd;
}

static int bind_one(int root, int etc, const char *name, int src, dev_t tmpfs_dev)
{
	int stage = -1, tree = -1, target = -1, r = -1, e = 0;

	stage = openat(root, STAGING_NAME, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (stage < 0)
		goto out;
	if (copy_fd(src, stage) < 0)
		goto out;
	close(stage);
	stage = -1;
	tree = (int)syscall(SYS_open_tree, root, STAGING_NAME, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
	if (tree < 0)
		goto out;
	struct mount_attr a = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	};
	if (syscall(__NR_mount_setattr, tree, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
		goto out;
	target = open_target(etc, name, tmpfs_dev);
	if (target < 0)
		goto out;
	if (syscall(SYS_move_mount, tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		goto out;
	r = 0;
out:
	e = errno;
	if (stage >= 0)
		close(stage);
	if (tree >= 0)
		close(tree);
	if (target >= 0)
		close(target);
	/* The mount holds the file; its staging name must not stay in the view. */
	if (unlinkat(root, STAGING_NAME, 0) < 0 && errno != ENOENT && r == 0) {
		e = errno;
		r = -1;
	}
	errno = e;
	return r;
}

/*
 * resolv.conf in a granted host /etc that is a symlink (systemd-resolved's
 * stub link) or absent cannot be covered and is left as it is: with
 * "hosts: files" glibc never reads it, and whatever nameserver it names is
 * unreachable (UDP is denied in port mode and port 53 is refused with
 * --allow-dns).  hosts and nsswitch.conf are what decide; they must be
 * covered or the run is refused.
 */
static int host_resolv_uncoverable(int etc, dev_t tmpfs_dev)
{
	if (on_tmpfs(etc, tmpfs_dev))
		return 0;
	struct stat st;
	/* O_PATH|O_NOFOLLOW: a trailing symlink is opened, not refused */
	int fd = open_beneath(etc, "resolv.conf", O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT;
	int link = fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
	close(fd);
	return link;
}

int netpol_bind_files(int root, const struct netpol_files *f, dev_t tmpfs_dev)
{
	if (!f->active)
		return 0;
	const struct {
		const char *name;
		int fd;
	} files[] = {
		{ "hosts", f->hosts_fd },
		{ "nsswitch.conf", f->nsswitch_fd },
		{ "resolv.conf", f->resolv_fd },
	};
	int etc = open_etc(root, tmpfs_dev);
	if (etc < 0)
		return -1;
	for (size_t i = 0; i < SBX_ARRAY_LEN(files); i++) {
		if (strcmp(files[i].name, "resolv.conf") == 0 && host_resolv_uncoverable(etc, tmpfs_dev))
			continue;
		if (files[i].fd < 0 || bind_one(root, etc, files[i].name, files[i].fd, tmpfs_dev) < 0) {
			int e = files[i].fd < 0 ? EBADF : errno;
			close(etc);
			errno = e;
			return -1;
		}
	}
	close(etc);
	return 0;
}

/* ---- command stage ------------------------------------------------------ */

void netpol_apply_env(const struct policy *p)
{
	/* glibc's resolver then asks its nameservers over TCP only, which
	 * the port rules can police (UDP is denied in port mode). */
	if (p->dns_over_tcp)
		setenv("RES_OPTIONS", "use-vc", 1);
}
