/*
 * lim_alloc MIB — allocate MIB mebibytes in 16 MiB chunks and touch every
 * page.  Prints "ok mib=N" or "err ERRNO mib=N" (N reached before the
 * failure).  Under a cgroup memory limit it is killed instead (SIGKILL).
 */
#include <sys/mman.h>

#include "probe.h"

#define CHUNK (16L << 20)

int main(int argc, char **argv)
{
	long want, got = 0;

	if (argc < 2 || (want = strtol(argv[1], NULL, 10)) <= 0 || want > (1L << 20))
		return 2;
	while (got < want) {
		char *m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			printf("err %s mib=%ld\n", probe_errname(errno), got);
			return 1;
		}
		memset(m, 0xa5, CHUNK);
		got += CHUNK >> 20;
	}
	printf("ok mib=%ld\n", got);
	return 0;
}
