/*
 * test_credentials.c — the credentials.toml parser (any split, errors that
 * never echo the content), the round trip through auth login's writer, the
 * refusal of wide modes, other owners and symlinks, logout, and the
 * environment's precedence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>

#include "cli/cli.h"
#include "store/credentials.h"
#include "fsync_spy.h"
#include "store_testutil.h"

/* ---- parser ---- */

static int parse_split(const char *text, size_t len, int mode, unsigned seed, char **key, char **err)
{
	struct cred_parser p;
	cred_parser_init(&p);
	size_t i = 0;
	int r = 0;
	srand(seed);
	while (i < len && r == 0) {
		size_t k = mode == 0 ? len - i : mode == 1 ? 1 : 1 + (size_t)rand() % 13;
		if (k > len - i)
			k = len - i;
		r = cred_parser_feed(&p, text + i, k);
		i += k;
	}
	if (r == 0)
		r = cred_parser_finish(&p);
	*key = r == 0 ? cred_parser_take_key(&p) : NULL;
	*err = p.error ? xstrdup(p.error) : NULL;
	cred_parser_release(&p);
	return r;
}

static void expect_key(const char *text, const char *want)
{
	for (int mode = 0; mode <= 2; mode++)
		for (unsigned seed = 1; seed <= (mode == 2 ? 50u : 1u); seed++) {
			char *key, *err;
			int r = parse_split(text, strlen(text), mode, seed, &key, &err);
			if (r != 0)
				fail_msg("mode %d: %s", mode, err);
			assert_string_equal(key, want);
			cred_key_free(key);
			free(err);
		}
}

static void test_cred_parse_any_split(void **state)
{
	expect_key("api_key = \"sk-ant-abc\"\n", "sk-ant-abc");
	expect_key("# comment\n\n  api_key=\"sk-ant-abc\"   # trailing\n", "sk-ant-abc");
	expect_key("api_key = 'sk-ant-x\\y'\r\n", "sk-ant-x\\y");	/* literal string: no escapes */
	expect_key("api_key = \"ab\\\"cd\\\\ef\"", "ab\"cd\\ef");	/* no final newline */
}

/* A parse error names the line and never repeats the file's bytes. */
static void expect_error(const char *text, const char *needle, const char *secret)
{
	for (int mode = 0; mode <= 2; mode++) {
		char *key, *err;
		int r = parse_split(text, strlen(text), mode, 5, &key, &err);
		assert_int_equal(r, -1);
		assert_null(key);
		assert_non_null(err);
		if (!strstr(err, needle))
			fail_msg("error '%s' lacks '%s'", err, needle);
		if (secret && strstr(err, secret))
			fail_msg("error '%s' echoes the content", err);
		free(err);
	}
}

static void test_cred_parse_errors_never_echo(void **state)
{
	expect_error("api_key = \"sk-ant-SECRETVALUE\n", "line 1: the quoted value is not closed", "SECRET");
	expect_error("# x\nsk-ant-SECRETVALUE\n", "line 2: an unknown key", "SECRET");
	expect_error("apikey = \"sk-ant-SECRETVALUE\"\n", "line 1: an unknown key", "SECRET");
	expect_error("api_key = sk-ant-SECRETVALUE\n", "line 1: the value of api_key is not a quoted", "SECRET");
	expect_error("api_key = \"sk-ant-SECRET VALUE\"\n", "line 1: the value is not an API key", "SECRET");
	expect_error("api_key = \"sk-ant-SECRET\\nVALUE\"\n", "line 1: an escape", "SECRET");
	expect_error("api_key = \"sk-ant-SECRETVALUE\" junk\n", "line 1: unexpected text", "SECRET");
	expect_error("[auth]\napi_key = \"sk-ant-SECRETVALUE\"\n", "line 1: a [table]", "SECRET");
	expect_error("api_key = \"sk-aaa\"\napi_key = \"sk-bbb\"\n", "line 2: api_key is given a second time", NULL);
	expect_error("# only a comment\n", "no api_key", NULL);
	expect_error("", "no api_key", NULL);
	static const char nul[] = "api_key = \"sk\0SECRET\"\n";
	char *key, *err;
	assert_int_equal(parse_split(nul, sizeof(nul) - 1, 0, 0, &key, &err), -1);
	assert_null(strstr(err, "SECRET"));
	free(err);
	char *big = xmalloc(CRED_MAX_LINE + 100);
	memset(big, 'S', CRED_MAX_LINE + 99);
	big[CRED_MAX_LINE + 99] = '\0';
	expect_error(big, "line 1: longer than", "SSSS");
	free(big);
}

/* What is not an API key, and why: each case as the reason it gets, the
 * same from the parser of the file (never quoting it). */
static const struct {
	const char *key;
	const char *why;	/* a piece of the reason; NULL: a key */
} key_cases[] = {
	{ "", "empty" },
	{ "k", "shorter than 6 bytes" },
	{ "sk-ab", "shorter than 6 bytes" },
	{ "sk-abc", NULL },
	{ "sk-ant-api03-AbCd_0123456789-xyzXYZ", NULL },
	{ "sk-bearer-x", NULL },
	{ "ab\"cd'ef", NULL },
	{ "Bearer sk-ant-secret", "'Bearer '" },
	{ "bearer sk-ant-secret", "'Bearer '" },
	{ "BEARER\tsk-ant-secret", "'Bearer '" },
	{ "x-api-key: sk-ant-secret", "'x-api-key:'" },
	{ "X-Api-Key:sk-ant-secret", "'x-api-key:'" },
	{ "Authorization: Bearer sk-ant-secret", "'Authorization:'" },
	{ "authorization:sk-ant-secret", "'Authorization:'" },
	{ "\"sk-ant-secret\"", "quote mark" },
	{ "'sk-ant-secret'", "quote mark" },
	{ "sk-ant-secret\"", "quote mark" },
	{ "\"k\"", "quote mark" },
	{ "sk-ant secret", "space or tab" },
	{ "sk-ant\tsecret", "space or tab" },
	{ "sk-ant\rsecret", "control byte" },
	{ "sk-ant\nX-Evil: 1", "control byte" },
	{ "sk-ant\x7fsecret", "control byte" },
	{ "sk-ant\x01", "control byte" },
	{ "sk\xe2\x80\x93" "ant-secret", "not ASCII" },
	{ "sk-ant-caf\xc3\xa9", "not ASCII" },
};

static void test_cred_key_problems(void **state)
{
	char *big = xmalloc(CRED_MAX_KEY + 2);
	memset(big, 'a', CRED_MAX_KEY + 1);
	big[CRED_MAX_KEY + 1] = '\0';
	assert_non_null(strstr(cred_key_problem(big), "longer than 1024 bytes"));
	big[CRED_MAX_KEY] = '\0';
	assert_null(cred_key_problem(big));
	free(big);
	assert_non_null(strstr(cred_key_problem(NULL), "empty"));
	for (size_t i = 0; i < SBX_ARRAY_LEN(key_cases); i++) {
		const char *k = key_cases[i].key, *want = key_cases[i].why, *got = cred_key_problem(k);
		if (!want && got)
			fail_msg("case %zu refused: %s", i, got);
		if (want && (!got || !strstr(got, want)))
			fail_msg("case %zu: got '%s', want '%s'", i, got ? got : "(accepted)", want);
		assert_int_equal(cred_key_valid(k), !want);
		/* the file: the same verdict, the line named, the key never
		 * quoted (control bytes other than CR/LF cannot be in a
		 * quoted value; a quote would end it) */
		if (!*k || strpbrk(k, "\n\"\\"))
			continue;
		char *text = xasprintf("# a comment\napi_key = '%s'\n", k), *key = NULL, *err = NULL;
		if (strchr(k, '\'')) {
			free(text);
			continue;
		}
		int r = parse_split(text, strlen(text), 0, 0, &key, &err);
		if (want) {
			assert_int_equal(r, -1);
			if (!strstr(err, "line 2: the value is not an API key: ") || !strstr(err, want))
				fail_msg("case %zu: file error '%s'", i, err);
			if (strlen(k) > 2 && strstr(err, k))
				fail_msg("case %zu: the error quotes the key", i);
		} else {
			assert_int_equal(r, 0);
			assert_string_equal(key, k);
		}
		cred_key_free(key);
		free(err);
		free(text);
	}
}

/* ---- the file ---- */

static struct store_tmp T;

static int setup(void **state)
{
	store_tmp_init(&T);
	return 0;
}

static int teardown(void **state)
{
	store_tmp_release(&T);
	return 0;
}

static mode_t mode_of(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void store_key(const char *key)
{
	struct strv notes = { 0 };
	char *err = NULL;
	if (cred_store_key(&T.x, key, &notes, &err) < 0)
		fail_msg("store: %s", err);
	strv_free(&notes);
}

static void test_cred_round_trip(void **state)
{
	char *key = NULL, *err = NULL, *src = NULL;
	assert_int_equal(cred_load_file(&T.x, &key, &err), -ENOENT);
	free(err);
	err = NULL;
	store_key("sk-ant-one\"\\two");
	assert_int_equal(mode_of(T.x.credentials), 0600);
	assert_int_equal(mode_of(T.x.config_dir), 0700);
	assert_int_equal(mode_of(T.x.config_home), 0700);	/* created so */
	assert_int_equal(cred_load_file(&T.x, &key, &err), 0);
	assert_string_equal(key, "sk-ant-one\"\\two");
	cred_key_free(key);

	/* replace: atomic, no temporary file left behind */
	store_key("sk-ant-three");
	assert_int_equal(cred_load_api_key(&key, &src, &err), 0);
	assert_string_equal(key, "sk-ant-three");
	assert_string_equal(src, T.x.credentials);
	cred_key_free(key);
	free(src);
	DIR *d = opendir(T.x.config_dir);
	struct dirent *de;
	int entries = 0;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			entries++;
	closedir(d);
	assert_int_equal(entries, 1);
	assert_int_equal(mode_of(T.x.credentials), 0600);

	/* invalid keys are refused before anything is written */
	struct strv notes = { 0 };
	assert_int_equal(cred_store_key(&T.x, "sk ant", &notes, &err), -1);
	free(err);
	assert_int_equal(cred_store_key(&T.x, "sk\r\nX-Evil: 1", &notes, &err), -1);
	free(err);
}

static void test_cred_store_narrows_own_dir_only(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	assert_int_equal(mkdir(T.x.config_home, 0755), 0);
	assert_int_equal(chmod(T.x.config_home, 0755), 0);
	assert_int_equal(mkdir(T.x.config_dir, 0755), 0);
	assert_int_equal(chmod(T.x.config_dir, 0755), 0);
	assert_int_equal(cred_store_key(&T.x, "sk-ant-k", &notes, &err), 0);
	assert_int_equal(mode_of(T.x.config_dir), 0700);
	assert_int_equal(mode_of(T.x.config_home), 0755);	/* the user's ~/.config: untouched */
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.v[0], "narrowed"));
	strv_free(&notes);
}

/* The modes are sandbx's, whatever the umask: under umask 0777 the
 * directories and the file were made 0000 (and the old key replaced by a
 * file nobody but root could read), under 0277 the new directory could
 * not be entered to make the next.  An old key replaced so is read back. */
static void test_cred_store_any_umask(void **state)
{
	static const mode_t masks[] = { 0777, 0277, 0177, 0 };
	char *key = NULL, *err = NULL;
	for (size_t i = 0; i < SBX_ARRAY_LEN(masks); i++) {
		char *cmd = xasprintf("rm -rf '%s'", T.x.config_home);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		for (int again = 0; again < 2; again++) {	/* a new file, then one replacing it */
			struct strv notes = { 0 };
			char want[32];
			snprintf(want, sizeof(want), "sk-ant-umask-%o-%d", (unsigned)masks[i], again);
			mode_t old = umask(masks[i]);
			int r = cred_store_key(&T.x, want, &notes, &err);
			umask(old);
			if (r < 0)
				fail_msg("umask %04o: %s", (unsigned)masks[i], err);
			strv_free(&notes);
			assert_int_equal(mode_of(T.x.config_home), 0700);
			assert_int_equal(mode_of(T.x.config_dir), 0700);
			assert_int_equal(mode_of(T.x.credentials), 0600);
			assert_int_equal(cred_load_file(&T.x, &key, &err), 0);
			assert_string_equal(key, want);
			cred_key_free(key);
		}
	}
}

/* A credential file with a second name (a hard link into a dotfiles tree
 * or a project) keeps the key under that name when login replaces it or
 * logout removes it, and the policy's refusal of grants holding such a
 * link then stops (the file has one link again): both are refused, the
 * file left as it is; with the link gone they run. */
static void test_cred_hard_link_refused(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL, *key = NULL, *other = xasprintf("%s/dotfile", T.root);
	int removed = -1, leftovers = -1;
	store_key("sk-ant-linked");
	assert_int_equal(link(T.x.credentials, other), 0);

	assert_int_equal(cred_store_key(&T.x, "sk-ant-newer", &notes, &err), -1);
	assert_non_null(strstr(err, T.x.credentials));
	assert_non_null(strstr(err, "2 hard links"));
	assert_non_null(strstr(err, "-samefile"));
	assert_null(strstr(err, "sk-ant"));
	free(err);
	err = NULL;
	assert_int_equal(cred_remove(&T.x, &removed, &leftovers, &err), -1);
	assert_int_equal(removed, 0);
	assert_non_null(strstr(err, "2 hard links"));
	free(err);
	err = NULL;
	assert_int_equal(cred_load_file(&T.x, &key, &err), 0);	/* still there, unchanged */
	assert_string_equal(key, "sk-ant-linked");
	cred_key_free(key);
	struct stat st;
	assert_int_equal(stat(T.x.credentials, &st), 0);
	assert_int_equal(st.st_nlink, 2);

	assert_int_equal(unlink(other), 0);
	store_key("sk-ant-newer");
	assert_int_equal(cred_remove(&T.x, &removed, &leftovers, &err), 0);
	assert_int_equal(removed, 1);
	strv_free(&notes);
	free(other);
}

/* A directory where the file goes: login and logout say what it is and
 * what to do, and leave it. */
static void test_cred_directory_in_place(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	int removed = -1, leftovers = -1;
	store_key("sk-ant-first");
	assert_int_equal(unlink(T.x.credentials), 0);
	assert_int_equal(mkdir(T.x.credentials, 0700), 0);
	assert_int_equal(cred_store_key(&T.x, "sk-ant-newer", &notes, &err), -1);
	assert_non_null(strstr(err, T.x.credentials));
	assert_non_null(strstr(err, "is a directory"));
	assert_non_null(strstr(err, "move it away"));
	free(err);
	err = NULL;
	assert_int_equal(cred_remove(&T.x, &removed, &leftovers, &err), -1);
	assert_int_equal(removed, 0);
	assert_non_null(strstr(err, "is a directory"));
	free(err);
	struct stat st;
	assert_int_equal(stat(T.x.credentials, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(rmdir(T.x.credentials), 0);
	strv_free(&notes);
}

/* A symbolic link where the file goes (a dotfiles tree's): logout used to
 * remove the link and say "removed the stored key" with the key still in
 * the file it names, and login to replace it, leaving the old key there.
 * Both now refuse, naming where it points, and change nothing. */
static void test_cred_symlink_in_place(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	int removed = -1, leftovers = -1;
	store_key("sk-ant-first");
	char *other = xasprintf("%s/dotfiles.toml", T.root);
	assert_int_equal(rename(T.x.credentials, other), 0);
	assert_int_equal(symlink(other, T.x.credentials), 0);
	assert_int_equal(cred_remove(&T.x, &removed, &leftovers, &err), -1);
	assert_int_equal(removed, 0);
	assert_non_null(strstr(err, T.x.credentials));
	assert_non_null(strstr(err, "symbolic link"));
	assert_non_null(strstr(err, other));
	free(err);
	err = NULL;
	assert_int_equal(cred_store_key(&T.x, "sk-ant-newer", &notes, &err), -1);
	assert_non_null(strstr(err, "symbolic link"));
	assert_non_null(strstr(err, other));
	free(err);
	struct stat st;
	assert_int_equal(lstat(T.x.credentials, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(other, &st), 0);	/* the key's file is left */
	assert_int_equal(unlink(T.x.credentials), 0);
	assert_int_equal(unlink(other), 0);
	strv_free(&notes);
	free(other);
}

static void test_cred_refuses_wide_modes(void **state)
{
	char *key = NULL, *err = NULL;
	store_key("sk-ant-wide");
	static const mode_t modes[] = { 0640, 0604, 0610, 0660 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(modes); i++) {
		assert_int_equal(chmod(T.x.credentials, modes[i]), 0);
		assert_int_equal(cred_load_file(&T.x, &key, &err), -EPERM);
		assert_null(key);
		char m[8];
		snprintf(m, sizeof(m), "%04o", (unsigned)modes[i]);
		assert_non_null(strstr(err, m));
		assert_non_null(strstr(err, T.x.credentials));
		assert_non_null(strstr(err, "rotate"));
		assert_null(strstr(err, "sk-ant-wide"));
		free(err);
		err = NULL;
		assert_int_equal(mode_of(T.x.credentials), modes[i]);	/* never chmod'ed */
	}
	assert_int_equal(chmod(T.x.credentials, 0600), 0);
	assert_int_equal(chmod(T.x.config_dir, 0750), 0);
	assert_int_equal(cred_load_file(&T.x, &key, &err), -EPERM);
	assert_non_null(strstr(err, "0750"));
	assert_non_null(strstr(err, T.x.config_dir));
	assert_non_null(strstr(err, "rotate"));
	free(err);
	assert_int_equal(mode_of(T.x.config_dir), 0750);

	/* logout removes the key even from a too-wide file */
	assert_int_equal(chmod(T.x.config_dir, 0700), 0);
	assert_int_equal(chmod(T.x.credentials, 0666), 0);
	int removed = 0, left = 0;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(left, 0);
	assert_int_equal(access(T.x.credentials, F_OK), -1);
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(removed, 0);
}

static char *in_config(const char *name)
{
	return xasprintf("%s/%s", T.x.config_dir, name);
}

static void put_file(const char *name)
{
	char *p = in_config(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "api_key = \"sk-ant-old\"\n", 23), 23);
	close(fd);
	free(p);
}

static int config_has(const char *name)
{
	struct stat st;
	char *p = in_config(name);
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

/* A login killed between its temporary file and the rename leaves a whole
 * copy of the key; the next login and logout remove such copies, and only
 * names of exactly that shape that are regular files. */
static void test_cred_interrupted_login_swept(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL;
	store_key("sk-ant-first");
	put_file(".credentials.toml.ab12cd34");
	put_file(".credentials.toml.AB12CD34");	/* not a name sandbx makes */
	put_file(".credentials.toml.ab12");
	put_file("credentials.toml.ab12cd34");
	char *d = in_config(".credentials.toml.zz99zz99"), *l = in_config(".credentials.toml.yy88yy88");
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(symlink("credentials.toml", l), 0);
	assert_int_equal(cred_store_key(&T.x, "sk-ant-second", &notes, &err), 0);
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.v[0], "cut short"));
	strv_free(&notes);
	assert_false(config_has(".credentials.toml.ab12cd34"));
	assert_true(config_has(".credentials.toml.AB12CD34"));
	assert_true(config_has(".credentials.toml.ab12"));
	assert_true(config_has("credentials.toml.ab12cd34"));
	assert_true(config_has(".credentials.toml.zz99zz99"));
	assert_true(config_has(".credentials.toml.yy88yy88"));

	put_file(".credentials.toml.00000000");
	put_file(".credentials.toml.qwertyui");
	int removed = 0, left = 0;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(left, 2);
	assert_false(config_has(".credentials.toml.00000000"));
	/* with no key stored, a leftover still goes */
	put_file(".credentials.toml.abcdefgh");
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(left, 1);
	assert_false(config_has(".credentials.toml.abcdefgh"));
	free(d);
	free(l);
}

static void test_cred_refuses_symlink(void **state)
{
	char *key = NULL, *err = NULL;
	store_key("sk-ant-real");
	char *other = xasprintf("%s/elsewhere.toml", T.root);
	assert_int_equal(rename(T.x.credentials, other), 0);
	assert_int_equal(symlink(other, T.x.credentials), 0);
	assert_int_equal(cred_load_file(&T.x, &key, &err), -EPERM);
	assert_non_null(strstr(err, "symbolic link"));
	free(err);
	free(other);
}

static int check_foreign(void *v)
{
	char *key = NULL, *err = NULL;
	int r = cred_load_file(&T.x, &key, &err);
	int ok = r == -EPERM && err && strstr(err, "owned by uid");
	if (!ok)
		fprintf(stderr, "load gave %d: %s\n", r, err ? err : "(none)");
	cred_key_free(key);
	free(err);
	return ok ? 0 : 1;
}

static void test_cred_refuses_other_owner(void **state)
{
	store_key("sk-ant-mine");
	int r = with_foreign_owner(T.x.credentials, check_foreign, NULL);
	if (r == 77)
		skip();
	assert_int_equal(r, 0);
	assert_int_equal(with_foreign_owner(T.x.config_dir, check_foreign, NULL), 0);
}

static void test_cred_env_precedence(void **state)
{
	char *key = NULL, *err = NULL, *src = NULL;
	store_key("sk-ant-file");
	setenv(CRED_ENV, "sk-ant-env", 1);
	assert_int_equal(cred_load_api_key(&key, &src, &err), 0);
	assert_string_equal(key, "sk-ant-env");
	assert_non_null(strstr(src, "environment"));
	cred_key_free(key);
	free(src);
	setenv(CRED_ENV, "sk-ant\r\nX: y", 1);
	assert_int_equal(cred_load_api_key(&key, &src, &err), -EINVAL);
	assert_null(strstr(err, "sk-ant"));
	free(err);
	err = NULL;
	setenv(CRED_ENV, "", 1);	/* empty counts as unset */
	assert_int_equal(cred_load_api_key(&key, &src, &err), 0);
	assert_string_equal(key, "sk-ant-file");
	cred_key_free(key);
	free(src);
	unsetenv(CRED_ENV);
	int removed, left;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(cred_load_api_key(&key, &src, &err), -ENOENT);
	assert_non_null(strstr(err, "sandbx auth login"));
	free(err);
}

static void test_cred_file_size_cap(void **state)
{
	char *key = NULL, *err = NULL;
	store_key("sk-ant-x");
	/* exactly CRED_MAX_FILE bytes: comment lines, then the key */
	const char *tail = "api_key = \"sk-ant-cap\"\n";
	size_t n = CRED_MAX_FILE, t = strlen(tail);
	char *buf = xmalloc(n + 2);
	memset(buf, '#', n - t);
	for (size_t i = 99; i < n - t; i += 100)
		buf[i] = '\n';
	buf[n - t - 1] = '\n';
	memcpy(buf + n - t, tail, t + 1);
	assert_int_equal(strlen(buf), n);
	write_file(T.x.credentials, buf, 0600);
	assert_int_equal(cred_load_file(&T.x, &key, &err), 0);
	assert_string_equal(key, "sk-ant-cap");
	cred_key_free(key);
	memmove(buf + 1, buf, n + 1);
	buf[0] = '\n';
	write_file(T.x.credentials, buf, 0600);
	assert_int_not_equal(cred_load_file(&T.x, &key, &err), 0);
	assert_non_null(strstr(err, "larger than 65536 bytes"));
	free(err);
	free(buf);
}

static void test_cred_file_parse_error_never_echoes(void **state)
{
	char *key = NULL, *err = NULL;
	store_key("sk-ant-x");
	write_file(T.x.credentials, "api_key = \"sk-ant-TOPSECRET\n", 0600);
	assert_int_equal(cred_load_file(&T.x, &key, &err), -EINVAL);
	assert_non_null(strstr(err, "line 1"));
	assert_non_null(strstr(err, T.x.credentials));
	assert_null(strstr(err, "TOPSECRET"));
	free(err);
}

static char *file_text(const char *path)
{
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char *b = xcalloc(1, 4096);
	size_t n = fread(b, 1, 4095, f);
	b[n] = '\0';
	fclose(f);
	return b;
}

/* Login, the file and the environment each refuse what is not a key,
 * saying whose value it was and why; a refused login leaves the key
 * stored before as it was. */
static void test_cred_key_refused_where_it_enters(void **state)
{
	static const char *const bad[] = { "k", "Bearer sk-ant-new-0123", "\"sk-ant-new-0123\"", "x-api-key:sk-ant-new" };
	char *key = NULL, *src = NULL, *err = NULL;
	store_key("sk-ant-kept-0123");
	char *before = file_text(T.x.credentials);
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		struct strv notes = { 0 };
		assert_int_equal(cred_store_key(&T.x, bad[i], &notes, &err), -1);
		if (!strstr(err, "that is not an API key: ") || !strstr(err, cred_key_problem(bad[i])) ||
		    !strstr(err, "nothing stored (a key stored before is kept)"))
			fail_msg("login of case %zu: %s", i, err);
		free(err);
		err = NULL;
		char *after = file_text(T.x.credentials);
		assert_string_equal(after, before);
		free(after);
		strv_free(&notes);

		setenv(CRED_ENV, bad[i], 1);
		assert_int_equal(cred_load_api_key(&key, &src, &err), -EINVAL);
		assert_null(key);
		if (!strstr(err, CRED_ENV " does not hold an API key: ") || !strstr(err, cred_key_problem(bad[i])) ||
		    strstr(err, "sk-ant-new"))
			fail_msg("environment of case %zu: %s", i, err);
		free(err);
		err = NULL;
		unsetenv(CRED_ENV);
	}
	write_file(T.x.credentials, "# pasted\napi_key = \"k\"\n", 0600);
	assert_int_equal(cred_load_file(&T.x, &key, &err), -EINVAL);
	assert_non_null(strstr(err, T.x.credentials));
	assert_non_null(strstr(err, "line 2: the value is not an API key: it is shorter than 6 bytes"));
	free(err);
	free(before);
}

/* A login or logout that reports success has made its change durable:
 * the directory is synced after the key is renamed into place (with the
 * temporary copies an interrupted login left already gone), after the
 * key is removed, and each directory the login made is synced into the
 * one that holds it.  Before, the directories made were not synced, and
 * a login swept the copies after its sync, so a crash could bring them
 * back. */
static void test_cred_login_syncs_dirs(void **state)
{
	char *root = xstrdup(T.root);
	n_dir_syncs = 0;
	store_key("sk-ant-first");	/* makes config/ and config/sandbx/ */
	if (!dir_synced_with(root, NULL) || !dir_synced_with(T.x.config_home, NULL))
		fail_msg("the directories the login made were not synced into their parents (%d directory syncs)",
			 n_dir_syncs);
	put_file(".credentials.toml.ab12cd34");
	n_dir_syncs = 0;
	sync_watch = "credentials.toml";
	store_key("sk-ant-second");
	assert_true(dir_synced_with(T.x.config_dir, "credentials.toml"));
	n_dir_syncs = 0;
	sync_watch = ".credentials.toml.ab12cd34";
	put_file(".credentials.toml.ab12cd34");
	store_key("sk-ant-third");
	if (!dir_synced_with(T.x.config_dir, ".credentials.toml.ab12cd34"))
		fail_msg("the login's sync came before the sweep of what an interrupted login left");
	n_dir_syncs = 0;
	sync_watch = "credentials.toml";
	int removed = 0, left = 0;
	char *err = NULL;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), 0);
	assert_int_equal(removed, 1);
	assert_true(dir_synced_with(T.x.config_dir, "credentials.toml"));	/* as gone */
	sync_watch = NULL;
	free(root);
}

/* A directory sync that fails is said, not passed over: the key is in
 * place (or gone) all the same, so the message says that, that a crash
 * may still undo it, and what to do.  Before, a logout ignored it, and a
 * login said "cannot sync the directory" with advice about where the key
 * goes, as if nothing had been stored. */
static void test_cred_dir_sync_error_said(void **state)
{
	struct strv notes = { 0 };
	char *err = NULL, *key = NULL;
	/* the directories a first login makes */
	dir_sync_fails = 1;
	assert_int_equal(cred_store_key(&T.x, "sk-ant-first", &notes, &err), -1);
	dir_sync_fails = 0;
	char *want = xasprintf("made the directory '%s', but the directory holding it could not be synced to disk: "
			       "Input/output error — nothing was put in it yet: check the filesystem (dmesg), then "
			       "try again", T.x.config_home);
	if (strcmp(err, want) != 0)
		fail_msg("login making its directories said: %s", err);
	free(want);
	free(err);
	err = NULL;
	store_key("sk-ant-first");
	/* login: the new key is in place */
	dir_sync_fails = 1;
	assert_int_equal(cred_store_key(&T.x, "sk-ant-second", &notes, &err), -1);
	dir_sync_fails = 0;
	want = xasprintf("the key is stored in '%s', but its directory could not be synced to disk: Input/output "
			 "error — a crash or power loss may still lose it (and leave the key stored before, or none): "
			 "check the filesystem (dmesg), then run 'sandbx auth login' again", T.x.credentials);
	if (strcmp(err, want) != 0)
		fail_msg("login said: %s", err);
	free(want);
	free(err);
	err = NULL;
	assert_int_equal(cred_load_file(&T.x, &key, &err), 0);
	assert_string_equal(key, "sk-ant-second");
	cred_key_free(key);
	/* logout: the key is gone */
	int removed = 0, left = 0;
	dir_sync_fails = 1;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), -1);
	dir_sync_fails = 0;
	assert_int_equal(removed, 1);
	want = xasprintf("removed the stored key '%s', but '%s' could not be synced to disk: Input/output error — a "
			 "crash or power loss may still bring it back: check the filesystem (dmesg), then run 'sandbx "
			 "auth logout' again", T.x.credentials, T.x.config_dir);
	if (strcmp(err, want) != 0)
		fail_msg("logout said: %s", err);
	free(want);
	free(err);
	err = NULL;
	assert_int_equal(cred_load_file(&T.x, &key, &err), -ENOENT);
	free(err);
	err = NULL;
	/* logout with no key, only what an interrupted login left */
	put_file(".credentials.toml.ab12cd34");
	dir_sync_fails = 1;
	assert_int_equal(cred_remove(&T.x, &removed, &left, &err), -1);
	dir_sync_fails = 0;
	assert_int_equal(left, 1);
	assert_non_null(strstr(err, "removed what an interrupted login left of a key, but"));
	free(err);
	strv_free(&notes);
}

/* Run `sandbx auth ACTION` in this process with input on its stdin;
 * its stdout and stderr into *out and *errs (malloc'd).  Its exit code. */
static int cli_auth_run(const char *action, const char *input, char **out, char **errs)
{
	struct cli_opts o = { 0 };
	char op[] = "/tmp/sbx-unit-auth-out.XXXXXX", ep[] = "/tmp/sbx-unit-auth-err.XXXXXX";
	int in[2], fo = mkstemp(op), fe = mkstemp(ep);
	assert_true(fo >= 0 && fe >= 0);
	assert_int_equal(pipe(in), 0);
	assert_int_equal(write(in[1], input, strlen(input)), (ssize_t)strlen(input));
	close(in[1]);
	fflush(NULL);
	int s0 = dup(0), s1 = dup(1), s2 = dup(2);
	dup2(in[0], 0);
	dup2(fo, 1);
	dup2(fe, 2);
	o.auth_action = (char *)action;
	int rc = cli_auth(&o);
	fflush(NULL);
	dup2(s0, 0);
	dup2(s1, 1);
	dup2(s2, 2);
	close(s0);
	close(s1);
	close(s2);
	close(in[0]);
	close(fo);
	close(fe);
	*out = file_text(op);
	*errs = file_text(ep);
	unlink(op);
	unlink(ep);
	return rc;
}

/* What the user sees of a failed sync: exit 1 (an error at run time,
 * CLI.md), nothing on stdout (not "stored the API key"), and on stderr
 * that the key is in place but may not survive a crash, and what to do. */
static void test_cred_cli_sync_error_exit(void **state)
{
	char *out, *errs;
	store_key("sk-ant-first");
	dir_sync_fails = 1;
	int rc = cli_auth_run("login", "sk-ant-second\n", &out, &errs);
	dir_sync_fails = 0;
	char *want = xasprintf("sandbx: the key is stored in '%s', but its directory could not be synced to disk",
			       T.x.credentials);
	if (rc != EXIT_ERROR || *out || !strstr(errs, want) || !strstr(errs, "run 'sandbx auth login' again"))
		fail_msg("login: exit %d, stdout '%s', stderr '%s'", rc, out, errs);
	free(want);
	free(out);
	free(errs);
	dir_sync_fails = 1;
	rc = cli_auth_run("logout", "", &out, &errs);
	dir_sync_fails = 0;
	want = xasprintf("sandbx: removed the stored key '%s', but", T.x.credentials);
	if (rc != EXIT_ERROR || *out || !strstr(errs, want) || !strstr(errs, "run 'sandbx auth logout' again"))
		fail_msg("logout: exit %d, stdout '%s', stderr '%s'", rc, out, errs);
	free(want);
	free(out);
	free(errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cred_parse_any_split),
		cmocka_unit_test(test_cred_parse_errors_never_echo),
		cmocka_unit_test(test_cred_key_problems),
		cmocka_unit_test_setup_teardown(test_cred_key_refused_where_it_enters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_store_narrows_own_dir_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_store_any_umask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_hard_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_directory_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_symlink_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_refuses_wide_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_refuses_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_interrupted_login_swept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_login_syncs_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_dir_sync_error_said, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_cli_sync_error_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_refuses_other_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_env_precedence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_file_parse_error_never_echoes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cred_file_size_cap, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
