/*
 * ucount.c — the per-user kernel counters a command can use up, for the
 * tests that check a sandbox leaves the caller's programs their share.
 * Static like every probe: it runs inside the sandbox and outside.
 *
 *   ucount inotify [hold]   inotify_init1 until it fails: "ok N ERRNO-NAME"
 *   ucount fanotify [hold]  fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID)
 *                           until it fails: "ok N ERRNO-NAME"; N = 0 and
 *                           the first failure when none is allowed
 *   ucount mq [hold]        mq_open of 10 x 8192-byte queues until it fails
 *                           (each charges the user's RLIMIT_MSGQUEUE count):
 *                           "ok N ERRNO-NAME"
 *   ucount sigqueue [hold]  queue SIGRTMIN to itself (blocked) until it
 *                           fails: "ok N ERRNO-NAME"
 *   ucount rlimits          "ok MSGQUEUE-SOFT MSGQUEUE-HARD SIGPENDING-SOFT
 *                           SIGPENDING-HARD" (-1 = unlimited)
 *
 * With hold, everything stays held until standard input reaches its end,
 * so a test can check the host while the sandbox holds its share.  Every
 * loop stops at UCOUNT_CAP, so a counter with no limit cannot run away.
 */
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <unistd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>

#include "probe.h"

#define UCOUNT_CAP 200000

static int take(const char *what, int argc)
{
	long n = 0;
	int e = 0;
	for (; n < UCOUNT_CAP; n++) {
		long r;
		if (strcmp(what, "inotify") == 0) {
			r = inotify_init1(IN_CLOEXEC);
		} else if (strcmp(what, "fanotify") == 0) {
			r = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC, O_RDONLY);
		} else if (strcmp(what, "mq") == 0) {
			char name[32];
			struct mq_attr a = { .mq_maxmsg = 10, .mq_msgsize = 8192 };
			snprintf(name, sizeof(name), "/ucount-%d-%ld", (int)getpid(), n);
			r = mq_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600, &a);
			if (r >= 0)
				mq_unlink(name);	/* the queue lives while it is open */
		} else {
			union sigval v = { 0 };
			r = sigqueue(getpid(), SIGRTMIN, v);
		}
		if (r < 0) {
			e = errno;
			break;
		}
	}
	printf("ok %ld %s\n", n, e ? probe_errname(e) : "none");
	fflush(stdout);
	if (argc > 2) {
		char b[64];
		while (read(0, b, sizeof(b)) > 0)
			;
	}
	return 0;
}

static long lim(rlim_t v)
{
	return v == RLIM_INFINITY ? -1 : (long)v;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "inotify") == 0 || strcmp(argv[1], "fanotify") == 0 ||
			  strcmp(argv[1], "mq") == 0))
		return take(argv[1], argc);
	if (argc >= 2 && strcmp(argv[1], "sigqueue") == 0) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGRTMIN);
		sigprocmask(SIG_BLOCK, &s, NULL);
		return take(argv[1], argc);
	}
	if (argc == 2 && strcmp(argv[1], "rlimits") == 0) {
		struct rlimit q, s;
		if (getrlimit(RLIMIT_MSGQUEUE, &q) < 0 || getrlimit(RLIMIT_SIGPENDING, &s) < 0)
			return probe_report(-1);
		printf("ok %ld %ld %ld %ld\n", lim(q.rlim_cur), lim(q.rlim_max), lim(s.rlim_cur), lim(s.rlim_max));
		return 0;
	}
	fprintf(stderr, "usage: ucount inotify|fanotify|mq|sigqueue [hold] | rlimits\n");
	return 2;
}
