/*
 * credentials.h — the user's Anthropic API key.
 *
 * Where the key comes from, in order:
 *   1. ANTHROPIC_API_KEY in the environment (empty counts as unset);
 *   2. $XDG_CONFIG_HOME/sandbx/credentials.toml (else ~/.config/...), a tiny
 *      TOML subset: blank lines, # comments and one line
 *          api_key = "sk-ant-..."      (or 'sk-ant-...')
 *      nothing else (no tables, no other keys, escapes \" and \\ only).
 *
 * The file and its directory are sandbx's: owned by you, no group/other bit
 * at all.  Anything wider is refused with the path and mode named and the
 * advice to rotate the key (it may have been read) — never chmod'ed behind
 * the user's back.  `auth login` writes the file through a temporary file
 * created 0600, fsync'ed and renamed, in a directory created 0700 (or
 * narrowed to 0700, noted, since login is the user asking sandbx to keep a
 * key there).  A parse error names the line, never its content.
 *
 * A key is printable ASCII without spaces (it goes into an HTTP header: no
 * CR/LF can smuggle a second header), CRED_MIN_KEY to CRED_MAX_KEY bytes,
 * and not something pasted along with it: a header's name or "Bearer ",
 * quotes around it (cred_key_problem).  Every way a key comes in (auth
 * login, the file, the environment) and prov_new ask the same question.
 *
 * Ownership: every char * handed out is malloc'd; free a key with
 * cred_key_free (it wipes the memory first).
 *
 * Parser life cycle (pure, resumable; the fuzz target drives it):
 *   1. struct cred_parser p; cred_parser_init(&p);
 *   2. cred_parser_feed(&p, buf, n) any number of times, any slicing
 *   3. cred_parser_finish(&p)
 *   4. key = cred_parser_take_key(&p) (or read p.error)
 *   5. cred_parser_release(&p)   wipes the line buffer and any key left
 */
#ifndef SBX_CREDENTIALS_H
#define SBX_CREDENTIALS_H

#include <stddef.h>

#include "store/xdg.h"
#include "util/util.h"

#define CRED_ENV "ANTHROPIC_API_KEY"
#define CRED_MAX_LINE 4096		/* one line of credentials.toml */
#define CRED_MAX_KEY 1024		/* an API key, bytes */
/* Anthropic's keys are about 100 bytes; a shorter value is a slip (one
 * letter pasted, a placeholder).  A local proxy that takes any key needs
 * one of at least this many bytes too. */
#define CRED_MIN_KEY 6
#define CRED_MAX_FILE 65536		/* credentials.toml */
/* What to do about a refused ANTHROPIC_API_KEY (after " — "). */
#define CRED_ENV_FIX "set it to the key alone, or unset it to use the key 'sandbx auth login' stored"

struct cred_parser {
	char line[CRED_MAX_LINE + 1];
	size_t len;
	unsigned lineno;		/* lines ended so far */
	int overlong;			/* the current line passed CRED_MAX_LINE */
	int failed;
	char *error;			/* "line N: ..." (never the content) */
	char *key;			/* the api_key value once seen */
};

void cred_parser_init(struct cred_parser *p);
/* 0, or -1 once failed (sticky, p->error). */
int cred_parser_feed(struct cred_parser *p, const char *buf, size_t n);
/* A last line without newline is parsed too.  0, or -1 (also: no api_key). */
int cred_parser_finish(struct cred_parser *p);
char *cred_parser_take_key(struct cred_parser *p);
void cred_parser_release(struct cred_parser *p);

/*
 * NULL when key has the shape of an API key, else why not, as a fixed
 * phrase that never quotes the key ("it is shorter than 6 bytes", "it
 * begins with 'Bearer '..."): the caller says whose value it was and what
 * to do.  Refused: empty, under CRED_MIN_KEY or over CRED_MAX_KEY bytes, a
 * space or control byte anywhere, a byte that is not ASCII, a leading
 * "Bearer ", "x-api-key:" or "Authorization:" (any case), a quote mark at
 * either end.
 */
const char *cred_key_problem(const char *key);
/* 1 when cred_key_problem(key) is NULL. */
int cred_key_valid(const char *key);
/* Wipe and free. */
void cred_key_free(char *key);

/*
 * The key the agent should use: the environment first, else the file.
 * 0 with *key (cred_key_free) and *source ("the environment (ANTHROPIC_API_KEY)"
 * or the file's path; free()).  -ENOENT with *err when neither holds one;
 * -EPERM when the file or directory is unsafe (another owner, a
 * group/other bit, a symlink); -EINVAL when it does not parse or the
 * environment's value is not a key; -1 on other errors.
 */
int cred_load_api_key(char **key, char **source, char **err);

/* The same with explicit paths, for tests and auth status. */
int cred_load_file(const struct xdg_paths *x, char **key, char **err);

/*
 * Store key in the credential file (auth login): directories created 0700,
 * sandbx's own config directory narrowed to 0700 when wider (noted), the
 * file replaced atomically with mode 0600; temporary copies an interrupted
 * login left beside it are removed (noted).  Refused when the credential
 * file has more than one hard link (the key would stay under the others,
 * unguarded).  0 or -1 with *err; also when the key is in place but its
 * directory could not be synced to disk, which *err then says.
 */
int cred_store_key(const struct xdg_paths *x, const char *key, struct strv *notes, char **err);

/*
 * Remove the credential file (auth logout), whatever its mode, and the
 * temporary copies an interrupted login left beside it.  0 with *removed 1
 * (or 0 when there was none) and *leftovers the number of temporary
 * copies removed, or -1 with *err (also when the file has more than one
 * hard link, as for cred_store_key, and when what went is gone but the
 * directory could not be synced to disk: *removed is 1 then).
 */
int cred_remove(const struct xdg_paths *x, int *removed, int *leftovers, char **err);

#endif
