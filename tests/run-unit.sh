#!/bin/sh
# Runs the cmocka unit test binaries given as arguments and prints
# "unit: N passed, N failed".  Exit 1 when any test failed.
set -u
pass=0
fail=0
for t in "$@"; do
	if [ "${VALGRIND:-0}" = 1 ]; then
		out=$(SBX_UNDER_VALGRIND=1 valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 --trace-children=no "$t" 2>&1)
	else
		out=$("$t" 2>&1)
	fi
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
	# valgrind's (or a sanitizer's) report, the binary's or a forked
	# child's: a child's errors reach the test only as its exit status
	# (99), and the failed check of that status alone says not why
	[ $rc -ne 0 ] && echo "$out" | grep -E '==[0-9]+==' | head -30
done
echo "unit${VALGRIND:+ (valgrind)}: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
