/*
 * cli_sandbox_run.c — `sandbx sandbox-run`: build the policy, vet the pin,
 * start the helper, relay the outcome as an exit code (CLI.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <linux/kcmp.h>

#include "cli/cli.h"
#include "cli/cli_ldpath.h"
#include "sandbox/helper.h"
#include "sandbox/limits.h"
#include "sandbox/relay.h"
#include "store/xdg.h"
#include "util/log.h"
#include "util/sha256.h"

/*
 * Open and check the pinned program: a regular file, not a script, inside a
 * grant with read and execute, whose SHA-256 is the pin.  The descriptor
 * returned is the one the command stage executes (execveat), so nothing is
 * resolved again between this check and the exec.
 */
static int open_pinned(const struct cli_opts *o, const struct policy *p, int *held, char **err)
{
	const char *prog = o->rest[0];
	char hex[SHA256_HEX_LEN + 1], head[2];
	struct stat st;
	int lease_err;
	/* O_NONBLOCK: a FIFO planted where the program was (an earlier run's
	 * write grant) would block the open for ever; it is refused below. */
	int fd = open(prog, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		*err = xasprintf("cannot open pinned program '%s': %s", prog, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("pinned program '%s' is not a regular file — pin the program itself", prog);
		goto fail;
	}
	fcntl(fd, F_SETFL, 0);	/* the descriptor the helper executes: as a plain open's */
	char *real = realpath(prog, NULL);
	const struct policy_grant *in = NULL;
	for (size_t i = 0; real && i < p->ngrants; i++) {
		const struct policy_grant *g = &p->grants[i];
		if (!g->link && path_within(real, g->path) && (!in || strlen(g->path) > strlen(in->path)))
			in = g;
	}
	free(real);
	if (!in || !(in->access & POL_EXEC)) {
		*err = xasprintf("pinned program '%s' is not under a path granted execute — add --allow-exec", prog);
		goto fail;
	}
	if (!(in->access & POL_READ)) {
		*err = xasprintf("pinned program '%s' is granted execute but not read — a pin needs both", prog);
		goto fail;
	}
	/*
	 * The pin is of the bytes, and the helper checks only that the inode
	 * it executes is this one: a process of the caller's writing in place
	 * between the hash and the exec (another run with write on the tree)
	 * had its bytes run under the pin.  A read lease holds them still: it
	 * cannot be taken while the file is open for writing anywhere, and an
	 * open for writing made while it is held waits for its release, which
	 * the init gives once the exec is done.  That open has write access
	 * meanwhile, so an exec during it fails (ETXTBSY) rather than run a
	 * file being written, and the exec, once done, refuses writers in turn.
	 * No signal on a break: the opener simply waits.  Where no lease can
	 * be had (a file of another owner's, a filesystem without leases),
	 * only a file the caller cannot write is run.
	 */
	/* The kernel makes the taker the lease's owner, to be sent SIGIO
	 * (whose default is to end it) on a break, until F_SETOWN 0: a
	 * writer's open in between would have ended sandbx.  Held blocked
	 * there, and taken away if it came. */
	sigset_t io, was;
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	sigprocmask(SIG_BLOCK, &io, &was);
	int leased = fcntl(fd, F_SETLEASE, F_RDLCK) == 0;
	*held = leased;
	lease_err = errno;
	int owner_err = leased && fcntl(fd, F_SETOWN, 0) < 0 ? errno : 0;
	if (!sigismember(&was, SIGIO)) {
		const struct timespec none = { 0, 0 };
		while (sigtimedwait(&io, NULL, &none) == SIGIO)
			;
		sigprocmask(SIG_SETMASK, &was, NULL);
	}
	if (leased) {
		if (owner_err) {
			*err = xasprintf("pinned program '%s' cannot be held against writes during the run: %s",
					 prog, strerror(owner_err));
			goto fail;
		}
	} else if (lease_err == EAGAIN) {
		*err = xasprintf("pinned program '%s' is open for writing by another process — "
				 "run it once that process has closed it", prog);
		goto fail;
	} else if (faccessat(fd, "", W_OK, AT_EMPTY_PATH | AT_EACCESS) == 0) {
		*err = xasprintf("pinned program '%s' cannot be held against writes during the run (%s), and you may "
				 "write it — pin a copy you own on a filesystem with leases, or one you cannot write",
				 prog, strerror(lease_err));
		goto fail;
	}
	if (pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!') {
		*err = xasprintf("pinned program '%s' is a '#!' script: its interpreter would run unpinned — "
				 "pin the interpreter and pass the script as an argument", prog);
		goto fail;
	}
	if (sha256_fd_hex(fd, hex, err) < 0)
		goto fail;
	if (strcmp(hex, o->pin_hex) != 0) {
		*err = xasprintf("pinned program '%s' does not match: expected sha256 %s, found %s — nothing was run",
				 prog, o->pin_hex, hex);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * The command inherits the harness's descriptors 0-2: the user's terminal,
 * or the files the user redirected.  Their open file descriptions and
 * inodes are shared with the user's shell, so a change the command makes
 * outlives it: O_NONBLOCK left on a terminal (the shell's next read gets
 * EAGAIN), echo or canonical mode turned off, the redirected file's mode
 * changed.  Take them as they were before the run and put them back after.
 * (The set-id bits cannot be set at all: the syscall filter refuses them.
 * Nor can the terminal's window size, exclusive mode, line discipline or
 * output flow: seccomp.c, denied_ioctls.)
 *
 * A terminal's settings belong to the terminal, not to a descriptor, so
 * they are taken once per terminal (by device), however many of 0-2 it is.
 */
struct stdio_snap {
	int have[3];
	int flags[3];
	/* The open file description's SIGIO owner and signal (F_SETOWN,
	 * F_SETSIG), shared with the caller's shell like the flags: left by
	 * the command, a later program of the caller's that turns O_ASYNC on
	 * there gets the command's signal (SIGKILL) at the next line typed. */
	int own_ok[3];
	struct f_owner_ex own[3];
	int sig[3];
	/* Whether the description held a lock (flock, or an OFD lock) before
	 * the run: 1, 0, or -1 when /proc cannot tell.  Those locks belong to
	 * the description too, not to the process that took them, so one the
	 * command takes stays while the caller keeps the description open
	 * (a script's exec >>log, a login shell's terminal).  -1 too for a
	 * descriptor sharing an earlier one's description: looked at there. */
	int locked[3];
	struct stat st[3];
	int nterm;
	int term_fd[3];
	struct termios tio[3];
};

/* 1 when the open file description of fd holds a flock or OFD lock
 * (the "lock:" lines /proc/self/fdinfo/FD shows for it, whoever took
 * it), 0 when it holds none, -1 when that cannot be read. */
static int fd_locked(int fd)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	ssize_t n = read_small_at(AT_FDCWD, path, 0, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, "\nlock:") != NULL;
}

/* Whether descriptor fd shares an earlier one's open file description
 * (a terminal's 0-2 usually are one description, dup'd by the shell):
 * its locks are then looked at once, through the first.  Where kcmp is
 * not built into the kernel, each is looked at. */
static int stdio_dup(const struct stdio_snap *z, int fd)
{
	pid_t me = getpid();
	for (int j = 0; j < fd; j++)
		if (z->have[j] && z->st[j].st_dev == z->st[fd].st_dev && z->st[j].st_ino == z->st[fd].st_ino &&
		    syscall(SYS_kcmp, me, me, KCMP_FILE, j, fd) == 0)
			return 1;
	return 0;
}

static void stdio_take(struct stdio_snap *z)
{
	memset(z, 0, sizeof(*z));
	for (int fd = 0; fd < 3; fd++) {
		if ((z->flags[fd] = fcntl(fd, F_GETFL)) < 0 || fstat(fd, &z->st[fd]) < 0)
			continue;
		z->have[fd] = 1;
		z->own_ok[fd] = fcntl(fd, F_GETOWN_EX, &z->own[fd]) == 0 && (z->sig[fd] = fcntl(fd, F_GETSIG)) >= 0;
		/* A pipe or a socket is relayed (relay.h), and /dev/null,
		 * /dev/zero, /dev/full, /dev/random and /dev/urandom (1:3, 1:5,
		 * 1:7, 1:8, 1:9) reach the command as the view's own nodes
		 * (helper.c, stdio_view_devices): the command never holds the
		 * caller's description, and no /proc read is spent (six a run
		 * on /dev/null, some 0.25 ms measured; on a terminal, two
		 * rather than six since stdio_dup: 0.20 ms less, the median
		 * of six paired runs of 300 on a pty). */
		z->locked[fd] = (S_ISREG(z->st[fd].st_mode) ||
				 (S_ISCHR(z->st[fd].st_mode) && !helper_view_memdev(z->st[fd].st_rdev))) &&
					!stdio_dup(z, fd)
				? fd_locked(fd) : -1;
		/* Only a character device can be a terminal: a pipe or a
		 * file costs no ioctl here (the bench's stdio is neither). */
		if (!S_ISCHR(z->st[fd].st_mode))
			continue;
		int seen = 0;
		for (int i = 0; i < z->nterm; i++)
			seen |= z->st[z->term_fd[i]].st_rdev == z->st[fd].st_rdev;
		if (!seen && tcgetattr(fd, &z->tio[z->nterm]) == 0)
			z->term_fd[z->nterm++] = fd;
	}
}

/* Field by field: struct termios has padding, which tcgetattr leaves as
 * it found it, so a memcmp could see a change where there is none. */
static int termios_same(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
	       a->c_lflag == b->c_lflag && a->c_line == b->c_line &&
	       memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0 &&
	       cfgetispeed(a) == cfgetispeed(b) && cfgetospeed(a) == cfgetospeed(b);
}

/* ttyname fails once the terminal hung up: a pseudo-terminal is still
 * named by its device numbers, as stdio_dev_tty names it. */
static void term_name(int fd, dev_t rdev, char *buf, size_t n)
{
	if (ttyname_r(fd, buf, n) == 0)
		return;
	if (major(rdev) >= 136 && major(rdev) <= 143)
		snprintf(buf, n, "/dev/pts/%u", (major(rdev) - 136) * 256 + minor(rdev));
	else
		snprintf(buf, n, "on descriptor %d", fd);
}

/*
 * Put a terminal's settings back as they were before the run, if they
 * changed.  TCSANOW: the command is gone, so nothing it wrote is still
 * waiting to be processed under the settings it chose (output processing
 * happens as each write is made); TCSADRAIN would wait for the terminal
 * to take what is queued, which output stopped with ^S never lets happen;
 * TCSAFLUSH would throw away what the user has typed ahead for the shell.
 *
 * Only from the foreground.  sandbx ends in the background of its
 * terminal when its job was stopped (^Z) and put there (bg), then killed
 * or timed out: the sandbox was held meanwhile (helper.c, job control),
 * while the program in the foreground (the shell's line editor, an
 * editor) set the terminal as it needs it, and which change is whose
 * cannot be told; putting the settings of before the run back then would
 * break that program, so only tostop is.  A terminal that is not
 * sandbx's controlling one has no foreground (tcgetpgrp fails) and is
 * put back.
 */
static void term_restore(int fd, dev_t rdev, const struct termios *was)
{
	struct termios now;
	char name[64];
	if (tcgetattr(fd, &now) < 0) {
		int e = errno;
		term_name(fd, rdev, name, sizeof(name));
		sbx_err("cannot read back the settings of terminal %s (%s) — if it is still in use, run "
			"'stty sane' there", name, strerror(e));
		return;
	}
	if (termios_same(&now, was))
		return;
	term_name(fd, rdev, name, sizeof(name));
	pid_t fg = tcgetpgrp(fd);
	struct termios want = *was;
	int background = fg > 0 && fg != getpgrp();
	if (background) {
		/* Except tostop: a program in the foreground has no use for
		 * it, and left set by the command before the stop it stops
		 * the shell's background jobs at their first write, long
		 * after the run. */
		want = now;
		want.c_lflag = (now.c_lflag & ~(tcflag_t)TOSTOP) | (was->c_lflag & TOSTOP);
		int tostop_same = termios_same(&want, &now);
		sbx_err("sandbx ended in the background of terminal %s, whose settings are not those the run "
			"started with: they are left to the program in the foreground%s — if the terminal "
			"misbehaves, run 'stty sane' there", name, tostop_same ? "" : ", but for tostop, put back");
		if (tostop_same)
			return;
	}
	/* A stop (^Z) between the check and the change would have the kernel
	 * stop sandbx with SIGTTOU until fg: ignored, the change is made. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTTOU, &ign, &old);
	const char *why = NULL;
	if (tcsetattr(fd, TCSANOW, &want) < 0)
		why = strerror(errno);
	sigaction(SIGTTOU, &old, NULL);
	/* tcsetattr succeeds when any of the settings could be made: read
	 * them back to know that all were. */
	if (!why && tcgetattr(fd, &now) < 0)
		why = strerror(errno);
	else if (!why && !termios_same(&now, &want))
		why = "the terminal kept some of the command's";
	if (why)
		sbx_err("the command changed the settings of terminal %s and they could not be put back "
			"(%s) — run 'stty sane' there", name, why);
	else if (!background)
		sbx_err("the command changed the settings of terminal %s — put back as they were", name);
}

static void stdio_restore(const struct stdio_snap *z)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st;
		if (!z->have[fd])
			continue;
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && fl != z->flags[fd])
			(void)fcntl(fd, F_SETFL, z->flags[fd]);
		struct f_owner_ex own;
		if (z->own_ok[fd] && fcntl(fd, F_GETOWN_EX, &own) == 0 &&
		    (own.type != z->own[fd].type || own.pid != z->own[fd].pid))
			(void)fcntl(fd, F_SETOWN_EX, &z->own[fd]);
		if (z->own_ok[fd] && fcntl(fd, F_GETSIG) != z->sig[fd])
			(void)fcntl(fd, F_SETSIG, z->sig[fd]);
		/* A lock the command left: released, but only where the caller
		 * held none (which lock is whose cannot be told apart). */
		if (z->locked[fd] == 0 && fd_locked(fd) == 1) {
			struct flock whole = { .l_type = F_UNLCK, .l_whence = SEEK_SET };
			int e = flock(fd, LOCK_UN) < 0 ? errno : 0;
			if (fcntl(fd, F_OFD_SETLK, &whole) < 0 && !e)
				e = errno;
			if (!e && fd_locked(fd) == 0)
				sbx_err("the command left a lock on descriptor %d's file — released", fd);
			else
				sbx_err("the command left a lock on descriptor %d's file and it could not be "
					"released (%s) — it is held until every program holding that descriptor "
					"closes it", fd, e ? strerror(e) : "still listed");
		}
		int same = fstat(fd, &st) == 0 && st.st_dev == z->st[fd].st_dev && st.st_ino == z->st[fd].st_ino;
		/* The group, which the command, as the file's owner, may change
		 * to its own (root's, in the sandbox as outside): a log of
		 * root:adm made root:root keeps adm out after the run.  First,
		 * since a chown clears set-id bits the mode then puts back. */
		if (same && st.st_gid != z->st[fd].st_gid) {
			if (fchown(fd, (uid_t)-1, z->st[fd].st_gid) == 0)
				sbx_err("the command changed the group of descriptor %d's file from %u to %u — put back",
					fd, (unsigned)z->st[fd].st_gid, (unsigned)st.st_gid);
			else
				sbx_err("the command changed the group of descriptor %d's file from %u to %u and it "
					"could not be put back (%s) — check it", fd, (unsigned)z->st[fd].st_gid,
					(unsigned)st.st_gid, strerror(errno));
			same = fstat(fd, &st) == 0;
		}
		if (same && (st.st_mode & 07777) != (z->st[fd].st_mode & 07777)) {
			if (fchmod(fd, z->st[fd].st_mode & 07777) == 0)
				sbx_err("the command changed the mode of descriptor %d's file from %04o to %04o "
					"— put back", fd, (unsigned)(z->st[fd].st_mode & 07777),
					(unsigned)(st.st_mode & 07777));
			else
				sbx_err("the command changed the mode of descriptor %d's file from %04o to %04o "
					"and it could not be put back (%s) — check it", fd,
					(unsigned)(z->st[fd].st_mode & 07777), (unsigned)(st.st_mode & 07777),
					strerror(errno));
		}
	}
	for (int i = 0; i < z->nterm; i++)
		term_restore(z->term_fd[i], z->st[z->term_fd[i]].st_rdev, &z->tio[i]);
}

/*
 * Started in the background of the terminal it gives the command ('&'),
 * sandbx stops as a program reading that terminal would ("Stopped (tty
 * input)") until fg: a read of no bytes runs the terminal's job-control
 * check alone and consumes nothing.  The command itself is out of reach
 * of that check (its own session, helper.c), so the init holds it while
 * the caller is in the background anyway; this shows the job as stopped
 * rather than waiting unseen.  Where the check answers EIO instead, no fg
 * can come (the process group is orphaned, SIGTTIN is ignored, or the
 * terminal hung up): the init would hold the command for good, or, let
 * go, it would read the keys typed for another program.  Refused.
 */
static int stdio_foreground(char **err)
{
	int fd = helper_stdio_tty_eio();	/* stops here while in the background */
	if (fd < 0)
		return 0;
	*err = xasprintf("descriptor %d is a terminal sandbx is in the background of with no way back to the "
			 "foreground (its process group is orphaned or ignores SIGTTIN, or the terminal hung up) — "
			 "give the command no terminal: </dev/null >FILE 2>&1", fd);
	return -1;
}

/*
 * A descriptor 0-2 opened on /dev/tty (5,0: `</dev/tty`, `2>/dev/tty`)
 * is the host's /dev/tty node on the host's /dev, which the view's
 * read-only nodes (helper.c, stdio_view_devices) cannot stand in for: no
 * terminal is the sandbox's.  Through it, or /proc/self/fd/N, a root
 * caller's command chmods the node every user's programs open (ssh, sudo
 * and gpg prompts), for the whole machine until the mode is put back —
 * not at all if sandbx is killed first, or two runs overlap.  So it is
 * swapped, here in sandbx before the snapshot, for a descriptor on the
 * terminal itself (/dev/pts/N, which TIOCGDEV names), opened the same
 * way and proven the caller's own terminal (TIOCGSID answers on it): what
 * the command changes there is the caller's terminal, put back like any
 * other.  Where it cannot be found and the caller could change /dev/tty
 * (root, or its owner), the run is refused.
 */
static int stdio_dev_tty(char **err)
{
	for (int fd = 0; fd < 3; fd++) {
		struct stat st, ts;
		unsigned int dev = 0;
		pid_t sid;
		char path[64];
		int fl = fcntl(fd, F_GETFL), nfd = -1;
		if (fl < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(5, 0))
			continue;
		if (ioctl(fd, TIOCGDEV, &dev) == 0 && major(dev) >= 136 && major(dev) <= 143) {
			snprintf(path, sizeof(path), "/dev/pts/%u", (major(dev) - 136) * 256 + minor(dev));
			nfd = open(path, (fl & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_NOCTTY | O_CLOEXEC);
			if (nfd >= 0 && (fstat(nfd, &ts) < 0 || !S_ISCHR(ts.st_mode) || ts.st_rdev != (dev_t)dev ||
					 ioctl(nfd, TIOCGSID, &sid) < 0)) {
				close(nfd);
				nfd = -1;
			}
		}
		if (nfd < 0) {
			if (geteuid() != 0 && st.st_uid != geteuid())
				continue;	/* the command can no more chmod it than the caller */
			*err = xasprintf("standard %s is /dev/tty, and the terminal it names could not be found to pass "
					 "instead: through /dev/tty the command could change the mode of the node every "
					 "user's programs open — give it the terminal itself (drop the </dev/tty "
					 "redirection), a file or a pipe; nothing was run",
					 fd == 0 ? "input" : fd == 1 ? "output" : "error");
			return -1;
		}
		int r = dup2(nfd, fd);
		close(nfd);
		if (r < 0) {
			*err = xasprintf("cannot pass the terminal behind /dev/tty as descriptor %d: %s", fd, strerror(errno));
			return -1;
		}
	}
	return 0;
}

const char *cli_filter_cache_home(void)
{
	static char home[4096];
	static int done;
	if (!done) {
		struct xdg_paths x;
		char *e = NULL;
		done = 1;
		if (xdg_paths_get(&x, &e) == 0) {
			if (strlen(x.state_home) < sizeof(home))
				strcpy(home, x.state_home);
			xdg_paths_release(&x);
		}
		free(e);
	}
	return home[0] ? home : NULL;
}

int cli_sandbox_run(struct cli_opts *o)
{
	struct policy p;
	struct sandbox_result res;
	char *err = NULL;
	int pin_fd = -1, pin_held = 0;

	xalloc_exit_code(EXIT_REFUSED);	/* 1 would read as the command's own */
	/* A reader of standard error that went away (a socket's, a pipe's)
	 * must not end sandbx at its last record, in place of the command's
	 * status: the write fails with EPIPE, which nothing here acts on.  The
	 * helper is spawned with SIGPIPE back at its default (sandbox.c). */
	signal(SIGPIPE, SIG_IGN);
	/* This process is not confined, and loads libraries late (libseccomp
	 * for the filter, libcrypto for --pin-sha256, an NSS module for the
	 * policy's home lookup or a --allow-net name): never from where the
	 * command can write, through LD_LIBRARY_PATH as it was at start.  The
	 * command still gets the caller's value (--allow-env). */
	int rc = cli_ldpath_guard_early(o, LDPATH_LATE_CHARSET);
	if (rc)
		return rc;
	/* sandbx exits right after the run: it need not wait for the
	 * supervisor's own teardown once it reports the run over. */
	struct sandbox_spawn s = { .pin_fd = -1, .stdio = { -1, -1, -1 }, .env_value = cli_ldpath_command_value,
				   .no_reap = 1 };
	/* The helper's exec and start-up run while the grants are vetted
	 * (helper.h); every way out below that does not start the run
	 * abandons it.  Not when the guard below may execute sandbx again.
	 * A failure here is tried again, and said, by sandbox_start. */
	s.ns_early = !o->pin_hex && o->dns.n == 0;
	if (!cli_ldpath_may_run_again() && sandbox_prestart(&s, &err) < 0) {
		free(err);
		err = NULL;
	}
	char *mi = NULL;	/* the mount table the grants were vetted against */
	if (cli_build_policy_mi(o, 0, &p, &mi, &err) < 0) {
		sandbox_abandon(&s);
		audit(LOG_INFO, "refused", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		return EXIT_REFUSED;
	}
	/* libcrypto's first digest (the pin) reads OpenSSL's configuration,
	 * which can load a module: never one the command can write. */
	if ((rc = cli_ldpath_guard(&p)) != 0 || (o->pin_hex && (rc = cli_ldpath_openssl_guard(&p)) != 0)) {
		sandbox_abandon(&s);
		policy_release(&p);
		free(mi);
		return rc;
	}
	if (o->pin_hex && (pin_fd = open_pinned(o, &p, &pin_held, &err)) < 0) {
		sandbox_abandon(&s);
		audit(LOG_INFO, "refused", "mechanism", "pin", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		policy_release(&p);
		free(mi);
		return EXIT_REFUSED;
	}

	const char *mech = "dev-tty";
	if (stdio_dev_tty(&err) < 0 || (mech = "job-control", stdio_foreground(&err) < 0)) {
		sandbox_abandon(&s);
		audit(LOG_INFO, "refused", "mechanism", mech, "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		if (pin_fd >= 0)
			close(pin_fd);
		policy_release(&p);
		free(mi);
		return EXIT_REFUSED;
	}

	/* The argv array must be NULL-terminated for the helper. */
	char **argv = xcalloc((size_t)o->nrest + 1, sizeof(char *));
	memcpy(argv, o->rest, (size_t)o->nrest * sizeof(char *));
	s.policy = &p;
	s.argv = argv;
	s.pin_fd = pin_fd;
	s.pin_held = pin_held;
	/* A standard descriptor that is a socket or a pipe reaches the
	 * command as a pipe sandbx relays (relay.h): what the command does to
	 * a socket (shutdown, its options) could not be put back after the
	 * run, and a pipe it could open again the other way. */
	struct relay rl;
	if (relay_prepare(&rl, s.stdio, &err) < 0) {
		sandbox_abandon(&s);
		audit(LOG_INFO, "refused", "mechanism", "stdio-relay", "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		if (pin_fd >= 0)
			close(pin_fd);
		free(argv);
		policy_release(&p);
		free(mi);
		return EXIT_REFUSED;
	}

	/* From the spawned record on, a SIGTERM, SIGHUP or SIGINT ends the
	 * run and is recorded before it ends sandbx (helper.h). */
	struct sandbox_sigs held;
	sandbox_sigs_hold(&held);
	char *paths = policy_describe_paths(&p), *net = policy_describe_net(&p), *cmd = xjoin(o->rest, (size_t)o->nrest, ' ');
	char *env = xjoin(p.env.v, p.env.n, ',');
	char *pin = o->pin_hex ? xasprintf("sha256:%s", o->pin_hex) : NULL;
	char *dns = xjoin(p.dns.v, p.dns.n, ',');
	audit(LOG_INFO, "spawned", "command", cmd, "paths", paths, "network", net, "dns", p.dns.n ? dns : "none",
	      "unix", p.allow_unix ? "allowed" : "denied", "env", env, "cwd", p.cwd ? p.cwd : "/",
	      pin ? "pin" : NULL, pin, NULL);
	free(dns);
	free(paths);
	free(net);
	free(env);
	free(pin);

	struct stdio_snap z;
	stdio_take(&z);
	const char *failed = NULL;
	s.filter_cache = cli_filter_cache_home();
	s.mountinfo = mi;
	if (relay_start(&rl, sandbox_sigs_fd(), &err) < 0) {
		failed = "stdio-relay";
		sandbox_abandon(&s);
	} else if (sandbox_start(&s, &err) < 0)
		failed = "helper";
	s.mountinfo = NULL;
	free(mi);
	relay_spawned(&rl);	/* the command's ends are the helper's now */
	if (failed) {
		(void)relay_finish(&rl, 0);
		/* after its spawned record, a refused and an exited one, as
		 * for a refusal of the helper's own */
		audit(LOG_INFO, "refused", "mechanism", failed, "reason", err, NULL);
		sbx_err("%s", err);
		free(err);
		rc = EXIT_REFUSED;
	} else {
		long tmo = o->timeout_set ? (long)o->timeout * 1000 : -1, t0 = mono_ms();
		sandbox_wait(&s, tmo, NULL, &res);
		/* What the command wrote reaches the sockets first, within what
		 * is left of --timeout: a stalled reader of a relayed socket
		 * cannot hold sandbx past it. */
		long left = tmo < 0 ? -1 : res.timed_out ? 0 : tmo - (mono_ms() - t0);
		size_t lost = relay_finish(&rl, tmo >= 0 && left < 0 ? 0 : left);
		/* A signal to sandbx gives the flush up too (relay.h), with
		 * or without a --timeout: the message names the one that did. */
		int asked = sandbox_sigs_caught();
		if (lost && asked)
			sbx_err("%zu bytes the command wrote were not passed on: sandbx was asked to end (%s) before "
				"the reader of its standard output or error took them", lost, sandbox_sig_name(asked));
		else if (lost && !res.timed_out)
			sbx_err("%zu bytes the command wrote were not passed on: the reader of its standard output "
				"or error took none for the rest of --timeout %llus",
				lost, (unsigned long long)o->timeout);
		stdio_restore(&z);
		rc = res.code;
		if (res.timed_out) {
			char t[32];
			snprintf(t, sizeof(t), "%llus", (unsigned long long)o->timeout);
			audit(LOG_INFO, "timeout", "command", cmd, "after", t, NULL);
			sbx_err("'%s' ran past --timeout %llus and was killed with everything it started",
				o->rest[0], (unsigned long long)o->timeout);
		}
		if (res.limit_hit && !res.timed_out) {
			char *m = limits_hit_message(&p, res.limit_hit - 1);
			sbx_err("%s", m);
			free(m);
		}
	}
	/* A signal that came too late to end the run still ends sandbx: the
	 * record says so, with the status sandbx then has (128+n). */
	int sig = sandbox_sigs_caught();
	if (sig)
		rc = 128 + sig;
	char c[16];
	snprintf(c, sizeof(c), "%d", rc);
	audit(LOG_INFO, "exited", "command", cmd, "code", c, sig ? "stopped" : NULL, sandbox_sig_name(sig), NULL);
	if (pin_fd >= 0)
		close(pin_fd);
	free(cmd);
	free(argv);
	policy_release(&p);
	sandbox_sigs_release(&held);	/* ends sandbx by sig, if one came */
	return rc;
}
