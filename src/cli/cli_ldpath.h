/*
 * cli_ldpath.h — keep the harness's late library loads out of the grants.
 *
 * The dynamic loader searches LD_LIBRARY_PATH as it was at process start
 * for every later dlopen (glibc's NSS modules, OpenSSL's, PCRE2, ...), and
 * iconv searches GCONV_PATH for its modules.  An entry that is empty (the
 * working directory), relative, or lies in a write grant would let a tool
 * call plant a library this unconfined process, which holds the API key,
 * then loads.  agent-run, tui and tool drop such entries by re-executing
 * themselves without them, judged against the command line's write grants
 * before the policy is built (its home lookup may open an NSS module), and
 * again once it is, before any request or tool; sessions, hash and auth,
 * which have no grants, drop the entries naming the working directory
 * before they open cJSON, libcrypto or (auth, HOME unset) an NSS module.
 */
#ifndef SBX_CLI_LDPATH_H
#define SBX_CLI_LDPATH_H

#include <stddef.h>

#include "sandbox/policy.h"
#include "util/util.h"

/* Set by main: the command line, as given, for the re-exec. */
extern char **cli_main_argv;

/*
 * Why entry (one element of a search path) may not stay, or NULL: it is
 * empty, relative, holds a '$' (a token the loader expands), or its
 * resolution, symlink by symlink, looks in or ends in a write grant of p
 * (a part that does not exist yet counts as where its existing parent
 * is).  Malloc'd.  Reads the file system (lstat, readlink), nothing else.
 */
char *ldpath_entry_why(const char *entry, const struct policy *p);

/*
 * Split value at any byte of seps, judge each entry; *kept gets the ones
 * that may stay joined by ':' (malloc'd; NULL when none), removed one
 * "'entry' (why)" per dropped entry.  The number dropped.  An empty value
 * holds no entry (the loader ignores it).
 */
size_t ldpath_filter(const char *value, const char *seps, const struct policy *p, char **kept,
		     struct strv *removed);

/* As ldpath_filter, but an empty entry stays (TERMINFO_DIRS: the default). */
size_t ldpath_filter_keep_empty(const char *value, const char *seps, const struct policy *p, char **kept,
				struct strv *removed);

/*
 * When OPENSSL_CONF, OPENSSL_CONF_INCLUDE, OPENSSL_MODULES or
 * OPENSSL_ENGINES is set to a path ldpath_entry_why judges (an empty value
 * included), the message refusing to run that names the first such
 * variable, its value, why and what to change; NULL otherwise.  Malloc'd.
 */
char *ldpath_openssl_refusal(const struct policy *p);

/*
 * Drop from the environment the TERMINFO, TERMINFO_DIRS, LOCPATH and
 * HOSTALIASES entries ldpath_entry_why judges (an empty TERMINFO_DIRS
 * entry, the default place, stays), one note on stderr per variable naming
 * each and why; the variable is unset when nothing is left.  readers: the
 * variables this process reads (LDPATH_LATE_*): LOCPATH in every command
 * that writes a line to a terminal (the charset), TERMINFO and the rest in
 * agent-run and tui (the screen; libcurl's resolver), never in sandbox-run
 * and tool, whose names are resolved by the helper, without HOSTALIASES.
 * Before the first line on stderr.  The confined command still gets the
 * caller's value (cli_ldpath_command_value).
 */
#define LDPATH_LATE_CHARSET 1u	/* a line on a terminal: every command */
#define LDPATH_LATE_SCREEN 2u	/* the screen, libcurl's resolver */
#define LDPATH_LATE_AGENT (LDPATH_LATE_CHARSET | LDPATH_LATE_SCREEN)	/* agent-run, tui */
void ldpath_drop_late(const struct policy *p, unsigned readers);

/*
 * When $HOME/.terminfo (where ncurses looks for the terminal's description
 * after $TERMINFO, and before TERMINFO_DIRS and the system's) is a path
 * ldpath_entry_why judges, the note saying the screen will not read it;
 * NULL when HOME is unset or the place is sound.  Malloc'd.  The tui then
 * starts the screen with HOME unset (render_init).
 */
char *ldpath_home_terminfo_note(const struct policy *p);

struct cli_opts;

/*
 * For agent-run, tui and tool once p is built: when LD_LIBRARY_PATH or
 * GCONV_PATH holds an entry to drop, say so on stderr and execute
 * /proc/self/exe again with cli_main_argv and those entries removed (the
 * variable unset when nothing is left).  Returns 0 when nothing is to be
 * removed; EXIT_REFUSED (said on stderr) when the re-exec fails or this is
 * already the re-executed process (SANDBX_LDPATH_CLEANED holds this
 * process's pid; any other value is ignored); does not return otherwise.
 * The caller's value of each variable changed rides along to the process
 * run again, for the command only (cli_ldpath_command_value).  Only the
 * first guard of a process reads the mark: a later one knows from it.
 */
int cli_ldpath_guard(const struct policy *p);

/* Whether cli_ldpath_guard may execute this process again: LD_LIBRARY_PATH
 * or GCONV_PATH is set.  Nothing may be started before it when so. */
int cli_ldpath_may_run_again(void);

/*
 * cli_ldpath_guard for sandbox-run, agent-run, tui and tool before the
 * policy is built, which looks up the caller's home (getpwuid: an NSS
 * module the files source does not answer for is opened through
 * LD_LIBRARY_PATH): judged against the write grants the command line
 * gives (each --allow-write path, resolved), or the working directory
 * when it names no path.  The policy holds no write grant beyond these,
 * so the guard after it then finds nothing more to drop.  Same returns.
 * Before that, ldpath_drop_late(readers) against the same grants: the
 * first line on the terminal, a refused policy's included, reads LOCPATH.
 */
int cli_ldpath_guard_early(const struct cli_opts *o, unsigned readers);

/*
 * The value the sandboxed command is given for var when --allow-env names
 * it: in the process a guard ran again, the caller's value of a variable
 * the guard changed (that process itself loads through the cleaned one);
 * a variable ldpath_drop_late changed in this process, the caller's value;
 * else getenv(var).  NULL when unset.  A late variable's caller value
 * rides across a guard's re-exec as the others' do, and is believed on
 * the same terms (judged as ldpath_drop_late judged it, it must leave
 * exactly the current value).
 */
const char *cli_ldpath_command_value(const char *var);

/*
 * cli_ldpath_guard for the commands that build no policy but open a
 * library (sessions: cJSON; hash: libcrypto; auth: an NSS module, when
 * HOME is unset or relative), before anything else that
 * could load one: judged against no grant, so the entries dropped are the
 * empty, relative and '$' ones, where a library planted in the working
 * directory would be found.  Same returns.
 */
int cli_ldpath_guard_no_grants(void);

/*
 * ldpath_drop_late(LDPATH_LATE_CHARSET) judged against no grant, before
 * anything is written: every command's first line on a terminal (a usage
 * error's, the note's own) reads LOCPATH's locale data, and an empty or
 * relative entry names the working directory.  The commands with grants
 * judge the rest against them (cli_ldpath_guard_early).
 */
void cli_ldpath_locale_first(void);

/*
 * EXIT_REFUSED, said on stderr and as a refused record, when
 * ldpath_openssl_refusal(p) has a message; else 0.  p NULL: no grants
 * (only the empty and relative values, the working directory, refused).
 * For sandbox-run with --pin-sha256 and hash, before libcrypto's first
 * digest, which reads the configuration.
 */
int cli_ldpath_openssl_guard(const struct policy *p);

/*
 * For agent-run and tui (which start libcurl, and so OpenSSL, and the
 * screen) once p is built, before cli_ldpath_guard: ldpath_drop_late, then
 * EXIT_REFUSED, said on stderr, when ldpath_openssl_refusal has a message;
 * else 0.
 */
int cli_ldpath_env_guard(const struct policy *p);

#endif
