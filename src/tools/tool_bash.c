/*
 * tool_bash.c — bash: /bin/sh -c COMMAND in the sandbox helper with the
 * session's policy; stdout and stderr captured through pipes, stdin an
 * empty pipe, killed (with its whole pid namespace) at the timeout or when
 * the stop flag is set.
 *
 * Why not sandbox_wait(): it blocks on the audit channel alone, and a
 * command writing more than a pipe's worth would then stall until the
 * timeout.  This loop polls the audit channel and both output pipes
 * together; it reads the channel's fixed-size records (auditch.h) the way
 * sandbox.c does and maps the outcome to the same codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "sandbox/helper.h"
#include "sandbox/limits.h"
#include "tools/tools_int.h"
#include "util/log.h"

/* stderr's share of the output; stdout gets the rest of TOOLS_MAX_OUTPUT. */
#define BASH_MAX_STDERR (64u * 1024)
/* How often the stop flag is looked at while the command runs, ms. */
#define BASH_STOP_POLL_MS 50

struct capture {
	char *buf;
	size_t len, max;
	uint64_t total;
	int fd;		/* -1 once at EOF */
};


static void cap_read(struct capture *k)
{
	char tmp[16384];
	for (;;) {
		ssize_t r = read(k->fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			close(k->fd);
			k->fd = -1;
			return;
		}
		k->total += (uint64_t)r;
		size_t room = k->max - k->len, n = (size_t)r < room ? (size_t)r : room;
		memcpy(k->buf + k->len, tmp, n);
		k->len += n;
	}
}

static void cap_show(struct tout *o, const char *label, const struct capture *k)
{
	if (k->total == 0)
		return;
	if (label)
		tout_note(o, "[%s]\n", label);
	/* What is shown, NULs written \x00, stays within the cap: as many
	 * of the captured bytes as fit once written so. */
	size_t shown = 0, vis = 0;
	while (shown < k->len && vis + (k->buf[shown] ? 1 : 4) <= k->max)
		vis += k->buf[shown++] ? 1 : 4;
	if (shown) {
		char *s = tools_nul_visible(k->buf, shown);
		tout_force(o, s);
		free(s);
		if (k->buf[shown - 1] != '\n')
			tout_force(o, "\n");
	}
	if (k->total > shown)
		tout_note(o, "[%s cut: showing the first %zu of %llu bytes]\n", label ? label : "stdout", shown,
			  (unsigned long long)k->total);
}

int tool_bash_run(const struct tool_ctx *c, const cJSON *in, struct tool_result *out)
{
	const char *cmd = tin_str(in, "command");
	uint64_t secs = tin_uint(in, "timeout", TOOLS_BASH_TIMEOUT);
	struct capture ko = { .max = TOOLS_MAX_OUTPUT - BASH_MAX_STDERR }, ke = { .max = BASH_MAX_STDERR };
	struct sandbox_result oc = { 0 };
	char *err = NULL;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pi[2] = { -1, -1 };

	if (!*cmd)
		return tool_fail(out, "command is empty — give a shell command");
	if (secs == 0)
		secs = TOOLS_BASH_TIMEOUT;
	if (secs > TOOLS_BASH_MAX_TIMEOUT)
		secs = TOOLS_BASH_MAX_TIMEOUT;
	/* Standard input is a pipe whose write end is closed at once: end of
	 * input, as /dev/null gives, but nothing of the host's.  The host's
	 * /dev/null, reached again through /proc/self/fd/0, is the inode
	 * itself on the host's /dev mount: a command run as root could chmod
	 * it (000: every other user's writes to /dev/null fail), and no
	 * sandbox-run is there to put it back. */
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(pi, O_CLOEXEC) < 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
			if (pi[i] >= 0)
				close(pi[i]);
		}
		return tool_fail(out, "cannot set up the command's pipes: %s", strerror(e));
	}
	close(pi[1]);
	char *argv[] = { xstrdup("/bin/sh"), xstrdup("-c"), xstrdup(cmd), NULL };
	struct sandbox_spawn s = { .policy = c->policy, .argv = argv, .pin_fd = -1,
				   .stdio = { pi[0], po[1], pe[1] }, .env_value = c->env_value,
				   .filter_cache = c->filter_cache };
	/* a SIGTERM, SIGHUP or SIGINT that would end sandbx ends the call
	 * first, and is recorded (helper.h) */
	struct sandbox_sigs held;
	sandbox_sigs_hold(&held);
	char *paths = policy_describe_paths(c->policy), *net = policy_describe_net(c->policy);
	audit(LOG_INFO, "spawned", "tool", "bash", "command", cmd, "paths", paths, "network", net, "cwd",
	      c->policy->cwd ? c->policy->cwd : "/", NULL);
	free(paths);
	free(net);
	int started = sandbox_start(&s, &err);
	close(pi[0]);
	close(po[1]);
	close(pe[1]);
	if (started < 0) {
		int sig = sandbox_sigs_caught();
		char cs[16];
		snprintf(cs, sizeof(cs), "%d", sig ? 128 + sig : 125);
		audit(LOG_INFO, "refused", "tool", "bash", "mechanism", "helper", "reason", err, NULL);
		audit(LOG_INFO, "exited", "tool", "bash", "command", cmd, "code", cs, sig ? "stopped" : NULL,
		      sandbox_sig_name(sig), NULL);
		sandbox_sigs_release(&held);
		close(po[0]);
		close(pe[0]);
		for (int i = 0; argv[i]; i++)
			free(argv[i]);
		return tool_fail_own(out, err);
	}
	ko.fd = po[0];
	ke.fd = pe[0];
	ko.buf = xmalloc(ko.max);
	ke.buf = xmalloc(ke.max);
	fcntl(ko.fd, F_SETFL, O_NONBLOCK);
	fcntl(ke.fd, F_SETFL, O_NONBLOCK);

	long deadline = mono_ms() + (long)secs * 1000, drain_until = -1;
	int killed = 0, timed_out = 0, cancelled = 0, stopped_by = 0, sig_killed = 0, lost = 0, st = 0;
	char rbuf[sizeof(struct auditch_rec) * 16];
	size_t have = 0;
	while (s.audit_fd >= 0 || ko.fd >= 0 || ke.fd >= 0) {
		struct pollfd pf[5] = { { .fd = s.audit_fd, .events = POLLIN }, { .fd = ko.fd, .events = POLLIN },
					{ .fd = ke.fd, .events = POLLIN },
					{ .fd = killed ? -1 : sandbox_sigs_fd(), .events = POLLIN },
					{ .fd = sandbox_nschild_fd(&s), .events = POLLIN } };
		long t = mono_ms();
		int wait = BASH_STOP_POLL_MS;
		if (!killed && deadline - t < wait)
			wait = deadline - t < 0 ? 0 : (int)(deadline - t);
		int n = poll(pf, 5, wait);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && pf[4].revents)
			sandbox_nschild_reap(&s);
		if (n > 0 && pf[0].revents) {
			ssize_t r = read(s.audit_fd, rbuf + have, sizeof(rbuf) - have);
			if (r > 0) {
				have += (size_t)r;
				size_t off = 0;
				while (have - off >= sizeof(struct auditch_rec)) {
					struct auditch_rec rec;
					memcpy(&rec, rbuf + off, sizeof(rec));
					sandbox_take_record(&s, &rec, &oc, 1);
					off += sizeof(rec);
				}
				memmove(rbuf, rbuf + off, have - off);
				have -= off;
			} else if (r == 0 || errno != EINTR) {
				close(s.audit_fd);	/* every stage exited or exec'd */
				s.audit_fd = -1;
			}
		}
		if (n > 0 && pf[1].revents)
			cap_read(&ko);
		if (n > 0 && pf[2].revents)
			cap_read(&ke);
		t = mono_ms();
		if (!killed && (stopped_by = sandbox_sigs_caught())) {
			sig_killed = killed = 1;
		} else if (!killed && tool_stopped(c)) {
			/* the user's stop, or a signal the caller caught
			 * (tools.h, TOOL_STOP_SIGNAL): only the first is a cancel */
			int v = *c->stop;
			killed = 1;
			if (v > TOOL_STOP_SIGNAL(0) && v < TOOL_STOP_SIGNAL(65))
				stopped_by = v - TOOL_STOP_SIGNAL(0), sig_killed = 1;
			else if (v == TOOL_STOP_TERMINAL)
				lost = 1;
			else
				cancelled = 1;
		} else if (!killed && t >= deadline) {
			timed_out = killed = 1;
		}
		if (killed && drain_until < 0) {
			/* SIGTERM, not SIGKILL: the supervisor kills the init
			 * and exits only once the sandbox's pid namespace is
			 * empty (helper.c, on_term), closing its end of the
			 * audit channel last.  A killed supervisor closed it
			 * at once, and this call returned while the command's
			 * processes still ran. */
			kill(s.pid, SIGTERM);
			drain_until = t + TOOLS_BASH_DRAIN_MS;
		}
		if (s.audit_fd < 0 && drain_until < 0)
			drain_until = t + TOOLS_BASH_DRAIN_MS;	/* the stages are gone */
		if (drain_until >= 0 && t >= drain_until) {
			if (killed && s.audit_fd >= 0)
				kill(s.pid, SIGKILL);	/* it did not end the run */
			break;	/* a writer outlived the kill: stop waiting for EOF */
		}
	}
	if (s.audit_fd >= 0)
		close(s.audit_fd);
	if (ko.fd >= 0)
		close(ko.fd);
	if (ke.fd >= 0)
		close(ke.fd);
	while (waitpid(s.pid, &st, 0) < 0 && errno == EINTR)
		;
	sandbox_nschild_reap(&s);
	for (int i = 0; argv[i]; i++)
		free(argv[i]);

	/* a signal that came after the command ended still ends sandbx */
	if (!stopped_by)
		stopped_by = sandbox_sigs_caught();
	int code = stopped_by ? 128 + stopped_by : timed_out ? 124 : oc.refused ? 125 :
		   WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
	char cs[16];
	snprintf(cs, sizeof(cs), "%d", code);
	/* a refusal's record comes before the exited one, as in sandbox-run */
	char *refusal = !cancelled && !sig_killed && !lost && oc.refused ? sandbox_refusal_message(c->policy, oc.refusal, oc.refusal_arg) : NULL;
	if (refusal)
		audit(LOG_INFO, "refused", "tool", "bash", "mechanism", auditch_name(oc.refusal), "reason", refusal, NULL);
	if (timed_out && !stopped_by) {	/* as sandbox-run's --timeout */
		char t[32];
		snprintf(t, sizeof(t), "%llus", (unsigned long long)secs);
		audit(LOG_INFO, "timeout", "tool", "bash", "command", cmd, "after", t, NULL);
	}
	/* why the command was killed: a signal to sandbx, or the user's stop
	 * (the screen's stop key, an interrupt of `sandbx tool`) */
	audit(LOG_INFO, "exited", "tool", "bash", "command", cmd, "code", cs,
	      stopped_by || cancelled || lost ? "stopped" : NULL,
	      stopped_by ? sandbox_sig_name(stopped_by) : lost ? "terminal-lost" : "cancelled", NULL);
	sandbox_sigs_release(&held);	/* ends sandbx by that signal, if one came */
	struct tout o;
	tout_init(&o, TOOLS_MAX_OUTPUT);
	int rc;
	if (refusal) {
		rc = tool_fail(out, "the sandbox refused to run the command: %s", refusal);
		free(refusal);
	} else if (oc.exec_errno && !cancelled && !sig_killed && !lost) {
		rc = tool_fail(out, "cannot run /bin/sh in the sandbox: %s — the policy must grant /bin and /usr "
			       "read+exec", strerror(oc.exec_errno));
	} else {
		cap_show(&o, NULL, &ko);
		cap_show(&o, "stderr", &ke);
		if (ko.total == 0 && ke.total == 0)
			tout_force(&o, "(no output)\n");
		/* A stopped call keeps what it printed, as a timed-out one
		 * does: the model and the session see how far it got. */
		if (timed_out)
			tout_note(&o, "[killed after the timeout of %llu s, with everything it started]\n",
				  (unsigned long long)secs);
		else if (cancelled)
			tout_note(&o, "[cancelled: the user stopped the command; it was killed with everything it started]\n");
		else if (lost)
			tout_note(&o, "[killed: the terminal went away, with everything the command started]\n");
		else if (sig_killed)
			tout_note(&o, "[killed: sandbx got %s, with everything the command started]\n",
				  sandbox_sig_name(stopped_by));
		else if (oc.limit_hit) {
			char *m = limits_hit_message(c->policy, oc.limit_hit - 1);
			tout_note(&o, "[%s]\n", m);
			free(m);
		}
		tout_note(&o, "[exit status %d]\n", code);
		out->content = tout_detach(&o);
		rc = code == 0 && !cancelled && !sig_killed && !lost ? 0 : -1;
		out->is_error = rc < 0;
	}
	tout_release(&o);
	free(ko.buf);
	free(ke.buf);
	return rc;
}
