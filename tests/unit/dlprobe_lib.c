/*
 * dlprobe_lib.c — a shared object for test_dl: its constructor records
 * what SBX_DL_PROBE held while the object loaded.  Built three times
 * under different names, one per case, since a constructor runs once.
 */
#include <stdlib.h>
#include <string.h>

char dlprobe_seen[16] = "";
int dlprobe_ran;

__attribute__((constructor)) static void probe_init(void)
{
	const char *v = getenv("SBX_DL_PROBE");
	if (v)
		strncpy(dlprobe_seen, v, sizeof(dlprobe_seen) - 1);
	else
		strcpy(dlprobe_seen, "(unset)");
	dlprobe_ran = 1;
}
