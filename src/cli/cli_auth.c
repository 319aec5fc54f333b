/*
 * cli_auth.c — `sandbx auth login | logout | status` (CLI.md).
 *
 * login reads the key from the terminal with echo off (/dev/tty, when stdin
 * is a terminal) or from stdin (a pipe or file), and stores it through
 * cred_store_key.  status names the source that holds the key and never
 * prints the key.  Exit 0 done, 1 error (status: 1 when no usable key).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "store/credentials.h"
#include "util/log.h"

#define AUTH_MAX_INPUT (CRED_MAX_KEY + 64)	/* what login reads: the key and some blanks */

/* Echo restoration on a signal that arrives while echo is off. */
static int tty_fd = -1;
static struct termios tty_saved, tty_quiet;
static volatile sig_atomic_t tty_dirty;
static const char prompt[] = "Anthropic API key (input hidden): ";

static void tty_restore_signal(int sig)
{
	if (tty_dirty)
		tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * ^Z while echo is off: the shell takes the terminal back, and at fg gives
 * it back as the shell keeps it, echo on (bash does), so the key typed
 * after fg was shown.  Stop with the terminal as it was; once continued,
 * turn echo off again and ask again (what was typed before ^Z the
 * terminal dropped).
 */
static void tty_stop_signal(int sig)
{
	int e = errno;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, again = { .sa_handler = tty_stop_signal };
	sigset_t s;
	if (tty_dirty)
		tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);		/* stopped here until continued */
	sigprocmask(SIG_BLOCK, &s, NULL);
	sigaction(sig, &again, NULL);
	if (tty_dirty) {
		tcsetattr(tty_fd, TCSAFLUSH, &tty_quiet);
		(void)!write(tty_fd, prompt, sizeof(prompt) - 1);
	}
	errno = e;
}

static void trim(char *s)
{
	size_t n = strlen(s), a = 0;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')
		a++;
	memmove(s, s + a, n - a + 1);
}

/* Read up to a newline or the end; -1 when longer than AUTH_MAX_INPUT,
 * -2 when it holds a NUL byte (the key would be cut there, silently), -3
 * (errno set) when a read fails: what came before it is not the whole key,
 * and counted as the end it would be stored cut short. */
static int read_line_fd(int fd, char *buf, size_t cap, int stop_at_newline)
{
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t k = read(fd, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -3;
		if (k == 0)
			break;
		if (stop_at_newline && c == '\n')
			break;
		if (n + 1 >= cap)
			return -1;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return memchr(buf, '\0', n) ? -2 : 0;
}

static int read_key(char *buf, size_t cap)
{
	if (!isatty(STDIN_FILENO)) {
		int r = read_line_fd(STDIN_FILENO, buf, cap, 0);
		if (r == -3)
			sbx_err("cannot read the key from stdin: %s — nothing stored (a key stored before is kept); "
				"pipe the key alone, or run 'sandbx auth login' on a terminal", strerror(errno));
		else if (r < 0)
			sbx_err(r == -2 ? "the input on stdin holds a NUL byte, which no API key has — pipe the key alone; "
					  "nothing stored"
					: "the input on stdin is longer than an API key — pipe the key alone");
		if (r < 0)
			return -1;
		return 0;
	}
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		fd = dup(STDIN_FILENO);
	struct termios t;
	if (fd < 0 || tcgetattr(fd, &tty_saved) < 0) {
		sbx_err("cannot use the terminal to read the key: %s — pipe it instead: sandbx auth login < keyfile",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	(void)!write(fd, prompt, sizeof(prompt) - 1);
	t = tty_saved;
	t.c_lflag &= ~(tcflag_t)ECHO;
	t.c_lflag |= ECHONL;
	tty_quiet = t;
	tty_fd = fd;
	struct sigaction sa = { .sa_handler = tty_restore_signal }, stop = { .sa_handler = tty_stop_signal }, old[5];
	static const int sigs[5] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP };
	for (int i = 0; i < 5; i++)
		sigaction(sigs[i], sigs[i] == SIGTSTP ? &stop : &sa, &old[i]);
	tty_dirty = 1;
	int r = 0;
	if (tcsetattr(fd, TCSAFLUSH, &t) < 0) {
		sbx_err("cannot turn off echo on the terminal: %s — pipe the key instead", strerror(errno));
		r = -1;
	} else if ((r = read_line_fd(fd, buf, cap, 1)) == -3) {
		sbx_err("cannot read the key from the terminal: %s — nothing stored (a key stored before is kept)",
			strerror(errno));
		r = -1;
	} else if (r < 0) {
		sbx_err(r == -2 ? "the input holds a NUL byte, which no API key has — nothing stored"
				: "the input is longer than an API key — nothing stored");
		r = -1;
	}
	/* A ^Z between the restore and tty_dirty = 0 would turn echo off
	 * again once continued: the handlers go with the signals held. */
	sigset_t held, was;
	sigemptyset(&held);
	for (int i = 0; i < 5; i++)
		sigaddset(&held, sigs[i]);
	sigprocmask(SIG_BLOCK, &held, &was);
	tcsetattr(fd, TCSAFLUSH, &tty_saved);
	tty_dirty = 0;
	for (int i = 0; i < 5; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, &was, NULL);
	close(fd);
	tty_fd = -1;
	return r;
}

static void print_notes(struct strv *notes)
{
	for (size_t i = 0; i < notes->n; i++)
		sbx_err("%s", notes->v[i]);
	strv_free(notes);
}

static int env_set(void)
{
	const char *e = getenv(CRED_ENV);
	return e && *e;
}

static int auth_login(const struct xdg_paths *x)
{
	char buf[AUTH_MAX_INPUT + 1];
	char *err = NULL;
	struct strv notes = { 0 };
	if (read_key(buf, sizeof(buf)) < 0) {
		explicit_bzero(buf, sizeof(buf));	/* what was read of a refused input */
		return EXIT_ERROR;
	}
	trim(buf);
	if (!*buf) {
		sbx_err("no key was given — nothing stored");
		return EXIT_ERROR;
	}
	int r = cred_store_key(x, buf, &notes, &err);
	explicit_bzero(buf, sizeof(buf));
	print_notes(&notes);
	if (r < 0) {
		sbx_err("%s", err);
		free(err);
		return EXIT_ERROR;
	}
	printf("stored the API key in '%s' (mode 0600)\n", x->credentials);
	if (env_set())
		sbx_err(CRED_ENV " is set in this environment and takes precedence over the stored key");
	return EXIT_OK;
}

static int auth_logout(const struct xdg_paths *x)
{
	char *err = NULL;
	int removed = 0, leftovers = 0;
	int r = cred_remove(x, &removed, &leftovers, &err);
	if (leftovers)
		printf("removed %d temporary cop%s of a key that an interrupted 'sandbx auth login' left in '%s'\n",
		       leftovers, leftovers == 1 ? "y" : "ies", x->config_dir);
	if (r < 0) {
		sbx_err("%s", err);
		free(err);
		return EXIT_ERROR;
	}
	if (removed)
		printf("removed the stored key '%s'\n", x->credentials);
	else
		printf("no stored key at '%s'\n", x->credentials);
	if (env_set())
		sbx_err(CRED_ENV " is still set in this environment; sandbx will use it until you unset it");
	return EXIT_OK;
}

static int auth_status(const struct xdg_paths *x)
{
	char *key = NULL, *err = NULL;
	int fr = cred_load_file(x, &key, &err);
	cred_key_free(key);
	if (env_set()) {
		const char *why = cred_key_problem(getenv(CRED_ENV));
		if (why) {
			sbx_err(CRED_ENV " does not hold an API key: %s — " CRED_ENV_FIX, why);
			free(err);
			return EXIT_ERROR;
		}
		printf("API key: from the environment (" CRED_ENV ")\n");
		if (fr == 0)
			printf("a stored key in the file '%s' is also present; the environment takes precedence\n",
			       x->credentials);
		else if (fr != -ENOENT)
			sbx_err("the stored key is not usable: %s", err);
		free(err);
		return EXIT_OK;
	}
	if (fr == 0) {
		printf("API key: from the file '%s'\n", x->credentials);
		return EXIT_OK;
	}
	if (fr == -ENOENT)
		sbx_err("no API key: " CRED_ENV " is not set and no key is stored in '%s' — run 'sandbx auth login'",
			x->credentials);
	else
		sbx_err("%s", err);
	free(err);
	return EXIT_ERROR;
}

int cli_auth(struct cli_opts *o)
{
	struct xdg_paths x;
	char *err = NULL;
	/* Before the paths: with HOME unset or relative they come from
	 * getpwuid, which may open an NSS module through LD_LIBRARY_PATH as
	 * it was at start, in the process that is about to read the key. */
	int rc = cli_ldpath_guard_no_grants();
	if (rc)
		return rc;
	if (xdg_paths_get(&x, &err) < 0) {
		sbx_err("%s", err);
		free(err);
		return EXIT_ERROR;
	}
	if (strcmp(o->auth_action, "login") == 0)
		rc = auth_login(&x);
	else if (strcmp(o->auth_action, "logout") == 0)
		rc = auth_logout(&x);
	else
		rc = auth_status(&x);
	xdg_paths_release(&x);
	return rc;
}
