/* test_tools.c — the tool table, input validation, and each in-process
 * tool (read, ls, find, grep, write, edit) through tools_run on a scratch
 * tree: output shapes, truncation markers, binary handling, refusals,
 * cancellation, and the size check made on the open handle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>
#include <dirent.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <valgrind/valgrind.h>

#include "sandbox/helper.h"
#include "tools/tools.h"
#include "tools/tools_limits.h"
#include "util/log.h"
#include "child_testutil.h"
#include "close_spy.h"
#include "fsync_spy.h"
#include "tools_testutil.h"

struct tfx {
	char *dir;
	struct policy p;
	struct fsguard *g;
	struct tool_ctx ctx;
	volatile sig_atomic_t stop;
	int hook_n, hook_at;
	const char *hook_event;
	const char *stop_at;		/* stop_at_hook: the entry whose visit sets stop */
	int stop_value;			/* ... to this (0: 1, the user's stop) */
};

static struct tfx *tfx_new(void)
{
	struct tfx *f = xcalloc(1, sizeof(*f));
	char *err = NULL;
	f->dir = tt_setup();
	tt_dir(f->dir, "w");
	tt_dir(f->dir, "w/src");
	tt_dir(f->dir, "w/src/deep");
	tt_file(f->dir, "w/src/main.c", "int main(void)\n{\n\treturn 0;\n}\n");
	tt_file(f->dir, "w/src/util.c", "static int Helper_42(void)\n{\n\treturn 42;\n}\n");
	tt_file(f->dir, "w/src/deep/notes.txt", "return to sender\nRETURN upper\n");
	tt_filen(f->dir, "w/blob.bin", "ret\0urn return", 14);
	tt_file(f->dir, "w/five.txt", "one\ntwo\nthree\nfour\nfive\n");
	tt_file(f->dir, "outside.txt", "return secret\n");
	tt_link(f->dir, "w/src/loop", "..");
	tt_link(f->dir, "w/out.txt", "../outside.txt");
	char *w = tt_path(f->dir, "w");
	policy_init(&f->p);
	assert_int_equal(policy_add_grant(&f->p, w, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(fsguard_new(&f->p, w, 0, &f->g, &err), 0);
	free(w);
	f->ctx.guard = f->g;
	f->ctx.policy = &f->p;
	f->ctx.stop = &f->stop;
	return f;
}

static void tfx_free(struct tfx *f)
{
	fsguard_free(f->g);
	policy_release(&f->p);
	tt_teardown(f->dir);
	free(f);
}

/* Run name with the JSON input; returns the result (content owned by r). */
static int run(struct tfx *f, const char *name, const char *json, struct tool_result *r)
{
	cJSON *in = cJSON_Parse(json);
	assert_non_null(in);
	int rc = tools_run(&f->ctx, name, in, r);
	cJSON_Delete(in);
	assert_non_null(r->content);
	assert_int_equal(rc < 0, r->is_error);
	return rc;
}

/* Run the tool as a user that file modes bind: in a child that, when the
 * tests run as root, first becomes nobody (root reads a file of mode 0000,
 * the unprivileged user CI also runs as does not).  The result comes back
 * through a pipe: a failed assertion in the child would run the rest of
 * the suite there. */
static int run_unprivileged(struct tfx *f, const char *name, const char *json, struct tool_result *r)
{
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tool_result cr = { 0 };
		close(pfd[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
				       setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		cJSON *in = cJSON_Parse(json);
		int rc = in ? tools_run(&f->ctx, name, in, &cr) : -1;
		char flag = rc < 0 ? 1 : 0;
		int bad = write_all(pfd[1], &flag, 1) < 0 ||
			  (cr.content && write_all(pfd[1], cr.content, strlen(cr.content)) < 0);
		tool_result_release(&cr);	/* valgrind checks the child's leaks too */
		cJSON_Delete(in);
		child_exit(bad ? 3 : 0);
	}
	close(pfd[1]);
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	char chunk[4096];
	ssize_t k;
	while ((k = read(pfd[0], chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, (size_t)k, m);
	fclose(m);
	close(pfd[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(n >= 1);
	r->is_error = buf[0] == 1;
	r->content = xstrdup(buf + 1);
	free(buf);
	return r->is_error ? -1 : 0;
}

#define EXPECT_HAS(r, s) do { if (!strstr((r).content, (s))) fail_msg("missing '%s' in:\n%s", (s), (r).content); } while (0)
#define EXPECT_NOT(r, s) do { if (strstr((r).content, (s))) fail_msg("unexpected '%s' in:\n%s", (s), (r).content); } while (0)

static void tools_table_schema_risk(void **state)
{
	cJSON *all = tools_schema_json(TOOLS_MASK_ALL), *ro = tools_schema_json(TOOLS_MASK_READONLY);
	assert_int_equal(cJSON_GetArraySize(all), 7);
	assert_int_equal(cJSON_GetArraySize(ro), 4);
	const cJSON *t;
	cJSON_ArrayForEach(t, all) {
		assert_true(cJSON_IsString(cJSON_GetObjectItem(t, "name")));
		assert_true(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(t, "description"))) > 40);
		const cJSON *s = cJSON_GetObjectItem(t, "input_schema");
		assert_true(cJSON_IsObject(s));
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(s, "type")), "object");
	}
	cJSON_ArrayForEach(t, ro)
		assert_int_equal(tools_risk(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"))), TOOL_RISK_READ);
	cJSON_Delete(all);
	cJSON_Delete(ro);
	assert_int_equal(tools_risk("write"), TOOL_RISK_WRITE);
	assert_int_equal(tools_risk("edit"), TOOL_RISK_WRITE);
	assert_int_equal(tools_risk("bash"), TOOL_RISK_EXEC);
	assert_int_equal(tools_risk("nope"), -1);
	assert_int_equal(tools_bit("bash"), 1u << TOOL_BASH);
}

static void tools_bad_input(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct { const char *name, *json, *expect; } c[] = {
		{ "frobnicate", "{}", "unknown tool 'frobnicate'" },
		{ "read", "{}", "needs the field 'path'" },
		{ "read", "[1]", "must be a JSON object" },
		{ "read", "{\"path\":7}", "'path' of tool 'read' must be a string" },
		{ "read", "{\"path\":\"a\",\"offset\":-1}", "whole number" },
		{ "read", "{\"path\":\"a\",\"offset\":1.5}", "whole number" },
		{ "read", "{\"path\":\"a\",\"pth\":1}", "has no field 'pth'" },
		{ "grep", "{\"path\":\".\",\"pattern\":\"x\",\"ignore_case\":\"yes\"}", "true or false" },
		{ "grep", "{\"path\":\".\",\"pattern\":\"(\"}", "not a valid regular expression" },
		{ "read", "{\"path\":\"\"}", "path is empty" },
		{ "edit", "{\"path\":\"five.txt\",\"old\":\"\",\"new\":\"x\"}", "old is empty" },
		{ "bash", "{\"command\":\"\"}", "command is empty" },
		/* refused, not lowered to 600 while the question showed 601 */
		{ "bash", "{\"command\":\"true\",\"timeout\":601}",
		  "field 'timeout' of tool 'bash' is 601, over its most, 600 — give at most 600" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(c); i++) {
		assert_int_equal(run(f, c[i].name, c[i].json, &r), -1);
		EXPECT_HAS(r, c[i].expect);
		tool_result_release(&r);
	}
	char *err = NULL;
	cJSON *at_most = cJSON_Parse("{\"command\":\"true\",\"timeout\":600}");
	assert_int_equal(tools_validate(tools_find("bash"), at_most, &err), 0);
	assert_null(err);
	cJSON_Delete(at_most);
	tfx_free(f);
}

static void tool_read_lines_paging(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	assert_int_equal(run(f, "read", "{\"path\":\"five.txt\"}", &r), 0);
	assert_string_equal(r.content, "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "read", "{\"path\":\"five.txt\",\"offset\":2,\"limit\":2}", &r), 0);
	EXPECT_HAS(r, "     2\ttwo\n     3\tthree\n");
	EXPECT_NOT(r, "four");
	EXPECT_HAS(r, "showing lines 2-3");
	EXPECT_HAS(r, "offset=4");
	tool_result_release(&r);
	assert_int_equal(run(f, "read", "{\"path\":\"five.txt\",\"offset\":4,\"limit\":2}", &r), 0);
	EXPECT_HAS(r, "     5\tfive\n");
	EXPECT_NOT(r, "more follows");
	tool_result_release(&r);
	assert_int_equal(run(f, "read", "{\"path\":\"five.txt\",\"offset\":9}", &r), -1);
	EXPECT_HAS(r, "has 5 lines");
	tool_result_release(&r);
	assert_int_equal(run(f, "read", "{\"path\":\"src\"}", &r), -1);
	EXPECT_HAS(r, "is a directory");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_read_binary_and_caps(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	assert_int_equal(run(f, "read", "{\"path\":\"blob.bin\"}", &r), 0);
	EXPECT_HAS(r, "is a binary file (14 bytes)");
	EXPECT_NOT(r, "urn");
	tool_result_release(&r);
	/* a NUL past the binary probe is shown, not an end of the line */
	char *late = xmalloc(TOOLS_BINARY_PROBE + 64);
	memset(late, 'a', TOOLS_BINARY_PROBE);
	memcpy(late + TOOLS_BINARY_PROBE, "\nshown\0HIDDEN\nsecond\n", 22);
	tt_filen(f->dir, "w/late.txt", late, TOOLS_BINARY_PROBE + 22);
	free(late);
	assert_int_equal(run(f, "read", "{\"path\":\"late.txt\",\"offset\":2}", &r), 0);
	EXPECT_HAS(r, "     2\tshown\\x00HIDDEN\n     3\tsecond\n");
	tool_result_release(&r);
	/* one long line is cut; many lines stop at the output cap */
	size_t n = TOOLS_MAX_OUTPUT * 2;
	char *big = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		big[i] = (i % 100 == 99) ? '\n' : 'x';
	tt_filen(f->dir, "w/big.txt", big, n);
	memset(big, 'y', TOOLS_MAX_LINE * 2);
	tt_filen(f->dir, "w/wide.txt", big, TOOLS_MAX_LINE * 2);
	free(big);
	assert_int_equal(run(f, "read", "{\"path\":\"wide.txt\"}", &r), 0);
	EXPECT_HAS(r, "[... line cut]");
	assert_true(strlen(r.content) < TOOLS_MAX_LINE + 100);
	tool_result_release(&r);
	assert_int_equal(run(f, "read", "{\"path\":\"big.txt\",\"limit\":100000}", &r), 0);
	EXPECT_HAS(r, "output cap of 256 KiB reached");
	assert_true(strlen(r.content) <= TOOLS_MAX_OUTPUT + 256);
	tool_result_release(&r);
	/* invalid UTF-8 comes out valid */
	tt_file(f->dir, "w/latin1.txt", "caf\xe9\n");
	assert_int_equal(run(f, "read", "{\"path\":\"latin1.txt\"}", &r), 0);
	EXPECT_HAS(r, "caf\xef\xbf\xbd");
	tool_result_release(&r);
	tfx_free(f);
}

/* read looks at no more than the scan-bytes limit per call: one line
 * without an end (a sparse file past a text head) or an offset far into a
 * huge file would otherwise be read to its end, terabytes, holding the
 * harness. */
static void tool_read_scan_capped(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	size_t n = 256 * 1024;
	char *b = xmalloc(n);
	memset(b, 'x', n);
	tt_filen(f->dir, "w/endless.txt", b, n);
	for (size_t i = 0; i < n; i++)
		b[i] = (i % 4 == 3) ? '\n' : 'l';
	tt_filen(f->dir, "w/lines.txt", b, n);
	free(b);
	f->ctx.limits.max_scan_bytes = 64 * 1024;
	assert_int_equal(run(f, "read", "{\"path\":\"endless.txt\"}", &r), 0);
	EXPECT_HAS(r, "     1\txxx");
	EXPECT_HAS(r, "[... line cut]");
	EXPECT_HAS(r, "stopped after reading 64 KiB of 'endless.txt', in line 1");
	EXPECT_HAS(r, "--max-scan-bytes");
	tool_result_release(&r);
	/* lines shown before the cap are kept, and the next offset named */
	assert_int_equal(run(f, "read", "{\"path\":\"lines.txt\",\"offset\":16000,\"limit\":1000}", &r), 0);
	EXPECT_HAS(r, " 16000\tlll\n");
	EXPECT_HAS(r, " 16384\tlll\n");
	EXPECT_NOT(r, "16385\t");
	EXPECT_HAS(r, "stopped after reading 64 KiB of 'lines.txt'");
	EXPECT_HAS(r, "read again with offset=16385");
	tool_result_release(&r);
	/* an offset past what the cap reaches says so, and how to go on */
	assert_int_equal(run(f, "read", "{\"path\":\"lines.txt\",\"offset\":60000}", &r), -1);
	EXPECT_HAS(r, "read stopped after 64 KiB of 'lines.txt', at line 16385, before line 60000");
	EXPECT_HAS(r, "--max-scan-bytes");
	tool_result_release(&r);
	/* a file that ends within the cap is read as before */
	f->ctx.limits.max_scan_bytes = n;
	assert_int_equal(run(f, "read", "{\"path\":\"lines.txt\",\"offset\":65536}", &r), 0);
	EXPECT_HAS(r, " 65536\tlll\n");
	EXPECT_NOT(r, "stopped");
	EXPECT_NOT(r, "more follows");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_ls_sorted(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	assert_int_equal(run(f, "ls", "{\"path\":\".\"}", &r), 0);
	const char *b = strstr(r.content, "blob.bin"), *fv = strstr(r.content, "five.txt"),
		   *o = strstr(r.content, "out.txt"), *s = strstr(r.content, "src/");
	assert_true(b && fv && o && s && b < fv && fv < o && o < s);
	EXPECT_HAS(r, "file            14  blob.bin");
	EXPECT_HAS(r, "link");
	tool_result_release(&r);
	f->ctx.limits.max_results = 2;
	assert_int_equal(run(f, "ls", "{\"path\":\".\"}", &r), 0);
	EXPECT_HAS(r, "showing 2 of 4 entries");
	tool_result_release(&r);
	tt_dir(f->dir, "w/empty");
	assert_int_equal(run(f, "ls", "{\"path\":\"empty\"}", &r), 0);
	EXPECT_HAS(r, "(empty directory)");
	tool_result_release(&r);
	assert_int_equal(run(f, "ls", "{\"path\":\"..\"}", &r), -1);
	EXPECT_HAS(r, "not found");
	tool_result_release(&r);
	tfx_free(f);
}

/* A directory with more entries than ls may look at (--max-scan-files)
 * shows the first names in sorted order, as a listing sorted by name
 * promises: before, it sorted the first 10,000 the directory happened to
 * return, so of 300,000 files f1, f10 and f100 were missing from a list
 * that began f100002, and the note said to raise --max-results, which
 * brought them no closer. */
static void tool_ls_sorted_past_scan_cap(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	char rel[32];
	(void)state;
	tt_dir(f->dir, "w/many");
	for (int i = 29; i >= 0; i--) {	/* the first names made last */
		snprintf(rel, sizeof(rel), "w/many/n%02d", i);
		tt_file(f->dir, rel, "");
	}
	f->ctx.limits.max_scan_files = 10;
	assert_int_equal(run(f, "ls", "{\"path\":\"many\"}", &r), 0);
	char want[1024];
	size_t o = 0;
	for (int i = 0; i < 10; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "file             0  n%02d\n", i);
	snprintf(want + o, sizeof(want) - o, "(showing 10 of 30 entries: scan cap reached, raise --max-scan-files)\n");
	assert_string_equal(r.content, want);
	tool_result_release(&r);
	f->ctx.limits.max_results = 3;
	assert_int_equal(run(f, "ls", "{\"path\":\"many\"}", &r), 0);
	assert_string_equal(r.content, "file             0  n00\nfile             0  n01\nfile             0  n02\n"
			    "(showing 3 of 30 entries; raise --max-results for more)\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* ls of a directory it may read but not search (mode 0444: the names can
 * be listed, each entry not looked at) shows each entry's type as the
 * listing gives it and says the sizes are not known: before, every entry
 * was listed as "other", a file and a directory alike. */
static void tool_ls_unsearchable_dir(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/rx");
	tt_dir(f->dir, "w/rx/sub");
	tt_file(f->dir, "w/rx/f.txt", "x\n");
	char *rx = tt_path(f->dir, "w/rx");
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(rx, 0444), 0);
	assert_int_equal(run_unprivileged(f, "ls", "{\"path\":\"rx\"}", &r), 0);
	assert_string_equal(r.content, "file             ?  f.txt\ndir              -  sub/\n"
			    "(2 entries could not be looked at (Permission denied): their type is the directory "
			    "listing's, a size not known is '?' — check the directory's mode with bash (ls -ld))\n");
	tool_result_release(&r);
	assert_int_equal(chmod(rx, 0755), 0);	/* for the teardown, as a user */
	free(rx);
	tfx_free(f);
}

static void tool_find_glob_no_follow(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*.c\"}", &r), 0);
	assert_string_equal(r.content, "src/main.c\nsrc/util.c\n");	/* the loop link is not entered */
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\"src\",\"name\":\"*\"}", &r), 0);
	EXPECT_HAS(r, "src/deep/\n");
	EXPECT_HAS(r, "src/loop\n");
	EXPECT_NOT(r, "src/loop/");
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*.zzz\"}", &r), 0);
	assert_string_equal(r.content, "(no matches)\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"**/deep/*.txt\"}", &r), 0);
	assert_string_equal(r.content, "src/deep/notes.txt\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\",\"glob\":\"**/*.c\"}", &r), 0);
	EXPECT_HAS(r, "src/main.c:3:");
	EXPECT_NOT(r, "notes.txt");
	tool_result_release(&r);
	f->ctx.limits.max_results = 1;
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*.c\"}", &r), 0);
	EXPECT_HAS(r, "showing 1 of 2 matches");
	tool_result_release(&r);
	f->ctx.limits.max_results = 0;
	f->ctx.limits.max_scan_files = 2;
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*\"}", &r), 0);
	EXPECT_HAS(r, "stopped after 2 entries");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_grep_matches(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "src/main.c:3:\treturn 0;\n");
	EXPECT_HAS(r, "src/util.c:3:\treturn 42;\n");
	EXPECT_HAS(r, "src/deep/notes.txt:1:return to sender\n");
	EXPECT_NOT(r, "RETURN");
	EXPECT_NOT(r, "secret");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"return\",\"ignore_case\":true}", &r), 0);
	EXPECT_HAS(r, "src/deep/notes.txt:2:RETURN upper\n");
	EXPECT_HAS(r, "(skipped 1 binary file)");
	EXPECT_NOT(r, "blob.bin:");
	EXPECT_NOT(r, "secret");	/* out.txt is a link out: not followed */
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"^[A-Za-z]+_[0-9]+\\\\(|Helper_[0-9]{2}\"}", &r), 0);
	EXPECT_HAS(r, "src/util.c:1:static int Helper_42(void)\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"return\",\"glob\":\"*.txt\"}", &r), 0);
	EXPECT_HAS(r, "notes.txt");
	EXPECT_NOT(r, "main.c");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"five.txt\",\"pattern\":\"^t\"}", &r), 0);
	assert_string_equal(r.content, "five.txt:2:two\nfive.txt:3:three\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"nowhere_to_be_found\"}", &r), 0);
	EXPECT_HAS(r, "(no matches in");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"out.txt\",\"pattern\":\"secret\"}", &r), -1);
	EXPECT_HAS(r, "not found");
	tool_result_release(&r);
	tfx_free(f);
}

/* Pattern verbs cannot change how the subject is read: (*UTF) is refused
 * (PCRE2's JIT does not check the text is UTF-8, and read past a file's
 * end back into the harness's memory), (*NO_JIT) still finds, and the
 * interpreter's backtracking heap is bounded. */
static void tool_grep_pattern_verbs(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_file(f->dir, "w/utf.txt", "hello\nxx\xf4");
	assert_int_equal(run(f, "grep", "{\"path\":\"utf.txt\",\"pattern\":\"(*UTF)[^x]\\\\K\"}", &r), -1);
	EXPECT_HAS(r, "is not a valid regular expression");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"utf.txt\",\"pattern\":\"[^x]\\\\K\"}", &r), 0);
	EXPECT_HAS(r, "utf.txt:1:hello\n");
	EXPECT_NOT(r, "utf.txt:3");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"five.txt\",\"pattern\":\"(*NO_JIT)^t\"}", &r), 0);
	assert_string_equal(r.content, "five.txt:2:two\nfive.txt:3:three\n");
	tool_result_release(&r);
	/* 300 empty groups in a repeated group with a lookbehind: gigabytes of
	 * backtracking frames in the interpreter, unbounded; a limit here.
	 * Run in a child, whose peak resident size the kernel reports: the
	 * match limit alone also ends the search, but only after the frames
	 * grew past 1 GiB; the heap limit ends it, and the note names it. */
	char *big = xmalloc(200002);
	memset(big, 'a', 200000);
	memcpy(big + 200000, "\n", 2);
	tt_file(f->dir, "w/as.txt", big);
	free(big);
	char pat[2048] = "{\"path\":\"as.txt\",\"pattern\":\"(*NO_JIT)(?:";
	for (int i = 0; i < 300; i++)
		strcat(pat, "()");
	strcat(pat, "a)*(?<!a)\\\\z\"}");
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = run(f, "grep", pat, &r) == 0 && strstr(r.content, "hit PCRE2's heap limit 1 time in 1 file, 'as.txt'");
		/* valgrind checks the child's leaks too; the files are the
		 * parent's to remove */
		tool_result_release(&r);
		fsguard_free(f->g);
		policy_release(&f->p);
		free(f->dir);
		free(f);
		child_exit(ok ? 0 : 1);
	}
	int st;
	struct rusage ru;
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* 64 MiB of frames; a sanitizer's shadow and quarantine, or
	 * valgrind's own, add to the resident size */
	long cap_kib = RUNNING_ON_VALGRIND || getenv("SANDBX_SANITIZED") ? 1024L * 1024 : 384L * 1024;
	if (ru.ru_maxrss >= cap_kib)
		fail_msg("the grep child peaked at %ld KiB resident, the cap is %ld KiB", ru.ru_maxrss, cap_kib);
	tfx_free(f);
}

static void tool_grep_limits(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	f->ctx.limits.max_results = 2;
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "(showing 2 of 3 matching lines");
	tool_result_release(&r);
	f->ctx.limits.max_results = 0;
	f->ctx.limits.max_scan_files = 1;
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "stopped after 1 files: scan cap of files reached");
	tool_result_release(&r);
	f->ctx.limits.max_scan_files = 0;
	f->ctx.limits.max_scan_bytes = 10;
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "--max-scan-bytes");
	tool_result_release(&r);
	f->ctx.limits.max_scan_bytes = 0;
	size_t n = TOOLS_MAX_FILE_BYTES + 1;
	char *big = xmalloc(n);
	memset(big, 'r', n);
	memcpy(big, "return\n", 7);
	tt_filen(f->dir, "w/src/huge.txt", big, n);
	free(big);
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "(skipped 1 file over 2 MiB)");
	EXPECT_NOT(r, "huge.txt:");
	tool_result_release(&r);
	tfx_free(f);
}

/* The hook runs after the size check on the open handle and before the
 * read: swap the file for a large one there.  What is read is the file
 * that was checked. */
static void swap_hook(void *arg, const char *event, const char *path)
{
	struct tfx *f = arg;
	if (strcmp(event, "checked") != 0 || !strstr(path, "main.c"))
		return;
	size_t n = TOOLS_MAX_FILE_BYTES * 2;
	char *big = xmalloc(n);
	memset(big, '\n', n);
	memcpy(big, "return swapped\n", 15);
	tt_filen(f->dir, "w/src/main.c.new", big, n);
	free(big);
	char *a = tt_path(f->dir, "w/src/main.c.new"), *b = tt_path(f->dir, "w/src/main.c");
	assert_int_equal(rename(a, b), 0);
	free(a);
	free(b);
	f->hook_n++;
}

static void tool_grep_swap_after_check(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	f->ctx.hook = swap_hook;
	f->ctx.hook_arg = f;
	assert_int_equal(run(f, "grep", "{\"path\":\"src/main.c\",\"pattern\":\"return\"}", &r), 0);
	assert_int_equal(f->hook_n, 1);
	assert_string_equal(r.content, "src/main.c:3:\treturn 0;\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* A FIFO with a writer blocked in open(2) on it, swapped in for a file
 * the walk has already seen as regular (readdir's type): the writer's
 * side.  fd[0] reads a byte once its open completed. */
struct fifo_swap {
	struct tfx *f;
	const char *rel;	/* the walk's path to swap */
	int done;
	pid_t writer;
	int writer_ok;	/* it exited 0 (fifo_writer_released) */
	int note[2];
};

static void fifo_swap_hook(void *arg, const char *event, const char *path)
{
	struct fifo_swap *s = arg;
	if (s->done || strcmp(event, "entry") != 0 || strcmp(path, s->rel) != 0)
		return;
	s->done = 1;
	char *a = tt_path(s->f->dir, "w/src/main.c");
	assert_int_equal(unlink(a), 0);
	assert_int_equal(mkfifo(a, 0644), 0);
	assert_int_equal(pipe(s->note), 0);
	s->writer = fork();
	assert_true(s->writer >= 0);
	if (s->writer == 0) {
		/* _exit: the parent's atexit work (cmocka's) is not the child's;
		 * free what is its own first, which valgrind checks (its leak
		 * turns the exit status into 99; fifo_writer_released). */
		int fd = open(a, O_WRONLY);
		free(a);
		if (fd >= 0 && write(s->note[1], "r", 1) == 1 && write(fd, "return\n", 7) == 7)
			child_exit(0);
		_exit(1);
	}
	close(s->note[1]);
	/* time for the writer to block in open(2) */
	struct timespec ts = { 0, 150 * 1000000L };
	nanosleep(&ts, NULL);
	free(a);
}

/* Whether the writer's open completed (within 300 ms); then releases it
 * and notes whether it exited cleanly: released late, its open and writes
 * still complete, so any other status is the writer's own failure (under
 * valgrind, an error of its: --error-exitcode). */
static int fifo_writer_released(struct fifo_swap *s)
{
	struct timespec ts = { 0, 300 * 1000000L };
	nanosleep(&ts, NULL);
	int fl = fcntl(s->note[0], F_GETFL);
	(void)fcntl(s->note[0], F_SETFL, fl | O_NONBLOCK);
	char b;
	int released = read(s->note[0], &b, 1) == 1;
	char *a = tt_path(s->f->dir, "w/src/main.c");
	int fd = open(a, O_RDONLY | O_NONBLOCK);	/* lets a blocked writer go */
	int st;
	pid_t w = waitpid(s->writer, &st, 0);
	if (fd >= 0)
		close(fd);
	close(s->note[0]);
	free(a);
	s->writer_ok = w == s->writer && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	return released;
}

/* grep's walk opens a file readdir called regular: a FIFO swapped in at
 * that name in between (a bash call racing it) must not be opened, which
 * would complete the open(2) of a writer waiting on it, as read refuses
 * to (tl-read-fifo-untouched). */
static void tool_grep_walk_fifo_not_opened(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct fifo_swap s = { .f = f, .rel = "src/main.c" };
	(void)state;
	f->ctx.hook = fifo_swap_hook;
	f->ctx.hook_arg = &s;
	run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r);
	assert_int_equal(s.done, 1);
	int released = fifo_writer_released(&s);
	EXPECT_NOT(r, "main.c");
	tool_result_release(&r);
	tfx_free(f);
	assert_int_equal(released, 0);
	assert_true(s.writer_ok);
}

static void stop_hook(void *arg, const char *event, const char *path)
{
	struct tfx *f = arg;
	if (strcmp(event, "entry") == 0 && ++f->hook_n == 2)
		f->stop = 1;
}

static void stop_at_hook(void *arg, const char *event, const char *path)
{
	struct tfx *f = arg;
	const char *e = strrchr(path, '/');
	if (strcmp(event, "entry") == 0 && strcmp(e ? e + 1 : path, f->stop_at) == 0)
		f->stop = f->stop_value ? f->stop_value : 1;
}

static long test_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *stop_later(void *arg)
{
	struct tfx *f = arg;
	struct timespec ts = { 0, 200 * 1000000L };
	nanosleep(&ts, NULL);
	f->stop = 1;
	return NULL;
}

/* A pattern whose every start position scans the rest of a long line
 * ((?=x*y): quadratic, and PCRE2's match limit never trips) runs in a
 * child the call kills after its time budget, with a note; a stop request
 * ends it too, keeping the lines found so far. */
/* How a note after a search the budget ended ends. */
#define SLOW_TAIL " — simplify the pattern (a lookahead or a nested repeat rescans each line from every position) " \
		  "or search a narrower path"

static void tool_grep_time_bound(void **state)
{
	/* Under valgrind PCRE2 runs without JIT (grep_setup) and its match
	 * limit, not the clock, ends this pattern; and times mean nothing. */
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();
	struct tfx *f = tfx_new();
	struct tool_result r;
	char *big = xmalloc(400002);
	(void)state;
	memset(big, 'x', 400000);
	memcpy(big + 400000, "\n", 2);
	tt_file(f->dir, "w/long.txt", big);
	free(big);
	f->ctx.limits.grep_ms = 300;
	long t0 = test_ms();
	assert_int_equal(run(f, "grep", "{\"path\":\"long.txt\",\"pattern\":\"(?=x*y)\"}", &r), 0);
	long took = test_ms() - t0;
	EXPECT_HAS(r, "(stopped after 0.3 s in 'long.txt': the pattern is too slow on this text. No match was found "
		      "before it stopped; the rest of the file was not searched, so matches there may be missing");
	tool_result_release(&r);
	assert_true(took < 3000);	/* unbounded, this takes about 50 s here */
	/* what the search had shown before the budget ended it is kept, and
	 * the note says where it stopped: before, the answer held the note
	 * alone */
	char *mixed = xmalloc(400100);
	strcpy(mixed, "here one\nhere two\n");
	size_t at = strlen(mixed);
	memset(mixed + at, 'x', 400000);
	strcpy(mixed + at + 400000, "\nhere three\n");
	tt_file(f->dir, "w/mixed.txt", mixed);
	tt_dir(f->dir, "w/tree");
	tt_file(f->dir, "w/tree/slow.txt", mixed);
	free(mixed);
	assert_int_equal(run(f, "grep", "{\"path\":\"mixed.txt\",\"pattern\":\"(?=x*y)|here\"}", &r), 0);
	assert_string_equal(r.content, "mixed.txt:1:here one\nmixed.txt:2:here two\n"
				       "(stopped after 0.3 s in 'mixed.txt': the pattern is too slow on this text. The 2 "
				       "matching lines above were found first; the rest of the file was not searched, so "
				       "matches there may be missing" SLOW_TAIL ")\n");
	tool_result_release(&r);
	/* in a tree it names the file it was in, counted apart from those done */
	f->ctx.limits.max_results = 1;
	assert_int_equal(run(f, "grep", "{\"path\":\"tree\",\"pattern\":\"(?=x*y)|here\"}", &r), 0);
	assert_string_equal(r.content, "tree/slow.txt:1:here one\n"
				       "(stopped after 0.3 s in 'tree/slow.txt': the pattern is too slow on this text. 2 "
				       "matching lines were found first (1 shown above); the rest of that file and the "
				       "files after it were not searched, so matches there may be missing" SLOW_TAIL
				       " without that file)\n");
	tool_result_release(&r);
	/* a path too long for the note keeps its end, which names the file */
	char deep[1400] = "w/deep";
	tt_dir(f->dir, deep);
	for (int i = 0; i < 11; i++) {
		size_t l = strlen(deep);
		deep[l] = '/';
		memset(deep + l + 1, 'd', 100);
		deep[l + 101] = '\0';
		tt_dir(f->dir, deep);
	}
	strcat(deep, "/slow.txt");
	tt_file(f->dir, deep, "first line\n");
	{
		char *big2 = xmalloc(400002);
		memset(big2, 'x', 400000);
		memcpy(big2 + 400000, "\n", 2);
		char *p = tt_path(f->dir, deep);
		int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
		assert_true(fd >= 0 && write_all(fd, big2, 400001) == 0);
		close(fd);
		free(p);
		free(big2);
	}
	assert_int_equal(run(f, "grep", "{\"path\":\"deep\",\"pattern\":\"(?=x*y)|nothing\"}", &r), 0);
	EXPECT_HAS(r, "(stopped after 0.3 s in '...d");
	EXPECT_HAS(r, "dd/slow.txt': the pattern is too slow on this text.");
	assert_true(strlen(r.content) < 1024 + 600);
	tool_result_release(&r);
	f->ctx.limits.max_results = 0;
	assert_int_equal(run(f, "grep", "{\"path\":\"tree\",\"pattern\":\"(?=x*y)|nothing\"}", &r), 0);
	assert_string_equal(r.content, "(stopped after 0.3 s in 'tree/slow.txt': the pattern is too slow on this "
				       "text. No match was found before it stopped; the rest of that file "
				       "and the files after it were not searched, so matches there may be missing" SLOW_TAIL
				       " without that file)\n");
	tool_result_release(&r);
	/* a stop request while it runs ends it, an error that keeps the
	 * lines found so far and says why it ended (before: "cancelled"
	 * alone, the lines lost) */
	f->ctx.limits.grep_ms = 0;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, stop_later, f), 0);
	t0 = test_ms();
	assert_int_equal(run(f, "grep", "{\"path\":\"mixed.txt\",\"pattern\":\"(?=x*y)|here\"}", &r), -1);
	assert_true(r.is_error);
	assert_string_equal(r.content, "mixed.txt:1:here one\nmixed.txt:2:here two\n"
				       "[cancelled: the user stopped the search; what it found so far is shown]\n");
	assert_true(test_ms() - t0 < 3000);
	tool_result_release(&r);
	pthread_join(t, NULL);
	f->stop = 0;
	assert_int_equal(pthread_create(&t, NULL, stop_later, f), 0);
	assert_int_equal(run(f, "grep", "{\"path\":\"long.txt\",\"pattern\":\"(?=x*y)\"}", &r), -1);
	assert_string_equal(r.content, "(no matches found before the stop)\n"
				       "[cancelled: the user stopped the search; what it found so far is shown]\n");
	tool_result_release(&r);
	pthread_join(t, NULL);
	f->stop = 0;
	/* the child's result comes back whole, errors included */
	assert_int_equal(run(f, "grep", "{\"path\":\"long.txt\",\"pattern\":\"x{3}$\"}", &r), 0);
	EXPECT_HAS(r, "long.txt:1:");
	tool_result_release(&r);
	/* a line that hits the match limit does not hide the lines after it */
	tt_file(f->dir, "w/limit.txt", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\nb\nMARK here\n");
	assert_int_equal(run(f, "grep", "{\"path\":\"limit.txt\",\"pattern\":\"^(a+)+b|MARK\"}", &r), 0);
	EXPECT_HAS(r, "limit.txt:3:MARK here");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_cancellation(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	f->stop = 1;
	assert_int_equal(run(f, "read", "{\"path\":\"five.txt\"}", &r), -1);
	assert_string_equal(r.content, "cancelled");
	tool_result_release(&r);
	f->stop = 0;
	f->ctx.hook = stop_hook;
	f->ctx.hook_arg = f;
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"return\"}", &r), -1);
	EXPECT_HAS(r, "[cancelled: the user stopped the search; what it found so far is shown]\n");
	tool_result_release(&r);
	f->stop = 0;
	f->hook_n = 0;
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*\"}", &r), -1);
	EXPECT_HAS(r, "[cancelled: the user stopped the search; what it found so far is shown]\n");
	tool_result_release(&r);
	/* Stopped walks keep what they found, the note last, and are still
	 * errors (before: "cancelled" alone, what they had found lost).  The
	 * stop comes as the named entry is visited: it is searched, listed,
	 * and the walk ends at the next entry. */
	f->stop = 0;
	f->ctx.hook = stop_at_hook;
	f->stop_at = "main.c";
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), -1);
	assert_true(r.is_error);
	EXPECT_HAS(r, "src/main.c:3:\treturn 0;\n");
	assert_non_null(strstr(r.content, "\n[cancelled: the user stopped the search; what it found so far is shown]\n"));
	assert_string_equal(strstr(r.content, "[cancelled"),
			    "[cancelled: the user stopped the search; what it found so far is shown]\n");
	tool_result_release(&r);
	f->stop = 0;
	assert_int_equal(run(f, "find", "{\"path\":\"src\",\"name\":\"*.c\"}", &r), -1);
	assert_true(r.is_error);
	EXPECT_HAS(r, "src/main.c\n");
	assert_string_equal(strstr(r.content, "[cancelled"),
			    "[cancelled: the user stopped the search; what it found so far is shown]\n");
	tool_result_release(&r);
	f->stop = 0;
	f->stop_at = "five.txt";
	assert_int_equal(run(f, "ls", "{\"path\":\".\"}", &r), -1);
	assert_true(r.is_error);
	EXPECT_HAS(r, "  five.txt\n");
	assert_string_equal(strstr(r.content, "[cancelled"),
			    "[cancelled: the user stopped the listing; what it found so far is shown]\n");
	tool_result_release(&r);
	/* a signal to sandbx, or the terminal gone, is named as bash names it */
	f->stop = 0;
	f->stop_at = "main.c";
	f->stop_value = TOOL_STOP_SIGNAL(SIGTERM);
	assert_int_equal(run(f, "find", "{\"path\":\"src\",\"name\":\"*.c\"}", &r), -1);
	EXPECT_HAS(r, "src/main.c\n");
	assert_string_equal(strstr(r.content, "[stopped"), "[stopped: sandbx got SIGTERM before the search was done; "
							   "what it found so far is shown]\n");
	tool_result_release(&r);
	f->stop = 0;
	f->stop_value = TOOL_STOP_TERMINAL;
	assert_int_equal(run(f, "grep", "{\"path\":\"src\",\"pattern\":\"return\"}", &r), -1);
	EXPECT_HAS(r, "src/main.c:3:\treturn 0;\n");
	assert_string_equal(strstr(r.content, "[stopped"), "[stopped: the terminal went away before the search was "
							   "done; what it found so far is shown]\n");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_write_atomic(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct stat st;
	assert_int_equal(run(f, "write", "{\"path\":\"new/dir/x.txt\",\"content\":\"hello\\n\"}", &r), 0);
	EXPECT_HAS(r, "created 'new/dir/x.txt' (6 bytes)");
	tool_result_release(&r);
	char *s = tt_slurp(f->dir, "w/new/dir/x.txt");
	assert_string_equal(s, "hello\n");
	free(s);
	char *p = tt_path(f->dir, "w/five.txt");
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(run(f, "write", "{\"path\":\"five.txt\",\"content\":\"new\"}", &r), 0);
	EXPECT_HAS(r, "replaced");
	tool_result_release(&r);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a set-id file keeps its mode but not the set-id bits */
	assert_int_equal(chmod(p, 06755), 0);
	assert_int_equal(run(f, "write", "{\"path\":\"five.txt\",\"content\":\"#!/bin/sh\\nid\\n\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(run(f, "edit", "{\"path\":\"five.txt\",\"old\":\"id\",\"new\":\"ls\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(chmod(p, 04755), 0);
	assert_int_equal(run(f, "edit", "{\"path\":\"five.txt\",\"old\":\"ls\",\"new\":\"id\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	free(p);
	/* no temp file left behind */
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*sandbx-*\"}", &r), 0);
	assert_string_equal(r.content, "(no matches)\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* Whether the directory rel (beneath f's dir) was synced with the file
 * file (NULL: whatever) in it as it is now (fsync_spy.h). */
static int dir_synced(struct tfx *f, const char *rel, const char *file)
{
	char *p = tt_path(f->dir, rel), *fp = file ? xasprintf("%s/%s", p, file) : NULL;
	struct stat st;
	int ok = (!fp || lstat(fp, &st) == 0) && dir_synced_with(p, file);
	free(p);
	free(fp);
	return ok;
}

/* A write or edit syncs the directory after it linked or renamed the new
 * file there, and each directory it made, so the new name survives a
 * crash: a replaced file, a new one, a new one in directories it made, an
 * edit, and the named temp file of a filesystem without O_TMPFILE.
 * Before, only the file's content was synced and a power loss could
 * leave the old file, or no file, under the name. */
static void tool_write_syncs_directory(void **state)
{
	static const struct {
		const char *tool, *json, *dir, *file;
		int no_tmpfile;
	} cases[] = {
		{ "write", "{\"path\":\"five.txt\",\"content\":\"new\"}", "w", "five.txt", 0 },
		{ "write", "{\"path\":\"fresh.txt\",\"content\":\"new\"}", "w", "fresh.txt", 0 },
		{ "edit", "{\"path\":\"src/main.c\",\"old\":\"return 0\",\"new\":\"return 1\"}", "w/src", "main.c", 0 },
		{ "write", "{\"path\":\"five.txt\",\"content\":\"named\"}", "w", "five.txt", 1 },
		{ "write", "{\"path\":\"named.txt\",\"content\":\"named\"}", "w", "named.txt", 1 },
		{ "write", "{\"path\":\"a/b/deep.txt\",\"content\":\"x\"}", "w/a/b", "deep.txt", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tfx *f = tfx_new();
		struct tool_result r;
		f->ctx.no_tmpfile = cases[i].no_tmpfile;
		n_dir_syncs = 0;
		sync_watch = cases[i].file;
		int rc = run(f, cases[i].tool, cases[i].json, &r);
		sync_watch = NULL;
		if (rc < 0)
			fail_msg("case %zu: %s", i, r.content);
		tool_result_release(&r);
		int ok = dir_synced(f, cases[i].dir, cases[i].file);
		if (ok && i == 5)	/* and those it made hold their names */
			ok = dir_synced(f, "w/a", NULL) && dir_synced(f, "w", NULL);
		tfx_free(f);
		if (!ok)
			fail_msg("case %zu (%s %s): the directory was not synced after the file was put there (%d "
				 "directory syncs)", i, cases[i].tool, cases[i].json, n_dir_syncs);
	}
}

/* A directory that cannot be synced after the new file was put there
 * fails the write, saying the file is in place but may not survive a
 * crash (not "unchanged": it is not), and the directories it made stay,
 * holding it. */
static void tool_write_dir_sync_error_said(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	dir_sync_fails = 1;
	int rc = run(f, "write", "{\"path\":\"made/new.txt\",\"content\":\"kept\\n\"}", &r);
	dir_sync_fails = 0;
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "'made/new.txt' is written, but its directory could not be synced to disk: Input/output error "
		      "— the new content is in place, yet a crash or power loss may still undo it");
	tool_result_release(&r);
	char *s = tt_slurp(f->dir, "w/made/new.txt");
	assert_non_null(s);
	assert_string_equal(s, "kept\n");
	free(s);
	tfx_free(f);
}

/* The temp file that takes a file's place is never wider than the file:
 * a 0600 file's new content (for an edit, its old content too) is not
 * readable by others while it is written. */
struct tmpmode {
	char *dir;
	int seen;
	mode_t mode;
};

static void temp_hook(void *arg, const char *event, const char *path)
{
	struct tmpmode *t = arg;
	struct stat st;
	if (strcmp(event, "temp") != 0)
		return;
	char *p = tt_path(t->dir, path);
	assert_int_equal(stat(p, &st), 0);
	free(p);
	t->mode = st.st_mode & 07777;
	t->seen++;
}

static void tool_write_temp_private(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct tmpmode t = { .dir = tt_path(f->dir, "w") };
	(void)state;
	tt_file(f->dir, "w/key.env", "TOKEN=hunter2\n");
	char *p = tt_path(f->dir, "w/key.env");
	assert_int_equal(chmod(p, 0600), 0);
	f->ctx.hook = temp_hook;
	f->ctx.hook_arg = &t;
	assert_int_equal(run(f, "edit", "{\"path\":\"key.env\",\"old\":\"hunter2\",\"new\":\"hunter3\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(t.seen, 1);
	assert_int_equal(t.mode & 077, 0);
	assert_int_equal(run(f, "write", "{\"path\":\"key.env\",\"content\":\"TOKEN=x\\n\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(t.seen, 2);
	assert_int_equal(t.mode & 077, 0);
	/* the named temp file of a filesystem without O_TMPFILE, whose name
	 * others could open while it is written */
	f->ctx.no_tmpfile = 1;
	assert_int_equal(run(f, "edit", "{\"path\":\"key.env\",\"old\":\"TOKEN=x\",\"new\":\"TOKEN=y\"}", &r),
			 0);
	tool_result_release(&r);
	assert_int_equal(t.seen, 3);
	assert_int_equal(t.mode & 077, 0);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	free(p);
	free(t.dir);
	tfx_free(f);
}

/* A harness killed while a write's new content is written leaves no file
 * behind: the content goes to an O_TMPFILE, which has no name until it is
 * whole, and the target keeps its old content.  Where the filesystem has
 * no O_TMPFILE (no_tmpfile acts as on one) the named temp file is left:
 * the fallback's known cost, checked so that this test can fail. */
static void kill_hook(void *arg, const char *event, const char *path)
{
	(void)arg;
	(void)path;
	if (strcmp(event, "filled") == 0)
		raise(SIGKILL);
}

static void tool_write_killed_leaves_nothing(void **state)
{
	(void)state;
	for (int fallback = 0; fallback <= 1; fallback++) {
		struct tfx *f = tfx_new();
		tt_dir(f->dir, "w/k");
		tt_file(f->dir, "w/k/keep.txt", "old\n");
		char *d = tt_path(f->dir, "w/k");
		int probe = open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (probe < 0) {	/* the test directory's filesystem has none */
			free(d);
			tfx_free(f);
			skip();
		}
		close(probe);
		f->ctx.hook = kill_hook;
		f->ctx.no_tmpfile = fallback;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct tool_result r;
			cJSON *in = cJSON_Parse("{\"path\":\"k/keep.txt\",\"content\":\"new\\n\"}");
			(void)tools_run(&f->ctx, "write", in, &r);
			_exit(3);	/* the hook kills it first */
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		DIR *dir = opendir(d);
		assert_non_null(dir);
		struct dirent *de;
		int others = 0;
		while ((de = readdir(dir)))
			others += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
				  strcmp(de->d_name, "keep.txt");
		closedir(dir);
		char *p = tt_path(f->dir, "w/k/keep.txt");
		char buf[16] = { 0 };
		FILE *fp = fopen(p, "r");
		assert_non_null(fp);
		assert_true(fread(buf, 1, sizeof(buf) - 1, fp) > 0);
		fclose(fp);
		assert_string_equal(buf, "old\n");
		if (fallback)
			assert_int_equal(others, 1);
		else if (others)
			fail_msg("a killed write left %d file(s) next to keep.txt", others);
		free(p);
		free(d);
		tfx_free(f);
	}
}

static void assert_owned(const char *p, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & 07777, mode);
}

/* The new file keeps the replaced one's owner and group: a root caller
 * editing a user's file in their tree gave it to root, and the user could
 * no longer write it.  Needs root to give a file away (CI runs the unit
 * tests as root). */
static void tool_write_keeps_owner(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_file(f->dir, "w/own.txt", "one\n");
	char *p = tt_path(f->dir, "w/own.txt");
	if (geteuid() != 0 || chown(p, 1234, 1235) < 0) {
		free(p);
		tfx_free(f);
		skip();
	}
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(run(f, "edit", "{\"path\":\"own.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
	tool_result_release(&r);
	assert_owned(p, 1234, 1235, 0640);
	assert_int_equal(run(f, "write", "{\"path\":\"own.txt\",\"content\":\"three\\n\"}", &r), 0);
	tool_result_release(&r);
	assert_owned(p, 1234, 1235, 0640);
	char *now = tt_slurp(f->dir, "w/own.txt");
	assert_string_equal(now, "three\n");
	free(now);
	free(p);
	tfx_free(f);
}

/* A file whose group the caller cannot give the new file (not a member:
 * it stays the caller's) loses its group bits: copied, they gave the
 * caller's group what the file's own group had (a 0640 file of group
 * 1235 came out readable by nobody's group).  Needs root to set it up. */
static void tool_write_group_not_kept(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct stat st;
	(void)state;
	tt_file(f->dir, "w/grp.txt", "team secret one\n");
	char *p = tt_path(f->dir, "w/grp.txt"), *w = tt_path(f->dir, "w");
	if (geteuid() != 0 || chown(p, 65534, 1235) < 0) {
		free(p);
		free(w);
		tfx_free(f);
		skip();
	}
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(w, 0777), 0);
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(run_unprivileged(f, "edit", "{\"path\":\"grp.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
	tool_result_release(&r);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_not_equal(st.st_gid, 1235);
	assert_int_equal(st.st_mode & 07777, 0600);
	char *now = tt_slurp(f->dir, "w/grp.txt");
	assert_string_equal(now, "team secret two\n");
	free(now);
	free(p);
	free(w);
	tfx_free(f);
}

/* A POSIX access ACL as the kernel stores it (system.posix_acl_access):
 * user::rw- user:65534:rw- group::--- mask::rw- other::---.  The mode's
 * group bits are the mask (rw), not the owning group's entry (none). */
static const unsigned char acl_group_denied[] = {
	2, 0, 0, 0,					/* version */
	0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,		/* ACL_USER_OBJ rw */
	0x02, 0, 6, 0, 0xfe, 0xff, 0, 0,		/* ACL_USER 65534 rw */
	0x04, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,		/* ACL_GROUP_OBJ --- */
	0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,		/* ACL_MASK rw */
	0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,		/* ACL_OTHER --- */
};

static void assert_acl_group_denied(const char *p)
{
	unsigned char got[256];
	ssize_t n = getxattr(p, "system.posix_acl_access", got, sizeof(got));
	assert_int_equal(n, (ssize_t)sizeof(acl_group_denied));
	assert_memory_equal(got, acl_group_denied, sizeof(acl_group_denied));
}

/* The file that takes an ACL'd file's place keeps its ACL: copying the
 * mode alone, whose group bits are the ACL's mask, gave the owning group
 * (denied by group::---) read and write of the file. */
static void tool_write_keeps_acl(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct stat st;
	(void)state;
	tt_file(f->dir, "w/acl.txt", "secret one\n");
	char *p = tt_path(f->dir, "w/acl.txt");
	assert_int_equal(chmod(p, 0600), 0);
	if (setxattr(p, "system.posix_acl_access", acl_group_denied, sizeof(acl_group_denied), 0) < 0) {
		free(p);
		tfx_free(f);
		skip();	/* a filesystem without POSIX ACLs */
	}
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_int_equal(run(f, "edit", "{\"path\":\"acl.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
	tool_result_release(&r);
	assert_acl_group_denied(p);
	assert_int_equal(run(f, "write", "{\"path\":\"acl.txt\",\"content\":\"secret three\\n\"}", &r), 0);
	tool_result_release(&r);
	assert_acl_group_denied(p);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0660);
	char *now = tt_slurp(f->dir, "w/acl.txt");
	assert_string_equal(now, "secret three\n");
	free(now);
	free(p);
	tfx_free(f);
}

/* A directory's default ACL: user::rwx user:65534:rwx group::r-x
 * mask::rwx other::---, which each file made in it takes. */
static const unsigned char acl_default_nobody[] = {
	2, 0, 0, 0,
	0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
	0x02, 0, 7, 0, 0xfe, 0xff, 0, 0,
	0x04, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
	0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
	0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
};

/* A file with no ACL, in a directory with a default ACL, keeps having
 * none when write or edit replaces it: the new file took the directory's
 * default ACL, and the old mode's group bits (rw) then became its mask,
 * giving user 65534, whom the old file's mode shut out, read and write. */
static void tool_write_no_acl_from_dir_default(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct stat st;
	char got[256];
	(void)state;
	tt_file(f->dir, "w/plain.txt", "secret one\n");
	char *d = tt_path(f->dir, "w");
	char *p = tt_path(f->dir, "w/plain.txt");
	if (setxattr(d, "system.posix_acl_default", acl_default_nobody, sizeof(acl_default_nobody), 0) < 0) {
		free(d);
		free(p);
		tfx_free(f);
		skip();	/* a filesystem without POSIX ACLs */
	}
	assert_int_equal(chmod(p, 0660), 0);
	assert_true(getxattr(p, "system.posix_acl_access", got, sizeof(got)) < 0);
	assert_int_equal(run(f, "edit", "{\"path\":\"plain.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
	tool_result_release(&r);
	assert_true(getxattr(p, "system.posix_acl_access", got, sizeof(got)) < 0);
	assert_int_equal(errno, ENODATA);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(run(f, "write", "{\"path\":\"plain.txt\",\"content\":\"secret three\\n\"}", &r), 0);
	tool_result_release(&r);
	assert_true(getxattr(p, "system.posix_acl_access", got, sizeof(got)) < 0);
	assert_int_equal(errno, ENODATA);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	char *now = tt_slurp(f->dir, "w/plain.txt");
	assert_string_equal(now, "secret three\n");
	free(now);
	free(d);
	free(p);
	tfx_free(f);
}

/* Each user.* attribute of path, "name=hexvalue;" in listing order. */
static char *xattrs_of(const char *p)
{
	char list[4096], val[4096];
	ssize_t ln = listxattr(p, list, sizeof(list));
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	for (char *q = list; ln > 0 && q < list + ln; q += strlen(q) + 1) {
		ssize_t k = getxattr(p, q, val, sizeof(val));
		fprintf(m, "%s=", q);
		for (ssize_t i = 0; i < k; i++)
			fprintf(m, "%02x", (unsigned char)val[i]);
		fputc(';', m);
	}
	fclose(m);
	return buf;
}

/* A file capability as the kernel stores it (VFS_CAP_REVISION_2):
 * cap_net_raw permitted. */
static const unsigned char fcap_net_raw[20] = { 0, 0, 0, 2, 0, 0x20, 0, 0 };

/* The file that takes another's place keeps its user.* xattrs (a tag, a
 * checksum of binary bytes, an empty one): before, an edit dropped them
 * without a word.  Not trusted.* nor security.capability (which the
 * kernel clears on any write).  A read-only (0444) file edited by a user
 * gets them too: setting one needs write permission on the new file. */
static void tool_write_keeps_xattrs(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	static const char sum[] = "\x01\x00\xff sha256 \x00\x7f";
	(void)state;
	tt_file(f->dir, "w/x.txt", "tagged one\n");
	char *p = tt_path(f->dir, "w/x.txt");
	if (setxattr(p, "user.mime_type", "text/plain", 10, 0) < 0) {
		free(p);
		tfx_free(f);
		skip();	/* a filesystem without user xattrs */
	}
	assert_int_equal(setxattr(p, "user.checksum", sum, sizeof(sum), 0), 0);
	assert_int_equal(setxattr(p, "user.empty", "", 0, 0), 0);
	char *want = xattrs_of(p);
	int root = geteuid() == 0;
	if (root) {
		assert_int_equal(setxattr(p, "trusted.sandbx", "t", 1, 0), 0);
		assert_int_equal(setxattr(p, "security.capability", fcap_net_raw, sizeof(fcap_net_raw), 0), 0);
	}
	assert_int_equal(run(f, "edit", "{\"path\":\"x.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
	tool_result_release(&r);
	char *got = xattrs_of(p);
	assert_string_equal(got, want);
	free(got);
	char buf[64];
	assert_int_equal(getxattr(p, "trusted.sandbx", buf, sizeof(buf)), -1);
	assert_int_equal(getxattr(p, "security.capability", buf, sizeof(buf)), -1);
	assert_int_equal(run(f, "write", "{\"path\":\"x.txt\",\"content\":\"tagged three\\n\"}", &r), 0);
	tool_result_release(&r);
	got = xattrs_of(p);
	assert_string_equal(got, want);
	free(got);
	f->ctx.no_tmpfile = 1;	/* the named temp file gets them the same way */
	assert_int_equal(run(f, "edit", "{\"path\":\"x.txt\",\"old\":\"three\",\"new\":\"four\"}", &r), 0);
	tool_result_release(&r);
	f->ctx.no_tmpfile = 0;
	got = xattrs_of(p);
	assert_string_equal(got, want);
	free(got);
	char *now = tt_slurp(f->dir, "w/x.txt");
	assert_string_equal(now, "tagged four\n");
	free(now);
	if (root) {	/* a user's own read-only file */
		char *w = tt_path(f->dir, "w");
		assert_int_equal(chmod(f->dir, 0755), 0);
		assert_int_equal(chmod(w, 0777), 0);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(chmod(p, 0444), 0);
		assert_int_equal(run_unprivileged(f, "edit", "{\"path\":\"x.txt\",\"old\":\"four\",\"new\":\"five\"}",
						  &r), 0);
		tool_result_release(&r);
		got = xattrs_of(p);
		assert_string_equal(got, want);
		free(got);
		assert_owned(p, 65534, 65534, 0444);
		/* one its user may not read (a 0200 file): refused, not dropped */
		assert_int_equal(chmod(p, 0200), 0);
		assert_int_equal(run_unprivileged(f, "write", "{\"path\":\"x.txt\",\"content\":\"lost\\n\"}", &r), -1);
		EXPECT_HAS(r, "cannot read the extended attribute 'user.");
		EXPECT_HAS(r, "of 'x.txt': Permission denied — nothing was written, the file is unchanged");
		tool_result_release(&r);
		got = xattrs_of(p);
		assert_string_equal(got, want);
		free(got);
		now = tt_slurp(f->dir, "w/x.txt");
		assert_string_equal(now, "tagged five\n");
		free(now);
		free(w);
	}
	free(want);
	free(p);
	tfx_free(f);
}

/* Maps id 0 of a new user namespace to id; for the group map, setgroups
 * is denied first, as the kernel requires of an unprivileged writer. */
static int id_map(const char *file, unsigned id)
{
	char map[64];
	int fd;
	if (strstr(file, "gid_map")) {
		fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write_all(fd, "deny", 4) < 0)
			return -1;
		close(fd);
	}
	snprintf(map, sizeof(map), "0 %u 1\n", id);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write_all(fd, map, strlen(map)) < 0)
		return -1;
	close(fd);
	return 0;
}

/* In a child with a mount namespace of its own: a tmpfs of 6 inodes at
 * dir, whose room for inodes and xattrs together (1 KiB per inode of
 * nr_inodes) holds its root, the file with a 2,000-byte user.* value and
 * the temp file, but not that value twice (measured on 6.18: 1,000 bytes
 * fit twice, 1,500 do not).  The write (named
 * temp when fallback) must fail naming the attribute, and leave the file
 * whole with its xattr and no temp file.  Exit 0, 77 (no namespace),
 * or the step that failed; the message on out. */
static int no_room_child(const char *dir, int fallback, int out)
{
	char *err = NULL;
	if (geteuid() != 0) {
		/* Both maps: with the group unmapped, the tmpfs (owned by the
		 * new namespace) refuses to create any file (EOVERFLOW). */
		uid_t uid = geteuid();
		gid_t gid = getegid();
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 || id_map("/proc/self/uid_map", uid) < 0 ||
		    id_map("/proc/self/gid_map", gid) < 0)
			return 77;
	} else if (unshare(CLONE_NEWNS) < 0) {
		return 77;
	}
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "nr_inodes=6,mode=0755") < 0)
		return 77;
	char big[2000];
	memset(big, 'v', sizeof(big));
	tt_file(dir, "tagged.txt", "kept one\n");
	char *p = tt_path(dir, "tagged.txt");
	if (setxattr(p, "user.big", big, sizeof(big), 0) < 0)
		return 77;	/* a kernel whose tmpfs has no user xattrs */
	struct policy pol;
	struct fsguard *g = NULL;
	struct tool_ctx ctx = { .no_tmpfile = fallback };
	struct tool_result r = { 0 };
	policy_init(&pol);
	if (policy_add_grant(&pol, dir, POL_READ | POL_WRITE, &err) < 0 || fsguard_new(&pol, dir, 0, &g, &err) < 0)
		return 10;
	ctx.guard = g;
	ctx.policy = &pol;
	cJSON *in = cJSON_Parse("{\"path\":\"tagged.txt\",\"old\":\"one\",\"new\":\"two\"}");
	int rc = tools_run(&ctx, "edit", in, &r);
	cJSON_Delete(in);
	if (r.content && write_all(out, r.content, strlen(r.content)) < 0)
		return 11;
	char *now = tt_slurp(dir, "tagged.txt");
	char got[2048];
	int step = rc == 0 ? 12 : !now || strcmp(now, "kept one\n") ? 13
		   : getxattr(p, "user.big", got, sizeof(got)) != (ssize_t)sizeof(big) ? 14 : 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (!step && d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "tagged.txt"))
			step = 15;	/* a temp file left */
	if (d)
		closedir(d);
	free(now);
	free(p);
	tool_result_release(&r);
	fsguard_free(g);
	policy_release(&pol);
	return step;
}

/* An xattr the new file cannot take (its filesystem has no room for a
 * second copy) fails the write: the file and its xattr stay as they
 * were and no temp file is left.  Before, the write succeeded and the
 * attribute was gone. */
static void tool_write_xattr_no_room(void **state)
{
	(void)state;
	for (int fallback = 0; fallback <= 1; fallback++) {
		char *dir = tt_setup();
		int pfd[2];
		assert_int_equal(pipe(pfd), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(pfd[0]);
			int step = no_room_child(dir, fallback, pfd[1]);
			free(dir);	/* valgrind checks the child's leaks too */
			child_exit(step);
		}
		close(pfd[1]);
		char msg[4096];
		size_t n = 0;
		ssize_t k;
		while ((k = read(pfd[0], msg + n, sizeof(msg) - 1 - n)) > 0)
			n += (size_t)k;
		msg[n] = '\0';
		close(pfd[0]);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		tt_teardown(dir);
		if (!WIFEXITED(status))
			fail_msg("the child was killed by signal %d (fallback %d)", WTERMSIG(status), fallback);
		if (WEXITSTATUS(status) == 77)
			skip();
		if (WEXITSTATUS(status) != 0)
			fail_msg("step %d failed (fallback %d): %s", WEXITSTATUS(status), fallback, msg);
		if (!strstr(msg, "cannot carry over the extended attribute 'user.big' of 'tagged.txt' to the file that "
				 "takes its place: No space left on device — nothing was written, the file is unchanged: "
				 "free space"))
			fail_msg("message: %s", msg);
	}
}

/* chattr's flags on path, +set -clear (FS_IOC_SETFLAGS); -1 when they
 * cannot be set (not root: CAP_LINUX_IMMUTABLE). */
static int chflags(const char *p, int set, int clear)
{
	int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl = 0;
	if (fd < 0)
		return -1;
	int r = ioctl(fd, FS_IOC_GETFLAGS, &fl);
	fl = (fl | set) & ~clear;
	if (r == 0)
		r = ioctl(fd, FS_IOC_SETFLAGS, &fl);
	close(fd);
	return r;
}

/* The names in dir/rel, sorted as ls sorts them, each followed by a
 * space.  ls alone, and its exit status checked: through a pipe into tr
 * its failure read as an empty directory, which a test that wants no
 * leftover then passed. */
static char *names_in(const char *dir, const char *rel)
{
	char *p = tt_path(dir, rel), *cmd = xasprintf("ls -A '%s'", p);
	FILE *fp = popen(cmd, "r");
	assert_non_null(fp);
	char buf[1024] = { 0 };
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	int st = pclose(fp);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s: status %#x", cmd, st);
	buf[n] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '\n')
			*c = ' ';
	free(cmd);
	free(p);
	return xstrdup(buf);
}

struct flagcase {
	const char *on, *json, *tool, *says;
	int flag;
};

/* A directory chattr made append-only (+a: files can be made in it, none
 * renamed or removed) or immutable (+i), and a file made either, are
 * refused (a new file in a +a directory: tool_write_new_in_append_only_dir)
 * before a temp file is made, naming the path and the flag, the
 * file whole and nothing left beside it.  Before, in the +a directory the
 * rename failed and the temp file could not be removed: it stayed.  Also
 * through FS_IOC_GETFLAGS, for a filesystem whose statx does not report
 * the flags.  Needs root (CAP_LINUX_IMMUTABLE), as CI runs the unit tests. */
static void tool_write_inode_flags_refused(void **state)
{
	static const struct flagcase cases[] = {
		{ "w/fl", "{\"path\":\"fl/keep.txt\",\"old\":\"one\",\"new\":\"two\"}", "edit",
		  "'fl/keep.txt' is in an append-only directory ('fl/', chattr +a) — nothing was written", FS_APPEND_FL },
		{ "w/fl", "{\"path\":\"fl/new.txt\",\"content\":\"x\"}", "write",
		  "'fl/new.txt' is in an immutable directory ('fl/', chattr +i)", FS_IMMUTABLE_FL },
		{ "w/fl/keep.txt", "{\"path\":\"fl/keep.txt\",\"content\":\"x\"}", "write",
		  "'fl/keep.txt' is immutable (chattr +i) — nothing was written", FS_IMMUTABLE_FL },
		{ "w/fl/keep.txt", "{\"path\":\"fl/keep.txt\",\"old\":\"one\",\"new\":\"two\"}", "edit",
		  "'fl/keep.txt' is append-only (chattr +a) — nothing was written", FS_APPEND_FL },
	};
	(void)state;
	struct tfx *f = tfx_new();
	tt_dir(f->dir, "w/fl");
	tt_file(f->dir, "w/fl/keep.txt", "one\n");
	char *fl = tt_path(f->dir, "w/fl");
	if (chflags(fl, FS_APPEND_FL, 0) < 0) {
		free(fl);
		tfx_free(f);
		skip();
	}
	assert_int_equal(chflags(fl, 0, FS_APPEND_FL), 0);
	char *bad = NULL;
	for (int way = 0; way < 3 && !bad; way++) {	/* O_TMPFILE, named temp, no statx flags */
		f->ctx.no_tmpfile = way == 1;
		f->ctx.no_statx_attrs = way == 2;
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !bad; i++) {
			struct tool_result r;
			char *on = tt_path(f->dir, cases[i].on);
			assert_int_equal(chflags(on, cases[i].flag, 0), 0);
			int rc = run(f, cases[i].tool, cases[i].json, &r);
			char *left = names_in(f->dir, "w/fl");
			assert_int_equal(chflags(on, 0, cases[i].flag), 0);	/* before any assert: the teardown */
			char *now = tt_slurp(f->dir, "w/fl/keep.txt");
			if (rc != -1 || !strstr(r.content, cases[i].says) || strcmp(left, "keep.txt ") ||
			    strcmp(now, "one\n"))
				bad = xasprintf("way %d case %zu: rc=%d '%s' left: '%s' now: '%s'", way, i, rc, r.content,
						left, now);
			free(now);
			free(left);
			free(on);
			tool_result_release(&r);
		}
	}
	f->ctx.no_tmpfile = f->ctx.no_statx_attrs = 0;
	free(fl);
	tfx_free(f);
	if (bad)
		fail_msg("%s", bad);
}

/* A flag set after the check, before the rename (the hook on "temp"): the
 * rename fails, and the temp file goes, or, in a directory now append-only
 * where it cannot, the error names it.  Before, the error was a bare
 * "Operation not permitted" and said nothing of a file left behind. */
struct flaghook {
	char *on;
	int flag;
	char *temp;
};

static void flag_hook(void *arg, const char *event, const char *path)
{
	struct flaghook *h = arg;
	if (strcmp(event, "temp") != 0)
		return;
	free(h->temp);
	h->temp = xstrdup(path);
	if (chflags(h->on, h->flag, 0) < 0)
		abort();
}

static void tool_write_rename_fails_temp_named(void **state)
{
	(void)state;
	struct tfx *f = tfx_new();
	tt_dir(f->dir, "w/fl");
	tt_file(f->dir, "w/fl/keep.txt", "one\n");
	char *fl = tt_path(f->dir, "w/fl"), *keep = tt_path(f->dir, "w/fl/keep.txt");
	if (chflags(fl, FS_APPEND_FL, 0) < 0) {
		free(fl);
		free(keep);
		tfx_free(f);
		skip();
	}
	assert_int_equal(chflags(fl, 0, FS_APPEND_FL), 0);
	struct flaghook h = { .on = fl, .flag = FS_APPEND_FL };
	struct tool_result r;
	f->ctx.hook = flag_hook;
	f->ctx.hook_arg = &h;
	int rc = run(f, "edit", "{\"path\":\"fl/keep.txt\",\"old\":\"one\",\"new\":\"two\"}", &r);
	char *left = names_in(f->dir, "w/fl");
	assert_int_equal(chflags(fl, 0, FS_APPEND_FL), 0);
	assert_int_equal(rc, -1);
	assert_non_null(h.temp);
	char *want = xasprintf("its temp file 'fl/%s' could not be removed (Operation not permitted): remove it", h.temp);
	EXPECT_HAS(r, "'fl/keep.txt' is in an append-only directory ('fl/', chattr +a)");
	EXPECT_HAS(r, want);
	char *names = xasprintf("%s keep.txt ", h.temp);
	assert_string_equal(left, names);
	free(names);
	free(want);
	free(left);
	tool_result_release(&r);
	char *t = tt_path(fl, h.temp);
	assert_int_equal(unlink(t), 0);
	free(t);
	/* the file made immutable: the temp file can go, and does */
	h.on = keep;
	h.flag = FS_IMMUTABLE_FL;
	rc = run(f, "write", "{\"path\":\"fl/keep.txt\",\"content\":\"x\"}", &r);
	left = names_in(f->dir, "w/fl");
	assert_int_equal(chflags(keep, 0, FS_IMMUTABLE_FL), 0);
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "'fl/keep.txt' is immutable (chattr +i)");
	EXPECT_NOT(r, "temp file");
	assert_string_equal(left, "keep.txt ");
	free(left);
	tool_result_release(&r);
	char *now = tt_slurp(f->dir, "w/fl/keep.txt");
	assert_string_equal(now, "one\n");
	free(now);
	free(h.temp);
	free(fl);
	free(keep);
	tfx_free(f);
}

/* A new file in an append-only directory is made there: its O_TMPFILE
 * linked to its own name, no temp name ever made.  Before, every write
 * there was refused.  Where there is no O_TMPFILE it still is, as is a
 * file replaced there.  Needs root, as CI runs the unit tests. */
struct linkhook {
	int temps;
	const char *dir;
	const char *theirs;	/* made by "another program" once filled */
};

static void link_hook(void *arg, const char *event, const char *path)
{
	struct linkhook *h = arg;
	(void)path;
	if (strcmp(event, "temp") == 0)
		h->temps++;
	if (strcmp(event, "filled") == 0 && h->theirs)
		tt_file(h->dir, h->theirs, "theirs\n");
}

static void tool_write_new_in_append_only_dir(void **state)
{
	(void)state;
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct linkhook h = { .dir = f->dir };
	tt_dir(f->dir, "w/fl");
	tt_file(f->dir, "w/fl/keep.txt", "one\n");
	char *fl = tt_path(f->dir, "w/fl");
	if (chflags(fl, FS_APPEND_FL, 0) < 0) {
		free(fl);
		tfx_free(f);
		skip();
	}
	f->ctx.hook = link_hook;
	f->ctx.hook_arg = &h;
	int rc1 = run(f, "write", "{\"path\":\"fl/new.txt\",\"content\":\"new\\n\"}", &r);
	char *msg1 = xstrdup(r.content);
	tool_result_release(&r);
	f->ctx.no_statx_attrs = 1;
	int rc2 = run(f, "write", "{\"path\":\"fl/sub/two.txt\",\"content\":\"two\\n\"}", &r);
	char *msg2 = xstrdup(r.content);
	tool_result_release(&r);
	f->ctx.no_statx_attrs = 0;
	int rc3 = run(f, "edit", "{\"path\":\"fl/keep.txt\",\"old\":\"one\",\"new\":\"two\"}", &r);
	char *msg3 = xstrdup(r.content);
	tool_result_release(&r);
	f->ctx.no_tmpfile = 1;
	int rc4 = run(f, "write", "{\"path\":\"fl/three.txt\",\"content\":\"3\\n\"}", &r);
	char *msg4 = xstrdup(r.content);
	tool_result_release(&r);
	f->ctx.no_tmpfile = 0;
	char *left = names_in(f->dir, "w/fl");
	assert_int_equal(chflags(fl, 0, FS_APPEND_FL), 0);	/* before any assert: the teardown */
	f->ctx.hook = NULL;
	if (rc1 != 0 || strcmp(msg1, "created 'fl/new.txt' (4 bytes)"))
		fail_msg("new: %d %s", rc1, msg1);
	if (rc2 != 0)
		fail_msg("new, flags by ioctl: %d %s", rc2, msg2);
	if (rc3 != -1 || !strstr(msg3, "'fl/keep.txt' is in an append-only directory ('fl/', chattr +a)"))
		fail_msg("replace: %d %s", rc3, msg3);
	if (rc4 != -1 || !strstr(msg4, "'fl/three.txt' is in an append-only directory ('fl/', chattr +a) — "
				       "nothing was written"))
		fail_msg("no O_TMPFILE: %d %s", rc4, msg4);
	assert_string_equal(left, "keep.txt new.txt sub ");
	assert_int_equal(h.temps, 0);
	char *now = tt_slurp(f->dir, "w/fl/new.txt");
	assert_string_equal(now, "new\n");
	free(now);
	now = tt_slurp(f->dir, "w/fl/keep.txt");
	assert_string_equal(now, "one\n");
	free(now);
	free(left);
	free(msg1);
	free(msg2);
	free(msg3);
	free(msg4);
	free(fl);
	tfx_free(f);
}

/* A new file whose name another program takes while it is written is
 * not written over: the write fails saying so, theirs stays.  Before,
 * the rename replaced it. */
static void tool_write_new_name_taken(void **state)
{
	(void)state;
	/* O_TMPFILE linked to its name, and a named temp file renamed
	 * (a filesystem without O_TMPFILE): before, the rename replaced the
	 * file that appeared, also one a user approved as new */
	for (int way = 0; way < 2; way++) {
		struct tfx *f = tfx_new();
		struct tool_result r;
		struct linkhook h = { .dir = f->dir, .theirs = "w/race.txt" };
		f->ctx.hook = link_hook;
		f->ctx.hook_arg = &h;
		f->ctx.no_tmpfile = way;
		int rc = run(f, "write", "{\"path\":\"race.txt\",\"content\":\"mine\\n\"}", &r);
		f->ctx.hook = NULL;
		char *now = tt_slurp(f->dir, "w/race.txt");
		char *left = names_in(f->dir, "w");
		if (rc != -1 || !strstr(r.content, "'race.txt' was created by another program while it was being "
						  "written — nothing was written, and that file is left as it is: "
						  "read it and retry") ||
		    strcmp(now, "theirs\n") || strstr(left, "sandbx-"))
			fail_msg("way %d: rc %d, '%s', now '%s', names %s", way, rc, r.content, now, left);
		tool_result_release(&r);
		free(now);
		free(left);
		tfx_free(f);
	}
}

/* The chattr flags its owner may set go with the file to the one that
 * takes its place: on ext4, s u c S d A t x (the unprivileged user CI
 * runs as may set all of them).  Before, the new file had none.  The
 * directory's own (d here) stays on a new file made in it. */
static void tool_write_keeps_flags(void **state)
{
	(void)state;
	static const int want = FS_SECRM_FL | FS_UNRM_FL | FS_COMPR_FL | FS_SYNC_FL | FS_NODUMP_FL | FS_NOATIME_FL |
				FS_NOTAIL_FL | FS_DAX_FL;
	struct tfx *f = tfx_new();
	struct tool_result r;
	tt_file(f->dir, "w/flags.txt", "one\n");
	char *p = tt_path(f->dir, "w/flags.txt");
	if (chflags(p, want, 0) < 0) {	/* not ext4 */
		free(p);
		tfx_free(f);
		skip();
	}
	for (int way = 0; way < 2; way++) {	/* O_TMPFILE, named temp */
		f->ctx.no_tmpfile = way;
		assert_int_equal(run(f, "edit", "{\"path\":\"flags.txt\",\"old\":\"one\",\"new\":\"two\"}", &r), 0);
		tool_result_release(&r);
		int fd = open(p, O_RDONLY | O_CLOEXEC), fl = 0;
		assert_true(fd >= 0);
		assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &fl), 0);
		close(fd);
		if ((fl & want) != want)
			fail_msg("way %d: flags %#x, want %#x", way, fl, want);
		assert_int_equal(run(f, "write", "{\"path\":\"flags.txt\",\"content\":\"one\\n\"}", &r), 0);
		tool_result_release(&r);
	}
	f->ctx.no_tmpfile = 0;
	char *now = tt_slurp(f->dir, "w/flags.txt");
	assert_string_equal(now, "one\n");
	free(now);
	assert_int_equal(chflags(p, 0, want), 0);
	free(p);
	tfx_free(f);
}

/* A file granted by name, rewritten in place with shorter text, whose
 * sync fails (an NFS server refusing the written data at fsync: ENOSPC)
 * keeps its old content whole, as the message says.  Before, the file was
 * cut to the new length before the sync, and the put-back restored only
 * the bytes the new text overwrote: "one\ntwo\nthree\n" became "o" and
 * 13 NUL bytes, reported as "the file is unchanged". */
static void tool_write_in_place_sync_fails_keeps_tail(void **state)
{
	(void)state;
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct policy p;
	struct fsguard *g = NULL;
	char *err = NULL;
	tt_file(f->dir, "w/pin.txt", "one\ntwo\nthree\n");
	char *pin = tt_path(f->dir, "w/pin.txt"), *w = tt_path(f->dir, "w");
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, pin, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(fsguard_new(&p, w, 0, &g, &err), 0);
	f->ctx.guard = g;
	file_sync_fails = ENOSPC;
	int rc = run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"x\"}", &r);
	file_sync_fails = 0;
	char *now = tt_slurp(f->dir, "w/pin.txt");
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "cannot write 'pin.txt': No space left on device (free some disk space and try again) — the "
		      "file is unchanged");
	tool_result_release(&r);
	assert_non_null(now);
	assert_string_equal(now, "one\ntwo\nthree\n");
	struct stat st;
	assert_int_equal(stat(pin, &st), 0);
	assert_int_equal(st.st_size, 14);
	free(now);
	/* A sync that fails once the new text is synced and the file cut
	 * to it leaves the new content, said so, not "unchanged". */
	file_sync_fails = EIO;
	file_syncs_ok = 1;
	rc = run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"y\"}", &r);
	file_sync_fails = file_syncs_ok = 0;
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "'pin.txt' is written, but it could not be synced to disk: Input/output error — the new "
		      "content is in place, yet a crash or power loss may still undo it");
	tool_result_release(&r);
	now = tt_slurp(f->dir, "w/pin.txt");
	assert_string_equal(now, "y");
	free(now);
	/* A close that fails once the new text is written, cut to size and
	 * synced cannot undo it: said so, not "unchanged", as before. */
	tt_file(f->dir, "w/pin.txt", "one\ntwo\nthree\n");
	close_fails = EIO;
	close_failed = 0;
	rc = run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"z\"}", &r);
	close_fails = 0;
	assert_int_equal(close_failed, 1);
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "'pin.txt' is written and synced to disk, but closing it failed: Input/output error — the "
		      "new content is in place; read it back to check it");
	tool_result_release(&r);
	now = tt_slurp(f->dir, "w/pin.txt");
	assert_string_equal(now, "z");
	free(now);
	tt_file(f->dir, "w/pin.txt", "one\ntwo\nthree\n");
	/* and with the sync working, the same write goes through */
	assert_int_equal(run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"x\"}", &r), 0);
	tool_result_release(&r);
	now = tt_slurp(f->dir, "w/pin.txt");
	assert_string_equal(now, "x");
	free(now);
	f->ctx.guard = f->g;
	fsguard_free(g);
	policy_release(&p);
	free(pin);
	free(w);
	tfx_free(f);
}

/* A file granted by name, rewritten in place (no directory of ours for a
 * temp file), that chattr made immutable or append-only is refused naming
 * the flag, as a replace is.  Before: "cannot open 'pin.txt': Operation
 * not permitted — its mode ...", which sent the model to look at modes. */
static void tool_write_in_place_flag_named(void **state)
{
	(void)state;
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct policy p;
	struct fsguard *g = NULL;
	char *err = NULL;
	tt_file(f->dir, "w/pin.txt", "one\n");
	char *pin = tt_path(f->dir, "w/pin.txt"), *w = tt_path(f->dir, "w");
	if (chflags(pin, FS_IMMUTABLE_FL, 0) < 0) {
		free(pin);
		free(w);
		tfx_free(f);
		skip();
	}
	assert_int_equal(chflags(pin, 0, FS_IMMUTABLE_FL), 0);
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, pin, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(fsguard_new(&p, w, 0, &g, &err), 0);
	f->ctx.guard = g;
	char *bad = NULL;
	for (int way = 0; way < 2 && !bad; way++) {	/* statx, FS_IOC_GETFLAGS */
		f->ctx.no_statx_attrs = way;
		assert_int_equal(chflags(pin, FS_IMMUTABLE_FL, 0), 0);
		int rc1 = run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"x\"}", &r);
		char *m1 = xstrdup(r.content);
		tool_result_release(&r);
		assert_int_equal(chflags(pin, FS_APPEND_FL, FS_IMMUTABLE_FL), 0);
		int rc2 = run(f, "edit", "{\"path\":\"pin.txt\",\"old\":\"one\",\"new\":\"two\"}", &r);
		char *m2 = xstrdup(r.content);
		tool_result_release(&r);
		assert_int_equal(chflags(pin, 0, FS_APPEND_FL), 0);
		char *now = tt_slurp(f->dir, "w/pin.txt");
		if (rc1 != -1 || !strstr(m1, "'pin.txt' is immutable (chattr +i) — nothing was written: it cannot be "
					     "changed or replaced until the flag is removed (chattr -i, as root)") ||
		    rc2 != -1 || !strstr(m2, "'pin.txt' is append-only (chattr +a) — nothing was written: it can be "
					     "appended to but not replaced") || strcmp(now, "one\n"))
			bad = xasprintf("way %d: %d %s / %d %s / now '%s'", way, rc1, m1, rc2, m2, now);
		free(m1);
		free(m2);
		free(now);
	}
	f->ctx.no_statx_attrs = 0;
	/* without a flag the same write goes through, in place */
	if (!bad) {
		assert_int_equal(run(f, "write", "{\"path\":\"pin.txt\",\"content\":\"x\"}", &r), 0);
		tool_result_release(&r);
		char *now = tt_slurp(f->dir, "w/pin.txt");
		assert_string_equal(now, "x");
		free(now);
	}
	f->ctx.guard = f->g;
	fsguard_free(g);
	policy_release(&p);
	free(pin);
	free(w);
	tfx_free(f);
	if (bad)
		fail_msg("%s", bad);
}

/* An edit writes back only what it read whole: a file that another
 * program appends to between the size check and the read is left alone,
 * its appended text kept (before, the edit wrote back the size it had
 * seen and cut the rest). */
struct growhook {
	char *file;
	const char *text;
};

static void grow_hook(void *arg, const char *event, const char *path)
{
	struct growhook *h = arg;
	(void)path;
	if (strcmp(event, "sized") != 0 || !h->text)
		return;
	FILE *fp = fopen(h->file, h->text[0] ? "a" : "w");
	assert_non_null(fp);
	fputs(h->text, fp);
	fclose(fp);
}

static void tool_edit_changed_while_read(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_file(f->dir, "w/log.txt", "alpha\nbeta\n");
	struct growhook h = { .file = tt_path(f->dir, "w/log.txt"), .text = "gamma appended\n" };
	f->ctx.hook = grow_hook;
	f->ctx.hook_arg = &h;
	assert_int_equal(run(f, "edit", "{\"path\":\"log.txt\",\"old\":\"alpha\",\"new\":\"ALPHA\"}", &r), -1);
	EXPECT_HAS(r, "'log.txt' changed size while it was read — nothing was changed");
	tool_result_release(&r);
	char *now = tt_slurp(f->dir, "w/log.txt");
	assert_string_equal(now, "alpha\nbeta\ngamma appended\n");
	free(now);
	h.text = "";	/* truncated to nothing after the size check */
	assert_int_equal(run(f, "edit", "{\"path\":\"log.txt\",\"old\":\"alpha\",\"new\":\"ALPHA\"}", &r), -1);
	EXPECT_HAS(r, "changed size while it was read");
	tool_result_release(&r);
	h.text = NULL;
	tt_file(f->dir, "w/log.txt", "alpha\n");
	assert_int_equal(run(f, "edit", "{\"path\":\"log.txt\",\"old\":\"alpha\",\"new\":\"ALPHA\"}", &r), 0);
	tool_result_release(&r);
	now = tt_slurp(f->dir, "w/log.txt");
	assert_string_equal(now, "ALPHA\n");
	free(now);
	free(h.file);
	tfx_free(f);
}

/* Whether dir/rel exists (lstat). */
static int tt_exists(const char *dir, const char *rel)
{
	struct stat st;
	char *p = tt_path(dir, rel);
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

/* "{\"path\":\"PREFIX<n x's>SUFFIX\",\"content\":\"x\"}", malloc'd. */
static char *long_write(const char *prefix, size_t n, const char *suffix)
{
	char *xs = xmalloc(n + 1);
	memset(xs, 'x', n);
	xs[n] = '\0';
	char *json = xasprintf("{\"path\":\"%s%s%s\",\"content\":\"x\"}", prefix, xs, suffix);
	free(xs);
	return json;
}

/* A sibling the "filled" hook puts in a directory the write made, as
 * another program would while the write runs (a new file has no temp
 * name, so no "temp" event). */
static void sibling_hook(void *arg, const char *event, const char *path)
{
	const char *dir = arg;
	(void)path;
	if (strcmp(event, "filled") == 0)
		tt_file(dir, "w/r1/other.txt", "theirs");
}

/* A write that fails after it made the missing directories of its path
 * removes them again, innermost first and only those it made: the temp
 * file's rename refused (a name of 256 bytes), a later component refused
 * while the directories were made, a size limit; a directory that was
 * there before stays, and so does one another program put a file in. */
static void tool_write_failed_leaves_no_dirs(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	/* the rename of the temp file fails: the name is too long */
	char *json = long_write("n1/n2/", 256, "");
	assert_int_equal(run(f, "write", json, &r), -1);
	EXPECT_HAS(r, "cannot put");
	tool_result_release(&r);
	free(json);
	assert_false(tt_exists(f->dir, "w/n1"));
	/* the second directory to make cannot be made: the first goes */
	json = long_write("m1/", 300, "/f.txt");
	assert_int_equal(run(f, "write", json, &r), -1);
	tool_result_release(&r);
	free(json);
	assert_false(tt_exists(f->dir, "w/m1"));
	/* a directory that was there stays, with what it held */
	tt_dir(f->dir, "w/keep");
	tt_file(f->dir, "w/keep/k.txt", "k");
	json = long_write("keep/k1/k2/", 256, "");
	assert_int_equal(run(f, "write", json, &r), -1);
	tool_result_release(&r);
	free(json);
	assert_true(tt_exists(f->dir, "w/keep/k.txt"));
	assert_false(tt_exists(f->dir, "w/keep/k1"));
	/* a file size limit the content is over */
	struct rlimit old, low;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	low = old;
	low.rlim_cur = 4;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
	int rc = run(f, "write", "{\"path\":\"big1/big2/f.txt\",\"content\":\"more than four\"}", &r);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rc, -1);
	EXPECT_HAS(r, "ulimit -f");
	tool_result_release(&r);
	assert_false(tt_exists(f->dir, "w/big1"));
	/* another program puts a file in a directory the write made: that
	 * directory stays, with its file; the one inside it, empty, goes; the
	 * write's own error is what the model reads */
	f->ctx.hook = sibling_hook;
	f->ctx.hook_arg = f->dir;
	json = long_write("r1/r2/", 256, "");
	assert_int_equal(run(f, "write", json, &r), -1);
	EXPECT_HAS(r, "cannot put");
	EXPECT_NOT(r, "Directory not empty");
	tool_result_release(&r);
	free(json);
	f->ctx.hook = NULL;
	assert_true(tt_exists(f->dir, "w/r1/other.txt"));
	assert_false(tt_exists(f->dir, "w/r1/r2"));
	tfx_free(f);
}

/* A write approved over a file that has since gone with its directories
 * (the user removed the tree while the question waited) is refused
 * without making those directories again. */
static void tool_write_approved_gone_makes_no_dirs(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	struct tool_expect ex = { .present = 1, .content = "old\n", .len = 4 };
	f->ctx.expect = &ex;
	assert_int_equal(run(f, "write", "{\"path\":\"gone/sub/f.txt\",\"content\":\"new\\n\"}", &r), -1);
	EXPECT_HAS(r, "changed after the question showed the user its diff (it was removed)");
	tool_result_release(&r);
	assert_false(tt_exists(f->dir, "w/gone"));
	f->ctx.expect = NULL;
	tfx_free(f);
}

/* A file changed (or removed) by another program while the approved new
 * text was written and synced is not replaced: the check is made again
 * just before the rename (before, only before the temp file was made).
 * Both routes: the O_TMPFILE and the named temp file. */
struct racehook {
	const char *dir;
	int remove;
};

static void race_hook(void *arg, const char *event, const char *path)
{
	struct racehook *h = arg;
	(void)path;
	if (strcmp(event, "filled") != 0)
		return;
	if (h->remove) {
		char *p = tt_path(h->dir, "w/race/n.txt");
		assert_int_equal(unlink(p), 0);
		free(p);
	} else {
		tt_file(h->dir, "w/race/n.txt", "theirs\n");
	}
}

static void tool_write_changed_while_written_kept(void **state)
{
	(void)state;
	for (int fallback = 0; fallback <= 1; fallback++) {
		for (int remove = 0; remove <= 1; remove++) {
			struct tfx *f = tfx_new();
			struct tool_result r;
			struct racehook h = { .dir = f->dir, .remove = remove };
			tt_dir(f->dir, "w/race");
			tt_file(f->dir, "w/race/n.txt", "old\n");
			struct tool_expect ex = { .present = 1, .content = "old\n", .len = 4 };
			f->ctx.expect = &ex;
			f->ctx.hook = race_hook;
			f->ctx.hook_arg = &h;
			f->ctx.no_tmpfile = fallback;
			assert_int_equal(run(f, "write", "{\"path\":\"race/n.txt\",\"content\":\"new\\n\"}", &r), -1);
			EXPECT_HAS(r, remove ? "changed after the question showed the user its diff (it was removed)"
					     : "changed after the question showed the user its diff (its content is not "
					       "what the diff showed)");
			tool_result_release(&r);
			if (remove) {
				assert_false(tt_exists(f->dir, "w/race/n.txt"));
			} else {
				char *now = tt_slurp(f->dir, "w/race/n.txt");
				assert_string_equal(now, "theirs\n");
				free(now);
			}
			/* no temp file left beside it */
			char *d = tt_path(f->dir, "w/race");
			DIR *dd = opendir(d);
			assert_non_null(dd);
			int n = 0;
			for (struct dirent *e; (e = readdir(dd));)
				n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
			closedir(dd);
			assert_int_equal(n, remove ? 0 : 1);
			free(d);
			f->ctx.expect = NULL;
			tfx_free(f);
		}
	}
}

/* An edit changes a file it read: when that file goes with its directory
 * between the read and the write, the edit fails and makes nothing (it
 * made the directory again and wrote the file there). */
static void gone_hook(void *arg, const char *event, const char *path)
{
	const char *dir = arg;
	(void)path;
	if (strcmp(event, "sized") != 0)
		return;
	char *p = tt_path(dir, "w/ed/e.txt"), *d = tt_path(dir, "w/ed");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rmdir(d), 0);
	free(p);
	free(d);
}

static void tool_edit_dir_gone_makes_none(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/ed");
	tt_file(f->dir, "w/ed/e.txt", "alpha\n");
	f->ctx.hook = gone_hook;
	f->ctx.hook_arg = f->dir;
	assert_int_equal(run(f, "edit", "{\"path\":\"ed/e.txt\",\"old\":\"alpha\",\"new\":\"beta\"}", &r), -1);
	EXPECT_HAS(r, "not found");
	tool_result_release(&r);
	f->ctx.hook = NULL;
	assert_false(tt_exists(f->dir, "w/ed"));
	tfx_free(f);
}

/* replace_all cannot grow a file past the edit limit (it would be built
 * whole in memory): refused, the file unchanged. */
static void tool_edit_growth_capped(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	char *as = xmalloc(4097), *json = xmalloc(8192);
	memset(as, 'a', 4096);
	as[4096] = '\0';
	tt_file(f->dir, "w/amp.txt", as);
	char *bs = xmalloc(5001);
	memset(bs, 'B', 5000);
	bs[5000] = '\0';
	snprintf(json, 8192, "{\"path\":\"amp.txt\",\"old\":\"a\",\"new\":\"%s\",\"replace_all\":true}", bs);
	assert_int_equal(run(f, "edit", json, &r), -1);
	EXPECT_HAS(r, "this edit would make 'amp.txt' 20480000 bytes, over the 16 MiB edit limit");
	tool_result_release(&r);
	char *now = tt_slurp(f->dir, "w/amp.txt");
	assert_string_equal(now, as);
	free(now);

	/* A file over the limit is refused before it is read, also when the
	 * edit would shrink it under the limit: a unique 64-byte line at the
	 * head of a text file 16 MiB + 16 bytes long, replaced by "". */
	char *big = tt_path(f->dir, "w/big.txt");
	const char *mark = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
	static char lines[1 << 16];
	for (size_t i = 0; i < sizeof(lines); i++)
		lines[i] = i % 64 == 63 ? '\n' : 'z';
	int bfd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(bfd >= 0);
	assert_int_equal(write(bfd, mark, 64), 64);
	for (size_t left = TOOLS_MAX_EDIT_BYTES + 16 - 64; left;) {
		size_t w = left < sizeof(lines) ? left : sizeof(lines);
		assert_int_equal(write(bfd, lines, w), (ssize_t)w);
		left -= w;
	}
	close(bfd);
	snprintf(json, 8192, "{\"path\":\"big.txt\",\"old\":\"%.63s\\n\",\"new\":\"\"}", mark);
	assert_int_equal(run(f, "edit", json, &r), -1);
	EXPECT_HAS(r, "'big.txt' is larger than 16 MiB — too large to edit here");
	tool_result_release(&r);
	struct stat bst;
	assert_int_equal(stat(big, &bst), 0);
	assert_int_equal(bst.st_size, (off_t)TOOLS_MAX_EDIT_BYTES + 16);
	free(big);
	free(as);
	free(bs);
	free(json);
	tfx_free(f);
}

/* A name with a newline cannot pose as another entry or a grep hit. */
static void tool_names_visible(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/nm");
	tt_file(f->dir, "w/nm/evil\nfile        0  PWNED.txt", "MARK\n");
	assert_int_equal(run(f, "ls", "{\"path\":\"nm\"}", &r), 0);
	EXPECT_HAS(r, "evil\\x0afile        0  PWNED.txt\n");
	EXPECT_NOT(r, "\nfile ");
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\"nm\",\"name\":\"*\"}", &r), 0);
	EXPECT_HAS(r, "nm/evil\\x0afile");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"nm\",\"pattern\":\"MARK\"}", &r), 0);
	EXPECT_HAS(r, "nm/evil\\x0afile        0  PWNED.txt:1:MARK\n");
	tool_result_release(&r);
	char *v = tools_name_visible("a\tb\x7f\x1b[31m");
	assert_string_equal(v, "a\\x09b\\x7f\\x1b[31m");
	free(v);
	/* a byte that is not UTF-8 is shown as itself, not as the U+FFFD
	 * every other such byte also becomes in the JSON the model reads */
	v = tools_name_visible("\xff\xfe-\xc3\xa9-\xc3-\xe2\x80");
	assert_string_equal(v, "\\xff\\xfe-\xc3\xa9-\\xc3-\\xe2\\x80");
	free(v);
	tt_file(f->dir, "w/nm/bad\xff.txt", "MARK\n");
	assert_int_equal(run(f, "ls", "{\"path\":\"nm\"}", &r), 0);
	EXPECT_HAS(r, "bad\\xff.txt");
	tool_result_release(&r);
	tfx_free(f);
}

/* Two names are never shown alike: a backslash is itself escaped, so a
 * file literally named 'a\x0ab' is not shown as the file 'a<newline>b'
 * (before, both listed as a\x0ab, and the model, sending that text back,
 * reached the literal one whichever it meant); the C1 control NEL and
 * the line and paragraph separators, which break a line for whoever
 * reads the result as text, are shown as bytes too. */
static void tool_names_unambiguous(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/amb");
	tt_file(f->dir, "w/amb/a\nb", "MARK\n");
	tt_file(f->dir, "w/amb/a\\x0ab", "MARK\n");
	assert_int_equal(run(f, "ls", "{\"path\":\"amb\"}", &r), 0);
	assert_string_equal(r.content, "file             5  a\\x0ab\nfile             5  a\\x5cx0ab\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\"amb\",\"name\":\"a*\"}", &r), 0);
	assert_string_equal(r.content, "amb/a\\x0ab\namb/a\\x5cx0ab\n");
	tool_result_release(&r);
	char *v = tools_name_visible("x\xc2\x85y\xe2\x80\xa8z\xe2\x80\xa9\xc2\x9b-\xc2\xa0\xe2\x80\xaa\\");
	assert_string_equal(v, "x\\xc2\\x85y\\xe2\\x80\\xa8z\\xe2\\x80\\xa9\\xc2\\x9b-\xc2\xa0\xe2\x80\xaa\\x5c");
	free(v);
	tfx_free(f);
}

/* A name cannot pose as grep's separators or as a closing note: a ':' in
 * a path grep shows is \x3a, so the file 'm.c:1:evil' holding 'x' is not
 * read as line 1 of m.c saying 'evil:1:x'; and a path that would start a
 * line with '(' (a name found beneath '.') is shown from \x28, so a file
 * named '(no matches)' does not answer a find for it. */
static void tool_names_not_notes(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/nn");
	tt_file(f->dir, "w/nn/m.c", "int x;\n");
	tt_file(f->dir, "w/nn/m.c:1:evil", "x\n");
	tt_file(f->dir, "w/nn/(no matches)", "");
	assert_int_equal(run(f, "grep", "{\"path\":\"nn\",\"pattern\":\"^x\"}", &r), 0);
	assert_string_equal(r.content, "nn/m.c\\x3a1\\x3aevil:1:x\n");
	tool_result_release(&r);
	f->ctx.guard = NULL;
	fsguard_free(f->g);
	char *nn = tt_path(f->dir, "w/nn"), *err = NULL;
	struct policy p;
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, nn, POL_READ, &err), 0);
	assert_int_equal(fsguard_new(&p, nn, 0, &f->g, &err), 0);
	f->ctx.guard = f->g;
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"(*\"}", &r), 0);
	assert_string_equal(r.content, "\\x28no matches)\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\".\",\"pattern\":\"x\"}", &r), 0);
	EXPECT_HAS(r, "m.c:1:int x;\n");
	EXPECT_HAS(r, "m.c\\x3a1\\x3aevil:1:x\n");
	tool_result_release(&r);
	policy_release(&p);
	free(nn);
	tfx_free(f);
}

/* A name is shown escaped, four bytes for each control byte: find counts
 * what it shows against the output cap, so the closing line says how many
 * paths are really there and that the cap cut them. */
static void tool_find_cap_counts_escaped(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	char d[251], name[512];
	(void)state;
	memset(d, '\x01', 250);
	d[250] = '\0';
	snprintf(name, sizeof(name), "w/%s", d);
	tt_dir(f->dir, name);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "w/%s/%03d%.247s", d, i, d);
		tt_file(f->dir, name, "");
	}
	assert_int_equal(run(f, "find", "{\"path\":\".\",\"name\":\"*\"}", &r), 0);
	EXPECT_HAS(r, "output cap of 256 KiB reached");
	unsigned shown = 0, total = 0, lines = 0;
	const char *m = strstr(r.content, "(showing ");
	assert_non_null(m);
	assert_int_equal(sscanf(m, "(showing %u of %u matches", &shown, &total), 2);
	for (const char *p = r.content; p < m; p++)
		lines += *p == '\n';
	assert_true(total >= 201);
	assert_int_equal(shown, lines);
	assert_true(strlen(r.content) <= TOOLS_MAX_OUTPUT + 256);
	tool_result_release(&r);
	tfx_free(f);
}

/* grep's file cap counts files searched; the walk's other entries
 * (directories, files the glob passes over) have their own bound, 100 per
 * file of the cap, so a tree of empty directories is not walked whole. */
static void tool_grep_entries_capped(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	char rel[64];
	(void)state;
	tt_dir(f->dir, "w/many");
	for (int i = 0; i < 250; i++) {
		snprintf(rel, sizeof(rel), "w/many/d%03d", i);
		tt_dir(f->dir, rel);
	}
	f->ctx.limits.max_scan_files = 2;
	const char *calls[] = { "{\"path\":\"many\",\"pattern\":\"needle\"}",
				"{\"path\":\"many\",\"pattern\":\"need(le)\"}",
				"{\"path\":\"many\",\"pattern\":\"needle\",\"glob\":\"*.c\"}" };
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
		assert_int_equal(run(f, "grep", calls[k], &r), 0);
		EXPECT_HAS(r, "(stopped after visiting 200 entries (0 files searched): scan cap of 200 entries");
		EXPECT_HAS(r, "raise --max-scan-files");
		tool_result_release(&r);
	}
	tt_file(f->dir, "w/many/d249/hit.txt", "needle\n");
	f->ctx.limits.max_scan_files = 3;
	assert_int_equal(run(f, "grep", "{\"path\":\"many\",\"pattern\":\"needle\"}", &r), 0);
	EXPECT_HAS(r, "many/d249/hit.txt:1:needle");
	EXPECT_NOT(r, "stopped after");
	tool_result_release(&r);
	tfx_free(f);
}

/* An entry whose path is longer than the walk can show (4,352 bytes:
 * 19 directories of 245-byte names) is not searched, and the result says
 * so instead of acting as if the tree held nothing more. */
static void tool_walk_long_paths_noted(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	char name[256];
	(void)state;
	char *w = tt_path(f->dir, "w");
	tt_dir(f->dir, "w/lp");
	char *lp = tt_path(f->dir, "w/lp");
	int dfd = open(lp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	for (int i = 0; i < 19; i++) {
		snprintf(name, sizeof(name), "d%02d_%0240d", i, 0);
		assert_int_equal(mkdirat(dfd, name, 0755), 0);
		int nfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(nfd >= 0);
		close(dfd);
		dfd = nfd;
	}
	int fd = openat(dfd, "needle.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "needle\n", 7), 7);
	close(fd);
	close(dfd);
	assert_int_equal(run(f, "grep", "{\"path\":\"lp\",\"pattern\":\"needle\"}", &r), 0);
	EXPECT_HAS(r, "(1 entry with a path too long to show not searched: search a deeper path)");
	tool_result_release(&r);
	assert_int_equal(run(f, "find", "{\"path\":\"lp\",\"name\":\"needle*\"}", &r), 0);
	EXPECT_HAS(r, "(1 entry with a path too long to show not searched: search a deeper path)");
	tool_result_release(&r);
	free(lp);
	free(w);
	tfx_free(f);
}

/* A file or directory the user cannot open (mode 0000, a directory of
 * 0300: a bash call can make either in its tree) is not searched, and the
 * result says so: before, grep answered "no matches" and find listed
 * nothing beneath such a directory, without a word, over a tree holding
 * the text and the name asked for. */
static void tool_walk_unreadable_noted(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/perm");
	tt_dir(f->dir, "w/perm/hid");
	tt_file(f->dir, "w/perm/hid/inner.txt", "needle\n");
	tt_file(f->dir, "w/perm/locked.txt", "needle\n");
	char *hid = tt_path(f->dir, "w/perm/hid"), *locked = tt_path(f->dir, "w/perm/locked.txt");
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(hid, 0300), 0);
	assert_int_equal(chmod(locked, 0), 0);
	const char *greps[] = { "{\"path\":\"perm\",\"pattern\":\"needle\"}",
				"{\"path\":\"perm\",\"pattern\":\"need(le)\"}" };
	for (size_t i = 0; i < SBX_ARRAY_LEN(greps); i++) {
		assert_int_equal(run_unprivileged(f, "grep", greps[i], &r), 0);
		EXPECT_HAS(r, "(1 file could not be opened (Permission denied) and was not searched, "
			      "'perm/locked.txt' — check its mode with bash (ls -ld))\n");
		EXPECT_HAS(r, "(1 directory could not be opened (Permission denied) and was not searched, "
			      "'perm/hid' — check its mode with bash (ls -ld))\n");
		tool_result_release(&r);
	}
	assert_int_equal(run_unprivileged(f, "find", "{\"path\":\"perm\",\"name\":\"*.txt\"}", &r), 0);
	EXPECT_HAS(r, "perm/locked.txt\n");
	EXPECT_HAS(r, "(1 directory could not be opened (Permission denied) and was not searched, 'perm/hid'");
	tool_result_release(&r);
	/* nothing to say when every entry was opened */
	assert_int_equal(chmod(hid, 0755), 0);
	assert_int_equal(chmod(locked, 0644), 0);
	assert_int_equal(run_unprivileged(f, "grep", greps[0], &r), 0);
	EXPECT_NOT(r, "could not be opened");
	EXPECT_HAS(r, "perm/hid/inner.txt:1:needle\n");
	tool_result_release(&r);
	free(hid);
	free(locked);
	tfx_free(f);
}

/* A path the user may not open (mode 0000, a directory of 0300, one its
 * temp file cannot be made in) gets an error saying why and what to do,
 * not a bare "Permission denied". */
static void tool_permission_denied_says_why(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_dir(f->dir, "w/ro");
	tt_file(f->dir, "w/locked.txt", "needle\n");
	tt_file(f->dir, "w/ro/f.txt", "old\n");
	char *locked = tt_path(f->dir, "w/locked.txt"), *ro = tt_path(f->dir, "w/ro");
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(chmod(locked, 0), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(run_unprivileged(f, "read", "{\"path\":\"locked.txt\"}", &r), -1);
	assert_string_equal(r.content, "cannot open 'locked.txt': Permission denied — its mode (or a directory's "
			    "on the way) does not let the user sandbx runs as read it: check it with bash (ls -ld)");
	tool_result_release(&r);
	assert_int_equal(run_unprivileged(f, "write", "{\"path\":\"ro/f.txt\",\"content\":\"new\\n\"}", &r), -1);
	EXPECT_HAS(r, "cannot create a temp file next to 'ro/f.txt': Permission denied — write replaces a file "
		      "through a new one in its directory, whose mode does not let the user sandbx runs as create "
		      "it: check it with bash (ls -ld)");
	tool_result_release(&r);
	assert_int_equal(chmod(ro, 0755), 0);	/* for the teardown, as a user */
	free(locked);
	free(ro);
	tfx_free(f);
}

/* A glob is matched against every entry of a walk, at every level when it
 * holds a '/': a 120 KB one took find 10 s over 3,000 entries, an 8 MiB one
 * (what a tool input may hold) would take the harness most of an hour. */
static void tool_glob_length_capped(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	size_t n = TOOLS_MAX_GLOB + 1;
	char *glob = xmalloc(n + 1);
	memset(glob, '*', n);
	glob[n] = '\0';
	glob[n - 1] = 'c';
	char *in = xasprintf("{\"path\":\".\",\"name\":\"%s\"}", glob);
	assert_int_equal(run(f, "find", in, &r), -1);
	EXPECT_HAS(r, "field 'name' of tool 'find' is 4097 bytes long, over its 4096");
	tool_result_release(&r);
	free(in);
	in = xasprintf("{\"path\":\"src\",\"pattern\":\"return\",\"glob\":\"%s\"}", glob);
	assert_int_equal(run(f, "grep", in, &r), -1);
	EXPECT_HAS(r, "field 'glob' of tool 'grep' is 4097 bytes long, over its 4096");
	tool_result_release(&r);
	free(in);
	/* at the cap it runs */
	in = xasprintf("{\"path\":\".\",\"name\":\"%s\"}", glob + 1);
	assert_int_equal(run(f, "find", in, &r), 0);
	EXPECT_HAS(r, "src/main.c\n");
	tool_result_release(&r);
	free(in);
	free(glob);
	cJSON *schema = tools_schema_json(TOOLS_MASK_ALL);
	char *text = cJSON_PrintUnformatted(schema);
	assert_non_null(strstr(text, "\"maxLength\":4096"));
	free(text);
	cJSON_Delete(schema);
	tfx_free(f);
}

/* glibc's fnmatch costs about the glob's length times the path's for a
 * glob of brackets that also match '/', and a leading "**" + "/" runs it
 * again from every directory of the path: 15 levels of 250-byte names
 * and a 4 KB glob took find 125 ms an entry here, 21 minutes at the
 * default 10,000.  find and a literal grep walk in the harness, untimed:
 * the walk stops at the search's time budget and says so. */
static void tool_walk_time_bound(void **state)
{
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();
	struct tfx *f = tfx_new();
	struct tool_result r;
	char name[256];
	(void)state;
	tt_dir(f->dir, "w/slow");
	char *sp = tt_path(f->dir, "w/slow");
	int dfd = open(sp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	memset(name, 'a', 250);
	name[250] = '\0';
	for (int i = 0; i < 15; i++) {
		assert_int_equal(mkdirat(dfd, name, 0755), 0);
		int nfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(nfd >= 0);
		close(dfd);
		dfd = nfd;
	}
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "%0200d", i);
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	close(dfd);
	free(sp);
	char glob[TOOLS_MAX_GLOB + 1] = "**/*";
	while (strlen(glob) + 4 + 2 <= TOOLS_MAX_GLOB)
		strcat(glob, "[a/]");
	strcat(glob, "/b");
	f->ctx.limits.grep_ms = 300;
	char *in = xasprintf("{\"path\":\"slow\",\"name\":\"%s\"}", glob);
	long t0 = test_ms();
	assert_int_equal(run(f, "find", in, &r), 0);
	long took = test_ms() - t0;
	EXPECT_HAS(r, "(stopped after 0.3 s");
	EXPECT_HAS(r, "(no matches in the entries scanned)");
	tool_result_release(&r);
	free(in);
	if (took >= 3000)
		fail_msg("find took %ld ms with a budget of 300", took);
	in = xasprintf("{\"path\":\"slow\",\"pattern\":\"needle\",\"glob\":\"%s\"}", glob);
	t0 = test_ms();
	assert_int_equal(run(f, "grep", in, &r), 0);
	took = test_ms() - t0;
	EXPECT_HAS(r, "(stopped after 0.3 s");
	tool_result_release(&r);
	free(in);
	if (took >= 3000)
		fail_msg("grep took %ld ms with a budget of 300", took);
	tfx_free(f);
}

/* A literal is searched in the harness, untimed: confirming each place
 * its rarest byte occurs with memcmp costs the literal's length there, so
 * 'b' x 512 Ki then 'c' over 2 MiB of 'b' compared 8e11 bytes (about
 * 11 s a file, and 32 such files fit the scan budget).  It must stay
 * linear, and still find the literal. */
static void tool_grep_long_literal_linear(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	size_t n = TOOLS_MAX_FILE_BYTES, L = 512 * 1024;
	char *big = xmalloc(n);
	memset(big, 'b', n);
	big[n - 1] = '\n';
	tt_filen(f->dir, "w/bb.txt", big, n);
	big[n - 2] = 'c';	/* the literal ends the only line */
	tt_filen(f->dir, "w/bc.txt", big, n);
	free(big);
	char *in = xmalloc(L + 64), *p = in;
	p += sprintf(p, "{\"path\":\"bb.txt\",\"pattern\":\"");
	memset(p, 'b', L);
	p += L;
	strcpy(p, "c\"}");
	long t0 = test_ms();
	assert_int_equal(run(f, "grep", in, &r), 0);
	long took = test_ms() - t0;
	EXPECT_HAS(r, "(no matches in 1 files searched)");
	tool_result_release(&r);
	if (!RUNNING_ON_VALGRIND && took >= 2000)
		fail_msg("a 512 KiB literal over 2 MiB took %ld ms", took);
	in[10] = 'c';	/* bb.txt -> bc.txt */
	assert_int_equal(run(f, "grep", in, &r), 0);
	EXPECT_HAS(r, "bc.txt:1:bbbb");
	tool_result_release(&r);
	free(in);
	tfx_free(f);
}

/* A match at the very end of a file that ends in a newline is past its
 * last line: \z there was shown as a line 6 of five.txt, which read
 * (and every other tool) says has 5. */
static void tool_grep_no_line_past_end(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	assert_int_equal(run(f, "grep", "{\"path\":\"five.txt\",\"pattern\":\"\\\\z\"}", &r), 0);
	EXPECT_NOT(r, "five.txt:6:");
	EXPECT_HAS(r, "(no matches in 1 files searched)");
	tool_result_release(&r);
	/* without the final newline, the last line holds the end */
	tt_file(f->dir, "w/nonl.txt", "one\ntwo");
	assert_int_equal(run(f, "grep", "{\"path\":\"nonl.txt\",\"pattern\":\"\\\\z\"}", &r), 0);
	assert_string_equal(r.content, "nonl.txt:2:two\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* A match is within one line, as grep's always is: the regex runs over
 * the whole file, where [^x], \s and \n also match a line break, so
 * 'x[^y]*z' reported a line holding an x and no z. */
static void tool_grep_match_within_line(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_file(f->dir, "w/span.txt", "call x(1,\n  2) z;\nfoo   \n  bar\na c a\nb\nx then z\n");
	const char *none[] = { "x[^y]*z\\\\(", "foo\\\\s+bar", "1,\\\\n", "a[^c]*b", "z;\\\\s*$\\\\s*foo" };
	for (size_t i = 0; i < SBX_ARRAY_LEN(none); i++) {
		char *in = xasprintf("{\"path\":\"span.txt\",\"pattern\":\"%s\"}", none[i]);
		assert_int_equal(run(f, "grep", in, &r), 0);
		if (!strstr(r.content, "(no matches in 1 files searched)"))
			fail_msg("pattern %s: %s", none[i], r.content);
		tool_result_release(&r);
		free(in);
	}
	/* the lines after a spanning candidate are searched */
	assert_int_equal(run(f, "grep", "{\"path\":\"span.txt\",\"pattern\":\"x[^y]*z\"}", &r), 0);
	assert_string_equal(r.content, "span.txt:7:x then z\n");
	tool_result_release(&r);
	/* a pattern holding a line break would never match: said so */
	assert_int_equal(run(f, "grep", "{\"path\":\"span.txt\",\"pattern\":\"1,\\n  2\"}", &r), -1);
	EXPECT_HAS(r, "the pattern holds a line break, and grep matches within one line");
	tool_result_release(&r);
	/* and a line whose leftmost candidate spans still matches further on */
	tt_file(f->dir, "w/same.txt", "q w\nr\n");
	assert_int_equal(run(f, "grep", "{\"path\":\"same.txt\",\"pattern\":\"q[^!]+r|w\"}", &r), 0);
	assert_string_equal(r.content, "same.txt:1:q w\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* A CRLF line ends where its LF line would: read and grep show such lines
 * without the CR, so the model cannot see the byte that kept 'foo$' from
 * matching "foo\r\n".  As ripgrep's --crlf: CR, LF and CRLF end a line for
 * ^ and $ (never between the CR and the LF), and '.' takes none of them. */
static void tool_grep_crlf_line_end(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	tt_file(f->dir, "w/crlf.txt", "foo\r\nbar\r\nfoo x\r\n\r\nend\r\n");
	tt_file(f->dir, "w/lf.txt", "foo\nbar\n");
	const struct { const char *pat, *want; } c[] = {
		{ "foo$", "crlf.txt:1:foo\n" },
		{ "^bar$", "crlf.txt:2:bar\n" },
		{ "x$", "crlf.txt:3:foo x\n" },
		{ "^$", "crlf.txt:4:\n" },
		{ "end\\\\s*$", "crlf.txt:5:end\n" },
		{ "foo.$", "(no matches in 1 files searched)\n" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(c); i++) {
		char *in = xasprintf("{\"path\":\"crlf.txt\",\"pattern\":\"%s\"}", c[i].pat);
		assert_int_equal(run(f, "grep", in, &r), 0);
		if (strcmp(r.content, c[i].want) != 0)
			fail_msg("pattern %s: %s", c[i].pat, r.content);
		tool_result_release(&r);
		free(in);
	}
	/* LF files as before */
	assert_int_equal(run(f, "grep", "{\"path\":\"lf.txt\",\"pattern\":\"^bar$\"}", &r), 0);
	assert_string_equal(r.content, "lf.txt:2:bar\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* After a match that crossed a line break and whose line alone held none,
 * each search from the next line ran on to the same far match: 'a[^b]*c'
 * over a line of 'a' each and one 'c' at the end was quadratic (80,000
 * lines took 3.8 s), and over lines of "ac" each too (5.7 s).  The rest of the file is searched a line at a time,
 * and the lines it finds keep their numbers. */
static void tool_grep_spanning_linear(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	size_t lines = 400000, n = 2 * lines + 8;
	char *big = xmalloc(n + 1), *p = big;
	for (size_t i = 0; i < lines; i++) {
		*p++ = 'a';
		*p++ = '\n';
	}
	p += sprintf(p, "c\nac\n");	/* lines 400001 and 400002 */
	tt_filen(f->dir, "w/aaa.txt", big, (size_t)(p - big));
	free(big);
	long t0 = test_ms();
	assert_int_equal(run(f, "grep", "{\"path\":\"aaa.txt\",\"pattern\":\"a[^b]*c\"}", &r), 0);
	long took = test_ms() - t0;
	assert_string_equal(r.content, "aaa.txt:400002:ac\n");
	tool_result_release(&r);
	if (!RUNNING_ON_VALGRIND && took >= 2000)
		fail_msg("a spanning pattern over %zu short lines took %ld ms", lines, took);
	/* lines that each match, where the first match over the file ran on
	 * to the last line's 'c', and so did the one from each next line */
	big = xmalloc(3 * lines + 1);
	for (size_t i = 0; i < lines; i++)
		memcpy(big + 3 * i, "ac\n", 3);
	tt_filen(f->dir, "w/acs.txt", big, 3 * lines);
	free(big);
	t0 = test_ms();
	assert_int_equal(run(f, "grep", "{\"path\":\"acs.txt\",\"pattern\":\"a[^b]*c\"}", &r), 0);
	took = test_ms() - t0;
	EXPECT_HAS(r, "acs.txt:1:ac\nacs.txt:2:ac\n");
	EXPECT_HAS(r, "(showing 200 of 400000 matching lines;");
	tool_result_release(&r);
	if (!RUNNING_ON_VALGRIND && took >= 2000)
		fail_msg("a spanning pattern over %zu matching lines took %ld ms", lines, took);
	/* a later match in per-line search is shown beside an earlier one */
	tt_file(f->dir, "w/two.txt", "a c x\na\nb\nc\nx c a\nzz\nac\n");
	assert_int_equal(run(f, "grep", "{\"path\":\"two.txt\",\"pattern\":\"a[^b]*c\"}", &r), 0);
	assert_string_equal(r.content, "two.txt:1:a c x\ntwo.txt:7:ac\n");
	tool_result_release(&r);
	tfx_free(f);
}

/* grep and read agree on what is binary: a NUL in the first 8 KiB.  A
 * text file with a NUL further on is shown by read (as \x00) and was
 * skipped whole by grep as binary, so a search said what read showed was
 * not there. */
static void tool_grep_binary_as_read(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	(void)state;
	size_t n = TOOLS_BINARY_PROBE + 4096;
	char *t = xmalloc(n + 32);
	for (size_t i = 0; i < n; i += 8)
		memcpy(t + i, "filler\n\n", 8);
	memcpy(t + n, "needle\0here\n", 12);
	tt_filen(f->dir, "w/late.txt", t, n + 12);
	free(t);
	assert_int_equal(run(f, "read", "{\"path\":\"late.txt\",\"offset\":3073,\"limit\":1}", &r), 0);
	EXPECT_HAS(r, "  3073\tneedle");
	EXPECT_HAS(r, "needle\\x00here");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"late.txt\",\"pattern\":\"needle\"}", &r), 0);
	assert_string_equal(r.content, "late.txt:3073:needle\\x00here\n");
	tool_result_release(&r);
	assert_int_equal(run(f, "grep", "{\"path\":\"late.txt\",\"pattern\":\"needle.here\"}", &r), 0);
	assert_string_equal(r.content, "late.txt:3073:needle\\x00here\n");
	tool_result_release(&r);
	/* a NUL in the probe is binary to both */
	assert_int_equal(run(f, "grep", "{\"path\":\"blob.bin\",\"pattern\":\"return\"}", &r), 0);
	EXPECT_HAS(r, "(skipped 1 binary file)");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_write_symlink_refused(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	struct stat st;
	assert_int_equal(run(f, "write", "{\"path\":\"out.txt\",\"content\":\"pwned\"}", &r), -1);
	EXPECT_HAS(r, "not found");
	tool_result_release(&r);
	assert_int_equal(run(f, "write", "{\"path\":\"src/loop/escape.txt\",\"content\":\"pwned\"}", &r), -1);
	tool_result_release(&r);
	assert_int_equal(run(f, "write", "{\"path\":\"../outside.txt\",\"content\":\"pwned\"}", &r), -1);
	tool_result_release(&r);
	assert_int_equal(run(f, "edit", "{\"path\":\"out.txt\",\"old\":\"secret\",\"new\":\"pwned\"}", &r), -1);
	tool_result_release(&r);
	char *s = tt_slurp(f->dir, "outside.txt");
	assert_string_equal(s, "return secret\n");
	free(s);
	char *l = tt_path(f->dir, "w/out.txt");
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(l);
	tfx_free(f);
}

/* The text edit makes, shared with the approval question's diff. */
static void tool_edit_text_shared(void **state)
{
	size_t k;
	uint64_t grown;
	const char *f = "a = false\nkeep\nb = false\n";
	(void)state;
	char *r = tools_edit_text(f, strlen(f), "false", "true", 1, &k, &grown);
	assert_string_equal(r, "a = true\nkeep\nb = true\n");
	assert_int_equal(k, 2);
	assert_int_equal(grown, strlen(r));
	free(r);
	/* several without replace_all, none, an empty old: what edit refuses */
	assert_null(tools_edit_text(f, strlen(f), "false", "true", 0, &k, &grown));
	assert_int_equal(k, 2);
	assert_null(tools_edit_text(f, strlen(f), "nope", "x", 1, &k, &grown));
	assert_int_equal(k, 0);
	assert_null(tools_edit_text(f, strlen(f), "", "x", 1, &k, &grown));
	r = tools_edit_text(f, strlen(f), "keep", "", 0, &k, &grown);
	assert_string_equal(r, "a = false\n\nb = false\n");
	free(r);
	/* over the edit limit: the size it would have, and no text */
	size_t half = TOOLS_MAX_EDIT_BYTES / 2 + 1;
	char *big = xmalloc(half + 1);
	memset(big, 'x', half);
	big[half] = '\0';
	r = tools_edit_text("ab", 2, "a", big, 1, &k, &grown);
	assert_non_null(r);
	free(r);
	assert_null(tools_edit_text("aa", 2, "a", big, 1, &k, &grown));
	assert_int_equal(grown, 2 * (uint64_t)half);
	free(big);
}

static void tool_edit_unique(void **state)
{
	struct tfx *f = tfx_new();
	struct tool_result r;
	tt_file(f->dir, "w/e.txt", "a x b x c x\n");
	assert_int_equal(run(f, "edit", "{\"path\":\"e.txt\",\"old\":\"x\",\"new\":\"y\"}", &r), -1);
	EXPECT_HAS(r, "matches 3 times");
	tool_result_release(&r);
	char *s = tt_slurp(f->dir, "w/e.txt");
	assert_string_equal(s, "a x b x c x\n");
	free(s);
	assert_int_equal(run(f, "edit", "{\"path\":\"e.txt\",\"old\":\"b x\",\"new\":\"B\"}", &r), 0);
	EXPECT_HAS(r, "replaced 1 occurrence in 'e.txt'");
	tool_result_release(&r);
	assert_int_equal(run(f, "edit", "{\"path\":\"e.txt\",\"old\":\"x\",\"new\":\"yy\",\"replace_all\":true}", &r), 0);
	EXPECT_HAS(r, "replaced 2 occurrences");
	tool_result_release(&r);
	s = tt_slurp(f->dir, "w/e.txt");
	assert_string_equal(s, "a yy B c yy\n");
	free(s);
	assert_int_equal(run(f, "edit", "{\"path\":\"e.txt\",\"old\":\"zzz\",\"new\":\"y\"}", &r), -1);
	EXPECT_HAS(r, "not found in 'e.txt'");
	tool_result_release(&r);
	assert_int_equal(run(f, "edit", "{\"path\":\"blob.bin\",\"old\":\"ret\",\"new\":\"y\"}", &r), -1);
	EXPECT_HAS(r, "binary");
	tool_result_release(&r);
	tfx_free(f);
}

static void tool_readonly_root(void **state)
{
	char *dir = tt_setup(), *err = NULL;
	struct policy p;
	struct fsguard *g;
	struct tool_result r;
	tt_file(dir, "f.txt", "x\n");
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, dir, POL_READ, &err), 0);
	assert_int_equal(fsguard_new(&p, dir, 0, &g, &err), 0);
	struct tool_ctx ctx = { .guard = g, .policy = &p };
	cJSON *in = cJSON_Parse("{\"path\":\"f.txt\",\"content\":\"y\"}");
	assert_int_equal(tools_run(&ctx, "write", in, &r), -1);
	assert_non_null(strstr(r.content, "--allow-write"));
	tool_result_release(&r);
	cJSON_Delete(in);
	char *s = tt_slurp(dir, "f.txt");
	assert_string_equal(s, "x\n");
	free(s);
	fsguard_free(g);
	policy_release(&p);
	tt_teardown(dir);
}

/* The system directories /bin/sh needs, as the CLI floor grants them. */
static void add_floor(struct policy *p)
{
	const char *floor[] = { "/usr", "/bin", "/lib", "/lib64" };
	char *err = NULL, target[4096];
	struct stat st;
	for (size_t i = 0; i < SBX_ARRAY_LEN(floor); i++) {
		if (lstat(floor[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(floor[i], target, sizeof(target) - 1);
			assert_true(n > 0);
			target[n] = '\0';
			policy_add_link(p, floor[i], target);
		} else {
			assert_int_equal(policy_add_grant(p, floor[i], POL_READ | POL_EXEC, &err), 0);
		}
	}
	strv_push(&p->env, "PATH");
	policy_sort(p);
}

/* bash through the real helper (this test binary re-executed: main
 * dispatches HELPER_ARGV1 like sandbx's main does). */
static void tool_bash_sandboxed(void **state)
{
	/* /proc/self/exe is valgrind itself there: the sandbox helper cannot be re-executed */
	if (getenv("SBX_UNDER_VALGRIND"))
		skip();
	struct tfx *f = tfx_new();
	struct tool_result r;
	add_floor(&f->p);
	f->p.cwd = tt_path(f->dir, "w");
	run(f, "bash", "{\"command\":\"true\"}", &r);
	if (strstr(r.content, "refused")) {
		const char *must = getenv("SANDBX_MUST_WORK");
		char *why = xstrdup(r.content);
		tool_result_release(&r);
		tfx_free(f);
		if (must && strcmp(must, "1") == 0)
			fail_msg("sandbox refused with SANDBX_MUST_WORK=1: %s", why);
		free(why);
		skip();
	}
	tool_result_release(&r);
	assert_int_equal(run(f, "bash", "{\"command\":\"cat five.txt | wc -l; echo oops >&2; exit 3\"}", &r), -1);
	assert_string_equal(r.content, "5\n[stderr]\noops\n[exit status 3]\n");
	tool_result_release(&r);
	char *cmd = xasprintf("{\"command\":\"cat %s/outside.txt\"}", f->dir);
	assert_int_equal(run(f, "bash", cmd, &r), -1);
	EXPECT_NOT(r, "secret");
	EXPECT_HAS(r, "[exit status 1]");
	tool_result_release(&r);
	free(cmd);
	assert_int_equal(run(f, "bash", "{\"command\":\"echo > made.txt\"}", &r), 0);
	assert_string_equal(r.content, "(no output)\n[exit status 0]\n");
	tool_result_release(&r);
	char *made = tt_slurp(f->dir, "w/made.txt");
	assert_non_null(made);
	free(made);
	assert_int_equal(run(f, "bash", "{\"command\":\"sleep 20\",\"timeout\":1}", &r), -1);
	EXPECT_HAS(r, "[killed after the timeout of 1 s");
	EXPECT_HAS(r, "[exit status 124]");
	tool_result_release(&r);
	assert_int_equal(run(f, "bash", "{\"command\":\"head -c 1000000 /dev/zero | tr '\\\\0' a\"}", &r), 0);
	EXPECT_HAS(r, "[stdout cut: showing the first");
	assert_true(strlen(r.content) <= TOOLS_MAX_OUTPUT + 256);
	tool_result_release(&r);
	tfx_free(f);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], HELPER_ARGV1) == 0)
		return helper_main(argc, argv);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tools_table_schema_risk),
		cmocka_unit_test(tools_bad_input),
		cmocka_unit_test(tool_read_lines_paging),
		cmocka_unit_test(tool_read_binary_and_caps),
		cmocka_unit_test(tool_read_scan_capped),
		cmocka_unit_test(tool_ls_sorted),
		cmocka_unit_test(tool_ls_sorted_past_scan_cap),
		cmocka_unit_test(tool_ls_unsearchable_dir),
		cmocka_unit_test(tool_find_glob_no_follow),
		cmocka_unit_test(tool_grep_matches),
		cmocka_unit_test(tool_grep_limits),
		cmocka_unit_test(tool_grep_pattern_verbs),
		cmocka_unit_test(tool_grep_swap_after_check),
		cmocka_unit_test(tool_grep_walk_fifo_not_opened),
		cmocka_unit_test(tool_cancellation),
		cmocka_unit_test(tool_grep_time_bound),
		cmocka_unit_test(tool_write_atomic),
		cmocka_unit_test(tool_write_syncs_directory),
		cmocka_unit_test(tool_write_dir_sync_error_said),
		cmocka_unit_test(tool_write_temp_private),
		cmocka_unit_test(tool_write_killed_leaves_nothing),
		cmocka_unit_test(tool_write_keeps_owner),
		cmocka_unit_test(tool_write_keeps_acl),
		cmocka_unit_test(tool_write_no_acl_from_dir_default),
		cmocka_unit_test(tool_write_group_not_kept),
		cmocka_unit_test(tool_write_keeps_xattrs),
		cmocka_unit_test(tool_write_xattr_no_room),
		cmocka_unit_test(tool_write_inode_flags_refused),
		cmocka_unit_test(tool_write_rename_fails_temp_named),
		cmocka_unit_test(tool_write_new_in_append_only_dir),
		cmocka_unit_test(tool_write_new_name_taken),
		cmocka_unit_test(tool_write_keeps_flags),
		cmocka_unit_test(tool_write_in_place_flag_named),
		cmocka_unit_test(tool_write_in_place_sync_fails_keeps_tail),
		cmocka_unit_test(tool_edit_changed_while_read),
		cmocka_unit_test(tool_write_failed_leaves_no_dirs),
		cmocka_unit_test(tool_write_approved_gone_makes_no_dirs),
		cmocka_unit_test(tool_write_changed_while_written_kept),
		cmocka_unit_test(tool_edit_dir_gone_makes_none),
		cmocka_unit_test(tool_write_symlink_refused),
		cmocka_unit_test(tool_names_visible),
		cmocka_unit_test(tool_names_unambiguous),
		cmocka_unit_test(tool_names_not_notes),
		cmocka_unit_test(tool_find_cap_counts_escaped),
		cmocka_unit_test(tool_walk_long_paths_noted),
		cmocka_unit_test(tool_walk_unreadable_noted),
		cmocka_unit_test(tool_permission_denied_says_why),
		cmocka_unit_test(tool_grep_entries_capped),
		cmocka_unit_test(tool_glob_length_capped),
		cmocka_unit_test(tool_walk_time_bound),
		cmocka_unit_test(tool_grep_long_literal_linear),
		cmocka_unit_test(tool_grep_no_line_past_end),
		cmocka_unit_test(tool_grep_match_within_line),
		cmocka_unit_test(tool_grep_crlf_line_end),
		cmocka_unit_test(tool_grep_spanning_linear),
		cmocka_unit_test(tool_grep_binary_as_read),
		cmocka_unit_test(tool_edit_growth_capped),
		cmocka_unit_test(tool_edit_unique),
		cmocka_unit_test(tool_edit_text_shared),
		cmocka_unit_test(tool_readonly_root),
		cmocka_unit_test(tool_bash_sandboxed),
	};
	log_set_level(LOG_OFF);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
