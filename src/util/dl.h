/*
 * dl.h — bind a table of function (or variable) pointers from a shared
 * library opened at run time.
 *
 * Why: every library linked at build time is loaded by every exec of the
 * binary, and sandbx execs itself for each confined command (the helper).
 * Libraries only one subcommand needs (ncursesw for the TUI, PCRE2 for the
 * grep tool, libcurl, libcrypto) are opened by that subcommand instead.
 */
#ifndef SBX_UTIL_DL_H
#define SBX_UTIL_DL_H

#include <stddef.h>

struct dl_sym {
	const char *name;
	size_t off;		/* offset of the pointer in the caller's table */
};

#define DL_SYM(table_type, field, symbol) { symbol, offsetof(table_type, field) }

/*
 * Open soname (RTLD_NOW | RTLD_LOCAL) and store the address of each symbol
 * at table + off.  0 on success.  On failure -1 and *missing names what was
 * not found: the library itself, or the first absent symbol (both strings
 * live as long as the caller's).  The library stays loaded.
 */
int dl_bind(const char *soname, const struct dl_sym *syms, size_t n, void *table, const char **missing);

#endif
