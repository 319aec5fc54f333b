#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "util/util.h"

static int oom_code = 1;	/* EXIT_ERROR */
static void (*oom_hook)(void);
static int oom_entered;		/* a thread is in oom(): the others wait for its exit */

void xalloc_exit_code(int code)
{
	oom_code = code;
}

void xalloc_on_oom(void (*fn)(void))
{
	__atomic_store_n(&oom_hook, fn, __ATOMIC_RELEASE);
}

void memory_limit_advice(char *b, size_t n)
{
	struct rlimit as, data;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
		snprintf(b, n, "its address-space limit (ulimit -v) is %llu KiB: raise it and run again",
			 (unsigned long long)(as.rlim_cur >> 10));
	else if (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY)
		snprintf(b, n, "its data limit (ulimit -d) is %llu KiB: raise it and run again",
			 (unsigned long long)(data.rlim_cur >> 10));
	else
		snprintf(b, n, "close other programs, or raise its memory limit (a cgroup's memory.max), and run again");
}

/* An exit with a reason, not abort(): SIGABRT reads as a crash, and a
 * limit the caller set is no bug.  _exit: stdout's buffer may hold half a
 * result, which must not look whole.  No allocation on this path.
 *
 * One thread does it.  Another that runs short meanwhile (the TUI's screen
 * thread and its turn thread together) waits for that one's _exit: before,
 * it found the hook taken, wrote its message and exited at once, while the
 * first was still giving the screen back, so sandbx tui could end with the
 * terminal left raw and the message in the held stderr, never shown.  The
 * wait is bounded (2 s), so a hook that cannot finish does not hang it. */
static _Noreturn void oom(void)
{
	char m[256], advice[192];
	if (__atomic_exchange_n(&oom_entered, 1, __ATOMIC_ACQ_REL)) {
		struct timespec ms = { 0, 1000000L };
		for (int i = 0; i < 2000; i++)
			nanosleep(&ms, NULL);
	}
	void (*hook)(void) = __atomic_exchange_n(&oom_hook, NULL, __ATOMIC_ACQ_REL);
	if (hook)	/* once, even when two threads run short together */
		hook();
	memory_limit_advice(advice, sizeof(advice));
	int n = snprintf(m, sizeof(m), "sandbx: out of memory — %s\n", advice);
	(void)!write(2, m, n > 0 && (size_t)n < sizeof(m) ? (size_t)n : sizeof(m) - 1);
	_exit(oom_code);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xjoin(char *const *v, size_t n, char sep)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = xmalloc(len), *o = s;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(v[i]);
		if (i)
			*o++ = sep;
		memcpy(o, v[i], l);
		o += l;
	}
	*o = '\0';
	return s;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void strv_push_own(struct strv *s, char *str)
{
	s->v = xrealloc(s->v, (s->n + 2) * sizeof(char *));
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
}

void strv_push(struct strv *s, const char *str)
{
	strv_push_own(s, xstrdup(str));
}

int strv_has(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return 1;
	return 0;
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int put_all(int fd, const void *buf, size_t n, int use_send)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = use_send ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (use_send && errno == ENOTSOCK) {
				use_send = 0;
				continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

ssize_t read_small_at(int dfd, const char *path, int oflags, char *buf, size_t cap)
{
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | oflags);
	size_t have = 0;
	if (fd < 0)
		return -1;
	while (have + 1 < cap) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	buf[have] = '\0';
	return (ssize_t)have;
}

int dir_sync(int dfd)
{
	/* fsync needs a descriptor open for reading: an O_PATH one is EBADF */
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? 0 : errno;
	int e = fsync(fd) < 0 && errno != EINVAL ? errno : 0;
	close(fd);
	return e;
}

int write_all(int fd, const void *buf, size_t n)
{
	return put_all(fd, buf, n, 0);
}

int write_all_nosignal(int fd, const void *buf, size_t n)
{
	return put_all(fd, buf, n, 1);
}

ssize_t send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfd)
{
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * SEND_FDS_MAX)];
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfd < 0 || nfd > SEND_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (nfd > 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.b;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfd);
	}
	ssize_t n;
	while ((n = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return n;
}

ssize_t recv_with_fds(int sock, void *buf, size_t len, int *fds, int maxfd, int *nfd)
{
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(int) * SEND_FDS_MAX)];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	ssize_t n;
	*nfd = 0;
	while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfd < maxfd)
				fds[*nfd] = fd;
			else
				close(fd);
			(*nfd)++;
		}
	}
	if (m.msg_flags & MSG_CTRUNC)
		*nfd = maxfd + 1;
	/* A stream: the rest of a message the first read cut short */
	size_t got = (size_t)n;
	while (n > 0 && got < len) {
		n = read(sock, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			got += (size_t)n;
	}
	if (n < 0) {
		int e = errno;
		for (int i = 0; i < *nfd && i < maxfd; i++)
			close(fds[i]);
		*nfd = 0;
		errno = e;
		return -1;
	}
	return (ssize_t)got;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	size_t n;
	uint64_t mul = 1, v;
	char num[32];
	if (!s || !(n = strlen(s)) || n >= sizeof(num))
		return -1;
	switch (s[n - 1]) {
	case 'k': case 'K': mul = 1ULL << 10; n--; break;
	case 'm': case 'M': mul = 1ULL << 20; n--; break;
	case 'g': case 'G': mul = 1ULL << 30; n--; break;
	case 't': case 'T': mul = 1ULL << 40; n--; break;
	default: break;
	}
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_u64(num, 0, UINT64_MAX / mul, &v) < 0)
		return -1;
	*out = v * mul;
	return 0;
}

int path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/';
}

char *str_hex_escape(const char *s, const char *set, int ctl)
{
	char *out = xmalloc(strlen(s) * 4 + 1), *o = out;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (strchr(set, *c) || (ctl && (*c < 0x20 || *c == 0x7f)))
			o += sprintf(o, "\\x%02x", *c);
		else
			*o++ = (char)*c;
	}
	*o = '\0';
	return out;
}

long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void xfsz_block(sigset_t *old)
{
	sigset_t x;
	sigemptyset(&x);
	sigaddset(&x, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &x, old);
}

void xfsz_restore(const sigset_t *old)
{
	sigset_t x;
	struct timespec zero = { 0, 0 };
	sigemptyset(&x);
	sigaddset(&x, SIGXFSZ);
	if (!sigismember(old, SIGXFSZ))
		while (sigtimedwait(&x, NULL, &zero) == SIGXFSZ)
			;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
