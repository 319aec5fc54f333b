/*
 * mq.c — POSIX message queues, for the tests that check a sandbox never
 * reaches the host's.  Static like every probe: it runs inside the
 * sandbox as well as outside (to set a queue up and check it after).
 *
 *   mq send NAME MSG      mq_open(NAME, O_CREAT|O_RDWR, 0600) and send MSG
 *   mq count NAME         print "ok N": the messages NAME holds
 *   mq unlink NAME        remove the queue
 *   mq recv-path PATH     open(PATH, O_RDONLY) (a file of an mqueue mount)
 *                         and mq_timedreceive on it without waiting:
 *                         "ok MSG" when a message was taken
 */
#include <fcntl.h>
#include <mqueue.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "send") == 0) {
		struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 64 };
		mqd_t q = mq_open(argv[2], O_CREAT | O_RDWR, 0600, &a);
		if (q == (mqd_t)-1)
			return probe_report(-1);
		return probe_report(mq_send(q, argv[3], strlen(argv[3]), 0));
	}
	if (argc == 3 && strcmp(argv[1], "count") == 0) {
		struct mq_attr a;
		mqd_t q = mq_open(argv[2], O_RDONLY);
		if (q == (mqd_t)-1 || mq_getattr(q, &a) < 0)
			return probe_report(-1);
		printf("ok %ld\n", (long)a.mq_curmsgs);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "unlink") == 0)
		return probe_report(mq_unlink(argv[2]));
	if (argc == 3 && strcmp(argv[1], "recv-path") == 0) {
		char buf[8192];
		struct timespec now;
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return probe_report(-1);
		clock_gettime(CLOCK_REALTIME, &now);
		ssize_t n = mq_timedreceive((mqd_t)fd, buf, sizeof(buf), NULL, &now);
		if (n < 0)
			return probe_report(-1);
		printf("ok %.*s\n", (int)n, buf);
		return 0;
	}
	fprintf(stderr, "usage: mq send NAME MSG | count NAME | unlink NAME | recv-path PATH\n");
	return 2;
}
