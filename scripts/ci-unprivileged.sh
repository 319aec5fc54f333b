#!/bin/sh
# Runs the unit and integration suites again as an unprivileged user
# (created here when missing), from a copy of the build that user can read:
# a unit test that only works as root (a user namespace set up halfway, a
# file only root may read) fails here instead of hiding until a user runs it.
set -eu
B=${B:-build}
user=${SANDBX_TEST_USER:-sbxci}
[ "$(id -u)" -eq 0 ] || { echo "ci-unprivileged: needs root to create '$user'"; exit 1; }
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$user"
dir=$(mktemp -d /tmp/sandbx-ci.XXXXXX)
trap 'umount "$dir/dev/hugepages" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/tests"
cp "$B/sandbx" "$dir/sandbx"
cp -r "$B/probes" "$dir/probes"
[ -d "$B/testtools" ] && cp -r "$B/testtools" "$dir/testtools"
cp -r tests/integration tests/fixtures "$dir/tests/" 2>/dev/null || cp -r tests/integration "$dir/tests/"
cp -r "$B/tests" "$dir/unit"
cp tests/run-unit.sh "$dir/run-unit.sh"
chmod -R a+rX "$dir"
chmod 755 "$dir"
# The user cannot mount a hugetlbfs, not even in a user namespace: this one
# stands for the host's (systemd's /dev/hugepages), with a file of holes of
# root's, for the tests that grant a tree holding one (lib.sh, huge_mount).
mkdir -m 755 "$dir/dev" "$dir/dev/hugepages"
if mount -t hugetlbfs -o pagesize=2M,mode=0755 sbx-ci "$dir/dev/hugepages"; then
	truncate -s 8M "$dir/dev/hugepages/holes"
	chmod 644 "$dir/dev/hugepages/holes"
fi
# A file of root's that every user may write, for the pin's test of a
# program no lease can be had on (test_mountview.sh).
mkdir -m 755 "$dir/foreign"
install -m 0777 "$B/probes/fs" "$dir/foreign/pin-writable"
home=$(getent passwd "$user" | cut -d: -f6)
cd "$dir"
# the unit binaries read their fixtures at tests/fixtures, from here
runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$home" TERM=dumb \
	sh "$dir/run-unit.sh" "$dir"/unit/test_*
runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$home" TERM="${TERM:-dumb}" \
	SANDBX="$dir/sandbx" PROBES="$dir/probes" TESTTOOLS="$dir/testtools" \
	SANDBX_MUST_WORK="${SANDBX_MUST_WORK:-0}" FIXTURES="$dir/tests/fixtures" \
	SANDBX_FOREIGN_WRITABLE="$dir/foreign/pin-writable" \
	sh "$dir/tests/integration/run.sh"
