/*
 * lim_write PATH KIB [ignore] — write KIB kibibytes to PATH (created,
 * truncated) in 64 KiB blocks.  Prints "ok kib=N" or "err ERRNO kib=N".
 * With "ignore", SIGXFSZ is ignored so a file-size limit shows as EFBIG;
 * without it the process dies by SIGXFSZ.
 */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
	static char buf[64 << 10];
	long want, done = 0;

	if (argc < 3 || (want = strtol(argv[2], NULL, 10)) <= 0)
		return 2;
	if (argc > 3 && strcmp(argv[3], "ignore") == 0)
		signal(SIGXFSZ, SIG_IGN);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return probe_report(-1);
	memset(buf, 'x', sizeof(buf));
	while (done < want) {
		ssize_t n = write(fd, buf, sizeof(buf));
		if (n < 0) {
			printf("err %s kib=%ld\n", probe_errname(errno), done);
			return 1;
		}
		done += n >> 10;
	}
	printf("ok kib=%ld\n", done);
	return 0;
}
