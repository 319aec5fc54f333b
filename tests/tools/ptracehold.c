/*
 * ptracehold.c — trace a process from outside the sandbox, as a debugger
 * on the host would, so a test can check that the init's job-control stop
 * fails closed when it cannot hold every thread itself.
 *
 *   ptracehold PROG TAG SECS
 *       wait (up to 20 s) for a process running PROG (its argv[0]) whose
 *       command line holds TAG (sandbx, its supervisor and its init hold
 *       the command line too), PTRACE_SEIZE it (no stop), print "held PID"
 *       on stderr and keep it traced for SECS seconds; its stops are left
 *       unanswered
 *
 * Exit 0 when it held one, 1 when none appeared or the seize failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>

#include "util/util.h"

#define FIND_MAX_MS 20000

static int cmdline_has(const char *pid, const char *prog, const char *tag)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	ssize_t n = read_small_at(AT_FDCWD, path, 0, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	if (strcmp(buf, prog) != 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return strstr(buf, tag) != NULL;
}

static long find(const char *prog, const char *tag)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long found = 0, self = (long)getpid();
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (*end || v <= 0 || v == self)
			continue;
		if (cmdline_has(e->d_name, prog, tag))
			found = v;
	}
	closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: ptracehold PROG TAG SECS\n");
		return 2;
	}
	struct timespec tick = { 0, 20 * 1000000L };
	long pid = 0;
	for (int waited = 0; !pid && waited < FIND_MAX_MS; waited += 20) {
		pid = find(argv[1], argv[2]);
		if (!pid)
			nanosleep(&tick, NULL);
	}
	if (!pid) {
		fprintf(stderr, "ptracehold: no process of '%s' with '%s' appeared\n", argv[1], argv[2]);
		return 1;
	}
	if (ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL) < 0) {
		fprintf(stderr, "ptracehold: PTRACE_SEIZE %ld: %s\n", pid, strerror(errno));
		return 1;
	}
	fprintf(stderr, "held %ld\n", pid);
	sleep((unsigned)atoi(argv[3]));
	return 0;
}
