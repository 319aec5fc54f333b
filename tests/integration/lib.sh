# lib.sh — sourced by every tests/integration/test_*.sh.
#
#   t_start ID "what it proves"     begin a test (ID is what SECURITY.md cites)
#   t_pass / t_fail "why" / t_skip "reason"
#   t_done                          at the end of the script
#
# SANDBX_MUST_WORK=1 turns every skip into a failure (CI).
# Environment given by run.sh: SANDBX (the binary), PROBES (static probe
# programs), TESTTOOLS (helper programs), T_RESULTS (a file to append to).
# Each script gets a private scratch directory $TMP, removed at exit.

set -u
: "${SANDBX:?set SANDBX to the sandbx binary}"
: "${PROBES:=}"
: "${TESTTOOLS:=}"
: "${T_RESULTS:=/dev/null}"
T_ID=""
T_PASS=0
T_FAIL=0
T_SKIP=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sbxt.XXXXXX")
chmod 755 "$TMP"
trap 'huge_umount; rm -rf "$TMP" 2>/dev/null' EXIT
T_USER=$(id -un)

t_start() {
	[ -n "$T_ID" ] && t_fail "test did not report a result"
	T_ID=$1
	T_DESC=${2:-}
}
t_pass() {
	printf 'ok      %s (%s)\n' "$T_ID" "$T_USER"
	echo "pass $T_ID" >> "$T_RESULTS"
	T_PASS=$((T_PASS + 1))
	T_ID=""
}
t_fail() {
	printf 'FAIL    %s (%s): %s\n' "$T_ID" "$T_USER" "$*"
	echo "fail $T_ID" >> "$T_RESULTS"
	T_FAIL=$((T_FAIL + 1))
	T_ID=""
}
t_skip() {
	if [ "${SANDBX_MUST_WORK:-0}" = 1 ]; then
		t_fail "skipped but SANDBX_MUST_WORK=1: $*"
		return
	fi
	printf 'skip    %s (%s): %s\n' "$T_ID" "$T_USER" "$*"
	echo "skip $T_ID" >> "$T_RESULTS"
	T_SKIP=$((T_SKIP + 1))
	T_ID=""
}
# t_check COND-EXIT-STATUS "message": pass when the previous test's check is 0.
t_expect() {
	if [ "$1" -eq 0 ]; then t_pass; else t_fail "$2"; fi
}
t_done() {
	[ -n "$T_ID" ] && t_fail "test did not report a result"
	return 0
}
is_root() { [ "$(id -u)" -eq 0 ]; }

# huge_mount DIR: a hugetlbfs mount to test with: its mount point in HP and
# a readable file of holes in it in HPF (empty when there is none).  As
# root, one of 2 MiB pages mounted here at DIR/hp holding an 8 MiB file of
# holes, and (huge_pool N) the machine's pool set to N pages, both undone
# by huge_umount (also at exit).  Another user cannot mount one, not even
# in a user namespace of its own (hugetlbfs is not mountable there): it
# takes the host's, the first whose parent is not / (systemd's
# /dev/hugepages; scripts/ci-unprivileged.sh mounts one for its run).
# 1 when there is none.
HPOWN=0 HPSAVED=""
huge_mount() {
	HP="" HPF=""
	if is_root; then
		mkdir -p "$1/hp" && chmod 755 "$1" "$1/hp" &&
			mount -t hugetlbfs -o pagesize=2M,mode=0755 sbx-test "$1/hp" 2>/dev/null || return 1
		HP="$1/hp" HPOWN=1
		truncate -s 8M "$HP/holes" && chmod 644 "$HP/holes" && HPF="$HP/holes"
		return 0
	fi
	HP=$(awk '$0 ~ / - hugetlbfs / && $5 ~ /^\/[^\/\\]+\/[^\\]+$/ { print $5; exit }' /proc/self/mountinfo)
	[ -n "$HP" ] && [ -r "${HP%/*}" ] || return 1
	for f in "$HP"/*; do
		[ -f "$f" ] && [ -r "$f" ] && { HPF=$f; break; }
	done
	return 0
}
huge_pool() {
	[ -n "$HPSAVED" ] || HPSAVED=$(cat /proc/sys/vm/nr_hugepages) || return 1
	echo "$1" >/proc/sys/vm/nr_hugepages
}
# The pool's free pages (HugePages_Free).
huge_free() { awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo; }
huge_umount() {
	if [ "$HPOWN" = 1 ]; then
		rm -f "$HP/holes"
		umount "$HP" && HPOWN=0
	fi
	[ -z "$HPSAVED" ] || { echo "$HPSAVED" >/proc/sys/vm/nr_hugepages && HPSAVED=""; }
	return 0
}

# Probe the kernel features the sandbox needs; 0 when sandbx can run.
sandbox_works() {
	( cd "$TMP" && "$SANDBX" sandbox-run -- /bin/true ) >/dev/null 2>&1
}

# sbx ARGS...: run sandbx from $TMP/work (created) with stderr in $TMP/err.
sbx() {
	mkdir -p "$TMP/work"
	( cd "$TMP/work" && "$SANDBX" "$@" ) 2>"$TMP/err"
}

# tty_stdout OUT PROGRAM ARG...: run it (in the current directory and
# environment) with standard output and input a terminal (a pty), stderr
# to $TMP/err; what reached the terminal, byte for byte, in the file OUT;
# bounded to 30 s.  Returns the program's exit status.
tty_stdout() {
	python3 - "$@" 2>"$TMP/err" <<'PY'
import os, pty, select, sys, time
out, argv = sys.argv[1], sys.argv[2:]
err = os.dup(2)
pid, fd = pty.fork()
if pid == 0:
    os.dup2(err, 2)
    os.execvp(argv[0], argv)
buf, end = b"", time.time() + 30
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if not r:
        continue
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    buf += d
open(out, "wb").write(buf)
if time.time() >= end:
    os.kill(pid, 9)
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st) & 255)
PY
}

# The mock provider ($TESTTOOLS/mockprov), for agent, provider and tui tests:
#   mock_dir              a fresh directory $D for one mock's script and records
#   mock_serve [SECS [FLAG...]]  start a mock on $D/script (bounded: SECS,
#                         default $MOCK_T or 30; FLAG e.g. -l to loop); sets
#                         PORT and MOCKPID, adds to MOCKPIDS
#   mock_start [SECS]     mock_dir, the script from standard input, mock_serve
#   mock_rounds N [SECS]  in mock_dir's D: serve D/r1.sse .. D/rN.sse, one a request
#   mock_stop             stop the last mock
MOCK_N=0
MOCKPIDS=""
mock_dir() {
	MOCK_N=$((MOCK_N + 1))
	D=$TMP/m$MOCK_N
	mkdir -p "$D"
}
mock_serve() {
	_secs=${1:-${MOCK_T:-30}}
	[ $# -gt 0 ] && shift
	# a second mock in the same D must not be taken for the first's port
	rm -f "$D/port"
	"$TESTTOOLS/mockprov" -s "$D/script" -d "$D" -p "$D/port" -t "$_secs" "$@" 2>"$D/mock.err" &
	MOCKPID=$!
	MOCKPIDS="$MOCKPIDS $MOCKPID"
	_i=0
	while [ ! -s "$D/port" ] && [ $_i -lt 100 ]; do sleep 0.05; _i=$((_i + 1)); done
	PORT=$(cat "$D/port" 2>/dev/null)
}
mock_rounds() {
	_n=0
	: > "$D/script"
	while [ $_n -lt "$1" ]; do
		_n=$((_n + 1))
		echo "sse $D/r$_n.sse" >> "$D/script"
	done
	shift
	mock_serve "$@"
}
mock_start() {
	mock_dir
	cat > "$D/script"
	mock_serve "$@"
}
mock_stop() { kill "$MOCKPID" 2>/dev/null; wait "$MOCKPID" 2>/dev/null; }

# sig_run SIG N PATTERN ARGV...: run ARGV (sandbx) from $RUNDIR, stderr in
# $ERRF, with SIGTERM, SIGHUP and SIGINT at their default action (a
# background job of sh would have SIGINT ignored); once N processes match
# PATTERN (pgrep -f), send SIG to sandbx alone.  Prints how sandbx ended,
# "signal N" or "exit N", and how many processes match right after.
sig_run() {
	python3 - "$@" <<'PY'
import os, signal, subprocess, sys, time
sig, want, pat, argv = getattr(signal, sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def dfl():
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)
def running():
    return len(subprocess.run(["pgrep", "-f", pat], capture_output=True).stdout.split())
with open(os.environ["ERRF"], "w") as err:
    p = subprocess.Popen(argv, cwd=os.environ["RUNDIR"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=err, preexec_fn=dfl)
    t = time.time()
    while running() < want and time.time() - t < 20 and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(sig)
    p.wait()
left = running()
print(("signal %d" % -p.returncode) if p.returncode < 0 else ("exit %d" % p.returncode), left)
PY
}
