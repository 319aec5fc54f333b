/*
 * resolve.c — getaddrinfo() of one name, for the --allow-dns tests.  A
 * dynamically linked tool (the static probes cannot load glibc's NSS
 * modules), run inside the sandbox with its directory granted execute.
 *
 *   resolve NAME
 *
 * stdout: "ok ADDR..." (numeric, sorted, each once) or "err EAI-TEXT".
 * stderr: "elapsed_ms N", the time getaddrinfo took.
 * Exit 0 resolved, 1 not, 2 usage.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "util/util.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	struct timespec t0, t1;
	struct strv addrs = { 0 };

	if (argc != 2) {
		fprintf(stderr, "resolve: usage: resolve NAME\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = getaddrinfo(argv[1], NULL, &hints, &res);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "elapsed_ms %ld\n", (t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L);
	if (r != 0) {
		printf("err %s\n", gai_strerror(r));
		return 1;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		char host[NI_MAXHOST];
		if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof(host), NULL, 0, NI_NUMERICHOST) == 0 &&
		    !strv_has(&addrs, host))
			strv_push(&addrs, host);
	}
	freeaddrinfo(res);
	if (addrs.n)
		qsort(addrs.v, addrs.n, sizeof(char *), cmp);
	printf("ok");
	for (size_t i = 0; i < addrs.n; i++)
		printf(" %s", addrs.v[i]);
	printf("\n");
	strv_free(&addrs);
	return 0;
}
