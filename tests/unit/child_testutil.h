/*
 * child_testutil.h — the end of a child a unit test forks.
 *
 * A child ends in _exit: cmocka's atexit work and the stdio buffers it
 * inherited are the parent's.  But _exit skips LeakSanitizer's check,
 * which runs at exit, so a child that frees nothing passed the ASan
 * build; valgrind checks at _exit too, yet most of these children cannot
 * run under it (namespaces, seccomp, rlimits) and are skipped there.
 * child_exit(0) runs the check first: a leak is reported on stderr and
 * makes the child exit with the sanitizer's exitcode (1 under ASan)
 * instead, which the parent's check of the status (WIFEXITED,
 * WEXITSTATUS == 0) turns into a failure.  Any other code is a failure
 * already and exits as it is.  What a child inherited and still points
 * to is not a leak; a parent's own leak (a failed test's) is, in every
 * child after it: the first failure is the one to read.
 */
#ifndef SBX_CHILD_TESTUTIL_H
#define SBX_CHILD_TESTUTIL_H

#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

static inline void child_exit(int code)
{
#if defined(__SANITIZE_ADDRESS__)
	if (code == 0)
		__lsan_do_leak_check();
#endif
	_exit(code);
}

#endif
