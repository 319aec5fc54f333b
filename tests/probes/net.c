/*
 * net.c — network probe, run inside the sandbox (static).
 *
 *   net tcp-connect HOST PORT        connect (2 s timeout), send "sbx-tcp"
 *   net udp-send HOST PORT           socket(SOCK_DGRAM) + sendto "sbx-udp"
 *   net udp-send-stdin HOST PORT     the same sendto through descriptor 0 (a socket given)
 *   net accept-reconnect-stdin HOST PORT  accept on descriptor 0, disconnect, connect HOST PORT
 *   net raw [4|6]                    socket(SOCK_RAW, ICMP)
 *   net packet                       socket(AF_PACKET, SOCK_RAW)
 *   net mptcp                        socket(AF_INET, SOCK_STREAM, MPTCP)
 *   net socket FAMILY TYPE PROTO     socket() with numeric arguments
 *   net tcp-ulp                      setsockopt(TCP_ULP, "tls") on a TCP socket
 *   net fastopen MODE HOST PORT      MODE sendto|sendmsg|sendmmsg: the send
 *                                    with MSG_FASTOPEN on a fresh TCP socket;
 *                                    MODE connect: TCP_FASTOPEN_CONNECT, then
 *                                    connect and send
 *   net bind PORT                    bind a TCP socket to 127.0.0.1:PORT
 *   net bind-unspec PORT             bind an IPv4 TCP socket to an AF_UNSPEC
 *                                    address (INADDR_ANY:PORT), which the
 *                                    kernel takes as AF_INET
 *   net bind-mapped PORT             bind an IPv6 TCP socket to the v4-mapped
 *                                    ::ffff:127.0.0.1:PORT
 *   net listen-self [PORT]           listen on 127.0.0.1:PORT (0: any), connect
 *                                    to it, pass one byte through
 *   net listen-unbound 4|6           listen() on a TCP socket never bound (the
 *                                    kernel would pick a port); on success the
 *                                    port it got is on stderr
 *   net listen-dup-race PORT         listen() on a socket bound to 127.0.0.1:PORT
 *                                    while another thread keeps swapping an
 *                                    unbound socket under the same descriptor:
 *                                    "ok" when no unbound socket ever listened
 *   net listen-stale PORT            connect() to 127.0.0.1:PORT, where nothing
 *                                    listens (the socket takes a port and gives
 *                                    it back), then listen()
 *   net listen-own-notify            install a seccomp filter of its own that
 *                                    sends listen() to a listener it holds
 *                                    (SECCOMP_FILTER_FLAG_NEW_LISTENER), answer
 *                                    CONTINUE from a thread, then listen() on a
 *                                    socket never bound: "ok" when it listens
 *   net listen-thread PORT           bind 127.0.0.1:PORT and listen() from a
 *                                    second thread, connect to it
 *   net listen-linger PORT           up to 2000 times: a TCP socket connected to
 *                                    its own listener on 127.0.0.1:PORT, with
 *                                    data the peer never reads and SO_LINGER
 *                                    6 s, given to listen() by one thread and
 *                                    closed by another a few us later, so that
 *                                    the init may hold the last reference;
 *                                    then how long a listen() on a socketpair
 *                                    end takes to be answered: "ok" when never
 *                                    3 s, else "stalled TRY SECONDS" (exit 1)
 *   net unix-socket                  socket(AF_UNIX, SOCK_STREAM)
 *   net unix-socketpair-dgram        socketpair(AF_UNIX, SOCK_DGRAM)
 *   net unix-socketpair-stream       socketpair(AF_UNIX, SOCK_STREAM)
 *   net abstract-connect NAME        connect to the abstract socket "\0NAME"
 *
 * Output (probe.h): "ok" or "err ERRNO-NAME N"; the step that failed is
 * named on stderr.  Exit 0 ok, 1 failed, 2 usage.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "probe.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT 30
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

#define IO_TIMEOUT_MS 2000

static int fail(const char *step)
{
	int e = errno;
	fprintf(stderr, "net: %s failed: %s\n", step, strerror(e));
	errno = e;
	return probe_report(-1);
}

static int usage(void)
{
	fprintf(stderr, "net: usage: net SUBCOMMAND [ARGS] (see tests/probes/net.c)\n");
	return 2;
}

static int num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);
	return *end ? -1 : (int)v;
}

/* HOST (IPv4 or IPv6 literal) and PORT into ss; its length, or 0. */
static socklen_t parse_addr(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char *end;
	long p = strtol(port, &end, 10);

	memset(ss, 0, sizeof(*ss));
	if (*end || p < 0 || p > 65535)
		return 0;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)p);
		return sizeof(*in4);
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		return sizeof(*in6);
	}
	return 0;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* connect with a timeout: non-blocking connect, poll, SO_ERROR. */
static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len)
{
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	int r = connect(fd, sa, len);
	if (r < 0 && errno == EINPROGRESS) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		int n = poll(&pf, 1, IO_TIMEOUT_MS);
		if (n == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		int err = 0;
		socklen_t el = sizeof(err);
		if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			return -1;
		if (err) {
			errno = err;
			return -1;
		}
		r = 0;
	}
	fcntl(fd, F_SETFL, fl);
	return r;
}

static int tcp_connect(const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(host, port, &ss);
	if (!len)
		return usage();
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	if (connect_timeout(fd, (struct sockaddr *)&ss, len) < 0)
		return fail("connect");
	set_timeouts(fd);
	if (send(fd, "sbx-tcp\n", 8, MSG_NOSIGNAL) < 0)
		return fail("send");
	close(fd);
	return probe_report(0);
}

/* UDP to HOST PORT from a socket of our own, or (given >= 0) from that
 * descriptor: a datagram socket the caller handed the command. */
static int udp_send(const char *host, const char *port, int given)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(host, port, &ss);
	if (!len)
		return usage();
	int fd = given >= 0 ? given : socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	for (int i = 0; i < 3; i++)
		if (sendto(fd, "sbx-udp\n", 8, 0, (struct sockaddr *)&ss, len) < 0)
			return fail("sendto");
	close(fd);
	return probe_report(0);
}

/* Accept one connection on descriptor 0 (a listening TCP socket given),
 * disconnect it (connect with AF_UNSPEC) and connect it to HOST PORT. */
static int accept_reconnect(const char *host, const char *port)
{
	struct sockaddr_storage ss;
	struct sockaddr un = { .sa_family = AF_UNSPEC };
	socklen_t len = parse_addr(host, port, &ss);
	if (!len)
		return usage();
	struct pollfd pf = { .fd = 0, .events = POLLIN };
	if (poll(&pf, 1, 5000) != 1)
		return fail("poll");
	int c = accept(0, NULL, NULL);
	if (c < 0)
		return fail("accept");
	if (connect(c, &un, sizeof(un)) < 0)
		return fail("disconnect");
	if (connect_timeout(c, (struct sockaddr *)&ss, len) < 0)
		return fail("connect");
	set_timeouts(c);
	if (send(c, "sbx-tcp\n", 8, MSG_NOSIGNAL) < 0)
		return fail("send");
	close(c);
	return probe_report(0);
}

static int just_socket(int family, int type, int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return fail("socket");
	close(fd);
	return probe_report(0);
}

static int tcp_ulp(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", 3) < 0)
		return fail("setsockopt(TCP_ULP)");
	close(fd);
	return probe_report(0);
}

static int fastopen(const char *mode, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(host, port, &ss);
	static char data[] = "sbx-tfo\n";
	if (!len)
		return usage();
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	set_timeouts(fd);
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) - 1 };
	struct msghdr mh = { .msg_name = &ss, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1 };
	if (strcmp(mode, "sendto") == 0) {
		if (sendto(fd, data, sizeof(data) - 1, MSG_FASTOPEN | MSG_NOSIGNAL, (struct sockaddr *)&ss, len) < 0)
			return fail("sendto(MSG_FASTOPEN)");
	} else if (strcmp(mode, "sendmsg") == 0) {
		if (sendmsg(fd, &mh, MSG_FASTOPEN | MSG_NOSIGNAL) < 0)
			return fail("sendmsg(MSG_FASTOPEN)");
	} else if (strcmp(mode, "sendmmsg") == 0) {
		struct mmsghdr mm = { .msg_hdr = mh };
		if (sendmmsg(fd, &mm, 1, MSG_FASTOPEN | MSG_NOSIGNAL) < 1)
			return fail("sendmmsg(MSG_FASTOPEN)");
	} else if (strcmp(mode, "connect") == 0) {
		int one = 1;
		if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)) < 0)
			return fail("setsockopt(TCP_FASTOPEN_CONNECT)");
		if (connect(fd, (struct sockaddr *)&ss, len) < 0)
			return fail("connect");
		if (send(fd, data, sizeof(data) - 1, MSG_NOSIGNAL) < 0)
			return fail("send");
	} else {
		return usage();
	}
	close(fd);
	return probe_report(0);
}

static int bind_port(const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr("127.0.0.1", port, &ss);
	if (!len)
		return usage();
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		return fail("bind");
	close(fd);
	return probe_report(0);
}

/* bind through the address forms that are not a plain sockaddr_in:
 * AF_UNSPEC on an IPv4 socket (taken as AF_INET for INADDR_ANY) and a
 * v4-mapped address on an IPv6 socket. */
static int bind_other_form(const char *form, const char *port)
{
	int p = num(port), fd;
	if (p < 0 || p > 65535)
		return usage();
	if (strcmp(form, "unspec") == 0) {
		struct sockaddr_in a = { .sin_family = AF_UNSPEC, .sin_port = htons((uint16_t)p),
					 .sin_addr.s_addr = htonl(INADDR_ANY) };
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return fail("socket");
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return fail("bind");
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)p) };
		if (inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr) != 1)
			return usage();
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return fail("socket");
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return fail("bind");
	}
	close(fd);
	return probe_report(0);
}

/* The command answering its own listen(): with a listener of its own,
 * CONTINUE would let the kernel bind an ephemeral port unchecked. */
static int own_notify_fd = -1;

static void *own_notify_answer(void *arg)
{
	(void)arg;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof(req));
	if (ioctl(own_notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(own_notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return NULL;
}

static int listen_own_notify(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_listen, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = (unsigned short)(sizeof(f) / sizeof(f[0])), .filter = f };
	pthread_t t;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail("no_new_privs");
	own_notify_fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (own_notify_fd < 0)
		return fail("seccomp");
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return fail("socket");
	if (pthread_create(&t, NULL, own_notify_answer, NULL) != 0)
		return fail("pthread_create");
	if (listen(l, 1) < 0)
		return fail("listen");
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	if (getsockname(l, (struct sockaddr *)&a, &len) == 0)
		fprintf(stderr, "listening on port %d\n", ntohs(a.sin_port));
	close(l);
	return probe_report(0);
}

static int listen_unbound(const char *v)
{
	int family = strcmp(v, "6") == 0 ? AF_INET6 : AF_INET;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return fail("socket");
	if (listen(l, 4) < 0)
		return fail("listen");
	if (getsockname(l, (struct sockaddr *)&ss, &len) == 0)
		fprintf(stderr, "listening on port %d\n",
			ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						: ((struct sockaddr_in6 *)&ss)->sin6_port));
	close(l);
	return probe_report(0);
}

/* The swap thread of listen-dup-race: puts a fresh unbound socket, then
 * the bound one again, under descriptor race_fd, until told to stop; it
 * keeps every unbound socket it made, for the check afterwards. */
#define RACE_MAX 400
static int race_fd, race_bound, race_made[RACE_MAX], race_n;
static volatile int race_stop;
static void *race_swap(void *arg)
{
	(void)arg;
	while (!race_stop) {
		if (race_n < RACE_MAX) {
			int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (u >= 0)
				race_made[race_n++] = u;
		}
		if (race_n > 0)
			dup2(race_made[race_n - 1], race_fd);
		dup2(race_bound, race_fd);
	}
	return NULL;
}

static int listen_dup_race(const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr("127.0.0.1", port, &ss);
	if (!len)
		return usage();
	race_bound = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (race_bound < 0)
		return fail("socket");
	int one = 1;
	setsockopt(race_bound, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(race_bound, (struct sockaddr *)&ss, len) < 0)
		return fail("bind");
	race_fd = dup(race_bound);
	pthread_t t;
	if (race_fd < 0 || pthread_create(&t, NULL, race_swap, NULL) != 0)
		return fail("thread");
	/* Two seconds of tries, or until an unbound socket listens. */
	int oks = 0, tries = 0, leaked = 0;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 200; i++, tries++)
			oks += listen(race_fd, 4) == 0;
		for (int i = 0; i < race_n && !leaked; i++) {
			int acc = 0;
			socklen_t ol = sizeof(acc);
			leaked = getsockopt(race_made[i], SOL_SOCKET, SO_ACCEPTCONN, &acc, &ol) == 0 && acc;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!leaked && (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
	race_stop = 1;
	pthread_join(t, NULL);
	if (leaked) {
		printf("leaked: an unbound socket listened\n");
		return 1;
	}
	fprintf(stderr, "%d of %d listen() calls succeeded, %d unbound sockets swapped in\n", oks, tries, race_n);
	return probe_report(0);
}

static int listen_self(const char *port);

static int listen_stale(const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr("127.0.0.1", port, &ss);
	if (!len)
		return usage();
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return fail("socket");
	if (connect(s, (struct sockaddr *)&ss, len) == 0)
		return fail("connect succeeded: pick a port nothing listens on");
	if (listen(s, 4) < 0)
		return fail("listen");
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	if (getsockname(s, (struct sockaddr *)&a, &al) == 0)
		fprintf(stderr, "listening on port %d\n", ntohs(a.sin_port));
	return probe_report(0);
}

static const char *thread_port;
static void *listen_in_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)listen_self(thread_port);
}

static int listen_thread(const char *port)
{
	pthread_t t;
	void *rc = NULL;
	thread_port = port;
	if (pthread_create(&t, NULL, listen_in_thread, NULL) != 0)
		return fail("thread");
	pthread_join(t, &rc);
	return (int)(intptr_t)rc;
}

static int listen_self(const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr("127.0.0.1", port, &ss);
	char c = 0;
	if (!len)
		return usage();
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return fail("socket");
	/* A port this probe used a moment ago may be in TIME_WAIT. */
	int one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&ss, len) < 0)
		return fail("bind");
	if (listen(l, 4) < 0)
		return fail("listen");
	if (getsockname(l, (struct sockaddr *)&ss, &len) < 0)
		return fail("getsockname");
	int c1 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c1 < 0)
		return fail("socket");
	if (connect_timeout(c1, (struct sockaddr *)&ss, len) < 0)
		return fail("connect");
	set_timeouts(l);
	int a = accept(l, NULL, NULL);
	if (a < 0)
		return fail("accept");
	set_timeouts(a);
	if (send(c1, "x", 1, MSG_NOSIGNAL) != 1)
		return fail("send");
	if (recv(a, &c, 1, 0) != 1 || c != 'x') {
		if (errno == 0)
			errno = EIO;
		return fail("recv");
	}
	close(c1);	/* the client closes first: TIME_WAIT stays on its port */
	close(a);
	close(l);
	return probe_report(0);
}

static int socketpair_unix(int type)
{
	int sv[2];
	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return fail("socketpair");
	close(sv[0]);
	close(sv[1]);
	return probe_report(0);
}

static int abstract_connect(const char *name)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	if (n + 1 > sizeof(un.sun_path))
		return usage();
	memcpy(un.sun_path + 1, name, n);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	if (connect(fd, (struct sockaddr *)&un, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0)
		return fail("connect");
	set_timeouts(fd);
	if (send(fd, "sbx-unix\n", 9, MSG_NOSIGNAL) < 0)
		return fail("send");
	close(fd);
	return probe_report(0);
}

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int linger_sock = -1;
static void *linger_listen(void *arg)
{
	(void)arg;
	listen(linger_sock, 1);
	return NULL;
}

/* One try of listen_linger, in a child: returns only to _exit. */
static void linger_try(const struct sockaddr *sa, socklen_t len, int tell, int delay_us)
{
	static char buf[65536];
	int small = 4096;
	linger_sock = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(linger_sock, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (connect(linger_sock, sa, len) < 0)
		_exit(3);
	fcntl(linger_sock, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 64 && write(linger_sock, buf, sizeof(buf)) > 0; i++)
		;
	/* Twice the bound below: a held close shows as 6 s, a slow answer
	 * on a loaded machine (1.6 s seen once on two CPUs) does not fail. */
	struct linger lg = { 1, 6 };
	setsockopt(linger_sock, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	pthread_t t;
	if (pthread_create(&t, NULL, linger_listen, NULL) != 0)
		_exit(3);
	double t0 = mono();
	while ((mono() - t0) * 1e6 < delay_us)
		;
	(void)!write(tell, "c", 1);
	close(linger_sock);	/* the last close, unless the init holds it */
	_exit(0);
}

/* How long a listen() on a socketpair end takes to be answered. */
static double listen_answer_time(void)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
		return -1;
	double a = mono();
	listen(sp[0], 1);
	double b = mono();
	close(sp[0]);
	close(sp[1]);
	return b - a;
}

static int listen_linger(const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr("127.0.0.1", port, &ss);
	int one = 1, small = 4096, p[2];
	if (!len)
		return usage();
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return fail("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(l, (struct sockaddr *)&ss, len) < 0)
		return fail("bind");
	if (listen(l, 64) < 0)
		return fail("listen");
	if (pipe(p) < 0)
		return fail("pipe");
	srand((unsigned)getpid());
	for (int k = 0; k < 2000; k++) {
		pid_t c = fork();
		if (c < 0)
			return fail("fork");
		if (c == 0)
			linger_try((struct sockaddr *)&ss, len, p[1], rand() % 40);
		int s = accept(l, NULL, NULL);	/* held: the data stays unsent */
		char b;
		if (read(p[0], &b, 1) != 1)
			return fail("read");
		usleep(1000);
		double t = listen_answer_time();
		if (s >= 0)
			close(s);	/* a reset: no close lingers on after this */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (t > 3.0) {
			printf("stalled %d %.2f\n", k, t);
			return 1;
		}
	}
	return probe_report(0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *c = argv[1];
	errno = 0;
	if (strcmp(c, "tcp-connect") == 0 && argc == 4)
		return tcp_connect(argv[2], argv[3]);
	if (strcmp(c, "udp-send") == 0 && argc == 4)
		return udp_send(argv[2], argv[3], -1);
	if (strcmp(c, "udp-send-stdin") == 0 && argc == 4)
		return udp_send(argv[2], argv[3], 0);
	if (strcmp(c, "accept-reconnect-stdin") == 0 && argc == 4)
		return accept_reconnect(argv[2], argv[3]);
	if (strcmp(c, "raw") == 0 && argc <= 3) {
		int v6 = argc == 3 && strcmp(argv[2], "6") == 0;
		return just_socket(v6 ? AF_INET6 : AF_INET, SOCK_RAW, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
	}
	if (strcmp(c, "packet") == 0 && argc == 2)
		return just_socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (strcmp(c, "mptcp") == 0 && argc == 2)
		return just_socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	if (strcmp(c, "socket") == 0 && argc == 5)
		return just_socket(num(argv[2]), num(argv[3]), num(argv[4]));
	if (strcmp(c, "tcp-ulp") == 0 && argc == 2)
		return tcp_ulp();
	if (strcmp(c, "fastopen") == 0 && argc == 5)
		return fastopen(argv[2], argv[3], argv[4]);
	if (strcmp(c, "bind") == 0 && argc == 3)
		return bind_port(argv[2]);
	if (strcmp(c, "bind-unspec") == 0 && argc == 3)
		return bind_other_form("unspec", argv[2]);
	if (strcmp(c, "bind-mapped") == 0 && argc == 3)
		return bind_other_form("mapped", argv[2]);
	if (strcmp(c, "listen-self") == 0 && argc <= 3)
		return listen_self(argc == 3 ? argv[2] : "0");
	if (strcmp(c, "listen-unbound") == 0 && argc == 3)
		return listen_unbound(argv[2]);
	if (strcmp(c, "listen-stale") == 0 && argc == 3)
		return listen_stale(argv[2]);
	if (strcmp(c, "listen-own-notify") == 0 && argc == 2)
		return listen_own_notify();
	if (strcmp(c, "listen-thread") == 0 && argc == 3)
		return listen_thread(argv[2]);
	if (strcmp(c, "listen-dup-race") == 0 && argc == 3)
		return listen_dup_race(argv[2]);
	if (strcmp(c, "listen-linger") == 0 && argc == 3)
		return listen_linger(argv[2]);
	if (strcmp(c, "unix-socket") == 0 && argc == 2)
		return just_socket(AF_UNIX, SOCK_STREAM, 0);
	if (strcmp(c, "unix-socketpair-dgram") == 0 && argc == 2)
		return socketpair_unix(SOCK_DGRAM);
	if (strcmp(c, "unix-socketpair-stream") == 0 && argc == 2)
		return socketpair_unix(SOCK_STREAM);
	if (strcmp(c, "abstract-connect") == 0 && argc == 3)
		return abstract_connect(argv[2]);
	return usage();
}
