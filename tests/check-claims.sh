#!/bin/sh
# Every claim in SECURITY.md names its proof as [test: ID, ID...].  An ID is
# an integration test (t_start ID in tests/integration/*.sh) or a cmocka
# test function (tests/unit/*.c).  A script may start tests through a
# helper function whose first argument is the ID ("usage sb-usage-x ...").  Fails when a named test does not exist,
# or when SECURITY.md names none.
set -u
cd "$(dirname "$0")/.."
ids=$(grep -o '\[test: [^]]*\]' SECURITY.md | sed 's/\[test: //; s/\]//' | tr ',' '\n' | tr -d ' ' | sort -u)
if [ -z "$ids" ]; then
	echo "claims: SECURITY.md names no test"
	exit 1
fi
missing=0
n=0
for id in $ids; do
	n=$((n + 1))
	if grep -qE "^[[:space:]]*[a-z_]+ $id( |\$)" tests/integration/*.sh 2>/dev/null; then continue; fi
	if grep -qE "(void|static void) $id\(" tests/unit/*.c 2>/dev/null; then continue; fi
	echo "claims: SECURITY.md names test '$id', which does not exist"
	missing=$((missing + 1))
done
echo "claims: $n tests named, $missing missing"
[ "$missing" -eq 0 ]
