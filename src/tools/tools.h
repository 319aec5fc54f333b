/*
 * tools.h — the agent's seven tools: one const table row each (name,
 * description for the model, JSON input schema, risk class, handler).
 *
 *   tool   input                               risk
 *   read   path, offset?, limit?               read-only
 *   ls     path                                read-only
 *   find   path, name (glob)                   read-only
 *   grep   path, pattern, glob?, ignore_case?  read-only
 *   write  path, content                       write
 *   edit   path, old, new, replace_all?        write
 *   bash   command, timeout?                   exec (in the sandbox helper)
 *
 * read/ls/find/grep/write/edit run in this process, beneath the roots of
 * an FsGuard (fsguard.h); bash runs /bin/sh -c in the sandbox helper with
 * the session's policy.  Output is bounded (tools_limits.h); a cut result
 * ends with a line saying what was cut ("showing N of M ...").
 *
 * Life cycle, for the turn loop:
 *   1. fsguard_new(&policy, NULL, 0, &guard, &err)
 *   2. struct tool_ctx ctx = { .guard = guard, .policy = &policy,
 *          .limits = { o->max_scan_files, o->max_scan_bytes, o->max_results },
 *          .stop = &stop_flag };
 *   3. tools_schema_json(mask) for the request's "tools" array;
 *      tools_risk(name) for the approval gate
 *   4. per tool_use block: tools_run(&ctx, name, input, &res);
 *      send res.content with res.is_error; tool_result_release(&res)
 *   5. fsguard_free(guard)
 * tools_run never fails: bad input (missing field, wrong type, unknown
 * tool or field) is a tool error whose content tells the model what to
 * fix.  Setting *ctx->stop makes a running call return an error: grep,
 * find and ls (which check it per entry) return what they had found with
 * a note saying why they stopped, bash kills its sandbox and returns the
 * output so far with such a note, the others return "cancelled".  One ctx
 * may serve one call at a time.
 */
#ifndef SBX_TOOLS_H
#define SBX_TOOLS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "util/cjson.h"

#include "sandbox/policy.h"
#include "tools/fsguard.h"

enum tool_risk {
	TOOL_RISK_READ = 0,	/* read-only: runs at once */
	TOOL_RISK_WRITE,	/* changes files beneath a write grant */
	TOOL_RISK_EXEC,		/* runs a command in the sandbox */
};

/* Bit i is the tool tools_table()[i]; the names' order is cli_tool_names. */
enum tool_id { TOOL_READ, TOOL_LS, TOOL_FIND, TOOL_GREP, TOOL_WRITE, TOOL_EDIT, TOOL_BASH, TOOL__COUNT };
#define TOOLS_MASK_ALL ((1u << TOOL__COUNT) - 1)
#define TOOLS_MASK_READONLY ((1u << TOOL_READ) | (1u << TOOL_LS) | (1u << TOOL_FIND) | (1u << TOOL_GREP))

struct tool_limits {
	uint64_t max_scan_files;	/* 0 = TOOLS_MAX_SCAN_FILES */
	uint64_t max_scan_bytes;	/* 0 = TOOLS_MAX_SCAN_BYTES */
	uint64_t max_results;		/* 0 = TOOLS_MAX_RESULTS */
	uint64_t grep_ms;		/* a grep or find call's time, 0 = TOOLS_GREP_SECONDS (tests shorten it) */
};

/* Test hook: called at named points ("checked": a file's handle passed its
 * size check and is about to be read (grep); "sized": edit took the
 * file's size and is about to read it; "entry": a walk visits an entry;
 * "filled": write's new content is in the file that is to take the
 * target's place, path the target's name, before that file has its
 * final mode or a name of its own when it is an O_TMPFILE;
 * "temp": write's temp file holds the new content, path its name in the
 * target's directory, before it is renamed into place). */
typedef void (*tool_hook_fn)(void *arg, const char *event, const char *path);

/*
 * The file a write or edit is about, as the approval question showed it
 * (agent.c fills it from the diff it drew): the call runs only when the
 * file is still so, or it is refused and nothing is written.  The user
 * may take minutes to answer, and another program (their editor, a build)
 * may change the file meanwhile: what then ran was not what was shown.
 */
struct tool_expect {
	int present;		/* 0: shown as a new file */
	const char *content;	/* the text the diff compared, or NULL: then */
	size_t len;
	dev_t dev;		/* ... the file as it was: same inode, size, mtime */
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* What *tool_ctx.stop holds once set: TOOL_STOP_SIGNAL(sig) when a signal
 * that ends sandbx stopped the call (the TUI's handler catches SIGTERM,
 * SIGINT and SIGHUP itself, so sandbox_sigs_hold leaves them alone): bash's
 * exited record names it (stopped=SIGTERM), as sandbox-run's does.  Any
 * other nonzero value is the user's stop (Escape in the TUI, an interrupt
 * of `sandbx tool`): stopped=cancelled; but TOOL_STOP_TERMINAL, the TUI's
 * terminal gone with no signal to name (SIGHUP left ignored, nohup; the
 * keyboard failing): stopped=terminal-lost. */
#define TOOL_STOP_SIGNAL(sig) (128 + (sig))
#define TOOL_STOP_TERMINAL 2

struct tool_ctx {
	struct fsguard *guard;		/* in-process tools (borrowed) */
	const struct policy *policy;	/* bash (borrowed) */
	const char *(*env_value)(const char *name);	/* bash: struct sandbox_spawn's; NULL: getenv */
	const char *filter_cache;	/* bash: struct sandbox_spawn's; NULL: none */
	struct tool_limits limits;
	volatile sig_atomic_t *stop;	/* may be NULL; TOOL_STOP_SIGNAL below */
	const struct tool_expect *expect;	/* write, edit: approved as this; NULL: unchecked */
	tool_hook_fn hook;		/* tests only; NULL */
	void *hook_arg;
	int no_tmpfile;			/* tests: act as on a filesystem without O_TMPFILE */
	int no_statx_attrs;		/* tests: act as on one whose statx lacks chattr's +a, +i */
};

struct tool_result {
	int is_error;
	char *content;		/* malloc'd, NUL-terminated, never NULL after tools_run */
};

struct tool_def;
typedef int (*tool_handler_fn)(const struct tool_ctx *ctx, const cJSON *input, struct tool_result *out);

struct tool_def {
	const char *name;
	const char *description;	/* for the model */
	const char *schema;		/* JSON Schema of the input object */
	enum tool_risk risk;
	tool_handler_fn handler;	/* fills out; returns 0 (ok) or -1 (tool error) */
};

/* The table, TOOL__COUNT rows, in enum tool_id order. */
const struct tool_def *tools_table(void);

/* The row named name, or NULL. */
const struct tool_def *tools_find(const char *name);

/* Risk class of a tool; -1 for an unknown name. */
int tools_risk(const char *name);

/* Bit of a tool in an allowed mask; 0 for an unknown name. */
unsigned tools_bit(const char *name);

/*
 * The Anthropic Messages API "tools" array for the tools in allowed_mask:
 * [{"name","description","input_schema"}...].  Caller frees (cJSON_Delete).
 */
cJSON *tools_schema_json(unsigned allowed_mask);

/* 1 when JSON text s (n bytes) has a \u0000 escape in a string: cJSON
 * would cut the value there ("a.txt\u0000/../x" reads as "a.txt"), so
 * such an input is refused whole rather than half-read. */
int tools_json_has_nul(const char *s, size_t n);

/* 0 when JSON text s (n bytes) holds a nested object or array, or an
 * object of more than max_members members: no tool takes such an input,
 * and parsed it would cost a tree node for every two bytes sent.  Checked
 * before parsing; 1 otherwise (cJSON then parses and judges the rest). */
#define TOOLS_MAX_INPUT_MEMBERS 32
int tools_json_is_flat(const char *s, size_t n, size_t max_members);

/*
 * Check input against the tool's schema: an object, every required field
 * present, no unknown field, each of its type (integers whole, >= 0).
 * Returns 0, or -1 with *err (malloc'd) for the model.
 */
int tools_validate(const struct tool_def *t, const cJSON *input, char **err);

/*
 * Run one tool call.  Always fills out (content malloc'd); returns 0 when
 * the tool succeeded, -1 when out is a tool error.
 */
int tools_run(const struct tool_ctx *ctx, const char *name, const cJSON *input, struct tool_result *out);

void tool_result_release(struct tool_result *r);

/*
 * What edit makes of buf (n bytes): old (non-empty) replaced by new, once,
 * or everywhere when all.  *k is how many times old occurs and *grown the
 * size of the result.  The result (malloc'd, NUL-terminated), or NULL when
 * edit would refuse: no match, several without all, or over the edit limit.
 * The approval question's diff is built with it, so it shows what runs.
 */
char *tools_edit_text(const char *buf, size_t n, const char *old, const char *new, int all, size_t *k,
		      uint64_t *grown);

/* Why edit refuses old/new against a text where old occurs k times and
 * the result would be grown bytes (tools_edit_text's figures), in the
 * words the tool answers with; NULL when it would apply.  Malloc'd. */
char *tools_edit_refusal(const char *path, const char *old, const char *new, int all, size_t k, uint64_t grown);

/* The edit's own first steps, which the approval gate takes too for a
 * file it would not ask about: its refusal of what no file changes
 * (tools_edit_refusal), its open of path through the guard (read and
 * write rights; a FIFO, socket or device is never opened, and the
 * record that open writes is audited), then its refusal of anything but
 * a regular file.  The descriptor (O_RDONLY) with *st, or -1 with *err
 * (malloc'd) the words the tool answers with. */
struct stat;
int tools_edit_open(struct fsguard *g, const char *path, const char *old, const char *new, int all, struct stat *st,
		    char **err);

/* What write answers, as it would, for path where something stands
 * that it never replaces (a FIFO, socket or device), through its own
 * steps and so with the audit records they write: its open of the
 * directory that holds the name (write right; nothing made), then its
 * look at the name, which opens nothing; for a file granted by name,
 * the guard's open, which refuses a device without opening it.
 * Malloc'd; NULL when the write would go on (nothing there, or a
 * regular file there by now): the call is then asked about. */
char *tools_write_target_refusal(struct fsguard *g, const char *path);

/* Open the run-time libraries the tools use later (PCRE2, for grep) now;
 * 0, or -1 with *err. */
int tools_preload(char **err);

/* A file name (or path) as the tools list it: each control byte (below
 * 0x20, and 0x7f) written as \xNN, so a name holding a newline cannot
 * pose as another entry or a grep hit; each byte of a C1 control (NEL)
 * or of U+2028/U+2029, which end a line too, the same; each byte that is
 * not UTF-8 the same, where the JSON the model reads would have U+FFFD
 * for every one of them alike; and a backslash as \x5c, so no name is
 * shown as another is.  malloc'd. */
char *tools_name_visible(const char *s);

/* A path as find and grep start a line with it: tools_name_visible, and a
 * leading '(' as \x28, so no path poses as their closing notes ("(no
 * matches)"); with colon, each ':' as \x3a too, so a name cannot pose as
 * grep's "path:line:" (the file 'm.c:1:evil' holding 'x').  malloc'd. */
char *tools_path_visible(const char *s, int colon);

/* s[0..n) as a string with each NUL byte written \x00, so text after one
 * is not lost where the result is handled as a C string.  malloc'd. */
char *tools_nul_visible(const char *s, size_t n);

/*
 * Make s valid UTF-8 (the API refuses anything else): each byte that does
 * not start a valid sequence becomes U+FFFD.  Takes s; returns s itself
 * or a new string (s freed).  tools_run applies it to every result.
 */
char *tools_utf8_clean(char *s);

#endif
