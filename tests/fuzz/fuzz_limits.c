/*
 * fuzz_limits.c — the cgroup file parsers of the resource limits
 * (limits.c): /proc/self/cgroup lines, mountinfo lines and the cgroup
 * directory join, on arbitrary text.  Every output must fit its buffer
 * and be NUL-terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	int k = limits_kernel_mount_near(text, "/srv", NULL, b, sizeof(b), c, sizeof(c));
	if (k < -1 || k > 1 || (k == 1 && (strlen(b) >= sizeof(b) || strlen(c) >= sizeof(c))))
		abort();
	(void)limits_has_word(text, "memory");
	free(text);
	return 0;
}
