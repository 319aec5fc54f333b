/*
 * tuifake — the real screen (tui_run) driven by a scripted turn instead of
 * the agent, for the tmux tests of the screen itself and for bench/tui.sh.
 *
 *   tuifake SCRIPT            exit 0 on quit, 3 on hang-up (as sandbx tui)
 *
 * SCRIPT: turns separated by lines "turn"; each line one step:
 *   text STRING          a text delta (\n and \t escapes)
 *   stream BYTES         BYTES of text in 100-byte deltas ("lorem " words)
 *   sleep MS             wait (a stop ends the turn)
 *   slowstop MS          wait for a stop, which ends the turn MS later (a
 *                        turn slow to stop: a command's tree being killed)
 *   call ID TOOL SUBJECT a tool call row
 *   result ID ok|error MS OUTPUT
 *   ask TOOL SUBJECT     an approval question; the answer is written to
 *                        $TUIFAKE_LOG and shown as a note
 *   askdiff N TOOL SUBJECT  the same with an N-line diff
 *   child SECS           run /bin/sleep SECS as a child, pid to $TUIFAKE_LOG;
 *                        a stop kills it (as the bash watcher does)
 *   note|retry|error STRING
 *   audit EVENT          an audit record (held while the screen is up)
 *   end REASON           TEV_TURN_END
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/gate.h"
#include "tui/tui.h"
#include "util/log.h"

static struct strv lines;
static size_t pos;

static void logline(const char *line)
{
	const char *p = getenv("TUIFAKE_LOG");
	if (!p)
		return;
	FILE *f = fopen(p, "ae");
	if (!f)
		return;
	fprintf(f, "%s\n", line);
	fclose(f);
}

static char *unescape(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *d = o;
	for (; *s; s++) {
		if (*s == '\\' && s[1] == 'n') {
			*d++ = '\n';
			s++;
		} else if (*s == '\\' && s[1] == 't') {
			*d++ = '\t';
			s++;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	return o;
}

static void emit(const struct turn_io *io, enum turn_event_kind k, const char *text)
{
	struct turn_event ev = { 0 };
	ev.kind = k;
	ev.text = text;
	ev.len = text ? strlen(text) : 0;
	io->on_event(io->ud, &ev);
}

/* 1 when stopped during the wait */
static int wait_ms(const struct turn_io *io, long ms)
{
	for (long i = 0; i < ms; i += 10) {
		if (io->stop && *io->stop)
			return 1;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return io->stop && *io->stop;
}

static int fake_turn(void *ud, const char *prompt, const struct turn_io *io, struct turn_outcome *out)
{
	struct turn_event ev;
	const char *reason = "end_turn";
	int stopped = 0;

	char *pl = xasprintf("prompt %s", prompt);
	logline(pl);
	free(pl);
	while (pos < lines.n && !stopped) {
		char *l = lines.v[pos++];
		char *arg = strchr(l, ' ');
		arg = arg ? arg + 1 : l + strlen(l);
		if (strcmp(l, "turn") == 0)
			break;
		if (strncmp(l, "text ", 5) == 0) {
			char *t = unescape(arg);
			emit(io, TEV_TEXT, t);
			free(t);
		} else if (strncmp(l, "stream ", 7) == 0) {
			long n = atol(arg);
			char chunk[101];
			for (int i = 0; i < 100; i++)
				chunk[i] = (i % 16 == 15) ? ' ' : "lorem ipsum dolor"[i % 16];
			chunk[99] = '\n';
			chunk[100] = '\0';
			for (long sent = 0; sent < n && !(io->stop && *io->stop); sent += 100)
				emit(io, TEV_TEXT, chunk);
		} else if (strncmp(l, "sleep ", 6) == 0) {
			stopped = wait_ms(io, atol(arg));
		} else if (strncmp(l, "slowstop ", 9) == 0) {
			long ms = atol(arg);
			stopped = wait_ms(io, 60000);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			if (stopped)
				nanosleep(&ts, NULL);
		} else if (strncmp(l, "call ", 5) == 0 || strncmp(l, "result ", 7) == 0) {
			char id[64], tool[64], st[16];
			long ms = 0;
			int n = 0;
			memset(&ev, 0, sizeof(ev));
			if (l[0] == 'c' && sscanf(arg, "%63s %63s %n", id, tool, &n) >= 2) {
				ev.kind = TEV_TOOL_CALL;
				ev.id = id;
				ev.tool = tool;
				ev.subject = arg + n;
				io->on_event(io->ud, &ev);
			} else if (l[0] == 'r' && sscanf(arg, "%63s %15s %ld %n", id, st, &ms, &n) >= 3) {
				char *t = unescape(arg + n);
				ev.kind = TEV_TOOL_RESULT;
				ev.id = id;
				ev.text = t;
				ev.is_error = strcmp(st, "ok") != 0;
				ev.elapsed_ms = (uint64_t)ms;
				io->on_event(io->ud, &ev);
				free(t);
			}
		} else if (strncmp(l, "ask ", 4) == 0 || strncmp(l, "askdiff ", 8) == 0) {
			char tool[64], *diff = NULL;
			int n = 0, nd = 0;
			if (l[3] == 'd') {
				nd = atoi(arg);
				arg = strchr(arg, ' ');
				arg = arg ? arg + 1 : l + strlen(l);
				diff = xstrdup("@@ -0,0 +1 @@\n");
				for (int i = 0; i < nd; i++) {
					char *d = xasprintf("%s+added line %d\n", diff, i + 1);
					free(diff);
					diff = d;
				}
			}
			if (sscanf(arg, "%63s %n", tool, &n) < 1)
				continue;
			char *whole = gate_whole(tool, "{\"command\":\"...\"}", diff);	/* as the agent does */
			struct approval_question q = { tool, arg + n, "{\"command\":\"...\"}", diff, whole, 0 };
			char *why = NULL;
			enum approval_answer a = io->ask(io->ud, &q, &why);
			free(whole);
			static const char *const names[] = { "no", "yes", "always", "abort" };
			char *note = xasprintf("answer: %s%s%s", names[a], why ? " reason=" : "", why ? why : "");
			logline(note);
			emit(io, TEV_NOTE, note);
			free(note);
			free(why);
			free(diff);
			if (a == APPROVE_ABORT) {
				reason = "no_consent";
				break;
			}
		} else if (strncmp(l, "child ", 6) == 0) {
			pid_t pid = fork();
			if (pid == 0) {
				execl("/bin/sleep", "sleep", arg, (char *)NULL);
				_exit(127);
			}
			char b[32];
			snprintf(b, sizeof(b), "child %d", (int)pid);
			logline(b);
			while (waitpid(pid, NULL, WNOHANG) == 0) {
				if (wait_ms(io, 20)) {
					kill(pid, SIGKILL);
					waitpid(pid, NULL, 0);
					stopped = 1;
					break;
				}
			}
		} else if (strncmp(l, "note ", 5) == 0) {
			emit(io, TEV_NOTE, arg);
		} else if (strncmp(l, "retry ", 6) == 0) {
			emit(io, TEV_RETRY, arg);
		} else if (strncmp(l, "error ", 6) == 0) {
			emit(io, TEV_ERROR, arg);
		} else if (strncmp(l, "audit ", 6) == 0) {
			audit(LOG_INFO, arg, "source", "tuifake", NULL);
		} else if (strncmp(l, "end ", 4) == 0) {
			static char reason_buf[64];
			snprintf(reason_buf, sizeof(reason_buf), "%s", arg);
			reason = reason_buf;
		}
	}
	if (stopped) {
		emit(io, TEV_NOTE, "the turn was stopped");
		reason = "stopped";
		logline("stopped");
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = TEV_TURN_END;
	ev.text = reason;
	ev.round = 1;
	ev.usage.input_tokens = 1200;
	ev.usage.output_tokens = 345;
	io->on_event(io->ud, &ev);
	out->stop_reason = reason;
	out->rounds = 1;
	out->exit_code = stopped ? 2 : 0;
	return 0;
}

int main(int argc, char **argv)
{
	char *err = NULL, *transcript = NULL, buf[8192];
	if (argc < 2) {
		fprintf(stderr, "usage: tuifake SCRIPT\n");
		return 64;
	}
	FILE *f = fopen(argv[1], "re");
	if (!f) {
		fprintf(stderr, "tuifake: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		strv_push(&lines, buf);
	}
	fclose(f);
	log_init();
	struct tui_config c = {
		.drv = { fake_turn, NULL },
		.model = "fake-model",
		.grants = "rw /work",
		.net = "denied",
		.tools = "read ls find grep bash",
		.banner = "tuifake: a scripted turn",
	};
	int held = isatty(2);
	if (held)
		log_hold(1);
	int last = 0;
	int r = tui_run(&c, &transcript, &last, &err);
	if (transcript) {
		fputs(transcript, stdout);
		free(transcript);
	}
	fflush(stdout);
	if (held)
		log_hold(0);
	strv_free(&lines);
	if (r < 0) {
		fprintf(stderr, "tuifake: %s\n", err);
		return 1;
	}
	if (r == TUI_END_SIGNAL) {	/* as cli_tui: ends by the signal */
		signal(tui_end_signal(), SIG_DFL);
		raise(tui_end_signal());
	}
	return r == TUI_END_HANGUP ? 3 : last;
}
