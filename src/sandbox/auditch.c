#include <errno.h>
#include <unistd.h>

#include "sandbox/auditch.h"

void auditch_send(int fd, enum auditch_label label, int32_t arg)
{
	struct auditch_rec r = { .label = (uint16_t)label, .pad = 0, .arg = arg };
	int saved = errno;
	if (fd >= 0)
		(void)!write(fd, &r, sizeof(r));	/* < PIPE_BUF: atomic */
	errno = saved;
}

static const char *const names[ACH__COUNT] = {
	[ACH_NONE] = "none",
	[ACH_REF_USERNS] = "userns",
	[ACH_REF_IDMAP] = "id-map",
	[ACH_REF_NETNS_LO] = "netns-loopback",
	[ACH_REF_GRANT_OPEN] = "grant-open",
	[ACH_REF_GRANT_CHANGED] = "grant-changed",
	[ACH_REF_MOUNT] = "mount-view",
	[ACH_REF_MOUNT_GRANT] = "mount-grant",
	[ACH_REF_LANDLOCK_OFF] = "landlock-disabled",
	[ACH_REF_LANDLOCK_ABI] = "landlock-abi",
	[ACH_REF_LANDLOCK] = "landlock",
	[ACH_REF_SECCOMP] = "seccomp",
	[ACH_REF_PRIVS] = "privileges",
	[ACH_REF_FORK] = "fork",
	[ACH_REF_LIMIT] = "limit",
	[ACH_REF_DNS] = "dns-files",
	[ACH_REF_CGROUPNS] = "cgroupns",
	[ACH_REF_LANDLOCK_SCOPE] = "landlock-scope",
	[ACH_REF_STDIO] = "stdio",
	[ACH_REF_JOBCTL] = "job-control",
	[ACH_REF_STDIO_TTY] = "stdio-tty",
	[ACH_REF_MQUEUE] = "mqueue",
	[ACH_REF_HUGETLBFS] = "hugetlbfs",
	[ACH_REF_PIN] = "pin",
	[ACH_REF_COREDUMP] = "core-dump",
	[ACH_REF_SCHED] = "scheduling",
	[ACH_REF_USER_LIMIT] = "user-limit",
	[ACH_REF_STDIO_MEMFD] = "stdio-memfd",
	[ACH_REF_STDIO_SOCKET] = "stdio-socket",
	[ACH_REF_STDIO_ASYNC] = "stdio-async",
	[ACH_REF_STDIO_DEVICE] = "stdio-device",
	[ACH_DEG_PROC] = "proc-mount",
	[ACH_DEG_CAPBSET] = "capability-bounding-set",
	[ACH_DEG_LIMIT] = "limit-rlimit",
	[ACH_EXEC_FAILED] = "exec",
	[ACH_LIMIT_HIT] = "limit-hit",
	[ACH_DEG_LIMIT_OFF] = "limit-unenforced",
	[ACH_DEG_CGROUP] = "cgroup-cleanup",
	[ACH_DEG_USER_LIMIT] = "user-limit",
	[ACH_DONE] = "done",
};

const char *auditch_name(enum auditch_label label)
{
	if ((unsigned)label >= ACH__COUNT || !names[label])
		return "unknown";
	return names[label];
}

int auditch_is_refusal(enum auditch_label label)
{
	return label >= ACH_REF_USERNS && label <= ACH_REF_STDIO_DEVICE;
}
