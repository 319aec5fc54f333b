/*
 * dl.c — see dl.h.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "util/dl.h"
#include "util/util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int bind_syms(struct dl_lib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
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
	if (err)
		*err = xasprintf("cannot load %s (%s is missing) — install %s", l->soname, l->missing, l->package);
	return -1;
}
