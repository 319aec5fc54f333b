/* test_limits.c — the pure part of the resource limits: defaults, the flags
 * over them, rlimit planning, messages, and the cgroup file parsers. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli.h"
#include "cli/cli_policy.h"
#include "sandbox/limits.h"

static void limits_format_units(void **state)
{
	static const struct { int kind; uint64_t v; const char *want; } cases[] = {
		{ LIM_MEMORY, 512ULL << 20, "512M" }, { LIM_MEMORY, 1ULL << 30, "1G" },
		{ LIM_MEMORY, 1536ULL << 10, "1536K" }, { LIM_FSIZE, 1ULL << 20, "1M" },
		{ LIM_FSIZE, 100, "100B" }, { LIM_FSIZE, 3ULL << 40, "3T" },
		{ LIM_MEMORY, (1ULL << 30) + (1ULL << 20), "1025M" },
		{ LIM_CPU, 1, "1s" }, { LIM_PROCS, 64, "64" }, { LIM_NOFILE, 1024, "1024" },
	};
	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		char *s = limits_format(cases[i].kind, cases[i].v);
		assert_string_equal(s, cases[i].want);
		free(s);
	}
}

static void limits_hit_messages(void **state)
{
	struct policy p;
	policy_init(&p);
	p.limits[LIM_MEMORY] = 512ULL << 20;
	p.limits[LIM_CPU] = 1;
	p.limits[LIM_FSIZE] = 1ULL << 20;
	char *m = limits_hit_message(&p, LIM_MEMORY);
	assert_string_equal(m, "the command was killed: memory limit 512M reached");
	free(m);
	m = limits_hit_message(&p, LIM_CPU);
	assert_string_equal(m, "the command was killed: CPU time limit 1s reached");
	free(m);
	m = limits_hit_message(&p, LIM_FSIZE);
	assert_string_equal(m, "the command was killed: file size limit 1M reached");
	free(m);
	m = limits_hit_message(&p, LIM__COUNT + 3);	/* a bad record arg */
	assert_string_equal(m, "the command was killed: a resource limit was reached");
	free(m);
	policy_release(&p);
}

static void limits_defaults_by_caller(void **state)
{
	uint64_t d[LIM__COUNT];
	limits_defaults(0, 24ULL << 30, d);
	assert_int_equal(d[LIM_PROCS], LIMITS_RUN_PROCS);	/* never unbounded */
	assert_int_equal(d[LIM_MEMORY], 0);
	assert_int_equal(d[LIM_CPU], 0);
	assert_int_equal(d[LIM_FSIZE], 0);
	assert_int_equal(d[LIM_NOFILE], 0);

	limits_defaults(1, 24ULL << 30, d);
	assert_int_equal(d[LIM_PROCS], 512);
	assert_int_equal(d[LIM_MEMORY], 12ULL << 30);
	assert_int_equal(d[LIM_CPU], 0);			/* the wall clock bounds bash */
	assert_int_equal(d[LIM_FSIZE], 1ULL << 30);
	assert_int_equal(d[LIM_NOFILE], LIMITS_AGENT_NOFILE);

	limits_defaults(1, (3ULL << 30) + 12345, d);		/* half, in whole MiB */
	assert_int_equal(d[LIM_MEMORY], (3ULL << 29) & ~((1ULL << 20) - 1));
	assert_int_equal(d[LIM_MEMORY] % (1ULL << 20), 0);
	limits_defaults(1, 100ULL << 20, d);			/* a tiny host: the floor */
	assert_int_equal(d[LIM_MEMORY], LIMITS_AGENT_MEMORY_MIN);
	limits_defaults(1, 0, d);				/* unknown RAM: none */
	assert_int_equal(d[LIM_MEMORY], 0);
}

/* The flags over the defaults, through the real parser. */
static void limits_flags_over_defaults(void **state)
{
	static char a0[] = "sandbx", a1[] = "sandbox-run", a2[] = "--limit-procs", a3[] = "none",
		    a4[] = "--limit-memory", a5[] = "256M", a6[] = "--limit-cpu", a7[] = "1", a8[] = "--",
		    a9[] = "/bin/true";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, NULL };
	struct cli_opts o = { 0 };
	struct policy p;
	char *err = NULL;

	assert_int_equal(cli_parse(&o, 10, argv, &err), 0);
	policy_init(&p);
	assert_int_equal(cli_policy_limits(&o, 0, &p, &err), 0);
	assert_int_equal(p.limits[LIM_PROCS], 0);		/* lifted */
	assert_int_equal(p.limits[LIM_MEMORY], 256ULL << 20);
	assert_int_equal(p.limits[LIM_CPU], 1);
	assert_int_equal(p.limits[LIM_FSIZE], 0);
	policy_release(&p);

	policy_init(&p);
	assert_int_equal(cli_policy_limits(&o, 1, &p, &err), 0);
	assert_int_equal(p.limits[LIM_PROCS], 0);
	assert_int_equal(p.limits[LIM_FSIZE], LIMITS_AGENT_FSIZE);	/* default kept */
	assert_int_equal(p.limits[LIM_NOFILE], LIMITS_AGENT_NOFILE);
	policy_release(&p);
	cli_opts_release(&o);

	char *argv2[] = { a0, a1, a8, a9, NULL };
	struct cli_opts o2 = { 0 };
	assert_int_equal(cli_parse(&o2, 4, argv2, &err), 0);
	policy_init(&p);
	assert_int_equal(cli_policy_limits(&o2, 0, &p, &err), 0);
	assert_int_equal(p.limits[LIM_PROCS], LIMITS_RUN_PROCS);
	policy_release(&p);
	cli_opts_release(&o2);
}

static void limits_ucounts_pure(void **state)
{
	struct rlimit cur = { 819200, 819200 }, out;
	uint64_t v;

	/* Hard half the caller's soft, soft no higher. */
	assert_int_equal(limits_plan_half(&cur, &out), 0);
	assert_int_equal(out.rlim_max, 409600);
	assert_int_equal(out.rlim_cur, 409600);
	struct rlimit lower_soft = { 1001, RLIM_INFINITY };
	assert_int_equal(limits_plan_half(&lower_soft, &out), 0);
	assert_int_equal(out.rlim_max, 500);
	assert_int_equal(out.rlim_cur, 500);
	struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };
	assert_int_equal(limits_plan_half(&inf, &out), 1);
	assert_true(out.rlim_cur == RLIM_INFINITY && out.rlim_max == RLIM_INFINITY);
	struct rlimit zero = { 0, 0 };
	assert_int_equal(limits_plan_half(&zero, &out), 1);

	/* The four sysctls a command can spend, then the rlimits, then the directory. */
	assert_string_equal(limits_ucount_name(0), "max_inotify_instances");
	assert_string_equal(limits_ucount_name(2), "max_fanotify_groups");
	assert_string_equal(limits_ucount_name(LIMITS_UC_SYSCTLS - 1), "max_fanotify_marks");
	assert_string_equal(limits_ucount_name(LIMITS_UC_MSGQUEUE), "RLIMIT_MSGQUEUE");
	assert_string_equal(limits_ucount_name(LIMITS_UC_DIR), "/proc/sys/user");
	assert_string_equal(limits_ucount_name(LIMITS_UC__COUNT), "?");
	assert_string_equal(limits_ucount_name(-1), "?");

	assert_int_equal(limits_ucount_parse("128\n", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(limits_ucount_parse("2147483647\n", &v), 0);
	assert_int_equal(limits_ucount_parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(limits_ucount_parse("", &v), -1);
	assert_int_equal(limits_ucount_parse("\n", &v), -1);
	assert_int_equal(limits_ucount_parse("-1\n", &v), -1);
	assert_int_equal(limits_ucount_parse("12 34\n", &v), -1);
	assert_int_equal(limits_ucount_parse("2147483648\n", &v), -1);

	/* The refusal names the counter and why. */
	char *m = limits_ucount_message(limits_ucount_arg(0, EACCES));
	assert_non_null(strstr(m, "'max_inotify_instances' (Permission denied) — "));
	assert_non_null(strstr(m, "nothing is mounted over /proc/sys/user"));
	assert_non_null(strstr(m, "nothing was run"));
	free(m);
	m = limits_ucount_message(limits_ucount_arg(LIMITS_UC_SIGPENDING, EPERM));
	assert_non_null(strstr(m, "'RLIMIT_SIGPENDING' (Operation not permitted) — "));
	assert_non_null(strstr(m, "ulimit -i"));
	free(m);
	m = limits_ucount_message(limits_ucount_arg(LIMITS_UC_DIR, 0));
	assert_non_null(strstr(m, "'/proc/sys/user' (not the kernel's procfs) — "));
	free(m);
	m = limits_ucount_message(-1);	/* a bad record arg */
	assert_non_null(strstr(m, "'?'"));
	free(m);
}

static void limits_rlimit_plan(void **state)
{
	struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY }, out;

	assert_int_equal(limits_plan_rlimit(LIM_PROCS, 64, 2, &inf, &out), RLIMIT_NPROC);
	assert_int_equal(out.rlim_cur, 66);
	assert_int_equal(out.rlim_max, 66);
	assert_int_equal(limits_plan_rlimit(LIM_CPU, 1, 2, &inf, &out), RLIMIT_CPU);
	assert_int_equal(out.rlim_cur, 1);	/* SIGXCPU */
	assert_int_equal(out.rlim_max, 2);	/* SIGKILL a second later */
	assert_int_equal(limits_plan_rlimit(LIM_MEMORY, 256ULL << 20, 2, &inf, &out), RLIMIT_AS);
	assert_int_equal(out.rlim_cur, 256ULL << 20);
	assert_int_equal(limits_plan_rlimit(LIM_FSIZE, 1 << 20, 2, &inf, &out), RLIMIT_FSIZE);
	assert_int_equal(out.rlim_max, 1 << 20);

	/* Never above the caller's: a lower soft value stays, the hard one
	 * is the smaller of the two. */
	struct rlimit low = { 1024, 524288 };
	assert_int_equal(limits_plan_rlimit(LIM_NOFILE, 4096, 2, &low, &out), RLIMIT_NOFILE);
	assert_int_equal(out.rlim_cur, 1024);
	assert_int_equal(out.rlim_max, 4096);
	struct rlimit tight = { 100, 200 };
	limits_plan_rlimit(LIM_NOFILE, 4096, 2, &tight, &out);
	assert_int_equal(out.rlim_cur, 100);
	assert_int_equal(out.rlim_max, 200);
	/* A soft value above the new hard one comes down to it. */
	struct rlimit soft_inf = { RLIM_INFINITY, RLIM_INFINITY };
	limits_plan_rlimit(LIM_NOFILE, 50, 2, &soft_inf, &out);
	assert_int_equal(out.rlim_cur, 50);
	assert_int_equal(out.rlim_max, 50);
	struct rlimit hard_low = { RLIM_INFINITY, 30 };
	limits_plan_rlimit(LIM_NOFILE, 50, 2, &hard_low, &out);
	assert_int_equal(out.rlim_cur, 30);
	assert_int_equal(out.rlim_max, 30);
	assert_int_equal(limits_resource(LIM__COUNT), -1);
}

static void limits_proc_cgroup_parse(void **state)
{
	const char *hybrid = "9:name=systemd:/\n8:pids:/a/b\n4:memory:/process_api/x\n1:cpu,cpuacct:/\n0::/\n";
	const char *v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
	char out[LIMITS_MAX_PATH];

	assert_int_equal(limits_cgroup_of(hybrid, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(limits_cgroup_of(hybrid, "pids", out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(limits_cgroup_of(hybrid, "cpuacct", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(limits_cgroup_of(hybrid, "cpuac", out, sizeof(out)), -1);	/* whole words */
	assert_int_equal(limits_cgroup_of(v2, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/user.slice/user-1000.slice/session-2.scope");
	assert_int_equal(limits_cgroup_of(v2, "pids", out, sizeof(out)), -1);
	assert_int_equal(limits_cgroup_of(v2, NULL, out, 8), -1);	/* too long */
	assert_int_equal(limits_cgroup_of("", NULL, out, sizeof(out)), -1);
	assert_int_equal(limits_cgroup_of("garbage\n::\n0:", NULL, out, sizeof(out)), -1);
}

static void limits_mountinfo_parse(void **state)
{
	const char *mi =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
		"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:5 - cgroup cgroup rw,pids\n"
		"41 31 0:38 /ns/root /sys/fs/cgroup/uni\\040fied rw,relatime - cgroup2 cgroup2 rw\n";
	char mnt[LIMITS_MAX_PATH], root[LIMITS_MAX_PATH];

	assert_int_equal(limits_find_mount(mi, NULL, mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/uni fied");
	assert_string_equal(root, "/ns/root");
	assert_int_equal(limits_find_mount(mi, "pids", mnt, sizeof(mnt), root, sizeof(root)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/pids");
	assert_string_equal(root, "/");
	assert_int_equal(limits_find_mount(mi, "cpu", mnt, sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(limits_find_mount("1 2 3\n", NULL, mnt, sizeof(mnt), root, sizeof(root)), -1);
	assert_int_equal(limits_find_mount(mi, NULL, mnt, 4, root, sizeof(root)), -1);
}

static void limits_kernel_mounts(void **state)
{
	const char *mi =
		"24 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"25 24 0:5 / /dev rw,nosuid - devtmpfs udev rw\n"
		"60 24 0:21 / /srv/proj\\040x/p rw,relatime - proc proc rw\n"
		"61 24 0:40 / /mnt/cg rw,relatime shared:9 - cgroup2 cgroup2 rw\n"
		"62 24 0:41 / /srv/data rw,relatime - tmpfs tmpfs rw\n"
		"63 24 0:42 / /srv/mq rw,relatime - mqueue mqueue rw\n"
		"64 24 0:43 / /srv/hp rw,relatime - hugetlbfs hugetlbfs rw,pagesize=2M\n";
	char mnt[LIMITS_MAX_PATH], type[64];
	(void)state;

	/* a kernel mount beneath the grant, its escaped name decoded */
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/proj x", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(mnt, "/srv/proj x/p");
	assert_string_equal(type, "proc");
	/* the grant inside one; the grant holding several: the first */
	assert_int_equal(limits_kernel_mount_near(mi, "/mnt/cg/sub", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(mnt, "/mnt/cg");
	assert_string_equal(type, "cgroup2");
	assert_int_equal(limits_kernel_mount_near(mi, "/", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(mnt, "/dev");
	/* none: a tmpfs, a name that only begins like one, a sibling */
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/data", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 0);
	/* the host's message queues */
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/mq/q", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(type, "mqueue");
	assert_int_equal(limits_kernel_mount_near(mi, "/mnt/cgx", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 0);
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/proj", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 0);
	assert_int_equal(limits_kernel_mount_near("", "/srv", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), 0);
	/* beneath 0: only a mount the path lies in or names counts (a read
	 * grant holding a hugetlbfs is masked, naming one is refused) */
	assert_int_equal(limits_kernel_mount_near(mi, "/srv", "hugetlbfs", 1, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(mnt, "/srv/hp");
	assert_string_equal(type, "hugetlbfs");
	assert_int_equal(limits_kernel_mount_near(mi, "/srv", "hugetlbfs", 0, mnt, sizeof(mnt), type, sizeof(type)), 0);
	assert_int_equal(limits_kernel_mount_near(mi, "/", NULL, 0, mnt, sizeof(mnt), type, sizeof(type)), 0);
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/hp", "hugetlbfs", 0, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/hp/f", "hugetlbfs", 0, mnt, sizeof(mnt), type, sizeof(type)), 1);
	assert_string_equal(mnt, "/srv/hp");
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/hpx", "hugetlbfs", 0, mnt, sizeof(mnt), type, sizeof(type)), 0);
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/mq/q", "hugetlbfs", 0, mnt, sizeof(mnt), type, sizeof(type)), 0);
	/* a line it cannot read: it cannot tell, so it says so */
	assert_int_equal(limits_kernel_mount_near("24 1 254:0 / /\n", "/srv", NULL, 1, mnt, sizeof(mnt), type, sizeof(type)), -1);
	assert_int_equal(limits_kernel_mount_near(mi, "/srv/proj x", NULL, 1, mnt, 4, type, sizeof(type)), -1);
}

/* A mount beneath a grant that shows a protected object under another
 * name: by filesystem and path within it, not by mount point. */
static void limits_fs_path_alias(void **state)
{
	const char *mi =
		"24 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"30 24 254:16 / /home rw,relatime - ext4 /dev/vdb rw\n"
		"65 24 254:16 /u/.local/state/sandbx/sessions /srv/s rw,relatime - ext4 /dev/vdb rw\n"
		"66 24 254:16 / /srv/all\\040homes rw,relatime - ext4 /dev/vdb rw\n"
		"67 66 0:41 / /srv/all\\040homes/t rw,relatime - tmpfs tmpfs rw\n";
	char dev[32], fs[2 * LIMITS_MAX_PATH];
	(void)state;

	/* a bind mount of a part of the store: the grant is that part */
	assert_int_equal(limits_fs_path(mi, "/srv/s/x.jsonl", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(dev, "254:16");
	assert_string_equal(fs, "/u/.local/state/sandbx/sessions/x.jsonl");
	assert_int_equal(limits_fs_path(mi, "/srv/s", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(fs, "/u/.local/state/sandbx/sessions");
	/* the store by its own name, and home's filesystem under another */
	assert_int_equal(limits_fs_path(mi, "/home/u/.local/state/sandbx", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(dev, "254:16");
	assert_string_equal(fs, "/u/.local/state/sandbx");
	assert_int_equal(limits_fs_path(mi, "/srv/all homes/u", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(fs, "/u");
	assert_int_equal(limits_fs_path(mi, "/srv/all homes", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(fs, "/");
	/* the longest mount point wins; the root filesystem's own paths */
	assert_int_equal(limits_fs_path(mi, "/srv/all homes/t/a", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(dev, "0:41");
	assert_string_equal(fs, "/a");
	assert_int_equal(limits_fs_path(mi, "/srv/sx", dev, sizeof(dev), fs, sizeof(fs)), 0);
	assert_string_equal(dev, "254:0");
	assert_string_equal(fs, "/srv/sx");
	/* no mount holds a relative path; an unreadable line fails */
	assert_int_equal(limits_fs_path(mi, "rel", dev, sizeof(dev), fs, sizeof(fs)), -1);
	assert_int_equal(limits_fs_path("garbage\n", "/x", dev, sizeof(dev), fs, sizeof(fs)), -1);
}

static void limits_mount_shows_alias(void **state)
{
	const char *mi =
		"24 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"30 24 254:16 / /home rw,relatime - ext4 /dev/vdb rw\n"
		"62 24 0:41 / /srv/proj rw,relatime - tmpfs tmpfs rw\n"
		"64 62 254:0 /opt/sbx /srv/proj/b rw,relatime - ext4 /dev/vda rw\n"
		"65 62 254:16 /u/.local/state/sandbx/sessions /srv/proj/s rw,relatime - ext4 /dev/vdb rw\n"
		"66 62 254:16 / /srv/proj/all\\040homes rw,relatime - ext4 /dev/vdb rw\n"
		"67 24 254:0 /srv/other /mnt/o rw,relatime - ext4 /dev/vda rw\n";
	char mnt[LIMITS_MAX_PATH];
	(void)state;

	/* the program's directory, bound inside the grant */
	assert_int_equal(limits_mount_shows(mi, "/srv/proj", "/opt/sbx/sandbx", 0, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/proj/b");
	assert_int_equal(limits_mount_shows(mi, "/srv/proj", "/opt/sbx", 0, mnt, sizeof(mnt)), 1);
	assert_int_equal(limits_mount_shows(mi, "/srv/proj", "/opt/other/sandbx", 0, mnt, sizeof(mnt)), 0);
	/* a part of the store: only when asked for either direction */
	assert_int_equal(limits_mount_shows(mi, "/srv/proj", "/home/u/.local/state/sandbx", 0, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/proj/all homes");	/* all of /home holds it */
	assert_int_equal(limits_mount_shows(mi, "/srv/proj/s", "/home/u/.local/state/sandbx", 1, mnt, sizeof(mnt)), 0);
	assert_int_equal(limits_mount_shows(mi, "/srv", "/home/u/.local/state/sandbx", 1, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/proj/s");
	/* home, held by a mount of its whole filesystem */
	assert_int_equal(limits_mount_shows(mi, "/srv/proj", "/home/u", 0, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/proj/all homes");
	/* the mount a grant lies in is not beneath it; nothing under /mnt */
	assert_int_equal(limits_mount_shows(mi, "/mnt", "/srv/other/x", 0, mnt, sizeof(mnt)), 1);
	assert_int_equal(limits_mount_shows(mi, "/mnt/o", "/srv/other/x", 0, mnt, sizeof(mnt)), 0);
	assert_int_equal(limits_mount_shows(mi, "/usr", "/opt/sbx/sandbx", 0, mnt, sizeof(mnt)), 0);
	/* the cheap test first: any mount beneath at all */
	assert_int_equal(limits_mount_beneath(mi, "/srv"), 1);
	assert_int_equal(limits_mount_beneath(mi, "/srv/proj/b"), 0);
	assert_int_equal(limits_mount_beneath(mi, "/usr"), 0);
	assert_int_equal(limits_mount_beneath("24 1 254:0 / /\n", "/srv"), -1);
	/* a line it cannot read: it cannot tell */
	assert_int_equal(limits_mount_shows("24 1 254:0 / /\n", "/srv", "/opt/sbx", 0, mnt, sizeof(mnt)), -1);
	assert_int_equal(limits_mount_shows("", "/srv", "/opt/sbx", 0, mnt, sizeof(mnt)), -1);
}

static void limits_dev_mounts(void **state)
{
	const char *mi =
		"24 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"62 24 0:41 / /srv/data rw,relatime - tmpfs tmpfs rw\n"
		"64 62 254:0 /home/u/bin /srv/data/in\\040side rw,relatime - ext4 /dev/vda rw\n";
	char mnt[LIMITS_MAX_PATH];
	(void)state;

	/* a mount of that filesystem beneath the path, its name decoded */
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data", 254, 0, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/data/in side");
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data/in side", 254, 0, mnt, sizeof(mnt)), 1);
	/* the one it lies in is not beneath it; another filesystem; a sibling */
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data/in side/x", 254, 0, mnt, sizeof(mnt)), 0);
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data", 0, 41, mnt, sizeof(mnt)), 1);
	assert_string_equal(mnt, "/srv/data");
	assert_int_equal(limits_dev_mount_under(mi, "/srv/dat", 254, 0, mnt, sizeof(mnt)), 0);
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data", 254, 1, mnt, sizeof(mnt)), 0);
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data", 25, 40, mnt, sizeof(mnt)), 0);
	/* a line it cannot read, or a name too long for mnt: it cannot tell */
	assert_int_equal(limits_dev_mount_under("24 1 254:0 / /\n", "/srv", 254, 0, mnt, sizeof(mnt)), -1);
	assert_int_equal(limits_dev_mount_under(mi, "/srv/data", 254, 0, mnt, 4), -1);
}

static void limits_cgroup_dirs(void **state)
{
	char out[LIMITS_MAX_PATH];
	assert_int_equal(limits_cgroup_dir("/sys/fs/cgroup", "/", "/", out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup");
	assert_int_equal(limits_cgroup_dir("/sys/fs/cgroup", "/", "/a/b", out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/a/b");
	assert_int_equal(limits_cgroup_dir("/m", "/ns", "/ns/a", out, sizeof(out)), 0);
	assert_string_equal(out, "/m/a");
	assert_int_equal(limits_cgroup_dir("/m", "/ns", "/ns", out, sizeof(out)), 0);
	assert_string_equal(out, "/m");
	assert_int_equal(limits_cgroup_dir("/m", "/ns", "/nsx/a", out, sizeof(out)), -1);
	assert_int_equal(limits_cgroup_dir("/m", "/", "/a/../../etc", out, sizeof(out)), -1);
	assert_int_equal(limits_cgroup_dir("/m", "/", "/a/..", out, sizeof(out)), -1);
	assert_int_equal(limits_cgroup_dir("/m", "/", "/abc", out, 4), -1);

	assert_true(limits_has_word("cpuset cpu io memory pids\n", "pids"));
	assert_true(limits_has_word("memory pids", "memory"));
	assert_false(limits_has_word("hugetlb\n", "pids"));
	assert_false(limits_has_word("", "pids"));
	assert_false(limits_has_word("pidsx memoryy", "pids"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limits_format_units),
		cmocka_unit_test(limits_hit_messages),
		cmocka_unit_test(limits_ucounts_pure),
		cmocka_unit_test(limits_defaults_by_caller),
		cmocka_unit_test(limits_flags_over_defaults),
		cmocka_unit_test(limits_rlimit_plan),
		cmocka_unit_test(limits_proc_cgroup_parse),
		cmocka_unit_test(limits_mountinfo_parse),
		cmocka_unit_test(limits_kernel_mounts),
		cmocka_unit_test(limits_dev_mounts),
		cmocka_unit_test(limits_mount_shows_alias),
		cmocka_unit_test(limits_fs_path_alias),
		cmocka_unit_test(limits_cgroup_dirs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
