/*
 * test_relay.c — standard sockets relayed through pipes (relay.h).  Each
 * case runs in a child that puts a socket pair's end on its descriptors
 * 0-2 and plays both the caller (the other end) and the command (the
 * pipes relay_prepare hands out); the exit code names the failed check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "child_testutil.h"
#include "sandbox/relay.h"
#include "util/log.h"

#define BIG (100 * 1024)

static void run_child(void (*body)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		body();
		child_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int devnull_on(int fd)
{
	int n = open("/dev/null", O_RDWR);
	return n >= 0 && dup2(n, fd) == fd && close(n) == 0 ? 0 : -1;
}

static size_t drain(int fd)
{
	static char buf[65536];
	size_t tot = 0;
	ssize_t n;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		tot += (size_t)n;
	return tot;
}

/* Output and error on one socket share one pipe; what the command wrote
 * reaches the socket whole once the run is over, though a copy of the
 * pipe's write end is still open (the supervisor's). */
static void out_body(void)
{
	int sv[2], stdio[3] = { -1, -1, -1 };
	struct relay r;
	char *err = NULL;
	static char data[BIG];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || devnull_on(0) < 0 || dup2(sv[1], 1) != 1 ||
	    dup2(sv[1], 2) != 2)
		_exit(10);
	close(sv[1]);
	if (relay_prepare(&r, stdio, &err) < 0 || r.n != 1 || stdio[0] != -1 || stdio[1] < 0 || stdio[2] != stdio[1])
		_exit(11);
	int held = dup(stdio[1]);
	if (relay_start(&r, -1, &err) < 0)
		_exit(12);
	memset(data, 'x', sizeof(data));
	data[sizeof(data) - 1] = '\n';	/* a line ended: sandbx adds nothing */
	size_t got = 0;
	for (size_t off = 0; off < sizeof(data);) {
		ssize_t w = write(held, data + off, sizeof(data) - off);
		if (w < 0)
			_exit(13);
		off += (size_t)w;
		got += drain(sv[0]);
	}
	relay_spawned(&r);
	(void)relay_finish(&r, -1);	/* returns though `held` is still open */
	got += drain(sv[0]);
	if (got != sizeof(data))
		_exit(14);
	close(held);
	close(sv[0]);
}

static void test_relay_out_flushed(void **state)
{
	(void)state;
	run_child(out_body);
}

/* The input relay takes one page of the caller's bytes ahead of a command
 * that reads a little and then no more, and stops at the run's end: the
 * rest stays on the socket for the caller. */
static void in_body(void)
{
	int sv[2], stdio[3] = { -1, -1, -1 };
	struct relay r;
	char *err = NULL, buf[10];
	static char data[BIG];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || dup2(sv[1], 0) != 0 || devnull_on(1) < 0 ||
	    devnull_on(2) < 0)
		_exit(20);
	close(sv[1]);
	if (relay_prepare(&r, stdio, &err) < 0 || r.n != 1 || stdio[0] < 0 || stdio[1] != -1)
		_exit(21);
	struct stat st;
	if (fstat(stdio[0], &st) < 0 || !S_ISFIFO(st.st_mode))
		_exit(22);
	int held = dup(stdio[0]);
	memset(data, 'y', sizeof(data));
	if (send(sv[0], data, sizeof(data), 0) != (ssize_t)sizeof(data))
		_exit(23);
	if (relay_start(&r, -1, &err) < 0)
		_exit(24);
	relay_spawned(&r);
	if (read(held, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		_exit(25);
	usleep(20000);	/* time the relay would take more, were it to */
	(void)relay_finish(&r, -1);
	if (drain(0) != sizeof(data) - RELAY_IN_CHUNK)
		_exit(26);
	close(held);
	close(sv[0]);
}

static void test_relay_in_bounded(void **state)
{
	(void)state;
	run_child(in_body);
}

/* The caller's end of the input closes: the command reads all that was
 * sent, then end of file. */
static void eof_body(void)
{
	int sv[2], stdio[3] = { -1, -1, -1 };
	struct relay r;
	char *err = NULL;
	static char buf[BIG];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || dup2(sv[1], 0) != 0 || devnull_on(1) < 0 ||
	    devnull_on(2) < 0)
		_exit(30);
	close(sv[1]);
	if (relay_prepare(&r, stdio, &err) < 0 || relay_start(&r, -1, &err) < 0)
		_exit(31);
	int cmd = dup(stdio[0]);
	relay_spawned(&r);
	memset(buf, 'z', sizeof(buf));
	if (send(sv[0], buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || shutdown(sv[0], SHUT_WR) < 0)
		_exit(32);
	size_t tot = 0;
	ssize_t n;
	while ((n = read(cmd, buf, sizeof(buf))) > 0)
		tot += (size_t)n;
	if (n != 0 || tot != sizeof(buf))
		_exit(33);
	(void)relay_finish(&r, -1);
	close(cmd);
	close(sv[0]);
}

static void test_relay_in_eof(void **state)
{
	(void)state;
	run_child(eof_body);
}

/* No standard descriptor is a socket: nothing is made, no thread. */
static void none_body(void)
{
	int stdio[3] = { -1, -1, -1 };
	struct relay r;
	char *err = NULL;
	if (devnull_on(0) < 0 || devnull_on(1) < 0 || devnull_on(2) < 0)
		_exit(40);
	if (relay_prepare(&r, stdio, &err) < 0 || r.n != 0 || stdio[0] != -1 || stdio[1] != -1 || stdio[2] != -1)
		_exit(41);
	if (relay_start(&r, -1, &err) < 0 || r.running)
		_exit(42);
	(void)relay_finish(&r, -1);
}

static void test_relay_none(void **state)
{
	(void)state;
	run_child(none_body);
}

/* A line sandbx writes to standard error (a socket) during the run, while
 * the relay holds what the command wrote before it (its reader has not
 * read yet), reaches the socket after all of that and before what the
 * command writes next: the order a write of sandbx's own would have had
 * without a relay.  Written straight to the socket, it went in among the
 * bytes the relay held, as soon as the reader made room.  The command's
 * line it came in is ended first, and so is the command's last, unended
 * line when the run is over: no line of sandbx's continues one of the
 * command's (which could begin with a forged record). */
#define NOTE "sandbx: a line of sandbx's own\n"
#define NOTE_WANT (BIG + 1 + sizeof(NOTE) - 1 + 1000 + 1)
static void note_body(void)
{
	int sv[2], stdio[3] = { -1, -1, -1 }, small = 1, st;
	struct relay r;
	char *err = NULL;
	static char data[BIG], want[NOTE_WANT], got[NOTE_WANT + 1];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || devnull_on(0) < 0 || devnull_on(1) < 0 ||
	    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) < 0 || dup2(sv[1], 2) != 2)
		_exit(50);
	close(sv[1]);
	memset(want, 'a', BIG);
	want[BIG] = '\n';
	memcpy(want + BIG + 1, NOTE, sizeof(NOTE) - 1);
	memset(want + BIG + 1 + sizeof(NOTE) - 1, 'b', 1000);
	want[NOTE_WANT - 1] = '\n';
	pid_t reader = fork();
	if (reader < 0)
		_exit(51);
	if (reader == 0) {
		/* the caller: reads only once the relay holds the command's
		 * bytes and sandbx has written its line, then all to the end */
		size_t n = 0;
		ssize_t k;
		if (devnull_on(2) < 0)
			_exit(1);
		usleep(300000);
		while (n < sizeof(got) && (k = read(sv[0], got + n, sizeof(got) - n)) > 0)
			n += (size_t)k;
		_exit(n == sizeof(want) && memcmp(got, want, n) == 0 ? 0 : 1);
	}
	close(sv[0]);
	if (relay_prepare(&r, stdio, &err) < 0 || r.n != 1 || stdio[2] < 0 || relay_start(&r, -1, &err) < 0)
		_exit(52);
	int cmd = dup(stdio[2]);
	relay_spawned(&r);
	memset(data, 'a', sizeof(data));
	if (cmd < 0 || write_all(cmd, data, sizeof(data)) < 0)	/* the pipe, the relay and the socket take it */
		_exit(53);
	sbx_err("a line of sandbx's own");
	memset(data, 'b', 1000);
	if (write_all(cmd, data, 1000) < 0)
		_exit(54);
	close(cmd);
	(void)relay_finish(&r, -1);
	if (devnull_on(2) < 0 || waitpid(reader, &st, 0) != reader || !WIFEXITED(st))
		_exit(55);
	if (WEXITSTATUS(st) != 0)
		_exit(56);
}

static void test_relay_note_in_order(void **state)
{
	(void)state;
	run_child(note_body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_out_flushed),
		cmocka_unit_test(test_relay_in_bounded),
		cmocka_unit_test(test_relay_in_eof),
		cmocka_unit_test(test_relay_none),
		cmocka_unit_test(test_relay_note_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
