#!/bin/sh
# bench/find.sh — `sandbx tool find` against `find -name` on the tree of
# bench/grep.sh (same generator, same defaults).  Warm cache, hyperfine
# medians, scan limits raised; peak RSS from /usr/bin/time -v.
#
#   bench/find.sh [SANDBX] [NFILES] [MEAN]      (BENCH_DIR to keep the tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SANDBX=$(realpath "${1:-$here/../build/sandbx}")
NFILES=${2:-50000}
MEAN=${3:-10000}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/sbxbench-$NFILES-$MEAN}
for t in hyperfine find /usr/bin/time cc; do
	command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 1; }
done
if [ ! -d "$dir/tree" ]; then
	mkdir -p "$dir"
	cc -O2 -o "$dir/gentree" "$here/gentree.c"
	"$dir/gentree" "$dir/tree" "$NFILES" "$MEAN"
fi
cd "$dir/tree"
echo "tree: $dir/tree, $(find . | wc -l) entries"
LIMITS="--max-scan-files 100000000 --max-results 100000000"
printf '%-16s %10s %10s %8s\n' case sandbx_ms find_ms ratio
for c in "few|f123*.c" "many|*.txt"; do
	name=${c%%|*}
	pat=${c#*|}
	hyperfine -N --output=pipe --warmup 2 --runs 10 --export-json "$dir/h.json" \
		"$SANDBX tool find '{\"path\":\".\",\"name\":\"$pat\"}' --allow-read . $LIMITS" \
		"find . -name '$pat'" >/dev/null 2>"$dir/h.err" || { cat "$dir/h.err" >&2; exit 1; }
	s=$(sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$dir/h.json" | awk 'NR==1{printf "%.0f", $1*1000}')
	f=$(sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$dir/h.json" | awk 'NR==2{printf "%.0f", $1*1000}')
	printf '%-16s %10s %10s %8s\n' "$name" "$s" "$f" "$(awk "BEGIN{printf \"%.2fx\", $s/$f}")"
done
rss=$(/usr/bin/time -v "$SANDBX" tool find '{"path":".","name":"*.txt"}' --allow-read . $LIMITS 2>&1 >/dev/null |
	sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak RSS (*.txt): sandbx ${rss} KB"
