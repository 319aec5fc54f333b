/* Limit part of the CLI policy (the resource-limit issue, 5, sets defaults). */
#include "cli/cli_policy.h"

int cli_policy_limits(const struct cli_opts *o, int agent, struct policy *p, char **err)
{
	for (int k = 0; k < LIM__COUNT; k++)
		if (o->limit_set[k])
			p->limits[k] = o->limits[k];
	return 0;
}
