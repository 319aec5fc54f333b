/*
 * dl.c — see dl.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/dl.h"
#include "util/util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when /proc says this process has one thread; 0 when it has more or
 * cannot tell. */
static int single_threaded(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	char line[128];
	int one = 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Threads:", 8) == 0) {
			one = strtol(line + 8, NULL, 10) == 1;
			break;
		}
	fclose(f);
	return one;
}

/* Whether the address-space or data rlimit is set (ulimit -v, -d). */
static int memory_limited(void)
{
	struct rlimit as, data;
	return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	       (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
}

/* Whether the loader's reason is a shortage of memory: glibc says so
 * (ENOMEM's "Cannot allocate memory", its own "out of memory"), or it
 * could not map a segment, which a tight ulimit -v does, but so does a
 * noexec mount: that counts only under a memory rlimit.  ("cannot
 * allocate memory in static TLS block" is no shortage: lower case.) */
static int memory_short(const char *why)
{
	if (strstr(why, "Cannot allocate memory") || strstr(why, "out of memory"))
		return 1;
	return (strstr(why, "failed to map segment") || strstr(why, "cannot map zero-fill")) && memory_limited();
}

static int bind_syms(struct dl_lib *l)
{
	int set = l->load_env && !getenv(l->load_env) && single_threaded() &&
		  setenv(l->load_env, l->load_env_value, 0) == 0;
	/* Lazy: a dependency linked without BIND_NOW (libkrb5, librtmp,
	 * libnghttp2 under libcurl) has its calls bound on first use, as in a
	 * program linked against it, instead of all of them here; libcurl
	 * alone, RTLD_NOW bound about 1,800 more symbols, 0.6 ms at every
	 * start.  The symbols named in l->syms are still checked below. */
	void *h = dlopen(l->soname, RTLD_LAZY | RTLD_LOCAL);
	if (set)
		unsetenv(l->load_env);
	if (!h) {
		/* The loader's words, without the name it repeats when it
		 * looked the library up by it (a path it found stays). */
		const char *e = dlerror();
		size_t n = strlen(l->soname);
		if (!e)
			e = "the loader gave no reason";
		else if (strncmp(e, l->soname, n) == 0 && strncmp(e + n, ": ", 2) == 0)
			e += n + 2;
		snprintf(l->why, sizeof(l->why), "%s", e);
		l->short_of_memory = memory_short(e);	/* under the limits of now */
		l->missing = l->soname;
		return -1;
	}
	for (size_t i = 0; i < l->nsyms; i++) {
		void *p = dlsym(h, l->syms[i].name);
		if (!p) {
			l->missing = l->syms[i].name;
			return -1;
		}
		*(void **)((char *)l->table + l->syms[i].off) = p;
	}
	return 0;
}

int dl_load(struct dl_lib *l, char **err)
{
	pthread_mutex_lock(&lock);
	if (!l->state)
		l->state = bind_syms(l) == 0 ? 1 : -1;
	int ok = l->state > 0;
	pthread_mutex_unlock(&lock);
	if (ok)
		return 0;
	if (!err)
		return -1;
	if (!l->why[0])		/* loaded, a symbol is not there */
		*err = xasprintf("cannot load %s (%s is missing) — install %s", l->soname, l->missing, l->package);
	else if (strstr(l->why, "No such file or directory"))
		*err = xasprintf("cannot load %s: %s — install %s", l->soname, l->why, l->package);
	else if (l->short_of_memory)
		*err = xasprintf("cannot load %s: %s — the process is short of memory: give it more (ulimit -v) and "
				 "run again; should that not help, reinstall %s", l->soname, l->why, l->package);
	else	/* there, but broken or foreign */
		*err = xasprintf("cannot load %s: %s — reinstall %s", l->soname, l->why, l->package);
	return -1;
}
