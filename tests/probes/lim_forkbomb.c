/*
 * lim_forkbomb N [TAG [HOLD]] — fork up to N children that stay alive
 * (each blocks on a pipe until this process closes it), counting how many
 * forks succeed; with HOLD, keep them all alive HOLD seconds more, so a
 * test can count them from the host.  Prints "ok forks=K" when all N
 * succeeded, else "err ERRNO forks=K".  TAG is only carried in argv, so a
 * test can find the processes (and leftovers) by their command line.
 */
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "probe.h"

int main(int argc, char **argv)
{
	int p[2], e = 0;
	long n, forks = 0;

	if (argc < 2 || (n = strtol(argv[1], NULL, 10)) <= 0 || n > 100000 || pipe(p) < 0)
		return 2;
	for (long i = 0; i < n; i++) {
		pid_t c = fork();
		if (c < 0) {
			e = errno;
			break;
		}
		if (c == 0) {
			char b;
			close(p[1]);
			while (read(p[0], &b, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		forks++;
	}
	if (argc > 3)
		sleep((unsigned)strtoul(argv[3], NULL, 10));
	close(p[1]);	/* every child sees EOF and exits */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	if (e) {
		printf("err %s forks=%ld\n", probe_errname(e), forks);
		return 1;
	}
	printf("ok forks=%ld\n", forks);
	return 0;
}
