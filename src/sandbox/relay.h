/*
 * relay.h — standard descriptors that are sockets, passed to the command
 * as pipes, and the bytes copied between the two by a thread of sandbx.
 *
 * A socket given as descriptor 0, 1 or 2 (a service's standard output to
 * journald, a program that gives its children socket pairs) is one object
 * with the caller's: a command's shutdown() of it, or the socket options it
 * sets, outlive the run, and no snapshot can put a shutdown back.  So the
 * command gets a pipe in its place, and sandbx relays: socket to pipe for
 * standard input, pipe to socket for output and error.  A pipe given as
 * 0, 1 or 2 is relayed too: the command could otherwise open it again
 * through /proc/self/fd/N the other way (read what other host processes
 * wrote to the caller's output pipe, write into the caller's input pipe
 * for its next reader), which Landlock does not govern.  An input pipe is
 * copied with tee(2) and settled as the command reads (relay.c), so no
 * more of the caller's input is taken than the command read.  Nothing is
 * relayed (no pipe, no thread) when no standard descriptor is a stream
 * socket or a pipe.
 *
 * Life cycle (sandbox-run):
 *   struct relay r;
 *   relay_prepare(&r, s.stdio, &err)   a pipe for each socket or pipe among 0-2:
 *                                      s.stdio[i] = the command's end
 *   relay_start(&r, stop_fd, &err)     the relay thread is running
 *   sandbox_start(&s, &err)            (the command's ends cross)
 *   relay_spawned(&r)                  sandbx closes its copies of them
 *   sandbox_wait(...)                  every process of the sandbox is gone
 *   relay_finish(&r, flush_ms)         flush what the command wrote (for at
 *                                      most flush_ms when >= 0), join, close
 *                                      and free everything
 * relay_finish is also the way out after a failed start; after a failed
 * relay_prepare or relay_start nothing is left to release.
 *
 * Order on standard error: while the relay runs and fd 2 is a relayed
 * socket, the lines sandbx writes there itself (sbx_err, audit) are not
 * written to it directly, which would put them before what the command
 * wrote earlier but the relay still holds, or into the middle of a line
 * the relay has sent part of.  They are given to the relay (log_divert),
 * which sends each after exactly what the command had written to the pipe
 * when it came: the order a direct write would have had without a relay.
 * (Not bounded by the relay: they are sandbx's own, a few in a run.)
 * Where the command left a line unended at that place, the relay ends
 * it first (a newline), so no line of sandbx's continues one of the
 * command's (which could begin with a forged record).  A flush given up
 * (relay_finish's deadline, a signal), or a command that ended its
 * output without a newline, ends the stream in the middle of a line:
 * relay_finish then ends that line, and writes sandbx's lines the relay
 * did not send, so what sandbx writes after starts a line of its own and
 * none of its lines is lost.  With a deadline (flush_ms >= 0: --timeout), those lines and every
 * one sandbx writes after relay_finish (the exited record) have until
 * RELAY_TAIL_MS past it to reach the socket, then are dropped: a reader
 * that never reads does not hold sandbx (log_divert stays set for the rest
 * of the process).
 *
 * Bounds: an output relay holds at most RELAY_OUT_BUF bytes.  An input
 * relay reads at most RELAY_IN_CHUNK from the socket and only once the
 * command has read all it was given (its pipe is one page and empty), so
 * at most that much of the caller's input is taken and not read by the
 * command; once the command has read RELAY_IN_STREAM bytes, RELAY_OUT_BUF
 * at a time into a pipe as large (at most twice that taken ahead).
 */
#ifndef SBX_RELAY_H
#define SBX_RELAY_H

#include <pthread.h>
#include <stddef.h>

#define RELAY_OUT_BUF (64 * 1024)
#define RELAY_IN_CHUNK 4096
#define RELAY_IN_STREAM (64 * 1024)
#define RELAY_TAIL_MS 2000	/* sandbx's last lines, past the flush's deadline */

#define RELAY_SOCK 1
#define RELAY_PIPE 2

struct relay_chan {
	int sock;		/* the caller's descriptor: 0, 1 or 2 */
	int kind;		/* RELAY_SOCK or RELAY_PIPE: what sock is */
	int stage[2];		/* output pipe: what goes to sock is staged here */
	size_t staged;		/* output pipe: bytes the stage holds */
	size_t teed;		/* input pipe: copied to the command, still in sock */
	int streaming;		/* input pipe: moved, no longer copied */
	int pipe;		/* our end: the write end for input, the read end for output */
	int out;		/* 1: pipe to socket; 0: socket to pipe */
	int done;		/* ended: pipe closed */
	char *buf;
	size_t chunk;		/* buf's size: what is read at a time */
	size_t off, len;	/* bytes held, not yet passed on */
	size_t fed;		/* input: bytes written to the command's pipe */
	size_t left;		/* after the run: what the pipe still holds to flush */
	size_t taken;		/* output: bytes read from the pipe in all */
	char last;		/* output: the last byte passed to the socket */
	short wait_fd_ev;	/* what pump() waits for: POLLIN or POLLOUT ... */
	int wait_fd;		/* ... on this descriptor */
};

/* A line of sandbx's own for standard error, and where it goes. */
struct relay_note {
	struct relay_note *next;
	size_t at;		/* after this many bytes the command wrote (taken) */
	size_t off, len;	/* sent, and in all */
	char text[];
};

struct relay {
	int n;			/* channels in use; 0: nothing relayed */
	struct relay_chan ch[3];
	struct relay_chan *err;	/* the channel fd 2's socket is on, or NULL */
	/* err's taken, pipe and done, and the notes, are shared with the
	 * thread that logs: under mu */
	pthread_mutex_t mu;
	struct relay_note *notes, **notes_end;
	int note_wake[2];	/* written when a note is queued */
	int cut;		/* err's stream ended in a line of the command's */
	int cmd_end[3];		/* the command's ends, until relay_spawned */
	int devnull;		/* where an input pipe's bytes the command read go */
	int wake[2];		/* written by relay_finish: the run is over */
	int stop_fd;		/* after the run: readable means give up the flush */
	long flush_deadline;	/* mono_ms() past which the flush is given up; -1: none */
	size_t dropped;		/* output the flush gave up on (the thread's, until joined) */
	int running;		/* the thread was started */
	pthread_t th;
};

/* 0, or -1 with *err (nothing left open). */
int relay_prepare(struct relay *r, int stdio[3], char **err);
/* stop_fd: -1, or a descriptor that turns readable when the flush of what
 * the command wrote should be given up (sandbx is asked to end: the
 * harness's sandbox_sigs_fd()).  0, or -1 with *err (everything released). */
int relay_start(struct relay *r, int stop_fd, char **err);
void relay_spawned(struct relay *r);
/* flush_ms: how long the flush of what the command wrote may wait on a
 * reader that does not take it; -1: as long as it takes (as the command
 * would have waited writing to the socket itself), 0: what goes without
 * waiting.  The bytes of output given up on. */
size_t relay_finish(struct relay *r, long flush_ms);

#endif
