/*
 * cli_policy_limits.c — the resource limits of the CLI policy: the
 * defaults (limits_defaults: sandbox-run, or the agent's bash), then each
 * --limit-* flag over them; 0 or none on the command line lifts one.
 */
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli_policy.h"
#include "sandbox/limits.h"
#include "util/util.h"

/* The caller's soft open-files limit, when cli_nofile_prepare raised
 * sandbx's own above it. */
static int nofile_raised;
static struct rlimit nofile_caller;

int cli_nofile_prepare(char **err)
{
	struct rlimit r;
	if (nofile_raised || getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_cur >= CLI_NOFILE_WANT)
		return 0;
	struct rlimit up = { r.rlim_max < CLI_NOFILE_WANT ? r.rlim_max : CLI_NOFILE_WANT, r.rlim_max };
	if (up.rlim_cur > r.rlim_cur && setrlimit(RLIMIT_NOFILE, &up) == 0) {
		nofile_raised = 1;
		nofile_caller = r;
		r = up;
	}
	if (r.rlim_cur >= CLI_NOFILE_MIN)
		return 0;
	*err = xasprintf("the open-files limit is %llu and cannot be raised (its hard limit, ulimit -Hn, is %llu): "
			 "sandbx needs %d descriptors for itself and the sandbox's helper — raise the hard limit "
			 "to %d or more (ulimit -n %d as root, or in /etc/security/limits.conf); to hold the "
			 "command to fewer, add --limit-open-files N",
			 (unsigned long long)r.rlim_cur, (unsigned long long)r.rlim_max, CLI_NOFILE_MIN,
			 CLI_NOFILE_MIN, CLI_NOFILE_MIN);
	return -1;
}

void cli_nofile_restore(void)
{
	if (nofile_raised && setrlimit(RLIMIT_NOFILE, &nofile_caller) == 0)
		nofile_raised = 0;
}

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
	/* sandbx's own limit was raised for its descriptors: the command is
	 * held to the caller's, as with no raise (a limit never lifts it). */
	if (nofile_raised && (!p->limits[LIM_NOFILE] || p->limits[LIM_NOFILE] > nofile_caller.rlim_cur))
		p->limits[LIM_NOFILE] = nofile_caller.rlim_cur;
	return 0;
}
