/*
 * turn.h — the agent's turn loop, shared by `agent-run` and `tui`.
 *
 * A turn is one user prompt and the rounds that follow: each round sends the
 * conversation to the model, folds the streamed answer, asks the gate about
 * each tool call, runs the approved ones and sends their results back, until
 * the model stops asking for tools, --max-rounds is reached, a stop is
 * requested, or an error ends it.
 *
 * Life cycle:
 *   1. struct agent_config cfg = {...};      from the CLI options
 *   2. agent_new(&cfg, &a, &err)             loads the key, opens or
 *                                            resumes the session, builds
 *                                            FsGuard and the tool table
 *   3. agent_turn(a, prompt, &io, &outcome)  as many times as wanted; the
 *                                            caller's callbacks see every
 *                                            event as it happens
 *   4. agent_free(a)
 *
 * Threads: agent_turn runs on the caller's thread and calls io callbacks on
 * it.  The TUI runs turns on a worker thread and forwards events to its
 * screen thread; io->ask blocks the worker until the screen thread answers.
 * io->stop (may be NULL) is polled by the provider, the tools and the bash
 * watcher; setting it ends the turn promptly (outcome stop_reason "stopped").
 *
 * What a turn leaves in the history (and the session, which holds the same):
 *   - each finished round;
 *   - a round stopped among its calls once one was answered (ran, was
 *     refused, or is the one stopped): kept, each call after the stop
 *     answered "not run", so the model does not forget calls that ran;
 *   - a round stopped before that, or cut by an error: dropped;
 *   - a turn that keeps no round (stopped or failed before its first
 *     finished round): nothing, its prompt included, so the next prompt
 *     (a retry of it too) is sent alone, as a resumed session has it.
 */
#ifndef SBX_TURN_H
#define SBX_TURN_H

#include <signal.h>
#include <stdint.h>

#include "sandbox/policy.h"

struct agent;

enum turn_event_kind {
	TEV_TEXT,		/* a text delta of the assistant (text, len) */
	TEV_THINKING,		/* a thinking delta (text, len) */
	TEV_TOOL_CALL,		/* the model asked for a tool (tool, id, subject, input) */
	TEV_TOOL_RESULT,	/* a tool finished (tool, id, text = content, is_error, elapsed_ms) */
	TEV_RETRY,		/* the provider will retry (text = "overloaded — retrying in 4 s, attempt 2 of 4") */
	TEV_NOTE,		/* a line for the user (text), e.g. "the turn was stopped" */
	TEV_ERROR,		/* the round failed (text = message) */
	TEV_ROUND_END,		/* a round finished (round, usage) */
	TEV_TURN_END,		/* the turn is over (text = stop reason, round, usage) */
};

struct turn_usage {
	uint64_t input_tokens;
	uint64_t output_tokens;
};

struct turn_event {
	enum turn_event_kind kind;
	const char *text;	/* NUL-terminated; len given for deltas */
	size_t len;
	const char *tool;	/* tool name */
	const char *id;		/* tool_use id */
	const char *subject;	/* path or command the call is about */
	const char *input;	/* the call's JSON input, compact */
	int is_error;
	uint64_t elapsed_ms;	/* TEV_TOOL_RESULT: the call's own time, its
				 * approval question's wait left out */
	int round;		/* 1-based */
	struct turn_usage usage;	/* cumulative for the turn */
};

enum approval_answer {
	APPROVE_NO = 0,		/* refuse this call (reason optional) */
	APPROVE_YES,		/* run this call */
	APPROVE_ALWAYS,		/* run this and every later call to this tool */
	APPROVE_ABORT,		/* nobody can answer: end the turn (exit 3) */
};

/*
 * An answer key counts only when it stands alone: not with more input
 * already waiting behind it, nor within this long of the question being
 * drawn (APPROVE_RECOVER_MS when input was thrown away then, or when a
 * key, the answer to the question before included, came in the
 * APPROVE_RECOVER_MS before it), nor within APPROVE_RECOVER_MS of a key
 * that was not taken.
 * A paste (bracketed or not), the tail of one whose start was thrown
 * away and the bytes of an escape sequence come as such bursts; a
 * person's key press does not.  Used by agent-run's terminal question
 * (gate.c) and the TUI's (keys.h).
 */
#define APPROVE_QUIET_MS 60
/* After a key that was not taken as an answer (a burst, a stray key, a
 * sequence's bytes), this long without input before the next answer: a
 * refusal typed too fast ("no", then a reason) must not leave the question
 * open to the first "a" or "y" of the reason. */
#define APPROVE_RECOVER_MS 500

/* What the gate asks about one write, edit or bash call. */
struct approval_question {
	const char *tool;
	const char *subject;	/* path or command, control/bidi chars made visible */
	const char *args;	/* the arguments, made visible, cut at 512 chars (cut marked) */
	const char *diff;	/* write/edit: unified diff of the change, or NULL */
	const char *whole;	/* the whole call (arguments and diff, made visible, up to
				   GATE_MAX_WHOLE bytes), for the user to see (v) */
	int cut;		/* args or diff above are cut: whole has more */
};

struct turn_io {
	void (*on_event)(void *ud, const struct turn_event *ev);
	/* NULL: no one to ask (every asking call is refused, turn ends, exit 3) */
	enum approval_answer (*ask)(void *ud, const struct approval_question *q, char **reason);
	void *ud;
	volatile sig_atomic_t *stop;
	/* optional: a network read ended; a good moment to flush what the
	 * text events printed (once per read, not once per delta) */
	void (*on_flush)(void *ud);
};

struct turn_outcome {
	/* "end_turn", "max_rounds", "max_tokens", "tool_use" (no call could run),
	 * "model_context_window_exceeded", "stopped", "error", "no_consent" */
	const char *stop_reason;
	int rounds;
	struct turn_usage usage;
	int is_error;
	int exit_code;			/* CLI.md: 0, 1, 2, 3 */
};

/* Built by the cli layer from struct cli_opts (see cli.h for defaults). */
struct agent_config {
	const struct policy *policy;	/* the session's policy (FsGuard and bash) */
	/* bash's command gets this value of a variable the policy passes
	 * (struct sandbox_spawn); NULL: the harness's own */
	const char *(*env_value)(const char *name);
	const char *filter_cache;	/* bash: struct sandbox_spawn's */
	const char *model;
	const char *base_url;		/* NULL: ANTHROPIC_BASE_URL or the public API */
	const char *system;		/* appended to the generated system prompt */
	uint64_t max_tokens;
	int max_rounds;
	int wrap_up;			/* one no-tools round after max_rounds */
	unsigned allowed_tools;		/* bit per tool (tools.h order) */
	int approve_call;		/* ask before write, edit, bash */
	const char *session_id;		/* resume this one; NULL: see new_session */
	int new_session;		/* start a new stored session */
	int resume_latest;		/* --continue */
	uint64_t max_scan_files, max_scan_bytes, max_results;
};

int agent_new(const struct agent_config *cfg, struct agent **out, char **err);
int agent_turn(struct agent *a, const char *prompt, const struct turn_io *io, struct turn_outcome *out);
const char *agent_session_id(const struct agent *a);
/* The model the requests name (--model, SANDBX_MODEL, or the default). */
const char *agent_model(const struct agent *a);
void agent_free(struct agent *a);

#endif
