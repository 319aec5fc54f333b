/* PROVISIONAL: rlimits only; cgroups land with the resource-limit issue (5). */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sandbox/auditch.h"
#include "sandbox/limits.h"

int limits_prepare(struct policy *p, int audit_fd) { return 0; }
void limits_attach(struct policy *p, pid_t init, int audit_fd) { }
void limits_finish(struct policy *p, int audit_fd) { }

void limits_apply_rlimits(const struct policy *p, int audit_fd)
{
	static const int res[LIM__COUNT] = { RLIMIT_NPROC, RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE };
	for (int k = 0; k < LIM__COUNT; k++) {
		if (!p->limits[k])
			continue;
		struct rlimit rl = { p->limits[k], p->limits[k] };
		if (setrlimit(res[k], &rl) < 0) {
			auditch_send(audit_fd, ACH_REF_LIMIT, k);
			_exit(125);
		}
	}
}

void limits_report_kill(const struct policy *p, int sig, int audit_fd)
{
	if ((sig == SIGXCPU && p->limits[LIM_CPU]) || (sig == SIGXFSZ && p->limits[LIM_FSIZE]))
		auditch_send(audit_fd, ACH_LIMIT_HIT, sig == SIGXCPU ? LIM_CPU : LIM_FSIZE);
}
