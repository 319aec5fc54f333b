#!/bin/sh
# Runs the cmocka unit test binaries given as arguments and prints
# "unit: N passed, N failed".  Exit 1 when any test failed.
set -u
pass=0
fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -E '^\[  (FAILED|  ERROR)|^\[  PASSED|^\[==========\]' | sed "s|^|$(basename "$t"): |"
	echo "$out" | grep -E '^\[  FAILED|^\[  ERROR|Failure!|error:' | head -20
	n=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	m=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	pass=$((pass + ${n:-0}))
	fail=$((fail + ${m:-0}))
	if [ $rc -ne 0 ] && [ -z "$m" ]; then
		echo "$(basename "$t"): exited $rc"
		fail=$((fail + 1))
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
