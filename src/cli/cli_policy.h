/*
 * cli_policy.h — pieces of cli_build_policy(), exposed for unit tests and
 * for the network and limit parts that live in their own files.
 */
#ifndef SBX_CLI_POLICY_H
#define SBX_CLI_POLICY_H

#include "cli/cli.h"
#include "store/xdg.h"

/* The real location of path: its longest existing prefix resolved. */
char *cli_resolve_prefix(const char *path);

/* -1 with *err when grant (resolved) reaches the store or credentials,
 * in either direction, by name or as the same objects under another name
 * (a bind mount). */
int cli_owned_check(const char *grant, const struct xdg_paths *x, char **err);

/* 1 when path or a directory above it is the object (dev, ino), under
 * whatever name (a bind mount); parts of path that do not exist are
 * skipped. */
int cli_ancestry_has(const char *path, dev_t dev, ino_t ino);


/* -1 with *err when the user-given grant path (flag access) reaches real
 * (its realpath) through a symlink: its lexical normal form against cwd
 * ('.', '..' and '//' folded) is not real. */
int cli_symlink_check(const char *given, unsigned access, const char *cwd, const char *real, char **err);

/* -1 with *err when a grant with write (access) is at, beneath or above
 * /proc, /sys or /dev (real: resolved). */
int cli_write_tree_check(const char *real, unsigned access, char **err);

/* -1 with *err when a grant (resolved: real; access its rights) holds, or
 * lies in, a mount the view must not copy, per mountinfo text mi: with
 * write, any of the kernel's interface filesystems (a cgroup tree mounted
 * under /mnt, say); without, a proc it holds or lies in (the host's
 * processes) or a hugetlbfs it lies in or names (the machine's huge
 * pages; one it holds is masked, cli_hugetlbfs_masks).  Also -1 when
 * mi is NULL or cannot be read through.  is_cwd: the working-directory
 * default (its message). */
int cli_mounts_check(const char *mi, const char *real, unsigned access, int is_cwd, char **err);

/* sandbx's own program: its resolved path (/proc/self/exe), and the
 * (dev, ino) of the program (ids[0]) and of each directory above it. */
struct cli_self {
	char *exe;
	size_t n;
	dev_t *dev;
	ino_t *ino;
	nlink_t links;		/* the program's hard links */
	int writable;		/* the caller may write the program */
};
int cli_self_load(struct cli_self *s, char **err);
void cli_self_release(struct cli_self *s);

/* -1 with *err when a writable grant at path (resolved, pinned as dev, ino)
 * is or holds sandbx's own program, by path or by (dev, ino).  is_cwd: the
 * working-directory default (its message). */
int cli_self_check(const char *path, dev_t dev, ino_t ino, const struct cli_self *s, int is_cwd, char **err);

/* 0, or -1 with *err when grant g, as its filesystem sees it (the mount
 * holding it: device and root), lies in or holds sandbx's own session store
 * or credential directory: a bind mount of a part of either, or of a tree
 * above one, under another name. */
int cli_owned_fs_check(const char *mi, const struct policy_grant *g, const struct xdg_paths *x, int is_cwd,
		       char **err);

/* 0, or -1 with *err when grant g is sandbx's own credential file under
 * another name (by (dev, ino)), or is a directory on the filesystem (or
 * holding a mount of it) of a credential file with more than one link. */
int cli_cred_links_check(const char *mi, const struct policy_grant *g, const struct xdg_paths *x, int is_cwd,
			 char **err);

/* 0, or -1 with *err when writable directory grant g holds sandbx's own
 * program as the mount table shows their filesystems (device, and the
 * mount's root followed by the rest of the path): the program's tree
 * reached under another name, through another mount of its filesystem. */
int cli_self_fs_check(const char *mi, const struct policy_grant *g, const struct cli_self *s, int is_cwd,
		      char **err);

/* -1 with *err when sandbx's own program has more than one hard link, the
 * caller may write it, and the writable grant at path (pinned as dev) is on
 * its filesystem or holds a mount of it (mi: /proc/self/mountinfo text, or
 * NULL when unreadable, which refuses): a link to the program could lie
 * inside the grant, where no walk short of the whole tree would find it. */
int cli_self_links_check(const char *mi, const char *path, dev_t dev, const struct cli_self *s, int is_cwd,
			 char **err);

/* -1 with *err when a directory grant g holds a mount (mi: mountinfo
 * text; NULL refuses) that shows under another name what the grant
 * itself could not be given: sandbx's own program (write grants), its
 * session store or credential directory, or a part of either (any grant;
 * x may be NULL), or home (home, when not NULL: the working-directory
 * default).  The view copies every mount beneath a grant. */
int cli_alias_mounts_check(const char *mi, const struct policy_grant *g, const struct cli_self *s,
			   const struct xdg_paths *x, const char *home, int is_cwd, char **err);

/* -1 with *err for each refused shape of the working-directory default.
 * home: the resolved $HOME, or NULL when unusable.  x may be NULL. */
int cli_cwd_check(const char *cwd, const char *home, const struct policy *p,
		  const struct xdg_paths *x, char **err);

/* Fill p->mqueue from mi (mountinfo text; NULL refuses): each mqueue mount
 * point that a directory grant holds strictly beneath it, unless a grant
 * names the mount or a path in it (the user chose to share the host's
 * queues).  The view mounts the sandbox's own queues there and the tools
 * hide it: the host's queues are not the command's to see or take.
 * -1 with *err when the table cannot be read. */
int cli_mqueue_masks(const char *mi, struct policy *p, char **err);

/* Fill p->hugetlbfs the same way with the hugetlbfs mount points a
 * directory grant holds strictly beneath it (a grant naming one or a path
 * in it is refused by cli_mounts_check): the view puts an empty read-only
 * directory at each and the tools hide it, since mapping a file there
 * takes pages of the machine's huge-page pool that outlast the run.
 * -1 with *err when the table cannot be read. */
int cli_hugetlbfs_masks(const char *mi, struct policy *p, char **err);

/* Network mode, ports, DNS names and their refused combinations. */
int cli_policy_network(const struct cli_opts *o, struct policy *p, char **err);

/* Resource limits: the flags over the defaults (agent: the bash defaults). */
int cli_policy_limits(const struct cli_opts *o, int agent, struct policy *p, char **err);

/* sandbx's own open-files limit: the harness and the sandbox's helper
 * hold descriptors of their own (the helper one per grant, the harness
 * its channels moved above fd 16), so a caller's soft limit below
 * CLI_NOFILE_WANT is raised towards it, within the hard limit, and
 * cli_policy_limits then holds the command (and the agent's bash) to the
 * caller's.  -1 with *err when the limit stays below CLI_NOFILE_MIN.
 * cli_nofile_restore gives the caller's back, before a re-exec. */
#define CLI_NOFILE_WANT 1024
#define CLI_NOFILE_MIN 64
int cli_nofile_prepare(char **err);
void cli_nofile_restore(void);

/* The flag that gives a grant's rights: --allow-write, --allow-exec or
 * --allow-read. */
const char *cli_flag_name(unsigned access);

/* -1 with *err when the view would show the same files writable at one
 * path and executable at another: a writable grant of p and a grant with
 * execute but not write (the floor's included) that, as the mount table
 * mi shows their filesystems (device, the mount's root and the rest of the
 * path), hold or lie in each other under another name, or that hold a
 * mount (the view copies it with them) showing the other or a part of it.
 * Grants nested by name the way their filesystem nests them are not
 * aliases: the inner grant's mount covers the outer's there (narrower
 * rights inside).  NULL mi, or a line that cannot be read, refuses.
 * cwd_default: the grants past the floor are the working-directory
 * default (its message).  No syscall. */
int cli_exec_alias_fs_check(const char *mi, const struct policy *p, int cwd_default, char **err);

/* The same pairs compared by object: -1 with *err when a directory above a
 * grant with execute (or the grant itself) is a writable grant's (dev, ino)
 * under another name, or the reverse.  A stat per directory above each. */
int cli_exec_alias_obj_check(const struct policy *p, int cwd_default, char **err);

/* 1 when path is one the CLI grants by itself (the floor: /usr, /bin, /lib,
 * /lib64, /etc/alternatives). */
int cli_is_floor(const char *path);

#endif
