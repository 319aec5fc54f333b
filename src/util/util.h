/*
 * util.h — small helpers shared by every module: allocation that never
 * returns NULL (out of memory ends the process, saying so and which limit
 * to raise: a half-built policy is worse than no run), string lists,
 * EINTR-safe I/O and number parsing.
 *
 * Ownership: xstrdup/xasprintf results belong to the caller (free()).
 * A struct strv owns its strings; strv_free releases them and the array.
 */
#ifndef SBX_UTIL_H
#define SBX_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SBX_ATTR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SBX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define RETRY_EINTR(expr) ({ long _r; do _r = (long)(expr); while (_r == -1 && errno == EINTR); _r; })

void *xmalloc(size_t n);
/* The exit code when an allocation fails (1 unless set): the sandbox's
 * stages and sandbox-run use 125, as their other refusals. */
void xalloc_exit_code(int code);
/* Called, when set, just before the message of a failed allocation is
 * written and the process exits: the screen gives the terminal back, so
 * the message is seen and the shell is not left in raw mode.  It must
 * not allocate.  NULL unsets it. */
void xalloc_on_oom(void (*fn)(void));
/* What to do when memory ran out, into b (no allocation): raise the
 * address-space or data limit when one is set (ulimit -v, -d), naming its
 * value, else free the machine's memory. */
void memory_limit_advice(char *b, size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) SBX_ATTR_PRINTF(1, 2);
/* The n words of v joined by one sep each, in one allocation ("" for
 * none): a join by repeated xasprintf is quadratic in the words. */
char *xjoin(char *const *v, size_t n, char sep);
char *xvasprintf(const char *fmt, va_list ap) SBX_ATTR_PRINTF(1, 0);

struct strv {
	char **v;	/* NULL-terminated when n > 0 or after strv_push */
	size_t n;
};
void strv_push(struct strv *s, const char *str);	/* copies str */
void strv_push_own(struct strv *s, char *str);		/* takes str */
int strv_has(const struct strv *s, const char *str);
void strv_free(struct strv *s);

/* Write all of buf; 0 or -1 with errno. */
int write_all(int fd, const void *buf, size_t n);
/* write_all, but to a socket whose reader is gone it fails with EPIPE
 * instead of raising SIGPIPE (send with MSG_NOSIGNAL; any other kind of
 * descriptor is written as write_all does). */
int write_all_nosignal(int fd, const void *buf, size_t n);

/* One sendmsg of len bytes of buf on the unix socket sock, carrying the
 * nfd descriptors of fds (SCM_RIGHTS) when nfd > 0 (at most
 * SEND_FDS_MAX), with no SIGPIPE, again on EINTR.  The bytes sent, or -1
 * with errno.  Async-signal-safe (the namespace child calls it). */
#define SEND_FDS_MAX 8
ssize_t send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfd);

/* The other end, for a stream socket: len bytes into buf, the first
 * recvmsg taking the descriptors (close-on-exec) and reads after it the
 * rest of a message cut short.  The first maxfd descriptors go to fds,
 * any more are closed; *nfd is how many came, and maxfd + 1 when the
 * kernel cut the descriptors short (MSG_CTRUNC), so that a caller
 * refusing more than it wants refuses that too.  Returns len, fewer at
 * end of file (0: none came), or -1 with errno; on -1 *nfd is 0 and no
 * descriptor is kept.  Async-signal-safe. */
ssize_t recv_with_fds(int sock, void *buf, size_t len, int *fds, int maxfd, int *nfd);

/*
 * Sync the directory dfd (any descriptor of it, O_PATH too) to disk: a
 * link, rename, unlink or mkdir in it survives a crash or a power loss
 * only once it is.  0, or an errno.  A directory the caller may not read
 * cannot be opened to sync and is passed over, as one whose filesystem
 * does not sync directories (EINVAL).
 */
int dir_sync(int dfd);

/* Read a small file (a /proc or cgroup file) whole into buf, at most
 * cap - 1 bytes, NUL-terminated: path opened relative to dfd (AT_FDCWD
 * for none) with O_RDONLY | O_CLOEXEC | oflags.  The bytes read, or -1
 * when it does not open. */
ssize_t read_small_at(int dfd, const char *path, int oflags, char *buf, size_t cap);

/*
 * Parse a whole decimal number in [min, max]; 0 or -1 (trailing junk,
 * overflow, empty, out of range).
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Parse SIZE with an optional K/M/G/T suffix (powers of 1024). */
int parse_size(const char *s, uint64_t *out);

/* 1 if path is equal to or beneath dir (both absolute, normalised). */
int path_within(const char *path, const char *dir);

/* A copy of s (malloc'd) with each byte in set, and each control byte
 * (below 0x20, 0x7f) when ctl, written as \xNN. */
char *str_hex_escape(const char *s, const char *set, int ctl);

/* CLOCK_MONOTONIC in milliseconds. */
long mono_ms(void);

/*
 * Around a write that may pass RLIMIT_FSIZE: the kernel answers EFBIG and
 * also sends SIGXFSZ, whose default action kills the process.  Block it in
 * the calling thread (xfsz_block), write, then xfsz_restore: it
 * takes any SIGXFSZ that arrived off the thread's pending set before
 * restoring the mask, so a hit limit is an error, not a dead harness.
 * Nothing process-wide changes and children inherit nothing.
 */
void xfsz_block(sigset_t *old);
void xfsz_restore(const sigset_t *old);

#endif
