/* test_ldpath.c — which LD_LIBRARY_PATH / GCONV_PATH entries the harness
 * drops before running again, which OpenSSL variables it refuses, which
 * TERMINFO / TERMINFO_DIRS / LOCPATH / HOSTALIASES entries it drops
 * (cli_ldpath.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/cli_ldpath.h"
#include "sandbox/policy.h"

static char root[64];		/* a scratch tree: root/grant (rw), root/ro (read), root/out */
static struct policy pol;

static char *at(const char *rel)
{
	static char buf[8][256];
	static int i;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static int setup(void **state)
{
	char *err = NULL;
	strcpy(root, "/tmp/sbx-ldpath-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mkdir(at("grant"), 0755);
	mkdir(at("grant/sub"), 0755);
	mkdir(at("ro"), 0755);
	mkdir(at("out"), 0755);
	mkdir(at("out/lib"), 0755);
	if (symlink(at("grant/lib"), at("out/to-grant")) < 0 ||	/* absolute, into the grant */
	    symlink("../grant", at("out/rel-grant")) < 0 ||	/* relative, into the grant */
	    symlink(at("out/lib"), at("out/to-out")) < 0 ||
	    symlink("loop", at("out/loop")) < 0 ||
	    symlink(at("out/lib"), at("grant/to-out")) < 0)	/* in the grant, pointing out */
		return -1;
	policy_init(&pol);
	if (policy_add_grant(&pol, at("grant"), POL_READ | POL_WRITE, &err) < 0 ||
	    policy_add_grant(&pol, at("ro"), POL_READ, &err) < 0) {
		free(err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char *cmd = NULL;
	policy_release(&pol);
	if (asprintf(&cmd, "rm -rf '%s'", root) > 0)
		(void)!system(cmd);
	free(cmd);
	return 0;
}

/* why(entry) contains needle, or is NULL when needle is. */
static void expect(const char *entry, const char *needle)
{
	char *why = ldpath_entry_why(entry, &pol);
	if (!needle) {
		if (why)
			fail_msg("'%s' dropped: %s", entry, why);
	} else {
		if (!why)
			fail_msg("'%s' kept, expected '%s'", entry, needle);
		if (!strstr(why, needle))
			fail_msg("'%s': '%s', expected '%s'", entry, why, needle);
	}
	free(why);
}

static void test_ldpath_empty_relative_token(void **state)
{
	expect("", "empty: the working directory");
	expect("lib", "relative");
	expect("./lib", "relative");
	expect("../usr/lib", "relative");
	expect("/usr/$LIB", "'$'");
	expect("$ORIGIN/lib", "relative");
	expect("/usr/lib", NULL);
	expect("/", NULL);
}

static void test_ldpath_write_grant(void **state)
{
	const char *g = at("grant");
	char *want = NULL;
	assert_true(asprintf(&want, "write grant %s", g) > 0);
	expect(at("grant"), want);			/* the grant itself */
	expect(at("grant/sub"), want);			/* a directory in it */
	expect(at("grant/lib"), want);			/* not there yet */
	expect(at("grant/a/b/c"), want);		/* nor its parents */
	expect(at("grant//sub/./"), want);
	expect(at("out/../grant/x"), want);		/* .. into it */
	expect(at("grant/sub/../../out/lib"), want);	/* looked up in it: sub could become a link */
	expect(at("grant/to-out"), want);		/* a link in it, whatever it points at now */
	expect(at("out/to-grant"), want);		/* a link out of it, into it (absent target) */
	expect(at("out/rel-grant/sub"), want);		/* a relative link into it */
	expect(at("out/to-grant/x/y"), want);
	free(want);
	/* A read grant, the outside, a missing place outside, a loop. */
	expect(at("ro"), NULL);
	expect(at("ro/new"), NULL);
	expect(at("out/lib"), NULL);
	expect(at("out/to-out"), NULL);
	expect(at("out/missing/deeper"), NULL);
	expect(at("out/loop"), NULL);
	expect(at("out/../ro"), NULL);
}

static void test_ldpath_filter_splits(void **state)
{
	struct strv removed = { 0 };
	char *kept = NULL, *v = NULL;

	/* LD_LIBRARY_PATH: ':' and ';' both separate; what stays is joined by ':'. */
	assert_true(asprintf(&v, ":/usr/lib;rel:%s:%s", at("grant/lib"), at("out/lib")) > 0);
	assert_int_equal(ldpath_filter(v, ":;", &pol, &kept, &removed), 3);
	char *want = NULL;
	assert_true(asprintf(&want, "/usr/lib:%s", at("out/lib")) > 0);
	assert_string_equal(kept, want);
	assert_int_equal(removed.n, 3);
	assert_string_equal(removed.v[0], "'' (empty: the working directory)");
	assert_non_null(strstr(removed.v[1], "'rel' (relative"));
	assert_non_null(strstr(removed.v[2], at("grant/lib")));
	free(want);
	free(kept);
	free(v);
	strv_free(&removed);

	/* GCONV_PATH: ':' only, so "a;b" is one (relative) entry. */
	assert_int_equal(ldpath_filter("/usr/lib:a;b", ":", &pol, &kept, &removed), 1);
	assert_string_equal(kept, "/usr/lib");
	assert_string_equal(removed.v[0], "'a;b' (relative: it names a place under the working directory)");
	free(kept);
	strv_free(&removed);

	/* Nothing left: kept is NULL (the variable is unset). */
	assert_int_equal(ldpath_filter(":", ":;", &pol, &kept, &removed), 2);
	assert_null(kept);
	strv_free(&removed);

	/* Set but empty: no entry (the loader ignores it). */
	assert_int_equal(ldpath_filter("", ":;", &pol, &kept, &removed), 0);
	assert_null(kept);
	assert_int_equal(removed.n, 0);

	/* All fine: nothing removed, the value kept. */
	assert_int_equal(ldpath_filter("/usr/lib;/lib", ":;", &pol, &kept, &removed), 0);
	assert_string_equal(kept, "/usr/lib:/lib");
	free(kept);

	/* A quote or a control in an entry is shown escaped. */
	assert_int_equal(ldpath_filter("it's\n", ":", &pol, &kept, &removed), 1);
	assert_non_null(strstr(removed.v[0], "'it\\x27s\\x0a'"));
	strv_free(&removed);
}

/* refusal() names var and contains needle, or is NULL when needle is. */
static void expect_refusal(const char *var, const char *value, const char *needle)
{
	setenv(var, value, 1);
	char *msg = ldpath_openssl_refusal(&pol);
	unsetenv(var);
	if (!needle) {
		if (msg)
			fail_msg("%s='%s' refused: %s", var, value, msg);
		return;
	}
	if (!msg)
		fail_msg("%s='%s' accepted, expected '%s'", var, value, needle);
	char *head = NULL;
	assert_true(asprintf(&head, "%s is '", var) > 0);
	if (strncmp(msg, head, strlen(head)) || !strstr(msg, needle) || !strstr(msg, "unset it"))
		fail_msg("%s='%s': '%s', expected '%s'", var, value, msg, needle);
	free(head);
	free(msg);
}

static void test_ldpath_openssl_refused(void **state)
{
	static const char *const vars[] = { "OPENSSL_CONF", "OPENSSL_CONF_INCLUDE", "OPENSSL_MODULES",
					    "OPENSSL_ENGINES" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		unsetenv(vars[i]);
		expect_refusal(vars[i], at("grant/openssl.cnf"), "write grant");
		expect_refusal(vars[i], at("out/to-grant/x"), "write grant");
		expect_refusal(vars[i], "openssl.cnf", "relative");
		expect_refusal(vars[i], "", "empty");
		expect_refusal(vars[i], "/usr/lib/ssl/openssl.cnf", NULL);
		expect_refusal(vars[i], at("ro/openssl.cnf"), NULL);
	}
	assert_null(ldpath_openssl_refusal(&pol));
}

static void test_ldpath_drop_late(void **state)
{
	struct strv removed = { 0 };
	char *kept = NULL, *v = NULL;

	/* TERMINFO_DIRS: an empty entry is the default place and stays. */
	assert_true(asprintf(&v, ":%s:/usr/share/terminfo::rel", at("grant/ti")) > 0);
	assert_int_equal(ldpath_filter_keep_empty(v, ":", &pol, &kept, &removed), 2);
	assert_string_equal(kept, ":/usr/share/terminfo:");
	free(kept);
	free(v);
	strv_free(&removed);

	setenv("TERMINFO", at("grant/ti"), 1);
	assert_true(asprintf(&v, "%s::/usr/share/terminfo", at("out/to-grant")) > 0);
	setenv("TERMINFO_DIRS", v, 1);
	free(v);
	setenv("LOCPATH", "loc", 1);
	setenv("HOSTALIASES", at("grant/hosts"), 1);
	ldpath_drop_late(&pol, LDPATH_LATE_AGENT);
	assert_null(getenv("TERMINFO"));
	assert_string_equal(getenv("TERMINFO_DIRS"), ":/usr/share/terminfo");
	assert_null(getenv("LOCPATH"));	/* gone before the first note: it reads it */
	assert_null(getenv("HOSTALIASES"));

	/* Outside the grants: left as it is. */
	setenv("TERMINFO", at("ro/ti"), 1);
	setenv("HOSTALIASES", "/etc/host.aliases", 1);
	ldpath_drop_late(&pol, LDPATH_LATE_AGENT);
	assert_string_equal(getenv("TERMINFO"), at("ro/ti"));
	assert_string_equal(getenv("HOSTALIASES"), "/etc/host.aliases");
	unsetenv("TERMINFO");
	unsetenv("TERMINFO_DIRS");
	unsetenv("LOCPATH");
	unsetenv("HOSTALIASES");
}

/* $HOME/.terminfo judged as ncurses builds it. */
static void test_ldpath_home_terminfo(void **state)
{
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL, *note;

	setenv("HOME", at("grant"), 1);		/* HOME is the grant: .terminfo in it */
	note = ldpath_home_terminfo_note(&pol);
	assert_non_null(note);
	assert_non_null(strstr(note, "$HOME/.terminfo"));
	assert_non_null(strstr(note, "write grant"));
	free(note);
	setenv("HOME", at("out/rel-grant"), 1);	/* through a link into it */
	note = ldpath_home_terminfo_note(&pol);
	assert_non_null(note);
	free(note);
	setenv("HOME", "rel", 1);		/* under the working directory */
	note = ldpath_home_terminfo_note(&pol);
	assert_non_null(note);
	assert_non_null(strstr(note, "relative"));
	free(note);
	setenv("HOME", at("ro"), 1);		/* a read grant, and the outside: read */
	assert_null(ldpath_home_terminfo_note(&pol));
	setenv("HOME", at("out"), 1);
	assert_null(ldpath_home_terminfo_note(&pol));
	unsetenv("HOME");
	assert_null(ldpath_home_terminfo_note(&pol));
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
}

/* In a child (the carriers are read once per process): var cur (NULL:
 * unset), its carrier was, the mark (own: this process's pid), then, when
 * guard, the guard against pol: what the command would get. */
static int carried_var(const char *var, const char *cur, const char *was, int own, int guard, const char *want)
{
	pid_t pid = fork();
	if (pid == 0) {
		char mark[24];
		snprintf(mark, sizeof(mark), "%ld", own ? (long)getpid() : (long)getpid() + 1);
		char carrier[64];
		snprintf(carrier, sizeof(carrier), "SANDBX_LDPATH_WAS_%s", var);
		unsetenv("LD_LIBRARY_PATH");
		unsetenv("GCONV_PATH");
		if (cur)
			setenv(var, cur, 1);
		setenv(carrier, was, 1);
		setenv("SANDBX_LDPATH_CLEANED", mark, 1);
		if (guard && cli_ldpath_guard(&pol) != 0)
			_exit(2);
		const char *got = cli_ldpath_command_value(var);
		if (getenv(carrier) || getenv("SANDBX_LDPATH_CLEANED"))
			_exit(3);	/* the carrier and mark leave the environment */
		_exit((!got && !want) || (got && want && strcmp(got, want) == 0) ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static int carried_case(const char *cur, const char *was, int own, int guard, const char *want)
{
	return carried_var("LD_LIBRARY_PATH", cur, was, own, guard, want);
}

static void test_ldpath_carried(void **state)
{
	(void)state;
	char was[512];
	/* What our guard cleaned into the current value: believed. */
	snprintf(was, sizeof(was), ":%s", at("grant/lib"));
	assert_int_equal(carried_case(NULL, was, 1, 1, was), 0);
	assert_int_equal(carried_case("/usr/lib", ":/usr/lib", 1, 1, ":/usr/lib"), 0);
	/* Anything else is not, own mark or not: the current value. */
	assert_int_equal(carried_case("/usr/lib", ":/injected", 1, 1, "/usr/lib"), 0);
	assert_int_equal(carried_case("/usr/lib", "/usr/lib", 1, 1, "/usr/lib"), 0);
	assert_int_equal(carried_case(NULL, "/usr/lib", 1, 1, NULL), 0);
	assert_int_equal(carried_case("/usr/lib", ":/usr/lib", 0, 1, "/usr/lib"), 0);
	/* Nor before a guard judged it against grants. */
	assert_int_equal(carried_case("/usr/lib", ":/usr/lib", 1, 0, "/usr/lib"), 0);
	/* A late variable's carrier, on the same terms (LOCPATH: an empty
	 * entry names the working directory). */
	snprintf(was, sizeof(was), "%s:/usr/lib/locale", at("grant/loc"));
	assert_int_equal(carried_var("LOCPATH", "/usr/lib/locale", was, 1, 1, was), 0);
	assert_int_equal(carried_var("LOCPATH", "/usr/lib/locale", ":/usr/lib/locale", 1, 1, ":/usr/lib/locale"), 0);
	assert_int_equal(carried_var("LOCPATH", NULL, was, 1, 1, NULL), 0);
	assert_int_equal(carried_var("LOCPATH", "/usr/lib/locale", "/forged", 1, 1, "/usr/lib/locale"), 0);
	assert_int_equal(carried_var("LOCPATH", "/usr/lib/locale", was, 0, 1, "/usr/lib/locale"), 0);
	assert_int_equal(carried_var("LOCPATH", "/usr/lib/locale", was, 1, 0, "/usr/lib/locale"), 0);
	/* TERMINFO_DIRS keeps an empty entry (the default place): not one
	 * the guard drops, so not believed */
	assert_int_equal(carried_var("TERMINFO_DIRS", ":/usr/share/terminfo", ":/usr/share/terminfo", 1, 1,
				     ":/usr/share/terminfo"), 0);
	snprintf(was, sizeof(was), ":%s", at("grant/ti"));
	assert_int_equal(carried_var("TERMINFO_DIRS", "", was, 1, 1, was), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ldpath_empty_relative_token),
		cmocka_unit_test(test_ldpath_write_grant),
		cmocka_unit_test(test_ldpath_filter_splits),
		cmocka_unit_test(test_ldpath_openssl_refused),
		/* before drop_late: its children must not inherit the
		 * caller's values drop_late keeps for this process */
		cmocka_unit_test(test_ldpath_carried),
		cmocka_unit_test(test_ldpath_drop_late),
		cmocka_unit_test(test_ldpath_home_terminfo),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
