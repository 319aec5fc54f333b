#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sandbox/auditch.h"
#include "sandbox/landlock.h"
#include "util/compat.h"

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_EXEC LANDLOCK_ACCESS_FS_EXECUTE
/* Rights that apply to a file as opposed to a directory (kernel's
 * ACCESS_FILE): a rule on a file may carry these only. */
#define FS_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			LANDLOCK_ACCESS_FS_IOCTL_DEV)

int landlock_abi(void)
{
	long r = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (r < 0)
		return -errno;
	return (int)r;
}

int landlock_abi_used(int abi)
{
	return abi > LANDLOCK_ABI_MAX ? LANDLOCK_ABI_MAX : abi;
}

uint64_t landlock_fs_handled(int abi)
{
	uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;	/* ABI 1: bits 0..12 */
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

uint64_t landlock_rights(unsigned access, int is_dir, int abi)
{
	uint64_t all = landlock_fs_handled(abi), r = 0;
	if (access & POL_READ)
		r |= FS_READ;
	if (access & POL_EXEC)
		r |= FS_EXEC;
	if (access & POL_WRITE)
		r |= all & ~(FS_READ | FS_EXEC);
	r &= all;
	if (!is_dir)
		r &= FS_FILE_RIGHTS;
	return r;
}

uint64_t landlock_scopes(int abi)
{
	return abi >= 6 ? (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL) : 0;
}

int landlock_scope_missing(int abi, int host_net, int allow_unix)
{
	/* In its own network namespace the command has its own abstract
	 * socket namespace; without AF_UNIX sockets it cannot dial one. */
	return host_net && allow_unix && !(landlock_scopes(abi) & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET);
}

/*
 * Audit logging (ABI 7, 6.15).  With audit on, a Landlock domain writes a
 * record to the host's audit log for each access it denies, and the flags
 * of landlock_restrict_self say when: a domain's own flags cover only
 * that domain.  The command may make domains of its own under the
 * sandbox's and pick their flags itself: LOG_NEW_EXEC_ON, or the default
 * in a loop of its own, has every denial of its domain written to the
 * host's log, as many as it likes (filling it, or pushing out what else
 * was there where audit rotates or drops).  LOG_SUBDOMAINS_OFF on the
 * sandbox's domain turns logging off for every domain made under it
 * later, whatever their flags; the kernel keeps it in the credentials,
 * inherited across fork and execve, and no later call can turn it on
 * again.  The sandbox's own domain keeps the default (logged before the
 * execve only): after the execve nothing the command does is logged
 * against it, and before it only the command stage's own denials are, the
 * execve of a program no grant lets run among them, at most a few per run
 * and none the command can add to, which an administrator with audit on
 * may want to see.
 */
uint32_t landlock_restrict_flags(int abi)
{
	return abi >= 7 ? LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF : 0;
}

static int add_path_rule(int rfd, int pfd, uint64_t rights)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = rights, .parent_fd = pfd };
	if (!rights)
		return 0;
	return (int)syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

/* Which grants add_grants takes: every one, those that are the same
 * object on the host as in the view (landlock_prebuild), or the rest. */
enum grant_set { GRANTS_ALL, GRANTS_HOST, GRANTS_VIEW };

static int ruleset_new(const struct policy *p, int abi)
{
	struct sbx_landlock_ruleset_attr attr = {
		.handled_access_fs = landlock_fs_handled(abi),
		.handled_access_net = 0,
		.scoped = landlock_scopes(abi),
	};
	size_t attr_size = abi >= 6 ? sizeof(attr) : abi >= 4 ? 2 * sizeof(__u64) : sizeof(__u64);

	if (p->net == POL_NET_PORTS)
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	return (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
}

static int add_grants(int rfd, const struct policy *p, int abi, enum grant_set which, int *label, int *arg)
{
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		struct stat st;
		if (g->link || (which == GRANTS_HOST && g->is_proc) || (which == GRANTS_VIEW && !g->is_proc))
			continue;
		int fd = open(g->path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			*label = ACH_REF_GRANT_OPEN;
			*arg = (int)i;
			return -1;
		}
		if (!g->is_proc && (st.st_dev != g->dev || st.st_ino != g->ino)) {
			close(fd);
			*label = ACH_REF_GRANT_CHANGED;
			*arg = (int)i;
			return -1;
		}
		int r = add_path_rule(rfd, fd, landlock_rights(g->access, S_ISDIR(st.st_mode), abi));
		close(fd);
		if (r < 0) {
			*label = ACH_REF_LANDLOCK;
			*arg = errno;
			return -1;
		}
	}
	return 0;
}

static int add_extras(int rfd, int abi, const struct landlock_extra *extra, size_t nextra, int *label, int *arg)
{
	for (size_t i = 0; i < nextra; i++) {
		struct stat st;
		int fd = open(extra[i].path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;	/* an optional node the host lacks */
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		uint64_t rights = extra[i].rights & landlock_fs_handled(abi);
		if (!S_ISDIR(st.st_mode))
			rights &= FS_FILE_RIGHTS;
		int r = add_path_rule(rfd, fd, rights);
		close(fd);
		if (r < 0) {
			*label = ACH_REF_LANDLOCK;
			*arg = errno;
			return -1;
		}
	}
	return 0;
}

/* The ports, then restrict_self; rfd closed. */
static int finish(int rfd, const struct policy *p, int abi, int *label, int *arg)
{
	for (size_t i = 0; i < p->nports && p->net == POL_NET_PORTS; i++) {
		struct sbx_landlock_net_port_attr np = {
			.allowed_access = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP,
			.port = p->ports[i],
		};
		if (syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_NET_PORT, &np, 0) < 0) {
			*label = ACH_REF_LANDLOCK;
			*arg = errno;
			close(rfd);
			return -1;
		}
	}
	if (syscall(SYS_landlock_restrict_self, rfd, landlock_restrict_flags(abi)) < 0) {
		*label = ACH_REF_LANDLOCK;
		*arg = errno;
		close(rfd);
		return -1;
	}
	close(rfd);
	return 0;
}

int landlock_apply(const struct policy *p, int abi, const struct landlock_extra *extra,
		   size_t nextra, int *label, int *arg)
{
	int rfd = ruleset_new(p, abi);
	if (rfd < 0) {
		*label = ACH_REF_LANDLOCK;
		*arg = errno;
		return -1;
	}
	if (add_grants(rfd, p, abi, GRANTS_ALL, label, arg) < 0 || add_extras(rfd, abi, extra, nextra, label, arg) < 0) {
		close(rfd);
		return -1;
	}
	return finish(rfd, p, abi, label, arg);
}

int landlock_prebuild(const struct policy *p, int abi, const struct landlock_extra *host_extra,
		      size_t nhost_extra)
{
	int label, arg;
	int rfd = ruleset_new(p, abi);
	if (rfd < 0)
		return -1;
	if (add_grants(rfd, p, abi, GRANTS_HOST, &label, &arg) < 0 ||
	    add_extras(rfd, abi, host_extra, nhost_extra, &label, &arg) < 0) {
		close(rfd);
		return -1;
	}
	return rfd;
}

int landlock_apply_prebuilt(int rfd, const struct policy *p, int abi, const struct landlock_extra *extra,
			    size_t nextra, int *label, int *arg)
{
	if (add_grants(rfd, p, abi, GRANTS_VIEW, label, arg) < 0 || add_extras(rfd, abi, extra, nextra, label, arg) < 0) {
		close(rfd);
		return -1;
	}
	return finish(rfd, p, abi, label, arg);
}
