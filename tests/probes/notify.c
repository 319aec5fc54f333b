/*
 * notify.c — a watch on a directory, and how many events it saw, for the
 * tests of the filter's read-watch rules.  Static like every probe: the
 * same program runs inside the sandbox and outside it.
 *
 *   notify inotify DIR MASK SECS   inotify_add_watch(DIR, MASK)
 *   notify fanotify DIR MASK SECS  fanotify_init(FAN_CLASS_NOTIF |
 *                                  FAN_REPORT_FID), then fanotify_mark
 *                                  (FAN_MARK_ADD, MASK | FAN_EVENT_ON_CHILD)
 *                                  on DIR (an inode mark: what an
 *                                  unprivileged group may place)
 *   notify dnotify DIR MASK SECS   fcntl(F_NOTIFY, MASK | DN_MULTISHOT) on
 *                                  DIR; each event is one queued real-time
 *                                  signal (F_SETSIG: SIGIO would coalesce)
 *
 * MASK is a number (0x... for hex).  When the watch is refused the line
 * is "err ERRNO-NAME"; otherwise the probe prints "armed" on stderr,
 * counts the events that arrive within SECS seconds and prints
 * "ok N".  fanotify_init's own failure is "err ERRNO-NAME init".
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

#include "probe.h"

#define NOTIFY_BUF 65536

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *tail)
{
	int e = errno;
	printf("err %s %d%s\n", probe_errname(e), e, tail);
	return 1;
}

static void armed(void)
{
	fprintf(stderr, "armed\n");
	fflush(stderr);
}

/* Read events from fd until secs have passed; the count, one per event
 * whose length next(buf) gives. */
static long drain(int fd, double secs, size_t (*next)(const char *))
{
	static char buf[NOTIFY_BUF] __attribute__((aligned(8)));
	double end = now() + secs;
	long n = 0;
	for (double t = now(); t < end; t = now()) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, (int)((end - t) * 1000) + 1) <= 0)
			continue;
		ssize_t got = read(fd, buf, sizeof(buf));
		for (ssize_t off = 0; off < got; n++)
			off += (ssize_t)next(buf + off);
	}
	return n;
}

static size_t inotify_next(const char *p)
{
	const struct inotify_event *ev = (const void *)p;
	return sizeof(*ev) + ev->len;
}

static size_t fanotify_next(const char *p)
{
	const struct fanotify_event_metadata *ev = (const void *)p;
	return ev->event_len;
}

static int watch_inotify(const char *dir, uint32_t mask, double secs)
{
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0)
		return fail(" init");
	if (inotify_add_watch(fd, dir, mask) < 0)
		return fail("");
	armed();
	printf("ok %ld\n", drain(fd, secs, inotify_next));
	return 0;
}

static int watch_fanotify(const char *dir, uint64_t mask, double secs)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
	if (fd < 0)
		return fail(" init");
	if (fanotify_mark(fd, FAN_MARK_ADD, mask | FAN_EVENT_ON_CHILD, AT_FDCWD, dir) < 0)
		return fail("");
	armed();
	printf("ok %ld\n", drain(fd, secs, fanotify_next));
	return 0;
}

static int watch_dnotify(const char *dir, unsigned long mask, double secs)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fcntl(fd, F_SETSIG, SIGRTMIN) < 0)
		return fail(" open");
	if (fcntl(fd, F_NOTIFY, mask | DN_MULTISHOT) < 0)
		return fail("");
	armed();
	double end = now() + secs;
	long n = 0;
	for (double t = now(); t < end; t = now()) {
		double left = end - t;
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		if (sigtimedwait(&set, NULL, &ts) == SIGRTMIN)
			n++;
	}
	printf("ok %ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: notify inotify|fanotify|dnotify DIR MASK SECS\n");
		return 2;
	}
	unsigned long long mask = strtoull(argv[3], NULL, 0);
	double secs = strtod(argv[4], NULL);
	if (!strcmp(argv[1], "inotify"))
		return watch_inotify(argv[2], (uint32_t)mask, secs);
	if (!strcmp(argv[1], "fanotify"))
		return watch_fanotify(argv[2], mask, secs);
	if (!strcmp(argv[1], "dnotify"))
		return watch_dnotify(argv[2], (unsigned long)mask, secs);
	fprintf(stderr, "notify: unknown watch '%s'\n", argv[1]);
	return 2;
}
