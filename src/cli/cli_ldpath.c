/*
 * cli_ldpath.c — drop the search-path entries what runs under the grants could plant a
 * library in, by re-executing the harness without them (cli_ldpath.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "cli/cli_policy.h"
#include "util/log.h"

/* Marks the re-executed process: it never executes itself again.  The
 * value is the pid, which the exec keeps, so only the process the guard
 * executed carries its own; a mark left in the caller's environment names
 * no such process and is ignored, rather than refusing the run. */
#define LDPATH_MARK "SANDBX_LDPATH_CLEANED"
/* + the variable's name: the caller's value of a variable the re-exec
 * changed, for the command (cli_ldpath_command_value). */
#define LDPATH_WAS "SANDBX_LDPATH_WAS_"
#define LDPATH_MAX_LINKS 40	/* as the kernel's ELOOP */

char **cli_main_argv;

static const struct policy_grant *write_grant(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (!g->link && (g->access & POL_WRITE) && path_within(path, g->path))
			return g;
	}
	return NULL;
}

static char *in_grant(const struct policy_grant *g)
{
	return xasprintf("it resolves into the write grant %s", g->path);
}

char *ldpath_entry_why(const char *entry, const struct policy *p)
{
	if (!*entry)
		return xstrdup("empty: the working directory");
	if (entry[0] != '/')
		return xstrdup("relative: it names a place under the working directory");
	if (strchr(entry, '$'))
		return xstrdup("it holds a '$' token the loader expands");

	/* Walk it as the kernel does, with cur always resolved: a lookup in
	 * a directory a call can write (a name it can create, or swap for a
	 * symlink) is as bad as ending there. */
	char *cur = xstrdup("/"), *rest = xstrdup(entry), *why = NULL;
	const struct policy_grant *g;
	int links = 0;
	size_t at = 0;
	for (;;) {
		while (rest[at] == '/')
			at++;
		if (!rest[at])
			break;
		size_t len = strcspn(rest + at, "/");
		char *name = xstrndup(rest + at, len);
		at += len;
		if (!strcmp(name, ".")) {
			free(name);
			continue;
		}
		if (!strcmp(name, "..")) {
			char *s = strrchr(cur, '/');
			if (s == cur)
				cur[1] = '\0';
			else
				*s = '\0';
			free(name);
			continue;
		}
		if ((g = write_grant(p, cur))) {
			free(name);
			why = in_grant(g);
			goto out;
		}
		char *next = xasprintf("%s/%s", strcmp(cur, "/") ? cur : "", name);
		free(name);
		struct stat st;
		if (lstat(next, &st) < 0) {
			/* Not there (or not to be looked at by us): only who can
			 * write cur, which is no grant, could make it appear. */
			free(next);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(next, target, sizeof(target) - 1);
			free(next);
			if (n <= 0 || ++links > LDPATH_MAX_LINKS)
				goto out;	/* the loader cannot follow it either */
			target[n] = '\0';
			char *r = xasprintf("%s/%s", target, rest + at);
			free(rest);
			rest = r;
			at = 0;
			if (target[0] == '/')
				strcpy(cur, "/");
			continue;
		}
		free(cur);
		cur = next;
	}
	if ((g = write_grant(p, cur)))
		why = in_grant(g);
out:
	free(cur);
	free(rest);
	return why;
}

static size_t filter(const char *value, const char *seps, int keep_empty, const struct policy *p, char **kept,
		     struct strv *removed)
{
	size_t n = 0;
	*kept = NULL;
	if (!*value)
		return 0;
	for (const char *s = value;;) {
		size_t len = strcspn(s, seps);
		char *e = xstrndup(s, len);
		char *why = keep_empty && !*e ? NULL : ldpath_entry_why(e, p);
		if (why) {
			char *shown = str_hex_escape(e, "'", 1);
			strv_push_own(removed, xasprintf("'%s' (%s)", shown, why));
			free(shown);
			free(why);
			n++;
		} else {
			char *k = *kept ? xasprintf("%s:%s", *kept, e) : xstrdup(e);
			free(*kept);
			*kept = k;
		}
		free(e);
		if (!s[len])
			break;
		s += len + 1;
	}
	return n;
}

size_t ldpath_filter(const char *value, const char *seps, const struct policy *p, char **kept,
		     struct strv *removed)
{
	return filter(value, seps, 0, p, kept, removed);
}

size_t ldpath_filter_keep_empty(const char *value, const char *seps, const struct policy *p, char **kept,
				struct strv *removed)
{
	return filter(value, seps, 1, p, kept, removed);
}

/* OpenSSL reads these at libcurl's first request (OPENSSL_init_ssl with
 * OPENSSL_INIT_LOAD_CONFIG), and at the first digest sha256.c starts (the
 * default library context loads the configuration): the configuration
 * file, which can load a provider or engine module (code) and .include
 * other files; the directory relative .includes are looked up in; the
 * directories providers and engines named without a path are loaded from.  Dropping one would change
 * what protects the connection that carries the key (a FIPS provider, a
 * protocol floor) without a word: refuse instead. */
static const char *const openssl_vars[] = {
	"OPENSSL_CONF", "OPENSSL_CONF_INCLUDE", "OPENSSL_MODULES", "OPENSSL_ENGINES",
};

char *ldpath_openssl_refusal(const struct policy *p)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(openssl_vars); i++) {
		const char *v = getenv(openssl_vars[i]);
		char *why = v ? ldpath_entry_why(v, p) : NULL;
		if (!why)
			continue;
		char *shown = str_hex_escape(v, "'", 1);
		char *msg = xasprintf("%s is '%s' (%s) — a tool call or sandboxed command could write there what "
				      "OpenSSL then reads "
				      "in this unconfined process (a module to load, a file to include, its TLS "
				      "settings); set %s to a path outside the write grants, or unset it, and run again",
				      openssl_vars[i], shown, why, openssl_vars[i]);
		free(shown);
		free(why);
		return msg;
	}
	return NULL;
}

static char *join(const struct strv *v)
{
	char *s = xstrdup("");
	for (size_t i = 0; i < v->n; i++) {
		char *t = xasprintf("%s%s%s", s, i ? ", " : "", v->v[i]);
		free(s);
		s = t;
	}
	return s;
}

/* Read later by code this process loads or already holds, each time it
 * needs them (ncurses at the screen, glibc's setlocale and resolver): an
 * entry dropped from the environment now is never looked at, no re-exec
 * needed.  Without it they fall back to the system's files. */
static const struct {
	const char *var, *seps;
	int keep_empty;	/* an empty entry is no path (ignored, or the default) */
	unsigned reader;	/* LDPATH_LATE_*: what reads it in this process */
	const char *what;
	const char *was;	/* the caller's value across a guard's re-exec */
} late_vars[] = {
	{ "TERMINFO", "", 1, LDPATH_LATE_SCREEN, "a terminal description (what the screen sends)",
	  LDPATH_WAS "TERMINFO" },
	{ "TERMINFO_DIRS", ":", 1, LDPATH_LATE_SCREEN, "a terminal description (what the screen sends)",
	  LDPATH_WAS "TERMINFO_DIRS" },
	{ "LOCPATH", ":", 0, LDPATH_LATE_CHARSET, "locale data", LDPATH_WAS "LOCPATH" },
	{ "HOSTALIASES", "", 1, LDPATH_LATE_SCREEN, "a host alias (where a name resolves)", LDPATH_WAS "HOSTALIASES" },
};

/* The caller's values dropped here, for the confined command
 * (cli_ldpath_command_value): only this process reads them. */
static char *late_was[SBX_ARRAY_LEN(late_vars)];
static int late_dropped[SBX_ARRAY_LEN(late_vars)];

void ldpath_drop_late(const struct policy *p, unsigned readers)
{
	/* The environment first, then the notes: the first line on stderr
	 * decides the terminal's charset (newlocale, which reads LOCPATH). */
	char *notes[SBX_ARRAY_LEN(late_vars)] = { 0 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++) {
		if (!(late_vars[i].reader & readers))
			continue;	/* never read here: left to the command */
		const char *v = getenv(late_vars[i].var);
		struct strv removed = { 0 };
		char *kept = NULL;
		if (v && filter(v, late_vars[i].seps, late_vars[i].keep_empty, p, &kept, &removed)) {
			notes[i] = join(&removed);
			if (!late_dropped[i]) {
				late_was[i] = xstrdup(v);	/* before setenv, which may free v */
				late_dropped[i] = 1;
			}
			if (kept)
				setenv(late_vars[i].var, kept, 1);
			else
				unsetenv(late_vars[i].var);
		}
		free(kept);
		strv_free(&removed);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++) {
		if (!notes[i])
			continue;
		sbx_err("note: not using %s %s — a tool call or sandboxed command could plant %s there that this "
			"unconfined process would read", late_vars[i].var, notes[i], late_vars[i].what);
		free(notes[i]);
	}
}

char *ldpath_home_terminfo_note(const struct policy *p)
{
	const char *home = getenv("HOME");
	if (!home)
		return NULL;
	/* As ncurses builds it: an empty HOME gives "/.terminfo", a relative
	 * one a place under the working directory. */
	char *place = xasprintf("%s/.terminfo", home);
	char *why = ldpath_entry_why(place, p), *note = NULL;
	if (why) {
		char *shown = str_hex_escape(place, "'", 1);
		note = xasprintf("note: not using $HOME/.terminfo '%s' (%s) — a tool call could plant a terminal "
				 "description there (what the screen sends) that this unconfined process would read",
				 shown, why);
		free(shown);
	}
	free(why);
	free(place);
	return note;
}

/* Said on stderr and as an audit record, as a refused policy is. */
static void refuse(char *msg)
{
	audit(LOG_INFO, "refused", "reason", msg, NULL);
	sbx_err("%s", msg);
	free(msg);
}

int cli_ldpath_openssl_guard(const struct policy *p)
{
	struct policy none;
	if (!p) {
		policy_init(&none);
		p = &none;
	}
	char *no = ldpath_openssl_refusal(p);
	if (p == &none)
		policy_release(&none);
	if (no) {
		refuse(no);
		return EXIT_REFUSED;
	}
	return 0;
}

int cli_ldpath_env_guard(const struct policy *p)
{
	/* LOCPATH first: the refusal's dash decides the terminal's charset.
	 * cli_ldpath_guard_early judged these against the paths as they
	 * resolved then; this judges them against the grants the policy
	 * holds, which differ when a path was swapped in between. */
	ldpath_drop_late(p, LDPATH_LATE_AGENT);
	return cli_ldpath_openssl_guard(p);
}

/* glibc splits LD_LIBRARY_PATH at ':' and ';', GCONV_PATH at ':'. */
static const struct {
	const char *var, *seps, *was;
} vars[] = {
	{ "LD_LIBRARY_PATH", ":;", LDPATH_WAS "LD_LIBRARY_PATH" },
	{ "GCONV_PATH", ":", LDPATH_WAS "GCONV_PATH" },
};

int cli_ldpath_may_run_again(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++)
		if (getenv(vars[i].var))
			return 1;
	return 0;
}

/* -1 until the first guard of this process has looked: then whether it
 * is the one a guard executed again, and the caller's values it carried.
 * The mark and the carriers leave the environment at that first look, so
 * every later guard of the same process must know it from here: the one
 * after the policy must not execute a re-executed process again. */
static int reexecuted = -1;
static char *carried[SBX_ARRAY_LEN(vars)];
static char *late_carried[SBX_ARRAY_LEN(late_vars)];
static int carried_checked;	/* by carried_check: until then none is believed */

static int mark_is_own(void)
{
	const char *v = getenv(LDPATH_MARK);
	char own[24];
	if (!v)
		return 0;	/* sandbox-run's spawn path: not even getpid */
	snprintf(own, sizeof(own), "%ld", (long)getpid());
	return strcmp(v, own) == 0;
}

static int is_reexecuted(void)
{
	if (reexecuted >= 0)
		return reexecuted;
	reexecuted = mark_is_own();
	unsetenv(LDPATH_MARK);
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++) {
		/* Believed only from our own re-exec: one the caller set is
		 * dropped unread. */
		const char *v = getenv(vars[i].was);
		if (reexecuted && v)
			carried[i] = xstrdup(v);
		unsetenv(vars[i].was);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++) {
		const char *v = getenv(late_vars[i].was);
		if (reexecuted && v)
			late_carried[i] = xstrdup(v);
		unsetenv(late_vars[i].was);
	}
	return reexecuted;
}

const char *cli_ldpath_command_value(const char *var)
{
	(void)is_reexecuted();
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++)
		if (strcmp(var, vars[i].var) == 0 && carried[i] && carried_checked)
			return carried[i];
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++) {
		if (strcmp(var, late_vars[i].var) != 0)
			continue;
		if (late_dropped[i])
			return late_was[i];
		if (late_carried[i] && carried_checked)
			return late_carried[i];
	}
	return getenv(var);
}

/* A carried value is believed only as what our own guard could have
 * cleaned into the value this process runs with: judged as that guard
 * judged it, it must leave exactly the current one.  A caller that execs
 * sandbx with its own pid as the mark can then add to what the command
 * gets only entries this guard drops, as it could by setting the
 * variable itself; anything else is not believed (the command gets the
 * current value).  Judged once, at the first guard with grants. */
static void carried_judge(char **carrier, const char *var, const char *seps, int keep_empty, const struct policy *p)
{
	if (!*carrier)
		return;
	const char *cur = getenv(var);
	struct strv removed = { 0 };
	char *kept = NULL;
	size_t n = filter(*carrier, seps, keep_empty, p, &kept, &removed);
	if (!n || (kept ? !cur || strcmp(kept, cur) : cur != NULL)) {
		free(*carrier);
		*carrier = NULL;
	}
	free(kept);
	strv_free(&removed);
}

static void carried_check(const struct policy *p)
{
	if (carried_checked)
		return;
	carried_checked = 1;
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++)
		carried_judge(&carried[i], vars[i].var, vars[i].seps, 0, p);	/* as ldpath_filter */
	/* The late ones alike, judged as ldpath_drop_late judged them. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++)
		carried_judge(&late_carried[i], late_vars[i].var, late_vars[i].seps, late_vars[i].keep_empty, p);
}

int cli_ldpath_guard(const struct policy *p)
{
	int again = is_reexecuted();
	char own[24];
	if (again)
		carried_check(p);
	char *what = NULL, *first = NULL;
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i].var);
		struct strv removed = { 0 };
		char *kept = NULL;
		if (!v || !ldpath_filter(v, vars[i].seps, p, &kept, &removed)) {
			free(kept);
			strv_free(&removed);
			continue;
		}
		char *list = join(&removed);
		if (again) {
			refuse(xasprintf("%s holds %s, still after running again without it — what runs under "
					 "these grants could plant a library there that sandbx then loads; remove it "
					 "from %s and run again", vars[i].var, list, vars[i].var));
			free(list);
			free(kept);
			strv_free(&removed);
			free(what);
			free(first);
			return EXIT_REFUSED;
		}
		char *w = xasprintf("%s%s%s: %s", what ? what : "", what ? "; " : "", vars[i].var, list);
		free(what);
		what = w;
		if (!first)
			first = xasprintf("%s entry %s", vars[i].var, removed.v[0]);
		/* The command may still be given it (--allow-env): the caller's
		 * value rides along, for the command only. */
		setenv(vars[i].was, v, 1);
		if (kept)
			setenv(vars[i].var, kept, 1);
		else
			unsetenv(vars[i].var);
		free(list);
		free(kept);
		strv_free(&removed);
	}
	if (!what)
		return 0;
	sbx_err("note: running again without %s — what runs under these grants could plant a library "
		"there that this unconfined process would load later", what);
	snprintf(own, sizeof(own), "%ld", (long)getpid());
	setenv(LDPATH_MARK, own, 1);
	/* What ldpath_drop_late changed rides along too: the process run
	 * again sees only what it left. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++)
		if (late_dropped[i])
			setenv(late_vars[i].was, late_was[i], 1);
	fflush(NULL);
	cli_nofile_restore();	/* the run again raises it from the caller's */
	if (cli_main_argv)
		execv("/proc/self/exe", cli_main_argv);
	int e = cli_main_argv ? errno : ENOENT;
	refuse(xasprintf("cannot run again without %s (/proc/self/exe: %s) — remove it from the environment "
			 "and run again", first, strerror(e)));
	unsetenv(LDPATH_MARK);
	for (size_t i = 0; i < SBX_ARRAY_LEN(vars); i++)
		unsetenv(vars[i].was);
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++)
		unsetenv(late_vars[i].was);
	free(what);
	free(first);
	return EXIT_REFUSED;
}

void cli_ldpath_locale_first(void)
{
	struct policy none;
	policy_init(&none);
	ldpath_drop_late(&none, LDPATH_LATE_CHARSET);
	policy_release(&none);
}

int cli_ldpath_guard_no_grants(void)
{
	/* No grants: only the entries that name the working directory (empty,
	 * relative, a '$' token) go; an absolute one is the caller's choice,
	 * and there is no grant to judge it against. */
	struct policy p;
	policy_init(&p);
	int rc = cli_ldpath_guard(&p);
	policy_release(&p);
	return rc;
}

int cli_ldpath_guard_early(const struct cli_opts *o, unsigned readers)
{
	/* The write grants the policy will hold, from what is known before
	 * it is built: each --allow-write path, resolved, or else the working
	 * directory.  Building it only refuses what it learns later (the
	 * home, sandbx's own state), never adds a write grant, so an entry
	 * that stays here stays after it too.  A path that does not resolve
	 * now is refused by the policy; it is no grant either way. */
	struct policy p;
	char cwd[PATH_MAX];
	/* Nothing to judge, nothing to resolve (sandbox-run's usual case);
	 * the mark and carriers, if any, wait for the guard after the policy. */
	int ld = getenv(vars[0].var) || getenv(vars[1].var), late = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(late_vars); i++)
		late |= (late_vars[i].reader & readers) && getenv(late_vars[i].var);
	if (!ld && !late)
		return 0;
	policy_init(&p);
	p.grants = xcalloc(o->npaths + 1, sizeof(*p.grants));
	for (size_t i = 0; i < o->npaths; i++) {
		char *real = (o->paths[i].access & POL_WRITE) ? realpath(o->paths[i].path, NULL) : NULL;
		if (real)
			p.grants[p.ngrants++] = (struct policy_grant){ .path = real, .access = POL_WRITE };
	}
	if (o->npaths == 0 && getcwd(cwd, sizeof(cwd)))
		p.grants[p.ngrants++] = (struct policy_grant){ .path = xstrdup(cwd), .access = POL_READ | POL_WRITE };
	/* The late ones first: the policy's refusal, and the guard's note,
	 * are lines on the terminal, which read LOCPATH's locale data. */
	if (late)
		ldpath_drop_late(&p, readers);
	int rc = ld ? cli_ldpath_guard(&p) : 0;
	policy_release(&p);
	return rc;
}
