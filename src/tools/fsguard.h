/*
 * fsguard.h — the in-process tools' only filesystem boundary.
 *
 * The harness is not confined, so every path the model names is resolved
 * here, beneath a granted root held open since the guard was built:
 *
 *   - each granted directory is opened O_PATH|O_DIRECTORY|O_NOFOLLOW and
 *     kept only if it is still the vetted (dev, ino) of the policy;
 *   - a model path (absolute, or relative to the working directory) is
 *     normalised lexically ('..' removed before any matching), matched to
 *     the innermost root that contains it, and opened with
 *     openat2(root, rel, RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 *     RESOLVE_NO_MAGICLINKS);
 *   - outside every root, through a symlink anywhere in the path, or
 *     absent inside a root: the same "not found" (-ENOENT), so the answer
 *     never tells whether an outside path exists;
 *   - a path in /dev/shm or /tmp under a grant that holds it without
 *     naming it (--allow-read /dev): "not found", since bash sees its own
 *     empty tmpfs there, never the host's;
 *   - a root without the right (read tools need POL_READ, write tools
 *     POL_WRITE) is -EACCES with a message naming the flag to add;
 *   - a grant naming a file, or a kernel without openat2, falls back to
 *     checked path access (O_NOFOLLOW opens, pin compared on the handle;
 *     a component walk for directories) with a `degraded` audit record
 *     naming the root.
 * Audit records: `allowed` (debug), `denied` and `absent` (info).
 *
 * Life cycle:
 *   1. fsguard_new(&policy, cwd, 0, &g, &err)   roots opened and checked
 *   2. fsguard_open()/fsguard_open_parent() any number of times
 *   3. fsguard_free(g)                          closes the roots
 * The guard copies what it needs; the policy may be released after 1.
 * Not thread-safe for concurrent use of one guard (no shared state is
 * mutated after 1, but callers should not rely on it).
 */
#ifndef SBX_FSGUARD_H
#define SBX_FSGUARD_H

#include "sandbox/policy.h"

struct fsguard;

enum fsguard_flags {
	FSG_NO_OPENAT2 = 1 << 0,	/* tests: act as on a kernel without openat2 */
};

/*
 * Build the guard from the policy's grants (link entries are skipped).
 * cwd: the directory relative paths start from (NULL: getcwd()).
 * Returns 0, or -1 with *err when a granted directory cannot be opened or
 * is no longer the vetted object (nothing should run then).
 */
int fsguard_new(const struct policy *p, const char *cwd, unsigned flags, struct fsguard **out, char **err);
void fsguard_free(struct fsguard *g);

/* 1 when fd is on a proc filesystem: the in-process tools, which run in
 * the harness, would read the host's processes there. */
int fsguard_is_proc(int fd);

/* Open name in the directory dfd (one component, never a link) only if
 * it is a regular file, and nothing else it may be by then: a walk saw it
 * as one, but a bash call can have swapped a FIFO (whose writer the open
 * would release) or a device in since.  The name is taken O_PATH first
 * and that very inode reopened.  The descriptor, or -errno: -ELOOP a
 * link, -ENXIO anything but a regular file. */
int fsguard_open_reg_at(int dfd, const char *name, int oflags);

/* 1 when fd is a scratch directory (/dev/shm, /tmp) that a grant holds
 * but bash sees as its own empty tmpfs (policy_scratch_private): walks
 * skip it, as fsguard_open refuses paths in it. */
int fsguard_is_hidden(const struct fsguard *g, int fd);

/*
 * Open path with oflags (O_CLOEXEC and O_NOFOLLOW are added; O_CREAT is
 * refused: creation goes through fsguard_open_parent).  want: POL_READ
 * and/or POL_WRITE, checked against the root's access bits.
 * Returns the descriptor, or -ENOENT (not found, outside, symlink),
 * -EACCES (root lacks the right), another -errno; *err (malloc'd) then
 * holds a message for the model.  *abs_out (may be NULL) receives the
 * normalised absolute path on success (caller frees).
 * O_PATH in oflags opens nothing (no device, FIFO or socket is refused
 * then): for a file grant it is the handle compared with the pin.
 * FSGUARD_TRY in want: a refusal by the file's own mode (-EACCES from
 * the open) is not audited, as the caller tries again another way and
 * that open's outcome is the record (a denied write that then succeeded
 * was one).
 */
#define FSGUARD_TRY (1u << 16)
int fsguard_open(struct fsguard *g, const char *path, int oflags, unsigned want, char **abs_out, char **err);

/*
 * The directories one fsguard_open_parent call made, so that a write
 * that fails after them can take them away again.  Each is held as the
 * descriptor of the directory it was made in and the name it was made
 * with (never found again through a path), and its (dev, ino): what is
 * removed is that entry, only while it is still that directory, and only
 * empty (unlinkat AT_REMOVEDIR, never a recursive removal).
 *
 * Life cycle:
 *   1. struct fsguard_made m = { 0 };
 *   2. fsguard_open_parent(g, path, want, &m, &name, &err)
 *      (on its own failure it has already undone what it made)
 *   3. fsguard_made_undo(&m) when the write then fails, else
 *      fsguard_sync_dirs(dfd, &m) once the file is in place, and
 *      fsguard_made_keep(&m); undo and keep close what m holds and empty
 *      it, and either comes before fsguard_free (m may hold a root's fd).
 * The fields are the guard's.
 */
struct fsguard_made_dir {
	int dfd;		/* the directory it was made in */
	int own;		/* dfd is ours to close (not a root's) */
	char *name;
	dev_t dev;
	ino_t ino;
};

struct fsguard_made {
	struct fsguard_made_dir *v;	/* outermost first */
	size_t n;
};

/* Remove the directories m holds, innermost first; one that is no longer
 * the directory made, or no longer empty (someone put a file there), is
 * left, silently. */
void fsguard_made_undo(struct fsguard_made *m);
/* Keep them: release what m holds. */
void fsguard_made_keep(struct fsguard_made *m);

/*
 * Sync the directory dfd (any descriptor of it, O_PATH too) to disk, and
 * each directory m (NULL: none) made one in: a link, rename or mkdir is
 * durable only once the directory holding the new name is.  0, or an
 * errno.  A directory the user may not read cannot be opened to sync and
 * is passed over, as one whose filesystem does not sync directories
 * (EINVAL).
 */
int fsguard_sync_dirs(int dfd, const struct fsguard_made *m);

/*
 * Open the directory that holds path's last component, as an O_PATH
 * directory descriptor usable with openat/renameat, and return the
 * component in *name (malloc'd).  made: create missing parent
 * directories (each one beneath the root, never through a symlink) and
 * note them there; NULL: create none.  The last component is not looked
 * at.  Same returns as fsguard_open; -EISDIR when path is a root itself.
 * A grant naming a file has no directory to write in: -EXDEV (callers
 * fall back to in-place writes through fsguard_open).
 */
int fsguard_open_parent(struct fsguard *g, const char *path, unsigned want, struct fsguard_made *made, char **name,
			char **err);

/*
 * Lexically normalise path against cwd (absolute, no '.', '..' or empty
 * components; '..' at / stays at /).  Pure; the result is malloc'd.
 * NULL for an empty path or one longer than TOOLS_MAX_PATH.
 */
char *fsguard_normalize(const char *cwd, const char *path);

/* The working directory the guard resolves relative paths from. */
const char *fsguard_cwd(const struct fsguard *g);

#endif
