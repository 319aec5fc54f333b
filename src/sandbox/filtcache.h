/*
 * filtcache.h — the compiled seccomp program, kept between runs.
 *
 * Compiling the filter (libseccomp opened, some 500 rules, the program
 * exported) costs the harness about 1.5 ms of CPU on every run, beside the
 * helper's start on a machine of two CPUs (docs/internals/spawn.md).  A
 * program compiled once is kept in $XDG_STATE_HOME/sandbx/filters/, one
 * file per filter variant (network mode, unix sockets), and used again
 * while nothing that made it has changed.  Its key, kept in the file and
 * compared whole:
 *   - this build of sandbx: its GNU build id (no build id, no cache);
 *   - the libseccomp file that compiled it: path, device, inode, size,
 *     mtime and ctime (a package update replaces the file, or the link);
 *   - where the loader looks: /etc/ld.so.cache (device, inode, size,
 *     mtime: ldconfig lists a libseccomp installed elsewhere there) and
 *     LD_LIBRARY_PATH as this process has it;
 *   - the running kernel, uname's release and version (libseccomp asks
 *     the kernel which actions it has);
 *   - the variant and the newest syscall number the tables know.
 * A file is used only when it is a regular file of the effective uid's,
 * mode 0600 or narrower, with one link, in directories of that uid's, its
 * path reached only through directories (those of the symbolic links
 * followed included) where no other user may change the name looked up
 * (owned by that uid or root and writable by no other, or sticky with the
 * name one of theirs: root run with a user's HOME trusts nothing under
 * it), its length and checksum whole (FNV-1a over all before it: against a torn or
 * damaged file, not an adversary).  Anything else, and the filter is
 * compiled as before and the file written anew.  The directory is
 * sandbx's own state, which no grant may reach (cli_policy.c), so no
 * confined command can write a program there; a process of the same user
 * outside any sandbox could, as it could replace the user's shell.
 *
 * The program is kept as compiled: the command stage loads it as it loads
 * a fresh one (seccomp_filter_read, seccomp_filter_load_bpf).
 */
#ifndef SBX_FILTCACHE_H
#define SBX_FILTCACHE_H

#include "sandbox/policy.h"
#include "sandbox/seccomp.h"

/* The file name of p's variant, e.g. "seccomp-net0-unix0". */
void filtcache_name(const struct policy *p, char *out, size_t n);

/* 0 and *out when state_home (the XDG state base: the file is
 * state_home/sandbx/filters/NAME) holds p's program under the key this
 * process would write now; -1 otherwise (absent, stale, damaged). */
int filtcache_load(const char *state_home, const struct policy *p, struct seccomp_bpf *out);

/* A store's temporary file older than this (s) is a killed one's. */
#define FILTCACHE_TEMP_AGE 600

/* Keep bpf, compiled for p by the libseccomp at libpath, for later runs:
 * the directories are made 0700 where missing, the file replaced
 * atomically, 0600, and what a killed store left (its temporary file,
 * FILTCACHE_TEMP_AGE old) removed.  0, or -1 when it could not be kept (nothing is said:
 * the next run compiles again). */
int filtcache_store(const char *state_home, const struct policy *p, const char *libpath,
		    const struct seccomp_bpf *bpf);

#endif
