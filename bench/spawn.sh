#!/bin/sh
# bench/spawn.sh — start-up cost of one confined command, side by side in
# one run: sandbx sandbox-run, bwrap with a comparable policy, and the
# kernel's floor (unshare -Urnpf --mount-proc).  Run as an unprivileged
# user (as root it re-runs itself as SANDBX_BENCH_USER, default sbxbench,
# created when missing).  Prints each median and sandbx's ratio to bwrap.
# A fourth line, floor+exec, is the floor with one more exec of a small
# glibc program (env) before /bin/true: the least any design pays that
# re-executes itself for the helper, as sandbx does (CLI.md, stage 1).
# Why that exec weighs so much here: docs/internals/spawn.md.
# sandbx keeps its compiled syscall filter in the bench user's state
# directory (src/sandbox/filtcache.h): the warm-up runs compile and keep it,
# the timed runs read it, as every run after a user's first does.
# RUNS (default 300) samples per command, in ROUNDS (default 5) rounds.
#
#   bench/spawn.sh [path/to/sandbx]       (default: build/sandbx)
set -eu
SANDBX=$(readlink -f "${1:-build/sandbx}")
RUNS=${RUNS:-300}
for t in hyperfine bwrap unshare; do
	command -v "$t" >/dev/null || { echo "spawn.sh: needs $t (scripts/install-deps.sh installs it)"; exit 1; }
done
if [ "$(id -u)" -eq 0 ]; then
	u=${SANDBX_BENCH_USER:-sbxbench}
	id "$u" >/dev/null 2>&1 || useradd --create-home "$u"
	d=$(mktemp -d /tmp/sbxbench.XXXXXX); chmod 755 "$d"
	cp "$SANDBX" "$d/sandbx"; cp "$0" "$d/spawn.sh"; chmod 755 "$d/sandbx" "$d/spawn.sh"
	runuser -u "$u" -- env RUNS="$RUNS" ROUNDS="${ROUNDS:-5}" sh "$d/spawn.sh" "$d/sandbx"
	rm -rf "$d"
	exit 0
fi
work=$(mktemp -d /tmp/sbxwork.XXXXXX)
cd "$work"
# The machine's speed drifts (other tenants of a VM): ROUNDS rounds of
# RUNS/ROUNDS runs each, the three commands in every round, and the
# medians taken over all rounds' samples, so a slow minute weighs on all
# three alike.
ROUNDS=${ROUNDS:-5}
per=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
jsons=""
r=0
while [ $r -lt "$ROUNDS" ]; do
	json=$(mktemp)
	jsons="$jsons $json"
	hyperfine -N --warmup 10 --runs "$per" --export-json "$json" \
		-n sandbx "$SANDBX sandbox-run -- /bin/true" \
		-n bwrap "bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev --bind $work $work /bin/true" \
		-n floor "unshare -Urnpf --mount-proc /bin/true" \
		-n floor+exec "unshare -Urnpf --mount-proc /usr/bin/env /bin/true" >/dev/null 2>&1 </dev/null
	r=$((r + 1))
done
python3 - $jsons <<'PY'
import json, statistics, sys
t = {}
for f in sys.argv[1:]:
    for x in json.load(open(f))["results"]:
        t.setdefault(x["command"], []).extend(x["times"])
r = {k: statistics.median(v) * 1000 for k, v in t.items()}
for k in ("sandbx", "bwrap", "floor", "floor+exec"):
    print(f"{k:10s} median {r[k]:.2f} ms  ({len(t[k])} runs)")
print(f"sandbx / bwrap = {r['sandbx'] / r['bwrap']:.2f} (target <= 0.75, i.e. {0.75 * r['bwrap']:.2f} ms)")
print(f"floor+exec / bwrap = {r['floor+exec'] / r['bwrap']:.2f} (the bound for a helper that re-executes itself)")
PY
rm -f $jsons; rm -rf "$work"
