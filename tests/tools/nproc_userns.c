/*
 * nproc_userns HOST LIMIT — the kernel fact the rlimit path of --limit-procs
 * rests on, measured: start HOST idle processes as the caller, then
 * unshare a user namespace (uid mapped 1:1, as the sandbox helper does),
 * set RLIMIT_NPROC to LIMIT and count how many more processes fork() gives
 * (at most LIMIT + 50).  Prints "forks=K".
 *
 * On 5.14+ (ucounts) an unprivileged caller gets K = LIMIT - 1 whatever
 * HOST is: only the namespace's own tasks are charged.  For uid 0 the
 * limit does not bind (the kernel exempts the global root user), K =
 * LIMIT + 50.  Every process started here is killed before exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "util/util.h"

#define MAX_HOST 200
#define OVER 50

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = write_all(fd, s, strlen(s));
	close(fd);
	return r;
}

static int pipefd[2];

static pid_t idle_child(void)
{
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(pipefd[1]);
		while (read(pipefd[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	return c;
}

int main(int argc, char **argv)
{
	uint64_t host, limit;
	char map[64];

	if (argc != 3 || parse_u64(argv[1], 0, MAX_HOST, &host) < 0 || parse_u64(argv[2], 2, 1000, &limit) < 0 ||
	    pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "usage: nproc_userns HOST(0-%d) LIMIT(2-1000)\n", MAX_HOST);
		return 2;
	}
	for (uint64_t i = 0; i < host; i++)
		if (idle_child() < 0) {
			perror("nproc_userns: fork (host)");
			return 1;
		}
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER) < 0) {
		perror("nproc_userns: unshare");
		return 1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_str("/proc/self/setgroups", "deny") < 0 || write_str("/proc/self/uid_map", map) < 0)
		return 1;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_str("/proc/self/gid_map", map) < 0)
		return 1;
	struct rlimit rl = { limit, limit };
	if (setrlimit(RLIMIT_NPROC, &rl) < 0) {
		perror("nproc_userns: setrlimit");
		return 1;
	}
	long forks = 0;
	for (uint64_t i = 0; i < limit + OVER; i++) {
		if (idle_child() < 0)
			break;
		forks++;
	}
	close(pipefd[1]);	/* every idle child sees EOF */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	printf("forks=%ld\n", forks);
	return 0;
}
