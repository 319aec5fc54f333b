/*
 * tui.c — the screen thread and the turn worker (see tui.h).
 *
 * Threads (ARCHITECTURE.md "Threads"): this thread owns the terminal and
 * the model; the worker runs drv.turn() and calls the turn_io callbacks
 * below, which copy each event into the queue and write one byte to the
 * wake pipe.  Text deltas are merged in the queue, so a fast stream costs
 * one model update per drained batch, and a frame is drawn at most every
 * TUI_FRAME_MS.  Signals (SIGWINCH, SIGHUP, SIGTERM, SIGINT from another
 * process: the keyboard's ctrl-c is a key in raw mode) may land on either
 * thread: the handler only sets a flag and writes to the same pipe.
 * SIGTERM, SIGINT and SIGHUP end the screen as the user's quit would (the
 * turn stopped, what it keeps stored, the terminal given back), then the
 * caller ends sandbx by that signal (tui_end_signal); the keyboard's end
 * (POLLHUP) is the same hang-up as SIGHUP, whichever comes first; a
 * hang-up while a question waits is the terminal gone with a call to
 * approve: TUI_END_HANGUP, exit 3.  A signal the caller left ignored
 * stays ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/tools.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/render.h"
#include "tui/replay.h"
#include "tui/tui.h"
#include "util/utf8.h"

enum msg_kind { M_EVENT, M_QUESTION, M_DONE };

struct msg {
	struct msg *next;
	enum msg_kind kind;
	struct turn_event ev;		/* strings below */
	char *text, *tool, *id, *subject, *input;
	size_t tlen, tcap;
	char *q_subject, *q_args, *q_diff, *q_whole;
	int q_cut;
	struct turn_outcome out;
};

struct tui {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct msg *head, *tail;
	size_t qbytes;
	int wake[2];
	char *prompt;			/* for the worker */
	int quit;			/* the worker leaves */
	int worker_busy;
	int asking, answered;
	enum approval_answer ans;
	char *reason;
	volatile sig_atomic_t stop;
	struct tui_driver drv;
};

static volatile sig_atomic_t sig_winch, sig_end, sig_tstp, sig_cont;
static int sig_fd = -1;
static int end_signal;	/* tui_end_signal() */

static void on_signal(int sig)
{
	int e = errno;
	if (sig == SIGWINCH)
		sig_winch = 1;
	else if (sig == SIGTSTP)
		sig_tstp = 1;
	else if (sig == SIGCONT)
		sig_cont = 1;
	else if (!sig_end)
		sig_end = sig;	/* SIGTERM, SIGINT, SIGHUP: the first one counts */
	if (sig_fd >= 0) {
		ssize_t r = write(sig_fd, "s", 1);
		(void)r;
	}
	errno = e;
}

int tui_end_signal(void)
{
	return end_signal;
}

/* A signal the caller ignored (nohup, a background job's SIGINT) stays
 * ignored; *old is what to put back either way. */
static int catch_unless_ignored(int sig, const struct sigaction *sa, struct sigaction *old)
{
	if (sigaction(sig, NULL, old) == 0 && !(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN)
		return 0;
	return sigaction(sig, sa, old) == 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A stop (SIGTSTP from another process: the keyboard's ctrl-z is a key in
 * raw mode) gives the terminal back first, then stops the process with the
 * default action; ncurses' own handler did the first part but could run on
 * the worker thread, and its continue left bracketed paste off once the
 * shell had turned it off, so a pasted line break then sent the prompt.
 * The stop is raised on this thread, so it takes effect before the handler
 * is put back; in an orphaned process group the kernel drops it and the
 * screen simply comes back.
 */
static void suspend_self(void)
{
	struct sigaction dfl, ours;
	sigset_t set, old;
	render_suspend();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, &ours);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	raise(SIGTSTP);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGTSTP, &ours, NULL);
	sig_cont = 1;	/* the screen is drawn again, whatever woke us */
}

static void wake(struct tui *t)
{
	ssize_t r = write(t->wake[1], "m", 1);
	(void)r;	/* a full pipe is already a pending wake-up */
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void msg_free(struct msg *m)
{
	free(m->text);
	free(m->tool);
	free(m->id);
	free(m->subject);
	free(m->input);
	free(m->q_subject);
	free(m->q_args);
	free(m->q_diff);
	free(m->q_whole);
	free(m);
}

/* Called with t->mu held. */
static void enqueue(struct tui *t, struct msg *m)
{
	if (t->tail)
		t->tail->next = m;
	else
		t->head = m;
	t->tail = m;
	t->qbytes += m->tlen + sizeof(*m);
}

/* ------------------------------------------------------------ worker side */

static void io_event(void *ud, const struct turn_event *ev)
{
	struct tui *t = ud;
	size_t len = ev->text ? (ev->kind == TEV_TEXT || ev->kind == TEV_THINKING) && ev->len ? ev->len
											       : strlen(ev->text)
			      : 0;
	pthread_mutex_lock(&t->mu);
	while (t->qbytes > TUI_QUEUE_MAX_BYTES && !t->quit)
		pthread_cond_wait(&t->cv, &t->mu);
	struct msg *last = t->tail;
	if ((ev->kind == TEV_TEXT || ev->kind == TEV_THINKING) && last && last->kind == M_EVENT &&
	    last->ev.kind == ev->kind && last->tlen + len < (1u << 20)) {
		/* merge with the delta still waiting to be drawn */
		if (last->tlen + len + 1 > last->tcap) {
			last->tcap = (last->tlen + len + 1) * 2;
			last->text = xrealloc(last->text, last->tcap);
		}
		memcpy(last->text + last->tlen, ev->text, len);
		last->tlen += len;
		last->text[last->tlen] = '\0';
		t->qbytes += len;
		pthread_mutex_unlock(&t->mu);
		return;
	}
	struct msg *m = xcalloc(1, sizeof(*m));
	m->kind = M_EVENT;
	m->ev = *ev;
	if (ev->text) {
		m->tcap = len + 1;
		m->text = xmalloc(m->tcap);
		memcpy(m->text, ev->text, len);
		m->text[len] = '\0';
		m->tlen = len;
	}
	m->tool = dup_or_null(ev->tool);
	m->id = dup_or_null(ev->id);
	m->subject = dup_or_null(ev->subject);
	m->input = dup_or_null(ev->input);
	enqueue(t, m);
	pthread_mutex_unlock(&t->mu);
	wake(t);
}

static enum approval_answer io_ask(void *ud, const struct approval_question *q, char **reason)
{
	struct tui *t = ud;
	struct msg *m = xcalloc(1, sizeof(*m));
	enum approval_answer a;

	if (reason)
		*reason = NULL;
	m->kind = M_QUESTION;
	m->tool = dup_or_null(q->tool);
	m->q_subject = dup_or_null(q->subject);
	m->q_args = dup_or_null(q->args);
	m->q_diff = dup_or_null(q->diff);
	m->q_whole = dup_or_null(q->whole);
	m->q_cut = q->cut;
	pthread_mutex_lock(&t->mu);
	if (t->quit) {
		pthread_mutex_unlock(&t->mu);
		msg_free(m);
		return APPROVE_ABORT;
	}
	t->asking = 1;
	t->answered = 0;
	enqueue(t, m);
	wake(t);
	while (!t->answered)
		pthread_cond_wait(&t->cv, &t->mu);
	a = t->ans;
	if (reason)
		*reason = t->reason;
	else
		free(t->reason);
	t->reason = NULL;
	t->asking = 0;
	pthread_mutex_unlock(&t->mu);
	return a;
}

static void *worker_main(void *arg)
{
	struct tui *t = arg;
	pthread_mutex_lock(&t->mu);
	for (;;) {
		while (!t->prompt && !t->quit)
			pthread_cond_wait(&t->cv, &t->mu);
		if (t->quit)
			break;
		char *p = t->prompt;
		t->prompt = NULL;
		t->worker_busy = 1;
		pthread_mutex_unlock(&t->mu);

		struct turn_io io = { io_event, io_ask, t, &t->stop };
		struct turn_outcome out = { 0 };
		t->drv.turn(t->drv.ud, p, &io, &out);
		free(p);

		struct msg *m = xcalloc(1, sizeof(*m));
		m->kind = M_DONE;
		m->out = out;
		m->text = dup_or_null(out.stop_reason);
		m->out.stop_reason = NULL;
		pthread_mutex_lock(&t->mu);
		t->worker_busy = 0;
		enqueue(t, m);
		wake(t);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

/* ------------------------------------------------------------ screen side */

static void answer(struct tui *t, enum approval_answer a, char *reason)
{
	pthread_mutex_lock(&t->mu);
	if (t->asking && !t->answered) {
		t->ans = a;
		t->reason = reason;
		reason = NULL;
		t->answered = 1;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	free(reason);
}

/* Apply the queued messages to the model; 1 if a question arrived. */
static int drain(struct tui *t, struct tui_model *m, uint64_t now, int *done, int *last_exit)
{
	struct msg *list;
	int asked = 0;

	pthread_mutex_lock(&t->mu);
	list = t->head;
	t->head = t->tail = NULL;
	t->qbytes = 0;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);

	while (list) {
		struct msg *x = list;
		list = x->next;
		switch (x->kind) {
		case M_EVENT:
			x->ev.text = x->text;
			x->ev.len = x->tlen;
			x->ev.tool = x->tool;
			x->ev.id = x->id;
			x->ev.subject = x->subject;
			x->ev.input = x->input;
			tui_model_event(m, &x->ev, now);
			break;
		case M_QUESTION: {
			struct approval_question q = { x->tool, x->q_subject, x->q_args, x->q_diff, x->q_whole, x->q_cut };
			/* refused on a pane too small for it: under the keys
			 * of someone typing on, as when the pane shrinks */
			if (tui_model_question_arrived(m, &q, now_ms()))
				asked = 1;
			else
				answer(t, APPROVE_ABORT, NULL);
			break;
		}
		case M_DONE:
			tui_model_turn_done(m);
			*last_exit = x->out.exit_code;
			*done = 1;
			break;
		}
		msg_free(x);
	}
	return asked;
}

static void send_prompt(struct tui *t, char *p)
{
	pthread_mutex_lock(&t->mu);
	free(t->prompt);
	t->prompt = p;
	t->stop = 0;
	t->worker_busy = 1;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static int worker_idle(struct tui *t)
{
	pthread_mutex_lock(&t->mu);
	int idle = !t->worker_busy && !t->prompt;
	pthread_mutex_unlock(&t->mu);
	return idle;
}

int tui_run(const struct tui_config *c, char **transcript, int *last_exit, char **err)
{
	struct tui t;
	struct tui_model m;
	struct tui_frame f = { 0 };
	struct sigaction sa, old_winch, old_hup, old_term, old_int, old_tstp, old_cont;
	pthread_t th;
	int w, h, rc = TUI_END_QUIT, quitting = 0, dirty = 1, force = 1;
	uint64_t last_draw = 0, last_tick = 0, last_key = 0;

	*transcript = NULL;
	*last_exit = 0;
	memset(&t, 0, sizeof(t));
	pthread_mutex_init(&t.mu, NULL);
	pthread_cond_init(&t.cv, NULL);
	t.drv = c->drv;
	/* widths come from wcwidth(): a UTF-8 LC_CTYPE is needed.  With no
	 * locale configured at all (C/POSIX, common in containers) assume the
	 * terminal speaks UTF-8; a chosen non-UTF-8 locale gets ASCII glyphs */
	setlocale(LC_ALL, "");
	int ascii = utf8_term_charset_init(1);	/* util/utf8.h */
	if (pipe2(t.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		*err = xasprintf("cannot create the screen's wake-up pipe: %s", strerror(errno));
		return -1;
	}
	if (render_init(!c->skip_home_terminfo, ascii, err) < 0) {
		close(t.wake[0]);
		close(t.wake[1]);
		return -1;
	}
	/* our handlers replace ncurses' SIGWINCH one: it may run on the
	 * worker thread, so it only flags and wakes the screen thread */
	sig_fd = t.wake[1];
	sig_winch = sig_end = sig_tstp = sig_cont = 0;
	end_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, &old_winch);
	int hup_ours = catch_unless_ignored(SIGHUP, &sa, &old_hup);
	catch_unless_ignored(SIGTERM, &sa, &old_term);
	catch_unless_ignored(SIGINT, &sa, &old_int);
	sigaction(SIGTSTP, &sa, &old_tstp);
	sigaction(SIGCONT, &sa, &old_cont);

	render_size(&w, &h);
	tui_model_init(&m, w, h, ascii);
	tui_model_set_info(&m, c->model, c->grants, c->net, c->tools);
	if (c->banner)
		tui_model_note(&m, TL_NOTE, c->banner);
	if (c->history) {
		tui_replay(&m, c->history);
		if (c->resumed)
			tui_model_note(&m, TL_NOTE, c->resumed);
	}

	if (pthread_create(&th, NULL, worker_main, &t) != 0) {
		render_end();
		*err = xstrdup("cannot start the turn thread — the system is out of threads or memory");
		rc = -1;
		goto out_nothread;
	}

	for (;;) {
		uint64_t now = now_ms();
		int timeout = -1;
		if (dirty)
			timeout = now - last_draw >= TUI_FRAME_MS ? 0 : (int)(TUI_FRAME_MS - (now - last_draw));
		else if (m.busy)
			timeout = 250;
		/* keys read but not made keys yet (a paste read in bulk):
		 * the terminal may have nothing more to say */
		int pending = render_input_pending();
		if (pending)
			timeout = 0;
		struct pollfd p[2] = { { 0, POLLIN, 0 }, { t.wake[0], POLLIN, 0 } };
		int pr = poll(p, 2, timeout);
		if (pr < 0 && errno != EINTR) {
			rc = TUI_END_HANGUP;
			break;
		}
		now = now_ms();
		if (pr > 0 && (p[1].revents & POLLIN)) {
			char buf[256];
			while (read(t.wake[0], buf, sizeof(buf)) > 0)
				;
		}
		/* A terminal that hangs up both sends SIGHUP and ends the
		 * keyboard (POLLHUP), in an order that is a race: either one
		 * is the same hang-up, so the outcome does not depend on
		 * which this loop sees first.  (With SIGHUP left ignored by
		 * the caller, nohup, the keyboard's end is only the terminal
		 * failing: exit 3 below.) */
		int hup = hup_ours && pr > 0 && (p[0].revents & POLLHUP);
		if (sig_end || hup) {
			int sig = sig_end ? sig_end : SIGHUP;
			/* A hang-up with a question waiting: nobody is left to
			 * answer it (exit 3).  Otherwise sandbx ends by the
			 * signal, once the screen is given back. */
			pthread_mutex_lock(&t.mu);
			int waiting = (t.asking && !t.answered) || m.q != TQ_NONE;
			pthread_mutex_unlock(&t.mu);
			if (sig == SIGHUP && waiting) {
				rc = TUI_END_HANGUP;
			} else {
				rc = TUI_END_SIGNAL;
				end_signal = sig;
			}
			/* a bash call it kills says by which signal (tools.h):
			 * it is not the user's cancel */
			if (!t.stop)
				t.stop = TOOL_STOP_SIGNAL(sig);
			break;
		}
		if (pr > 0 && (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))) {
			rc = TUI_END_HANGUP;
			break;
		}
		if (sig_tstp) {
			sig_tstp = 0;
			suspend_self();
		}
		int redrawn = 0;
		if (sig_cont) {
			sig_cont = 0;
			render_resume();
			/* the question was off the screen (the shell had it) or
			 * frozen: what was typed meanwhile, "fg" Enter y, is
			 * typeahead, thrown away as when it was first drawn */
			redrawn = m.q == TQ_ASK;
			sig_winch = 1;	/* the size may have changed meanwhile */
			force = dirty = 1;
		}
		if (sig_winch) {
			sig_winch = 0;
			render_resize(&w, &h);
			tui_model_resize(&m, w, h);
			force = dirty = 1;
			if (m.q != TQ_NONE && !tui_model_question_fits(&m)) {
				tui_model_question_lost(&m, now_ms());
				answer(&t, APPROVE_ABORT, NULL);
			}
		}
		int done = 0;
		int asked = drain(&t, &m, now, &done, last_exit);
		if (asked || done)
			dirty = 1;
		if (done && quitting && worker_idle(&t))
			break;
		if (m.busy && now - last_tick >= 250) {
			tui_model_tick(&m, now);
			last_tick = now;
			dirty = 1;
		}
		if (asked || (redrawn && m.q == TQ_ASK)) {
			/* keys typed before the question was on screen must not
			 * answer it */
			tui_model_frame(&m, &f);
			render_frame(&f, force);
			force = dirty = 0;
			last_draw = now;
			/* What the flush cuts (a paste, a key sequence) may go on
			 * arriving: its tail is a burst, not an answer (keys.h).
			 * A paste's end marker may be among what is thrown away. */
			int discarded = m.paste || render_input_waiting();
			render_flush_input();
			m.paste = 0;
			/* Someone typing (the next prompt, a second y for the
			 * question before) when it appeared: the next key is
			 * the flow of that typing, some 100-200 ms on, not an
			 * answer to a question not yet read; the "a" of "can
			 * you also" answered "always allow". */
			uint64_t drawn = now_ms();
			if (last_key && drawn - last_key < APPROVE_RECOVER_MS)
				discarded = 1;
			m.qquiet = drawn + (discarded ? APPROVE_RECOVER_MS : APPROVE_QUIET_MS);
			m.qtold = 0;
		} else if (pending || (pr > 0 && (p[0].revents & POLLIN))) {
			struct tui_key k;
			int keys = 0;
			while (keys < 4096 && render_key(&k, m.paste)) {
				struct tui_act a;
				keys++;
				k.ms = now_ms();
				if (k.code != TK_NONE && k.code != TK_RESIZE)
					last_key = k.ms;
				if ((m.q == TQ_ASK && k.code == TK_CHAR) || k.code == TK_PASTE_END || m.paste == 2)
					k.burst = render_input_waiting();
				if (k.code == TK_RESIZE) {
					render_resize(&w, &h);
					tui_model_resize(&m, w, h);
					force = 1;
				}
				tui_keys_apply(&m, &k, &a);
				switch (a.act) {
				case TACT_SEND:
					tui_model_user(&m, a.prompt, now);
					send_prompt(&t, a.prompt);
					a.prompt = NULL;	/* the worker's now */
					break;
				case TACT_QUIT:
					quitting = 1;
					t.stop = 1;
					answer(&t, APPROVE_NO, NULL);
					break;
				case TACT_STOP:
					t.stop = 1;
					tui_model_note(&m, TL_NOTE, "stopping the turn");
					break;
				case TACT_ANSWER:
					if (a.stop)
						t.stop = 1;
					tui_model_question_end(&m);
					answer(&t, a.answer, a.reason);
					a.reason = NULL;
					break;
				case TACT_REDRAW:
					force = 1;
					break;
				default:
					break;
				}
				free(a.prompt);
				free(a.reason);
			}
			dirty = 1;
			/* keys draw at once; a paste still coming in at the
			 * frame rate (each frame lays out the whole box) */
			if (keys && m.paste != 1)
				last_draw = 0;
		}
		if (quitting && worker_idle(&t) && !m.busy)
			break;
		if (dirty && (force || now - last_draw >= TUI_FRAME_MS)) {
			tui_model_frame(&m, &f);
			render_frame(&f, force);
			force = dirty = 0;
			last_draw = now;
		}
	}

	/* leave: stop the turn, refuse a waiting question, let the worker go */
	pthread_mutex_lock(&t.mu);
	t.quit = 1;
	if (!t.stop)	/* a signal's value above stays: tools.h */
		t.stop = rc == TUI_END_HANGUP ? TOOL_STOP_TERMINAL : 1;
	if (t.asking && !t.answered) {
		t.ans = rc == TUI_END_HANGUP ? APPROVE_ABORT : APPROVE_NO;
		t.answered = 1;
	}
	pthread_cond_broadcast(&t.cv);
	pthread_mutex_unlock(&t.mu);
	pthread_join(th, NULL);
	{
		int done = 0;
		drain(&t, &m, now_ms(), &done, last_exit);
	}
	render_end();
out_nothread:
	sigaction(SIGWINCH, &old_winch, NULL);
	if (hup_ours && (rc == TUI_END_HANGUP || (rc == TUI_END_SIGNAL && end_signal == SIGHUP))) {
		/* The hang-up is being answered: the SIGHUP that follows the
		 * keyboard's end (or a second one) is the same, and must not
		 * turn an exit 3 into a death by SIGHUP while the session is
		 * stored.  The caller raises SIGHUP itself when it ends so. */
		struct sigaction ign = { .sa_handler = SIG_IGN };
		sigemptyset(&ign.sa_mask);
		sigaction(SIGHUP, &ign, NULL);
	} else {
		sigaction(SIGHUP, &old_hup, NULL);
	}
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTSTP, &old_tstp, NULL);
	sigaction(SIGCONT, &old_cont, NULL);
	sig_fd = -1;
	if (rc >= 0)
		*transcript = tui_model_transcript(&m);
	tui_model_release(&m);
	tui_frame_release(&f);
	free(t.prompt);
	free(t.reason);
	close(t.wake[0]);
	close(t.wake[1]);
	pthread_mutex_destroy(&t.mu);
	pthread_cond_destroy(&t.cv);
	return rc;
}
