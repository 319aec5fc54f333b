/*
 * dl.c — see dl.h.
 */
#include <dlfcn.h>

#include "util/dl.h"

int dl_bind(const char *soname, const struct dl_sym *syms, size_t n, void *table, const char **missing)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*missing = soname;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			*missing = syms[i].name;
			return -1;
		}
		*(void **)((char *)table + syms[i].off) = p;
	}
	return 0;
}
