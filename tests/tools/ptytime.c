/*
 * ptytime — run a full-screen program on a pseudo-terminal and time it,
 * for bench/tui.sh.
 *
 *   ptytime [-s COLSxROWS] [-o FILE] [-f TEXT] [-i SECS] [-p FILE] [-k KEYS -d TEXT] [-q KEYS] -- PROGRAM [ARG...]
 *
 *   -o FILE   every byte the program writes to the terminal goes to FILE too
 *   -f TEXT   the first screen is drawn when TEXT appears in the output
 *             (default "ready"); prints first_ms
 *   -i SECS   then stay idle SECS seconds (output drained); prints idle_rss_kib
 *   -p FILE   then paste FILE's bytes as a bracketed paste (between the
 *             markers ESC [ 200 ~ and ESC [ 201 ~), written as fast as the
 *             terminal takes them while its output is drained
 *   -k KEYS   then type KEYS (\r is Enter) and wait for -d TEXT; prints
 *             done_ms and cpu_ms (from the paste, or the keys, to TEXT:
 *             wall time, and the CPU time of all the program's threads),
 *             rss_kib and peak_rss_kib (VmHWM)
 *   -q KEYS   finally type KEYS (default ctrl-d) and wait for the exit
 *
 * Every wait is bounded (60 s); a timeout prints "timeout" and exits 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define WINDOW 4096		/* bytes of output kept to match TEXT across reads */

static int mfd;
static pid_t child;
static char win[WINDOW * 2];
static size_t wlen;
static FILE *out;	/* -o */

/* What the program wrote, for -o. */
static void keep(const char *b, ssize_t n)
{
	if (out && n > 0)
		fwrite(b, 1, (size_t)n, out);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Read output until text appears (text NULL: for ms milliseconds). */
static int pump(const char *text, double ms)
{
	double end = now_ms() + ms;
	for (;;) {
		double left = end - now_ms();
		if (left <= 0)
			return text ? -1 : 0;
		struct pollfd p = { mfd, POLLIN, 0 };
		if (poll(&p, 1, (int)left + 1) <= 0)
			continue;
		char buf[65536];
		ssize_t r = read(mfd, buf, sizeof(buf));
		if (r <= 0)
			return -1;
		keep(buf, r);
		for (ssize_t i = 0; i < r; i++) {
			if (wlen == sizeof(win)) {
				memmove(win, win + WINDOW, WINDOW);
				wlen = WINDOW;
			}
			win[wlen++] = buf[i];
		}
		if (text && memmem(win, wlen, text, strlen(text))) {
			wlen = 0;
			return 0;
		}
	}
}

static long status_kib(const char *field)
{
	char path[64], line[256];
	long v = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)child);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0)
			v = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	return v;
}

/* CPU time of the child's threads so far (ms; schedstat's run time, in
 * ns, rather than the 10 ms ticks of /proc/PID/stat). */
static double cpu_ms(void)
{
	char path[96];
	double ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/schedstat", (int)child, e->d_name);
		FILE *f = fopen(path, "re");
		unsigned long long run = 0;
		if (f) {
			if (fscanf(f, "%llu", &run) == 1)
				ns += (double)run;
			fclose(f);
		}
	}
	closedir(d);
	return ns / 1e6;
}

/* Write n bytes to the terminal while reading what it draws: the program
 * blocks on a full output buffer as we would on a full input one. */
static int feed(const char *s, size_t n)
{
	int fl = fcntl(mfd, F_GETFL);
	fcntl(mfd, F_SETFL, fl | O_NONBLOCK);
	double end = now_ms() + 60000;
	while (n > 0 && now_ms() < end) {
		struct pollfd p = { mfd, POLLIN | POLLOUT, 0 };
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (p.revents & POLLIN) {
			char buf[65536];
			ssize_t r = read(mfd, buf, sizeof(buf));
			if (r == 0)
				break;
			keep(buf, r);
		}
		if (p.revents & POLLOUT) {
			ssize_t w = write(mfd, s, n < 4096 ? n : 4096);
			if (w > 0) {
				s += w;
				n -= (size_t)w;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				break;
			}
		}
	}
	fcntl(mfd, F_SETFL, fl);
	return n == 0 ? 0 : -1;
}

/* FILE's bytes between the bracketed paste markers. */
static int paste(const char *file)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return -1;
	char *buf = NULL;
	size_t len = 0, cap = 0, r;
	char chunk[65536];
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + r > cap) {
			cap = (len + r) * 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + len, chunk, r);
		len += r;
	}
	fclose(f);
	int rc = feed("\033[200~", 6) || feed(buf, len) || feed("\033[201~", 6) ? -1 : 0;
	free(buf);
	return rc;
}

static void type(const char *keys)
{
	for (const char *k = keys; *k; k++) {
		char c = *k;
		if (c == '\\' && k[1] == 'r') {
			c = '\r';
			k++;
		} else if (c == '\\' && k[1] == 'd') {
			c = 4;
			k++;
		}
		if (write(mfd, &c, 1) != 1)
			return;
	}
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 200 };
	const char *first = "ready", *keys = NULL, *done = NULL, *quit = "\\d", *pfile = NULL;
	double idle = 0;
	int o;

	while ((o = getopt(argc, argv, "s:o:f:i:p:k:d:q:")) != -1) {
		switch (o) {
		case 's': {
			unsigned c, r;
			if (sscanf(optarg, "%ux%u", &c, &r) == 2) {
				ws.ws_col = (unsigned short)c;
				ws.ws_row = (unsigned short)r;
			}
			break;
		}
		case 'o':
			out = fopen(optarg, "we");
			if (!out) {
				perror("ptytime: -o");
				return 1;
			}
			break;
		case 'f': first = optarg; break;
		case 'i': idle = atof(optarg); break;
		case 'p': pfile = optarg; break;
		case 'k': keys = optarg; break;
		case 'd': done = optarg; break;
		case 'q': quit = optarg; break;
		default: return 64;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: ptytime [-s CxR] [-o FILE] [-f TEXT] [-i SECS] [-p FILE] [-k KEYS -d TEXT] -- PROGRAM [ARG...]\n");
		return 64;
	}
	double t0 = now_ms();
	child = forkpty(&mfd, NULL, NULL, &ws);
	if (child < 0) {
		perror("ptytime: forkpty");
		return 1;
	}
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	if (pump(first, 60000) < 0) {
		printf("timeout waiting for '%s'\n", first);
		kill(child, SIGKILL);
		return 1;
	}
	printf("first_ms=%.1f\n", now_ms() - t0);
	if (idle > 0) {
		pump(NULL, idle * 1000);
		printf("idle_rss_kib=%ld\n", status_kib("VmRSS"));
	}
	if (keys && done) {
		double t1 = now_ms(), c1 = cpu_ms();
		if (pfile && paste(pfile) < 0) {
			printf("cannot paste '%s'\n", pfile);
			kill(child, SIGKILL);
			return 1;
		}
		type(keys);
		if (pump(done, 120000) < 0) {
			printf("timeout waiting for '%s'\n", done);
			kill(child, SIGKILL);
			return 1;
		}
		printf("done_ms=%.1f\ncpu_ms=%.1f\n", now_ms() - t1, cpu_ms() - c1);
		pump(NULL, 300);
		printf("rss_kib=%ld\npeak_rss_kib=%ld\n", status_kib("VmRSS"), status_kib("VmHWM"));
	}
	type(quit);
	double end = now_ms() + 10000;
	int st = 0;
	while (waitpid(child, &st, WNOHANG) == 0) {
		pump(NULL, 50);
		if (now_ms() > end) {
			kill(child, SIGKILL);
			waitpid(child, &st, 0);
			break;
		}
	}
	printf("exit=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	if (out)
		fclose(out);
	return 0;
}
