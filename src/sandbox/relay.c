/*
 * relay.c — the command's pipes in place of standard sockets, and the
 * thread that copies between them (relay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "sandbox/relay.h"
#include "util/log.h"
#include "util/util.h"

/* What fd is to the relay: a stream socket that is connected, or may be
 * (a listening one, a service started with its listening socket as
 * standard input to accept() on it, carries no bytes to relay and is
 * passed as it is), or a pipe (a FIFO included).  0: neither, passed. */
static int relayable(int fd, struct stat *st)
{
	int type = 0, listening = 0;
	socklen_t l = sizeof(type);
	if (fstat(fd, st) < 0)
		return 0;
	if (S_ISFIFO(st->st_mode))
		return RELAY_PIPE;
	if (!S_ISSOCK(st->st_mode))
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_STREAM)
		return 0;
	l = sizeof(listening);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l) == 0 && !listening ? RELAY_SOCK : 0;
}

/* sandbx's last lines for a standard error pipe, after relay_finish: the
 * stage they go through (stage_send), kept for them, or -1. */
static int tail_stage[2] = { -1, -1 };
static size_t tail_staged;

static void relay_reset(struct relay *r)
{
	memset(r, 0, sizeof(*r));
	r->mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	r->notes_end = &r->notes;
	r->wake[0] = r->wake[1] = r->stop_fd = -1;
	r->note_wake[0] = r->note_wake[1] = -1;
	r->devnull = -1;
	for (int fd = 0; fd < 3; fd++)
		r->cmd_end[fd] = -1;
	for (int i = 0; i < 3; i++)
		r->ch[i].stage[0] = r->ch[i].stage[1] = -1;
}

/* A pipe of sandbx's own, both ends non-blocking, as large as the relay
 * holds: what goes to a caller's output pipe is staged there and moved
 * with splice(SPLICE_F_NONBLOCK), which never waits on the caller's pipe
 * whatever its flags (theirs, shared with the caller's processes: sandbx
 * sets none on it).  0, or -1 with errno. */
static int stage_make(int st[2])
{
	if (pipe2(st, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	(void)fcntl(st[1], F_SETPIPE_SZ, RELAY_OUT_BUF);
	return 0;
}

/*
 * n bytes of p towards the caller's pipe fd through the stage (st, staged:
 * how many of p's first bytes it already holds, from an earlier call):
 * the bytes that reached fd, 0 when it is full, -1 with errno when it
 * broke (EPIPE: no reader).  The caller offers the same bytes again,
 * advanced by what was answered, until all are answered, so the stage
 * always holds the start of what is offered.
 */
static ssize_t stage_send(int fd, int st[2], size_t *staged, const char *p, size_t n)
{
	if (*staged < n) {
		ssize_t w = write(st[1], p + *staged, n - *staged);
		if (w > 0)
			*staged += (size_t)w;
	}
	for (;;) {
		ssize_t m = splice(st[0], NULL, fd, NULL, *staged, SPLICE_F_NONBLOCK);
		if (m < 0 && errno == EINTR)
			continue;
		if (m < 0 && errno == EAGAIN)
			return 0;
		if (m <= 0)
			return m < 0 ? -1 : 0;
		*staged -= (size_t)m;
		return m;
	}
}

int relay_prepare(struct relay *r, int stdio[3], char **err)
{
	struct stat st[3];
	relay_reset(r);
	for (int fd = 0; fd < 3; fd++) {
		int p[2], kind = relayable(fd, &st[fd]);
		const char *what = fd == 0 ? "input" : fd == 1 ? "output" : "error";
		if (!kind)
			continue;
		/* Output and error on one socket or pipe share one pipe: what
		 * the command writes to them reaches it in its order. */
		if (fd == 2 && r->cmd_end[1] >= 0 && st[2].st_dev == st[1].st_dev && st[2].st_ino == st[1].st_ino) {
			stdio[2] = r->cmd_end[1];
			r->err = &r->ch[r->n - 1];
			continue;
		}
		if (pipe2(p, O_CLOEXEC) < 0) {
			*err = xasprintf("cannot make the pipe that stands in for standard %s (a %s): %s — close "
					 "descriptors this process holds open, or raise the open-files limit (ulimit -n)",
					 what, kind == RELAY_SOCK ? "socket" : "pipe", strerror(errno));
			(void)relay_finish(r, 0);
			return -1;
		}
		struct relay_chan *c = &r->ch[r->n++];
		c->sock = fd;
		c->kind = kind;
		c->out = fd != 0;
		c->pipe = c->out ? p[0] : p[1];
		r->cmd_end[fd] = stdio[fd] = c->out ? p[1] : p[0];
		(void)fcntl(c->pipe, F_SETFL, O_NONBLOCK);	/* our end only */
		/* One page: the input pipe is then writable only once the
		 * command has read all of it (relay.h, bounds). */
		if (!c->out)
			(void)fcntl(c->pipe, F_SETPIPE_SZ, RELAY_IN_CHUNK);
		c->chunk = c->out ? RELAY_OUT_BUF : RELAY_IN_CHUNK;
		c->buf = xmalloc(c->chunk);
		c->last = '\n';	/* sandbx's spawned record came before */
		if (fd == 2)
			r->err = c;
		if (kind != RELAY_PIPE)
			continue;
		/* A pipe's end given the wrong way round (its read end as
		 * output, 1<&0): the command's writes fail, its reads see the
		 * end, and sandbx opens nothing that could reach the pipe the
		 * other way on its behalf. */
		int acc = fcntl(fd, F_GETFL);
		acc = acc < 0 ? -1 : acc & O_ACCMODE;
		if (acc == -1 || acc == (c->out ? O_RDONLY : O_WRONLY)) {
			close(c->pipe);
			c->done = 1;
			continue;
		}
		if (c->out) {
			if (stage_make(c->stage) < 0) {
				*err = xasprintf("cannot make the pipe that stands in for standard %s (a pipe): %s — "
						 "close descriptors this process holds open, or raise the open-files "
						 "limit (ulimit -n)", what, strerror(errno));
				(void)relay_finish(r, 0);
				return -1;
			}
		} else if (r->devnull < 0 && (r->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
			*err = xasprintf("cannot relay standard input (a pipe): /dev/null: %s", strerror(errno));
			(void)relay_finish(r, 0);
			return -1;
		}
	}
	return 0;
}

static void chan_end(struct relay *r, struct relay_chan *c)
{
	if (c->done)
		return;
	pthread_mutex_lock(&r->mu);	/* relay_note asks err's pipe */
	close(c->pipe);
	c->done = 1;
	pthread_mutex_unlock(&r->mu);
	c->len = 0;
}

static void chan_wait(struct relay_chan *c, int fd, short ev)
{
	c->wait_fd = fd;
	c->wait_fd_ev = ev;
}

/* Send what goes without waiting: the bytes sent; 0: the socket or pipe
 * is full (waited on); -1: the channel ended.  A pipe goes through the
 * channel's stage (stage_send); the thread blocks every signal, so a
 * reader gone is EPIPE here. */
static ssize_t sock_send(struct relay *r, struct relay_chan *c, const char *p, size_t n)
{
	for (;;) {
		ssize_t w = c->kind == RELAY_PIPE ? stage_send(c->sock, c->stage, &c->staged, p, n)
						  : send(c->sock, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0 || (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) {
			chan_wait(c, c->sock, POLLOUT);
			return 0;
		}
		if (w < 0) {
			/* The caller's end is gone (EPIPE, ECONNRESET): with
			 * the pipe closed the command's next write fails as it
			 * would have on the socket. */
			chan_end(r, c);
			return -1;
		}
		c->last = p[w - 1];
		return w;
	}
}

/* The first of sandbx's lines for c still to send, if c is err's. */
static struct relay_note *note_first(struct relay *r, struct relay_chan *c)
{
	struct relay_note *nt;
	if (c != r->err)
		return NULL;
	pthread_mutex_lock(&r->mu);
	nt = r->notes;
	pthread_mutex_unlock(&r->mu);
	return nt;
}

static void note_sent(struct relay *r)
{
	pthread_mutex_lock(&r->mu);
	struct relay_note *nt = r->notes;
	r->notes = nt->next;
	if (!r->notes)
		r->notes_end = &r->notes;
	pthread_mutex_unlock(&r->mu);
	free(nt);
}

/* Pipe to socket, as far as it goes without waiting, with sandbx's own
 * lines in their places (relay.h, order).  After the run only what the
 * pipe held then (c->left) is read: a writer that outlived the sandbox
 * (a descriptor sent out over a socket) cannot keep sandbx. */
static void pump_out(struct relay *r, struct relay_chan *c, int over)
{
	for (;;) {
		if (c->len) {
			ssize_t w = sock_send(r, c, c->buf + c->off, c->len);
			if (w <= 0)
				return;
			c->off += (size_t)w;
			c->len -= (size_t)w;
			continue;
		}
		struct relay_note *nt = note_first(r, c);
		if (nt && nt->at == c->taken && nt->off == 0 && c->last != '\n') {
			/* A line of sandbx's own starts a line: one the command
			 * left unended is ended first, so no record of sandbx's
			 * reads as the tail of a line the command wrote. */
			if (sock_send(r, c, "\n", 1) <= 0)
				return;
			continue;
		}
		if (nt && nt->at == c->taken) {
			ssize_t w = sock_send(r, c, nt->text + nt->off, nt->len - nt->off);
			if (w <= 0)
				return;
			nt->off += (size_t)w;
			if (nt->off == nt->len)
				note_sent(r);
			continue;
		}
		if (over && !c->left) {
			chan_end(r, c);
			return;
		}
		size_t want = over && c->left < RELAY_OUT_BUF ? c->left : RELAY_OUT_BUF;
		if (nt && nt->at - c->taken < want)
			want = nt->at - c->taken;	/* up to the note, no further */
		pthread_mutex_lock(&r->mu);
		ssize_t n = read(c->pipe, c->buf, want);
		if (n > 0)
			c->taken += (size_t)n;
		pthread_mutex_unlock(&r->mu);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !over) {
			chan_wait(c, c->pipe, POLLIN);
			return;
		}
		if (n <= 0) {
			chan_end(r, c);
			return;
		}
		if (over)
			c->left -= (size_t)n;
		c->off = 0;
		c->len = (size_t)n;
	}
}

/* log_divert's: a line of sandbx's own for standard error, queued to go
 * after what the command wrote before it: what the relay holds (taken
 * counts it) and what the pipe holds now.  Once err ended (its caller's
 * end gone), after the lines still queued, or else at once (-1: the
 * caller writes it). */
static int relay_note(void *ctx, const char *line, size_t n)
{
	struct relay *r = ctx;
	struct relay_chan *c = r->err;
	struct relay_note *nt = malloc(sizeof(*nt) + n);	/* not xmalloc: sbx_err may report a shortage */
	int k = 0, queued = 0;
	if (!nt)
		return -1;
	memcpy(nt->text, line, n);
	nt->next = NULL;
	nt->off = 0;
	nt->len = n;
	pthread_mutex_lock(&r->mu);
	if ((!c->done && ioctl(c->pipe, FIONREAD, &k) == 0) || (c->done && r->notes)) {
		nt->at = c->taken + (size_t)k;
		*r->notes_end = nt;
		r->notes_end = &nt->next;
		queued = 1;
	}
	pthread_mutex_unlock(&r->mu);
	if (!queued) {
		free(nt);
		return -1;
	}
	(void)!write(r->note_wake[1], "", 1);	/* non-blocking: a full pipe already says so */
	return 0;
}

/* A command that has read RELAY_IN_STREAM bytes of its input streams it:
 * its pipe grows to RELAY_OUT_BUF and the relay reads as much at a time,
 * for throughput (one page at a time passed 64 MiB at 177 MB/s). */
static void in_grow(struct relay_chan *c)
{
	if (c->chunk != RELAY_IN_CHUNK || c->fed < RELAY_IN_STREAM)
		return;
	if (fcntl(c->pipe, F_SETPIPE_SZ, RELAY_OUT_BUF) < 0)
		return;
	c->chunk = RELAY_OUT_BUF;
	free(c->buf);
	c->buf = xmalloc(c->chunk);
}

/*
 * The caller's input pipe, settled: what the command took of what was
 * copied to it (tee, which leaves it in the caller's pipe) is taken from
 * the caller's pipe now, to /dev/null; what it has not read stays there
 * for whoever reads the caller's pipe next.  -1: the channel ended.
 */
static int pipe_settle(struct relay *r, struct relay_chan *c)
{
	int k = 0;
	if (!c->teed)
		return 0;
	if (ioctl(c->pipe, FIONREAD, &k) < 0 || k < 0 || (size_t)k > c->teed)
		k = 0;
	size_t taken = c->teed - (size_t)k;
	while (taken > 0) {
		ssize_t n = splice(c->sock, NULL, r->devnull, NULL, taken, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;	/* another reader of the caller's pipe took them */
		taken -= (size_t)n;
		c->teed -= (size_t)n;
		c->fed += (size_t)n;
	}
	return 0;
}

/*
 * Pipe to pipe, for standard input: the caller's pipe is only copied (tee)
 * into the command's, one page at a time and once the command has read all
 * of the last, and what the command read is then taken from the caller's
 * (pipe_settle).  So a command that reads nothing, or a line, leaves the
 * rest to the process that reads the caller's pipe after it (a shell's
 * `while read` loop), as it would have reading that pipe itself.  Once the
 * command has read RELAY_IN_STREAM bytes it streams: the rest is moved
 * (splice) a pipe's worth at a time, as from a socket.
 */
static void pump_in_pipe(struct relay *r, struct relay_chan *c, int over)
{
	if (over) {
		(void)pipe_settle(r, c);
		chan_end(r, c);
		return;
	}
	for (;;) {
		if (!c->streaming) {
			if (pipe_settle(r, c) < 0) {
				chan_end(r, c);
				return;
			}
			if (c->teed) {
				chan_wait(c, c->pipe, POLLOUT);	/* one page: empty */
				return;
			}
			if (c->fed >= RELAY_IN_STREAM && fcntl(c->pipe, F_SETPIPE_SZ, RELAY_OUT_BUF) >= 0)
				c->streaming = 1;
		}
		ssize_t n = c->streaming ? splice(c->sock, NULL, c->pipe, NULL, RELAY_OUT_BUF, SPLICE_F_NONBLOCK)
					 : tee(c->sock, c->pipe, RELAY_IN_CHUNK, SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			if (!c->streaming)
				c->teed = (size_t)n;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			/* the command's pipe full, or the caller's empty */
			struct pollfd p = { .fd = c->pipe, .events = POLLOUT };
			if (poll(&p, 1, 0) < 0 || (p.revents & POLLERR)) {
				chan_end(r, c);
				return;
			}
			chan_wait(c, p.revents & POLLOUT ? c->sock : c->pipe, p.revents & POLLOUT ? POLLIN : POLLOUT);
			return;
		}
		/* 0: the caller's pipe is empty and has no writer (end of
		 * file), or it broke: the command reads end of file */
		chan_end(r, c);
		return;
	}
}

/* Socket to pipe: a chunk is read from the socket only once the pipe has
 * room, and while the pipe is one page, once it is empty (POLLOUT), so
 * the relay takes little of the caller's input ahead of the command. */
static void pump_in(struct relay *r, struct relay_chan *c, int over)
{
	if (c->kind == RELAY_PIPE) {
		pump_in_pipe(r, c, over);
		return;
	}
	if (over) {
		chan_end(r, c);	/* nothing more is taken from the caller */
		return;
	}
	for (;;) {
		if (c->len) {
			ssize_t w = write(c->pipe, c->buf + c->off, c->len);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN) {
				chan_wait(c, c->pipe, POLLOUT);
				return;
			}
			if (w < 0) {
				chan_end(r, c);	/* no reader is left (EPIPE) */
				return;
			}
			c->off += (size_t)w;
			c->len -= (size_t)w;
			c->fed += (size_t)w;
			continue;
		}
		in_grow(c);
		struct pollfd p = { .fd = c->pipe, .events = POLLOUT };
		if (poll(&p, 1, 0) < 0 || (p.revents & POLLERR)) {
			chan_end(r, c);
			return;
		}
		if (!(p.revents & POLLOUT)) {
			chan_wait(c, c->pipe, POLLOUT);
			return;
		}
		ssize_t n = recv(c->sock, c->buf, c->chunk, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			chan_wait(c, c->sock, POLLIN);
			return;
		}
		if (n <= 0) {
			/* end of the caller's input, or its end broke: the
			 * command reads end of file */
			chan_end(r, c);
			return;
		}
		c->off = 0;
		c->len = (size_t)n;
	}
}

static void *relay_run(void *arg)
{
	struct relay *r = arg;
	int over = 0, ready[3] = { 1, 1, 1 };
	for (;;) {
		struct pollfd pf[5];
		int at[3], n = 0;
		for (int i = 0; i < r->n; i++) {
			struct relay_chan *c = &r->ch[i];
			at[i] = -1;
			if (c->done)
				continue;
			if (ready[i])
				(c->out ? pump_out : pump_in)(r, c, over);
			if (c->done)
				continue;
			at[i] = n;
			pf[n++] = (struct pollfd){ .fd = c->wait_fd, .events = c->wait_fd_ev };
		}
		if (over && !n)
			break;
		/* The flush has until the deadline relay_finish was given (the
		 * rest of --timeout): a reader that stalls cannot hold sandbx
		 * past it, as it could not hold the command before. */
		int tmo = -1;
		if (over && r->flush_deadline >= 0) {
			long left = r->flush_deadline - mono_ms();
			if (left <= 0)
				break;
			tmo = left > INT_MAX ? INT_MAX : (int)left;
		}
		pf[n] = (struct pollfd){ .fd = over ? r->stop_fd : r->wake[0], .events = POLLIN };
		/* after the run no note comes: sandbx is in relay_finish */
		pf[n + 1] = (struct pollfd){ .fd = over ? -1 : r->note_wake[0], .events = POLLIN };
		if (poll(pf, (nfds_t)n + 2, tmo) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < r->n; i++)
			ready[i] = at[i] >= 0 && pf[at[i]].revents;
		if (pf[n + 1].revents) {
			char b[64];
			while (read(r->note_wake[0], b, sizeof(b)) > 0)
				;
			ready[r->err - r->ch] = 1;
		}
		if (!pf[n].revents)
			continue;
		if (over)
			break;	/* sandbx is asked to end: the flush is given up */
		/* The run is over: every process that could write is gone,
		 * and what the command wrote is in the pipes. */
		over = 1;
		for (int i = 0; i < r->n; i++) {
			struct relay_chan *c = &r->ch[i];
			int k = 0;
			if (c->out && !c->done && ioctl(c->pipe, FIONREAD, &k) == 0 && k > 0)
				c->left = (size_t)k;
			ready[i] = 1;
		}
	}
	for (int i = 0; i < r->n; i++) {
		struct relay_chan *c = &r->ch[i];
		size_t lost = c->out && !c->done ? c->len + c->left : 0;
		r->dropped += lost;
		/* Ended in the middle of a line of the command's, given up
		 * there or left so by the command (sandbx ends it:
		 * relay_finish, so its exited record starts a line and is not
		 * the tail of one that begins with a forged record), unless a
		 * line of sandbx's own was being sent, whose rest
		 * relay_finish writes first. */
		pthread_mutex_lock(&r->mu);
		if (c == r->err && c->last != '\n' && !(r->notes && r->notes->off))
			r->cut = 1;
		pthread_mutex_unlock(&r->mu);
		chan_end(r, c);
	}
	return NULL;
}

int relay_start(struct relay *r, int stop_fd, char **err)
{
	sigset_t all, old;
	if (!r->n)
		return 0;
	r->stop_fd = stop_fd;
	if (pipe2(r->wake, O_CLOEXEC) < 0 || (r->err && pipe2(r->note_wake, O_CLOEXEC | O_NONBLOCK) < 0)) {
		*err = xasprintf("cannot start relaying the standard sockets: %s", strerror(errno));
		(void)relay_finish(r, 0);
		return -1;
	}
	/* Signals are the main thread's (sandbox_sigs_hold's handler, the
	 * wait loop); a write to a pipe whose reader is gone is EPIPE here. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&r->th, NULL, relay_run, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		*err = xasprintf("cannot start relaying the standard sockets: %s", strerror(e));
		(void)relay_finish(r, 0);
		return -1;
	}
	r->running = 1;
	if (r->err)
		log_divert(relay_note, r);
	return 0;
}

void relay_spawned(struct relay *r)
{
	for (int fd = 0; fd < 3; fd++)
		if (r->cmd_end[fd] >= 0) {
			close(r->cmd_end[fd]);
			r->cmd_end[fd] = -1;
		}
}

/* Once a flush with a deadline is over: sandbx's own lines for the
 * standard error socket go until tail_deadline (mono_ms), then no more
 * (tail_gone); -1: written as long as it takes. */
static long tail_deadline = -1;
static int tail_gone;

/* n bytes of p to fd 2, a socket, by tail_deadline; once it passed or
 * the socket failed, nothing more (tail_gone).  send() with MSG_DONTWAIT
 * changes no flag of the descriptor, which the caller's processes share. */
static ssize_t tail_put(const char *p, size_t n)
{
	if (tail_stage[0] < 0)
		return send(2, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	/* a pipe: SIGPIPE held off (a reader gone is EPIPE, and the signal
	 * it raised is taken back) */
	sigset_t pipe_sig, old, pend;
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
	int was_pending = sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE);
	ssize_t k = stage_send(2, tail_stage, &tail_staged, p, n);
	int e = errno;
	if (k < 0 && e == EPIPE && !was_pending) {
		struct timespec zero = { 0, 0 };
		(void)sigtimedwait(&pipe_sig, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	if (k == 0)
		errno = EAGAIN;
	return k == 0 ? -1 : k;
}

static void tail_send(const char *p, size_t n)
{
	while (n > 0 && !tail_gone) {
		ssize_t k = tail_put(p, n);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		long left = tail_deadline - mono_ms();
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || left <= 0) {
			tail_gone = 1;
			break;
		}
		struct pollfd pf = { .fd = 2, .events = POLLOUT };
		(void)poll(&pf, 1, (int)(left < INT_MAX ? left : INT_MAX));
	}
}

/* log_divert's after relay_finish with a deadline: each line sent by
 * it, or dropped once it passed.  Always taken. */
static int tail_note(void *ctx, const char *line, size_t n)
{
	(void)ctx;
	tail_send(line, n);
	return 0;
}

static void tail_write(const char *p, size_t n)
{
	if (tail_deadline >= 0)
		tail_send(p, n);
	else
		(void)write_all_nosignal(2, p, n);
}

/* After the thread: what the flush did not send of sandbx's own lines,
 * written now (none is lost but to the tail's deadline), after the end
 * of a line it cut. */
static void notes_out(struct relay *r)
{
	if (r->cut)
		tail_write("\n", 1);
	while (r->notes) {
		struct relay_note *nt = r->notes;
		r->notes = nt->next;
		tail_write(nt->text + nt->off, nt->len - nt->off);
		free(nt);
	}
}

size_t relay_finish(struct relay *r, long flush_ms)
{
	size_t dropped = 0;
	relay_spawned(r);
	if (r->running) {
		log_divert(NULL, NULL);	/* sandbx writes to fd 2 again once this returns */
		r->flush_deadline = flush_ms < 0 ? -1 : mono_ms() + flush_ms;
		(void)!write(r->wake[1], "", 1);
		pthread_join(r->th, NULL);
		r->running = 0;
		dropped = r->dropped;
	}
	/* With a deadline (--timeout), a reader of standard error that
	 * stalls does not hold sandbx's own last lines for ever either:
	 * they have until RELAY_TAIL_MS past the flush's deadline. */
	int tail = r->err && flush_ms >= 0;
	for (int i = 0; i < 2; i++)
		if (tail_stage[i] >= 0) {
			close(tail_stage[i]);
			tail_stage[i] = -1;
		}
	tail_staged = 0;
	/* a standard error pipe's last lines go through a stage of their own
	 * (the channel's may still hold bytes of the command's the flush gave
	 * up, counted as lost); none made, they are dropped */
	if (tail && r->err->kind == RELAY_PIPE && stage_make(tail_stage) < 0)
		tail_stage[0] = tail_stage[1] = -1;
	if (tail) {
		tail_deadline = (r->flush_deadline >= 0 ? r->flush_deadline : mono_ms() + flush_ms) + RELAY_TAIL_MS;
		tail_gone = 0;
	}
	notes_out(r);
	if (tail)
		log_divert(tail_note, NULL);
	for (int i = 0; i < r->n; i++) {
		chan_end(r, &r->ch[i]);
		free(r->ch[i].buf);
		for (int k = 0; k < 2; k++)
			if (r->ch[i].stage[k] >= 0)
				close(r->ch[i].stage[k]);
	}
	if (r->devnull >= 0)
		close(r->devnull);
	for (int i = 0; i < 2; i++) {
		if (r->wake[i] >= 0)
			close(r->wake[i]);
		if (r->note_wake[i] >= 0)
			close(r->note_wake[i]);
	}
	relay_reset(r);
	return dropped;
}
