/*
 * test_xdg.c — where the store lives, and which directories the policy
 * must keep every grant away from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "store/xdg.h"

static void test_xdg_paths_follow_variables(void **state)
{
	struct xdg_paths x;
	char *err = NULL;
	setenv("HOME", "/h/me", 1);
	setenv("XDG_STATE_HOME", "/s", 1);
	setenv("XDG_CONFIG_HOME", "relative/ignored", 1);
	assert_int_equal(xdg_paths_get(&x, &err), 0);
	assert_string_equal(x.sessions_dir, "/s/sandbx/sessions");
	assert_string_equal(x.state_home, "/s");
	assert_string_equal(x.credentials, "/h/me/.config/sandbx/credentials.toml");
	assert_string_equal(x.config_home, "/h/me/.config");
	xdg_paths_release(&x);
}

static void test_xdg_protected_dirs_include_defaults(void **state)
{
	struct xdg_paths x;
	struct strv st = { 0 }, cf = { 0 };
	char *err = NULL;
	setenv("HOME", "/h/me", 1);
	setenv("XDG_STATE_HOME", "/elsewhere/state", 1);
	setenv("XDG_CONFIG_HOME", "/elsewhere/config", 1);
	assert_int_equal(xdg_paths_get(&x, &err), 0);
	xdg_protected_dirs(&x, &st, &cf);
	assert_true(strv_has(&st, "/elsewhere/state/sandbx"));
	assert_true(strv_has(&st, "/h/me/.local/state/sandbx"));
	assert_true(strv_has(&cf, "/elsewhere/config/sandbx"));
	assert_true(strv_has(&cf, "/h/me/.config/sandbx"));
	xdg_paths_release(&x);
	strv_free(&st);
	strv_free(&cf);

	/* with the defaults in use, no duplicates */
	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(xdg_paths_get(&x, &err), 0);
	xdg_protected_dirs(&x, &st, &cf);
	assert_string_equal(st.v[0], "/h/me/.local/state/sandbx");
	for (size_t i = 1; i < st.n; i++)
		assert_string_not_equal(st.v[i], st.v[0]);
	xdg_paths_release(&x);
	strv_free(&st);
	strv_free(&cf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdg_paths_follow_variables),
		cmocka_unit_test(test_xdg_protected_dirs_include_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
