#!/bin/sh
# Runs every tests/integration/test_*.sh (or those named) and prints the
# closing line "N passed, N failed, N skipped".  Exit 1 when any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=$(mktemp "${TMPDIR:-/tmp}/sbxres.XXXXXX")
chmod 666 "$results"
export T_RESULTS="$results"
scripts=${*:-$(ls "$here"/test_*.sh)}
for t in $scripts; do
	echo "== $(basename "$t") as $(id -un)"
	sh "$t" || echo "fail $(basename "$t"):script-exit" >> "$results"
done
p=$(grep -c '^pass ' "$results")
f=$(grep -c '^fail ' "$results")
s=$(grep -c '^skip ' "$results")
rm -f "$results"
echo "integration: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
