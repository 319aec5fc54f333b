/*
 * lim_nofile MAX — open /dev/null until it fails or MAX are open.
 * Prints "ok opened=N" or "err EMFILE opened=N" (plus the three standard
 * descriptors already open).
 */
#include <fcntl.h>

#include "probe.h"

int main(int argc, char **argv)
{
	long max, n = 0;

	if (argc < 2 || (max = strtol(argv[1], NULL, 10)) <= 0)
		return 2;
	while (n < max) {
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
			printf("err %s opened=%ld\n", errno == EMFILE ? "EMFILE" : probe_errname(errno), n);
			return 1;
		}
		n++;
	}
	printf("ok opened=%ld\n", n);
	return 0;
}
