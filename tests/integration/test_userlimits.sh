# test_userlimits.sh — the per-user kernel counters (kernel/ucount.c: the
# /proc/sys/user/max_* limits, and the rlimit-backed RLIMIT_MSGQUEUE and
# RLIMIT_SIGPENDING) are counted per user across every user namespace, so
# a command could use up what the caller's own programs need.  The sandbox
# gets at most half of each: these tests take all it can get and check
# that the host, meanwhile, still gets its share.  Each probe holds what
# it took until its standard input (a fifo) is closed; --timeout bounds it.
. "$(dirname "$0")/lib.sh"

W="$TMP/work"
mkdir -p "$W"; chmod 755 "$W"
U="$PROBES/ucount"
COUNTERS="max_inotify_instances max_inotify_watches max_fanotify_groups max_fanotify_marks"

# run FLAGS... -- CMD...: stdout in $TMP/out (printed), stderr in $TMP/err, exit code in $RC.
run() {
	( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" "$@" ) >"$TMP/out" 2>"$TMP/err"
	RC=$?
	cat "$TMP/out"
}

# held WHAT: run "ucount WHAT hold" in the sandbox, holding what it took
# until the fifo is closed; meanwhile run the same probe on the host (it
# releases at once).  Sets SBX_N, SBX_E (the sandbox's count and errno),
# HOST_N, HOST_E, RC.
held() {
	what=$1
	# the output of the call before must not be read as this one's: the
	# subshell truncates it only once the fifo below has a writer
	rm -f "$TMP/fifo" "$TMP/out"; mkfifo "$TMP/fifo"
	( cd "$W" && exec "$SANDBX" sandbox-run --timeout 30 --allow-exec "$PROBES" -- "$U" "$1" hold \
		<"$TMP/fifo" >"$TMP/out" 2>"$TMP/err" ) &
	bgpid=$!
	exec 9>"$TMP/fifo"
	i=0
	while ! grep -q '^ok ' "$TMP/out" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	set -- $(cat "$TMP/out") "" "" ""
	SBX_N=$2 SBX_E=$3
	set -- $("$U" "$what" 2>/dev/null) "" "" ""
	HOST_N=$2 HOST_E=$3
	exec 9>&-
	wait "$bgpid"; RC=$?
}

t_start userlimits-works "sandbox-run and the ucount probe run here"
if ! sandbox_works; then t_skip "sandbox-run cannot run here"; t_done; exit 0; fi
[ -x "$U" ] || { t_fail "missing probe $U"; t_done; exit 0; }
t_pass

# ---- inotify, fanotify ---------------------------------------------------------

t_start userlimits-inotify "a command calling inotify_init1 until it fails gets at most half of the caller's max_inotify_instances (EMFILE then), and while it holds them a host process of the same user still gets inotify instances"
cap=$(cat /proc/sys/user/max_inotify_instances)
held inotify
if [ "$RC" -ne 0 ] || [ -z "$SBX_N" ]; then t_fail "exit $RC, out: $(cat "$TMP/out") err: $(cat "$TMP/err")"
elif [ "$SBX_N" -gt $((cap / 2)) ]; then t_fail "the sandbox got $SBX_N of $cap inotify instances (more than half)"
elif [ "$SBX_E" != EMFILE ]; then t_fail "the sandbox's last inotify_init1 answered $SBX_E, not EMFILE"
elif [ -z "$HOST_N" ] || [ "$HOST_N" -lt 1 ]; then t_fail "the host got no inotify instance while the sandbox held $SBX_N ($HOST_E)"
else t_pass; fi

t_start userlimits-fanotify "fanotify_init(FAN_REPORT_FID) is reachable unprivileged in the sandbox: a command calling it until it fails gets at most half of the caller's max_fanotify_groups, and while it holds them a host process of the same user still gets a group"
cap=$(cat /proc/sys/user/max_fanotify_groups)
held fanotify
if [ "$RC" -ne 0 ] || [ -z "$SBX_N" ]; then t_fail "exit $RC, out: $(cat "$TMP/out") err: $(cat "$TMP/err")"
elif [ "$SBX_N" -eq 0 ]; then t_fail "fanotify_init is not reachable in the sandbox ($SBX_E): this test no longer checks the counter"
elif [ "$SBX_N" -gt $((cap / 2)) ]; then t_fail "the sandbox got $SBX_N of $cap fanotify groups (more than half)"
elif [ "$SBX_E" != EMFILE ]; then t_fail "the sandbox's last fanotify_init answered $SBX_E, not EMFILE"
elif [ -z "$HOST_N" ] || [ "$HOST_N" -lt 1 ]; then t_fail "the host got no fanotify group while the sandbox held $SBX_N ($HOST_E)"
else t_pass; fi

# ---- the sysctls as the sandbox reads them --------------------------------------------

t_start userlimits-proc "with --allow-read /proc, the sandbox's own /proc/sys/user reads half of each of the caller's four per-user watch limits (inotify, fanotify), the command cannot raise one, and the caller's values are unchanged after the call"
before=""; want=""
for c in $COUNTERS; do
	v=$(cat "/proc/sys/user/$c"); before="$before $c=$v"; want="$want $c=$((v / 2))"
done
got=$(run --allow-read /proc -- /usr/bin/sh -c 'echo 2147483647 > /proc/sys/user/max_inotify_instances 2>/dev/null
	for c in '"$(echo $COUNTERS)"'; do printf " %s=%s" $c "$(cat /proc/sys/user/$c)"; done')
after=""
for c in $COUNTERS; do after="$after $c=$(cat "/proc/sys/user/$c")"; done
if [ "$RC" -ne 0 ]; then t_fail "exit $RC: $(cat "$TMP/err")"
elif [ "$got" != "$want" ]; then t_fail "the sandbox read$got, expected$want"
elif [ "$after" != "$before" ]; then t_fail "the caller's limits changed:$before ->$after"
else t_pass; fi

# ---- rlimit-backed counters ------------------------------------------------------------

t_start userlimits-rlimits "the command's RLIMIT_MSGQUEUE and RLIMIT_SIGPENDING hard limits are half of the caller's soft ones (soft no higher)"
q=$(sed -n 's/^Max msgqueue size *\([^ ]*\) .*/\1/p' /proc/self/limits)
s=$(sed -n 's/^Max pending signals *\([^ ]*\) .*/\1/p' /proc/self/limits)
set -- $(run -- "$U" rlimits) "" "" "" "" ""
if [ "$RC" -ne 0 ] || [ "$1" != ok ]; then t_fail "exit $RC: $(cat "$TMP/out") $(cat "$TMP/err")"
elif [ "$q" = unlimited ] || [ "$s" = unlimited ]; then t_fail "the caller's limits are unlimited ($q, $s): nothing to halve here"
elif [ "$3" != $((q / 2)) ] || [ "$2" -gt $((q / 2)) ]; then t_fail "msgqueue soft $2 hard $3, caller's soft $q"
elif [ "$5" != $((s / 2)) ] || [ "$4" -gt $((s / 2)) ]; then t_fail "sigpending soft $4 hard $5, caller's soft $s"
else t_pass; fi

t_start userlimits-sigpending "a command queueing signals to itself until it fails queues at most half of the caller's pending-signals limit (EAGAIN then), and while they are pending a host process of the same user can still queue one"
s=$(sed -n 's/^Max pending signals *\([^ ]*\) .*/\1/p' /proc/self/limits)
held sigqueue
if [ "$RC" -ne 0 ] || [ -z "$SBX_N" ]; then t_fail "exit $RC, out: $(cat "$TMP/out") err: $(cat "$TMP/err")"
elif [ "$SBX_N" -gt $((s / 2)) ]; then t_fail "the sandbox queued $SBX_N of $s signals (more than half)"
elif [ "$SBX_E" != EAGAIN ]; then t_fail "the sandbox's last sigqueue answered $SBX_E, not EAGAIN"
elif [ -z "$HOST_N" ] || [ "$HOST_N" -lt 1 ]; then t_fail "the host could queue no signal while the sandbox held $SBX_N ($HOST_E)"
else t_pass; fi

# ---- fail closed -----------------------------------------------------------------------

t_start userlimits-refused "where /proc/sys/user is not the kernel's (a tmpfs with the same file names over it, in a private mount namespace) the run is refused (exit 125) naming /proc/sys/user, with a 'refused mechanism=user-limit' record, and nothing runs"
fake="$TMP/fake"; mkdir -p "$fake"; chmod 755 "$fake"
for c in $COUNTERS; do echo 1000 > "$fake/$c"; done
rm -f "$W/ran"
unshare -rm sh -c 'mount -t tmpfs none /proc/sys/user && cp "$1"/* /proc/sys/user/ &&
	cd "$2" && exec "$3" sandbox-run --allow-write "$2" -- /usr/bin/touch "$2/ran"' sh "$fake" "$W" "$SANDBX" \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
if [ "$RC" -ne 125 ]; then t_fail "exit $RC, expected 125: $(cat "$TMP/err")"
elif [ -e "$W/ran" ]; then t_fail "the command ran"
elif ! grep -q "^sandbx: .*'/proc/sys/user'.* — " "$TMP/err"; then t_fail "no message naming /proc/sys/user: $(cat "$TMP/err")"
elif ! grep -q '^sandbx audit refused mechanism=user-limit ' "$TMP/err"; then t_fail "no refused record: $(cat "$TMP/err")"
else t_pass; fi

t_start userlimits-readonly-degraded "where the host made /proc/sys read-only (as container runtimes do) the sandbox's limits cannot be written through it: the command runs, a 'degraded mechanism=user-limit' record says why, and the rlimit halves still hold"
rm -f "$W/ran"
unshare -rm sh -c 'mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys || exit 99
	cd "$1" && exec "$2" sandbox-run --allow-exec "$3" -- "$3/ucount" rlimits' sh "$W" "$SANDBX" "$PROBES" \
	>"$TMP/out" 2>"$TMP/err"
RC=$?
s=$(sed -n 's/^Max pending signals *\([^ ]*\) .*/\1/p' /proc/self/limits)
set -- $(cat "$TMP/out") "" "" "" "" ""
if [ "$RC" -ne 0 ] || [ "$1" != ok ]; then t_fail "exit $RC: $(cat "$TMP/out") $(cat "$TMP/err")"
elif ! grep -q '^sandbx audit degraded mechanism=user-limit limit=max_inotify_instances error="Read-only file system"$' "$TMP/err"; then
	t_fail "no degraded record: $(cat "$TMP/err")"
elif [ "$5" != $((s / 2)) ]; then t_fail "hard RLIMIT_SIGPENDING $5, caller's soft $s"
else t_pass; fi

t_done
