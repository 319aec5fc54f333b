/*
 * cli_policy_net.c — the network part of cli_build_policy(): the mode
 * (none / any / ports), the --allow-dns names and the combinations that
 * are refused because they would leave a resolver answering every name
 * (or, with no IP egress, make --allow-dns pointless).
 *
 * The parser (cli_parse.c) already refused ports outside 1..65535, bare
 * and listed --allow-network together, --dns-over-tcp without port 53 and
 * an --allow-dns NAME that is not a host name (exit 64).  What is refused here ends the run with exit 125.
 */
#include <string.h>

#include "cli/cli_policy.h"
#include "sandbox/netpolicy.h"

static int has_port(const struct cli_opts *o, uint16_t port)
{
	for (size_t i = 0; i < o->nports; i++)
		if (o->ports[i] == port)
			return 1;
	return 0;
}

/* -1 with *err when --allow-dns is combined with something that defeats it. */
static int dns_check(const struct cli_opts *o, char **err)
{
	if (o->dns.n == 0)
		return 0;
	for (size_t i = 0; i < o->dns.n; i++) {
		if (!netpol_name_ok(o->dns.v[i])) {
			*err = xasprintf("--allow-dns '%s' is not a host name — use letters, digits, '-' and '.', "
					 "starting with a letter or digit", o->dns.v[i]);
			return -1;
		}
	}
	if (o->dns.n > NETPOL_MAX_NAMES) {
		*err = xasprintf("--allow-dns is given %zu times, more than %d — grant fewer names", o->dns.n,
				 NETPOL_MAX_NAMES);
		return -1;
	}
	if (o->dns_over_tcp) {
		*err = xstrdup("--allow-dns cannot be combined with --dns-over-tcp: the command would reach a real "
			       "nameserver, which answers every name — use one or the other");
		return -1;
	}
	if (o->net_any) {
		*err = xstrdup("--allow-dns cannot be combined with bare --allow-network: with any network a command "
			       "reaches a nameserver that answers every name — list ports with --allow-network "
			       "PORT[,PORT] instead");
		return -1;
	}
	if (o->allow_unix) {
		*err = xstrdup("--allow-dns cannot be combined with --allow-unix-sockets: a unix socket can reach a "
			       "resolver daemon (nscd, systemd-resolved) that answers every name — use one or the other");
		return -1;
	}
	if (has_port(o, 53)) {
		*err = xstrdup("--allow-dns cannot be combined with port 53 in --allow-network: port 53 reaches a "
			       "nameserver that answers every name — remove 53 from the list");
		return -1;
	}
	if (o->nports == 0) {
		*err = xstrdup("--allow-dns without --allow-network grants names nothing can reach: the command has "
			       "no IP egress — add --allow-network PORT[,PORT] for the ports it needs");
		return -1;
	}
	return 0;
}

/*
 * A grant of exactly one of the files --allow-dns renders would be covered
 * in the view by the rendered file, and the helper would then find the
 * grant "replaced" and refuse with a misleading message: say it here.
 * (A grant of /etc itself is fine: the files are bound over it.)
 */
static int dns_grant_check(const struct cli_opts *o, const struct policy *p, char **err)
{
	static const char *const rendered[] = { "/etc/hosts", "/etc/nsswitch.conf", "/etc/resolv.conf" };
	if (o->dns.n == 0)
		return 0;
	for (size_t i = 0; i < p->ngrants; i++) {
		for (size_t j = 0; j < SBX_ARRAY_LEN(rendered); j++) {
			if (p->grants[i].link || strcmp(p->grants[i].path, rendered[j]) != 0)
				continue;
			*err = xasprintf("--allow-dns cannot be combined with a grant of '%s': the command sees the "
					 "rendered file there — drop that grant (or grant /etc to read the rest)",
					 rendered[j]);
			return -1;
		}
	}
	return 0;
}

int cli_policy_network(const struct cli_opts *o, struct policy *p, char **err)
{
	if (dns_check(o, err) < 0 || dns_grant_check(o, p, err) < 0)
		return -1;
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
