/* PROVISIONAL: replaced by the syscall-filter work (issue 3). */
#include <errno.h>

#include "sandbox/seccomp.h"

int seccomp_filter_build(const struct policy *p, scmp_filter_ctx *out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	*out = ctx;
	return 0;
}

int seccomp_filter_install(const struct policy *p)
{
	scmp_filter_ctx ctx;
	int r = seccomp_filter_build(p, &ctx);
	if (r < 0)
		return r;
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}
