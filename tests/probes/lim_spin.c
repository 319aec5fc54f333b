/*
 * lim_spin [ignore|tick] — burn CPU until killed.  With "ignore", SIGXCPU
 * is ignored, so only the hard CPU limit (SIGKILL) stops it.
 *
 * With "tick", run only across the scheduler's ticks: the kernel charges
 * CPU time by tick (without VIRT_CPU_ACCOUNTING), a whole tick to the
 * process running when it strikes, and holds RLIMIT_CPU against that
 * charge; the probe sleeps through most of each tick period, so it is
 * charged about four times the time it runs.  It prints "tick=N" (the
 * charge of one tick, microseconds) once measured, or "tick=0" when the
 * kernel charges exact time (the charge moved by less than 1 ms), and
 * then spins as plain lim_spin does.
 */
#include <signal.h>
#include <time.h>

#include "probe.h"

/* The calling process's tick-charged clock (PROF; see util/compat.h). */
static long long prof_ns(void)
{
	struct timespec ts;
	clock_gettime((clockid_t)(~0u << 3), &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin until the charge moves; its new value. */
static long long next_charge(long long last)
{
	long long now;
	while ((now = prof_ns()) == last)
		;
	return now;
}

static void on_ticks(void)
{
	long long last = next_charge(prof_ns());
	long long now = next_charge(last);
	long long tick = now - last;

	printf("tick=%lld\n", tick >= 1000000 ? tick / 1000 : 0);
	fflush(stdout);
	if (tick < 1000000)
		return;
	for (;;) {
		/* Just charged: sleep three quarters of a period, wake
		 * before the next tick, spin until it charges this one. */
		struct timespec nap = { 0, (long)(tick * 3 / 4) };
		nanosleep(&nap, NULL);
		now = next_charge(now);
	}
}

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;

	if (argc > 1 && strcmp(argv[1], "ignore") == 0)
		signal(SIGXCPU, SIG_IGN);
	if (argc > 1 && strcmp(argv[1], "tick") == 0)
		on_ticks();
	for (;;)
		x++;
}
