/*
 * dl.h — bind a table of function (or variable) pointers from a shared
 * library opened at run time.
 *
 * Why: every library linked at build time is loaded by every exec of the
 * binary, and sandbx execs itself for each confined command (the helper).
 * Libraries only some code needs (libseccomp for the harness's filter,
 * ncursesw for the TUI, PCRE2 for the grep tool, libcurl, libcrypto) are
 * opened by that code instead, the first time it runs.
 */
#ifndef SBX_UTIL_DL_H
#define SBX_UTIL_DL_H

#include <stddef.h>

struct dl_sym {
	const char *name;
	size_t off;		/* offset of the pointer in the caller's table */
};

#define DL_SYM(table_type, field, symbol) { symbol, offsetof(table_type, field) }

/* One library and the table its symbols fill; a static of the caller's. */
struct dl_lib {
	const char *soname;	/* e.g. "libpcre2-8.so.0" */
	const char *package;	/* the Debian package that installs it */
	const struct dl_sym *syms;
	size_t nsyms;
	void *table;
	int state;		/* 0 not tried, 1 bound, -1 failed */
	const char *missing;	/* on failure: the library or the first absent symbol */
	/* on failure to open the library, dlerror's words (absent, out of
	 * memory, a broken or foreign file); empty when a symbol is absent */
	char why[256];
	int short_of_memory;	/* why is a shortage of memory (dl.c) */
	/* NULL, or a variable the library's constructors read, set for the
	 * dlopen alone (see dl_load); e.g. "GNUTLS_NO_IMPLICIT_INIT". */
	const char *load_env;
	const char *load_env_value;
};

#define DL_LIB(soname, package, syms, table) \
	{ soname, package, syms, sizeof(syms) / sizeof((syms)[0]), table, 0, NULL, "", 0, NULL, NULL }
#define DL_LIB_ENV(soname, package, syms, table, name, value) \
	{ soname, package, syms, sizeof(syms) / sizeof((syms)[0]), table, 0, NULL, "", 0, name, value }

/*
 * Open l->soname (RTLD_LAZY | RTLD_LOCAL) and fill l->table, once: later
 * calls, from any thread, return the first outcome.  With l->load_env,
 * the variable is set while the library and its dependencies load and
 * removed again, but only when the caller did not set it and the process
 * has a single thread (setenv races getenv in another thread); otherwise
 * the library loads as it would without it.  0, or -1 and, when
 * err is not NULL, *err naming the library, giving the loader's reason
 * (or the absent symbol) and the package that installs it; advice about
 * memory only when the reason is a shortage of it.  The library stays
 * loaded.
 */
int dl_load(struct dl_lib *l, char **err);

#endif
