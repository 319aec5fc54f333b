/*
 * close_spy.h — close as the library reaches it in a unit test binary
 * that includes this (its definition wins over libc's for the objects of
 * libsandbx.a linked in): while close_fails holds an errno, closing a
 * regular file open for writing releases the descriptor, as Linux always
 * does, and then fails with it (an NFS or FUSE flush refused at close).
 * Other descriptors close as before.
 */
#ifndef SBX_CLOSE_SPY_H
#define SBX_CLOSE_SPY_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static int close_fails, close_failed;

int close(int fd)
{
	struct stat st;
	int fl = close_fails ? fcntl(fd, F_GETFL) : -1;
	int writable = fl >= 0 && !(fl & O_PATH) && (fl & O_ACCMODE) != O_RDONLY;
	int fail = writable && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	int r = (int)syscall(SYS_close, fd);
	if (r == 0 && fail) {
		close_failed++;
		errno = close_fails;
		return -1;
	}
	return r;
}

#endif
