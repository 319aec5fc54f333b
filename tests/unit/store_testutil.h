/*
 * store_testutil.h — shared by test_session.c and test_credentials.c:
 * a private XDG tree per test, and "a file owned by another user" that
 * works as root (chown) and as an unprivileged user (a user namespace in
 * which a root-owned file is bind-mounted over the target: inside, its
 * owner shows as the overflow uid, not ours).
 */
#ifndef SBX_STORE_TESTUTIL_H
#define SBX_STORE_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "store/xdg.h"
#include "child_testutil.h"

struct store_tmp {
	char root[64];
	struct xdg_paths x;
};

static inline void store_tmp_init(struct store_tmp *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/sbx-unit-store.XXXXXX");
	if (!mkdtemp(t->root))
		abort();
	char *state = NULL, *config = NULL, *err = NULL;
	if (asprintf(&state, "%s/state", t->root) < 0 || asprintf(&config, "%s/config", t->root) < 0)
		abort();
	setenv("HOME", t->root, 1);
	setenv("XDG_STATE_HOME", state, 1);
	setenv("XDG_CONFIG_HOME", config, 1);
	unsetenv("ANTHROPIC_API_KEY");
	free(state);
	free(config);
	if (xdg_paths_get(&t->x, &err) < 0)
		abort();
}

static inline void store_tmp_release(struct store_tmp *t)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", t->root) >= 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", t->root);
	free(cmd);
	xdg_paths_release(&t->x);
}

static inline void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) < 0)
		abort();
	close(fd);
}

static inline int write_id_map(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/*
 * Run check() while `target` (a file or directory we own) appears owned by
 * another uid.  Returns check()'s result (0 = as expected), or 77 when the
 * situation cannot be set up here (the caller skips).
 */
static inline int with_foreign_owner(const char *target, int (*check)(void *), void *arg)
{
	struct stat st;
	if (stat(target, &st) < 0)
		return 99;
	if (geteuid() == 0) {
		if (chown(target, 4242, 4242) < 0)
			return 77;
		int r = check(arg);
		if (chown(target, st.st_uid, st.st_gid) < 0)
			return 98;
		return r;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 77;
	if (pid == 0) {
		char map[64];
		uid_t uid = geteuid();
		gid_t gid = getegid();
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			_exit(77);
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
		if (write_id_map("/proc/self/uid_map", map) < 0)
			_exit(77);
		write_id_map("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
		if (write_id_map("/proc/self/gid_map", map) < 0)
			_exit(77);
		/* "none", not NULL: valgrind counts a NULL source or type as
		 * an error, which the child's exit status then carries (99) */
		if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(77);
		/* Something root owns, of the same kind as the target. */
		const char *src = S_ISDIR(st.st_mode) ? "/usr/share" : "/etc/passwd";
		if (mount(src, target, "none", MS_BIND, NULL) < 0)
			_exit(77);
		child_exit(check(arg) == 0 ? 0 : 1);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 97;
	return WEXITSTATUS(status);
}

#endif
