/*
 * lim_threads N — start up to N threads that stay alive (each blocks on a
 * pipe), then try one vfork() and one fork() on top of them: a process
 * limit must count threads and vfork children like forked processes.
 * Prints "ok threads=K vfork=R fork=R" when all N threads started, else
 * "err ERRNO threads=K vfork=R fork=R", where R is "ok" or an errno name.
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "probe.h"

static int hold[2];

static void *blocked(void *arg)
{
	char b;
	(void)arg;
	while (read(hold[0], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static const char *try_child(int use_vfork)
{
	pid_t c = use_vfork ? vfork() : fork();
	if (c == 0)
		_exit(0);
	if (c < 0)
		return probe_errname(errno);
	while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
		;
	return "ok";
}

int main(int argc, char **argv)
{
	long n, k = 0;
	int e = 0;
	pthread_attr_t at;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) <= 0 || n > 10000 || pipe(hold) < 0)
		return 2;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int r = pthread_create(&t, &at, blocked, NULL);
		if (r != 0) {
			e = r;
			break;
		}
		k++;
	}
	const char *v = try_child(1), *f = try_child(0);
	if (e)
		printf("err %s threads=%ld vfork=%s fork=%s\n", probe_errname(e), k, v, f);
	else
		printf("ok threads=%ld vfork=%s fork=%s\n", k, v, f);
	fflush(stdout);
	_exit(e ? 1 : 0);	/* the threads still block: end them all with the process */
}
