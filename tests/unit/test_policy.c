/* test_policy.c — policy object, its argv round trip, Landlock rights and
 * the CLI's refusals (pure parts). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "cli/cli_policy.h"
#include "sandbox/helper.h"
#include "sandbox/landlock.h"
#include "sandbox/policy.h"
#include "util/compat.h"
#include "util/log.h"

static void policy_roundtrip(void **state)
{
	struct policy p, q;
	struct strv argv = { 0 };
	char *err = NULL;

	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/usr", POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/tmp", POL_WRITE, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/tmp", POL_READ, &err), 0);	/* merged */
	policy_add_link(&p, "/bin", "usr/bin");
	strv_push(&p.env, "PATH");
	p.net = POL_NET_PORTS;
	p.ports[0] = 443;
	p.ports[1] = 80;
	p.nports = 2;
	p.limits[LIM_MEMORY] = 1 << 20;
	p.cwd = xstrdup("/tmp");
	strv_push(&p.dns, "example.org");
	p.allow_unix = 1;
	assert_int_equal(p.ngrants, 3);

	policy_to_argv(&p, &argv);
	strv_push(&argv, "--");
	strv_push(&argv, "prog");
	policy_init(&q);
	int dd = policy_from_argv(&q, argv.v, (int)argv.n, &err);
	assert_true(dd > 0);
	assert_string_equal(argv.v[dd + 1], "prog");
	assert_int_equal(q.ngrants, 3);
	for (size_t i = 0; i < p.ngrants; i++) {
		assert_string_equal(q.grants[i].path, p.grants[i].path);
		if (!p.grants[i].link) {
			assert_int_equal(q.grants[i].access, p.grants[i].access);
			assert_true(q.grants[i].dev == p.grants[i].dev && q.grants[i].ino == p.grants[i].ino);
		} else {
			assert_string_equal(q.grants[i].link, "usr/bin");
		}
	}
	assert_int_equal(q.net, POL_NET_PORTS);
	assert_int_equal(q.nports, 2);
	assert_int_equal(q.ports[1], 80);
	assert_int_equal(q.limits[LIM_MEMORY], 1 << 20);
	assert_string_equal(q.cwd, "/tmp");
	assert_true(q.allow_unix);
	assert_string_equal(q.dns.v[0], "example.org");
	assert_string_equal(q.env.v[0], "PATH");

	char *net = policy_describe_net(&p);
	assert_string_equal(net, "ports=443,80");
	free(net);
	char *paths = policy_describe_paths(&p);
	assert_string_equal(paths, "rx=/usr rw=/tmp");
	free(paths);

	policy_release(&q);
	policy_release(&p);
	strv_free(&argv);
}

static void policy_describe_escapes_separators(void **state)
{
	/* Directories named to read as more grants: "b,rw=/etc", "a b",
	 * a backslash, a newline.  Grants from argv: no file is touched. */
	char *words[] = { (char *)"--grant", (char *)"rx", (char *)"1", (char *)"2", (char *)"/usr",
			  (char *)"--grant", (char *)"r", (char *)"1", (char *)"3", (char *)"/a b",
			  (char *)"--grant", (char *)"rw", (char *)"1", (char *)"4", (char *)"/w/b,rw=/etc",
			  (char *)"--grant", (char *)"rw", (char *)"1", (char *)"5", (char *)"/x\\x2cy",
			  (char *)"--grant", (char *)"rw", (char *)"1", (char *)"6", (char *)"/n\nl", (char *)"--" };
	struct policy p;
	char *err = NULL;
	policy_init(&p);
	assert_int_equal(policy_from_argv(&p, words, (int)SBX_ARRAY_LEN(words), &err), (int)SBX_ARRAY_LEN(words) - 1);
	char *d = policy_describe_paths(&p);
	assert_string_equal(d, "rx=/usr ro=/a\\x20b rw=/w/b\\x2crw\\x3d/etc,/x\\x5cx2cy,/n\nl");
	/* in the record, the audit layer's own quoting on top: '\\' doubled,
	 * the newline as \x0a — one line, three grants in the rw class */
	const char *kv[] = { "paths", d };
	char *r = audit_format("spawned", kv, 2);
	assert_string_equal(r, "sandbx audit spawned paths=\"rx=/usr ro=/a\\\\x20b "
			       "rw=/w/b\\\\x2crw\\\\x3d/etc,/x\\\\x5cx2cy,/n\\x0al\"");
	free(r);
	free(d);
	char *e = policy_escape_path("/plain/path-1.2_x");
	assert_string_equal(e, "/plain/path-1.2_x");
	free(e);
	policy_release(&p);
}

/* Every right a grant holds shows in the summary: --allow-exec P
 * --allow-write P merge into one rwx grant, which once read "rx=P" in
 * the spawned record although the command could write there. */
static void policy_describe_every_right(void **state)
{
	char *words[] = { (char *)"--grant", (char *)"rx", (char *)"1", (char *)"2", (char *)"/usr",
			  (char *)"--grant", (char *)"rwx", (char *)"1", (char *)"3", (char *)"/both",
			  (char *)"--grant", (char *)"wx", (char *)"1", (char *)"4", (char *)"/wx",
			  (char *)"--grant", (char *)"x", (char *)"1", (char *)"5", (char *)"/xo",
			  (char *)"--grant", (char *)"rw", (char *)"1", (char *)"6", (char *)"/rw",
			  (char *)"--grant", (char *)"r", (char *)"1", (char *)"7", (char *)"/ro",
			  (char *)"--grant", (char *)"w", (char *)"1", (char *)"8", (char *)"/wo", (char *)"--" };
	struct policy p;
	char *err = NULL;
	(void)state;
	policy_init(&p);
	assert_int_equal(policy_from_argv(&p, words, (int)SBX_ARRAY_LEN(words), &err), (int)SBX_ARRAY_LEN(words) - 1);
	char *d = policy_describe_paths(&p);
	assert_string_equal(d, "rx=/usr ro=/ro rw=/rw wo=/wo rwx=/both wx=/wx xo=/xo");
	free(d);
	policy_release(&p);
}

static void policy_refuses_missing_grant(void **state)
{
	struct policy p;
	char *err = NULL;
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/nonexistent/sbx/x", POL_READ, &err), -1);
	assert_non_null(strstr(err, "'/nonexistent/sbx/x' does not exist"));
	free(err);
	policy_release(&p);
}

static void policy_from_argv_rejects(void **state)
{
	struct policy p;
	char *err = NULL;
	char *bad1[] = { (char *)"--grant", (char *)"rq", (char *)"1", (char *)"2", (char *)"/x", (char *)"--" };
	char *bad2[] = { (char *)"--net", (char *)"ports:0", (char *)"--" };
	char *bad3[] = { (char *)"--env", (char *)"X" };
	policy_init(&p);
	assert_int_equal(policy_from_argv(&p, bad1, 6, &err), -1);
	free(err);
	policy_release(&p);
	assert_int_equal(policy_from_argv(&p, bad2, 3, &err), -1);
	free(err);
	policy_release(&p);
	assert_int_equal(policy_from_argv(&p, bad3, 2, &err), -1);
	free(err);
	policy_release(&p);
}

static void landlock_rights_mapping(void **state)
{
	uint64_t all = landlock_fs_handled(7);
	assert_true(all & LANDLOCK_ACCESS_FS_IOCTL_DEV);
	assert_true(all & LANDLOCK_ACCESS_FS_REFER);
	assert_false(landlock_fs_handled(2) & LANDLOCK_ACCESS_FS_TRUNCATE);
	/* read: read file + read dir, nothing else */
	assert_int_equal(landlock_rights(POL_READ, 1, 7), LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR);
	/* write: every right but read and execute */
	uint64_t w = landlock_rights(POL_WRITE, 1, 7);
	assert_int_equal(w, all & ~(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE));
	/* exec: execute (the CLI adds read) */
	assert_int_equal(landlock_rights(POL_READ | POL_EXEC, 1, 7),
			 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE);
	/* a file gets file rights only */
	uint64_t f = landlock_rights(POL_READ | POL_WRITE | POL_EXEC, 0, 7);
	assert_false(f & (LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
			  LANDLOCK_ACCESS_FS_REFER));
	assert_true(f & LANDLOCK_ACCESS_FS_WRITE_FILE);
	assert_int_equal(landlock_scopes(5), 0);
	/* ABI 5 refuses host network + unix sockets only; 6 and later none */
	assert_int_equal(landlock_scope_missing(5, 1, 1), 1);
	assert_int_equal(landlock_scope_missing(5, 1, 0), 0);
	assert_int_equal(landlock_scope_missing(5, 0, 1), 0);
	assert_int_equal(landlock_scope_missing(6, 1, 1), 0);
	assert_int_equal(landlock_scope_missing(7, 1, 1), 0);
	assert_int_equal(landlock_scopes(6), LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL);
}

/* Every variable glibc ignores for set-id programs (unsecure-envvars.h,
 * 2.36), whose value steers the loader or libc, crosses to the command
 * only: the unconfined helper stages see it under HELPER_CMDENV_PREFIX.
 * The list is SECURITY.md's, written out here apart from helper.c's. */
static void helper_env_loader_names(void **state)
{
	static const char *const command_only[] = {
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_DEBUG_OUTPUT", "LD_PROFILE", "LD_ANYTHING_NEW",
		"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
		"MALLOC_ARENA_MAX", "MALLOC_CHECK_", "MALLOC_TRACE", "MALLOC_PERTURB_", "NIS_PATH", "NLSPATH",
		"RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR", HELPER_CMDENV_PREFIX "LD_PRELOAD",
	};
	static const char *const plain[] = {
		"PATH", "HOME", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "MY_LD_PATH", "GCONV", "MALLOC",
		"LOCPATH2", "TMPDIRS", "ANTHROPIC_API_KEY",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(command_only) / sizeof(command_only[0]); i++)
		if (!helper_env_for_command_only(command_only[i]))
			fail_msg("%s would reach the helper stages under its own name", command_only[i]);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (helper_env_for_command_only(plain[i]))
			fail_msg("%s is renamed, but steers nothing", plain[i]);
}

/* The core_pattern shapes that reach the host whatever RLIMIT_CORE says
 * (but one byte): a pipe to a program, a socket (6.16); a file does not. */
static void helper_core_pattern_shapes(void **state)
{
	(void)state;
	assert_true(helper_core_pattern_to_host("|/usr/share/apport/apport -p%p -s%s -c%c"));
	assert_true(helper_core_pattern_to_host("|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h"));
	assert_true(helper_core_pattern_to_host("@/run/systemd/coredump"));
	assert_false(helper_core_pattern_to_host("core"));
	assert_false(helper_core_pattern_to_host("/var/crash/core.%e.%p"));
	assert_false(helper_core_pattern_to_host(" |x"));
	assert_false(helper_core_pattern_to_host(""));
}

/* The audit flags of the sandbox's own landlock_restrict_self: nested
 * domains' logging off from ABI 7 (6.15), where the flag exists, and
 * nothing else; below it, 0 (an older kernel answers EINVAL to the bit). */
/* The ABI worked at: the kernel's, capped at the newest this code knows,
 * the same in the supervisor and the namespace child. */
static void landlock_abi_capped(void **state)
{
	(void)state;
	assert_int_equal(landlock_abi_used(LANDLOCK_ABI_MIN), LANDLOCK_ABI_MIN);
	assert_int_equal(landlock_abi_used(LANDLOCK_ABI_MAX), LANDLOCK_ABI_MAX);
	assert_int_equal(landlock_abi_used(LANDLOCK_ABI_MAX + 1), LANDLOCK_ABI_MAX);
	assert_int_equal(landlock_abi_used(99), LANDLOCK_ABI_MAX);
	/* below the floor, or no answer: as it came, for the refusal */
	assert_int_equal(landlock_abi_used(3), 3);
	assert_int_equal(landlock_abi_used(-EOPNOTSUPP), -EOPNOTSUPP);
}

static void landlock_restrict_flags_by_abi(void **state)
{
	(void)state;
	assert_int_equal(landlock_restrict_flags(7), LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF);
	assert_int_equal(landlock_restrict_flags(8), LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF);
	assert_int_equal(landlock_restrict_flags(6), 0);
	assert_int_equal(landlock_restrict_flags(5), 0);
	assert_false(landlock_restrict_flags(7) & LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF);
	assert_false(landlock_restrict_flags(7) & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON);
}

static void cwd_shapes_refused(void **state)
{
	struct policy p;
	struct xdg_paths x = { 0 };
	char *err = NULL;
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/usr", POL_READ | POL_EXEC, &err), 0);
	x.state_dir = xstrdup("/srv/u/.local/state/sandbx");
	x.config_dir = xstrdup("/srv/u/.config/sandbx");

	struct { const char *cwd, *home, *needle; } cases[] = {
		{ "/", "/srv/u", "filesystem root" },
		{ "/srv/u", "/srv/u", "your home directory" },
		{ "/srv", "/srv/u", "holds your home directory" },
		{ "/home", "/srv/u", "holds users' home directories" },
		{ "/root", "/srv/u", "holds users' home directories" },
		{ "/var/home", "/srv/u", "holds users' home directories" },
		{ "/home/bob", NULL, "looks like a home directory" },
		{ "/usr/local/src", "/srv/u", "granted execute" },
		{ "/srv/u/.local", "/elsewhere", "session store" },
		{ "/srv/u/.config/sandbx/x", "/elsewhere", "credential directory" },
		{ "/etc", "/srv/u", "'/etc' is a system directory" },
		{ "/etc/nginx", "/srv/u", "'/etc/nginx' lies in the system directory '/etc'" },
		{ "/boot", "/srv/u", "system directory" },
		{ "/dev", "/srv/u", "system directory" },
		{ "/dev/shm", "/srv/u", "lies in the system directory '/dev'" },
		{ "/proc", "/srv/u", "system directory" },
		{ "/sys/fs/cgroup/pids", "/srv/u", "lies in the system directory '/sys'" },
		{ "/run/user/0", "/srv/u", "lies in the system directory '/run'" },
		{ "/var", "/srv/u", "'/var' is a shared system directory" },
		{ "/opt", "/srv/u", "shared system directory" },
		{ "/srv", "/elsewhere", "'/srv' is a shared system directory" },
		{ "/tmp", "/srv/u", "'/tmp' is a shared system directory" },
		{ "/var/tmp", "/srv/u", "shared system directory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = NULL;
		assert_int_equal(cli_cwd_check(cases[i].cwd, cases[i].home, &p, &x, &err), -1);
		if (!strstr(err, cases[i].needle))
			fail_msg("cwd %s: '%s' lacks '%s'", cases[i].cwd, err, cases[i].needle);
		free(err);
	}
	err = NULL;
	assert_int_equal(cli_cwd_check("/srv/u/projects/a", "/srv/u", &p, &x, &err), 0);
	assert_int_equal(cli_cwd_check("/home/bob/proj", NULL, &p, &x, &err), 0);
	/* beneath a shared root, or merely named like a system tree: a project */
	const char *ok[] = { "/var/www/site", "/tmp/proj", "/var/tmp/x", "/opt/app", "/srv/data",
			     "/etcetera", "/devices", "/run2", "/tmpx", "/system" };
	for (size_t i = 0; i < SBX_ARRAY_LEN(ok); i++)
		if (cli_cwd_check(ok[i], "/elsewhere", &p, &x, &err) != 0)
			fail_msg("cwd %s refused: %s", ok[i], err);
	xdg_paths_release(&x);
	policy_release(&p);
}

static void ancestry_by_object(void **state)
{
	char dir[] = "/tmp/sbx-anc.XXXXXX", sub[64], leaf[96], other[64];
	struct stat top, o;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a", dir);
	snprintf(leaf, sizeof(leaf), "%s/a/b/not-yet", dir);
	snprintf(other, sizeof(other), "%s/o", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(stat(dir, &top), 0);
	assert_int_equal(stat(other, &o), 0);

	/* the path itself, a directory above it, above a part that does not exist */
	assert_int_equal(cli_ancestry_has(dir, top.st_dev, top.st_ino), 1);
	assert_int_equal(cli_ancestry_has(leaf, top.st_dev, top.st_ino), 1);
	/* a sibling is not above it; the root is above everything */
	assert_int_equal(cli_ancestry_has(leaf, o.st_dev, o.st_ino), 0);
	struct stat root;
	assert_int_equal(stat("/", &root), 0);
	assert_int_equal(cli_ancestry_has(leaf, root.st_dev, root.st_ino), 1);
	assert_int_equal(cli_ancestry_has("relative/x", o.st_dev, o.st_ino), 0);
	rmdir(sub);
	rmdir(other);
	rmdir(dir);
}

/* A writable grant and one with execute (the floor's too) that show the
 * same files under two names, as the mount table has them: a bind of the
 * execute tree inside the write grant's filesystem tree, the reverse, a
 * mount beneath a grant showing the other; not a grant nested by name,
 * also when bound onto itself, nor a bind from another filesystem. */
static void exec_alias_by_mount_table(void **state)
{
	char d[] = "/tmp/sbx-ea.XXXXXX", path[6][96];
	const char *const names[6] = { "data", "data/tools", "data/other", "opt-tools", "proj", "proj/sub" };
	const char *base = "24 1 254:0 / / rw - ext4 /dev/vda rw\n";
	char *err = NULL, *mi;
	struct policy p;
	(void)state;
	assert_non_null(mkdtemp(d));
	for (int i = 0; i < 6; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", d, names[i]);
		assert_int_equal(mkdir(path[i], 0755), 0);
	}
#define EA_POLICY(w, x)                                                                        \
	do {                                                                                       \
		policy_init(&p);                                                                   \
		assert_int_equal(policy_add_grant(&p, "/usr", POL_READ | POL_EXEC, &err), 0);      \
		p.nfloor = 1;                                                                      \
		assert_int_equal(policy_add_grant(&p, w, POL_READ | POL_WRITE, &err), 0);          \
		if (x)                                                                             \
			assert_int_equal(policy_add_grant(&p, x, POL_READ | POL_EXEC, &err), 0);   \
	} while (0)

	/* --allow-write data --allow-exec opt-tools, a bind of data/tools */
	mi = xasprintf("%s40 24 254:0 %s %s rw - ext4 /dev/vda rw\n", base, path[1], path[3]);
	EA_POLICY(path[0], path[3]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), -1);
	char *want = xasprintf("--allow-write '%s' holds --allow-exec '%s' under another name", path[0], path[3]);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	err = NULL;
	policy_release(&p);
	/* the reverse: the write grant lies in the execute tree */
	EA_POLICY(path[3], path[0]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), -1);
	want = xasprintf("--allow-write '%s' lies in --allow-exec '%s' under another name", path[3], path[0]);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	err = NULL;
	policy_release(&p);
	/* without the mount, or with another filesystem there: no alias */
	EA_POLICY(path[0], path[3]);
	assert_int_equal(cli_exec_alias_fs_check(base, &p, 0, &err), 0);
	free(mi);
	mi = xasprintf("%s40 24 0:50 / %s rw - tmpfs tmpfs rw\n", base, path[3]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), 0);
	assert_int_equal(cli_exec_alias_fs_check(NULL, &p, 0, &err), -1);
	assert_non_null(strstr(err, "mount table could not be read"));
	free(err);
	err = NULL;
	policy_release(&p);
	free(mi);

	/* nested by name: narrower rights inside, also bound onto itself */
	EA_POLICY(path[0], path[1]);
	assert_int_equal(cli_exec_alias_fs_check(base, &p, 0, &err), 0);
	mi = xasprintf("%s40 24 254:0 %s %s rw - ext4 /dev/vda rw\n", base, path[1], path[1]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), 0);
	free(mi);
	/* ... but not when the nested name shows another part of the tree */
	mi = xasprintf("%s40 24 254:0 %s %s rw - ext4 /dev/vda rw\n", base, path[2], path[1]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), -1);
	assert_non_null(strstr(err, "under another name"));
	free(err);
	err = NULL;
	free(mi);
	policy_release(&p);

	/* the working-directory default holding a bind of a part of the floor */
	mi = xasprintf("%s40 24 254:0 /usr/lib %s rw - ext4 /dev/vda rw\n", base, path[5]);
	EA_POLICY(path[4], NULL);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 1, &err), -1);
	want = xasprintf("the working directory '%s' holds '%s', a mount that shows the system directory '/usr' "
			 "under another name", path[4], path[5]);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	err = NULL;
	policy_release(&p);
	free(mi);
	/* an execute grant holding a bind of the write grant */
	mi = xasprintf("%s40 24 254:0 %s %s rw - ext4 /dev/vda rw\n", base, path[0], path[5]);
	EA_POLICY(path[0], path[4]);
	assert_int_equal(cli_exec_alias_fs_check(mi, &p, 0, &err), -1);
	want = xasprintf("--allow-exec '%s' holds '%s', a mount that shows --allow-write '%s' under another name",
			 path[4], path[5], path[0]);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	err = NULL;
	policy_release(&p);
	free(mi);
#undef EA_POLICY
	for (int i = 5; i >= 0; i--)
		rmdir(path[i]);
	rmdir(d);
}

/* The same by object: a write grant of one file and an execute grant of a
 * hard link of it; not two files, nor a grant nested by name. */
static void exec_alias_by_object(void **state)
{
	char d[] = "/tmp/sbx-eo.XXXXXX", w[64], x[64], f[80], l[80], y[80];
	char *err = NULL;
	struct policy p;
	(void)state;
	assert_non_null(mkdtemp(d));
	snprintf(w, sizeof(w), "%s/w", d);
	snprintf(x, sizeof(x), "%s/x", d);
	snprintf(f, sizeof(f), "%s/w/f", d);
	snprintf(l, sizeof(l), "%s/x/f", d);
	snprintf(y, sizeof(y), "%s/x/y", d);
	assert_int_equal(mkdir(w, 0755), 0);
	assert_int_equal(mkdir(x, 0755), 0);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(link(f, l), 0);
	fp = fopen(y, "w");
	assert_non_null(fp);
	fclose(fp);

	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, f, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(policy_add_grant(&p, l, POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(cli_exec_alias_obj_check(&p, 0, &err), -1);
	char *want = xasprintf("--allow-write '%s' is --allow-exec '%s' under another name", f, l);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	err = NULL;
	policy_release(&p);

	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, f, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(policy_add_grant(&p, y, POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(cli_exec_alias_obj_check(&p, 0, &err), 0);
	policy_release(&p);
	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, d, POL_READ | POL_WRITE, &err), 0);
	assert_int_equal(policy_add_grant(&p, x, POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(cli_exec_alias_obj_check(&p, 0, &err), 0);
	policy_release(&p);

	unlink(f);
	unlink(l);
	unlink(y);
	rmdir(w);
	rmdir(x);
	rmdir(d);
}

/* An mqueue mount a grant holds is masked (policy.mqueue, carried to the
 * helper); one a grant names, one outside every grant, one under a private
 * /dev/shm is not; no mount table refuses. */
static void mqueue_masks(void **state)
{
	const char *mi = "24 1 254:0 / / rw - ext4 /dev/vda rw\n"
			 "30 24 0:5 / /dev rw - devtmpfs udev rw\n"
			 "31 30 0:19 / /dev/mqueue rw - mqueue mqueue rw\n"
			 "32 30 0:19 / /dev/mqueue rw - mqueue mqueue rw\n"
			 "33 30 0:20 / /dev/shm rw - tmpfs tmpfs rw\n"
			 "34 33 0:21 / /dev/shm/mq rw - mqueue mqueue rw\n"
			 "35 24 0:22 / /srv/mq rw - mqueue mqueue rw\n"
			 "36 24 0:23 / /usr/lib rw - mqueue mqueue rw\n"
			 "37 24 0:24 / /usr/sh\\040are rw - mqueue mqueue rw\n";
	struct policy p, q;
	struct strv argv = { 0 };
	char *err = NULL;
	(void)state;

	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/dev", POL_READ, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/usr", POL_READ, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/usr/lib", POL_READ, &err), 0);
	assert_int_equal(cli_mqueue_masks(mi, &p, &err), 0);
	assert_int_equal(p.mqueue.n, 2);
	assert_string_equal(p.mqueue.v[0], "/dev/mqueue");
	assert_string_equal(p.mqueue.v[1], "/usr/sh are");

	policy_to_argv(&p, &argv);
	strv_push(&argv, "--");
	policy_init(&q);
	assert_true(policy_from_argv(&q, argv.v, (int)argv.n, &err) > 0);
	assert_int_equal(q.mqueue.n, 2);
	assert_string_equal(q.mqueue.v[1], "/usr/sh are");
	policy_release(&q);
	strv_free(&argv);

	assert_int_equal(cli_mqueue_masks("24 1 254:0 / / rw - ext4 /dev/vda rw\n", &p, &err), 0);
	assert_int_equal(p.mqueue.n, 2);
	assert_int_equal(cli_mqueue_masks(NULL, &p, &err), -1);
	assert_non_null(strstr(err, "mqueue"));
	free(err);
	policy_release(&p);
}

/* A hugetlbfs mount a read grant holds is masked (policy.hugetlbfs,
 * carried to the helper); one outside every grant, one under a private
 * /dev/shm, one a grant names is not (cli_mounts_check refuses that
 * grant); no mount table refuses. */
static void hugetlbfs_masks(void **state)
{
	const char *mi = "24 1 254:0 / / rw - ext4 /dev/vda rw\n"
			 "30 24 0:5 / /dev rw - devtmpfs udev rw\n"
			 "31 30 0:19 / /dev/hugepages rw - hugetlbfs hugetlbfs rw,pagesize=2M\n"
			 "32 30 0:20 / /dev/shm rw - tmpfs tmpfs rw\n"
			 "33 32 0:21 / /dev/shm/hp rw - hugetlbfs hugetlbfs rw,pagesize=2M\n"
			 "34 30 0:22 / /dev/mqueue rw - mqueue mqueue rw\n"
			 "35 24 0:23 / /srv/hp rw - hugetlbfs hugetlbfs rw,pagesize=2M\n"
			 "36 24 0:24 / /usr/lib rw - hugetlbfs hugetlbfs rw,pagesize=2M\n"
			 "37 24 0:25 / /usr/huge\\040pages rw - hugetlbfs hugetlbfs rw,pagesize=1G\n";
	struct policy p, q;
	struct strv argv = { 0 };
	char *err = NULL;
	(void)state;

	policy_init(&p);
	assert_int_equal(policy_add_grant(&p, "/dev", POL_READ, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/usr", POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(policy_add_grant(&p, "/usr/lib", POL_READ, &err), 0);
	/* /usr/lib, held by /usr but named by its own grant, is left to
	 * cli_mounts_check's refusal */
	assert_int_equal(cli_hugetlbfs_masks(mi, &p, &err), 0);
	assert_int_equal(p.hugetlbfs.n, 2);
	assert_string_equal(p.hugetlbfs.v[0], "/dev/hugepages");
	assert_string_equal(p.hugetlbfs.v[1], "/usr/huge pages");
	assert_int_equal(p.mqueue.n, 0);

	policy_to_argv(&p, &argv);
	strv_push(&argv, "--");
	policy_init(&q);
	assert_true(policy_from_argv(&q, argv.v, (int)argv.n, &err) > 0);
	assert_int_equal(q.hugetlbfs.n, 2);
	assert_string_equal(q.hugetlbfs.v[0], "/dev/hugepages");
	assert_string_equal(q.hugetlbfs.v[1], "/usr/huge pages");
	policy_release(&q);
	strv_free(&argv);

	/* the grants themselves: holding one is masked, not refused; naming
	 * one or a path in it is refused, naming the mount and why */
	assert_int_equal(cli_mounts_check(mi, "/dev", POL_READ, 0, &err), 0);
	assert_int_equal(cli_mounts_check(mi, "/usr", POL_READ | POL_EXEC, 0, &err), 0);
	assert_null(err);
	assert_int_equal(cli_mounts_check(mi, "/dev/hugepages", POL_READ, 0, &err), -1);
	assert_non_null(strstr(err, "--allow-read '/dev/hugepages' lies in a hugetlbfs mount at '/dev/hugepages': "
				    "a command mapping a file there would take pages of the machine's huge-page pool"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(mi, "/srv/hp/f", POL_READ | POL_EXEC, 0, &err), -1);
	assert_non_null(strstr(err, "--allow-exec '/srv/hp/f' lies in a hugetlbfs mount at '/srv/hp'"));
	assert_non_null(strstr(err, "grant a tree without it"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(mi, "/srv/hpx", POL_READ, 0, &err), 0);
	/* written, holding one is refused as before */
	assert_int_equal(cli_mounts_check(mi, "/srv", POL_READ | POL_WRITE, 0, &err), -1);
	assert_non_null(strstr(err, "holds a hugetlbfs mount at '/srv/hp', the kernel's own interface"));
	free(err);
	err = NULL;

	assert_int_equal(cli_hugetlbfs_masks("24 1 254:0 / / rw - ext4 /dev/vda rw\n", &p, &err), 0);
	assert_int_equal(p.hugetlbfs.n, 2);
	assert_int_equal(cli_hugetlbfs_masks(NULL, &p, &err), -1);
	assert_non_null(strstr(err, "hugetlbfs"));
	free(err);
	policy_release(&p);
}

static void write_kernel_mounts_refused(void **state)
{
	const char *mi = "24 1 254:0 / / rw - ext4 /dev/vda rw\n"
			 "61 24 0:40 / /mnt/cg rw - cgroup2 cgroup2 rw\n";
	char *err = NULL;
	(void)state;

	assert_int_equal(cli_mounts_check(mi, "/mnt", POL_WRITE, 0, &err), -1);
	assert_non_null(strstr(err, "--allow-write '/mnt' holds a cgroup2 mount at '/mnt/cg'"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(mi, "/mnt", POL_READ | POL_WRITE, 1, &err), -1);
	assert_non_null(strstr(err, "the working directory '/mnt' holds a cgroup2 mount at '/mnt/cg'"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(mi, "/mnt/cg/a", POL_WRITE, 0, &err), -1);
	assert_non_null(strstr(err, "lies in a cgroup2 mount"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(mi, "/srv/proj", POL_WRITE, 0, &err), 0);
	assert_null(err);
	/* no mount table: refused, not waved through */
	assert_int_equal(cli_mounts_check(NULL, "/srv/proj", POL_WRITE, 0, &err), -1);
	assert_non_null(strstr(err, "the mount table could not be read"));
	free(err);
	err = NULL;
	/* read grants: a proc mount only (the host's processes) */
	const char *mp = "24 1 254:0 / / rw - ext4 /dev/vda rw\n"
			 "61 24 0:40 / /mnt/cg rw - cgroup2 cgroup2 rw\n"
			 "62 24 0:21 / /srv/p/pp rw - proc proc rw\n";
	assert_int_equal(cli_mounts_check(mp, "/mnt", POL_READ, 0, &err), 0);
	assert_int_equal(cli_mounts_check(mp, "/srv/p", POL_READ, 0, &err), -1);
	assert_non_null(strstr(err, "--allow-read '/srv/p' holds a proc mount at '/srv/p/pp'"));
	free(err);
	err = NULL;
	assert_int_equal(cli_mounts_check(NULL, "/srv/p", POL_READ, 0, &err), -1);
	free(err);
}

static void write_kernel_trees_refused(void **state)
{
	const char *bad[] = { "/proc", "/proc/sys/kernel", "/sys", "/sys/fs/cgroup/pids", "/dev", "/dev/shm",
			      "/dev/null", "/" };
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *err = NULL;
		assert_int_equal(cli_write_tree_check(bad[i], POL_WRITE, &err), -1);
		char *named = xasprintf("--allow-write '%s'", bad[i]);
		if (!strstr(err, named) || !strstr(err, "project directory"))
			fail_msg("%s: message '%s'", bad[i], err);
		free(named);
		free(err);
	}
	char *err = NULL;
	/* read and execute grants are mounted read-only: not refused */
	assert_int_equal(cli_write_tree_check("/sys/fs/cgroup", POL_READ, &err), 0);
	assert_int_equal(cli_write_tree_check("/proc", POL_READ | POL_EXEC, &err), 0);
	assert_int_equal(cli_write_tree_check("/devel", POL_WRITE, &err), 0);
	assert_int_equal(cli_write_tree_check("/tmp/proj", POL_WRITE, &err), 0);
	assert_int_equal(cli_write_tree_check("/var/proc", POL_WRITE, &err), 0);
}

static void self_program_refused(void **state)
{
	/* sandbx at /opt/sbx/build/sandbx: (1,10) the program, (1,2) /,
	 * (1,3) /opt, (1,4) /opt/sbx, (1,5) /opt/sbx/build */
	dev_t dev[] = { 1, 1, 1, 1, 1 };
	ino_t ino[] = { 10, 2, 3, 4, 5 };
	struct cli_self s = { .exe = (char *)"/opt/sbx/build/sandbx", .n = 5, .dev = dev, .ino = ino };
	struct { const char *path; dev_t dev; ino_t ino; const char *needle; } bad[] = {
		{ "/opt/sbx", 9, 99, "'/opt/sbx' holds sandbx's own program '/opt/sbx/build/sandbx'" },
		{ "/opt/sbx/build/sandbx", 9, 98, "holds sandbx's own program" },	/* by path */
		{ "/mnt/bind", 1, 4, "'/mnt/bind' holds" },		/* /opt/sbx mounted elsewhere */
		{ "/srv/hl", 1, 10, "'/srv/hl' is sandbx's own program" },	/* a hard link */
		{ "/", 1, 2, "holds" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		char *err = NULL;
		assert_int_equal(cli_self_check(bad[i].path, bad[i].dev, bad[i].ino, &s, 0, &err), -1);
		if (!strstr(err, bad[i].needle) || !strstr(err, "could replace the sandbox itself") ||
		    !strstr(err, "install sandbx elsewhere"))
			fail_msg("%s: message '%s'", bad[i].path, err);
		free(err);
	}
	char *err = NULL;
	assert_int_equal(cli_self_check("/opt/sbx", 1, 4, &s, 1, &err), -1);
	assert_non_null(strstr(err, "the working directory '/opt/sbx' holds sandbx's own program"));
	assert_non_null(strstr(err, "install sandbx outside it"));
	free(err);
	err = NULL;
	assert_int_equal(cli_self_check("/opt/sbx/src", 1, 6, &s, 0, &err), 0);
	assert_int_equal(cli_self_check("/opt/sbxy", 1, 7, &s, 1, &err), 0);
	assert_int_equal(cli_self_check("/opt/sbx/build/sandbx.d", 1, 8, &s, 0, &err), 0);

	/* the real one: this test binary, found by path and by pin */
	struct cli_self me;
	assert_int_equal(cli_self_load(&me, &err), 0);
	assert_true(me.n >= 2);
	char *dir = xstrdup(me.exe);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(cli_self_check(dir, 0, 0, &me, 1, &err), -1);
	free(err);
	err = NULL;
	assert_int_equal(cli_self_check("/nonexistent-elsewhere", me.dev[me.n - 1], me.ino[me.n - 1], &me, 0, &err), -1);
	free(err);
	free(dir);
	cli_self_release(&me);
}

static void self_links_refused(void **state)
{
	/* sandbx at /opt/sbx/sandbx on filesystem 254:0 with a second link */
	dev_t dev[] = { makedev(254, 0) };
	ino_t ino[] = { 10 };
	struct cli_self s = { .exe = (char *)"/opt/sbx/sandbx", .n = 1, .dev = dev, .ino = ino, .links = 2,
			      .writable = 1 };
	const char *mi = "24 1 254:0 / / rw - ext4 /dev/vda rw\n"
			 "30 24 0:41 / /srv rw - tmpfs tmpfs rw\n"
			 "31 30 254:0 /home/u /srv/w/home rw - ext4 /dev/vda rw\n";
	char *err = NULL;
	(void)state;

	/* on its filesystem: the default and a grant, each by its own words */
	assert_int_equal(cli_self_links_check(mi, "/home/u/proj", makedev(254, 0), &s, 1, &err), -1);
	assert_non_null(strstr(err, "the working directory '/home/u/proj' is on the filesystem of sandbx's own "
				    "program '/opt/sbx/sandbx', which has 2 hard links"));
	assert_non_null(strstr(err, "find '/home/u/proj' -xdev -samefile '/opt/sbx/sandbx'"));
	free(err);
	err = NULL;
	/* another filesystem holding a mount of it */
	assert_int_equal(cli_self_links_check(mi, "/srv/w", makedev(0, 41), &s, 0, &err), -1);
	assert_non_null(strstr(err, "--allow-write '/srv/w' holds '/srv/w/home', a mount of the filesystem"));
	free(err);
	err = NULL;
	/* the mount table unreadable: refused, it cannot tell */
	assert_int_equal(cli_self_links_check(NULL, "/srv/w", makedev(0, 41), &s, 0, &err), -1);
	assert_non_null(strstr(err, "the mount table could not be read"));
	free(err);
	err = NULL;
	/* another filesystem without one; one link; a program the caller cannot write */
	assert_int_equal(cli_self_links_check(mi, "/srv/x", makedev(0, 41), &s, 0, &err), 0);
	s.links = 1;
	assert_int_equal(cli_self_links_check(mi, "/home/u/proj", makedev(254, 0), &s, 0, &err), 0);
	s.links = 3;
	s.writable = 0;
	assert_int_equal(cli_self_links_check(mi, "/home/u/proj", makedev(254, 0), &s, 0, &err), 0);
	assert_null(err);
}

static void grant_symlink_detected(void **state)
{
	/* given, cwd, realpath's answer: equal to the lexical form, or not */
	struct { const char *given, *cwd, *real; int ok; } c[] = {
		{ "out", "/w", "/w/out", 1 },
		{ "./a//b/", "/w", "/w/a/b", 1 },
		{ "/w/x/../y/.", "/elsewhere", "/w/y", 1 },
		{ "..", "/w/sub", "/w", 1 },
		{ "//", "/w", "/", 1 },
		{ "out", "/w", "/home/u/.ssh", 0 },		/* the link itself */
		{ "/w/lnk/f", "/", "/srv/f", 0 },		/* a link in the middle */
		{ "lnk/..", "/w", "/home/u", 0 },		/* '..' taken after a link */
		{ "/bin", "/", "/usr/bin", 0 },			/* merged /usr: the user's own grant */
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(c); i++) {
		char *err = NULL;
		int r = cli_symlink_check(c[i].given, POL_WRITE, c[i].cwd, c[i].real, &err);
		if (c[i].ok) {
			if (r != 0)
				fail_msg("%s: refused: %s", c[i].given, err);
			continue;
		}
		assert_int_equal(r, -1);
		char *given = xasprintf("--allow-write '%s'", c[i].given), *real = xasprintf("'%s'", c[i].real),
		     *fix = xasprintf("grant '%s' itself", c[i].real);
		if (!strstr(err, given) || !strstr(err, real) || !strstr(err, fix) || !strstr(err, "symlink"))
			fail_msg("%s: message '%s'", c[i].given, err);
		free(given);
		free(real);
		free(fix);
		free(err);
	}
	char *err = NULL;
	assert_int_equal(cli_symlink_check("x", POL_READ | POL_EXEC, "/w", "/o", &err), -1);
	assert_non_null(strstr(err, "--allow-exec 'x'"));
	free(err);
	err = NULL;
	assert_int_equal(cli_symlink_check("x", POL_READ, "/w", "/o", &err), -1);
	assert_non_null(strstr(err, "--allow-read 'x'"));
	free(err);
}

static void grant_resolved_refuses_changed(void **state)
{
	/* A path vetted as resolved that no longer resolves to itself (here:
	 * it never did, /bin is a link on merged /usr or /usr/../bin folds)
	 * is refused; a resolved one is pinned as usual. */
	struct policy p;
	char *err = NULL;
	policy_init(&p);
	assert_int_equal(policy_add_grant_resolved(&p, "/usr/../usr", POL_READ, &err), -1);
	assert_non_null(strstr(err, "changed while it was checked"));
	free(err);
	err = NULL;
	assert_int_equal(policy_add_grant_resolved(&p, "/usr", POL_READ, &err), 0);
	assert_non_null(policy_find(&p, "/usr"));
	policy_release(&p);
}

static void owned_paths_refused_both_ways(void **state)
{
	struct xdg_paths x = { 0 };
	char *err = NULL;
	x.state_dir = xstrdup("/srv/u/.local/state/sandbx");
	x.config_dir = xstrdup("/srv/u/.config/sandbx");
	assert_int_equal(cli_owned_check("/", &x, &err), -1);
	free(err);
	assert_int_equal(cli_owned_check("/srv/u", &x, &err), -1);
	free(err);
	assert_int_equal(cli_owned_check("/srv/u/.local/state/sandbx/sessions", &x, &err), -1);
	free(err);
	assert_int_equal(cli_owned_check("/srv/u/.config/sandbx/credentials.toml", &x, &err), -1);
	free(err);
	assert_int_equal(cli_owned_check("/srv/u/.local/state/other", &x, &err), 0);
	assert_int_equal(cli_owned_check("/srv/u/.config/sandbxy", &x, &err), 0);
	xdg_paths_release(&x);
}

/* The store's location when it is not there yet: a '..' after a missing
 * directory folds (the directory is made, then left), and a dangling
 * symlink is followed to where the store would be made.  Before, both
 * were compared as spelled, so a grant of the real place passed. */
static void resolve_prefix_missing_parts(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/sbx-rp-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *t = realpath(tmpl, NULL);
	assert_non_null(t);
	char *p = xasprintf("%s/xdg8", t), *q = xasprintf("%s/p4", t);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(mkdir(q, 0700), 0);
	char *l1 = xasprintf("%s/slink", t), *l2 = xasprintf("%s/rlink", t), *l3 = xasprintf("%s/loop1", t),
	     *l4 = xasprintf("%s/loop2", t), *tg = xasprintf("%s/p4/state", t);
	assert_int_equal(symlink(tg, l1), 0);
	assert_int_equal(symlink("p4/../p4/other", l2), 0);
	assert_int_equal(symlink(l4, l3), 0);
	assert_int_equal(symlink(l3, l4), 0);
	/* beneath t; want "=" + path: that path itself */
	struct { const char *in, *want; } c[] = {
		{ "/nonexist/../xdg8/sandbx", "/xdg8/sandbx" },
		{ "/nonexist/../../x", "=/tmp/x" },
		{ "/a/./b/../c", "/a/c" },
		{ "/slink/sandbx", "/p4/state/sandbx" },
		{ "/rlink/sandbx/.", "/p4/other/sandbx" },
		{ "/xdg8", "/xdg8" },
		{ "/loop1/sandbx", "/loop1/sandbx" },	/* a loop: as given */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *in = xasprintf("%s%s", t, c[i].in);
		char *want = c[i].want[0] == '=' ? xstrdup(c[i].want + 1) : xasprintf("%s%s", t, c[i].want);
		char *got = cli_resolve_prefix(in);
		assert_string_equal(got, want);
		free(got);
		free(in);
		free(want);
	}
	char *got = cli_resolve_prefix("/sbx-no-such-dir/x/../y");
	assert_string_equal(got, "/sbx-no-such-dir/y");
	free(got);
	got = cli_resolve_prefix("relative/../x");
	assert_string_equal(got, "relative/../x");
	free(got);
	unlink(l1);
	unlink(l2);
	unlink(l3);
	unlink(l4);
	rmdir(p);
	rmdir(q);
	rmdir(t);
	free(l1);
	free(l2);
	free(l3);
	free(l4);
	free(tg);
	free(p);
	free(q);
	free(t);
}

static void util_parsers(void **state)
{
	uint64_t v;
	assert_int_equal(parse_size("1K", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(parse_size("3g", &v), 0);
	assert_int_equal(v, 3ULL << 30);
	assert_int_equal(parse_size("", &v), -1);
	assert_int_equal(parse_size("12Q", &v), -1);
	assert_int_equal(parse_size("99999999999999999999", &v), -1);
	assert_int_equal(parse_u64("65535", 1, 65535, &v), 0);
	assert_int_equal(parse_u64("65536", 1, 65535, &v), -1);
	assert_int_equal(parse_u64("-1", 0, 10, &v), -1);
	assert_true(path_within("/a/b", "/a"));
	assert_true(path_within("/a", "/a"));
	assert_false(path_within("/ab", "/a"));
	assert_true(path_within("/x", "/"));
}

/* The helper's start message: what the harness joins the helper splits
 * back whole, empty strings included; any other length, or any other
 * count, is refused, never read past. */
static void helper_start_roundtrip(void **state)
{
	struct strv a = { 0 }, e = { 0 };
	size_t len = 0;
	(void)state;
	strv_push(&a, "nopin");
	strv_push(&a, "--read=/usr");
	strv_push(&a, "--");
	strv_push(&a, "/bin/sh");
	strv_push(&a, "");
	strv_push(&e, "PATH=/usr/bin");
	strv_push(&e, "X=");
	char *buf = helper_start_join(&a, &e, &len);
	assert_non_null(buf);
	assert_int_equal(len, 6 + 12 + 3 + 8 + 1 + 14 + 3);
	char *v[8], *env[4];
	assert_int_equal(helper_start_split(buf, len, 5, 2, v, env), 0);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(v[i], a.v[i]);
	assert_null(v[5]);
	assert_string_equal(env[0], "PATH=/usr/bin");
	assert_string_equal(env[1], "X=");
	assert_null(env[2]);
	/* every shorter length, every longer one, other counts */
	char *big = xmalloc(len + 2);
	memcpy(big, buf, len);
	big[len] = 'z';
	big[len + 1] = '\0';
	for (size_t n = 0; n < len; n++)
		assert_int_equal(helper_start_split(big, n, 5, 2, v, env), -1);
	assert_int_equal(helper_start_split(big, len + 1, 5, 2, v, env), -1);
	assert_int_equal(helper_start_split(big, len + 2, 5, 2, v, env), -1);
	assert_int_equal(helper_start_split(buf, len, 5, 1, v, env), -1);
	assert_int_equal(helper_start_split(buf, len, 6, 2, v, env), -1);
	assert_int_equal(helper_start_split(buf, len, 4, 2, v, env), -1);
	assert_int_equal(helper_start_split(buf, len, 4, 3, v, env), 0);	/* the split is the header's */
	/* nothing at all */
	struct strv none = { 0 };
	char *z = helper_start_join(&none, &none, &len);
	assert_non_null(z);
	assert_int_equal(len, 0);
	assert_int_equal(helper_start_split(z, 0, 0, 0, v, env), 0);
	assert_null(v[0]);
	assert_null(env[0]);
	assert_int_equal(helper_start_split(z, 0, 1, 0, v, env), -1);
	free(z);
	free(big);
	free(buf);
	strv_free(&a);
	strv_free(&e);
}

/* The namespace child's messages before its ruleset (helper.h): the init
 * goes on only with a whole message of the right magic, no refusal, and
 * its namespace's descriptor; a refusal is passed on only from the labels
 * the child may send in it (theirs, ACH_REF_FORK), and with no
 * descriptor; the other message's magic, or an earlier format's, is
 * refused like any other. */
typedef int (*ns_check_fn)(const struct helper_ns_reply *, size_t, int, int *, int *);
static void ns_msg_checked(ns_check_fn check, uint32_t magic, const uint32_t *bad, size_t nbad, int theirs)
{
	struct helper_ns_reply ok = { .magic = magic };
	int label, arg;
	assert_int_equal(check(&ok, sizeof(ok), 7, &label, &arg), 0);
	/* the descriptor missing */
	assert_int_equal(check(&ok, sizeof(ok), -1, &label, &arg), -1);
	assert_int_equal(label, ACH_REF_PRIVS);
	assert_int_equal(arg, EPROTO);
	/* the child ended with no message */
	assert_int_equal(check(&ok, 0, -1, &label, &arg), -1);
	assert_int_equal(label, ACH_REF_FORK);
	assert_int_equal(arg, ECHILD);
	for (size_t n = 1; n < sizeof(ok); n++) {
		assert_int_equal(check(&ok, n, 7, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
	}
	for (size_t i = 0; i < nbad; i++) {
		struct helper_ns_reply r = { .magic = bad[i] };
		assert_int_equal(check(&r, sizeof(r), 7, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
	}
	const int mine[] = { theirs, ACH_REF_FORK };
	for (size_t i = 0; i < SBX_ARRAY_LEN(mine); i++) {
		struct helper_ns_reply r = { .magic = magic, .refusal = mine[i], .arg = 42 };
		assert_int_equal(check(&r, sizeof(r), -1, &label, &arg), -1);
		assert_int_equal(label, mine[i]);
		assert_int_equal(arg, 42);
		/* ... but not with a descriptor */
		assert_int_equal(check(&r, sizeof(r), 7, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
	}
	for (int l = -1; l < ACH__COUNT; l++) {
		if (l == 0 || l == theirs || l == ACH_REF_FORK)
			continue;
		struct helper_ns_reply r = { .magic = magic, .refusal = l, .arg = 1 };
		assert_int_equal(check(&r, sizeof(r), -1, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
		assert_int_equal(arg, EPROTO);
	}
}

/* The reply: the network namespace (ACH_REF_NETNS_LO its refusal). */
static void helper_ns_reply_checked(void **state)
{
	static const uint32_t bad[] = { HELPER_START_MAGIC, 0x73626e31u, HELPER_NS_PRE_MAGIC, HELPER_NS_RULES_MAGIC, 0 };
	(void)state;
	ns_msg_checked(helper_ns_reply_check, HELPER_NS_MAGIC, bad, SBX_ARRAY_LEN(bad), ACH_REF_NETNS_LO);
}

/* The first message: the ipc namespace (ACH_REF_USERNS its refusal). */
static void helper_ns_pre_checked(void **state)
{
	static const uint32_t bad[] = { HELPER_START_MAGIC, HELPER_NS_MAGIC, HELPER_NS_RULES_MAGIC, 0 };
	(void)state;
	ns_msg_checked(helper_ns_pre_check, HELPER_NS_PRE_MAGIC, bad, SBX_ARRAY_LEN(bad), ACH_REF_USERNS);
}

/* The namespace child's ruleset message: taken only whole, ok, of the
 * right magic and made for the command stage's own ABI, with its
 * descriptor; anything else is let go (closed) and the stage builds the
 * ruleset itself.  Counted by the descriptors left open. */
static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void helper_ns_rules_taken(void **state)
{
	struct helper_ns_rules ok = { .magic = HELPER_NS_RULES_MAGIC, .ok = 1, .abi = 6 };
	(void)state;
	int before = open_fds();
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(helper_ns_rules_take(&ok, sizeof(ok), fd, 6), fd);
	assert_int_equal(open_fds(), before + 1);
	close(fd);
	/* no descriptor; a short message (none came: the child ended) */
	assert_int_equal(helper_ns_rules_take(&ok, sizeof(ok), -1, 6), -1);
	for (size_t n = 0; n < sizeof(ok); n++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_int_equal(helper_ns_rules_take(&ok, n, fd, 6), -1);
		assert_int_equal(open_fds(), before);
	}
	/* another ABI than the stage's: its rights would not be the stage's */
	static const int abis[] = { 5, 7, 0, -1 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(abis); i++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_int_equal(helper_ns_rules_take(&ok, sizeof(ok), fd, abis[i]), -1);
		assert_int_equal(open_fds(), before);
	}
	/* not ok (the child could not make it), or any ok but 1; a wrong
	 * magic (the reply's among them) */
	static const struct helper_ns_rules bad[] = {
		{ HELPER_NS_RULES_MAGIC, 0, 6 }, { HELPER_NS_RULES_MAGIC, 2, 6 }, { HELPER_NS_RULES_MAGIC, -1, 6 },
		{ HELPER_NS_MAGIC, 1, 6 }, { HELPER_START_MAGIC, 1, 6 }, { 0, 1, 6 },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_int_equal(helper_ns_rules_take(&bad[i], sizeof(bad[i]), fd, 6), -1);
		assert_int_equal(open_fds(), before);
	}
}

/* The harness's second message: the supervisor goes on only with a whole
 * message of the right magic whose descriptors are those cg names, in
 * its order; values the harness could not read are its refusal, passed
 * on, and never come with a descriptor. */
static void helper_ucounts_checked(void **state)
{
	struct helper_ucounts ok = { .magic = HELPER_UCOUNTS_MAGIC, .v = { 1, 2, 3, 4 } };
	int out[HELPER_UCOUNTS_NCG], label, arg;
	static const int fds[] = { 7, 8, 9 };
	(void)state;
	assert_int_equal(helper_ucounts_check(&ok, sizeof(ok), fds, 0, out, &label, &arg), 0);
	for (int i = 0; i < HELPER_UCOUNTS_NCG; i++)
		assert_int_equal(out[i], -1);
	/* every subset of the three directories, in index order */
	for (uint32_t cg = 1; cg < 8; cg++) {
		struct helper_ucounts u = ok;
		u.cg = cg;
		int n = __builtin_popcount(cg);
		assert_int_equal(helper_ucounts_check(&u, sizeof(u), fds, n, out, &label, &arg), 0);
		for (int i = 0, k = 0; i < HELPER_UCOUNTS_NCG; i++)
			assert_int_equal(out[i], (cg & (1u << i)) ? fds[k++] : -1);
		/* one descriptor more or less than cg says */
		assert_int_equal(helper_ucounts_check(&u, sizeof(u), fds, n - 1, out, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
		assert_int_equal(arg, EPROTO);
		if (n < 3) {
			assert_int_equal(helper_ucounts_check(&u, sizeof(u), fds, n + 1, out, &label, &arg), -1);
			assert_int_equal(label, ACH_REF_PRIVS);
		}
	}
	/* a directory index the protocol does not have */
	struct helper_ucounts far = ok;
	far.cg = 1u << HELPER_UCOUNTS_NCG;
	assert_int_equal(helper_ucounts_check(&far, sizeof(far), fds, 1, out, &label, &arg), -1);
	assert_int_equal(label, ACH_REF_PRIVS);
	/* every shorter length; a wrong magic (the earlier format's too) */
	for (size_t n = 0; n < sizeof(ok); n++) {
		assert_int_equal(helper_ucounts_check(&ok, n, fds, 0, out, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
	}
	static const uint32_t magics[] = { 0x73627531u, HELPER_START_MAGIC, HELPER_NS_MAGIC, 0 };
	for (size_t i = 0; i < SBX_ARRAY_LEN(magics); i++) {
		struct helper_ucounts bad = ok;
		bad.magic = magics[i];
		assert_int_equal(helper_ucounts_check(&bad, sizeof(bad), fds, 0, out, &label, &arg), -1);
		assert_int_equal(label, ACH_REF_PRIVS);
		assert_int_equal(arg, EPROTO);
	}
	/* the harness could not read the caller's values: its refusal */
	struct helper_ucounts unread = ok;
	unread.bad = 1;
	unread.arg = 42;
	assert_int_equal(helper_ucounts_check(&unread, sizeof(unread), fds, 0, out, &label, &arg), -1);
	assert_int_equal(label, ACH_REF_USER_LIMIT);
	assert_int_equal(arg, 42);
	/* ... which comes with no directory */
	unread.cg = 1;
	assert_int_equal(helper_ucounts_check(&unread, sizeof(unread), fds, 1, out, &label, &arg), -1);
	assert_int_equal(label, ACH_REF_PRIVS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(policy_roundtrip),
		cmocka_unit_test(helper_start_roundtrip),
		cmocka_unit_test(helper_ns_reply_checked),
		cmocka_unit_test(helper_ns_pre_checked),
		cmocka_unit_test(helper_ns_rules_taken),
		cmocka_unit_test(helper_ucounts_checked),
		cmocka_unit_test(policy_describe_escapes_separators),
		cmocka_unit_test(policy_describe_every_right),
		cmocka_unit_test(policy_refuses_missing_grant),
		cmocka_unit_test(policy_from_argv_rejects),
		cmocka_unit_test(landlock_rights_mapping),
		cmocka_unit_test(landlock_restrict_flags_by_abi),
		cmocka_unit_test(landlock_abi_capped),
		cmocka_unit_test(helper_env_loader_names),
		cmocka_unit_test(helper_core_pattern_shapes),
		cmocka_unit_test(cwd_shapes_refused),
		cmocka_unit_test(write_kernel_trees_refused),
		cmocka_unit_test(write_kernel_mounts_refused),
		cmocka_unit_test(mqueue_masks),
		cmocka_unit_test(hugetlbfs_masks),
		cmocka_unit_test(ancestry_by_object),
		cmocka_unit_test(exec_alias_by_mount_table),
		cmocka_unit_test(exec_alias_by_object),
		cmocka_unit_test(self_program_refused),
		cmocka_unit_test(self_links_refused),
		cmocka_unit_test(grant_symlink_detected),
		cmocka_unit_test(grant_resolved_refuses_changed),
		cmocka_unit_test(owned_paths_refused_both_ways),
		cmocka_unit_test(resolve_prefix_missing_parts),
		cmocka_unit_test(util_parsers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
