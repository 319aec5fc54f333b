# test_sandbox.sh — the filesystem, process and environment boundary of
# `sandbx sandbox-run` (issue 2), against the real kernel.
. "$(dirname "$0")/lib.sh"

W="$TMP/work"
O="$TMP/outside"
R="$TMP/ro"
mkdir -p "$W" "$O" "$R"
chmod 755 "$W" "$O" "$R"
echo secret > "$O/secret"
cp /bin/true "$O/prog"
cp /bin/true "$R/prog"
chmod 755 "$O/prog" "$R/prog"
FS="$PROBES/fs"
# Probes are run from their own exec grant; the work tree is writable.
run() { ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" "$@" ) 2>"$TMP/err"; }

t_start sb-works "sandbox-run runs a command on this kernel"
if sandbox_works; then t_pass; else
	t_skip "sandbox-run cannot run here: $(cd "$TMP" && "$SANDBX" sandbox-run -- /bin/true 2>&1 | tail -1)"
	t_done; exit 0
fi

t_start sb-read-outside "a file outside every grant cannot be read"
out=$(run -- "$FS" read "$O/secret")
case "$out" in err*) t_pass ;; *) t_fail "read outside: $out" ;; esac

t_start sb-write-outside "no file can be created outside every grant"
out=$(run -- "$FS" write "$O/new")
if [ ! -e "$O/new" ] && [ "${out%% *}" = err ]; then t_pass; else t_fail "write outside: $out"; fi

t_start sb-exec-outside "a program outside every grant cannot be executed"
out=$(run -- "$FS" exec "$O/prog")
case "$out" in err*) t_pass ;; *) t_fail "exec outside: $out" ;; esac

# The dynamic loader maps a program with mmap(PROT_EXEC), which Landlock's
# execute right does not cover: only the grant's noexec mount stops it.
LDSO=$(readelf -l /bin/echo 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
cp /bin/echo "$R/echo"; chmod 755 "$R/echo"

t_start sb-exec-readonly "a program in a read-only grant cannot be executed, also not through the dynamic loader"
out=$(run --allow-read "$R" -- "$FS" exec "$R/prog")
ld=$(run --allow-read "$R" -- "$LDSO" "$R/echo" mapped-and-ran)/$(cat "$TMP/err")
if [ -z "$LDSO" ]; then t_fail "no program interpreter found in /bin/echo"
else case "$out/$ld" in */mapped-and-ran/*) t_fail "loader mapped a read-only grant's program: $ld" ;;
	"err EACCES"*"failed to map"*|"err EPERM"*"failed to map"*) t_pass ;; *) t_fail "exec from read grant: $out; loader: $ld" ;; esac
fi

t_start sb-exec-written "a file the command wrote into its writable tree cannot be executed, also not through the dynamic loader"
out=$(run -- /bin/sh -c "cp /bin/true '$W/mine' && chmod 755 '$W/mine' && '$FS' exec '$W/mine'")
ld=$(run -- /bin/sh -c "cp /bin/echo '$W/mine2' && chmod 755 '$W/mine2' && '$LDSO' '$W/mine2' mapped-and-ran")/$(cat "$TMP/err")
if [ -z "$LDSO" ]; then t_fail "no program interpreter found in /bin/echo"
else case "$out/$ld" in */mapped-and-ran/*) t_fail "loader mapped a written file: $ld" ;;
	"err EACCES"*"failed to map"*|"err EPERM"*"failed to map"*) t_pass ;; *) t_fail "exec of written file: $out; loader: $ld" ;; esac
fi

t_start sb-writeonly-unreadable "a write-only grant (library level) cannot be read"
D="$TMP/drop"; mkdir -p "$D"; chmod 777 "$D"; echo old > "$D/f"; chmod 666 "$D/f"
out=$( cd "$W" && "$TESTTOOLS/policyrun" --exec "$PROBES" --write "$D" -- "$FS" read "$D/f" 2>"$TMP/err")
out2=$( cd "$W" && "$TESTTOOLS/policyrun" --exec "$PROBES" --write "$D" -- "$FS" write "$D/g" 2>>"$TMP/err")
case "$out/$out2" in "err EACCES"*"/ok") t_pass ;; *) t_fail "write-only grant: read=$out write=$out2 $(cat "$TMP/err")" ;; esac

t_start sb-symlink-out "a symlink inside the tree pointing outside does not lead out"
ln -sf "$O/secret" "$W/link"
out=$(run -- "$FS" read "$W/link")
case "$out" in err*) t_pass ;; *) t_fail "symlink out: $out" ;; esac
rm -f "$W/link"

t_start sb-hardlink-out "an outside file cannot be hard-linked into the tree"
out=$(run -- "$FS" link "$O/secret" "$W/hl")
if [ ! -e "$W/hl" ] && [ "${out%% *}" = err ]; then t_pass; else t_fail "hard link: $out"; fi

t_start sb-rename-in "an outside file cannot be renamed into the tree"
out=$(run -- "$FS" rename "$O/secret" "$W/stolen")
if [ -e "$O/secret" ] && [ ! -e "$W/stolen" ]; then t_pass; else t_fail "rename in: $out"; fi

t_start sb-rename-swap "a granted directory renamed away and replaced after vetting is refused"
S="$TMP/swapme"; mkdir -p "$S"; chmod 755 "$S"
( cd "$W" && "$TESTTOOLS/policyrun" --exec "$PROBES" --write "$S" --swap "$S" -- "$FS" write "$S/x" ) >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -eq 125 ] && grep -q "no longer the file or directory" "$TMP/err" && [ ! -e "$S/x" ] && [ ! -e "$S.swapped/x" ]; then t_pass
else t_fail "swap: rc=$rc $(cat "$TMP/err")"; fi

t_start sb-env-unlisted "an unlisted environment variable is absent; a listed one passes whole"
out=$(SBX_SECRET=hunter2 SBX_PASS='a b=c' run --allow-env SBX_PASS -- /bin/sh -c "'$FS' env SBX_SECRET; '$FS' env SBX_PASS")
if [ "$out" = "err unset
ok a b=c" ]; then t_pass; else t_fail "env: $out"; fi

t_start sb-env-loader-command-only "an allowlisted loader variable (LD_PRELOAD) reaches the command only, never the unconfined helper stages"
PL="$TMP/preload"; mkdir -p "$PL"; chmod 755 "$PL"
cat > "$PL/pre.c" <<'PRE'
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void mark(int argc, char **argv, char **envp)
{
	const char *m = getenv("PRE_MARK");
	FILE *f = m ? fopen(m, "a") : NULL;
	(void)envp;
	if (f) {
		fprintf(f, "%s %s\n", argv[0], argc > 1 ? argv[1] : "-");
		fclose(f);
	}
}
PRE
if ! cc -shared -fPIC -o "$PL/pre.so" "$PL/pre.c" 2>"$TMP/err"; then t_fail "cannot build the preload library: $(cat "$TMP/err")"
else
	chmod 755 "$PL/pre.so"; rm -f "$W/mark"
	# (an ASan build of sandbx refuses to start under LD_PRELOAD unless told not to check)
	ASAN_OPTIONS=verify_asan_link_order=0 PRE_MARK="$W/mark" LD_PRELOAD="$PL/pre.so" run --allow-exec "$PL" --allow-env LD_PRELOAD --allow-env PRE_MARK -- /bin/sh -c 'echo "$LD_PRELOAD"' >"$TMP/out"
	if [ "$(cat "$TMP/out")" = "$PL/pre.so" ] && grep -q '^/bin/sh -c$' "$W/mark" && ! grep -q "$(printf '__sandbx')" "$W/mark"; then t_pass
	else t_fail "out=$(cat "$TMP/out") marks: $(cat "$W/mark" 2>&1) $(cat "$TMP/err")"; fi
fi

t_start sb-proc-environ "the harness's secret is in no /proc entry, even with --allow-read /proc"
out=$(SBX_SECRET=zq7-harness-secret-zq7 run --allow-read /proc -- "$FS" grep-proc "$(echo zq7-harness-secret-zq7 | rev)")
out2=$(run --allow-read /proc -- "$FS" ls /proc)
pids=$(echo "$out2" | tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | tr '\n' ' ')
case "$out" in ok) if [ "$pids" = "1 2 " ]; then t_pass; else t_fail "/proc lists pids: $pids"; fi ;;
	*) t_fail "secret visible: $out" ;; esac

t_start sb-fd-cross "a descriptor the launching process held open does not cross"
out=$( exec 7</ 8<"$O/secret"; run -- "$FS" fds )
if [ "$out" = "ok" ]; then t_pass; else t_fail "descriptors crossed: $out"; fi

t_start sb-proc-init-fds "the init's descriptors (the audit pipe among them) and memory cannot be opened through /proc"
out=$(run --allow-read /proc -- "$FS" proc-reach 1)
self=$(run --allow-read /proc -- "$FS" proc-reach self)
# The probe's own descriptors do open: the check can see an opened one.
case "$out/$self" in ok/opened*) t_pass ;; *) t_fail "init reached: $out (self: $self)" ;; esac

# secbits ef: NOROOT, NO_SETUID_FIXUP and NO_CAP_AMBIENT_RAISE, each locked, and KEEP_CAPS_LOCKED
t_start sb-caps "capability sets are empty (the bounding set too), no_new_privs is set, and the securebits keep a uid 0 from regaining capabilities (locked)"
out=$(run -- "$FS" caps)
if [ "$out" = "ok inh=0 prm=0 eff=0 amb=0 nnp=1 secbits=ef bnd=0" ]; then t_pass; else t_fail "caps: $out"; fi

t_start sb-pid "the command is PID 2 of its own pid namespace"
out=$(run -- "$FS" getpid)
if [ "$out" = "ok 2" ]; then t_pass; else t_fail "getpid: $out"; fi

t_start sb-kill-host "a host process cannot be signalled"
sleep 30 & victim=$!
out=$(run -- "$FS" kill "$victim")
if kill -0 "$victim" 2>/dev/null && [ "${out%% *}" = err ]; then t_pass; else t_fail "kill host: $out"; fi
kill "$victim" 2>/dev/null; wait "$victim" 2>/dev/null

# The init takes a SIGTSTP as the job's ^Z and freezes the sandbox; Landlock's
# signal scope (ABI 6) refuses it from the command.  Under llfake --abi 5 the
# three calls answer "sent" and the probe never gets to "ran on".
t_start sb-signal-init "the command cannot signal the sandbox's init (kill, tgkill, rt_sigqueueinfo, or a SIGIO of a pipe it owns): a stop signal would freeze the whole sandbox as a ^Z does"
out=$(run --timeout 5 -- "$FS" signal-init); rc=$?
want=$(printf 'sigio sent\nEPERM\nEPERM\nEPERM\nran on')
if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then t_pass; else t_fail "rc=$rc: $(echo $out) $(cat "$TMP/err")"; fi

t_start sb-netns-empty "a TCP listener on the host's loopback cannot be reached"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
python3 -c "
import socket,sys,time
s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)
s.bind(('127.0.0.1',$port));s.listen(1);s.settimeout(10)
try:
    c,_=s.accept();open('$TMP/accepted','w').write('yes')
except Exception: pass
" & lis=$!
sleep 0.3
out=$(run -- "$FS" connect "$port")
kill "$lis" 2>/dev/null; wait "$lis" 2>/dev/null
if [ ! -e "$TMP/accepted" ] && [ "${out%% *}" = err ]; then t_pass; else t_fail "connect to host: $out"; fi

marker="sbxdaemon-$$-$(date +%s%N)"
t_start sb-daemon-gone "a setsid double-forked daemon is gone when the call ends"
run -- "$FS" daemon "$W/$marker" 60 >/dev/null
# no grace period: sandbx returns only once the init has killed and reaped
# everything in the sandbox's pid namespace
if pgrep -f "$marker" >/dev/null; then t_fail "daemon survived: $(pgrep -af "$marker")"; pkill -f "$marker"; else t_pass; fi

t_start sb-daemon-sigkill "the command's processes die when sandbx itself is killed with SIGKILL"
marker2="${marker}-k"
( cd "$W" && exec "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" -- /bin/sh -c "'$FS' daemon '$W/$marker2' 60; sleep 60" ) 2>/dev/null &
sbx_pid=$!
i=0; while [ ! -e "$W/$marker2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$sbx_pid"; wait "$sbx_pid" 2>/dev/null
i=0; while pgrep -f "$marker2" >/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -e "$W/$marker2" ]; then t_fail "the daemon never started"
elif pgrep -f "$marker2" >/dev/null; then t_fail "survivors: $(pgrep -af "$marker2")"; pkill -f "$marker2"
else t_pass; fi

t_start sb-signal-exited "SIGTERM, SIGHUP or SIGINT sent to sandbx ends the command's whole tree before sandbx goes, and the trail closes with an exited record naming the signal (stopped=SIGTERM, code 128+n); sandbx still dies by that signal"
bad=""
for sn in TERM:15 HUP:1 INT:2; do
	sig=${sn%:*} n=${sn#*:}; mk=$((5100000 + $$ % 100000 * 10 + n))
	got=$(RUNDIR="$W" ERRF="$TMP/err" sig_run "SIG$sig" 2 "^(/bin/)?sleep $mk\$" "$SANDBX" sandbox-run -- \
		/bin/sh -c "/bin/sleep $mk & exec /bin/sleep $mk")
	last=$(grep '^sandbx audit' "$TMP/err" | tail -1)
	[ "$got" = "signal $n 0" ] && grep -q '^sandbx audit spawned ' "$TMP/err" &&
		[ "$last" = "sandbx audit exited command=\"/bin/sh -c /bin/sleep $mk & exec /bin/sleep $mk\" code=$((128 + n)) stopped=SIG$sig" ] ||
		bad="$bad [SIG$sig: $got; $(cat "$TMP/err")]"
	pkill -f "^(/bin/)?sleep $mk\$"
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-timeout "--timeout kills the whole tree and exits 124"
start=$(date +%s)
run --timeout 1 -- /bin/sh -c "'$FS' daemon '$W/$marker-t' 60; sleep 60" >/dev/null
rc=$?; el=$(( $(date +%s) - start ))
if [ $rc -eq 124 ] && [ $el -le 4 ] && ! pgrep -f "$marker-t" >/dev/null && grep -q 'audit timeout' "$TMP/err"; then t_pass
else t_fail "timeout: rc=$rc after ${el}s"; pkill -f "$marker-t"; fi

t_start sb-timeout-long "a --timeout past 2^31 milliseconds (24.8 days) is that long: 4294968 s does not wrap to 0.7 s"
start=$(date +%s)
run --timeout 4294968 -- /bin/sh -c 'sleep 2; exit 3' >/dev/null
rc=$?; el=$(( $(date +%s) - start ))
if [ $rc -eq 3 ] && [ $el -ge 2 ] && ! grep -q 'audit timeout' "$TMP/err"; then t_pass
else t_fail "rc=$rc after ${el}s: $(cat "$TMP/err")"; fi

t_start sb-exit-status "exit status passes through; signal n is 128+n; 127 not found; 126 not executable"
run -- /bin/sh -c 'exit 7'; a=$?
run -- /bin/sh -c 'kill -TERM $$'; b=$?
run -- /nonexistent/prog; c=$?
touch "$W/noexec"; chmod 644 "$W/noexec"
run -- "$W/noexec"; d=$?
if [ "$a $b $c $d" = "7 143 127 126" ]; then t_pass; else t_fail "codes: $a $b $c $d (want 7 143 127 126)"; fi

t_start sb-exec-directory "a directory given as the program is 126 and named a directory, not a missing grant (execve answers EACCES for both)"
run -- /usr; rc=$?
if [ $rc -eq 126 ] && grep -q "cannot run '/usr': it is a directory" "$TMP/err" && ! grep -q "allow-exec" "$TMP/err"; then t_pass
else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start sb-exec-busy "a program open for writing elsewhere is 126 and said to be, not a missing grant (execve answers ETXTBSY)"
mkdir -p "$TMP/bx"; chmod 755 "$TMP/bx"; cp "$PROBES/fs" "$TMP/bx/busy"; chmod 755 "$TMP/bx/busy"
out=$( exec 7>>"$TMP/bx/busy"; cd "$W" && "$SANDBX" sandbox-run --allow-exec "$TMP/bx" --allow-write "$W" -- "$TMP/bx/busy" getpid 2>"$TMP/err" )
rc=$?
rm -rf "$TMP/bx"
if [ $rc -eq 126 ] && [ -z "$out" ] && grep -q "^sandbx: cannot run '$TMP/bx/busy': another process has it open for writing" "$TMP/err" &&
	! grep -q "allow-exec" "$TMP/err"; then t_pass
else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start sb-argmax-whole "the longest command line sandbx itself takes reaches the command whole: the policy, the command and its environment reach the helper over its channel, so they no longer pass the system's limit on one exec together (before, such a line was refused, 125)"
mkdir -p "$TMP/work"
out=$(cd "$TMP/work" && python3 - "$SANDBX" <<'PY'
import subprocess, sys
S = sys.argv[1]
env = {"PATH": "/usr/bin:/bin"}
def run(n, extra):
    args = ["x" * 999] * n + ["y" * extra]
    try:
        r = subprocess.run([S, "sandbox-run", "--", "/bin/sh", "-c", 'echo "$# ${#1}"', "sh"] + args,
                           capture_output=True, text=True, env=env)
    except OSError:
        return None
    return r
lo, hi = 1, 1 << 13
while lo < hi:			# the most 1000-byte words sandbx itself takes
    m = (lo + hi + 1) // 2
    if run(m, 1) is None: hi = m - 1
    else: lo = m
n = lo
lo, hi = 1, 1000
while lo < hi:			# then the longest last word
    m = (lo + hi + 1) // 2
    if run(n, m) is None: hi = m - 1
    else: lo = m
r = run(n, lo)
err = [l for l in r.stderr.splitlines() if not l.startswith("sandbx audit spawned")]
print(r.returncode, n + 1, r.stdout.strip())
print("\n".join(l if len(l) < 400 else l[:300] + " ... " + l[-40:] for l in err))
PY
)
set -- $(printf '%s\n' "$out" | head -n 1)
if [ "${1:-}" != 0 ]; then t_fail "exit ${1:-?}, expected 0: $out"
elif [ "${3:-}" != "${2:-x}" ] || [ "${4:-}" != 999 ]; then t_fail "the command got ${3:-?} arguments (first ${4:-?} bytes), expected ${2:-?} (999): $out"
elif ! printf '%s\n' "$out" | grep -q '^sandbx audit exited .* code=0$'; then t_fail "records: $out"
else t_pass; fi

t_start sb-refused-helper-gone "a run sandbx refuses after its helper was started (a grant that does not exist, a pin that does not match, a program the pin cannot open) ends and reaps that helper itself: nothing is left for the caller to reap, and the refusal says only why"
mkdir -p "$TMP/work"
out=$(cd "$TMP/work" && python3 - "$SANDBX" "$TMP" <<'PY'
import ctypes, os, subprocess, sys, time
S, T = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0) != 0:	# PR_SET_CHILD_SUBREAPER
    print("cannot be a subreaper"); sys.exit(0)
zero = "0" * 64
cases = [("grant", [S, "sandbox-run", "--allow-read", T + "/nope", "--", "/bin/true"], "does not exist"),
         ("pin", [S, "sandbox-run", "--pin-sha256", zero, "--", "/bin/true"], "sha256"),
         ("pin-missing", [S, "sandbox-run", "--pin-sha256", zero, "--", T + "/nope"], "nope")]
bad = []
for name, argv, said in cases:
    r = subprocess.run(argv, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    if r.returncode != 125 or said not in r.stderr or "spawned" in r.stderr:
        bad.append("%s: exit %d %r" % (name, r.returncode, r.stderr[-300:]))
    left = []
    end = time.time() + 3
    while time.time() < end:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            left.append(pid)
        else:
            time.sleep(0.02)
    if left:
        bad.append("%s: %d process(es) of sandbx's left to the caller" % (name, len(left)))
print("; ".join(bad) if bad else "ok")
PY
)
if [ "$out" = ok ]; then t_pass; else t_fail "$out"; fi

t_start sb-helper-early-refuses "a helper told it may make its namespaces first (no pin, no DNS name) refuses a start message that carries a pin or a DNS name, or is not one (EPROTO on the audit channel, exit 125), rather than running with a path or a name found inside its namespaces"
out=$(python3 - "$SANDBX" <<'PY'
import os, socket, struct, sys
S = sys.argv[1]
PRIVS, EPROTO = 12, 71	# ACH_REF_PRIVS (auditch.h), errno
def run(words, env, fds, bits, magic=0x73627832):
    r, w = os.pipe()
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.posix_spawn(S, [S, "__sandbx-helper", str(os.getpid()), "early"], {},
                         file_actions=[(os.POSIX_SPAWN_DUP2, w, 3), (os.POSIX_SPAWN_DUP2, b.fileno(), 5)])
    os.close(w)
    b.close()
    body = b"".join(x.encode() + b"\0" for x in words + env)
    head = struct.pack("=IIIIQ", magic, len(words), len(env), bits, len(body))
    try:
        socket.send_fds(a, [head + body], fds)
        a.sendall(struct.pack("=II", 0, 22))	# no filter
    except OSError:
        pass
    a.close()
    rec = os.read(r, 8)
    os.close(r)
    _, st = os.waitpid(pid, 0)
    return (struct.unpack("=HHi", rec) if len(rec) == 8 else None), os.waitstatus_to_exitcode(st)
null = os.open("/dev/null", os.O_RDWR)
pin = os.open("/bin/true", os.O_RDONLY)
std = [null, null, null]
cases = {
    "pin": (["pin", "--net", "none", "--", "/bin/true"], [], std + [pin], 7 | 64),
    "dns": (["nopin", "--net", "none", "--dns", "example.org", "--", "/bin/true"], [], std, 7),
    "magic": (["nopin", "--net", "none", "--", "/bin/true"], [], std, 7, 0x12345678),
    "fds": (["nopin", "--net", "none", "--", "/bin/true"], [], std[:2], 7),
}
bad = []
for name, c in cases.items():
    rec, code = run(*c)
    if rec is None or rec[0] != PRIVS or rec[2] != EPROTO or code != 125:
        bad.append("%s: record %s, exit %d" % (name, rec, code))
print("; ".join(bad) if bad else "ok")
PY
)
if [ "$out" = ok ]; then t_pass; else t_fail "$out"; fi

t_start sb-default-cwd "no path flag: read+write on the working directory, nothing else"
out=$( cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c "echo hi > made && cat made && cat '$O/secret'" 2>"$TMP/err")
rc=$?
if [ "$out" = hi ] && [ $rc -ne 0 ] && [ -e "$W/made" ]; then t_pass; else t_fail "default: rc=$rc out=$out"; fi

refused_cwd() { # ID DIR WHAT [ENV...]
	id=$1 dir=$2 what=$3; shift 3
	t_start "$id" "the working-directory default refuses $what"
	out=$( cd "$dir" && env "$@" "$SANDBX" sandbox-run -- /bin/true 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 125 ] && echo "$out" | grep -Eq "sandbx: .*$what"; then t_pass; else t_fail "rc=$rc: $out"; fi
}
refused_cwd sb-cwd-root / "filesystem root"
mkdir -p "$TMP/fakehome/proj"
refused_cwd sb-cwd-home "$TMP/fakehome" "your home directory" HOME="$TMP/fakehome"
refused_cwd sb-cwd-holds-home "$TMP" "holds your home directory" HOME="$TMP/fakehome"
refused_cwd sb-cwd-home-parent /home "holds (users' home directories|your home directory)"
first_home=$(ls -d /home/*/ 2>/dev/null | head -1)
if [ -n "$first_home" ]; then
	refused_cwd sb-cwd-home-child "$first_home" "looks like a home directory" HOME=relative
else
	t_start sb-cwd-home-child; t_skip "no directory under /home"
fi
refused_cwd sb-cwd-exec-overlap /usr/share "granted execute"
# each existing system directory, and each shared root itself, is refused
# as the default, the message naming it; nothing runs
refused_dirs() { # ID WHAT DIR...
	id=$1 what=$2; shift 2
	t_start "$id" "the working-directory default refuses $what"
	bad="" n=0
	for d in "$@"; do
		[ -d "$d" ] || continue
		n=$((n + 1))
		out=$( cd "$d" && "$SANDBX" sandbox-run -- /bin/sh -c "echo ran > '$O/ran-$id'" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 125 ] || [ -e "$O/ran-$id" ] || ! echo "$out" | grep -q "^sandbx: the working directory '$d' .*$what.* run sandbx from a project directory, or name what to grant"; then
			bad="$bad [$d rc=$rc $out]"
		fi
	done
	if [ $n -eq 0 ]; then t_fail "none of $* exists"
	elif [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
}
refused_dirs sb-cwd-system "system directory" /etc /etc/apt /boot /dev /dev/shm /proc /sys /sys/fs/cgroup /run
refused_dirs sb-cwd-shared-root "shared system directory" /var /opt /srv /tmp /var/tmp

t_start sb-cwd-tmp-project "a project directory in /tmp is still granted read+write by default"
PJ=$(mktemp -d /tmp/sbxproj.XXXXXX); chmod 755 "$PJ"
out=$( cd "$PJ" && "$SANDBX" sandbox-run -- /bin/sh -c "echo hi > made && cat made" 2>"$TMP/err")
rc=$?
if [ $rc -eq 0 ] && [ "$out" = hi ] && [ -e "$PJ/made" ]; then t_pass; else t_fail "rc=$rc out=$out $(cat "$TMP/err")"; fi
rm -rf "$PJ"

t_start sb-write-kernel-tree "write on /proc, /sys (cgroupfs) or /dev, or on a tree holding them (/), is refused, naming the path; read and exec are not"
bad=""
for d in /sys/fs/cgroup /sys /proc /dev/shm /dev; do
	out=$( cd "$W" && "$SANDBX" sandbox-run --allow-write "$d" -- /bin/sh -c "echo ran > '$O/ran-kt'" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 125 ] || [ -e "$O/ran-kt" ] || ! echo "$out" | grep -q "^sandbx: --allow-write '$d' lies in '.*', the kernel's own interface .*project directory"; then
		bad="$bad [$d rc=$rc $out]"
	fi
done
# '.' from inside cgroupfs: named by where it is
out=$( cd /sys/fs/cgroup && "$SANDBX" sandbox-run --allow-write . -- /bin/true 2>&1)
rc=$?
echo "$out" | grep -q "'/sys/fs/cgroup' lies in '/sys', the kernel's own interface" && [ $rc -eq 125 ] || bad="$bad [. rc=$rc $out]"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-read /sys/fs/cgroup -- /bin/true 2>&1)
rc=$?
[ $rc -eq 0 ] || bad="$bad [read rc=$rc $out]"
# a tree holding them: refused too; --allow-exec there gives no write, and runs
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-write / -- /bin/sh -c "echo ran > '$O/ran-kt'" 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 125 ] || [ -e "$O/ran-kt" ] || ! echo "$out" | grep -q "^sandbx: --allow-write '/' holds '/[a-z]*', the kernel's own interface"; then
	bad="$bad [/ rc=$rc $out]"
fi
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-exec /proc -- /bin/true 2>&1)
rc=$?
[ $rc -eq 0 ] || bad="$bad [exec rc=$rc $out]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-write-kernel-mount "write on a tree holding a kernel interface mounted elsewhere (here /proc bound under the project), or on a path inside one, is refused naming the mount; the working-directory default too; read on a tree holding a proc too"
KM="$TMP/kmount"
mkdir -p "$KM/p"; chmod 755 "$KM" "$KM/p"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(cd "$KM" && unshare -Urm sh -c "mount --rbind /proc '$KM/p' || exit 9
		'$SANDBX' sandbox-run -- /bin/sh -c 'echo ran > \"$O/ran-km\"'; echo rc=\$?
		'$SANDBX' sandbox-run --allow-write '$KM' -- /bin/true; echo rc=\$?
		'$SANDBX' sandbox-run --allow-write '$KM/p/sys' -- /bin/true; echo rc=\$?
		'$SANDBX' sandbox-run --allow-read '$KM' -- /bin/true; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: the working directory '$KM' holds a proc mount at '$KM/p', the kernel's own interface"*"rc=125"*"sandbx: --allow-write '$KM' holds a proc mount at '$KM/p'"*"rc=125"*"sandbx: --allow-write '$KM/p/sys' lies in a proc mount at '$KM/p'"*"rc=125"*"sandbx: --allow-read '$KM' holds a proc mount at '$KM/p'"*"rc=125"*)
		[ -e "$O/ran-km" ] && t_fail "the command ran" || t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sb-bind-alias "home and the session store are recognised by object, not only by name: a bind mount of home as the working directory, a grant holding the store through a bind mount, and one inside it that way, are refused; a project under home is not"
BA="$TMP/bindalias"
mkdir -p "$BA/home/proj" "$BA/xs/state/sandbx/x" "$BA/halias" "$BA/salias"; chmod -R 755 "$BA"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(unshare -Urm sh -c "mount --bind '$BA/home' '$BA/halias' && mount --bind '$BA/xs' '$BA/salias' || exit 9
		cd '$BA/halias' && HOME='$BA/home' '$SANDBX' sandbox-run -- /bin/sh -c 'echo ran > \"$O/ran-ba\"'; echo rc=\$?
		cd '$BA/home/proj' && HOME='$BA/home' XDG_STATE_HOME='$BA/xs/state' '$SANDBX' sandbox-run --allow-read '$BA/salias' -- /bin/true; echo rc=\$?
		cd '$BA/home/proj' && HOME='$BA/home' XDG_STATE_HOME='$BA/xs/state' '$SANDBX' sandbox-run --allow-read '$BA/salias/state/sandbx/x' -- /bin/true; echo rc=\$?
		cd '$BA/home/proj' && HOME='$BA/home' XDG_STATE_HOME='$BA/xs/state' '$SANDBX' sandbox-run -- /bin/true 2>/dev/null; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: the working directory '$BA/halias' is your home directory '$BA/home', or holds it, under another name"*"rc=125"*"sandbx: grant '$BA/salias' holds sandbx's own session store '$BA/xs/state"*"rc=125"*"sandbx: grant '$BA/salias/state/sandbx/x' lies in sandbx's own session store '$BA/xs/state/sandbx' under another name"*"rc=125"*"rc=0"*)
		[ -e "$O/ran-ba" ] && t_fail "the command ran" || t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sb-bind-store-part "a grant that is a bind mount of a part of the session store (its sessions directory, a session file) or of the credential file, or that holds the store through a bind mount its home is reached by, is refused; a project beside them runs"
BP="$TMP/bindpart"
mkdir -p "$BP/data/home/u/proj" "$BP/data/home/u/.local/state/sandbx/sessions" "$BP/data/home/u/.config/sandbx" "$BP/home" "$BP/sa"
echo sess > "$BP/data/home/u/.local/state/sandbx/sessions/s.jsonl"; touch "$BP/sf" "$BP/cf"
echo 'api_key = "sk-ant-part-0000"' > "$BP/data/home/u/.config/sandbx/credentials.toml"; chmod -R 755 "$BP"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(unshare -Urm sh -c "U='$BP/home/u'; mkdir -p \$U 2>/dev/null; mount --bind '$BP/data/home' '$BP/home' || exit 9
		mount --bind \$U/.local/state/sandbx/sessions '$BP/sa' && mount --bind \$U/.local/state/sandbx/sessions/s.jsonl '$BP/sf' &&
		mount --bind \$U/.config/sandbx/credentials.toml '$BP/cf' || exit 9
		export HOME=\$U; unset XDG_STATE_HOME XDG_CONFIG_HOME; cd \$U/proj || exit 9
		'$SANDBX' sandbox-run --allow-read '$BP/sa' -- /bin/cat '$BP/sa/s.jsonl'; echo rc=\$?
		'$SANDBX' sandbox-run --allow-read '$BP/sf' -- /bin/cat '$BP/sf'; echo rc=\$?
		'$SANDBX' sandbox-run --allow-read '$BP/cf' -- /bin/cat '$BP/cf'; echo rc=\$?
		'$SANDBX' sandbox-run --allow-read '$BP/data' -- /bin/cat '$BP/data/home/u/.config/sandbx/credentials.toml'; echo rc=\$?
		cd '$BP/sa' && '$SANDBX' sandbox-run -- /bin/cat s.jsonl; echo rc=\$?
		cd \$U/proj && '$SANDBX' sandbox-run -- /bin/true 2>/dev/null; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: --allow-read '$BP/sa' lies in sandbx's own session store"*"under another name"*"rc=125"*"sandbx: --allow-read '$BP/sf' lies in sandbx's own session store"*"rc=125"*"sandbx: --allow-read '$BP/cf' lies in sandbx's own credential directory"*"rc=125"*"sandbx: --allow-read '$BP/data' holds sandbx's own"*"rc=125"*"sandbx: the working directory '$BP/sa' lies in sandbx's own session store"*"rc=125"*"rc=0")
		printf '%s' "$out" | grep -q "sk-ant-part\|^sess" && t_fail "read through: $out" || t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sb-bind-inside "a mount beneath a grant that shows sandbx's own program, its session store or home is refused like a grant that is one; the same tree without it runs"
BI="$TMP/bindin"
mkdir -p "$BI/proj/b" "$BI/proj/s" "$BI/proj/h" "$BI/bin" "$BI/home" "$BI/xs/state/sandbx/sessions"
cp "$SANDBX" "$BI/bin/sandbx"; chmod -R 755 "$BI"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(unshare -Urm sh -c "cd '$BI/proj' || exit 9
		export HOME='$BI/home' XDG_STATE_HOME='$BI/xs/state'
		mount --bind '$BI/bin' '$BI/proj/b' || exit 9
		'$BI/bin/sandbx' sandbox-run -- /bin/sh -c 'echo pwned > b/sandbx'; echo rc=\$?
		umount '$BI/proj/b'; mount --bind '$BI/xs/state/sandbx/sessions' '$BI/proj/s' || exit 9
		'$BI/bin/sandbx' sandbox-run --allow-read '$BI/proj' -- /bin/true; echo rc=\$?
		umount '$BI/proj/s'; mount --bind '$BI/home' '$BI/proj/h' || exit 9
		'$BI/bin/sandbx' sandbox-run -- /bin/true; echo rc=\$?
		umount '$BI/proj/h'
		'$BI/bin/sandbx' sandbox-run -- /bin/true 2>/dev/null; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: the working directory '$BI/proj' holds '$BI/proj/b', a mount that shows sandbx's own program '$BI/bin/sandbx' under another name"*"rc=125"*"sandbx: --allow-read '$BI/proj' holds '$BI/proj/s', a mount that shows sandbx's own session store '$BI/xs/state/sandbx'"*"rc=125"*"sandbx: the working directory '$BI/proj' holds '$BI/proj/h', a mount that shows your home directory '$BI/home'"*"rc=125"*"rc=0"*)
		cmp -s "$SANDBX" "$BI/bin/sandbx" && t_pass || t_fail "the program was changed" ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sb-bind-exec-alias "a write grant that holds or lies in an execute grant or the floor under another name (a bind mount) is refused, naming both: a program written there cannot be run from the execute tree; the same grants by their own names (narrower rights inside) run"
EA="$TMP/execalias"
mkdir -p "$EA/data/tools" "$EA/opt-tools" "$EA/wt" "$EA/proj/ul" "$EA/ub"; chmod -R 755 "$EA"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(unshare -Urm sh -c "cd '$EA/proj' || exit 9
		mount --bind '$EA/data/tools' '$EA/opt-tools' || exit 9
		'$SANDBX' sandbox-run --allow-write '$EA/data' --allow-exec '$EA/opt-tools' -- /bin/sh -c 'cp /bin/true \"$EA/data/tools/mine\" && \"$EA/opt-tools/mine\" && echo ran-written'; echo rc=\$?
		umount '$EA/opt-tools'; mount --bind '$EA/data/tools' '$EA/wt' || exit 9
		'$SANDBX' sandbox-run --allow-exec '$EA/data' --allow-write '$EA/wt' -- /bin/true; echo rc=\$?
		umount '$EA/wt'; mount --bind /usr/lib '$EA/proj/ul' || exit 9
		'$SANDBX' sandbox-run -- /bin/true; echo rc=\$?
		umount '$EA/proj/ul'; mount --bind /usr/bin '$EA/ub' || exit 9
		'$SANDBX' sandbox-run --allow-write '$EA/ub' -- /bin/true; echo rc=\$?
		umount '$EA/ub'
		'$SANDBX' sandbox-run --allow-write '$EA/data' --allow-exec '$EA/data/tools' -- /bin/sh -c 'cp /bin/true \"$EA/data/tools/mine\"' 2>/dev/null; echo rc=\$?
		'$SANDBX' sandbox-run --allow-write '$EA/data' --allow-exec '$EA/opt-tools' -- /bin/true; echo rc=\$?
		'$SANDBX' sandbox-run -- /bin/true; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: --allow-write '$EA/data' holds --allow-exec '$EA/opt-tools' under another name"*"rc=125"*"sandbx: --allow-write '$EA/wt' lies in --allow-exec '$EA/data' under another name"*"rc=125"*"sandbx: the working directory '$EA/proj' holds '$EA/proj/ul', a mount that shows the system directory '/usr' under another name"*"rc=125"*"sandbx: --allow-write '$EA/ub' lies in the system directory '/usr' under another name"*"rc=125"*"rc=1"*"rc=0"*"rc=0")
		[ -e "$EA/data/tools/mine" ] && t_fail "the command wrote into the execute tree: $out" || t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

# a copy of sandbx in a project's build tree, as a developer has it
SP="$TMP/selfproj"
mkdir -p "$SP/build" "$SP/src" "$TMP/hl"; chmod 755 "$SP" "$SP/build" "$SP/src" "$TMP/hl"
cp "$SANDBX" "$SP/build/sandbx"; chmod 755 "$SP/build/sandbx"
ln "$SP/build/sandbx" "$TMP/hl/other-name"
t_start sb-cwd-holds-self "the default is refused in a tree holding sandbx's own program, which is left unchanged"
out=$( cd "$SP" && ./build/sandbx sandbox-run -- /bin/sh -c "echo pwned > build/sandbx" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 125 ] && cmp -s "$SANDBX" "$SP/build/sandbx" \
	&& echo "$out" | grep -q "^sandbx: the working directory '$SP' holds sandbx's own program '$SP/build/sandbx': the command could replace the sandbox itself — install sandbx outside it"
then t_pass; else t_fail "rc=$rc $out"; fi

t_start sb-write-holds-self "a write grant at or above sandbx's own program, or on a hard link of it, is refused; a narrower one works"
bad=""
for g in "$SP" "$SP/build" "$SP/build/sandbx" "$TMP/hl/other-name"; do
	out=$( cd "$W" && "$SP/build/sandbx" sandbox-run --allow-write "$g" -- /bin/true 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 125 ] || ! echo "$out" | grep -q "^sandbx: --allow-write '$g' \(is\|holds\) sandbx's own program '$SP/build/sandbx': the command could replace the sandbox itself — install sandbx elsewhere, or grant a narrower tree"; then
		bad="$bad [$g rc=$rc $out]"
	fi
done
rm "$TMP/hl/other-name"	# one link again: the narrower grant below is on its filesystem
out=$( cd "$SP" && ./build/sandbx sandbox-run --allow-read "$SP" --allow-write "$SP/src" -- /bin/sh -c "echo ok > src/made && cat build/sandbx > /dev/null && echo fine" 2>"$TMP/err")
rc=$?
[ $rc -eq 0 ] && [ "$out" = fine ] && [ -e "$SP/src/made" ] || bad="$bad [narrower rc=$rc out=$out $(cat "$TMP/err")]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-write-self-bind-holds "a write grant, or the working-directory default, holding sandbx's own program through another mount of its filesystem (the program run from a bind of data/opt, data granted) is refused and the program left unchanged; a tree beside it runs"
BS="$TMP/bindself"
mkdir -p "$BS/data/opt/sbx" "$BS/data/proj" "$BS/opt"; cp "$SANDBX" "$BS/data/opt/sbx/sandbx"; chmod -R 755 "$BS"
if ! unshare -Urm true 2>/dev/null; then t_skip "unshare -Urm is refused here"
else
	out=$(unshare -Urm sh -c "mount --bind '$BS/data/opt' '$BS/opt' || exit 9
		cd '$BS/data/proj' && '$BS/opt/sbx/sandbx' sandbox-run --allow-write '$BS/data' -- /bin/sh -c 'rm -f ../opt/sbx/sandbx; echo pwned > ../opt/sbx/sandbx'; echo rc=\$?
		cd '$BS/data' && '$BS/opt/sbx/sandbx' sandbox-run -- /bin/sh -c 'rm -f opt/sbx/sandbx; echo pwned > opt/sbx/sandbx'; echo rc=\$?
		cd '$BS/data/proj' && '$BS/opt/sbx/sandbx' sandbox-run -- /bin/sh -c 'echo ok > made'; echo rc=\$?" 2>&1)
	case "$out" in
	*"sandbx: --allow-write '$BS/data' holds sandbx's own program '$BS/opt/sbx/sandbx' under another name"*"rc=125"*"sandbx: the working directory '$BS/data' holds sandbx's own program '$BS/opt/sbx/sandbx' under another name"*"rc=125"*"rc=0")
		if cmp -s "$SANDBX" "$BS/data/opt/sbx/sandbx" && [ -e "$BS/data/proj/made" ]; then t_pass
		else t_fail "the program changed or the narrower run did not write: $out"; fi ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sb-write-self-link-inside "with a second hard link to sandbx's own program, a writable grant on its filesystem is refused (the link may lie deep inside) and the program is left unchanged"
mkdir -p "$SP/src/deep/er"; chmod -R 755 "$SP/src"
ln "$SP/build/sandbx" "$SP/src/deep/er/tool"
bad=""
out=$( cd "$SP/src" && ../build/sandbx sandbox-run -- /bin/sh -c "echo pwned > deep/er/tool" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 125 ] && echo "$out" | grep -q "^sandbx: the working directory '$SP/src' is on the filesystem of sandbx's own program '$SP/build/sandbx', which has 2 hard links: one may lie inside and let the command replace the sandbox itself — remove the other links (find '$SP/src' -xdev -samefile '$SP/build/sandbx' lists them)" \
	|| bad="$bad [default rc=$rc $out]"
out=$( cd "$W" && "$SP/build/sandbx" sandbox-run --allow-write "$SP/src" -- /bin/sh -c "echo pwned > '$SP/src/deep/er/tool'" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 125 ] && echo "$out" | grep -q "^sandbx: --allow-write '$SP/src' is on the filesystem of sandbx's own program" || bad="$bad [grant rc=$rc $out]"
cmp -s "$SANDBX" "$SP/build/sandbx" || bad="$bad [program changed]"
: > "$SP/src/out.txt"; chmod 666 "$SP/src/out.txt"	# a file grant holds no link: it runs
out=$( cd "$W" && "$SP/build/sandbx" sandbox-run --allow-write "$SP/src/out.txt" -- /bin/sh -c "echo ok > '$SP/src/out.txt'" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$SP/src/out.txt")" = ok ] || bad="$bad [file grant rc=$rc $out]"
rm "$SP/src/deep/er/tool"
out=$( cd "$W" && "$SP/build/sandbx" sandbox-run --allow-write "$SP/src" -- /bin/true 2>&1 >/dev/null)
rc=$?
[ $rc -eq 0 ] || bad="$bad [one link rc=$rc $out]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
rm -rf "$SP" "$TMP/hl"

refused_cwd sb-cwd-own-state "$TMP/fakehome/proj" "sandbx's own session store" HOME="$TMP/fakehome" XDG_STATE_HOME="$TMP/fakehome/proj/state"

t_start sb-grant-missing "a grant that does not exist is refused with its path named"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-read "$TMP/nope" -- /bin/true 2>&1)
rc=$?
if [ $rc -eq 125 ] && echo "$out" | grep -q "'$TMP/nope' does not exist"; then t_pass; else t_fail "rc=$rc $out"; fi

t_start sb-grant-cap "past the cap on path grants the run is refused (exit 125) naming the first grant too many and how many a user can give, which is true: that many run, one more is refused"
mkdir -p "$TMP/many"
i=0; while [ $i -lt 300 ]; do i=$((i + 1)); mkdir -p "$TMP/many/d$i"; done
many_run() {
	( c=$1; set --; n=0; while [ $n -lt "$c" ]; do n=$((n + 1)); set -- "$@" --allow-read "$TMP/many/d$n"; done
	  cd "$W" && exec "$SANDBX" sandbox-run "$@" -- /bin/true ) >/dev/null 2>"$TMP/err"
}
many_run 300; rc=$?
k=$(sed -n "s/.*at most \([0-9]*\) can be given.*/\1/p" "$TMP/err" | tail -1)
if [ $rc -ne 125 ] || [ -z "$k" ]; then t_fail "300 grants: rc=$rc $(cat "$TMP/err")"
elif ! grep -q "too many path grants at '$TMP/many/d$((k + 1))'" "$TMP/err"; then t_fail "not named at d$((k + 1)): $(cat "$TMP/err")"
elif ! many_run "$k"; then t_fail "$k grants (the number the message gives) refused: $(cat "$TMP/err")"
elif many_run $((k + 1)) || ! grep -q "d$((k + 1))'" "$TMP/err"; then t_fail "$((k + 1)) grants not refused at the last"
else t_pass; fi
rm -rf "$TMP/many"

# A link a confined run could have planted in its writable tree: granting
# through it is refused, for every path flag, naming the path given and
# where it leads, and nothing runs.
t_start sb-grant-symlink "a grant whose path crosses a symlink is refused, naming the path and its target"
ln -sfn "$O" "$W/out"
bad=""
for f in --allow-write --allow-read --allow-exec; do
	out=$( cd "$W" && "$SANDBX" sandbox-run $f ./out -- /bin/sh -c "echo ran > '$O/ran'" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 125 ] || [ -e "$O/ran" ] || ! echo "$out" | grep -q "^sandbx: $f './out' leads through a symlink to '$O' .*grant '$O' itself"; then
		bad="$bad [$f rc=$rc $out]"
	fi
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-grant-symlink-middle "a symlink in the middle of a grant path, or before a '..', is refused too"
mkdir -p "$O/sub"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-read "$W/out/sub" -- /bin/true 2>&1)
rc=$?
out2=$( cd "$W" && "$SANDBX" sandbox-run --allow-read "out/sub/.." -- /bin/true 2>&1)
rc2=$?
if [ $rc -eq 125 ] && echo "$out" | grep -q "'$W/out/sub' leads through a symlink to '$O/sub'" \
	&& [ $rc2 -eq 125 ] && echo "$out2" | grep -q "'out/sub/..' leads through a symlink to '$O'"; then t_pass
else t_fail "rc=$rc $out / rc=$rc2 $out2"; fi
rm -f "$W/out"; rmdir "$O/sub"

t_start sb-grant-vetting-shared "agent-run, tui and tool refuse the same symlinked grant and system working directory"
ln -sfn "$O" "$W/out"
bad=""
for c in "agent-run --allow-read ./out -- hi" "tui --allow-read ./out" "tool ls {} --allow-read ./out"; do
	out=$( cd "$W" && env -u ANTHROPIC_API_KEY "$SANDBX" $c 2>&1 </dev/null)
	rc=$?
	[ $rc -eq 125 ] && echo "$out" | grep -q "^sandbx: --allow-read './out' leads through a symlink to '$O'" || bad="$bad [$c rc=$rc $out]"
	out=$( cd /etc && env -u ANTHROPIC_API_KEY "$SANDBX" ${c% --allow-read ./out*} ${c#*./out} 2>&1 </dev/null)
	rc=$?
	[ $rc -eq 125 ] && echo "$out" | grep -q "^sandbx: the working directory '/etc' is a system directory" || bad="$bad [/etc: $c rc=$rc $out]"
done
rm -f "$W/out"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-grant-real-dir "a real directory named with '.', '..' and '//' is granted and writable"
mkdir -p "$TMP/real/dir"; chmod 755 "$TMP/real" "$TMP/real/dir"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-write "../real//dir/./" -- /bin/sh -c "echo hi > '$TMP/real/dir/made' && echo ok" 2>"$TMP/err")
rc=$?
if [ $rc -eq 0 ] && [ "$out" = ok ] && [ "$(cat "$TMP/real/dir/made" 2>/dev/null)" = hi ] \
	&& grep -q "paths=.*rw=$TMP/real/dir" "$TMP/err"; then t_pass; else t_fail "rc=$rc out=$out $(cat "$TMP/err")"; fi

usage() { # ID ARGS...
	id=$1; shift
	t_start "$id" "refused command line exits 64 with one line on stderr and nothing on stdout"
	out=$( cd "$W" && "$SANDBX" "$@" 2>"$TMP/err")
	rc=$?
	if [ $rc -eq 64 ] && [ -z "$out" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q '^sandbx: ' "$TMP/err"; then t_pass
	else t_fail "rc=$rc stdout=[$out] stderr=[$(cat "$TMP/err")]"; fi
}
usage sb-usage-nocmd
usage sb-usage-unknown-cmd frobnicate
usage sb-usage-unknown-flag sandbox-run --frob -- /bin/true
usage sb-usage-no-dashdash sandbox-run /bin/true
usage sb-usage-env-value sandbox-run --allow-env FOO=bar -- /bin/true
usage sb-usage-env-empty sandbox-run --allow-env "" -- /bin/true
usage sb-usage-port-range sandbox-run --allow-network 70000 -- /bin/true

t_start sb-usage-flag-twice "a flag that takes one value given twice is refused (exit 64), naming the flag, with nothing on stdout and nothing run; the repeatable ones still repeat"
bad=""
hex=$(sha256sum /bin/touch | cut -d' ' -f1)
for args in "--timeout 5 --timeout 10" "--timeout=5 --timeout 5" "--limit-memory 64M --limit-memory none" \
	"--limit-procs 10 --limit-procs 20" "--limit-cpu 1 --limit-cpu 2" "--limit-file-size 1M --limit-file-size 2M" \
	"--limit-open-files 64 --limit-open-files 64" "--allow-network 53 --dns-over-tcp --dns-over-tcp" \
	"--allow-unix-sockets --allow-unix-sockets" "--pin-sha256 $hex --pin-sha256 $hex"; do
	flag=" $args"; flag=${flag##* --}; flag=--${flag%% *}; flag=${flag%%=*}
	rm -f "$W/ran"
	out=$( cd "$W" && "$SANDBX" sandbox-run $args -- /bin/touch "$W/ran" 2>"$TMP/err")
	rc=$?
	[ $rc -eq 64 ] && [ -z "$out" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q "^sandbx: $flag is given twice — " "$TMP/err" &&
		[ ! -e "$W/ran" ] || bad="$bad [$args: rc=$rc out=$out err=$(cat "$TMP/err") ran=$(ls "$W/ran" 2>/dev/null)]"
done
run --allow-read /etc --allow-read /usr/share --allow-env A --allow-env B --allow-network 80 --allow-network 443 -- /bin/true; rc=$?
[ $rc -eq 0 ] && grep -q "network=\"ports=80,443\"" "$TMP/err" || bad="$bad [repeatable: rc=$rc $(cat "$TMP/err")]"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-network 80 --allow-network -- /bin/touch "$W/ran" 2>"$TMP/err"); rc=$?
[ $rc -eq 64 ] && [ -z "$out" ] && grep -q "^sandbx: --allow-network is given both bare and with ports — choose one" "$TMP/err" ||
	bad="$bad [bare and ports: rc=$rc $(cat "$TMP/err")]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-dumpable "another process of the same user cannot read sandbx's environment"
runas=""
if is_root; then runas="setpriv --reuid=65534 --regid=65534 --clear-groups"; chmod 777 "$W"; fi
( cd "$W" && SBX_SECRET=dumpable-secret exec $runas "$SANDBX" sandbox-run -- /bin/sleep 3 ) 2>/dev/null &
bg=$!
sleep 0.5
# the sandbx process is the one running with our secret; read as the same uid
pid=$(pgrep -n -f "sandbx sandbox-run -- /bin/sleep 3" | head -1)
if [ -z "$pid" ]; then t_fail "sandbx did not start"
else
	got=$($runas cat "/proc/$pid/environ" 2>/dev/null | tr '\0' '\n' | grep -c dumpable-secret)
	if [ "${got:-0}" -eq 0 ]; then t_pass; else t_fail "environment readable by the same user"; fi
fi
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null

t_start sb-hash "sandbx hash prints a file's SHA-256"
want=$(sha256sum /bin/true | cut -d' ' -f1)
got=$("$SANDBX" hash /bin/true 2>/dev/null)
if [ "$got" = "$want" ]; then t_pass; else t_fail "hash $got != $want"; fi

t_start sb-hash-ldpath-plant "sandbx hash with LD_LIBRARY_PATH=':' runs again without it before it opens libcrypto: a libcrypto.so.3 planted in the working directory is loaded by no process of sandbx's (its constructor never runs), and the hash is still printed (before, the plant was loaded and the hash failed: cannot load libcrypto.so.3)"
HW="$TMP/hashwork"; HE="$TMP/hashevil"; mkdir -p "$HW" "$HE"; chmod 755 "$HW" "$HE"; printf 'xyz\n' > "$HW/f.txt"
printf '#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("%s/pwned", "w"); if (f) fclose(f); }\n' "$HE" > "$HE/evil.c"
if ! cc -shared -fPIC -o "$HW/libcrypto.so.3" "$HE/evil.c" 2>"$TMP/err"; then t_fail "cannot build the library: $(cat "$TMP/err")"
else
	want=$(sha256sum "$HW/f.txt" | cut -d' ' -f1)
	got=$(cd "$HW" && LD_LIBRARY_PATH=":" "$SANDBX" hash f.txt 2>"$TMP/err"); rc=$?
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ ! -e "$HE/pwned" ] &&
		grep -q "running again without LD_LIBRARY_PATH: '' (empty: the working directory)" "$TMP/err"; then t_pass
	else t_fail "rc=$rc got=$got pwned=$(ls "$HE/pwned" 2>&1) $(cat "$TMP/err")"; fi
fi
rm -rf "$HW" "$HE"

# glibc opens an NSS module through LD_LIBRARY_PATH as it was at start, at
# the first lookup that reaches it: building the policy looks up the
# caller's home (getpwuid), and for a user the files source does not hold
# (passwd: files systemd, LDAP, sssd) that opens the next source's module.
# The host's /etc/nsswitch.conf cannot be changed safely, so a private
# mount namespace binds one naming a module of the test's own first, which
# every passwd lookup then opens, as a user files does not hold would.
# getent shows the module is opened that way here before sandbx is asked.
nss_ns() {
	if is_root; then unshare -m --propagation private "$@"; else unshare -Urm --propagation private "$@"; fi
}
# nss_setup: the module's source, the nsswitch.conf and the working
# directory in $NW, $NE; "" or why the mechanism is missing in $nss_why.
nss_setup() {
	NW="$TMP/nsswork"; NE="$TMP/nssevil"; mkdir -p "$NW" "$NE/home"; chmod 755 "$NW" "$NE" "$NE/home"
	printf 'xyz\n' > "$NW/f.txt"
	printf '#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("%s/loaded", "a"); if (f) { fprintf(f, "%%ld\\n", (long)getpid()); fclose(f); } }\n' "$NE" > "$NE/nss.c"
	printf 'passwd: sbxtest files\ngroup: sbxtest files\nshadow: sbxtest files\nhosts: sbxtest files\nservices: sbxtest files\n' > "$NE/nsswitch.conf"
	chmod 644 "$NE/nsswitch.conf"; rm -f "$NE/loaded"
	nss_why=""
	if ! cc -shared -fPIC -o "$NW/libnss_sbxtest.so.2" "$NE/nss.c" 2>"$TMP/err"; then nss_why="cannot build the module: $(cat "$TMP/err")"; return; fi
	chmod 755 "$NW/libnss_sbxtest.so.2"
	nss_ns sh -c 'mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf || exit 99; cd "$2" && LD_LIBRARY_PATH=: getent passwd 0 >/dev/null
		[ -s "$1/loaded" ]' sh "$NE" "$NW" 2>"$TMP/err"
	case $? in
	0) rm -f "$NE/loaded" ;;
	99) nss_why="cannot bind an nsswitch.conf in a private mount namespace (unshare -m, or -Urm unprivileged): $(cat "$TMP/err")" ;;
	*) nss_why="getent with LD_LIBRARY_PATH=':' did not open the module in the working directory here (nscd answering?): $(cat "$TMP/err")" ;;
	esac
}
# nss_run NAME CMD...: CMD (sandbx's arguments) in $NW with LD_LIBRARY_PATH=':'
# under that nsswitch.conf; stdout, stderr, status in $NE/NAME.{out,err,rc}.
nss_run() {
	n=$1; shift
	nss_ns sh -c 'mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf || exit 99; cd "$2" || exit 98; shift 2
		exec env -u ANTHROPIC_API_KEY HOME="$NE_HOME" XDG_CONFIG_HOME="$NE_HOME/.config" XDG_STATE_HOME="$NE_HOME/.state" \
			LD_LIBRARY_PATH=: "$@"' sh "$NE" "$NW" "$SANDBX" "$@" >"$NE/$n.out" 2>"$NE/$n.err" </dev/null
	echo $? > "$NE/$n.rc"
}
# nss_check NAME RC: it exited RC, said the note once, and no process
# opened the module; else the reason in $bad.
nss_check() {
	rc=$(cat "$NE/$1.rc")
	[ "$rc" = "$2" ] || bad="$bad [$1: exit $rc, not $2: $(cat "$NE/$1.err")]"
	[ "$(grep -c "running again without LD_LIBRARY_PATH: '' (empty: the working directory)" "$NE/$1.err")" = 1 ] ||
		bad="$bad [$1: not one note: $(cat "$NE/$1.err")]"
	[ ! -s "$NE/loaded" ] || bad="$bad [$1: the planted NSS module ran in pid $(cat "$NE/loaded" | tr '\n' ' ')]"
	rm -f "$NE/loaded"
}

t_start sb-ldpath-nss-before-policy "sandbx tool, agent-run and tui with LD_LIBRARY_PATH=':' run again without it before building the policy, whose home lookup opens an NSS module the files source does not answer for: a libnss_*.so.2 planted in the working directory is opened by no process of sandbx's (before, its constructor ran in the first process of each, before the re-exec)"
nss_setup
if [ -n "$nss_why" ]; then t_skip "$nss_why"
else
	export NE_HOME="$NE/home"
	bad=""
	nss_run tool tool read '{"path":"f.txt"}'
	nss_check tool 0
	grep -q xyz "$NE/tool.out" || bad="$bad [tool: no output: $(cat "$NE/tool.out")]"
	nss_run agent agent-run -- hi
	nss_check agent 1
	grep -q "no API key" "$NE/agent.err" || bad="$bad [agent-run: not the missing key: $(cat "$NE/agent.err")]"
	nss_run tui tui
	nss_check tui 1
	grep -q "no API key" "$NE/tui.err" || bad="$bad [tui: not the missing key: $(cat "$NE/tui.err")]"
	nss_run sr sandbox-run -- /bin/cat f.txt
	nss_check sr 0
	grep -q xyz "$NE/sr.out" || bad="$bad [sandbox-run: no output: $(cat "$NE/sr.out")]"
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

# auth has no grants: with HOME unset its paths come from getpwuid, which
# opens the module too, in the process that reads and stores the key.
t_start sb-ldpath-auth-nss "sandbx auth status and login, HOME unset and LD_LIBRARY_PATH=':', run again without it before the passwd lookup that finds the configuration directory: a libnss_*.so.2 planted in the working directory is opened by no process of sandbx's and the key is stored (before, its constructor ran in the process that read the key)"
if [ -n "$nss_why" ]; then t_skip "$nss_why"
else
	export NE_HOME="$NE/home"
	bad=""
	# auth_run NAME ARGS...: as nss_run, HOME unset, the key on stdin
	auth_run() {
		n=$1; shift
		printf 'sk-ant-test-KEY0123456789\n' | nss_ns sh -c 'mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf || exit 99
			cd "$2" || exit 98; shift 2
			exec env -u ANTHROPIC_API_KEY -u HOME XDG_CONFIG_HOME="$NE_HOME/.config" XDG_STATE_HOME="$NE_HOME/.state" \
				LD_LIBRARY_PATH=: "$@"' sh "$NE" "$NW" "$SANDBX" "$@" >"$NE/$n.out" 2>"$NE/$n.err"
		echo $? > "$NE/$n.rc"
	}
	auth_run status auth status
	nss_check status 1
	grep -q "no API key" "$NE/status.err" || bad="$bad [status: not the missing key: $(cat "$NE/status.err")]"
	auth_run login auth login
	nss_check login 0
	[ -s "$NE_HOME/.config/sandbx/credentials.toml" ] || bad="$bad [login: no key stored: $(cat "$NE/login.err")]"
	rm -rf "$NE_HOME/.config"
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

# sandbox-run is not confined either, and opens libseccomp (the filter)
# and, with --pin-sha256, libcrypto after the command line is read: with
# an empty LD_LIBRARY_PATH entry (the working directory, the default write
# grant) a command could leave one there for the next run to load.
t_start sb-ldpath-sandbox-run-plant "sandbox-run with LD_LIBRARY_PATH=':' runs again without it before it opens libseccomp or (--pin-sha256) libcrypto, saying so once: the libseccomp.so.2 and libcrypto.so.3 an earlier command left in the working directory are loaded by no process of sandbx's and the command runs (before, sandbx loaded the planted library and refused the run)"
SW="$TMP/srwork"; SE="$TMP/srevil"; mkdir -p "$SW" "$SE"; chmod 755 "$SW" "$SE"
printf '#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("%s/loaded", "a"); if (f) { fprintf(f, "%%ld\\n", (long)getpid()); fclose(f); } }\n' "$SE" > "$SE/evil.c"
if ! cc -shared -fPIC -o "$SE/evil.so" "$SE/evil.c" 2>"$TMP/err"; then t_fail "cannot build the library: $(cat "$TMP/err")"
else
	chmod 755 "$SE/evil.so"; rm -f "$SE/loaded"
	bad=""
	sr_ld() { (cd "$SW" && LD_LIBRARY_PATH=":" "$SANDBX" sandbox-run "$@") >"$TMP/out" 2>"$TMP/err" </dev/null; rc=$?; }
	sr_said() {
		[ "$(grep -c "running again without LD_LIBRARY_PATH: '' (empty: the working directory)" "$TMP/err")" = 1 ] ||
			bad="$bad [$1: not one note: $(cat "$TMP/err")]"
		[ ! -s "$SE/loaded" ] || bad="$bad [$1: the planted library ran in pid $(tr '\n' ' ' < "$SE/loaded")]"
		rm -f "$SE/loaded"
	}
	# The command plants them in its own grant, as one could.
	sr_ld --allow-read "$SE" --allow-write "$SW" -- /bin/sh -c "cp '$SE/evil.so' libseccomp.so.2 && cp '$SE/evil.so' libcrypto.so.3"
	[ $rc -eq 0 ] && [ -e "$SW/libseccomp.so.2" ] && [ -e "$SW/libcrypto.so.3" ] || bad="$bad [plant: rc=$rc $(cat "$TMP/err")]"
	sr_said plant
	sr_ld -- /bin/true
	[ $rc -eq 0 ] || bad="$bad [true: rc=$rc $(cat "$TMP/err")]"
	sr_said true
	sr_ld --pin-sha256 "$(sha256sum /bin/true | cut -d' ' -f1)" -- /bin/true
	[ $rc -eq 0 ] || bad="$bad [pin: rc=$rc $(cat "$TMP/err")]"
	sr_said pin
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

t_start sb-ldpath-sandbox-run-allow-env "after sandbox-run ran again without LD_LIBRARY_PATH and GCONV_PATH entries, --allow-env still gives the command the caller's values, whole, while sandbx loads no library planted where they point; a SANDBX_LDPATH_WAS_ value the caller set is not what the command gets (with or without a re-exec), and none reaches it"
if [ ! -e "$SW/libseccomp.so.2" ]; then t_skip "no planted library (sb-ldpath-sandbox-run-plant)"
else
	bad=""
	envs='printf "%s|%s|%s\n" "${LD_LIBRARY_PATH-unset}" "${GCONV_PATH-unset}" "$(env | grep -c ^SANDBX_)"'
	(cd "$SW" && LD_LIBRARY_PATH=":$SE;lib" GCONV_PATH="$SW/gconv:/usr/lib/gconv" SANDBX_LDPATH_WAS_LD_LIBRARY_PATH=/injected \
		"$SANDBX" sandbox-run --allow-env LD_LIBRARY_PATH --allow-env GCONV_PATH --allow-env SANDBX_LDPATH_WAS_LD_LIBRARY_PATH \
		--allow-env SANDBX_LDPATH_WAS_GCONV_PATH --allow-env SANDBX_LDPATH_CLEANED -- /bin/sh -c "$envs") >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = ":$SE;lib|$SW/gconv:/usr/lib/gconv|0" ] || bad="$bad [re-exec: rc=$rc out=$(cat "$TMP/out") $(cat "$TMP/err")]"
	grep -q "running again without LD_LIBRARY_PATH: '' (empty: the working directory), 'lib' (relative.*GCONV_PATH: '$SW/gconv'" "$TMP/err" ||
		bad="$bad [no note: $(cat "$TMP/err")]"
	[ ! -s "$SE/loaded" ] || bad="$bad [the planted library ran in pid $(tr '\n' ' ' < "$SE/loaded")]"
	rm -f "$SE/loaded"
	# Nothing to drop, no re-exec: a value the caller put in the carrier
	# is not the command's, not even with the mark of its own pid.
	(cd "$SW" && LD_LIBRARY_PATH=/usr/lib SANDBX_LDPATH_WAS_LD_LIBRARY_PATH=:/injected exec sh -c 'SANDBX_LDPATH_CLEANED=$$ exec "$0" "$@"' \
		"$SANDBX" sandbox-run --allow-env LD_LIBRARY_PATH -- /bin/sh -c "$envs") >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = "/usr/lib|unset|0" ] || bad="$bad [no re-exec: rc=$rc out=$(cat "$TMP/out") $(cat "$TMP/err")]"
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi
rm -rf "$SW" "$SE"

t_start sb-late-carried-reexec "when sandbox-run also runs again for LD_LIBRARY_PATH, --allow-env LOCPATH still gives the command the caller's LOCPATH, whole, not what was left of it after the entry in the write grant was dropped (before, it got '/usr/lib/locale'); a SANDBX_LDPATH_WAS_LOCPATH the caller set, even with the mark of sandbx's own pid, is not what the command gets, and none reaches it"
LW="$TMP/latework"; mkdir -p "$LW/lib" "$LW/loc"; chmod -R 755 "$LW"
bad=""
envs='printf "%s|%s|%s\n" "${LD_LIBRARY_PATH-unset}" "${LOCPATH-unset}" "$(env | grep -c ^SANDBX_)"'
(cd "$LW" && LD_LIBRARY_PATH="$LW/lib" LOCPATH="$LW/loc:/usr/lib/locale" "$SANDBX" sandbox-run --allow-env LD_LIBRARY_PATH \
	--allow-env LOCPATH --allow-env SANDBX_LDPATH_WAS_LOCPATH --allow-env SANDBX_LDPATH_CLEANED -- /bin/sh -c "$envs") \
	>"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = "$LW/lib|$LW/loc:/usr/lib/locale|0" ] || bad="$bad [re-exec: rc=$rc out=$(cat "$TMP/out") $(cat "$TMP/err")]"
grep -qF "running again without LD_LIBRARY_PATH: '$LW/lib'" "$TMP/err" && grep -qF "not using LOCPATH '$LW/loc'" "$TMP/err" ||
	bad="$bad [notes: $(cat "$TMP/err")]"
(cd "$LW" && LOCPATH=/usr/lib/locale SANDBX_LDPATH_WAS_LOCPATH=/forged exec sh -c 'SANDBX_LDPATH_CLEANED=$$ exec "$0" "$@"' \
	"$SANDBX" sandbox-run --allow-env LOCPATH -- /bin/sh -c "$envs") >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = "unset|/usr/lib/locale|0" ] || bad="$bad [forged: rc=$rc out=$(cat "$TMP/out") $(cat "$TMP/err")]"
rm -rf "$LW"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

# libcrypto's first digest (the pin, sandbx hash) loads OpenSSL's
# configuration, which can load a provider module: code, in the
# unconfined sandbx.  One the command can write is refused.
t_start sb-locpath-planted "sandbox-run and tool on a terminal do not read locale data from a LOCPATH entry a command could write (here a FIFO planted as its LC_CTYPE, which an open would wait on): a note names the entry, a refused policy's message is still written, and the command given --allow-env LOCPATH still gets the caller's value (before, the harness opened the planted file for its first line on the terminal and hung there); a relative entry is not read by sessions, auth, hash or a usage error's message either"
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	LW="$TMP/locwork"; mkdir -p "$LW/loc/C.UTF-8" "$LW/loc/C.utf8"; chmod -R 755 "$LW"
	mkfifo "$LW/loc/C.UTF-8/LC_CTYPE" "$LW/loc/C.utf8/LC_CTYPE"
	bad=""
	for c in "sandbox-run --allow-write $LW --allow-read $TMP/no-such -- /bin/true" \
		"tool read {\"path\":\"x\"} --allow-write $LW --allow-read $TMP/no-such" \
		"sandbox-run --allow-env LOCPATH -- /bin/sh -c 'echo LP=\$LOCPATH'"; do
		printf 'cd "%s" && LOCPATH="%s/loc:/usr/lib/locale" LC_ALL=C.UTF-8 exec "%s" %s\n' "$LW" "$LW" "$SANDBX" "$c" > "$TMP/loc.sh"
		timeout 20 script -qc "sh $TMP/loc.sh" /dev/null </dev/null > "$TMP/loc.out" 2>&1
		r=$?
		out=$(tr -d '\r' < "$TMP/loc.out")
		if [ $r -eq 124 ]; then bad="$bad [$c: hung, the harness opened the planted LC_CTYPE]"; continue; fi
		printf '%s' "$out" | grep -qF "sandbx: note: not using LOCPATH '$LW/loc' (it resolves into the write grant $LW)" &&
			printf '%s' "$out" | grep -q "locale data there that this unconfined process would read" ||
			bad="$bad [$c: no note: $out]"
		case $c in
		*no-such*) printf '%s' "$out" | grep -q "no-such" || bad="$bad [$c: no refusal: $out]" ;;
		*) printf '%s' "$out" | grep -qxF "LP=$LW/loc:/usr/lib/locale" || bad="$bad [$c: the command's LOCPATH: $out]" ;;
		esac
	done
	# the commands with no grants, and a usage error: a relative entry
	# names the working directory
	for c in "sessions" "auth status" "hash /bin/true" "--no-such-flag"; do
		printf 'cd "%s" && HOME="%s" XDG_STATE_HOME="%s/st" XDG_CONFIG_HOME="%s/cfg" LOCPATH=loc LC_ALL=C.UTF-8 exec "%s" %s\n' \
			"$LW" "$TMP/lochome" "$TMP/lochome" "$TMP/lochome" "$SANDBX" "$c" > "$TMP/loc.sh"
		timeout 20 script -qc "sh $TMP/loc.sh" /dev/null </dev/null > "$TMP/loc.out" 2>&1
		r=$?
		out=$(tr -d '\r' < "$TMP/loc.out")
		if [ $r -eq 124 ]; then bad="$bad [$c: hung, sandbx opened the planted LC_CTYPE]"; continue; fi
		printf '%s' "$out" | grep -qF "sandbx: note: not using LOCPATH 'loc' (relative" || bad="$bad [$c: no note: $out]"
	done
	rm -rf "$LW" "$TMP/lochome"
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

t_start sb-openssl-pin-refused "sandbox-run --pin-sha256 and sandbx hash refuse (125), naming the variable, an OPENSSL_CONF / OPENSSL_MODULES a command could write (relative, in a write grant): the provider module a command planted is not loaded; without a pin nothing is refused; outside the grants the configuration is still read (the module runs)"
OW="$TMP/osslwork"; OO="$TMP/osslout"; mkdir -p "$OW" "$OO"; chmod 755 "$OW" "$OO"
printf '#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("%s/pwned", "a"); if (f) fclose(f); }\nint OSSL_provider_init(void) { return 0; }\n' "$OO" > "$OO/prov.c"
if ! cc -shared -fPIC -o "$OO/evprov.so" "$OO/prov.c" 2>"$TMP/err"; then t_fail "cannot build the module: $(cat "$TMP/err")"
else
	chmod 755 "$OO/evprov.so"
	pin=$(sha256sum /bin/true | cut -d' ' -f1)
	bad=""
	# The command plants the configuration and the module in its grant.
	(cd "$OW" && "$SANDBX" sandbox-run --allow-read "$OO" --allow-write "$OW" -- /bin/sh -c \
		"cp '$OO/evprov.so' evprov.so && printf 'openssl_conf = init\\n[init]\\nproviders = prov\\n[prov]\\nevil = evil_sect\\n[evil_sect]\\nmodule = $OW/evprov.so\\nactivate = 1\\n' > openssl.cnf") \
		>"$TMP/out" 2>"$TMP/err" </dev/null
	[ $? -eq 0 ] && [ -s "$OW/openssl.cnf" ] || bad="$bad [plant: $(cat "$TMP/err")]"
	for v in "OPENSSL_CONF=openssl.cnf" "OPENSSL_CONF=$OW/openssl.cnf" "OPENSSL_MODULES=$OW"; do
		var=${v%%=*}
		for c in "sandbox-run --pin-sha256 $pin -- /bin/true" "hash /bin/true"; do
			case "$c.$v" in hash*"=$OW"*) continue ;; esac	# hash has no grants: an absolute path is the caller's
			rm -f "$OO/pwned"
			(cd "$OW" && env "$v" "$SANDBX" $c) >"$TMP/out" 2>"$TMP/err" </dev/null; rc=$?
			[ $rc -eq 125 ] && [ ! -e "$OO/pwned" ] && [ ! -s "$TMP/out" ] &&
				grep -q "^sandbx: $var is '.*' (.*) — a tool call or sandboxed command could write there what OpenSSL then reads" "$TMP/err" ||
				bad="$bad [$v $c: rc=$rc pwned=$(ls "$OO/pwned" 2>&1) $(cat "$TMP/err")]"
		done
	done
	rm -f "$OO/pwned"
	(cd "$OW" && OPENSSL_CONF=openssl.cnf "$SANDBX" sandbox-run -- /bin/true) >"$TMP/out" 2>"$TMP/err" </dev/null; rc=$?
	[ $rc -eq 0 ] && [ ! -e "$OO/pwned" ] || bad="$bad [no pin: rc=$rc $(cat "$TMP/err")]"
	# Outside the grants, the same file is read: the refusal is what stops it.
	cp "$OW/openssl.cnf" "$OO/abs.cnf"; chmod 644 "$OO/abs.cnf"
	(cd "$OW" && OPENSSL_CONF="$OO/abs.cnf" "$SANDBX" sandbox-run --pin-sha256 "$pin" -- /bin/true) >"$TMP/out" 2>"$TMP/err" </dev/null
	[ -e "$OO/pwned" ] && ! grep -q "OPENSSL_CONF is" "$TMP/err" || bad="$bad [outside: not read: $(cat "$TMP/err")]"
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi
rm -rf "$OW" "$OO"

t_start sb-hash-fifo "sandbx hash of a FIFO, a socket or a device fails at once saying it is not a regular file (before, a FIFO with no writer blocked it for ever)"
mkfifo "$TMP/hfifo"
bad=""
for f in "$TMP/hfifo" /dev/zero; do
	timeout 10 "$SANDBX" hash "$f" >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "^sandbx: '$f' is not a regular file — " "$TMP/err" || bad="$bad [$f: rc=$rc $(cat "$TMP/err")]"
done
rm -f "$TMP/hfifo"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-audit-records "spawned and exited records describe the run"
run -- /bin/true
if grep -q '^sandbx audit spawned .*network=denied' "$TMP/err" && grep -q '^sandbx audit exited .*code=0' "$TMP/err"; then t_pass
else t_fail "$(cat "$TMP/err")"; fi

t_start sb-audit-paths-escaped "a granted directory named like another grant ('b,rw=', 'c d') reads as one path in the record"
mkdir -p "$TMP/b,rw=" "$TMP/c d"; chmod 755 "$TMP/b,rw=" "$TMP/c d"
run --allow-write "$TMP/b,rw=" --allow-read "$TMP/c d" -- /bin/true
line=$(grep '^sandbx audit spawned' "$TMP/err")
# the path escapes (\x20, \x2c, \x3d) inside the record's quoted value,
# whose own quoting doubles each backslash
# (printf, not echo: sh's echo would read the backslashes)
if printf '%s\n' "$line" | grep -qF "$TMP/c\\\\x20d rw=" \
	&& printf '%s\n' "$line" | grep -qF "$TMP/b\\\\x2crw\\\\x3d," \
	&& [ "$(printf '%s\n' "$line" | grep -o 'rw=' | wc -l)" -eq 1 ]; then t_pass; else t_fail "$line"; fi

t_start sb-audit-rights-whole "--allow-exec P --allow-write P is one rwx grant, and the record says rwx, not rx"
mkdir -p "$TMP/xw"; chmod 755 "$TMP/xw"
run --allow-exec "$TMP/xw" --allow-write "$TMP/xw" -- /bin/sh -c "echo w > '$TMP/xw/f'"
line=$(grep '^sandbx audit spawned' "$TMP/err")
if [ "$(cat "$TMP/xw/f" 2>/dev/null)" = w ] && printf '%s\n' "$line" | grep -qF "rwx=$TMP/xw\"" \
	&& ! printf '%s\n' "$line" | sed 's/.* paths="rx=\([^ "]*\).*/\1/' | tr , '\n' | grep -qxF "$TMP/xw"; then
	t_pass; else t_fail "$line"; fi

t_start sb-userns-refused "a host that refuses user namespaces gets its own message and exit 125, nothing run"
# sandbx under the sandbox's own syscall filter (which denies unshare) is a
# host where creating a user namespace fails with EPERM.
# (Under ASan the leak checker needs ptrace, which that filter denies.)
out=$( cd "$W" && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$TESTTOOLS/seccomp_try" -- "$SANDBX" sandbox-run --allow-write "$W" -- /bin/sh -c "echo ran > '$W/ran'" 2>&1)
rc=$?
if [ $rc -eq 125 ] && [ ! -e "$W/ran" ] && echo "$out" | grep -q "cannot create the sandbox's user namespace" \
	&& echo "$out" | grep -q "unprivileged user namespaces"; then t_pass; else t_fail "rc=$rc $out"; fi

# A kernel that answers Landlock's version question otherwise: llfake
# answers that one call through a seccomp user notification (every other
# call, the real rulesets included, goes to this kernel).
LLF=$TESTTOOLS/llfake
ll_refused() {	# WANT-MECHANISM WANT-TEXT LLFAKE-ARGS... -- SANDBX-ARGS...
	_mech=$1 _text=$2
	shift 2
	rm -f "$W/ran"
	out=$( cd "$W" && "$LLF" "$@" -- /bin/sh -c "echo ran > '$W/ran'" 2>&1 ); rc=$?
	if [ $rc -eq 125 ] && [ ! -e "$W/ran" ] && echo "$out" | grep -q "refused mechanism=$_mech" &&
		echo "$out" | grep -q "^sandbx: .*$_text"; then t_pass; else t_fail "rc=$rc $out"; fi
}
t_start sb-landlock-none "a kernel without Landlock (ENOSYS) is refused with its own message, exit 125, nothing run"
ll_refused landlock-abi "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK" \
	--errno ENOSYS -- "$SANDBX" sandbox-run --allow-write "$W"
t_start sb-landlock-disabled "Landlock built in but not enabled at boot (EOPNOTSUPP) is refused saying to add it to lsm=, exit 125, nothing run"
ll_refused landlock-disabled "Landlock is disabled on this kernel — add landlock to the lsm= boot parameter" \
	--errno EOPNOTSUPP -- "$SANDBX" sandbox-run --allow-write "$W"
t_start sb-landlock-abi-low "a Landlock ABI below 5 is refused naming the ABI, exit 125, nothing run"
ll_refused landlock-abi "this kernel's Landlock ABI is 4; sandbx needs ABI 5" \
	--abi 4 -- "$SANDBX" sandbox-run --allow-write "$W"
t_start sb-landlock-scope-low "at ABI 5 the host's network with --allow-unix-sockets is refused (no abstract-socket scope before ABI 6), exit 125"
ll_refused landlock-scope "this kernel's Landlock ABI is 5: below 6" \
	--abi 5 -- "$SANDBX" sandbox-run --allow-network --allow-unix-sockets --allow-write "$W"
t_start sb-landlock-abi5-runs "at ABI 5 a command runs confined: it writes its write grant, and not its read grant"
mkdir -p "$W/w5" "$W/ro5"; rm -f "$W/w5/ran" "$W/ro5/x"
out=$( cd "$W" && "$LLF" --abi 5 -- "$SANDBX" sandbox-run --allow-write "$W/w5" --allow-read "$W/ro5" -- \
	/bin/sh -c "echo ok > '$W/w5/ran'; echo x > '$W/ro5/x'" 2>&1 ); rc=$?
if [ "$(cat "$W/w5/ran" 2>/dev/null)" = ok ] && [ ! -e "$W/ro5/x" ] && [ $rc -ne 0 ] && [ $rc -ne 125 ]; then t_pass
else t_fail "rc=$rc ran=$(cat "$W/w5/ran" 2>&1) ro=$(ls "$W/ro5") $out"; fi

t_start sb-signal-tty-async "a command cannot have the kernel signal the caller's job through its terminal: O_ASYNC turned on for a terminal (fcntl F_SETFL, ioctl FIOASYNC) sends SIGIO to the terminal's foreground process group as a line arrives, which Landlock's signal scope refuses from ABI 6 and the filter refuses below it (EPERM; at ABI 5 the caller's job died of SIGIO before)"
# The driver runs sh on a pseudo-terminal of its own, which makes sh's
# process group the foreground one: sh, and sandbx under it, are the job a
# SIGIO from the terminal reaches.  Once the probe has answered, a line is
# typed; sh then says it lived on, and the driver how sh ended.
cat > "$TMP/ttydrive.py" <<'PYEOF'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv("/bin/sh", ["sh", "-c", sys.argv[1] + '; echo "job lived rc=$?"'])
out, typed, t0, st = b"", False, time.time(), None
while st is None and time.time() - t0 < 30:
    if not typed and any(l.startswith((b"ok", b"err ")) for l in out.replace(b"\r", b"").split(b"\n")):
        os.write(fd, b"x\n")
        typed = True
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            out += os.read(fd, 4096)
        except OSError:
            pass
    p, s = os.waitpid(pid, os.WNOHANG)
    if p:
        st = s
if st is None:
    os.kill(pid, 9)
    st = os.waitpid(pid, 0)[1]
lines = [l for l in out.decode(errors="replace").replace("\r", "").split("\n")
         if l.startswith(("ok", "err ", "ran on", "job lived"))]
how = "sig=%d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit=%d" % os.WEXITSTATUS(st)
print(" ".join(lines) + " | " + how)
PYEOF
bad=""
for way in setfl fioasync; do
	for fake in "" 5; do
		want="ok ran on job lived rc=0 | exit=0"
		[ -n "$fake" ] && want="err EPERM 1 ran on job lived rc=0 | exit=0"
		got=$( cd "$W" && python3 "$TMP/ttydrive.py" \
			"${fake:+'$LLF' --abi $fake -- }'$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$FS' tty-async $way 2>/dev/null" )
		[ "$got" = "$want" ] || bad="$bad [$way at abi ${fake:-real}: '$got', expected '$want']"
	done
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-landlock-subdomains-unlogged "at Landlock ABI 7 the sandbox's domain is made with LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF and no other flag, so no domain the command makes under it writes to the host's audit log, whatever flags it asks (its own LOG_NEW_EXEC_ON reaches the kernel, and its domain still denies); below ABI 7 (answered 6) the flags are 0, as an older kernel requires"
# What the kernel was given, recorded by llfake (audit is off on most
# machines, and with it the records that would show the flag's effect).
bad=""
for fake in "" 6; do
	rm -f "$TMP/rs"
	out=$( cd "$W" && "$LLF" ${fake:+--abi $fake} --record "$TMP/rs" -- "$SANDBX" sandbox-run --allow-exec "$PROBES" -- \
		"$PROBES/sys" landlock-nested 2 5 2>>"$TMP/err" )
	abi=$(echo "$out" | sed -n 's/^ok abi=\([0-9]*\) .*/\1/p')
	want=0x0; [ "${abi:-0}" -ge 7 ] && want=0x4
	first=$(sed -n 1p "$TMP/rs" 2>/dev/null | cut -d' ' -f2)
	nested=$(sed -n 2p "$TMP/rs" 2>/dev/null | cut -d' ' -f2)
	case "$out" in "ok abi=$abi restrict=ok denied=5/5") ;; *) bad="$bad [abi ${fake:-real}: probe '$out']" ;; esac
	[ "$first" = "$want" ] || bad="$bad [abi ${abi:-?}: the sandbox's flags '$first', expected $want]"
	[ "$nested" = 0x2 ] || bad="$bad [abi ${abi:-?}: the command's own flags '$nested', expected 0x2]"
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad $(tail -n 3 "$TMP/err")"; fi

t_start sb-error-one-line "an error quoting a name it was given or found (a grant path, a symlink's target, a program) is one line on stderr, its controls and bytes that are not UTF-8 written \\xNN: a name cannot forge an audit record or reach the terminal as an escape sequence (before, they went raw)"
bad=""
ESCN=$(printf '\033]0;t\007\nsandbx audit spawned command=/bin/fake')
chk_err() {	# WHAT: stderr ($TMP/err) has no forged record, no control but its newlines, and the escaped form
	python3 - "$TMP/err" <<'PY' || bad="$bad [$1: $(cat "$TMP/err")]"
import sys
b = open(sys.argv[1], 'rb').read()
assert not any(c < 0x20 and c != 0x0a for c in b), b
assert b'\xff' not in b, b
lines = b.split(b'\n')
assert not [l for l in lines if l.startswith(b'sandbx audit spawned command=/bin/fake')], b
assert [l for l in lines if l.startswith(b'sandbx: ') and b'\\x1b]0;t\\x07\\x0asandbx audit spawned command=/bin/fake' in l], b
PY
}
( cd "$W" && "$SANDBX" sandbox-run --allow-read "$TMP/nope$ESCN" -- /bin/true ) 2>"$TMP/err"; rc=$?
[ $rc -eq 125 ] || bad="$bad [grant rc=$rc]"; chk_err grant
mkdir -p "$TMP/real$ESCN"; ln -sfn "$TMP/real$ESCN" "$TMP/planted"
( cd "$W" && "$SANDBX" sandbox-run --allow-read "$TMP/planted" -- /bin/true ) 2>"$TMP/err"; rc=$?
[ $rc -eq 125 ] || bad="$bad [link rc=$rc]"; chk_err link
( cd "$W" && "$SANDBX" sandbox-run -- "/bin/nope$ESCN" ) 2>"$TMP/err"; rc=$?
[ $rc -eq 127 ] || bad="$bad [prog rc=$rc]"; chk_err prog
( cd "$W" && "$SANDBX" sandbox-run --allow-read "$(printf '/tmp/\377')" -- /bin/true ) 2>"$TMP/err"; rc=$?
python3 -c "
import sys; b = open('$TMP/err', 'rb').read(); assert b'\xff' not in b and b\"sandbx: granted path '/tmp/\\\\xff' does not exist\" in b, b
" || bad="$bad [utf8: rc=$rc $(cat "$TMP/err")]"
rm -rf "$TMP/planted" "$TMP/real$ESCN"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-cwd-unusable "with no path flag, a working directory that was deleted, or whose path is longer than PATH_MAX, is refused (exit 125, nothing run) saying which, not with a bare errno text ('Numerical result out of range')"
bad=""
mkdir -p "$TMP/gone"
( cd "$TMP/gone" && rmdir "$TMP/gone" && "$SANDBX" sandbox-run -- /bin/sh -c 'echo ran' ) >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 125 ] && [ ! -s "$TMP/out" ] && grep -q "^sandbx: the working directory was deleted — cd into a project directory" "$TMP/err" ||
	bad="$bad [deleted: rc=$rc $(cat "$TMP/err")]"
# past PATH_MAX (4096) by relative steps, 24 levels of 200 bytes (python:
# the shell's cd keeps the whole path and gives up)
long=$(printf '%0200d' 0)
python3 -c '
import os, sys
os.chdir(sys.argv[1])
for _ in range(24):
    os.mkdir(sys.argv[2]); os.chdir(sys.argv[2])
os.execv(sys.argv[3], [sys.argv[3], "sandbox-run", "--", "/bin/sh", "-c", "echo ran"])
' "$TMP" "$long" "$SANDBX" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 125 ] && [ ! -s "$TMP/out" ] &&
	grep -q "^sandbx: the working directory's path is longer than 4096 bytes — cd into a directory with a shorter path" "$TMP/err" ||
	bad="$bad [long: rc=$rc $(cat "$TMP/err")]"
rm -rf "$TMP/$long"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-grant-tilde "a grant written '~/...' that does not exist (the shell expands no '~' after '=' or in quotes) is refused saying so and how to write it, exit 125, nothing run; a directory really named '~' is still granted"
bad=""
for a in "--allow-read=~/src" "--allow-write=~"; do
	( cd "$W" && "$SANDBX" sandbox-run "$a" -- /bin/sh -c 'echo ran' ) >"$TMP/out" 2>"$TMP/err"; rc=$?
	path=${a#*=}
	[ $rc -eq 125 ] && [ ! -s "$TMP/out" ] &&
		grep -q "^sandbx: ${a%%=*} '$path' starts with '~', which the shell did not expand (it does not after '=' or in quotes) — write ${a%%=*} $path without quotes, or \$HOME" "$TMP/err" ||
		bad="$bad [$a: rc=$rc $(cat "$TMP/err")]"
done
mkdir -p "$W/~"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-read='~' -- /bin/sh -c "test -d '$W/~' && echo seen" 2>"$TMP/err"); rc=$?
[ $rc -eq 0 ] && [ "$out" = seen ] || bad="$bad [literal: rc=$rc $out $(cat "$TMP/err")]"
rmdir "$W/~"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sb-exec-missing "a program that exists nowhere (a typo, by path or by name) exits 127 saying so and to check the name, not to grant its directory (which would not help: /usr is granted already); one outside every grant still says to grant it"
bad=""
( cd "$W" && "$SANDBX" sandbox-run -- /usr/bin/sandbx-no-such-prog ) >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 127 ] && grep -q "^sandbx: cannot run '/usr/bin/sandbx-no-such-prog': no such file — check the name" "$TMP/err" || bad="$bad [path: rc=$rc $(cat "$TMP/err")]"
( cd "$W" && "$SANDBX" sandbox-run -- sandbx-no-such-prog ) >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 127 ] && grep -q "^sandbx: cannot run 'sandbx-no-such-prog': no program of that name on PATH — check the name" "$TMP/err" || bad="$bad [name: rc=$rc $(cat "$TMP/err")]"
( cd "$W" && "$SANDBX" sandbox-run -- "$O/prog" ) >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 127 ] && grep -q "^sandbx: cannot run '$O/prog': not found in the sandbox — grant its directory with --allow-exec" "$TMP/err" || bad="$bad [outside: rc=$rc $(cat "$TMP/err")]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

# cJSON is opened at run time by the code that parses JSON (src/util/cjson.h):
# sandbox-run's harness and the re-executed helper never load it.  Shown by
# making the library unloadable (/dev/null bound over it in a mount
# namespace of the test's own): a binary linked against it would not start.
t_start sb-no-libcjson "sandbox-run starts without loading libcjson (harness and helper); a subcommand that parses JSON, when the library is there but broken (here empty), says so in the loader's words, names the library and the package to reinstall, and gives no advice about memory (exit 1, nothing on stdout)"
lib=$(/sbin/ldconfig -p 2>/dev/null | awk '$1 == "libcjson.so.1" { print $NF; exit }')
lib=$(readlink -f "$lib" 2>/dev/null)
nolib() { unshare --user --map-root-user --mount sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" "$@"; }
if [ -z "$lib" ] || [ ! -f "$lib" ]; then t_fail "libcjson.so.1 not found through ldconfig -p"
elif ! nolib true 2>"$TMP/err"; then t_skip "cannot bind over $lib in a user namespace: $(cat "$TMP/err")"
else
	out=$(cd "$W" && nolib "$SANDBX" sandbox-run --allow-write "$W" -- /bin/echo ran 2>"$TMP/err"); rc=$?
	out2=$(cd "$W" && nolib "$SANDBX" tool read '{"path":"x"}' 2>"$TMP/err2"); rc2=$?
	if [ $rc -eq 0 ] && [ "$out" = ran ] && [ $rc2 -eq 1 ] && [ -z "$out2" ] &&
	   grep -q '^sandbx: cannot load libcjson.so.1: .*libcjson.so.1: file too short — reinstall libcjson1$' "$TMP/err2" &&
	   ! grep -q 'memory' "$TMP/err2"; then t_pass
	else t_fail "sandbox-run rc=$rc out=$out $(tail -c 300 "$TMP/err"); tool rc=$rc2 out=$out2 $(tail -c 300 "$TMP/err2")"; fi
fi

t_done
