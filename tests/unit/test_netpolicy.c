/*
 * test_netpolicy.c — the --allow-dns renderer and preparation
 * (sandbox/netpolicy.c) and the network refusals of the CLI policy
 * (cli/cli_policy_net.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "cli/cli_policy.h"
#include "sandbox/netpolicy.h"

/* ---- netpolicy ------------------------------------------------------------ */

static void netpol_name_rules(void **state)
{
	char long_name[300];
	assert_true(netpol_name_ok("localhost"));
	assert_true(netpol_name_ok("registry.npmjs.org"));
	assert_true(netpol_name_ok("a-b.c0"));
	assert_false(netpol_name_ok(""));
	assert_false(netpol_name_ok("-x"));
	assert_false(netpol_name_ok(".x"));
	assert_false(netpol_name_ok("a b"));
	assert_false(netpol_name_ok("a\nb"));
	assert_false(netpol_name_ok("a\tb"));
	assert_false(netpol_name_ok("a_b"));
	assert_false(netpol_name_ok("a#b"));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(netpol_name_ok(long_name));
	long_name[NETPOL_MAX_NAME] = '\0';
	assert_true(netpol_name_ok(long_name));
}

static void netpol_render_lines(void **state)
{
	const struct netpol_host h[] = {
		{ "127.0.0.1", "localhost" },
		{ "::1", "localhost" },
		{ "192.0.2.7", "example.test" },
	};
	char *t = netpol_render_hosts(h, 3);
	assert_non_null(t);
	const char *body = strchr(t, '\n');
	assert_non_null(body);
	assert_int_equal(t[0], '#');
	assert_string_equal(body + 1, "127.0.0.1 localhost\n::1 localhost\n192.0.2.7 example.test\n");
	free(t);

	t = netpol_render_hosts(NULL, 0);
	assert_non_null(t);
	assert_int_equal(t[0], '#');
	assert_int_equal(strchr(t, '\n')[1], '\0');
	free(t);
}

static void netpol_render_cap(void **state)
{
	/* Past NETPOL_MAX_FILE the renderer refuses rather than truncates. */
	size_t n = NETPOL_MAX_FILE / 16 + 1;
	struct netpol_host *h = calloc(n, sizeof(*h));
	assert_non_null(h);
	for (size_t i = 0; i < n; i++) {
		h[i].addr = "2001:db8::1234";
		h[i].name = "x.test";
	}
	assert_null(netpol_render_hosts(h, n));
	char *t = netpol_render_hosts(h, 8);
	assert_non_null(t);
	free(t);
	free(h);
}

static void netpol_fixed_texts(void **state)
{
	const char *ns = netpol_nsswitch_text();
	const char *rc = netpol_resolv_text();
	/* hosts: files and nothing else; no dns, no resolve, no myhostname */
	const char *hl = strstr(ns, "\nhosts:");
	assert_non_null(hl);
	char line[64];
	size_t n = strcspn(hl + 1, "\n");
	assert_true(n < sizeof(line));
	memcpy(line, hl + 1, n);
	line[n] = '\0';
	assert_string_equal(line, "hosts:      files");
	/* no service line names dns (only the comment mentions --allow-dns) */
	for (const char *l = ns; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0)) {
		size_t len = strcspn(l, "\n");
		if (l[0] == '#')
			continue;
		for (size_t i = 0; i + 3 <= len; i++)
			assert_false(strncmp(l + i, "dns", 3) == 0);
	}
	assert_non_null(strstr(ns, "\npasswd:     files\n"));
	assert_non_null(strstr(ns, "\ngroup:      files\n"));
	/* no nameserver line in resolv.conf */
	for (const char *l = rc; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		assert_false(strncmp(l, "nameserver", 10) == 0);
}

static char *read_all(int fd)
{
	char *buf = calloc(1, NETPOL_MAX_FILE + 1);
	ssize_t n = pread(fd, buf, NETPOL_MAX_FILE, 0);
	assert_true(n >= 0);
	return buf;
}

static void netpol_prepare_none(void **state)
{
	struct policy p;
	struct netpol_files f;
	policy_init(&p);
	assert_int_equal(netpol_prepare(&p, &f), 0);
	assert_int_equal(f.active, 0);
	assert_int_equal(f.hosts_fd, -1);
	assert_int_equal(f.nsswitch_fd, -1);
	assert_int_equal(f.resolv_fd, -1);
	policy_release(&p);
}

static void netpol_prepare_localhost(void **state)
{
	struct policy p;
	struct netpol_files f;
	policy_init(&p);
	p.net = POL_NET_PORTS;
	strv_push(&p.dns, "localhost");
	if (netpol_prepare(&p, &f) < 0) {
		int e = errno;
		policy_release(&p);
		if (e == ELOOP)
			skip();	/* this host's /etc/hosts is a symlink: refused by design */
		fail_msg("netpol_prepare: %s", strerror(e));
	}
	assert_int_equal(f.active, 1);
	char *hosts = read_all(f.hosts_fd);
	/* every line after the comment names localhost, and there is one */
	assert_non_null(strstr(hosts, " localhost\n"));
	for (char *l = strchr(hosts, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
		char *sp = strchr(l, ' ');
		assert_non_null(sp);
		assert_true(strncmp(sp, " localhost\n", 11) == 0);
	}
	char *ns = read_all(f.nsswitch_fd), *rc = read_all(f.resolv_fd);
	assert_string_equal(ns, netpol_nsswitch_text());
	assert_string_equal(rc, netpol_resolv_text());
	/* sealed: the command cannot be handed a file someone changed */
	assert_int_equal(pwrite(f.hosts_fd, "x", 1, 0), -1);
	assert_true(fcntl(f.hosts_fd, F_GETFD) & FD_CLOEXEC);
	free(hosts);
	free(ns);
	free(rc);
	netpol_files_close(&f);
	assert_int_equal(f.hosts_fd, -1);
	policy_release(&p);
}

static void netpol_prepare_bad_names(void **state)
{
	struct policy p;
	struct netpol_files f;
	policy_init(&p);
	strv_push(&p.dns, "bad name");
	assert_int_equal(netpol_prepare(&p, &f), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(f.active, 0);
	assert_int_equal(f.hosts_fd, -1);
	policy_release(&p);

	policy_init(&p);
	strv_push(&p.dns, "sandbx-no-such-host.invalid");
	int r = netpol_prepare(&p, &f);
	int e = errno;
	assert_int_equal(r, -1);
	assert_true(e == ENXIO || e == EAGAIN || e == ELOOP);
	assert_int_equal(f.hosts_fd, -1);
	policy_release(&p);
}

static void netpol_messages(void **state)
{
	int errs[] = { ELOOP, ENXIO, EAGAIN, ENOENT, EINVAL, EIO };
	for (size_t i = 0; i < SBX_ARRAY_LEN(errs); i++) {
		char *m = netpol_refusal_message(netpol_refusal_arg(errs[i], -1), NULL);
		assert_non_null(strstr(m, "--allow-dns"));
		assert_non_null(strstr(m, " — "));
		assert_non_null(strstr(m, "nothing was run"));
		free(m);
	}
	char *m = netpol_refusal_message(netpol_refusal_arg(ELOOP, -1), NULL);
	assert_non_null(strstr(m, "symbolic link"));
	free(m);
	/* A name's index names it; one past the policy's names does not. */
	struct policy p;
	policy_init(&p);
	strv_push(&p.dns, "a.example");
	strv_push(&p.dns, "b.example");
	m = netpol_refusal_message(netpol_refusal_arg(ENXIO, 1), &p);
	assert_non_null(strstr(m, "--allow-dns 'b.example' does not resolve on the host"));
	free(m);
	m = netpol_refusal_message(netpol_refusal_arg(EAGAIN, 0), &p);
	assert_non_null(strstr(m, "could not answer --allow-dns 'a.example' for now"));
	free(m);
	m = netpol_refusal_message(netpol_refusal_arg(ENXIO, 2), &p);
	assert_non_null(strstr(m, "an --allow-dns name does not resolve"));
	free(m);
	m = netpol_refusal_message(netpol_refusal_arg(ENOENT, 0), &p);
	assert_non_null(strstr(m, "no hosts or nsswitch.conf"));
	free(m);
	policy_release(&p);
}

static void netpol_env_dns_over_tcp(void **state)
{
	struct policy p;
	policy_init(&p);
	unsetenv("RES_OPTIONS");
	netpol_apply_env(&p);
	assert_null(getenv("RES_OPTIONS"));
	p.dns_over_tcp = 1;
	setenv("RES_OPTIONS", "rotate", 1);
	netpol_apply_env(&p);
	assert_string_equal(getenv("RES_OPTIONS"), "use-vc");
	unsetenv("RES_OPTIONS");
	policy_release(&p);
}

/* ---- cli_policy_network ------------------------------------------------------ */

static void opts_ports(struct cli_opts *o, const uint16_t *ports, size_t n)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < n; i++)
		o->ports[o->nports++] = ports[i];
}

static char *refusal(struct cli_opts *o)
{
	struct policy p;
	char *err = NULL;
	policy_init(&p);
	int r = cli_policy_network(o, &p, &err);
	policy_release(&p);
	if (r == 0) {
		assert_null(err);
		return NULL;
	}
	assert_non_null(err);
	return err;
}

static void clinet_modes(void **state)
{
	struct cli_opts o;
	struct policy p;
	char *err = NULL;
	const uint16_t ports[] = { 443, 8080 };

	memset(&o, 0, sizeof(o));
	policy_init(&p);
	assert_int_equal(cli_policy_network(&o, &p, &err), 0);
	assert_int_equal(p.net, POL_NET_NONE);
	policy_release(&p);

	o.net_any = 1;
	policy_init(&p);
	assert_int_equal(cli_policy_network(&o, &p, &err), 0);
	assert_int_equal(p.net, POL_NET_ANY);
	policy_release(&p);

	opts_ports(&o, ports, 2);
	strv_push(&o.dns, "registry.npmjs.org");
	o.allow_unix = 0;
	policy_init(&p);
	assert_int_equal(cli_policy_network(&o, &p, &err), 0);
	assert_int_equal(p.net, POL_NET_PORTS);
	assert_int_equal(p.nports, 2);
	assert_int_equal(p.ports[1], 8080);
	assert_int_equal(p.dns.n, 1);
	assert_string_equal(p.dns.v[0], "registry.npmjs.org");
	char *d = policy_describe_net(&p);
	assert_string_equal(d, "ports=443,8080");
	free(d);
	policy_release(&p);
	strv_free(&o.dns);

	memset(&o, 0, sizeof(o));
	o.allow_unix = 1;
	policy_init(&p);
	assert_int_equal(cli_policy_network(&o, &p, &err), 0);
	assert_int_equal(p.allow_unix, 1);
	policy_release(&p);
}

static void expect_refused(struct cli_opts *o, const char *second_flag)
{
	char *err = refusal(o);
	assert_non_null(err);
	assert_non_null(strstr(err, "--allow-dns"));
	if (!strstr(err, second_flag))
		fail_msg("'%s' does not name '%s'", err, second_flag);
	assert_non_null(strstr(err, " — "));
	free(err);
}

static void clinet_dns_refusals(void **state)
{
	struct cli_opts o;
	const uint16_t p80[] = { 80 }, p53[] = { 80, 53 };

	opts_ports(&o, p53, 2);
	strv_push(&o.dns, "localhost");
	o.dns_over_tcp = 1;
	expect_refused(&o, "--dns-over-tcp");
	strv_free(&o.dns);

	memset(&o, 0, sizeof(o));
	o.net_any = 1;
	strv_push(&o.dns, "localhost");
	expect_refused(&o, "bare --allow-network");
	strv_free(&o.dns);

	opts_ports(&o, p80, 1);
	o.allow_unix = 1;
	strv_push(&o.dns, "localhost");
	expect_refused(&o, "--allow-unix-sockets");
	strv_free(&o.dns);

	opts_ports(&o, p53, 2);
	strv_push(&o.dns, "localhost");
	expect_refused(&o, "port 53");
	strv_free(&o.dns);

	memset(&o, 0, sizeof(o));
	strv_push(&o.dns, "localhost");
	expect_refused(&o, "--allow-network");
	strv_free(&o.dns);

	opts_ports(&o, p80, 1);
	strv_push(&o.dns, "-oops");
	expect_refused(&o, "not a host name");
	strv_free(&o.dns);

	/* a grant of a file --allow-dns renders (here: /etc/hosts) */
	struct stat st;
	if (lstat("/etc/hosts", &st) == 0 && S_ISREG(st.st_mode)) {
		struct policy p;
		char *err = NULL;
		opts_ports(&o, p80, 1);
		strv_push(&o.dns, "localhost");
		policy_init(&p);
		assert_int_equal(policy_add_grant(&p, "/etc/hosts", POL_READ, &err), 0);
		assert_int_equal(cli_policy_network(&o, &p, &err), -1);
		assert_non_null(strstr(err, "--allow-dns"));
		assert_non_null(strstr(err, "'/etc/hosts'"));
		free(err);
		policy_release(&p);
		strv_free(&o.dns);
	}

	/* the same flags without --allow-dns are accepted */
	opts_ports(&o, p53, 2);
	o.dns_over_tcp = 1;
	o.allow_unix = 1;
	assert_null(refusal(&o));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(netpol_name_rules),
		cmocka_unit_test(netpol_render_lines),
		cmocka_unit_test(netpol_render_cap),
		cmocka_unit_test(netpol_fixed_texts),
		cmocka_unit_test(netpol_prepare_none),
		cmocka_unit_test(netpol_prepare_localhost),
		cmocka_unit_test(netpol_prepare_bad_names),
		cmocka_unit_test(netpol_messages),
		cmocka_unit_test(netpol_env_dns_over_tcp),
		cmocka_unit_test(clinet_modes),
		cmocka_unit_test(clinet_dns_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
