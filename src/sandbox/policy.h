/*
 * policy.h — what a confined command may reach.  One policy object drives
 * both enforcement layers: the sandbox helper (mount view, Landlock,
 * seccomp) for spawned commands and FsGuard for the in-process tools.
 *
 * Library level it is default-deny: an initialised policy grants nothing,
 * not even an environment variable.  The CLI floor (system directories,
 * startup variables, the working-directory default) is added by the cli
 * layer (cli/cli_policy.c), never here.
 *
 * Life cycle:
 *   1. policy_init(&p)
 *   2. policy_add_grant() for each path (resolved and vetted: the (dev, ino)
 *      of the object the path named when it was added is the pin every
 *      later open is checked against), strv_push(&p.env, NAME) per variable,
 *      net/limit fields set directly
 *   3. policy_to_argv() to hand it to the helper, or fsguard_new() for tools
 *   4. policy_release(&p)
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdint.h>
#include <sys/types.h>

#include "util/util.h"

enum policy_access {
	POL_READ = 1 << 0,	/* read files, list directories */
	POL_WRITE = 1 << 1,	/* create, write, remove, rename, truncate */
	POL_EXEC = 1 << 2,	/* execute (and map executable) */
};

enum policy_net {
	POL_NET_NONE = 0,	/* empty network namespace, loopback up */
	POL_NET_ANY,		/* host network namespace, unrestricted */
	POL_NET_PORTS,		/* host namespace, TCP to/bind on ports[] only */
};

enum policy_limit {
	LIM_PROCS, LIM_MEMORY, LIM_CPU, LIM_FSIZE, LIM_NOFILE, LIM__COUNT
};

#define POLICY_MAX_GRANTS 256
#define POLICY_MAX_PORTS 64

struct policy_grant {
	char *path;		/* absolute and resolved (no symlink, no ..) */
	unsigned access;	/* enum policy_access bits */
	int is_dir;
	int is_proc;		/* /proc or beneath: the sandbox's own procfs */
	dev_t dev;		/* the vetted object */
	ino_t ino;
	char *link;		/* set: path is a symlink to this target,
				   recreated in the mount view (floor /bin) */
};

struct policy {
	struct policy_grant *grants;
	size_t ngrants;
	size_t nfloor;		/* the first nfloor grants are sandbx's own (the
				   CLI floor), not the user's: the cap's message
				   counts what the user can still give */
	struct strv env;	/* names of variables passed through, whole */
	enum policy_net net;
	uint16_t ports[POLICY_MAX_PORTS];
	size_t nports;
	struct strv dns;	/* names pre-resolved into the view's hosts */
	int dns_over_tcp;
	int allow_unix;
	uint64_t limits[LIM__COUNT];	/* 0 = not limited */
	char *cwd;		/* the command's working directory, or NULL */
	struct strv mqueue;	/* mqueue mount points a grant holds without
				   naming it or a path in it: the view mounts
				   the sandbox's own at each, the tools hide
				   them (cli_mqueue_masks; "--mqueue PATH") */
	struct strv hugetlbfs;	/* hugetlbfs mount points a grant holds: the
				   view puts an empty read-only tmpfs at each,
				   the tools hide them (cli_hugetlbfs_masks;
				   "--hugetlbfs PATH") */
};

void policy_init(struct policy *p);
void policy_release(struct policy *p);

/*
 * Resolve path (realpath), vet it (lstat of the result gives the pin) and
 * add it with access; a path already granted gets the union of rights.
 * Returns 0, or -1 with *err (malloc'd) naming the path: it does not exist,
 * cannot be resolved, or too many grants.
 */
int policy_add_grant(struct policy *p, const char *path, unsigned access, char **err);

/*
 * policy_add_grant for a path the caller already resolved and vetted:
 * refused (-1, *err) when it no longer resolves to itself, so what is
 * pinned is what was vetted, whatever was swapped in since.
 */
int policy_add_grant_resolved(struct policy *p, const char *real, unsigned access, char **err);

/*
 * Add a symlink entry (path is a link to target) for the floor's merged-/usr
 * links.  Not vetted by pin: the view recreates the link, grants nothing.
 */
void policy_add_link(struct policy *p, const char *path, const char *target);

/* The grant whose path is exactly path, or NULL. */
const struct policy_grant *policy_find(const struct policy *p, const char *path);

/* Human-readable summaries for the spawned record ("ro=/usr,/lib rw=/w").
 * In each path ' ', ',', '=' and '\' are written \xNN (policy_escape_path),
 * so a directory named "b,rw=/x" cannot read as another grant. */
char *policy_describe_paths(const struct policy *p);
/* The class a grant's rights print as there: "rx", "ro", "rw", "wo",
 * "rwx", "wx", "xo" or "none" — each mix its own, so none hides a right. */
const char *policy_access_class(unsigned access);
char *policy_escape_path(const char *path);
char *policy_describe_net(const struct policy *p);

/*
 * Serialise the policy to argv words for the helper (names only: variable
 * values travel in the environment, never in argv) and parse them back.
 * policy_from_argv consumes words up to and excluding "--"; it returns the
 * index of "--" or -1 with *err.
 */
void policy_to_argv(const struct policy *p, struct strv *out);
int policy_from_argv(struct policy *p, char **argv, int argc, char **err);

/* Grants sorted so that a parent precedes every path beneath it. */
void policy_sort(struct policy *p);

/*
 * The directories the helper gives the command a private, empty tmpfs at
 * (/dev/shm, /tmp), and whether it does under p: yes unless a grant names
 * the directory or a path beneath it, when the user chose what it holds.
 */
#define POLICY_NSCRATCH 2
extern const char *const policy_scratch_dirs[POLICY_NSCRATCH];
int policy_scratch_private(const struct policy *p, size_t i);

#endif
