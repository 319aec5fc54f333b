/*
 * fuzz_filtcache.c — libFuzzer target for the reader of a kept seccomp
 * program (sandbox/filtcache.h).
 *
 * The first input byte picks what the rest is:
 *   even: the whole file, written as it stands (the framing: key end,
 *         count, length, checksum, the library line);
 *   odd:  a program of the rest's instructions, kept by filtcache_store,
 *         which must load back the same, and then the file cut at a point
 *         the input names, or one of its bytes changed, which must not
 *         load.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sandbox/filtcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char top[32], home[64], lib[96], file[192];
static struct policy pol;

static void remove_top(void)
{
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	(void)!system(cmd);
}

static void init_once(void)
{
	if (home[0])
		return;
	char dir[] = "/tmp/sbxfuzzfc.XXXXXX";
	if (!mkdtemp(dir))
		abort();
	snprintf(top, sizeof(top), "%s", dir);
	atexit(remove_top);
	snprintf(home, sizeof(home), "%s/state", dir);
	snprintf(lib, sizeof(lib), "%s/libseccomp.so.2", dir);
	if (mkdir(home, 0700) < 0)
		abort();
	FILE *f = fopen(lib, "w");
	if (!f)
		abort();
	fputs("lib", f);
	fclose(f);
	policy_init(&pol);
	char name[64];
	filtcache_name(&pol, name, sizeof(name));
	snprintf(file, sizeof(file), "%s/sandbx/filters/%s", home, name);
	struct seccomp_bpf one = { .len = 1 };
	if (filtcache_store(home, &pol, lib, &one) < 0)	/* makes the directories */
		abort();
}

static void put(const void *buf, size_t n)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (n && write(fd, buf, n) != (ssize_t)n))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seccomp_bpf in, out;
	init_once();
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	if (!(mode & 1)) {
		put(data, size);
		(void)filtcache_load(home, &pol, &out);
		return 0;
	}
	size_t n = size / sizeof(struct sock_filter);
	if (n == 0 || n > SECCOMP_BPF_MAX_INSNS)
		return 0;
	memcpy(in.insns, data, n * sizeof(struct sock_filter));
	in.len = (unsigned short)n;
	if (filtcache_store(home, &pol, lib, &in) < 0)
		abort();
	if (filtcache_load(home, &pol, &out) < 0 || out.len != in.len ||
	    memcmp(out.insns, in.insns, n * sizeof(struct sock_filter)) != 0)
		abort();	/* kept whole, it loads back the same */

	/* damaged: it must not load */
	static char buf[65536];
	FILE *f = fopen(file, "rb");
	if (!f)
		abort();
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	size_t at = ((size_t)mode >> 1) * 257 % len;
	if (mode & 2) {
		put(buf, at);	/* cut short */
	} else {
		buf[at] ^= (char)(0x80 | (mode >> 2));
		put(buf, len);
	}
	if (filtcache_load(home, &pol, &out) == 0)
		abort();
	return 0;
}
