#!/bin/sh
# bench/spawn-ab.sh — two or more builds of sandbx side by side on
# bench/spawn.sh's command (sandbox-run -- /bin/true), for telling whether a
# change to the spawn path moved it.  On the two-vCPU machines this project
# runs on, loops of one build drift by 0.1-0.4 ms from minute to minute, a
# command's place in a hyperfine round can cost 60-90 µs, and a run slows
# the one after it (its namespaces are torn down meanwhile): so the builds
# run interleaved, one run of each per pair in an order shuffled each time
# (bench/abrun.c), and each build after the first is compared with the first
# pair by pair (the median difference, with a bootstrap 95 % interval).
# Each build has a state directory of its own (XDG_STATE_HOME): the kept
# filter is kept under the build's id, and builds sharing one directory
# would each find the other's and compile the filter again on most runs.
# Name the same build twice to see the noise floor: on the 2026-12-07
# machine, the same build named three times gave -92 .. +16 µs and
# -105 .. +6 µs in 800 pairs (docs/internals/spawn.md, forty-fourth session).
#
#   bench/spawn-ab.sh BUILD-A BUILD-B [BUILD...]
#
# PAIRS (default 800) runs of each build.  Run as an unprivileged user (as
# root it re-runs itself as SANDBX_BENCH_USER, default sbxbench, created
# when missing), as spawn.sh does; the builds are copied to a directory of
# their own first, so none is refused for lying in the working directory.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/spawn-ab.sh BUILD-A BUILD-B [BUILD...]" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
command -v cc >/dev/null || { echo "spawn-ab.sh: needs cc" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	u=${SANDBX_BENCH_USER:-sbxbench}
	id "$u" >/dev/null 2>&1 || useradd --create-home "$u"
	d=$(mktemp -d /tmp/sbxab.XXXXXX)
	chmod 755 "$d"
	i=0
	set -- "$@" --
	while [ "$1" != -- ]; do
		[ -f "$1" ] || { echo "spawn-ab.sh: no build at '$1'" >&2; rm -rf "$d"; exit 1; }
		cp "$1" "$d/b$i"
		chmod 755 "$d/b$i"
		echo "build $i: $1"
		set -- "$@" "$d/b$i"
		shift
		i=$((i + 1))
	done
	shift
	# Out of the page cache, so each copy is read in by its first exec in
	# the same way: two copies of one file, one left as cp wrote it, ran
	# up to 0.1 ms apart.
	sync
	python3 -c 'import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"
	cp "$0" "$here/abrun.c" "$d/"
	chmod 755 "$d/spawn-ab.sh"
	chmod 644 "$d/abrun.c"
	rc=0
	runuser -u "$u" -- env PAIRS="${PAIRS:-800}" sh "$d/spawn-ab.sh" "$@" || rc=$?
	rm -rf "$d"
	exit $rc
fi
work=$(mktemp -d /tmp/sbxwork.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/abrun" "$here/abrun.c"
mkdir "$work/tree"
cd "$work/tree"
i=0
set -- "$@" --
while [ "$1" != -- ]; do
	b=$(readlink -f "$1")
	case $b in *" "*) echo "spawn-ab.sh: a build's path holds a space: '$b'" >&2; exit 1 ;; esac
	set -- "$@" "XDG_STATE_HOME=$work/state$i $b sandbox-run -- /bin/true"
	shift
	i=$((i + 1))
done
shift
"$work/abrun" "${PAIRS:-800}" "$@"
