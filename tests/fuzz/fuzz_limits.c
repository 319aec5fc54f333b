/*
 * fuzz_limits.c — the cgroup file parsers of the resource limits
 * (limits.c): /proc/self/cgroup lines, mountinfo lines and the cgroup
 * directory join, on arbitrary text.  Every output must fit its buffer
 * and be NUL-terminated.  The mountinfo searches the view builds on
 * (kernel, device and bind mounts at or beneath a grant, here /srv) must
 * answer -1, 0 or 1, and a mount point they name must lie where they say.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* m is /srv or beneath it (strictly: not /srv itself). */
static int under_srv(const char *m, int strictly)
{
	return strncmp(m, "/srv", 4) == 0 && (m[4] == '/' || (!strictly && m[4] == '\0'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), a[256], b[256], c[256];
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (limits_cgroup_of(text, NULL, a, sizeof(a)) == 0 && strlen(a) >= sizeof(a))
		abort();
	if (limits_cgroup_of(text, "pids", a, sizeof(a)) == 0 &&
	    limits_find_mount(text, "pids", b, sizeof(b), c, sizeof(c)) == 0) {
		char d[256];
		if (limits_cgroup_dir(b, c, a, d, sizeof(d)) == 0 && strlen(d) >= sizeof(d))
			abort();
	}
	if (limits_find_mount(text, NULL, b, sizeof(b), c, sizeof(c)) == 0 && (strlen(b) >= sizeof(b) || strlen(c) >= sizeof(c)))
		abort();
	int k = limits_kernel_mount_near(text, "/srv", NULL, 1, b, sizeof(b), c, sizeof(c));
	if (k < -1 || k > 1 || (k == 1 && (strlen(b) >= sizeof(b) || strlen(c) >= sizeof(c))))
		abort();
	int r = limits_mount_beneath(text, "/srv");
	if (r < -1 || r > 1)
		abort();
	r = limits_dev_mount_under(text, "/srv", 8, 1, b, sizeof(b));
	if (r < -1 || r > 1 || (r == 1 && (strlen(b) >= sizeof(b) || !under_srv(b, 0))))
		abort();
	for (int either = 0; either < 2; either++) {
		r = limits_mount_shows(text, "/srv", "/usr/bin/sandbx", either, b, sizeof(b));
		if (r < -1 || r > 1 || (r == 1 && (strlen(b) >= sizeof(b) || !under_srv(b, 1))))
			abort();
	}
	(void)limits_has_word(text, "memory");
	free(text);
	return 0;
}
