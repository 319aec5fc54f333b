/*
 * probe.h — shared by the static probe programs that run inside the
 * sandbox.  A probe does one thing the test names and prints what the
 * kernel answered, one line: "ok" (optionally followed by data), or
 * "err ERRNO-NAME".  Exit status 0 when the call succeeded, 1 when it
 * failed, 2 on a usage error.
 */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *probe_errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case EROFS: return "EROFS";
	case EXDEV: return "EXDEV";
	case ENOSYS: return "ENOSYS";
	case ESRCH: return "ESRCH";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENETUNREACH: return "ENETUNREACH";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EBADF: return "EBADF";
	case ELOOP: return "ELOOP";
	case EFBIG: return "EFBIG";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	case ENXIO: return "ENXIO";
	case ENOTTY: return "ENOTTY";
	case EIO: return "EIO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EADDRINUSE: return "EADDRINUSE";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	case EMFILE: return "EMFILE";
	case EFAULT: return "EFAULT";
	case EREMOTE: return "EREMOTE";
	case ECHILD: return "ECHILD";
	case ENFILE: return "ENFILE";
	case ENOTSOCK: return "ENOTSOCK";
	case ENOTCONN: return "ENOTCONN";
	default: return "E?";
	}
}

/* Report the outcome of a call that returned r (< 0 = failed, errno set). */
static inline int probe_report(long r)
{
	if (r < 0) {
		int e = errno;
		printf("err %s %d\n", probe_errname(e), e);
		fflush(stdout);
		return 1;
	}
	printf("ok\n");
	fflush(stdout);
	return 0;
}

#endif
