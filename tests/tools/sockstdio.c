/*
 * sockstdio — run a program with its standard input and output on one end
 * of a unix stream socketpair, as libuv (Node's child_process) gives a
 * child its stdio, and copy what it writes there to our standard output.
 * The other end stays here, so this process is the socket's peer: what
 * SO_PEERCRED and SO_PEERPIDFD name on the child's end.
 *
 *   sockstdio PROGRAM [ARG...]
 *
 * Exits with the program's status (128+N for a signal), 2 on a usage or
 * setup error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int sv[2], st;
	char buf[4096];
	ssize_t n;
	if (argc < 2 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 2;
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
			_exit(2);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(sv[1]);
	while ((n = read(sv[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
	if (waitpid(pid, &st, 0) < 0)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
