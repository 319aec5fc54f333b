/*
 * tools_int.h — shared by the tool files only (not for other modules):
 * the bounded output buffer, input accessors, the tree walker and the
 * atomic write used by write and edit.
 *
 * Output buffer life cycle: tout_init(&o, max); tout_add()...;
 * tout_detach() hands the text out (caller frees) or tout_release().
 * Invariants: buf is NUL-terminated whenever non-NULL; len <= max; an add
 * that does not fit whole is refused (full is set) so a result never ends
 * in half a line.
 */
#ifndef SBX_TOOLS_INT_H
#define SBX_TOOLS_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/tools.h"
#include "tools/tools_limits.h"

struct tout {
	char *buf;
	size_t len, alloc, max;
	int full;
};

void tout_init(struct tout *o, size_t max);
/* 0, or -1 (and full set) when s[0..n) does not fit whole. */
int tout_add(struct tout *o, const char *s, size_t n);
int tout_printf(struct tout *o, const char *fmt, ...) SBX_ATTR_PRINTF(2, 3);
/* Append without the cap (the closing "showing N of M" line). */
void tout_force(struct tout *o, const char *s);
void tout_note(struct tout *o, const char *fmt, ...) SBX_ATTR_PRINTF(2, 3);
char *tout_detach(struct tout *o);
void tout_release(struct tout *o);

/* Fill out as a tool error (returns -1) or a success (returns 0). */
int tool_fail(struct tool_result *out, const char *fmt, ...) SBX_ATTR_PRINTF(2, 3);
int tool_fail_own(struct tool_result *out, char *msg);
int tool_ok_own(struct tool_result *out, char *content);

/* Input accessors: tools_validate has already checked types. */
const char *tin_str(const cJSON *in, const char *key);	/* NULL if absent */
uint64_t tin_uint(const cJSON *in, const char *key, uint64_t dflt);
int tin_bool(const cJSON *in, const char *key, int dflt);

/* Effective limits (0 in ctx = the default). */
uint64_t tlim_files(const struct tool_ctx *c);
uint64_t tlim_bytes(const struct tool_ctx *c);
uint64_t tlim_results(const struct tool_ctx *c);
/* Wall-clock budget of one grep or find call, ms. */
long tlim_ms(const struct tool_ctx *c);

static inline int tool_stopped(const struct tool_ctx *c)
{
	return c->stop && *c->stop;
}

/* The last line of a result the stop flag cut short (tools.h,
 * TOOL_STOP_*), after what the call had found: "[cancelled: the user
 * stopped the <what>; ...]", or the signal or the lost terminal that
 * stopped it, as bash's note names them.  Then the call returns it as an
 * error: it did not finish. */
void tool_stop_note(const struct tool_ctx *c, struct tout *o, const char *what);

static inline void tool_hook(const struct tool_ctx *c, const char *event, const char *path)
{
	if (c->hook)
		c->hook(c->hook_arg, event, path);
}

/* 1 when path can only name a directory: it ends in '/', or its last
 * component is '.' or '..' (open(2) refuses such a path to a file, where
 * the lexical folding would land on the file or the directory above). */
int tpath_names_dir(const char *path);

/* The prefix results are shown under: path without trailing slashes, "" for ".". */
char *tdisplay_base(const char *path);

/* Human size: "2 MiB", "64 MiB", "512 bytes". */
char *tsize_words(uint64_t n);

/*
 * Tree walker: visits every entry beneath a directory, depth first, in
 * directory order (callers sort what they show), never
 * following a link (entries are opened with O_NOFOLLOW relative to their
 * directory's descriptor), skipping .git/.hg/.svn, at most TOOLS_MAX_DEPTH
 * deep.  w->path holds the entry's display path while visit runs.
 */
enum walk_stop { WALK_DONE = 0, WALK_CANCELLED, WALK_CAP, WALK_TIME };

/* Entries a walk could not open (a mode that refuses the user, a
 * directory of 0300): counted, the first named, so the result says what
 * it did not search instead of answering as if the tree held nothing. */
struct tskip {
	uint64_t n;
	int err;		/* errno of the first */
	char *first;		/* its display path, malloc'd */
};

/* Count one more (path: its display path, copied for the first). */
void tskip_add(struct tskip *s, int err, const char *path);
/* The closing line for what could not be opened, named in the singular
 * and the plural ("file", "files"). */
void tskip_note(const struct tskip *s, struct tout *o, const char *one, const char *many);
void tskip_release(struct tskip *s);

struct walk {
	const struct tool_ctx *ctx;
	/* visit: type is a DT_* value (DT_UNKNOWN resolved with fstatat).
	 * Return 0 to go on, 1 to stop the walk (set w->stop yourself). */
	int (*visit)(struct walk *w, int dfd, const char *name, unsigned char type);
	void *arg;
	enum walk_stop stop;
	/* mono_ms() at which the walk stops (WALK_TIME), 0 for none: a walk
	 * in the harness is untimed otherwise, and one glob match can cost
	 * milliseconds (tool_walk_time_bound) */
	long deadline;
	long budget_ms;		/* what the note says the budget was */
	uint64_t deep_skipped;	/* directories past TOOLS_MAX_DEPTH */
	uint64_t long_skipped;	/* entries whose path does not fit path[] */
	struct tskip unopened;	/* directories that could not be opened */
	char path[PATH_MAX + 256];
	size_t plen;
	size_t base_len;	/* path + base_len: the entry relative to the start */
};

/*
 * Glob match as find's name and grep's glob use it: a glob without '/'
 * matches the entry's name, one with '/' its path relative to the search
 * start ('*' then also matches '/'); a leading "**" + "/" lets the rest
 * match from any directory down.
 */
int tglob_match(const char *glob, const char *name, const char *rel);

/* Walk the directory open as dfd (O_RDONLY|O_DIRECTORY; consumed). */
void walk_tree(struct walk *w, int dfd, const char *base);

/* The closing lines for what the walk left out (deep or long paths,
 * directories it could not open); frees what the walk kept for them. */
void walk_notes(struct walk *w, struct tout *o);

/*
 * Replace path with data atomically: a temp file in the same directory
 * (opened beneath the root), fsync'd, then renameat over the name (which
 * replaces a link named path rather than writing through it).  The
 * existing file's owner, mode (without set-id bits), access ACL and
 * user.* xattrs are kept; a directory or file chattr made append-only or
 * immutable is refused first.  mkdirs: make missing parent directories
 * (removed again when the write then fails).  Returns 0, or -1 with *err.
 * *created is set to 1 when path did not exist.
 */
int tools_write_atomic(const struct tool_ctx *c, const char *path, const char *data, size_t n, int mkdirs,
		       int *created, char **err);

/* Handlers (tool_*.c). */
int tool_read_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_ls_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_find_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_grep_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_write_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_edit_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);
int tool_bash_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out);

#endif
