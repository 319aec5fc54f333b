#!/bin/sh
# bench/paste.sh — CPU time the screen spends on a large bracketed paste:
# a 1 MB paste (lines of text with UTF-8 characters) into the input box of
# the real screen (tuifake, src/tui) in a 200x50 pseudo-terminal, then
# Enter, timed until the answer to that prompt is drawn.  Printed per run:
# the wall time and the CPU time of all the screen's threads (ptytime's
# cpu_ms, from /proc/PID/task/*/schedstat), then the median of each.
#
#   bench/paste.sh [BUILD_DIR]      (default build/; needs its testtools)
#   RUNS=5 SIZE_KB=1024 bench/paste.sh
#
# The input box holds TUI_MAX_INPUT (64 KiB): the rest of the paste is
# left out, so most of the time is reading and dropping what is past it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(realpath "${1:-$here/../build}")
T=$B/testtools
for t in "$T/ptytime" "$T/tuifake"; do
	[ -x "$t" ] || { echo "bench: missing $t — build with make B=$B" >&2; exit 1; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/sbxpaste.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
export LANG=C.UTF-8 TERM=xterm-256color
RUNS=${RUNS:-5}
SIZE_KB=${SIZE_KB:-1024}
python3 -c "
import sys
line = 'pasted text, caf\u00e9 \u6f22\u5b57 \u2014 the line goes on: 0123456789\n'.encode()
n = $SIZE_KB * 1024
sys.stdout.buffer.write((line * (n // len(line) + 1))[:n])
" > "$dir/paste"
printf 'text Done.\\n\nend end_turn\n' > "$dir/s"
echo "paste of $SIZE_KB KiB, $RUNS runs (ms)"
i=0
while [ $i -lt "$RUNS" ]; do
	out=$(cd "$dir" && "$T/ptytime" -s 200x50 -p "$dir/paste" -k '\r' -d 'Done.' -- "$T/tuifake" "$dir/s")
	wall=$(echo "$out" | sed -n 's/^done_ms=//p')
	cpu=$(echo "$out" | sed -n 's/^cpu_ms=//p')
	[ -n "$cpu" ] || { echo "bench: ptytime: $out" >&2; exit 1; }
	echo "run $((i + 1)): wall $wall cpu $cpu"
	echo "$wall $cpu" >> "$dir/all"
	i=$((i + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median: wall $(cut -d' ' -f1 "$dir/all" | med) cpu $(cut -d' ' -f2 "$dir/all" | med)"
