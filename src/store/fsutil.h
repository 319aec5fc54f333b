/*
 * fsutil.h — descriptor-based file helpers for sandbx's own state (the
 * session store and the credential file).
 *
 * Rules the helpers carry out, so the callers cannot forget one:
 *   - every open is O_CLOEXEC; sandbx's own directories and files are opened
 *     with O_NOFOLLOW and checked with fstat on the open descriptor, never
 *     stat on a path that could be swapped in between;
 *   - directories sandbx creates are made 0700, files 0600 (O_EXCL);
 *   - a directory that sandbx names and owns ("sandbx", "sessions") may be
 *     narrowed to 0700 when a caller asks (FSU_NARROW); the user's XDG base
 *     directories (~/.config, ~/.local/state) are created 0700 when missing
 *     but never narrowed: other programs live there too;
 *   - a whole-file replacement goes through a temporary file created 0600,
 *     written, fsync'ed, renamed over the target, and the directory fsync'ed;
 *     a new file with its first content, the same, linked (never clobbering);
 *     a directory made is synced into its parent; a sync that fails is an
 *     error that says what is in place already (a new file made by
 *     fsu_create_with is removed again rather than left half-made).
 *
 * No state: every function returns a descriptor or 0, or -1 with a malloc'd
 * message in *err (errno is kept from the failing call where it helps the
 * caller, e.g. ENOENT for "missing").  Descriptors returned belong to the
 * caller (close()).
 */
#ifndef SBX_FSUTIL_H
#define SBX_FSUTIL_H

#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/util.h"

#define FSU_DIR_MODE 0700
#define FSU_FILE_MODE 0600
#define FSU_TEMP_SUFFIX 8	/* random letters of fsu_write_atomic's ".NAME.xxxxxxxx" */

enum fsu_flags {
	FSU_CREATE = 1 << 0,	/* mkdir 0700 when missing */
	FSU_NARROW = 1 << 1,	/* chmod 0700 when group/other bits are set (noted) */
};

/*
 * Open the directory at the absolute path `path` for use as a dirfd (O_PATH).
 * Symlinks along it are followed: it is the user's own XDG base, which may
 * be a link to a dotfiles tree.  FSU_CREATE makes missing components 0700,
 * each synced into the directory that holds it.
 * Returns the descriptor, or -1 with *err (errno ENOENT when missing).
 */
int fsu_open_base(const char *path, unsigned flags, char **err);

/*
 * Open the subdirectory `name` of dirfd (O_RDONLY|O_DIRECTORY|O_NOFOLLOW),
 * check with fstat that it is a directory owned by the effective uid, and
 * fill *st.  FSU_CREATE makes it 0700 when missing (and syncs dirfd, so
 * its name survives a crash); FSU_NARROW chmods it to
 * 0700 when group/other bits are set and pushes a note onto *notes.
 * `display` is its full path, for messages.  Returns the descriptor, or -1
 * with *err (errno ENOENT when missing, EPERM when owned by another uid,
 * ELOOP when a symlink).
 */
int fsu_open_subdir(int dirfd, const char *name, const char *display, unsigned flags, struct stat *st,
		    struct strv *notes, char **err);

/*
 * Check an fstat result of sandbx's own file or directory: it must be owned
 * by the effective uid.  0, or -1 with *err naming display and the owner.
 */
int fsu_check_owner(const struct stat *st, const char *display, char **err);

/*
 * Remove what a kill left of fsu_write_atomic's and fsu_create_with's
 * temporary files in dirfd: regular files named ".NAME." and
 * FSU_TEMP_SUFFIX letters or digits, where keep(NAME) is 1, last modified
 * at least min_age seconds ago (a younger one may be another process's,
 * still being written).  Returns how many went.
 */
int fsu_sweep_temps(int dirfd, int (*keep)(const char *name, size_t len), time_t min_age);

/*
 * Remove the temporary names in dirfd (as fsu_sweep_temps knows them) of
 * name that are the file st describes: the second name a create killed
 * between its link and its unlink left (fsu_create_with without
 * RENAME_NOREPLACE).  Returns how many went.
 */
int fsu_drop_temp_links(int dirfd, const char *name, const struct stat *st);

/* What to do about a file of sandbx's with more than one hard link:
 * "remove the other links (find ... -samefile ... lists them)".  Malloc'd. */
char *fsu_links_advice(const char *display);

/* What fsu_write_atomic and fsu_create_with return when the new file is
 * in place but its directory could not be synced to disk: a crash or a
 * power loss may still undo it.  *err says so; errno is the sync's.
 * fsu_create_with removes its file then, and returns this only when
 * that removal fails. */
#define FSU_UNSYNCED (-2)

/*
 * Replace dirfd/name with the n bytes of buf atomically: a temporary file
 * ".name.XXXXXXXX" created 0600 with O_EXCL, written, fsync'ed, renamed over
 * name, then dirfd fsync'ed.  On failure the temporary file is removed and
 * name is untouched.  0, FSU_UNSYNCED, or -1 with *err.
 */
int fsu_write_atomic(int dirfd, const char *name, const char *display, const void *buf, size_t n, char **err);

/*
 * Create dirfd/name holding the n bytes of buf, so that it never exists
 * without them: they go to a temporary file as for fsu_write_atomic, which
 * is exclusively flock'ed, then renamed to name without replacing it (-1
 * with errno EEXIST when it exists; a filesystem without RENAME_NOREPLACE
 * links and unlinks instead); dirfd is fsync'ed.  A kill before the
 * rename leaves only the hidden temporary file.  When dirfd cannot be
 * synced, name is removed again (a create that fails leaves nothing of
 * its own behind): -1, errno the sync's, *err saying so.
 * Returns the descriptor (O_WRONLY|O_APPEND, the lock held), or -1 with
 * *err, or FSU_UNSYNCED (the file is there, its directory not synced,
 * and it could not be removed).
 */
int fsu_create_with(int dirfd, const char *name, const char *display, const void *buf, size_t n, char **err);

/*
 * Read all of fd into a malloc'd NUL-terminated buffer of at most cap bytes
 * (a file of exactly cap bytes is read; one byte more is refused).
 * 0 with *out and *n set, or -1 with *err (EFBIG when longer than cap).
 */
int fsu_read_all(int fd, size_t cap, const char *display, char **out, size_t *n, char **err);

/*
 * The message for an open of sandbx's own file or directory dirfd/name
 * (display: its path; what: "" or "the directory ") that failed with e:
 * "cannot open WHAT'display': why", and when it is the caller's own but
 * its mode shuts the caller out (EACCES: 0000, as a umask of 0777 made it
 * in earlier versions) its mode and the chmod to want that mends it.
 * Malloc'd; errno is kept.
 */
char *fsu_open_error(int dirfd, const char *name, const char *display, const char *what, int e, mode_t want);

/*
 * A base directory (or sandbx's own directory in it) could not be opened
 * or made: end *err with " — " and advice (what the XDG variable names,
 * xdg_advice) unless it says what to do already.  errno is kept.
 */
void fsu_advise(char **err, const char *advice);

/* Fill buf with n random lowercase letters and digits (getrandom). */
void fsu_random_name(char *buf, size_t n);

/* "0644" style octal permission bits of a mode, in a static-free buffer. */
void fsu_mode_str(mode_t m, char out[8]);

#endif
