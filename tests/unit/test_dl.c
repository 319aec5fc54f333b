/*
 * test_dl.c — dl_load: the table is filled, a library that will not load
 * is said in the loader's words with the package (and advice about memory
 * only when memory is short), and load_env is set for the library's constructors
 * only when it is safe, and never left behind.
 */
#include <pthread.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "util/dl.h"

#ifndef DLPROBE_DIR
#error "DLPROBE_DIR: the directory of the libdlprobe*.so objects"
#endif

struct probe {
	char *seen;
	int *ran;
};

static const struct dl_sym probe_syms[] = {
	DL_SYM(struct probe, seen, "dlprobe_seen"),
	DL_SYM(struct probe, ran, "dlprobe_ran"),
};

/* This process's address space, bytes (VmSize), or 0. */
static rlim_t vm_size(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	rlim_t kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmSize:", 7) == 0)
			kb = strtoull(line + 7, NULL, 10);
	if (f)
		fclose(f);
	return kb * 1024;
}

static void test_dl_sets_variable_while_loading(void **state)
{
	(void)state;
	static struct probe t;
	static struct dl_lib l = DL_LIB_ENV(DLPROBE_DIR "/libdlprobe1.so", "none", probe_syms, &t, "SBX_DL_PROBE", "1");
	unsetenv("SBX_DL_PROBE");
	char *err = NULL;
	assert_int_equal(dl_load(&l, &err), 0);
	assert_int_equal(*t.ran, 1);
	assert_string_equal(t.seen, "1");
	assert_null(getenv("SBX_DL_PROBE"));	/* removed again */
}

static void test_dl_keeps_caller_value(void **state)
{
	(void)state;
	static struct probe t;
	static struct dl_lib l = DL_LIB_ENV(DLPROBE_DIR "/libdlprobe2.so", "none", probe_syms, &t, "SBX_DL_PROBE", "1");
	setenv("SBX_DL_PROBE", "0", 1);
	assert_int_equal(dl_load(&l, NULL), 0);
	assert_string_equal(t.seen, "0");
	assert_string_equal(getenv("SBX_DL_PROBE"), "0");
	unsetenv("SBX_DL_PROBE");
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int up, done;

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	up = 1;
	pthread_cond_broadcast(&cv);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void test_dl_no_variable_with_threads(void **state)
{
	(void)state;
	static struct probe t;
	static struct dl_lib l = DL_LIB_ENV(DLPROBE_DIR "/libdlprobe3.so", "none", probe_syms, &t, "SBX_DL_PROBE", "1");
	unsetenv("SBX_DL_PROBE");
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, idle_thread, NULL), 0);
	pthread_mutex_lock(&mu);
	while (!up)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	int r = dl_load(&l, NULL);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	assert_int_equal(r, 0);
	assert_string_equal(t.seen, "(unset)");	/* setenv would race getenv */
	assert_null(getenv("SBX_DL_PROBE"));
}

static void test_dl_missing_names_package(void **state)
{
	(void)state;
	static struct probe t;
	static struct dl_lib nolib = DL_LIB("libsbx-no-such-lib.so.9", "sbx-pkg", probe_syms, &t);
	char *err = NULL;
	assert_int_equal(dl_load(&nolib, &err), -1);
	/* the loader's words, the name once, no advice about memory */
	assert_string_equal(err, "cannot load libsbx-no-such-lib.so.9: cannot open shared object file: No such file "
				 "or directory — install sbx-pkg");
	free(err);
	err = NULL;
	assert_int_equal(dl_load(&nolib, &err), -1);	/* the first outcome, again */
	free(err);

	static const struct dl_sym bad_syms[] = { DL_SYM(struct probe, seen, "dlprobe_no_such_symbol") };
	static struct dl_lib nosym = DL_LIB(DLPROBE_DIR "/libdlprobe1.so", "sbx-pkg", bad_syms, &t);
	err = NULL;
	assert_int_equal(dl_load(&nosym, &err), -1);
	assert_non_null(strstr(err, "dlprobe_no_such_symbol is missing"));
	free(err);
}

/* A library that is there but will not load (here not ELF) is not called
 * missing: the loader's reason is passed on, with no advice about memory
 * (before, every such message began with it). */
static void test_dl_unloadable_is_not_missing(void **state)
{
	(void)state;
	static char path[] = "/tmp/sbx-test-dl-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char junk[256];
	memset(junk, 'x', sizeof(junk));	/* long enough for the loader to read a header */
	assert_int_equal(write(fd, junk, sizeof(junk)), (int)sizeof(junk));
	close(fd);
	static struct probe t;
	static struct dl_lib l = DL_LIB(path, "sbx-pkg", probe_syms, &t);
	char *err = NULL;
	int r = dl_load(&l, &err);
	unlink(path);
	assert_int_equal(r, -1);
	char *want = NULL;
	assert_true(asprintf(&want, "cannot load %s: invalid ELF header — reinstall sbx-pkg", path) > 0);
	if (strcmp(err, want) != 0)
		fail_msg("unexpected message: %s", err);
	free(want);
	free(err);
}

/* Under a tight ulimit -v (no room for one more mapping) the loader
 * fails for want of memory: that reason, and the advice about memory. */
static void test_dl_short_of_memory(void **state)
{
	(void)state;
	static struct probe t;
	static struct dl_lib l = DL_LIB(DLPROBE_DIR "/libdlprobe4.so", "sbx-pkg", probe_syms, &t);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit was, tight;
		char *err = NULL;
		getrlimit(RLIMIT_AS, &was);
		tight = was;
		tight.rlim_cur = vm_size();
		if (!tight.rlim_cur || setrlimit(RLIMIT_AS, &tight) < 0)
			_exit(2);
		int r = dl_load(&l, NULL);
		/* the message is made with memory to make it in: the
		 * first outcome stays */
		setrlimit(RLIMIT_AS, &was);
		if (r == 0 || dl_load(&l, &err) == 0)
			_exit(3);
		(void)!write(pfd[1], err, strlen(err));
		_exit(0);
	}
	close(pfd[1]);
	char msg[1024];
	ssize_t n = read(pfd[0], msg, sizeof(msg) - 1);
	close(pfd[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	msg[n > 0 ? n : 0] = '\0';
	if (strncmp(msg, "cannot load " DLPROBE_DIR "/libdlprobe4.so: ", strlen("cannot load " DLPROBE_DIR "/libdlprobe4.so: ")) != 0 ||
	    !strstr(msg, " — the process is short of memory: give it more (ulimit -v) and run again; should that not "
			 "help, reinstall sbx-pkg"))
		fail_msg("unexpected message: %s", msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dl_sets_variable_while_loading),
		cmocka_unit_test(test_dl_keeps_caller_value),
		cmocka_unit_test(test_dl_no_variable_with_threads),
		cmocka_unit_test(test_dl_missing_names_package),
		cmocka_unit_test(test_dl_unloadable_is_not_missing),
		cmocka_unit_test(test_dl_short_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
