/*
 * cli_policy_limits.c — the resource limits of the CLI policy: the
 * defaults (limits_defaults: sandbox-run, or the agent's bash), then each
 * --limit-* flag over them; 0 or none on the command line lifts one.
 */
#include <unistd.h>

#include "cli/cli_policy.h"
#include "sandbox/limits.h"

static uint64_t host_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

int cli_policy_limits(const struct cli_opts *o, int agent, struct policy *p, char **err)
{
	uint64_t def[LIM__COUNT];
	limits_defaults(agent, agent ? host_ram() : 0, def);
	for (int k = 0; k < LIM__COUNT; k++)
		p->limits[k] = o->limit_set[k] ? o->limits[k] : def[k];
	return 0;
}
