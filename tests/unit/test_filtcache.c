/*
 * test_filtcache.c — the compiled seccomp program kept between runs: used
 * only under the key this process would write, from a file of its own, whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "sandbox/filtcache.h"
#include "util/util.h"

struct fx {
	char home[64];		/* the XDG state base */
	char lib[96];		/* stands for the libseccomp file */
	char file[160];		/* home/sandbx/filters/NAME */
	struct policy p;
	struct seccomp_bpf bpf;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char dir[] = "/tmp/sbxfc.XXXXXX";
	assert_non_null(mkdtemp(dir));
	snprintf(f->home, sizeof(f->home), "%s/state", dir);
	assert_int_equal(mkdir(f->home, 0700), 0);
	snprintf(f->lib, sizeof(f->lib), "%s/libseccomp.so.2", dir);
	int fd = open(f->lib, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "lib", 3), 3);
	close(fd);
	policy_init(&f->p);
	char name[64];
	filtcache_name(&f->p, name, sizeof(name));
	snprintf(f->file, sizeof(f->file), "%s/sandbx/filters/%s", f->home, name);
	f->bpf.len = 40;
	for (int i = 0; i < f->bpf.len; i++)
		f->bpf.insns[i] = (struct sock_filter){ (unsigned short)i, 1, 2, 0x7fff0000u + (unsigned)i };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", (int)(strrchr(f->home, '/') - f->home), f->home);
	assert_int_equal(system(cmd), 0);
	policy_release(&f->p);
	free(f);
	return 0;
}

static uint64_t fnv(const unsigned char *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	size_t n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

/* Replace the file's bytes with buf (n of them), in place: same inode,
 * mode and owner. */
static void spill(const char *path, const unsigned char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

static void reseal(unsigned char *buf, size_t n)
{
	uint64_t h = fnv(buf, n - 8);
	memcpy(buf + n - 8, &h, 8);
}

static int load_same(struct fx *f)
{
	struct seccomp_bpf got;
	memset(&got, 0, sizeof(got));
	if (filtcache_load(f->home, &f->p, &got) < 0)
		return 0;
	return got.len == f->bpf.len && memcmp(got.insns, f->bpf.insns, f->bpf.len * sizeof(got.insns[0])) == 0;
}

static void test_filtcache_round_trip(void **state)
{
	struct fx *f = *state;
	struct seccomp_bpf got;
	assert_int_equal(filtcache_load(f->home, &f->p, &got), -1);	/* none yet */
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	assert_true(load_same(f));
	struct stat st;
	assert_int_equal(stat(f->file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	char dir[160];
	snprintf(dir, sizeof(dir), "%s/sandbx/filters", f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

static void test_filtcache_variant_apart(void **state)
{
	struct fx *f = *state;
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	struct seccomp_bpf got;
	f->p.net = POL_NET_PORTS;
	assert_int_equal(filtcache_load(f->home, &f->p, &got), -1);
	f->p.net = POL_NET_NONE;
	f->p.allow_unix = 1;
	assert_int_equal(filtcache_load(f->home, &f->p, &got), -1);
	f->p.allow_unix = 0;
	assert_true(load_same(f));
}

static void test_filtcache_damage_refused(void **state)
{
	struct fx *f = *state;
	unsigned char good[65536], buf[65536];
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	size_t n = slurp(f->file, good, sizeof(good));
	assert_true(n > 100);

	memcpy(buf, good, n);
	buf[n - 30] ^= 0x01;	/* an instruction's byte */
	spill(f->file, buf, n);
	assert_false(load_same(f));

	spill(f->file, good, n - 1);	/* truncated */
	assert_false(load_same(f));
	spill(f->file, good, 0);	/* empty */
	assert_false(load_same(f));

	spill(f->file, good, n);	/* whole again */
	assert_true(load_same(f));
}

static void test_filtcache_stale_key_refused(void **state)
{
	struct fx *f = *state;
	unsigned char good[65536], buf[65536];
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	size_t n = slurp(f->file, good, sizeof(good));

	/* A key line edited and the checksum made whole again: the key this
	 * process would write differs, byte for byte. */
	memcpy(buf, good, n);
	char *v = memmem(buf, n, "newest=", 7);
	assert_non_null(v);
	v[7] = v[7] == '1' ? '2' : '1';
	reseal(buf, n);
	spill(f->file, buf, n);
	assert_false(load_same(f));

	/* The library replaced (a package update): size and times differ. */
	spill(f->file, good, n);
	assert_true(load_same(f));
	int fd = open(f->lib, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2", 1), 1);
	close(fd);
	assert_false(load_same(f));
	/* compiled again by the new one and kept: used */
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	assert_true(load_same(f));
}

static void test_filtcache_file_checks(void **state)
{
	struct fx *f = *state;
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);

	/* open to others */
	assert_int_equal(chmod(f->file, 0640), 0);
	assert_false(load_same(f));
	assert_int_equal(chmod(f->file, 0600), 0);
	assert_true(load_same(f));

	/* a second link */
	char other[200];
	snprintf(other, sizeof(other), "%s.link", f->file);
	assert_int_equal(link(f->file, other), 0);
	assert_false(load_same(f));
	assert_int_equal(unlink(other), 0);
	assert_true(load_same(f));

	/* a symlink in its place */
	snprintf(other, sizeof(other), "%s.real", f->file);
	assert_int_equal(rename(f->file, other), 0);
	assert_int_equal(symlink(other, f->file), 0);
	assert_false(load_same(f));
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(rename(other, f->file), 0);
	assert_true(load_same(f));

	/* a directory others may write to */
	char dir[160];
	snprintf(dir, sizeof(dir), "%s/sandbx/filters", f->home);
	assert_int_equal(chmod(dir, 0770), 0);
	assert_false(load_same(f));
	assert_int_equal(chmod(dir, 0700), 0);
	assert_true(load_same(f));
}

static void test_filtcache_store_refusals(void **state)
{
	struct fx *f = *state;
	struct stat st;
	/* a library path its key line cannot hold */
	assert_int_equal(filtcache_store(f->home, &f->p, "/no such/lib.so", &f->bpf), -1);
	assert_int_equal(filtcache_store(f->home, &f->p, NULL, &f->bpf), -1);
	assert_int_equal(filtcache_store(f->home, &f->p, "relative.so", &f->bpf), -1);
	assert_int_not_equal(stat(f->file, &st), 0);
	/* no state base */
	assert_int_equal(filtcache_store(NULL, &f->p, f->lib, &f->bpf), -1);
	struct seccomp_bpf got;
	assert_int_equal(filtcache_load(NULL, &f->p, &got), -1);
	/* an empty program */
	struct seccomp_bpf none = { .len = 0 };
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &none), -1);
}

static void test_filtcache_base_made_in_own_dir(void **state)
{
	struct fx *f = *state;
	char home[160];
	/* XDG_STATE_HOME names a directory not there yet, in one of ours */
	snprintf(home, sizeof(home), "%s/new", f->home);
	assert_int_equal(filtcache_store(home, &f->p, f->lib, &f->bpf), 0);
	struct seccomp_bpf got;
	assert_int_equal(filtcache_load(home, &f->p, &got), 0);
	assert_int_equal(got.len, f->bpf.len);
	/* two levels missing (a new account's ~/.local/state): both made,
	 * 0700 */
	snprintf(home, sizeof(home), "%s/a/b", f->home);
	assert_int_equal(filtcache_store(home, &f->p, f->lib, &f->bpf), 0);
	assert_int_equal(filtcache_load(home, &f->p, &got), 0);
	struct stat st;
	char a[96];
	snprintf(a, sizeof(a), "%s/a", f->home);
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(home, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* missing below a directory of ours that others may write: nothing
	 * made (another user could put a link in the way of the new ones) */
	char open_dir[112], open_sub[128];
	snprintf(open_dir, sizeof(open_dir), "%s/shared", f->home);
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(home, sizeof(home), "%s/a/b", open_dir);
	assert_int_equal(filtcache_store(home, &f->p, f->lib, &f->bpf), -1);
	snprintf(open_sub, sizeof(open_sub), "%s/a", open_dir);
	assert_int_not_equal(stat(open_sub, &st), 0);
	/* missing below a directory of another uid's: nothing made (root
	 * run with a user's HOME makes nothing of root's there).  As root,
	 * one given to nobody; as a user, /tmp (root's). */
	char theirs[112];
	if (geteuid() == 0) {
		snprintf(theirs, sizeof(theirs), "%s/theirs", f->home);
		assert_int_equal(mkdir(theirs, 0755), 0);
		assert_int_equal(chown(theirs, 65534, 65534), 0);
	} else {
		assert_int_equal(stat("/tmp", &st), 0);
		assert_int_not_equal(st.st_uid, geteuid());
		snprintf(theirs, sizeof(theirs), "/tmp");
	}
	char absent[160], deeper[170];
	snprintf(absent, sizeof(absent), "%s/sbxfc-absent-%ld", theirs, (long)getpid());
	snprintf(deeper, sizeof(deeper), "%s/b", absent);
	assert_int_equal(filtcache_store(deeper, &f->p, f->lib, &f->bpf), -1);
	assert_int_not_equal(stat(absent, &st), 0);
}

static void test_filtcache_killed_store_swept(void **state)
{
	struct fx *f = *state;
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	char old[200], young[200], other[200];
	snprintf(old, sizeof(old), "%s/sandbx/filters/.seccomp-net0-unix0.ab12cd34", f->home);
	snprintf(young, sizeof(young), "%s/sandbx/filters/.seccomp-net2-unix1.zz99yy88", f->home);
	snprintf(other, sizeof(other), "%s/sandbx/filters/.notes.ab12cd34", f->home);
	const char *all[] = { old, young, other };
	for (int i = 0; i < 3; i++) {
		int fd = open(all[i], O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
	struct timespec t[2] = { { time(NULL) - FILTCACHE_TEMP_AGE - 60, 0 }, { time(NULL) - FILTCACHE_TEMP_AGE - 60, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, old, t, 0), 0);
	assert_int_equal(utimensat(AT_FDCWD, other, t, 0), 0);
	f->p.net = POL_NET_PORTS;	/* a miss: another variant stored */
	assert_int_equal(filtcache_store(f->home, &f->p, f->lib, &f->bpf), 0);
	struct stat st;
	assert_int_not_equal(stat(old, &st), 0);	/* a killed store's, old: gone */
	assert_int_equal(stat(young, &st), 0);		/* maybe another's, at work */
	assert_int_equal(stat(other, &st), 0);		/* not one of ours */
	f->p.net = POL_NET_NONE;
	assert_true(load_same(f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filtcache_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_variant_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_damage_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_stale_key_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_file_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_store_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_base_made_in_own_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtcache_killed_store_swept, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
