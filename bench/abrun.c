/*
 * abrun.c — bench/spawn-ab.sh's timer: run two or more commands N times
 * each, interleaved (every iteration runs each command once, in an order
 * shuffled afresh, so that each follows every other as often), and time
 * each from its posix_spawn to its exit.  Prints each command's median and
 * quartiles, and for each command after the first the median of its
 * differences from the first within the same iteration, with a bootstrap
 * 95 % interval.  0-2 of the commands are /dev/null; a command that fails
 * stops the run.  Leading NAME=VALUE words are set in that command's
 * environment (as env(1) would, without its exec).
 *
 *   abrun N '[NAME=VALUE...] CMD ARG...' '...' [...]   (split on spaces)
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#define MAX_CMDS 8
#define MAX_WORDS 32
#define MAX_ENV 256
#define WARMUP 10
#define BOOTSTRAP 400

extern char **environ;

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n), v left as it was. */
static double quantile(const double *v, int n, double q)
{
	double *c = malloc((size_t)n * sizeof(*c));
	if (!c) {
		perror("abrun");
		exit(1);
	}
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	double r = c[(int)(q * (n - 1))];
	free(c);
	return r;
}

static double run_once(char **argv, char **envp, const posix_spawn_file_actions_t *fa)
{
	pid_t pid;
	int st;
	double t0 = now_us();
	if (posix_spawn(&pid, argv[0], fa, NULL, argv, envp) != 0) {
		perror(argv[0]);
		exit(1);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "abrun: '%s' failed\n", argv[0]);
		exit(1);
	}
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	char *words[MAX_CMDS][MAX_WORDS + 1], **argvs[MAX_CMDS], *envs[MAX_CMDS][MAX_ENV + MAX_WORDS + 1];
	int k = argc - 2, n = argc > 1 ? atoi(argv[1]) : 0;

	if (n < 10 || k < 2 || k > MAX_CMDS) {
		fprintf(stderr, "usage: abrun N(>=10) 'CMD...' 'CMD...' [up to %d]\n", MAX_CMDS);
		return 64;
	}
	for (int j = 0; j < k; j++) {
		int m = 0;
		for (char *w = strtok(argv[2 + j], " "); w; w = strtok(NULL, " ")) {
			if (m == MAX_WORDS) {
				fprintf(stderr, "abrun: command %d has more than %d words\n", j, MAX_WORDS);
				return 64;
			}
			words[j][m++] = w;
		}
		words[j][m] = NULL;
		int a = 0;	/* the leading NAME=VALUE words */
		while (a < m && strchr(words[j][a], '=') && words[j][a][0] != '=' && words[j][a][0] != '/')
			a++;
		if (a == m) {
			fprintf(stderr, "abrun: command %d names no program\n", j);
			return 64;
		}
		argvs[j] = words[j] + a;
		int e = 0;
		for (int i = 0; i < a; i++)
			envs[j][e++] = words[j][i];
		for (char **v = environ; *v && e < MAX_ENV + a; v++) {
			int overridden = 0;
			for (int i = 0; i < a && !overridden; i++) {
				size_t n = (size_t)(strchr(words[j][i], '=') - words[j][i]) + 1;
				overridden = strncmp(*v, words[j][i], n) == 0;
			}
			if (!overridden)
				envs[j][e++] = *v;
		}
		envs[j][e] = NULL;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);

	double *t = calloc((size_t)n * (size_t)k, sizeof(*t));
	if (!t) {
		perror("abrun");
		return 1;
	}
	for (int w = 0; w < WARMUP * k; w++)
		(void)run_once(argvs[w % k], envs[w % k], &fa);
	srand(1);
	for (int i = 0; i < n; i++) {
		int order[MAX_CMDS];
		for (int j = 0; j < k; j++)
			order[j] = j;
		for (int j = k - 1; j > 0; j--) {
			int r = rand() % (j + 1), x = order[j];
			order[j] = order[r];
			order[r] = x;
		}
		for (int o = 0; o < k; o++)
			t[(size_t)order[o] * (size_t)n + (size_t)i] = run_once(argvs[order[o]], envs[order[o]], &fa);
	}

	double *d = malloc((size_t)n * sizeof(*d)), *r = malloc((size_t)n * sizeof(*r));
	double bs[BOOTSTRAP];
	if (!d || !r) {
		perror("abrun");
		return 1;
	}
	for (int j = 0; j < k; j++) {
		const double *v = t + (size_t)j * (size_t)n;
		printf("command %d: median %.0f us (quartiles %.0f, %.0f)", j, quantile(v, n, 0.5), quantile(v, n, 0.25),
		       quantile(v, n, 0.75));
		if (j > 0) {
			for (int i = 0; i < n; i++)
				d[i] = v[i] - t[i];
			for (int b = 0; b < BOOTSTRAP; b++) {
				for (int i = 0; i < n; i++)
					r[i] = d[rand() % n];
				bs[b] = quantile(r, n, 0.5);
			}
			printf("; against command 0: %+.0f us a pair (95 %% interval %+.0f .. %+.0f)", quantile(d, n, 0.5),
			       quantile(bs, BOOTSTRAP, 0.025), quantile(bs, BOOTSTRAP, 0.975));
		}
		printf("\n");
	}
	free(d);
	free(r);
	free(t);
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
