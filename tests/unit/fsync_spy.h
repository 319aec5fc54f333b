/*
 * fsync_spy.h — fsync as the library reaches it in a unit test binary
 * that includes this (its definition wins over libc's for the objects of
 * libsandbx.a linked in): each directory synced is recorded, with what the
 * name sync_watch was in it at that moment, so a test sees a sync came
 * after a name was put there (or taken away); while dir_sync_fails is set,
 * a directory's sync fails with EIO.  Files sync as before, but while
 * file_sync_fails holds an errno a regular file's sync fails with it (an
 * NFS server refusing written data at fsync: ENOSPC, EDQUOT), once
 * file_syncs_ok more have gone through.
 */
#ifndef SBX_FSYNC_SPY_H
#define SBX_FSYNC_SPY_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "util/util.h"

#define DIR_SYNCS_MAX 32
static struct dir_sync {
	dev_t dev;
	ino_t ino, watched;	/* watched: sync_watch's inode then, 0: not there */
} dir_syncs[DIR_SYNCS_MAX];
static int n_dir_syncs;
static const char *sync_watch;
static int dir_sync_fails;
static int file_sync_fails, file_syncs_ok;

int fsync(int fd)
{
	struct stat st, w;
	int dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (dir && n_dir_syncs < DIR_SYNCS_MAX) {
		int seen = sync_watch && fstatat(fd, sync_watch, &w, AT_SYMLINK_NOFOLLOW) == 0;
		dir_syncs[n_dir_syncs++] = (struct dir_sync){ st.st_dev, st.st_ino, seen ? w.st_ino : 0 };
	}
	if (dir && dir_sync_fails) {
		errno = EIO;
		return -1;
	}
	if (!dir && file_sync_fails && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && file_syncs_ok-- <= 0) {
		errno = file_sync_fails;
		return -1;
	}
	return (int)syscall(SYS_fsync, fd);
}

/* Whether the directory dir was synced with the file file (NULL: whatever)
 * in it as it is now; a file not there now: synced while it was not. */
static inline int dir_synced_with(const char *dir, const char *file)
{
	struct stat d, st;
	ino_t want = 0;
	if (stat(dir, &d) < 0)
		return 0;
	if (file) {
		char *p = xasprintf("%s/%s", dir, file);
		want = lstat(p, &st) == 0 ? st.st_ino : 0;
		free(p);
	}
	for (int i = 0; i < n_dir_syncs; i++)
		if (dir_syncs[i].dev == d.st_dev && dir_syncs[i].ino == d.st_ino && (!file || dir_syncs[i].watched == want))
			return 1;
	return 0;
}

#endif
