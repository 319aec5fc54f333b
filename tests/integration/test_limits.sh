# test_limits.sh — resource limits (issue 5) against the real kernel, as
# root (a per-sandbox cgroup where one can be created) and as an
# unprivileged user (no writable cgroup: the rlimit path, with its degraded
# records).  Every probe is bounded: the fork bomb by its own count and the
# limit, the spin by the CPU limit and --timeout, the allocation by the
# limit (it never touches more than the limit allows).
. "$(dirname "$0")/lib.sh"

W="$TMP/work"
mkdir -p "$W"; chmod 755 "$W"
FB="$PROBES/lim_forkbomb"

# run FLAGS... -- CMD...: stdout in $TMP/out (printed), stderr in $TMP/err, exit code in $RC
# and in $TMP/rc.  Called as out=$(run ...) it runs in a subshell, whose RC
# is lost: read the code back with RC=$(cat "$TMP/rc") after it.
run() {
	( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" "$@" ) >"$TMP/out" 2>"$TMP/err"
	RC=$?
	echo "$RC" >"$TMP/rc"
	cat "$TMP/out"
}
# bg FLAGS... -- CMD...: the same in the background; BG_PID is the harness.
bg() {
	( cd "$W" && exec "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" "$@" ) >"$TMP/out" 2>"$TMP/err" &
	BG_PID=$!
}
bgwait() { wait "$BG_PID"; RC=$?; }
# tagged PROG TAG: host pids of processes whose argv[0] is PROG and whose
# command line holds TAG (the harness carries TAG too, but its argv[0]
# is sandbx's path).  One awk reads every argv[0], so a count of 64
# costs two processes, not 130 (the fork bomb's hold must not end while
# the test is still counting); a process gone in between is skipped.
tagged() {
	awk -v prog="$1" 'BEGIN { RS = "\0"
		for (i = 1; i < ARGC; i++) {
			f = ARGV[i]
			if ((getline a0 < f) > 0 && a0 == prog) { sub("^/proc/", "", f); sub("/cmdline$", "", f); print f }
			close(f)
		} }' $(grep -l -a -F -- "$2" /proc/[0-9]*/cmdline 2>/dev/null)
}
# wait_tagged PROG TAG N: until at least N such processes exist (20 s at
# most); WT_PEAK is the largest count seen.
wait_tagged() {
	i=0 WT_PEAK=0
	while [ $i -lt 400 ]; do
		n=$(tagged "$1" "$2" | wc -l)
		[ "$n" -gt "$WT_PEAK" ] && WT_PEAK=$n
		[ "$n" -ge "$3" ] && break
		sleep 0.05; i=$((i + 1))
	done
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# limit_of PID NAME [both]: the soft value of one line of /proc/PID/limits,
# or with a third word "soft hard".
limit_of() { sed -n "s/^$2 *\([^ ]*\) *\([^ ]*\) .*/\1${3:+ \\2}/p" "/proc/$1/limits" 2>/dev/null; }
# cg_line PID CONTROLLER: the cgroup path of PID (v1 hierarchy of CONTROLLER, or v2 with "").
cg_line() {
	if [ -z "$2" ]; then sed -n 's/^0:://p' "/proc/$1/cgroup"
	else sed -n "s/^[0-9]*:\([^:]*,\)*$2\(,[^:]*\)*:\(.*\)/\3/p" "/proc/$1/cgroup"; fi
}
mnt_of() {	# mnt_of FSTYPE [SUPEROPT]: a mount point of that cgroup hierarchy
	awk -v t="$1" -v o="${2:-}" '{ for (i = 1; $i != "-"; i++); if ($(i+1) != t) next;
		if (o != "" && ("," $(i+3) ",") !~ ("," o ",")) next; print $5; exit }' /proc/self/mountinfo
}
# pids_cgroup_expected: 0 when this caller can give the sandbox a pids
# cgroup (what limits_sys.c tries: v2 with pids enabled in the parent's
# subtree_control, else a writable v1 pids hierarchy).
pids_cgroup_expected() {
	is_root || return 1
	v2=$(mnt_of cgroup2)
	if [ -n "$v2" ]; then
		own=$(cg_line self "")
		par=$v2; [ "$own" != / ] && par=$(dirname "$v2$own")
		grep -qw pids "$par/cgroup.subtree_control" 2>/dev/null && return 0
	fi
	[ -n "$(mnt_of cgroup pids)" ]
}
memory_cgroup_expected() {
	is_root || return 1
	v2=$(mnt_of cgroup2)
	[ -n "$v2" ] || return 1
	own=$(cg_line self "")
	par=$v2; [ "$own" != / ] && par=$(dirname "$v2$own")
	grep -qw memory "$par/cgroup.subtree_control" 2>/dev/null
}

t_start limits-works "sandbox-run and the limit probes run here"
if ! sandbox_works; then t_skip "sandbox-run cannot run here"; t_done; exit 0; fi
for p in lim_forkbomb lim_alloc lim_spin lim_write lim_nofile; do
	[ -x "$PROBES/$p" ] || { t_fail "missing probe $PROBES/$p"; t_done; exit 0; }
done
t_pass

# ---- processes ---------------------------------------------------------------

t_start limits-nproc-userns "RLIMIT_NPROC in a new user namespace counts only that namespace's processes (unprivileged), and does not bind uid 0"
if [ ! -x "$TESTTOOLS/nproc_userns" ]; then t_fail "missing $TESTTOOLS/nproc_userns"
else
	out=$("$TESTTOOLS/nproc_userns" 30 20 2>&1)
	if is_root; then
		[ "$out" = "forks=70" ] && t_pass || t_fail "root: expected the limit not to bind (forks=70), got '$out'"
	else
		# 30 processes of ours outside the namespace are not charged:
		# the namespace's first process plus 19 forks reach 20.
		[ "$out" = "forks=19" ] && t_pass || t_fail "expected forks=19 with 30 host processes running, got '$out'"
	fi
fi

t_start limits-forkbomb "a fork bomb trying 10,000 forks under --limit-procs 64 gets 64 processes at most, counted from the host, and none is left after the call"
tag="fb$$x$(date +%s)"
bg --limit-procs 64 --timeout 60 -- "$FB" 10000 "$tag" 2
wait_tagged "$FB" "$tag" 64
peak=$WT_PEAK
sleep 0.3
peak2=$(tagged "$FB" "$tag" | wc -l)
[ "$peak2" -gt "$peak" ] && peak=$peak2
bgwait
left=$(tagged "$FB" "$tag" | wc -l)
out=$(cat "$TMP/out")
if [ "$out" != "err EAGAIN forks=63" ]; then t_fail "expected 'err EAGAIN forks=63' (64 with the bomb itself), got '$out' rc=$RC: $(cat "$TMP/err")"
elif [ "$peak" -ne 64 ]; then t_fail "the host saw $peak bomb processes at the peak, expected 64"
elif [ "$left" -ne 0 ]; then t_fail "$left bomb processes left on the host after the call"
else t_pass; fi

t_start limits-procs-threads "threads, vfork and fork are counted alike: under --limit-procs 16 a probe starts 15 threads and then neither vfork nor fork succeeds; with --limit-procs none it starts 100 and both succeed"
out=$(run --limit-procs 16 --timeout 60 -- "$PROBES/lim_threads" 100); RC=$(cat "$TMP/rc")
ctl=$(run --limit-procs none --timeout 60 -- "$PROBES/lim_threads" 100); ctl_rc=$(cat "$TMP/rc")
if [ "$out" = "err EAGAIN threads=15 vfork=EAGAIN fork=EAGAIN" ] && [ "$RC" -eq 1 ] &&
	[ "$ctl" = "ok threads=100 vfork=ok fork=ok" ] && [ "$ctl_rc" -eq 0 ]; then t_pass
else t_fail "limited='$out' rc=$RC ($(head -c 200 "$TMP/err")) unlimited='$ctl' rc=$ctl_rc"; fi

t_start limits-procs-mechanism "the process limit is a pids cgroup (pids.max = N + the init) where the caller can create one, else RLIMIT_NPROC = N + 2 in the sandbox's own user namespace; the cgroup is removed after the call"
tag="pm$$x$(date +%s)"
bg --limit-procs 64 --timeout 60 -- "$FB" 1 "$tag" 3
wait_tagged "$FB" "$tag" 2
pid=$(tagged "$FB" "$tag" | head -n 1)
mech=none; dir=""
if [ -n "$pid" ]; then
	v1=$(cg_line "$pid" pids); v2p=$(cg_line "$pid" "")
	case "$v1" in */sandbx-*) mech=cgroup; dir=$(mnt_of cgroup pids)$v1 ;; esac
	case "$v2p" in */sandbx-*)
		[ -f "$(mnt_of cgroup2)$v2p/pids.max" ] && { mech=cgroup; dir=$(mnt_of cgroup2)$v2p; } ;;
	esac
	[ $mech = cgroup ] && pmax=$(cat "$dir/pids.max" 2>/dev/null)
	nproc=$(limit_of "$pid" "Max processes")
fi
bgwait
if [ -z "$pid" ]; then t_fail "the command was not found on the host"
elif pids_cgroup_expected && [ $mech != cgroup ]; then t_fail "a pids cgroup could be created here, but the command is in $(cat /proc/$pid/cgroup 2>/dev/null | tr '\n' ' ')"
elif [ $mech = cgroup ] && [ "$pmax" != 65 ]; then t_fail "pids.max of $dir is '$pmax', expected 65"
elif [ $mech = cgroup ] && [ -d "$dir" ]; then t_fail "the sandbox's cgroup $dir is still there after the call"
elif [ $mech = none ] && [ "$nproc" != 66 ]; then t_fail "no pids cgroup, and Max processes is '$nproc', expected 66"
elif [ $mech = none ] && grep -q 'limit-unenforced' "$TMP/err"; then t_fail "unprivileged RLIMIT_NPROC reported as unenforced"
else t_pass; fi

t_start limits-cgroup-lifecycle "root: the command runs in a cgroup v2 sandbx-PID (PID = the supervisor, which itself steps back out) that is gone after the call; unprivileged: the command stays in the caller's cgroup"
tag="lc$$x$(date +%s)"
bg --limit-procs 64 --timeout 60 -- "$FB" 1 "$tag" 2
wait_tagged "$FB" "$tag" 2
pid=$(tagged "$FB" "$tag" | head -n 1)
v2p=$(cg_line "$pid" ""); mine=$(cg_line self "")
sup=${v2p##*/sandbx-}; supcg=$(cg_line "$sup" "" 2>/dev/null)
bgwait
v2m=$(mnt_of cgroup2)
if [ -z "$pid" ]; then t_fail "the command was not found on the host"
elif is_root && [ -n "$v2m" ]; then
	case "$v2p" in
	*/sandbx-*)
		if [ -d "$v2m$v2p" ]; then t_fail "$v2m$v2p is still there after the call"
		else case "$supcg" in */sandbx-*) t_fail "the supervisor $sup stayed in the cgroup ($supcg)" ;; *) t_pass ;; esac; fi ;;
	*) t_fail "the command is not in a sandbx cgroup v2: '$v2p'" ;;
	esac
elif [ "$v2p" != "$mine" ]; then t_fail "an unprivileged run moved the command to '$v2p' (caller: '$mine')"
else t_pass; fi

t_start limits-cgroupns "the command has a cgroup namespace of its own: /proc/self/cgroup names no host cgroup path (not the caller's, not the sandbox's sandbx-PID), with or without a limit"
a=$(run --allow-read /proc -- /bin/cat /proc/self/cgroup); a_rc=$(cat "$TMP/rc")
b=$(run --allow-read /proc --limit-memory 256M -- /bin/cat /proc/self/cgroup); RC=$(cat "$TMP/rc")
bad=$(printf '%s\n%s\n' "$a" "$b" | grep -v ':/$')
if [ -z "$a" ] || [ -z "$b" ] || [ "$a_rc" -ne 0 ] || [ "$RC" -ne 0 ]; then
	t_fail "no /proc/self/cgroup read (rc $a_rc and $RC): $(cat "$TMP/err")"
elif [ -n "$bad" ]; then t_fail "host paths inside: $bad"
else t_pass; fi

t_start limits-procs-default "sandbox-run with no flag caps processes (4096); --limit-procs none lifts the cap"
tag="pd$$x$(date +%s)"
bg --timeout 60 -- "$FB" 1 "$tag" 2
wait_tagged "$FB" "$tag" 2
pid=$(tagged "$FB" "$tag" | head -n 1)
def_nproc=$(limit_of "$pid" "Max processes"); def_cg=$(cat "/proc/$pid/cgroup" 2>/dev/null)
def_max=""
if [ -n "$pid" ]; then
	v1=$(cg_line "$pid" pids); v2p=$(cg_line "$pid" "")
	case "$v1" in */sandbx-*) def_max=$(cat "$(mnt_of cgroup pids)$v1/pids.max" 2>/dev/null) ;; esac
	case "$v2p" in */sandbx-*)
		[ -f "$(mnt_of cgroup2)$v2p/pids.max" ] && def_max=$(cat "$(mnt_of cgroup2)$v2p/pids.max") ;;
	esac
fi
bgwait
tag="pn$$x$(date +%s)"
bg --limit-procs none --timeout 60 -- "$FB" 1 "$tag" 2
wait_tagged "$FB" "$tag" 2
pid=$(tagged "$FB" "$tag" | head -n 1)
none_nproc=$(limit_of "$pid" "Max processes"); none_cg=$(cat "/proc/$pid/cgroup" 2>/dev/null)
bgwait
mine=$(limit_of $$ "Max processes")
if pids_cgroup_expected; then
	if ! echo "$def_cg" | grep -q 'sandbx-'; then t_fail "default run not in a sandbx cgroup: $def_cg"
	elif [ "$def_max" != 4097 ]; then t_fail "default pids.max '$def_max', expected 4097 (4096 + the init)"
	elif echo "$none_cg" | grep -q 'sandbx-'; then t_fail "--limit-procs none still made a cgroup: $none_cg"
	elif [ "$none_nproc" != "$mine" ]; then t_fail "--limit-procs none: Max processes '$none_nproc', the caller's is '$mine'"
	else t_pass; fi
else
	if [ "$def_nproc" != 4098 ]; then t_fail "default Max processes '$def_nproc', expected 4098 (4096 + supervisor + init)"
	elif [ "$none_nproc" != "$mine" ]; then t_fail "--limit-procs none: Max processes '$none_nproc', the caller's is '$mine'"
	else t_pass; fi
fi

t_start limits-degraded-forced "with no writable cgroup the limits fall back to rlimits and say so: root (cgroupfs made read-only in a private mount namespace) gets 'limit-unenforced' for processes, since RLIMIT_NPROC never binds uid 0; an unprivileged caller gets no cgroup and a binding RLIMIT_NPROC"
if is_root; then
	( cd "$W" && unshare -m --propagation private sh -c '
		for m in $(awk '"'"'{ for (i = 1; $i != "-"; i++); if ($(i+1) ~ /^cgroup2?$/) print $5 }'"'"' /proc/self/mountinfo); do
			mount -o bind,remount,ro "$m" || exit 99
		done
		exec "$0" sandbox-run --limit-procs 64 --limit-memory 256M -- /bin/true' "$SANDBX" ) >"$TMP/out" 2>"$TMP/err"
	RC=$?
	if [ "$RC" -ne 0 ]; then t_fail "exit $RC: $(cat "$TMP/err")"
	elif ! grep -q 'sandbx audit degraded mechanism=limit-unenforced' "$TMP/err"; then t_fail "no limit-unenforced record: $(cat "$TMP/err")"
	elif ! grep -q 'sandbx audit degraded mechanism=limit-rlimit limit=memory' "$TMP/err"; then t_fail "no memory record: $(cat "$TMP/err")"
	else t_pass; fi
else
	tag="dg$$x$(date +%s)"
	bg --limit-procs 64 --timeout 60 -- "$FB" 1 "$tag" 2
	wait_tagged "$FB" "$tag" 2
	pid=$(tagged "$FB" "$tag" | head -n 1)
	cg=$(cat "/proc/$pid/cgroup" 2>/dev/null); nproc=$(limit_of "$pid" "Max processes")
	bgwait
	if [ -z "$pid" ]; then t_fail "the command was not found on the host"
	elif echo "$cg" | grep -q 'sandbx-'; then t_fail "an unprivileged caller got a cgroup: $cg"
	elif [ "$nproc" != 66 ]; then t_fail "Max processes '$nproc', expected 66"
	elif grep -q 'limit-unenforced' "$TMP/err"; then t_fail "reported unenforced: $(cat "$TMP/err")"
	else t_pass; fi
fi

# ---- memory --------------------------------------------------------------------

t_start limits-memory "an allocation of 2 GiB under --limit-memory 256M fails (rlimit) or is killed (cgroup) without ever holding more than 256 MiB"
out=$(run --limit-memory 256M --timeout 60 -- "$PROBES/lim_alloc" 2048); RC=$(cat "$TMP/rc")
mib=${out##*mib=}
case "$out" in
"err ENOMEM mib="*)
	if [ "$RC" -ne 1 ]; then t_fail "rc=$RC after '$out', expected the probe's own exit 1: $(cat "$TMP/err")"
	elif [ "$mib" -ge 256 ]; then t_fail "reached $mib MiB before ENOMEM"
	elif [ "$mib" -lt 128 ]; then t_fail "only $mib MiB before ENOMEM: the limit is tighter than asked"
	else t_pass; fi ;;
"")	if [ "$RC" -eq 137 ] && memory_cgroup_expected; then t_pass
	else t_fail "no output, rc=$RC: $(cat "$TMP/err")"; fi ;;
*)	t_fail "expected ENOMEM below 256 MiB, got '$out' rc=$RC" ;;
esac

t_start limits-memory-degraded "where no memory cgroup can be created (always for an unprivileged caller here), the memory limit is RLIMIT_AS and a degraded record names it"
tag="md$$x$(date +%s)"
bg --limit-memory 256M --timeout 60 -- "$FB" 1 "$tag" 2
wait_tagged "$FB" "$tag" 2
pid=$(tagged "$FB" "$tag" | head -n 1)
as=$(limit_of "$pid" "Max address space")
bgwait
if memory_cgroup_expected; then
	if grep -q 'limit=memory' "$TMP/err"; then t_fail "a memory cgroup was possible, yet degraded: $(cat "$TMP/err")"
	else t_pass; fi
elif ! grep -q 'sandbx audit degraded mechanism=limit-rlimit limit=memory' "$TMP/err"; then t_fail "no degraded record for memory: $(cat "$TMP/err")"
elif [ "$as" != 268435456 ]; then t_fail "Max address space is '$as', expected 268435456"
else t_pass; fi

# What is said when a command goes over the memory limit, by mechanism (the
# README, the man page and SECURITY.md list it): a memory cgroup's OOM kill
# is named; under RLIMIT_AS nothing is killed by the limit, an allocation
# fails and the program decides (an error of its own, or a crash such as
# SIGSEGV when the loader cannot map itself), which sandbx cannot tell from
# any other failure, so it names no limit: the degraded record is the sign.
t_start limits-memory-report "over the memory limit: a cgroup's OOM kill is reported as 'memory limit 256M reached'; under RLIMIT_AS the command fails by itself (ENOMEM, or SIGSEGV under 1k) and no limit is named, the degraded record says which mechanism held it"
run --limit-memory 256M --timeout 60 -- "$PROBES/lim_alloc" 2048 >/dev/null
if memory_cgroup_expected; then
	if [ "$RC" -eq 137 ] && grep -q 'sandbx: the command was killed: memory limit 256M reached' "$TMP/err"; then t_pass
	else t_fail "rc=$RC, expected 137 and the memory limit line: $(cat "$TMP/err")"; fi
else
	a=$RC; a_err=$(cat "$TMP/err")
	run --limit-memory 1k --timeout 60 -- /bin/true >/dev/null
	if [ "$a" -ne 1 ]; then t_fail "lim_alloc under RLIMIT_AS: rc=$a, expected its own exit 1 (ENOMEM): $a_err"
	elif [ "$RC" -ne 139 ]; then t_fail "/bin/true under --limit-memory 1k: rc=$RC, expected 139 (SIGSEGV): $(cat "$TMP/err")"
	elif printf '%s\n' "$a_err" | grep -q 'the command was killed' || grep -q 'the command was killed' "$TMP/err"; then
		t_fail "a limit was named though none killed the command: $a_err $(cat "$TMP/err")"
	elif ! grep -q 'sandbx audit degraded mechanism=limit-rlimit limit=memory' "$TMP/err"; then t_fail "no degraded record: $(cat "$TMP/err")"
	else t_pass; fi
fi

# System V objects: refused when the memory limit is an rlimit, which
# cannot count them; allowed under a memory cgroup, which charges them, and
# with no memory limit.  sysv NAME [FLAGS...]: the probe's answer in $out.
sysv() { n=$1; shift; out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" "$@" -- "$PROBES/sys" "$n" ) 2>/dev/null); }
if memory_cgroup_expected; then want="ok"; else want="err ENOSPC"; fi
# sysv_case ID NAME: NAME under --limit-memory answers $want, and works
# without a memory limit.  Each id is written out for the claims check.
sysv_case() {
	t_start "$1" "$2 under --limit-memory answers '$want' here (ENOSPC when the limit is an rlimit), and works with no memory limit"
	sysv "$2" --limit-memory 256M; got=$out
	sysv "$2"
	case "$got|$out" in
	"$want"*"|ok") t_pass ;;
	*) t_fail "with the limit '$got', without '$out'" ;;
	esac
}
sysv_case limits-sysv-shm shmget
sysv_case limits-sysv-msg msgget
sysv_case limits-sysv-sem semget

# ---- CPU -----------------------------------------------------------------------

t_start limits-cpu "a spin under --limit-cpu 1 is killed by SIGXCPU (exit 152) after about a second of CPU"
t0=$(now_ms)
run --limit-cpu 1 --timeout 30 -- "$PROBES/lim_spin" >/dev/null
ms=$(($(now_ms) - t0))
if [ "$RC" -ne 152 ]; then t_fail "exit $RC, expected 152 (128 + SIGXCPU): $(cat "$TMP/err")"
elif [ "$ms" -gt 6000 ]; then t_fail "took $ms ms of wall time"
else t_pass; fi

t_start limits-no-core "the command dumps no core: RLIMIT_CORE is one byte, soft and hard, so raising it changes nothing and a spin killed by SIGXCPU (a signal that dumps core) leaves no core file in the writable grant"
rm -f "$W"/core*
run --limit-cpu 1 --timeout 30 -- /bin/sh -c 'ulimit -c unlimited 2>/dev/null; [ "$(ulimit -c)" = 0 ] || echo raised; exec "$0"' "$PROBES/lim_spin" >/dev/null
spin_rc=$RC raised=$(cat "$TMP/out")
tag="nc$$x$(date +%s)"
bg --timeout 60 -- "$FB" 1 "$tag" 3
wait_tagged "$FB" "$tag" 1
pid=$(tagged "$FB" "$tag" | head -n 1)
core=""; [ -n "$pid" ] && core=$(limit_of "$pid" "Max core file size" both)
bgwait
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
if [ "$spin_rc" -ne 152 ]; then t_fail "the spin exited $spin_rc, expected 152: $(cat "$TMP/err")"
elif [ -n "$raised" ]; then t_fail "the command raised its core limit"
elif [ "$core" != "1 1" ]; then t_fail "Max core file size of the command is '$core', expected '1 1'"
elif ls "$W"/core* >/dev/null 2>&1; then t_fail "a core file was left: $(ls "$W"/core*) (core_pattern '$pattern')"
else t_pass; fi

t_start limits-core-one-byte "the command's core limit is one byte, soft and hard, and stays so: lowering it to 0 (ssh-agent's setrlimit) returns ok and changes nothing, and prlimit64 lowering it while asking the old value is refused (EPERM); a core_pattern that pipes to a program skips a dump at one byte only, not at 0"
out=$(run -- "$PROBES/sys" core-limit); RC=$(cat "$TMP/rc")
gs=$(run -- "$PROBES/sys" core-limit-getset); gs_rc=$(cat "$TMP/rc")
if [ "$out" != "ok 1 1" ] || [ "$RC" -ne 0 ]; then t_fail "core limit after lowering it: '$out' (rc $RC), expected 'ok 1 1' and rc 0"
elif [ "${gs%% *}" != "err" ] || [ "$(echo "$gs" | cut -d' ' -f2)" != EPERM ] || [ "$gs_rc" -ne 1 ]; then
	t_fail "prlimit64 set+get of the core limit: '$gs' (rc $gs_rc), expected EPERM and rc 1"
else t_pass; fi

t_start limits-core-hard-zero "a caller whose hard core limit is 0 cannot give one byte: with a core_pattern naming a file the command runs with 0, soft and hard; with one handing dumps to a program or socket of the host the run is refused (exit 125, refused mechanism=core-dump)"
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
out=$( (ulimit -Hc 0 && cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" -- "$PROBES/sys" core-limit) 2>"$TMP/err")
rc=$?
case $pattern in
"|"* | "@"*)
	if [ "$rc" -ne 125 ] || ! grep -q 'refused mechanism=core-dump' "$TMP/err"; then
		t_fail "pattern '$pattern', hard limit 0: exit $rc, expected 125 and a core-dump refusal: $(cat "$TMP/err")"
	else t_pass; fi ;;
*)
	if [ "$rc" -ne 0 ] || [ "$out" != "ok 0 0" ]; then
		t_fail "pattern '$pattern', hard limit 0: exit $rc, '$out', expected 0 and 'ok 0 0': $(cat "$TMP/err")"
	else t_pass; fi ;;
esac

# ---- scheduling ----------------------------------------------------------------

# sched_in [PREFIX...]: the sched probe's line (tests/probes/sys.c) from a
# sandbox started through PREFIX (prlimit, chrt, setpriv), from a working
# directory any user may use; SCHED_BAD is set to why the line is not an
# ordinary user's: no real-time or nice headroom left (both limits 0, soft
# and hard), SCHED_OTHER, and SCHED_FIFO, setpriority(-5) and
# SCHED_DEADLINE refused.
SW="$TMP/sched"
mkdir -p "$SW"; chmod 777 "$SW"
sched_in() {
	line=$( (cd "$SW" && "$@" "$SANDBX" sandbox-run --allow-exec "$PROBES" -- "$PROBES/sys" sched) 2>"$TMP/err")
	SCHED_BAD=""
	for f in rtprio=0/0 nice=0/0 policy=other/0 fifo=EPERM setprio=EACCES deadline=EPERM; do
		case " $line " in
		*" $f "*) ;;
		*) SCHED_BAD="${SCHED_BAD:+$SCHED_BAD; }not $f" ;;
		esac
	done
	[ -z "$SCHED_BAD" ] || SCHED_BAD="through '$*': $SCHED_BAD in '$line' $(tail -n 2 "$TMP/err")"
}
ASNOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

t_start limits-rt-nice-zero "the command's RLIMIT_RTPRIO and RLIMIT_NICE are 0, soft and hard, what an ordinary user has, also where the caller's were raised (as root, where root may raise hard limits: prlimit --rtprio=50:50 --nice=30:30, for root and for another user through setpriv): sched_setscheduler(SCHED_FIFO) and sched_setattr(SCHED_DEADLINE) answer EPERM, setpriority(-5) EACCES"
raise=""
is_root && prlimit --rtprio=50:50 --nice=30:30 -- true 2>/dev/null && raise="prlimit --rtprio=50:50 --nice=30:30 --"
bad=""
sched_in; bad=$SCHED_BAD
if [ -z "$bad" ] && [ -n "$raise" ]; then
	sched_in $raise; bad=$SCHED_BAD
	[ -n "$bad" ] || { sched_in $raise $ASNOBODY; bad=$SCHED_BAD; }
fi
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start limits-rt-caller-policy "a caller running SCHED_FIFO (chrt -f 1: root, and another user started so by root through setpriv) does not pass it on: the command runs SCHED_OTHER, and its own SCHED_FIFO, setpriority(-5) and SCHED_DEADLINE are refused; a caller that cannot take SCHED_FIFO (RLIMIT_RTPRIO 0, no CAP_SYS_NICE) shows the plain case"
if chrt -f 1 true 2>/dev/null; then
	sched_in chrt -f 1; bad=$SCHED_BAD
	if [ -z "$bad" ] && is_root; then sched_in chrt -f 1 $ASNOBODY; bad=$SCHED_BAD; fi
else
	sched_in; bad=$SCHED_BAD
fi
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start limits-rt-refused "where the command stage cannot make the command an ordinary user's process the run is refused, not run with the caller's scheduling: with setting RLIMIT_RTPRIO answered EPERM (a seccomp filter of the caller's: schedfail --rtprio; any caller), and with leaving the caller's SCHED_FIFO answered EPERM (chrt -f 1 and schedfail --setscheduler, where the caller can take SCHED_FIFO: root), sandbx exits 125 with refused mechanism=scheduling naming the error, and the command never ran; the same runs without the filter do run it"
SF=$TESTTOOLS/schedfail
bad=""
# sched_try WANT PREFIX...: sandbox-run under PREFIX; WANT 125 (refused,
# not run) or 0 (ran: the control)
sched_try() {
	want=$1; shift
	rm -f "$W/ran"
	( cd "$W" && "$@" "$SANDBX" sandbox-run --allow-write "$W" -- /bin/sh -c 'echo ran > ran' ) >/dev/null 2>"$TMP/err"
	rc=$?
	ran=no; [ -e "$W/ran" ] && ran=yes
	if [ "$want" = 125 ] && [ "$rc" = 125 ] && [ "$ran" = no ] &&
	   grep -q '^sandbx audit refused mechanism=scheduling reason=.*left: Operation not permitted); nothing was run"$' "$TMP/err" &&
	   grep -q '^sandbx audit exited .* code=125$' "$TMP/err"; then return
	elif [ "$want" = 0 ] && [ "$rc" = 0 ] && [ "$ran" = yes ]; then return; fi
	bad="$bad [$*: rc=$rc ran=$ran $(grep -v '^sandbx audit spawned' "$TMP/err" | head -3 | tr '\n' ' ')]"
}
sched_try 125 "$SF" --rtprio --
sched_try 0 env --
if chrt -f 1 true 2>/dev/null; then
	sched_try 125 chrt -f 1 "$SF" --setscheduler --
	sched_try 0 chrt -f 1 env --
fi
rm -f "$W/ran"
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start limits-init-no-host-handles "the sandbox's init holds no handle on the host: as root, none of its descriptors above the standard three is anything but a pipe or its own signalfd (no cgroup directory, the supervisor's alone and removed after the call; no /proc, namespace or socket handle); as the caller's own user, its descriptors cannot even be listed"
tag="ih$$x$(date +%s)"
bg --limit-procs 64 --timeout 60 -- "$FB" 1 "$tag" 3
wait_tagged "$FB" "$tag" 1
pid=$(tagged "$FB" "$tag" | head -n 1)
init=""; [ -n "$pid" ] && init=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status")
fds=""; lserr=""
if [ -n "$init" ]; then
	fds=$(for f in /proc/"$init"/fd/*; do echo "${f##*/} $(readlink "$f")"; done 2>/dev/null)
	lserr=$(ls /proc/"$init"/fd 2>&1 >/dev/null)
fi
bgwait
if [ -z "$init" ]; then t_fail "the command was not found on the host"
elif is_root && [ -z "$fds" ]; then t_fail "root could not read the init's descriptors: $lserr"
elif is_root && echo "$fds" | grep -v -e '^[012] ' -e '^[0-9]* pipe:\[[0-9]*\]$' -e '^[0-9]* anon_inode:\[signalfd\]$' | grep -q .; then t_fail "the init holds: $(echo "$fds" | grep -v -e '^[012] ' -e '^[0-9]* pipe:\[[0-9]*\]$' -e '^[0-9]* anon_inode:\[signalfd\]$' | tr '\n' ' ')"
elif ! is_root && ! echo "$lserr" | grep -q 'Permission denied'; then t_fail "the caller's user listed the init's descriptors: '$fds' $lserr"
else t_pass; fi

t_start limits-cpu-hard "a spin ignoring SIGXCPU under --limit-cpu 1 is killed (SIGKILL, exit 137) one second later"
t0=$(now_ms)
run --limit-cpu 1 --timeout 30 -- "$PROBES/lim_spin" ignore >/dev/null
ms=$(($(now_ms) - t0))
if [ "$RC" -ne 137 ]; then t_fail "exit $RC, expected 137: $(cat "$TMP/err")"
elif [ "$ms" -gt 8000 ]; then t_fail "took $ms ms of wall time"
else t_pass; fi

t_start limits-cpu-message "a command killed by the CPU limit is reported: 'the command was killed: CPU time limit 1s reached'"
run --limit-cpu 1 --timeout 30 -- "$PROBES/lim_spin" >/dev/null
a=$(grep -c 'sandbx: the command was killed: CPU time limit 1s reached' "$TMP/err")
run --limit-cpu 1 --timeout 30 -- "$PROBES/lim_spin" ignore >/dev/null
b=$(grep -c 'sandbx: the command was killed: CPU time limit 1s reached' "$TMP/err")
run --timeout 30 -- /bin/sh -c 'kill -9 $$' >/dev/null
c=$(grep -c 'the command was killed' "$TMP/err")
if [ "$a" -ne 1 ] || [ "$b" -ne 1 ]; then t_fail "message missing (SIGXCPU: $a, SIGKILL: $b): $(cat "$TMP/err")"
elif [ "$c" -ne 0 ]; then t_fail "a SIGKILL with no limit involved was reported as a limit"
else t_pass; fi

t_start limits-cpu-tick "a command stopped by --limit-cpu 1 that ran only across the scheduler's ticks (charged about four times what it ran, as a busy host charges by chance) is still reported: the limit is judged by the kernel's own tick-charged figure"
run --limit-cpu 1 --timeout 30 -- "$PROBES/lim_spin" tick >/dev/null
out=$(cat "$TMP/out")
if [ "$out" = "tick=0" ]; then t_skip "this kernel charges exact CPU time (no tick accounting)"
elif [ "$RC" -ne 152 ]; then t_fail "exit $RC, expected 152 ($out): $(cat "$TMP/err")"
elif ! grep -q 'sandbx: the command was killed: CPU time limit 1s reached' "$TMP/err"; then t_fail "message missing ($out): $(cat "$TMP/err")"
else t_pass; fi

t_start limits-cpu-forged "a command that sends itself SIGXCPU under --limit-cpu 5 without spending the time exits 152 with no 'CPU time limit' line"
run --limit-cpu 5 --timeout 30 -- /bin/sh -c 'kill -XCPU $$' >/dev/null
if [ "$RC" -ne 152 ]; then t_fail "exit $RC, expected 152: $(cat "$TMP/err")"
elif grep -q 'CPU time limit' "$TMP/err"; then t_fail "a SIGXCPU sent by the command was reported as the limit: $(grep 'limit' "$TMP/err")"
else t_pass; fi

# ---- file size -----------------------------------------------------------------

t_start limits-fsize "a write past --limit-file-size 1M fails with EFBIG at 1 MiB"
out=$(run --limit-file-size 1M -- "$PROBES/lim_write" "$W/big" 2048 ignore); RC=$(cat "$TMP/rc")
size=$(wc -c < "$W/big" 2>/dev/null)
if [ "$out" != "err EFBIG kib=1024" ] || [ "$RC" -ne 1 ]; then t_fail "expected 'err EFBIG kib=1024' and rc 1, got '$out' rc=$RC"
elif [ "$size" -ne 1048576 ]; then t_fail "the file holds $size bytes"
else t_pass; fi

t_start limits-fsize-signal "a writer that does not ignore SIGXFSZ dies by it (exit 153) and is reported: 'file size limit 1M reached'"
run --limit-file-size 1M -- "$PROBES/lim_write" "$W/big2" 2048 >/dev/null
if [ "$RC" -ne 153 ]; then t_fail "exit $RC, expected 153"
elif ! grep -q 'sandbx: the command was killed: file size limit 1M reached' "$TMP/err"; then t_fail "no message: $(cat "$TMP/err")"
else t_pass; fi
rm -f "$W/big" "$W/big2"

# ---- open files ----------------------------------------------------------------

t_start limits-nofile "--limit-open-files 50 stops the 48th open (0-2 are open) with EMFILE"
out=$(run --limit-open-files 50 -- "$PROBES/lim_nofile" 1000); RC=$(cat "$TMP/rc")
[ "$out" = "err EMFILE opened=47" ] && [ "$RC" -eq 1 ] && t_pass || t_fail "expected 'err EMFILE opened=47' and rc 1, got '$out' rc=$RC"

t_start limits-nofile-small "a --limit-open-files below what the sandbox itself holds open while it is built (4 here: one above 0-2) binds the command alone: the probe opens one file and is stopped at the second, and the run is not refused"
out=$(run --limit-open-files 4 -- "$PROBES/lim_nofile" 1000); RC=$(cat "$TMP/rc")
if [ "$out" != "err EMFILE opened=1" ] || [ "$RC" -ne 1 ]; then
	t_fail "expected 'err EMFILE opened=1' and rc 1, got '$out' rc=$RC: $(grep -v 'audit spawned' "$TMP/err")"
else t_pass; fi

t_start limits-caller-nofile-low "a caller whose soft open-files limit is too low for sandbx's own descriptors (ulimit -Sn 12, the hard limit higher) still gets a sandbox: sandbx raises its own soft limit, and the command, and the agent's bash, are held to the caller's 12"
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 1024 ]; then t_skip "the hard open-files limit here is $hard"
else
	out=$( ulimit -Sn 12; run -- "$PROBES/lim_nofile" 1000 ); rc1=$(cat "$TMP/rc")
	e1=$(grep -v 'audit spawned' "$TMP/err")
	tl=$( cd "$W" && ulimit -Sn 12 && "$SANDBX" tool bash '{"command":"ulimit -n"}' 2>"$TMP/err2" )
	if [ "$out" != "err EMFILE opened=9" ] || [ "$rc1" -ne 1 ]; then
		t_fail "sandbox-run: expected 'err EMFILE opened=9' and rc 1, got '$out' rc=$rc1: $e1"
	elif ! printf '%s' "$tl" | grep -qF '12\n[exit status 0]'; then t_fail "tool bash: $tl $(cat "$TMP/err2")"
	else t_pass; fi
fi

t_start limits-caller-nofile-hard "a hard open-files limit below what sandbx needs for itself (ulimit -n 20) refuses the run up front (exit 125, a refused record), naming the limit and what to do, never a refusal with no reason"
( cd "$W" && ulimit -n 20 && exec "$SANDBX" sandbox-run -- /bin/true ) >"$TMP/out" 2>"$TMP/err"; rc1=$?
( cd "$W" && ulimit -n 20 && exec "$SANDBX" tool bash '{"command":"true"}' ) >"$TMP/out2" 2>"$TMP/err2"; rc2=$?
if [ $rc1 -ne 125 ] || [ $rc2 -ne 125 ]; then t_fail "exit $rc1 and $rc2, expected 125: $(cat "$TMP/err" "$TMP/err2")"
elif ! grep -q "^sandbx: the open-files limit is 20 .*ulimit -Hn.* — raise" "$TMP/err"; then t_fail "no message naming the limit: $(cat "$TMP/err")"
elif ! grep -q '^sandbx audit refused reason="the open-files limit is 20' "$TMP/err"; then t_fail "no refused record: $(cat "$TMP/err")"
elif grep -q 'audit spawned' "$TMP/err"; then t_fail "something was spawned: $(cat "$TMP/err")"
elif ! grep -q "^sandbx: the open-files limit is 20 " "$TMP/err2" || [ -s "$TMP/out2" ]; then t_fail "tool: $(cat "$TMP/out2" "$TMP/err2")"
else t_pass; fi

t_start limits-caller-nofile-held "a caller holding nearly every descriptor its limit allows (64, with 50 to 58 open) either runs or is refused (exit 125) naming the open-files limit and what to do, with refused and exited records after the spawned one: never a refusal with no reason"
bad="" hit=0 n=50
while [ $n -le 58 ]; do
	( cd "$W" && exec python3 -c 'import os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
for i in range(int(sys.argv[1])): os.set_inheritable(os.open("/dev/null", os.O_RDONLY), True)
os.execv(sys.argv[2], ["sandbx", "sandbox-run", "--", "/bin/true"])' $n "$SANDBX" ) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 125 ]; then
		hit=$((hit + 1))
		grep -q '^sandbx: .*Too many open files — .*ulimit -n' "$TMP/err" &&
			grep -q '^sandbx audit refused mechanism=helper reason=' "$TMP/err" &&
			grep -q '^sandbx audit exited command=/bin/true code=125$' "$TMP/err" ||
			bad="$bad [$n open: $(tr '\n' ' ' < "$TMP/err")]"
	elif [ $rc -ne 0 ]; then bad="$bad [$n open: exit $rc $(tr '\n' ' ' < "$TMP/err")]"
	fi
	n=$((n + 1))
done
if [ -n "$bad" ]; then t_fail "$bad"
elif [ $hit -eq 0 ]; then t_fail "no count of open descriptors from 50 to 58 was refused"
else t_pass; fi

# ---- cleanup after a timeout -----------------------------------------------------

t_start limits-timeout-cleanup "a call killed by --timeout leaves no process behind, and the cgroup its killed supervisor left is removed by the next call"
tag="tc$$x$(date +%s)"
bg --limit-procs 64 --timeout 2 -- "$FB" 20 "$tag" 30
wait_tagged "$FB" "$tag" 21
# the supervisor: the harness's child, whose command line is only
# "sandbx __sandbx-helper PID [early]" (the policy and command come over
# its channel)
sup=$(pgrep -P "$BG_PID" -f "^sandbx __sandbx-helper $BG_PID( early)?\$" | head -n 1)
bgwait
rc1=$RC
sleep 0.2
left=$(tagged "$FB" "$tag" | wc -l)
run --limit-procs 64 -- /bin/true >/dev/null
stale=""
if is_root && [ -n "$sup" ]; then
	for m in "$(mnt_of cgroup2)" "$(mnt_of cgroup pids)"; do
		[ -n "$m" ] && [ -d "$m/sandbx-$sup" ] && stale="$stale $m/sandbx-$sup"
	done
fi
if [ "$rc1" -ne 124 ]; then t_fail "exit $rc1, expected 124"
elif [ -z "$sup" ]; then t_fail "the supervisor was not found on the host"
elif [ "$left" -ne 0 ]; then t_fail "$left processes left after the timeout"
elif [ -n "$stale" ]; then t_fail "stale cgroups:$stale"
else t_pass; fi

t_done
