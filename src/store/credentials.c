/*
 * credentials.c — the API key: the pure line parser of credentials.toml
 * first, then the file side.  Rules: credentials.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "store/credentials.h"
#include "store/fsutil.h"

#define CRED_FILE "credentials.toml"

#define CRED_STR_(x) #x
#define CRED_STR(x) CRED_STR_(x)

/* What people paste along with a key: the header it goes in, or its
 * scheme.  Matched in any case; the reason names the usual spelling. */
static const struct {
	const char *prefix;
	const char *why;
} pasted[] = {
	{ "bearer ", "it begins with 'Bearer ', which belongs to an Authorization header, not to the key" },
	{ "bearer\t", "it begins with 'Bearer ', which belongs to an Authorization header, not to the key" },
	{ "x-api-key:", "it begins with 'x-api-key:', the header's name, not part of the key" },
	{ "authorization:", "it begins with 'Authorization:', a header's name, not part of the key" },
};

const char *cred_key_problem(const char *key)
{
	size_t n = key ? strlen(key) : 0;
	if (n == 0)
		return "it is empty";
	if (n > CRED_MAX_KEY)
		return "it is longer than " CRED_STR(CRED_MAX_KEY) " bytes";
	for (size_t i = 0; i < SBX_ARRAY_LEN(pasted); i++)
		if (strncasecmp(key, pasted[i].prefix, strlen(pasted[i].prefix)) == 0)
			return pasted[i].why;
	if (key[0] == '"' || key[0] == '\'' || key[n - 1] == '"' || key[n - 1] == '\'')
		return "it begins or ends with a quote mark, which no key has";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];
		if (c == ' ' || c == '\t')
			return "it holds a space or tab";
		if (c < 0x20 || c == 0x7f)
			return "it holds a control byte (a line break, say)";
		if (c >= 0x80)
			return "it holds a byte that is not ASCII (a typographic dash or quote from a document, say)";
	}
	if (n < CRED_MIN_KEY)
		return "it is shorter than " CRED_STR(CRED_MIN_KEY) " bytes";
	return NULL;
}

int cred_key_valid(const char *key)
{
	return cred_key_problem(key) == NULL;
}

void cred_key_free(char *key)
{
	if (!key)
		return;
	explicit_bzero(key, strlen(key));
	free(key);
}

void cred_parser_init(struct cred_parser *p)
{
	memset(p, 0, sizeof(*p));
}

void cred_parser_release(struct cred_parser *p)
{
	explicit_bzero(p->line, sizeof(p->line));
	cred_key_free(p->key);
	free(p->error);
	memset(p, 0, sizeof(*p));
}

char *cred_parser_take_key(struct cred_parser *p)
{
	char *k = p->failed ? NULL : p->key;
	if (k)
		p->key = NULL;
	return k;
}

/* Errors name the line and the kind of problem, never the bytes: the file
 * holds a secret, and a typo in it is still most of the secret. */
static int cred_fail(struct cred_parser *p, const char *why)
{
	if (!p->failed) {
		p->failed = 1;
		p->error = xasprintf("line %u: %s", p->lineno, why);
	}
	return -1;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Parse one line (NUL-terminated, no newline; p->lineno is its number). */
static int cred_line(struct cred_parser *p, char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	if (strlen(s) != n)
		return cred_fail(p, "a NUL byte — the file is not text");
	const char *c = skip_ws(s);
	if (*c == '\0' || *c == '#')
		return 0;
	if (*c == '[')
		return cred_fail(p, "a [table] header — the file holds only: api_key = \"...\"");
	const char *k = c;
	while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
	       *c == '-')
		c++;
	if (c == k)
		return cred_fail(p, "expected a line of the form api_key = \"...\"");
	if ((size_t)(c - k) != 7 || strncmp(k, "api_key", 7) != 0)
		return cred_fail(p, "an unknown key — only api_key is read");
	c = skip_ws(c);
	if (*c != '=')
		return cred_fail(p, "expected '=' after api_key");
	c = skip_ws(c + 1);
	char quote = *c;
	if (quote != '"' && quote != '\'')
		return cred_fail(p, "the value of api_key is not a quoted string");
	c++;
	char val[CRED_MAX_LINE + 1];
	size_t vn = 0;
	int closed = 0, r = 0;
	while (*c) {
		char ch = *c++;
		if (ch == quote) {
			closed = 1;
			break;
		}
		if (quote == '"' && ch == '\\') {
			if (*c != '"' && *c != '\\') {
				r = cred_fail(p, "an escape other than \\\" or \\\\ in the value");
				goto out;
			}
			ch = *c++;
		}
		val[vn++] = ch;
	}
	val[vn] = '\0';
	if (!closed) {
		r = cred_fail(p, "the quoted value is not closed on its line");
		goto out;
	}
	c = skip_ws(c);
	if (*c != '\0' && *c != '#') {
		r = cred_fail(p, "unexpected text after the value");
		goto out;
	}
	if (p->key) {
		r = cred_fail(p, "api_key is given a second time");
		goto out;
	}
	const char *why = cred_key_problem(val);
	if (why) {
		char *what = xasprintf("the value is not an API key: %s — give the key alone between the quotes", why);
		r = cred_fail(p, what);
		free(what);
		goto out;
	}
	p->key = xstrdup(val);
out:
	explicit_bzero(val, sizeof(val));
	return r;
}

/* The line in p->line is complete: parse it, then wipe it (it may hold
 * the key). */
static int end_line(struct cred_parser *p)
{
	p->line[p->len] = '\0';
	p->lineno++;
	size_t len = p->len;
	p->len = 0;
	int r = cred_line(p, p->line, len);
	explicit_bzero(p->line, len);
	return r;
}

int cred_parser_feed(struct cred_parser *p, const char *buf, size_t n)
{
	if (p->failed)
		return -1;
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		if (p->len + take > CRED_MAX_LINE) {
			p->lineno++;
			return cred_fail(p, "longer than 4096 bytes — not a credentials file sandbx wrote");
		}
		memcpy(p->line + p->len, buf, take);
		p->len += take;
		buf += take;
		n -= take;
		if (!nl)
			break;
		buf++;
		n--;
		if (end_line(p) < 0)
			return -1;
	}
	return 0;
}

int cred_parser_finish(struct cred_parser *p)
{
	if (p->failed)
		return -1;
	if (p->len > 0 && end_line(p) < 0)
		return -1;
	if (!p->key) {
		p->failed = 1;
		p->error = xstrdup("no api_key line");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The file                                                           */

static const char rotate[] = "rotate the key (console.anthropic.com, API keys), since others may have read it";

int cred_load_file(const struct xdg_paths *x, char **key, char **err)
{
	struct stat st;
	char m[8];
	int base = -1, dir = -1, fd = -1, r = -1;
	char *buf = NULL;
	size_t n = 0;
	struct cred_parser p;

	*key = NULL;
	cred_parser_init(&p);
	base = fsu_open_base(x->config_home, 0, err);
	if (base < 0) {
		r = errno == ENOENT ? -ENOENT : -1;
		if (r == -1)
			fsu_advise(err, xdg_advice(x, 1));
		goto out;
	}
	dir = fsu_open_subdir(base, "sandbx", x->config_dir, 0, &st, NULL, err);
	if (dir < 0) {
		if (errno == EACCES)
			fsu_advise(err, xdg_advice(x, 1));
		r = errno == ENOENT ? -ENOENT : (errno == EPERM || errno == ELOOP || errno == ENOTDIR) ? -EPERM : -1;
		goto out;
	}
	if (st.st_mode & 077) {
		fsu_mode_str(st.st_mode, m);
		*err = xasprintf("the credential directory '%s' has mode %s, open to other users — %s; then chmod 700 "
				 "'%s' (or 'sandbx auth logout' and login again)", x->config_dir, m, rotate, x->config_dir);
		r = -EPERM;
		goto out;
	}
	fd = openat(dir, CRED_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT) {
			*err = xasprintf("no stored key at '%s'", x->credentials);
			r = -ENOENT;
		} else if (e == ELOOP) {
			*err = xasprintf("'%s' is a symbolic link — sandbx reads only a file it wrote; remove it and run "
					 "'sandbx auth login'", x->credentials);
			r = -EPERM;
		} else {
			*err = fsu_open_error(dir, CRED_FILE, x->credentials, "", e, FSU_FILE_MODE);
		}
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("'%s' is not a regular file — remove it and run 'sandbx auth login'", x->credentials);
		r = -EPERM;
		goto out;
	}
	if (fsu_check_owner(&st, x->credentials, err) < 0) {
		r = -EPERM;
		goto out;
	}
	if (st.st_mode & 077) {
		fsu_mode_str(st.st_mode, m);
		*err = xasprintf("the credential file '%s' has mode %s, open to other users — %s; then chmod 600 '%s' "
				 "(or 'sandbx auth logout' and login again)", x->credentials, m, rotate, x->credentials);
		r = -EPERM;
		goto out;
	}
	if (fsu_read_all(fd, CRED_MAX_FILE, x->credentials, &buf, &n, err) < 0)
		goto out;
	if (cred_parser_feed(&p, buf, n) < 0 || cred_parser_finish(&p) < 0) {
		*err = xasprintf("cannot read the key from '%s': %s — fix the file or run 'sandbx auth login' again",
				 x->credentials, p.error);
		r = -EINVAL;
		goto out;
	}
	*key = cred_parser_take_key(&p);
	r = 0;
out:
	if (buf) {
		explicit_bzero(buf, n);
		free(buf);
	}
	cred_parser_release(&p);
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	if (base >= 0)
		close(base);
	return r;
}

int cred_load_api_key(char **key, char **source, char **err)
{
	*key = NULL;
	*source = NULL;
	const char *env = getenv(CRED_ENV);
	if (env && *env) {
		const char *why = cred_key_problem(env);
		if (why) {
			*err = xasprintf(CRED_ENV " does not hold an API key: %s — " CRED_ENV_FIX, why);
			return -EINVAL;
		}
		*key = xstrdup(env);
		*source = xstrdup("the environment (" CRED_ENV ")");
		return 0;
	}
	struct xdg_paths x;
	if (xdg_paths_get(&x, err) < 0)
		return -1;
	int r = cred_load_file(&x, key, err);
	if (r == -ENOENT) {
		free(*err);
		*err = xasprintf("no API key: " CRED_ENV " is not set and '%s' does not exist — run 'sandbx auth login' "
				 "or set " CRED_ENV, x.credentials);
	}
	if (r == 0)
		*source = xstrdup(x.credentials);
	xdg_paths_release(&x);
	return r;
}

static int is_cred_file(const char *name, size_t len)
{
	return len == sizeof(CRED_FILE) - 1 && memcmp(name, CRED_FILE, len) == 0;
}

/*
 * Remove what a login cut short left of the key: fsu_write_atomic's
 * temporary files (".credentials.toml." and 8 random letters or digits)
 * hold a whole copy until the rename, and a crash or a kill before it
 * leaves one behind.  Only regular files of that exact shape go; returns
 * how many.
 */
static int sweep_temps(int dir)
{
	return fsu_sweep_temps(dir, is_cred_file, 0);
}

/* Held until dir is closed.  A filesystem without flock (some network
 * ones) goes unlocked, as it did before. */
static void cred_dir_lock(int dir)
{
	while (flock(dir, LOCK_EX) < 0 && errno == EINTR)
		;
}

/*
 * The credential file in dir, when it has a second name (a hard link: a
 * dotfiles tree, a project): replacing or removing it here would leave the
 * key under that name, and the policy's refusal of a grant that may hold
 * such a link (it asks the credential file for its link count) would stop.
 * -1 with *err saying so (doing: what was refused), else 0.
 */
static int cred_links_refuse(int dir, const struct xdg_paths *x, const char *doing, char **err)
{
	struct stat st;
	if (fstatat(dir, CRED_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_nlink <= 1)
		return 0;
	char *fix = fsu_links_advice(x->credentials);
	*err = xasprintf("the credential file '%s' has %lu hard links: %s would leave the key under the other "
			 "names, where sandbx no longer keeps confined commands from it — refusing; %s, then try again",
			 x->credentials, (unsigned long)st.st_nlink, doing, fix);
	free(fix);
	errno = EMLINK;
	return -1;
}

/* A directory where the credential file goes (made by hand, or by a
 * tool that took the name): no key can be written or removed there, and
 * the rename or unlink would only say "Is a directory".  -1 with *err
 * saying what it is and what to do (doing: what was refused), else 0. */
static int cred_dir_in_place(int dir, const struct xdg_paths *x, const char *doing, char **err)
{
	struct stat st;
	if (fstatat(dir, CRED_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	*err = xasprintf("'%s' is a directory, not the credential file sandbx writes — %s; nothing was changed: "
			 "move it away, then try again", x->credentials, doing);
	errno = EISDIR;
	return -1;
}

/* A symbolic link where the credential file goes (a dotfiles tree's): the
 * key is in the file it names, which replacing or removing the link leaves
 * as it is, while logout said the key was removed.  -1 with *err naming
 * where it points (doing: what was refused), else 0. */
static int cred_link_in_place(int dir, const struct xdg_paths *x, const char *doing, char **err)
{
	struct stat st;
	if (fstatat(dir, CRED_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	char to[PATH_MAX];
	ssize_t n = readlinkat(dir, CRED_FILE, to, sizeof(to) - 1);
	to[n < 0 ? 0 : n] = '\0';
	*err = xasprintf("'%s' is a symbolic link to '%s', not the credential file sandbx writes — %s would "
			 "leave any key in the file it names; nothing was changed: remove that key yourself if "
			 "it holds one, remove the link, then try again", x->credentials, n < 0 ? "?" : to, doing);
	errno = ELOOP;
	return -1;
}

int cred_store_key(const struct xdg_paths *x, const char *key, struct strv *notes, char **err)
{
	struct stat st;
	const char *why = cred_key_problem(key);
	if (why) {
		*err = xasprintf("that is not an API key: %s — nothing stored (a key stored before is kept); give the "
				 "key alone, as the console showed it", why);
		return -1;
	}
	int base = fsu_open_base(x->config_home, FSU_CREATE, err);
	if (base < 0) {
		fsu_advise(err, xdg_advice(x, 1));
		return -1;
	}
	int dir = fsu_open_subdir(base, "sandbx", x->config_dir, FSU_CREATE | FSU_NARROW, &st, notes, err);
	close(base);
	if (dir < 0) {
		if (errno == EACCES || errno == EROFS)
			fsu_advise(err, xdg_advice(x, 1));
		return -1;
	}
	/* One login (or logout) at a time: the sweep of what an interrupted
	 * login left cannot tell it from a login still running, and took its
	 * temporary file before the rename. */
	cred_dir_lock(dir);
	if (cred_links_refuse(dir, x, "replacing it", err) < 0 ||
	    cred_link_in_place(dir, x, "replacing it", err) < 0 ||
	    cred_dir_in_place(dir, x, "no key can be stored there", err) < 0) {
		close(dir);
		return -1;
	}
	/* 2 bytes per key byte covers every escape. */
	size_t cap = 2 * strlen(key) + 160, n = 0;
	char *buf = xmalloc(cap);
	static const char head[] = "# written by 'sandbx auth login'; keep it mode 0600\napi_key = \"";
	memcpy(buf, head, sizeof(head) - 1);
	n = sizeof(head) - 1;
	for (const char *c = key; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf[n++] = '\\';
		buf[n++] = *c;
	}
	buf[n++] = '"';
	buf[n++] = '\n';
	/* Swept first: the directory's sync after the rename then makes
	 * their removal durable too, so no old copy comes back after a crash. */
	if (sweep_temps(dir) > 0 && notes)
		strv_push_own(notes, xasprintf("removed what an earlier login cut short left of a key in '%s'",
					   x->config_dir));
	int r = fsu_write_atomic(dir, CRED_FILE, x->credentials, buf, n, err);
	if (r == FSU_UNSYNCED) {
		free(*err);
		*err = xasprintf("the key is stored in '%s', but its directory could not be synced to disk: %s — a "
				 "crash or power loss may still lose it (and leave the key stored before, or none): "
				 "check the filesystem (dmesg), then run 'sandbx auth login' again", x->credentials,
				 strerror(errno));
	} else if (r < 0) {
		fsu_advise(err, xdg_write_advice(x, 1, errno));
	}
	explicit_bzero(buf, cap);
	free(buf);
	close(dir);
	return r < 0 ? -1 : 0;
}

/* After a removal in dir (what: what went): durable only once dir is
 * synced.  0, or -1 with *err saying it is gone but may come back. */
static int removal_synced(int dir, const struct xdg_paths *x, const char *what, char **err)
{
	int e = dir_sync(dir);
	if (!e)
		return 0;
	*err = xasprintf("removed %s, but '%s' could not be synced to disk: %s — a crash or power loss may still "
			 "bring it back: check the filesystem (dmesg), then run 'sandbx auth logout' again", what,
			 x->config_dir, strerror(e));
	errno = e;
	return -1;
}

int cred_remove(const struct xdg_paths *x, int *removed, int *leftovers, char **err)
{
	struct stat st;
	*removed = 0;
	*leftovers = 0;
	int base = fsu_open_base(x->config_home, 0, err);
	if (base < 0) {
		if (errno != ENOENT) {
			fsu_advise(err, xdg_advice(x, 1));
			return -1;
		}
		free(*err);
		*err = NULL;
		return 0;
	}
	/* No mode check: a key in a too-wide file must still be removable. */
	int dir = fsu_open_subdir(base, "sandbx", x->config_dir, 0, &st, NULL, err);
	close(base);
	if (dir < 0) {
		if (errno != ENOENT)
			return -1;
		free(*err);
		*err = NULL;
		return 0;
	}
	cred_dir_lock(dir);
	if (cred_links_refuse(dir, x, "removing it", err) < 0 ||
	    cred_link_in_place(dir, x, "removing it", err) < 0 ||
	    cred_dir_in_place(dir, x, "it holds no key sandbx stored", err) < 0) {
		close(dir);
		return -1;
	}
	*leftovers = sweep_temps(dir);
	if (unlinkat(dir, CRED_FILE, 0) < 0) {
		int e = errno;
		/* the temporary copies went all the same */
		int r = *leftovers ? removal_synced(dir, x, "what an interrupted login left of a key", err) : 0;
		close(dir);
		if (e == ENOENT)
			return r;
		free(*err);
		*err = xasprintf("cannot remove '%s': %s — %s", x->credentials, strerror(e),
				 e == EROFS ? "remount its filesystem read-write and run "
					      "'sandbx auth logout' again"
					    : "check that you may write its directory, and run 'sandbx auth logout' again");
		return -1;
	}
	*removed = 1;
	char *what = xasprintf("the stored key '%s'", x->credentials);
	int r = removal_synced(dir, x, what, err);
	free(what);
	close(dir);
	return r;
}
