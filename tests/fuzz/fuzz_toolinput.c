/*
 * fuzz_toolinput.c — libFuzzer target for what the model controls in a
 * tool call: the JSON input (the flatness and NUL checks made before and
 * after parsing, then validation against each tool's schema), paths
 * (lexical normalisation, names made visible), globs, edit's replacement
 * and result text (UTF-8 cleaning).
 *
 * Input: byte 0 picks the tool, the rest is the JSON text; the same bytes
 * are also fed to fsguard_normalize and tools_utf8_clean.  An input that
 * validates also has its fields used the way the tools use them: find's
 * name and grep's glob matched, edit's old and new applied to the text.
 *
 * A valid input of a read-only tool (read, ls, find, grep) also runs, in
 * a tree of the target's own: a read-only grant holding a file, a
 * directory and symlinks out of it to a file and a directory beside the
 * grant.  Nothing of those (their names hold SECRET, and so does the
 * file's text) may come back in a result, unless the input itself spelt
 * it.  The write tools and bash never run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sandbox/policy.h"
#include "tools/tools.h"
#include "tools/tools_int.h"

#define SECRET "outside-the-grant-7f3a"

static char tree[64];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tree, rel);
	FILE *f = fopen(p, "we");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	free(p);
}

static void link_to(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", tree, rel);
	if (symlink(target, p) < 0)
		abort();
	free(p);
}

static const char *const tree_files[] = { "root/README.md", "root/src/main.c", "root/link", "root/dirlink",
					  "root/abslink", "outside/" SECRET, "root/src", "root", "outside" };

static void tree_remove(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(tree_files); i++) {
		char *p = xasprintf("%s/%s", tree, tree_files[i]);
		if (unlink(p) < 0)
			rmdir(p);
		free(p);
	}
	rmdir(tree);
}

/* The guard over root/, built once (removed at exit). */
static struct fsguard *tree_guard(void)
{
	static struct fsguard *g;
	if (g)
		return g;
	snprintf(tree, sizeof(tree), "%s", "/tmp/fuzz_toolinput.XXXXXX");
	if (!mkdtemp(tree))
		abort();
	atexit(tree_remove);
	char *d[3] = { xasprintf("%s/root", tree), xasprintf("%s/root/src", tree), xasprintf("%s/outside", tree) };
	for (int i = 0; i < 3; i++)
		if (mkdir(d[i], 0755) < 0)
			abort();
	put("root/README.md", "hello\nworld\n");
	put("root/src/main.c", "int main(void)\n{\n\treturn 0;\n}\n");
	put("outside/" SECRET, SECRET "\n");
	link_to("../outside/" SECRET, "root/link");
	link_to("../outside", "root/dirlink");
	char *abs = xasprintf("%s/outside", tree);
	link_to(abs, "root/abslink");
	free(abs);
	struct policy p;
	char *err = NULL;
	policy_init(&p);
	if (policy_add_grant(&p, d[0], POL_READ, &err) < 0 || fsguard_new(&p, d[0], 0, &g, &err) < 0)
		abort();
	policy_release(&p);
	for (int i = 0; i < 3; i++)
		free(d[i]);
	return g;
}

static void run_read_tool(const struct tool_def *t, const cJSON *in, const uint8_t *data, size_t size)
{
	struct tool_ctx ctx = { .guard = tree_guard(), .limits = { 64, 1 << 20, 100, 200 } };
	struct tool_result res;
	tools_run(&ctx, t->name, in, &res);
	if (!res.content)
		abort();
	int spelt = memmem(data, size, SECRET, strlen(SECRET)) != NULL;
	for (const cJSON *f = in->child; f && !spelt; f = f->next)
		spelt = cJSON_IsString(f) && strstr(f->valuestring, SECRET);	/* \u escapes */
	if (strstr(res.content, SECRET) && !spelt)
		abort();	/* something beside the grant came back */
	tool_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fields of a valid input, used as the tool would use them. */
static void use_fields(const cJSON *in, const char *text, size_t n)
{
	const char *path = tin_str(in, "path");
	if (path) {
		char *v = tools_name_visible(path);
		for (const unsigned char *c = (const unsigned char *)v; *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				abort();	/* a control byte reached a listing */
		free(v);
	}
	const char *glob = tin_str(in, "name") ? tin_str(in, "name") : tin_str(in, "glob");
	if (glob) {
		/* a glob without a special character is a plain name: it
		 * matches itself, as a name and as a path */
		int plain = !strpbrk(glob, "*?[\\");
		if (tglob_match(glob, glob, glob) != 1 && plain)
			abort();
		(void)tglob_match(glob, path ? path : "", path ? path : "");
	}
	const char *old = tin_str(in, "old"), *new = tin_str(in, "new");
	if (old && new) {
		size_t k;
		uint64_t grown;
		int all = tin_bool(in, "replace_all", 0);
		char *r = tools_edit_text(text, n, old, new, all, &k, &grown);
		if (r && (k == 0 || (k > 1 && !all) || r[grown] != '\0'))
			abort();	/* edit would write what it refuses */
		if (!r && k == 1 && *old && grown <= TOOLS_MAX_EDIT_BYTES)
			abort();	/* or refuse one plain match */
		free(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct tool_def *t = &tools_table()[data[0] % TOOL__COUNT];
	const char *text = (const char *)data + 1;
	size_t n = size - 1;
	/* As the event fold takes a streamed input: flat, or not parsed. */
	int flat = tools_json_is_flat(text, n, TOOLS_MAX_INPUT_MEMBERS);
	cJSON *in = cJSON_ParseWithLength(text, n);
	if (flat && cJSON_IsObject(in)) {
		int members = 0;
		for (const cJSON *f = in->child; f; f = f->next, members++)
			if (cJSON_IsObject(f) || cJSON_IsArray(f))
				abort();	/* a nested value passed as flat */
		if (members > TOOLS_MAX_INPUT_MEMBERS)
			abort();
	}
	(void)tools_json_has_nul(text, n);
	char *err = NULL;
	if (tools_validate(t, in, &err) < 0) {
		if (!err || !*err)
			abort();	/* a refusal always says why */
		free(err);
	} else {
		use_fields(in, text, n);
		if (t->risk == TOOL_RISK_READ)
			run_read_tool(t, in, data, size);
	}
	cJSON_Delete(in);

	char *s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	char *norm = fsguard_normalize("/work/dir", s);
	if (norm) {
		if (norm[0] != '/' || strstr(norm, "/../") || strstr(norm, "/./") || strstr(norm, "//"))
			abort();	/* not normalised */
		size_t l = strlen(norm);
		if (l >= 3 && strcmp(norm + l - 3, "/..") == 0)
			abort();
		free(norm);
	}
	char *v = tools_nul_visible(text, n);
	if (strlen(v) < n)
		abort();	/* text after a NUL was lost */
	free(v);
	char *c = tools_utf8_clean(s);
	free(c);
	return 0;
}
