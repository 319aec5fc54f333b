/*
 * policyrun.c — drive the sandbox at the library level, for the tests that
 * the CLI cannot express.
 *
 *   policyrun [--read P] [--write P] [--exec P] [--swap DIR] [--pin-swap NEW] -- PROG ARGS...
 *
 * Grants are added with exactly the rights named (no CLI floor beyond
 * read+exec on /usr, /bin, /lib, /lib64, no read added to write).  --swap
 * DIR renames DIR away and creates a new empty directory at its name
 * after the policy was vetted and before the helper starts: the helper
 * must refuse the run.  --pin-swap NEW opens PROG as the pinned program
 * (as sandbox-run --pin-sha256 does once it has hashed it), then renames
 * NEW over PROG's path before the helper starts: the helper must execute
 * the descriptor, not the path.  Exit status: sandbx's, as sandbox-run
 * would give.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sandbox/helper.h"
#include "sandbox/policy.h"
#include "util/log.h"

int main(int argc, char **argv)
{
	struct policy p;
	struct sandbox_result res;
	char *err = NULL, cwd[PATH_MAX];
	const char *swap = NULL, *pin_swap = NULL;
	int i;

	/* sandbox_start re-executes /proc/self/exe: this binary is the helper. */
	if (argc > 1 && strcmp(argv[1], HELPER_ARGV1) == 0)
		return helper_main(argc, argv);
	log_init();
	policy_init(&p);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		if (i + 1 >= argc)
			return 64;
		unsigned acc = !strcmp(argv[i], "--read") ? POL_READ : !strcmp(argv[i], "--write") ? POL_WRITE
			     : !strcmp(argv[i], "--exec") ? (POL_READ | POL_EXEC) : 0;
		if (!strcmp(argv[i], "--swap")) {
			swap = argv[i + 1];
			continue;
		}
		if (!strcmp(argv[i], "--pin-swap")) {
			pin_swap = argv[i + 1];
			continue;
		}
		if (!acc || policy_add_grant(&p, argv[i + 1], acc, &err) < 0) {
			fprintf(stderr, "policyrun: %s\n", err ? err : "bad option");
			return 64;
		}
	}
	if (i >= argc - 1)
		return 64;
	static const char *const floor[] = { "/usr", "/bin", "/lib", "/lib64" };
	for (size_t k = 0; k < 4; k++) {
		char t[PATH_MAX];
		ssize_t n = readlink(floor[k], t, sizeof(t) - 1);
		if (n > 0) {
			t[n] = '\0';
			policy_add_link(&p, floor[k], t);
		} else if (access(floor[k], F_OK) == 0 && policy_add_grant(&p, floor[k], POL_READ | POL_EXEC, &err) < 0) {
			fprintf(stderr, "policyrun: %s\n", err);
			return 64;
		}
	}
	strv_push(&p.env, "PATH");
	if (getcwd(cwd, sizeof(cwd)))
		p.cwd = xstrdup(cwd);
	policy_sort(&p);

	if (swap) {
		char *old = xasprintf("%s.swapped", swap);
		if (rename(swap, old) < 0 || mkdir(swap, 0755) < 0) {
			perror("policyrun: swap");
			return 1;
		}
		free(old);
	}
	int pin_fd = -1;
	if (pin_swap) {
		pin_fd = open(argv[i + 1], O_RDONLY | O_CLOEXEC);
		if (pin_fd < 0 || rename(pin_swap, argv[i + 1]) < 0) {
			perror("policyrun: pin-swap");
			return 1;
		}
	}
	struct sandbox_spawn s = { .policy = &p, .argv = argv + i + 1, .pin_fd = pin_fd, .stdio = { -1, -1, -1 } };
	if (sandbox_start(&s, &err) < 0) {
		fprintf(stderr, "policyrun: %s\n", err);
		return 125;
	}
	sandbox_wait(&s, 30000, NULL, &res);
	policy_release(&p);
	return res.code;
}
