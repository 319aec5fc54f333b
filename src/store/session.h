/*
 * session.h — stored conversations: one JSON object per line in
 * $XDG_STATE_HOME/sandbx/sessions/<id>.jsonl, mode 0600, directories 0700.
 *
 * The file format (version 1), one record per line:
 *   {"type":"header","version":1,"id":"k3x9q2ma","created":1764432000}
 *   {"type":"message","role":"user","content":[{"type":"text","text":"..."}]}
 *   {"type":"message","role":"assistant","content":[
 *        {"type":"text","text":"..."},
 *        {"type":"tool_use","id":"toolu_1","name":"read","input":{...}}]}
 *   {"type":"message","role":"user","content":[
 *        {"type":"tool_result","tool_use_id":"toolu_1","content":"...","is_error":false}]}
 *   {"type":"turn","stop_reason":"end_turn","rounds":1,
 *        "usage":{"input_tokens":10,"output_tokens":20},"stopped":false,"turns":1}
 * Assistant messages may also hold thinking (thinking, signature) and
 * redacted_thinking (data) blocks, kept verbatim for replay.
 * The header comes first.  A user message holding text is a prompt (it
 * starts a turn); a user message holding tool_result blocks answers the
 * assistant message before it.  A "turn" record closes a turn; "stopped":true
 * (with a "note") marks a turn the user stopped: the rounds that finished are
 * kept, the round in progress was dropped whole, or, stopped among its
 * calls once one was answered, kept with each later call answered "not
 * run" (turn.h); "turns" counts the prompts
 * stored so far (absent in files of earlier sandbx versions).  Readers reject an unknown
 * version or record type (naming the line) and ignore unknown fields; the
 * history handed out for replay holds only the fields the API knows.
 *
 * Crash and disk-full safety: every round is appended with ONE write(2) of
 * whole lines (never a line split across writes) and fdatasync'ed.  A write
 * cut short by a full disk or RLIMIT_FSIZE is truncated back, so the file
 * keeps exactly the earlier lines.  On load, a last line without its newline
 * (or not JSON) is a torn append: dropped with a note, earlier lines kept;
 * one nested past cJSON's limit is damage wherever it is (no cut makes it).
 * A history that ends in an assistant tool_use without its tool_result
 * (the process died between two lines, after the calls ran) is repaired on
 * resume: a tool_result marked is_error ("result lost: ... the call may
 * have run") is appended for each missing id, in memory and in the file.  Consecutive messages of one
 * role (a stopped turn's tool results, then the next prompt) are merged in
 * the replay array, as the API wants the roles to alternate.  One writer
 * per session: resume and create hold an exclusive flock until close.  A
 * session file appears with its header or not at all (fsu_create_with); an
 * empty one an earlier sandbx left (killed between create and write) is
 * "unborn": listed as such, passed over by --continue with a note, kept.
 *
 * Life cycle (the agent loop):
 *   1. session_create(x, &s, &notes, &err)          new id, file 0600 linked in
 *                                                    with its header (never
 *                                                    clobbering, never empty)
 *      or session_resume(x, id, &s, &notes, &err)   ownership/mode checks,
 *                                                    load, repair
 *      or session_resume_latest(x, &s, ...)          --continue
 *   2. cJSON *msgs = session_take_history(s)         the Messages API
 *      "messages" array so far (caller owns; empty for a new session);
 *      session_resume_line(s) is the "resumed ... N turns" line for stderr
 *      (session_turns, session_cut_short give the parts)
 *   3. per finished round: session_append_round(s, prompt_or_NULL,
 *      assistant_msg, tool_results_msg_or_NULL, &err); the prompt is given
 *      with the first finished round of a turn only, so a turn stopped
 *      before its first round stores nothing
 *   4. at the end of a turn: session_end_turn(s, &end, &err)
 *   5. session_close(s)
 * Notes (struct strv) are lines for the user's stderr; the caller prints
 * them and frees them with strv_free.  Errors are malloc'd in *err.
 *
 * Listing: session_list() summarises every stored session for `sandbx
 * sessions`, most recently written first.  It reads what it shows: a file
 * up to SESSION_LIST_WHOLE whole; of a larger one the header and the first
 * prompt, and the last SESSION_LIST_TAIL bytes, whose last turn record
 * gives the count of turns (SESSION_TURNS_UNKNOWN when none is within
 * reach).  Damage in the middle of a large file is not seen by the listing;
 * resume reads the whole file and names it.
 *
 * The parser (session_parser_*) is pure and resumable: feed it the file in
 * slices of any size; it is what session_resume and the fuzz target use.
 */
#ifndef SBX_SESSION_H
#define SBX_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/cjson.h"

#include "store/xdg.h"
#include "util/util.h"

#define SESSION_VERSION 1
#define SESSION_ID_LEN 8		/* lowercase letters and digits */
#define SESSION_ID_MAX 64		/* what a file name may carry; the cli refuses a longer --session */
#define SESSION_TEMP_AGE 600		/* s: a create's temporary file older is a leftover */
#define SESSION_MAX_LINE (16u << 20)	/* one record line, newline included */
#define SESSION_MAX_FILE (512u << 20)	/* a whole session file */
#define SESSION_TITLE_MAX 72		/* first prompt line in listings, bytes */
#define SESSION_LIST_WHOLE (1u << 20)	/* the listing reads a file up to this size whole */
#define SESSION_LIST_HEAD (1u << 20)	/* ... of a larger one at most this much of its start */
#define SESSION_LIST_TAIL (64u << 10)	/* ... and this much of its end */
#define SESSION_UNBORN_MAX 4096	/* a file without a line, shorter: a header never written */
#define SESSION_TURNS_UNKNOWN (-1)	/* session_info.turns the listing could not count */

/* ---- the pure, resumable parser ---- */

enum session_parse_flags {
	SESSION_PARSE_SUMMARY = 1 << 0,	/* keep no messages: listing only */
};

struct session_parser;

/* What a parse found; strings owned by the parser (or the list). */
struct session_info {
	char id[SESSION_ID_MAX + 1];
	int64_t created;		/* header's unix time */
	int64_t mtime;			/* file's last write (listing) */
	long mtime_ns;			/* ... its nanoseconds, for the order */
	char *first_prompt;		/* first line of the first prompt, cut; NULL if none */
	int turns;			/* prompts stored, or SESSION_TURNS_UNKNOWN (listing) */
	int cut_short;			/* last turn stopped, unfinished, torn or repaired */
	int unborn;			/* no complete line, under SESSION_UNBORN_MAX bytes: a
					 * create cut short (by an earlier sandbx), no conversation */
	char *error;			/* listing: why this file could not be read, else NULL */
};

struct session_parser *session_parser_new(unsigned flags);
/* Feed n bytes; 0, or -1 once the parse failed (sticky; see _error). */
int session_parser_feed(struct session_parser *p, const char *buf, size_t n);
/* End of input: handles a torn last line and checks tool_use pairing.  0 or -1. */
int session_parser_finish(struct session_parser *p);
/* The failure, "line N: ...", or NULL. */
const char *session_parser_error(const struct session_parser *p);
const struct session_info *session_parser_info(const struct session_parser *p);
/* Notes for the user (torn line dropped, ...); owned by the parser. */
const struct strv *session_parser_notes(const struct session_parser *p);
/* Byte offset just past the last line kept (a torn tail starts here). */
uint64_t session_parser_good_end(const struct session_parser *p);
/* After finish: the replay array (caller owns); NULL in summary mode. */
cJSON *session_parser_take_messages(struct session_parser *p);
/* tool_use ids of the last assistant message that have no tool_result yet. */
const struct strv *session_parser_dangling(const struct session_parser *p);
void session_parser_free(struct session_parser *p);

/* 1 if s is a session id sandbx could have made or accepts on the CLI. */
int session_id_valid(const char *s);

/* ---- the store ---- */

struct session;

/* A new session: id printed by the caller.  0, or -1 with *err. */
int session_create(const struct xdg_paths *x, struct session **out, struct strv *notes, char **err);

/*
 * Resume session id.  Refused (-1, *err) when the file or its directories
 * are owned by another user, group/other-writable, a symlink, not a regular
 * file, the file has more than one hard link, or it does not parse; group/other-readable resumes with a
 * note.  A torn tail is cut off the file (noted); a dangling tool_use is
 * repaired (noted).  -ENOENT when no such session; -EBUSY when another
 * sandbx has it open (an exclusive flock is held until session_close).
 */
int session_resume(const struct xdg_paths *x, const char *id, struct session **out, struct strv *notes,
		   char **err);
/* Resume the most recently written session; -ENOENT (with *err) when none.
 * Files that are .unborn (an earlier sandbx killed while creating them)
 * are passed over with a note naming each, and kept. */
int session_resume_latest(const struct xdg_paths *x, struct session **out, struct strv *notes, char **err);

const char *session_id(const struct session *s);
const char *session_path(const struct session *s);
int session_turns(const struct session *s);
int session_cut_short(const struct session *s);
/* "resumed session 'ID': N turns loaded[, the last was cut short ...]"
 * for stderr (malloc'd), so agent-run and tui say it the same way. */
char *session_resume_line(const struct session *s);
/* The messages loaded (a cJSON array, caller owns, cJSON_Delete); once. */
cJSON *session_take_history(struct session *s);

/*
 * Append one finished round as whole lines in one write(2): the prompt (a
 * user text message; only with the first round of a turn, else NULL), the
 * assistant message ({"role":"assistant","content":[...]}) and, when the
 * assistant asked for tools, the user message carrying every tool_result.
 * The messages are validated like the loader does (what is written can be
 * read back).  On a full disk or a size limit the file is truncated back to
 * its earlier lines.  0, or -1 with *err (nothing of this round stored).
 */
int session_append_round(struct session *s, const char *prompt, const cJSON *assistant, const cJSON *results,
			 char **err);

struct session_turn_end {
	const char *stop_reason;	/* "end_turn", "max_rounds", "stopped", ... */
	int rounds;
	uint64_t input_tokens, output_tokens;
	int stopped;			/* the user stopped it (turn.h: what was kept) */
};
/* Close the turn with its record.  Nothing is written when no round of
 * this turn was stored (a stop before the first round stores nothing). */
int session_end_turn(struct session *s, const struct session_turn_end *end, char **err);

void session_close(struct session *s);

/* ---- listing ---- */

/*
 * Every readable session, most recently written first.  A file that does
 * not parse is listed with .error set.  0 with *out (caller frees with
 * session_list_free) and *n (0 when the store does not exist), or -1.
 */
int session_list(const struct xdg_paths *x, struct session_info **out, size_t *n, struct strv *notes,
		 char **err);
void session_list_free(struct session_info *v, size_t n);

#endif
