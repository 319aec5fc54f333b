/*
 * netpolicy.h — the network half of the policy that is not Landlock:
 * --allow-dns pre-resolution into hosts/nsswitch.conf/resolv.conf bound
 * over /etc in the view, and the environment constants a mode imposes.
 *
 * Life cycle (helper, supervisor then init):
 *   1. netpol_prepare(p, &f)        before any namespace: resolve names,
 *                                   render the files into memfd-free temp
 *                                   descriptors
 *   2. netpol_bind_files(root, &f)  while building the view
 *   3. netpol_apply_env(p)          in the command stage
 */
#ifndef SBX_NETPOLICY_H
#define SBX_NETPOLICY_H

#include <sys/types.h>

#include "sandbox/policy.h"

struct netpol_files {
	int active;		/* --allow-dns given */
	int hosts_fd;		/* rendered files, or -1 */
	int nsswitch_fd;
	int resolv_fd;
};

int netpol_prepare(const struct policy *p, struct netpol_files *f);
int netpol_bind_files(int root, const struct netpol_files *f, dev_t tmpfs_dev);
void netpol_apply_env(const struct policy *p);

#endif
