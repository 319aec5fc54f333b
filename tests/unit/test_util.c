/*
 * test_util.c — descriptors across a stream socket (util.h):
 * recv_with_fds against send_with_fds and against a raw sendmsg carrying
 * more than it takes.  Every case counts the process's descriptors before
 * and after, so one kept or leaked by mistake fails it.
 */
#include <dirent.h>
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
#include <cmocka.h>

#include "util/util.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static int same_file(int a, int b)
{
	struct stat x, y;
	return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Two descriptors on the first bytes, the rest of the message written
 * after them in pieces: all of it read, both descriptors close-on-exec
 * and the same files. */
static void recv_whole_message(void **state)
{
	(void)state;
	int before = open_fds(), sp[2], p[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe(p), 0);
	char msg[64], got[64];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (char)(i * 7 + 1);
	assert_int_equal(send_with_fds(sp[0], msg, 5, p, 2), 5);
	assert_int_equal(write_all(sp[0], msg + 5, 20), 0);
	assert_int_equal(write_all(sp[0], msg + 25, sizeof(msg) - 25), 0);
	int fds[4] = { -1, -1, -1, -1 }, nfd = -1;
	assert_int_equal(recv_with_fds(sp[1], got, sizeof(got), fds, 4, &nfd), (ssize_t)sizeof(got));
	assert_memory_equal(got, msg, sizeof(msg));
	assert_int_equal(nfd, 2);
	assert_true(same_file(fds[0], p[0]));
	assert_true(same_file(fds[1], p[1]));
	assert_int_equal(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(fcntl(fds[1], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(fds[2], -1);
	for (int i = 0; i < 2; i++) {
		close(fds[i]);
		close(p[i]);
		close(sp[i]);
	}
	assert_int_equal(open_fds(), before);
}

/* More descriptors than the caller takes: the first kept, the others
 * closed, and all counted. */
static void recv_more_than_taken(void **state)
{
	(void)state;
	int before = open_fds(), sp[2], p[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe(p), 0);
	int three[3] = { p[0], p[1], p[0] };
	char b = 'x', got = 0;
	assert_int_equal(send_with_fds(sp[0], &b, 1, three, 3), 1);
	int fd = -1, nfd = -1;
	assert_int_equal(recv_with_fds(sp[1], &got, 1, &fd, 1, &nfd), 1);
	assert_int_equal(got, 'x');
	assert_int_equal(nfd, 3);
	assert_true(same_file(fd, p[0]));
	close(fd);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(sp[i]);
	}
	assert_int_equal(open_fds(), before);
}

/* More than fit in the receiver's buffer (a sender not using
 * send_with_fds): the kernel cuts them short, and *nfd says one more than
 * taken, so a caller counting them refuses the message. */
static void recv_truncated_counts_over(void **state)
{
	(void)state;
	int before = open_fds(), sp[2], p[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe(p), 0);
	enum { MANY = SEND_FDS_MAX + 4 };
	int many[MANY];
	for (int i = 0; i < MANY; i++)
		many[i] = p[i & 1];
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * MANY)];
	} u;
	memset(&u, 0, sizeof(u));
	char b = 'y';
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * MANY);
	memcpy(CMSG_DATA(c), many, sizeof(many));
	assert_int_equal(sendmsg(sp[0], &m, 0), 1);
	int fds[2] = { -1, -1 }, nfd = -1;
	char got = 0;
	assert_int_equal(recv_with_fds(sp[1], &got, 1, fds, 2, &nfd), 1);
	assert_int_equal(nfd, 3);
	close(fds[0]);
	close(fds[1]);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(sp[i]);
	}
	assert_int_equal(open_fds(), before);
}

/* The sender gone: before any byte 0, in the middle of a message the
 * bytes that came; a descriptor that came with them is still the
 * caller's. */
static void recv_end_of_file(void **state)
{
	(void)state;
	int before = open_fds(), sp[2];
	char got[16];
	int fd = -1, nfd = -1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	close(sp[0]);
	assert_int_equal(recv_with_fds(sp[1], got, sizeof(got), &fd, 1, &nfd), 0);
	assert_int_equal(nfd, 0);
	close(sp[1]);

	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(send_with_fds(sp[0], "abcde", 5, &p[1], 1), 5);
	close(sp[0]);
	assert_int_equal(recv_with_fds(sp[1], got, sizeof(got), &fd, 1, &nfd), 5);
	assert_memory_equal(got, "abcde", 5);
	assert_int_equal(nfd, 1);
	assert_true(same_file(fd, p[1]));
	close(fd);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
	assert_int_equal(open_fds(), before);
}

/* Not a socket: -1 with the kernel's errno, nothing counted. */
static void recv_error(void **state)
{
	(void)state;
	int p[2], fd = -1, nfd = -1;
	char got;
	assert_int_equal(pipe(p), 0);
	errno = 0;
	assert_int_equal(recv_with_fds(p[0], &got, 1, &fd, 1, &nfd), -1);
	assert_int_equal(errno, ENOTSOCK);
	assert_int_equal(nfd, 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recv_whole_message),
		cmocka_unit_test(recv_more_than_taken),
		cmocka_unit_test(recv_truncated_counts_over),
		cmocka_unit_test(recv_end_of_file),
		cmocka_unit_test(recv_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
