#!/bin/sh
# bench/grep.sh — `sandbx tool grep` against GNU `grep -rn` and `rg -n -j1`
# on a reproducible tree (bench/gentree.c, fixed seed): NFILES files of
# MEAN bytes on average (default 50,000 x 10 KB, about 500 MB), 2% binary,
# two symlinks per directory.  Warm cache, hyperfine medians; the scan
# limits are raised so the whole tree is searched.  Peak RSS from
# /usr/bin/time -v.  Not a test: it prints figures.
#
#   bench/grep.sh [SANDBX] [NFILES] [MEAN]      (BENCH_DIR to keep the tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SANDBX=$(realpath "${1:-$here/../build/sandbx}")
NFILES=${2:-50000}
MEAN=${3:-10000}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/sbxbench-$NFILES-$MEAN}
for t in hyperfine rg grep /usr/bin/time cc; do
	command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 1; }
done
if [ ! -d "$dir/tree" ]; then
	mkdir -p "$dir"
	cc -O2 -o "$dir/gentree" "$here/gentree.c"
	"$dir/gentree" "$dir/tree" "$NFILES" "$MEAN"
fi
cd "$dir/tree"
echo "tree: $dir/tree, $(find . -type f | wc -l) files, $(du -sh . | cut -f1)"
LIMITS="--max-scan-files 100000000 --max-scan-bytes 1T --max-results 100000000"
median() {	# hyperfine JSON -> median in ms
	sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$1" | head -1 | awk '{printf "%.0f", $1 * 1000}'
}
printf '%-16s %10s %10s %10s %8s %8s\n' case sandbx_ms rg_ms grep_ms vs_rg vs_grep
for c in "rare-literal|zanzibar_quokka" "common-literal|return" "regex|[A-Z]oo_[0-9]+"; do
	name=${c%%|*}
	pat=${c#*|}
	hyperfine -N --output=pipe --warmup 2 --runs 10 --export-json "$dir/h.json" \
		"$SANDBX tool grep '{\"path\":\".\",\"pattern\":\"$pat\"}' --allow-read . $LIMITS" \
		"rg -n -j1 '$pat' ." \
		"grep -rnE '$pat' ." >/dev/null 2>"$dir/h.err" || { cat "$dir/h.err" >&2; exit 1; }
	s=$(sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$dir/h.json" | awk 'NR==1{printf "%.0f", $1*1000}')
	r=$(sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$dir/h.json" | awk 'NR==2{printf "%.0f", $1*1000}')
	g=$(sed -n 's/.*"median": *\([0-9.]*\).*/\1/p' "$dir/h.json" | awk 'NR==3{printf "%.0f", $1*1000}')
	printf '%-16s %10s %10s %10s %8s %8s\n' "$name" "$s" "$r" "$g" \
		"$(awk "BEGIN{printf \"%.2fx\", $s/$r}")" "$(awk "BEGIN{printf \"%.2fx\", $s/$g}")"
done
rss=$(/usr/bin/time -v "$SANDBX" tool grep '{"path":".","pattern":"return"}' --allow-read . $LIMITS 2>&1 >/dev/null |
	sed -n 's/.*Maximum resident set size (kbytes): //p')
rrss=$(/usr/bin/time -v rg -n -j1 return . 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak RSS (common literal): sandbx ${rss} KB, rg -j1 ${rrss} KB"
