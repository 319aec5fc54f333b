/*
 * netpolicy.h — the network half of the policy that is not Landlock or
 * seccomp: --allow-dns pre-resolution into hosts/nsswitch.conf/resolv.conf
 * bound read-only over /etc in the view, and the environment constants a
 * mode imposes (RES_OPTIONS=use-vc for --dns-over-tcp).
 *
 * Life cycle (helper.c, one run):
 *   1. netpol_prepare(p, &f)           supervisor, before any namespace:
 *                                      refuse a symlinked /etc/hosts or
 *                                      /etc/nsswitch.conf, resolve each
 *                                      name with the host's resolver,
 *                                      render the three files into sealed
 *                                      memfds (f owns them)
 *   2. netpol_bind_files(root, &f, d)  init, while the view is built: copy
 *                                      each file into the view's tmpfs and
 *                                      bind it read-only over etc/<file>
 *   3. netpol_apply_env(p)             command stage, before execve
 *   The descriptors of f are close-on-exec and are closed with the rest by
 *   the command stage's close_range; netpol_files_close() is for callers
 *   that outlive the run (unit tests).
 *
 * Errors are -1 with errno: ELOOP a symlinked file (host or view), ENXIO
 * a name the host does not resolve, EAGAIN the host's resolver failed
 * for now, ENOENT a granted host /etc without the file (sandbx never adds
 * a file to the host), EINVAL a name that is not a host name.  For
 * ENXIO, EAGAIN and EINVAL, f->bad_name is the index of the name in
 * p->dns; netpol_refusal_arg() packs both into the refusal's one integer
 * and netpol_refusal_message() turns it into the text, naming the name.
 */
#ifndef SBX_NETPOLICY_H
#define SBX_NETPOLICY_H

#include <stddef.h>
#include <sys/types.h>

#include "sandbox/landlock.h"
#include "sandbox/policy.h"

/* Caps: the rendered hosts file, addresses kept per name, names. */
#define NETPOL_MAX_FILE (64 * 1024)
#define NETPOL_MAX_ADDRS 32
#define NETPOL_MAX_NAMES 128
#define NETPOL_MAX_NAME 253

struct netpol_files {
	int active;		/* --allow-dns given */
	int hosts_fd;		/* rendered files (sealed memfds), or -1 */
	int nsswitch_fd;
	int resolv_fd;
	int bad_name;		/* out: p->dns index of the name that failed, or -1 */
};

/* One line of the rendered hosts file. */
struct netpol_host {
	const char *addr;	/* numeric address text */
	const char *name;
};

/*
 * Landlock read rules for the bound files.  Landlock handles every
 * filesystem right, so without them the command cannot read /etc/hosts;
 * the helper appends them to its extra rules when f->active.
 */
#define NETPOL_NRULES 3
extern const struct landlock_extra netpol_landlock_rules[NETPOL_NRULES];

int netpol_prepare(const struct policy *p, struct netpol_files *f);
int netpol_bind_files(int root, const struct netpol_files *f, dev_t tmpfs_dev);
void netpol_apply_env(const struct policy *p);
void netpol_files_close(struct netpol_files *f);

/* 1 if name is a host name sandbx writes into a hosts file: 1..253 bytes
 * of letters, digits, '-' and '.', not starting with '-' or '.'. */
int netpol_name_ok(const char *name);

/*
 * Pure renderers (unit-tested).  netpol_render_hosts returns a malloc'd
 * hosts file with one "ADDR NAME" line per entry, or NULL when the text
 * would pass NETPOL_MAX_FILE.  The other two are constant texts.
 */
char *netpol_render_hosts(const struct netpol_host *h, size_t n);
const char *netpol_nsswitch_text(void);
const char *netpol_resolv_text(void);

/* ACH_REF_DNS's integer: errno e and, when name >= 0, its index in
 * p->dns (f->bad_name). */
int netpol_refusal_arg(int e, int name);

/* The refusal message for that integer (malloc'd), naming p->dns's name
 * when the integer has an index within it. */
char *netpol_refusal_message(int arg, const struct policy *p);

#endif
