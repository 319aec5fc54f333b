#!/bin/sh
# bench/stream.sh — streaming cost of agent-run, side by side in one run:
# the mock provider streams 20 MB of SSE text deltas (about 129,000 events
# of 48 characters, 6.2 MB of text); `sandbx agent-run` folds and prints
# them to /dev/null, `curl -sN` reads the same stream to /dev/null.  Prints
# each median, the ratio (target <= 1.3) and agent-run's peak RSS (target
# < 16 MB, read as MiB), the median of RSS_RUNS (default 5) runs.  RUNS
# (default 30) samples each, in ROUNDS (default 5) rounds.
# Measured figures: docs/internals/stream.md, "Cost".
#
#   bench/stream.sh [BUILD_DIR]        (default: build)
set -eu
B=$(cd "${1:-build}" && pwd)
RUNS=${RUNS:-30}
BYTES=${BYTES:-20971520}
for t in hyperfine curl; do
	command -v "$t" >/dev/null || { echo "stream.sh: needs $t"; exit 1; }
done
d=$(mktemp -d /tmp/sbxstream.XXXXXX)
trap 'kill $mock 2>/dev/null; rm -rf "$d"' EXIT
mkdir -p "$d/req" "$d/work" "$d/state"
echo "textgen $BYTES 48" > "$d/script"
"$B/testtools/mockprov" -s "$d/script" -d "$d/req" -p "$d/port" -t 600 -l 2>/dev/null &
mock=$!
i=0; while [ ! -s "$d/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
url="http://127.0.0.1:$(cat "$d/port")"
cd "$d/work"
export ANTHROPIC_API_KEY=sk-bench XDG_STATE_HOME="$d/state" XDG_CONFIG_HOME="$d/state" SANDBX_LOG=off
# The VM's speed drifts from minute to minute: ROUNDS rounds, each running
# both commands, medians over all rounds' samples.
ROUNDS=${ROUNDS:-5}
per=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
r=0
while [ $r -lt "$ROUNDS" ]; do
	hyperfine -N --warmup 1 --runs "$per" --export-json "$d/h$r.json" --output=null \
		-n curl "curl -sN -X POST -H content-type:application/json -d {} $url/v1/messages -o /dev/null" \
		-n agent-run "$B/sandbx agent-run --base-url $url -- go" >/dev/null 2>&1 </dev/null
	r=$((r + 1))
done
# Peak RSS moves by a few hundred KiB from run to run (which library pages
# the kernel maps around a fault): the median of RSS_RUNS (default 5).
rss=""
i=0
while [ $i -lt "${RSS_RUNS:-5}" ]; do
	rss="$rss $( { /usr/bin/time -f '%M' "$B/sandbx" agent-run --base-url "$url" -- go >/dev/null; } 2>&1 | tail -1)"
	i=$((i + 1))
done
python3 - "$rss" "$d"/h*.json <<'PY'
import json, statistics, sys
t = {}
for f in sys.argv[2:]:
    for x in json.load(open(f))["results"]:
        t.setdefault(x["command"], []).extend(x["times"])
r = {k: statistics.median(v) * 1000 for k, v in t.items()}
print(f"curl -sN   median {r['curl']:.1f} ms  ({len(t['curl'])} runs)")
print(f"agent-run  median {r['agent-run']:.1f} ms  ({len(t['agent-run'])} runs)")
print(f"agent-run / curl = {r['agent-run'] / r['curl']:.2f} (target <= 1.3)")
ks = sorted(int(k) for k in sys.argv[1].split())
kib = statistics.median(ks)
print(f"agent-run peak RSS {kib / 1024:.2f} MiB = {kib * 1024 / 1e6:.1f} MB, median of {len(ks)} "
      f"({ks[0] / 1024:.2f}-{ks[-1] / 1024:.2f} MiB) (target < 16 MiB)")
PY
