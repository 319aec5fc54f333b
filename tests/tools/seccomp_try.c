/*
 * seccomp_try.c — run a program under the sandbox's syscall filter alone:
 * no namespaces, no setsid, no Landlock, no dropped capabilities.  The
 * integration tests use it to show that a refusal comes from the filter
 * itself (for instance TIOCSTI on the caller's own controlling terminal,
 * which the command stage's setsid would refuse anyway).
 *
 *   seccomp_try [--net none|any|ports] [--unix] -- PROG [ARG...]
 *
 * Exit status: PROG's (it is executed in place), 64 on a usage error,
 * 125 when the filter could not be built or loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/policy.h"
#include "sandbox/seccomp.h"

int main(int argc, char **argv)
{
	struct policy p;
	int i;

	policy_init(&p);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--unix") == 0) {
			p.allow_unix = 1;
		} else if (strcmp(argv[i], "--net") == 0 && i + 1 < argc) {
			const char *m = argv[++i];
			if (strcmp(m, "none") == 0) {
				p.net = POL_NET_NONE;
			} else if (strcmp(m, "any") == 0) {
				p.net = POL_NET_ANY;
			} else if (strcmp(m, "ports") == 0) {
				p.net = POL_NET_PORTS;
			} else {
				fprintf(stderr, "seccomp_try: unknown network mode '%s'\n", m);
				return 64;
			}
		} else {
			fprintf(stderr, "seccomp_try: unknown option '%s'\n", argv[i]);
			return 64;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: seccomp_try [--net none|any|ports] [--unix] -- PROG [ARG...]\n");
		return 64;
	}
	int r = seccomp_filter_install(&p);
	if (r < 0) {
		fprintf(stderr, "seccomp_try: cannot load the filter: %s\n", strerror(-r));
		return 125;
	}
	execv(argv[i + 1], argv + i + 1);
	fprintf(stderr, "seccomp_try: cannot execute '%s': %s\n", argv[i + 1], strerror(errno));
	return 127;
}
