/* Network part of the CLI policy (the network issue, 4, extends it). */
#include <string.h>

#include "cli/cli_policy.h"

int cli_policy_network(const struct cli_opts *o, struct policy *p, char **err)
{
	if (o->net_any) {
		p->net = POL_NET_ANY;
	} else if (o->nports) {
		p->net = POL_NET_PORTS;
		memcpy(p->ports, o->ports, o->nports * sizeof(o->ports[0]));
		p->nports = o->nports;
	} else {
		p->net = POL_NET_NONE;
	}
	for (size_t i = 0; i < o->dns.n; i++)
		strv_push(&p->dns, o->dns.v[i]);
	p->dns_over_tcp = o->dns_over_tcp;
	p->allow_unix = o->allow_unix;
	return 0;
}
