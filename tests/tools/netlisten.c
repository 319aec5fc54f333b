/*
 * netlisten.c — a bounded loopback listener for the network tests (runs
 * outside the sandbox).
 *
 *   netlisten tcp|udp ADDR PORT SECONDS LOG    ADDR a 127.0.0.1 or ::1
 *                                              literal; PORT 0 = any
 *   netlisten abstract NAME - SECONDS LOG      unix stream socket "\0NAME"
 *
 * Prints the bound port (0 for abstract) on stdout once listening, then
 * appends one line to LOG per event: "conn" for an accepted connection,
 * "data TEXT" for what it sent (first line, at most 200 bytes),
 * "dgram TEXT" for a datagram.  Exits after SECONDS whatever happens, so
 * a test that forgets it leaves nothing running.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define NL_MAX_TEXT 200
#define NL_MAX_SECONDS 600

static int log_fd = -1;

static void log_line(const char *kind, const char *buf, ssize_t n)
{
	char line[NL_MAX_TEXT + 32];
	size_t w = 0;
	w += (size_t)snprintf(line, sizeof(line), "%s", kind);
	if (buf) {
		line[w++] = ' ';
		for (ssize_t i = 0; i < n && i < NL_MAX_TEXT && buf[i] != '\n'; i++)
			line[w++] = (buf[i] >= 0x20 && buf[i] < 0x7f) ? buf[i] : '?';
	}
	line[w++] = '\n';
	(void)!write_all(log_fd, line, w);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int usage(void)
{
	fprintf(stderr, "netlisten: usage: netlisten tcp|udp ADDR PORT SECONDS LOG | abstract NAME - SECONDS LOG\n");
	return 2;
}

static void serve_conn(int c, long deadline)
{
	char buf[NL_MAX_TEXT + 1];
	struct pollfd pf = { .fd = c, .events = POLLIN };
	long left = deadline - now_ms();
	log_line("conn", NULL, 0);
	if (left > 1000)
		left = 1000;
	if (left > 0 && poll(&pf, 1, (int)left) > 0) {
		ssize_t n = read(c, buf, NL_MAX_TEXT);
		if (n > 0)
			log_line("data", buf, n);
	}
	(void)!write(c, "hi\n", 3);
	close(c);
}

int main(int argc, char **argv)
{
	uint64_t port = 0, secs;
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int type, fd;

	if (argc != 6 || parse_u64(argv[4], 1, NL_MAX_SECONDS, &secs) < 0)
		return usage();
	memset(&ss, 0, sizeof(ss));
	if (strcmp(argv[1], "abstract") == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		size_t n = strlen(argv[2]);
		if (n + 1 > sizeof(un->sun_path))
			return usage();
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, argv[2], n);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
		type = SOCK_STREAM;
	} else {
		struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		if (parse_u64(argv[3], 0, 65535, &port) < 0)
			return usage();
		if (inet_pton(AF_INET, argv[2], &in4->sin_addr) == 1) {
			in4->sin_family = AF_INET;
			in4->sin_port = htons((uint16_t)port);
			len = sizeof(*in4);
		} else if (inet_pton(AF_INET6, argv[2], &in6->sin6_addr) == 1) {
			in6->sin6_family = AF_INET6;
			in6->sin6_port = htons((uint16_t)port);
			len = sizeof(*in6);
		} else {
			return usage();
		}
		if (strcmp(argv[1], "tcp") == 0)
			type = SOCK_STREAM;
		else if (strcmp(argv[1], "udp") == 0)
			type = SOCK_DGRAM;
		else
			return usage();
	}
	log_fd = open(argv[5], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		fprintf(stderr, "netlisten: cannot open '%s': %s\n", argv[5], strerror(errno));
		return 1;
	}
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || (type == SOCK_STREAM && listen(fd, 16) < 0)) {
		fprintf(stderr, "netlisten: cannot listen: %s\n", strerror(errno));
		return 1;
	}
	if (ss.ss_family != AF_UNIX) {
		socklen_t l = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &l) < 0)
			return 1;
		port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	printf("%u\n", (unsigned)port);
	fflush(stdout);

	long deadline = now_ms() + (long)secs * 1000;
	for (;;) {
		long left = deadline - now_ms();
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (left <= 0)
			break;
		int n = poll(&pf, 1, (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (type == SOCK_DGRAM) {
			char buf[NL_MAX_TEXT + 1];
			ssize_t r = recv(fd, buf, NL_MAX_TEXT, 0);
			if (r >= 0)
				log_line("dgram", buf, r);
		} else {
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0)
				serve_conn(c, deadline);
		}
	}
	return 0;
}
