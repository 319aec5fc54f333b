/* PROVISIONAL: --allow-dns lands with the network issue (4). */
#include <stdlib.h>

#include "sandbox/netpolicy.h"

int netpol_prepare(const struct policy *p, struct netpol_files *f)
{
	f->active = 0;
	f->hosts_fd = f->nsswitch_fd = f->resolv_fd = -1;
	return 0;
}

int netpol_bind_files(int root, const struct netpol_files *f, dev_t tmpfs_dev)
{
	return 0;
}

void netpol_apply_env(const struct policy *p)
{
	if (p->dns_over_tcp)
		setenv("RES_OPTIONS", "use-vc", 1);
}
