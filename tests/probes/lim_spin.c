/*
 * lim_spin [ignore] — burn CPU until killed.  With "ignore", SIGXCPU is
 * ignored, so only the hard CPU limit (SIGKILL) stops it.
 */
#include <signal.h>

#include "probe.h"

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;

	if (argc > 1 && strcmp(argv[1], "ignore") == 0)
		signal(SIGXCPU, SIG_IGN);
	for (;;)
		x++;
}
