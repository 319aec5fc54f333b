/*
 * dl.c — see dl.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		/* "is missing" only when it is: under a tight address-space
		 * limit the loader fails to map a library that is installed. */
		const char *e = dlerror();
		if (e && !strstr(e, "No such file or directory"))
			snprintf(l->why, sizeof(l->why), "%s", e);
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
	if (err && l->why[0])
		*err = xasprintf("cannot load %s: %s — if the process is short of memory (ulimit -v), give it more; "
				 "otherwise reinstall %s", l->soname, l->why, l->package);
	else if (err)
		*err = xasprintf("cannot load %s (%s is missing) — install %s", l->soname, l->missing, l->package);
	return -1;
}
