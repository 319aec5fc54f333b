# test_nschild.sh — the harness's namespace child (src/sandbox/nschild.c):
# a fork of sandbx that joins the sandbox's user namespace to make its
# network namespace while the init builds the view.  What it could not do
# refuses the run before the command exists; it is gone, and reaped, while
# the command runs.  (What it makes is tested where it matters:
# test_network.sh, the empty namespace.)
. "$(dirname "$0")/lib.sh"

W="$TMP/work"
mkdir -p "$W"; chmod 755 "$W"
NF=$TESTTOOLS/nsfail

t_start nschild-works "sandbox-run runs a command on this kernel"
if ! sandbox_works; then t_skip "sandbox-run cannot run here"; t_done; exit 0; fi
[ -x "$NF" ] || { t_fail "missing $NF"; t_done; exit 0; }
t_pass

# try WANT MECHANISM PREFIX... : FLAGS...: sandbox-run FLAGS under PREFIX,
# a command that leaves W/ran; WANT 125 (refused with MECHANISM and
# REASON, never run) or 0 (ran).  Appends what differs to $bad.
REASON=""
try() {
	want=$1 mech=$2; shift 2
	pre=""
	while [ "$1" != : ]; do pre="$pre $1"; shift; done
	shift
	rm -f "$W/ran"
	( cd "$W" && $pre "$SANDBX" sandbox-run --allow-write "$W" "$@" -- /bin/sh -c 'echo ran > ran' ) \
		>/dev/null 2>"$TMP/err"
	rc=$?
	ran=no; [ -e "$W/ran" ] && ran=yes
	if [ "$want" = 125 ] && [ "$rc" = 125 ] && [ "$ran" = no ] &&
	   grep -q "^sandbx audit refused mechanism=$mech reason=\"$REASON\"\$" "$TMP/err" &&
	   grep -q "^sandbx: $REASON\$" "$TMP/err"; then return
	elif [ "$want" = 0 ] && [ "$rc" = 0 ] && [ "$ran" = yes ]; then return; fi
	bad="$bad [$pre $*: rc=$rc ran=$ran $(grep -v '^sandbx audit spawned' "$TMP/err" | head -3 | tr '\n' ' ')]"
}

t_start nschild-netns-refused "where the kernel refuses the sandbox a network namespace (unshare with CLONE_NEWNET answered EPERM: a seccomp filter of the caller's, nsfail --netns) a run with no network flag is refused (exit 125, refused mechanism=netns-loopback naming the error) and the command never ran; with --allow-network, which needs no namespace, the same run goes on"
bad=""
REASON="cannot make the sandbox's network namespace or bring up its loopback (Operation not permitted); nothing was run"
try 125 netns-loopback "$NF" --netns -- :
try 0 - "$NF" --netns -- : --allow-network
try 0 - env :
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start nschild-setns-refused "where the namespace child cannot join the sandbox's user namespace (setns answered EPERM: nsfail --setns) a run with no network flag is refused (exit 125, refused mechanism=fork naming the error) and the command never ran; with --allow-network there is no network namespace to make and no namespace child, and the same run goes on"
bad=""
REASON="the sandbox could not start its processes (Operation not permitted); nothing was run"
try 125 fork "$NF" --setns -- :
try 0 - "$NF" --setns -- : --allow-network
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start nschild-ipcns "the sandbox's ipc namespace is its own, made in the sandbox's user namespace by the namespace child (no network flag) or the supervisor (--allow-network): the command's /proc/self/ns/ipc is not the caller's, a System V queue the caller holds is not listed there, and where the kernel refuses an ipc namespace (nsfail --ipcns) either run is refused (exit 125, refused mechanism=userns naming the error) and the command never ran"
bad=""
mine=$(readlink /proc/self/ns/ipc)
q=$(ipcmk -Q 2>/dev/null | sed -n 's/^Message queue id: //p')
if [ -z "$q" ]; then bad="ipcmk -Q made no queue"; fi
for net in "" --allow-network; do
	out=$(cd "$W" && "$SANDBX" sandbox-run --allow-read /proc $net -- /bin/sh -c \
		'readlink /proc/self/ns/ipc; tail -n +2 /proc/sysvipc/msg | wc -l' 2>"$TMP/err")
	set -- $out "" ""
	case "$1" in ipc:*) ;; *) bad="$bad [$net: no ipc namespace read: $out $(cat "$TMP/err")]" ;; esac
	[ "$1" = "$mine" ] && bad="$bad [$net: the caller's ipc namespace $mine]"
	[ "$2" = 0 ] || bad="$bad [$net: $2 System V queues listed, the caller's among them]"
done
[ -n "$q" ] && ipcrm -q "$q"
REASON="cannot create the sandbox's user namespace (Operation not permitted) — enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, or lift an AppArmor restrict_unprivileged_userns policy); nothing was run"
try 125 userns "$NF" --ipcns -- :
try 125 userns "$NF" --ipcns -- : --allow-network
try 0 - env :
if [ -n "$bad" ]; then t_fail "$bad"; else t_pass; fi

t_start nschild-gone "while the command runs, sandbx's only child is its supervisor: the namespace child has ended and been reaped (no zombie for the length of the run), for sandbox-run and for the bash tool; a run refused for the namespace child's sake leaves no process for the caller to reap"
out=$(cd "$W" && python3 - "$SANDBX" "$NF" <<'PY'
import ctypes, os, subprocess, sys, time
S, NF = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0) != 0:	# PR_SET_CHILD_SUBREAPER
    print("cannot be a subreaper"); sys.exit(0)
env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}
bad = []
def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return None
def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")[:2]
    except OSError:
        return []
def reap_orphans(secs):
    left = []
    end = time.time() + secs
    while time.time() < end:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            left.append(pid)
        else:
            time.sleep(0.02)
    return left
for name, argv in (("sandbox-run", [S, "sandbox-run", "--", "/bin/sleep", "1"]),
                   ("tool bash", [S, "tool", "bash", '{"command":"sleep 1"}'])):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    time.sleep(0.6)
    kids = children(p.pid)
    if kids is None:
        bad.append("%s: cannot read its children" % name)
    else:
        shown = ["%d:%s:%s" % (k, state(k), b" ".join(cmdline(k)).decode(errors="replace")) for k in kids]
        helpers = [k for k in kids if cmdline(k) == [b"sandbx", b"__sandbx-helper"]]
        if len(kids) != 1 or len(helpers) != 1:
            bad.append("%s: children while the command runs: %s" % (name, shown))
    if p.wait(timeout=30) != 0:
        bad.append("%s: exit %d" % (name, p.returncode))
    reap_orphans(1)	# sandbox-run leaves its exiting supervisor to exit alone
for flag in ("--setns", "--netns"):
    r = subprocess.run([NF, flag, "--", S, "sandbox-run", "--", "/bin/true"], capture_output=True, text=True, env=env)
    if r.returncode != 125:
        bad.append("%s: exit %d %r" % (flag, r.returncode, r.stderr[-300:]))
    left = reap_orphans(2)
    if left:
        bad.append("%s: %d process(es) of sandbx's left to the caller" % (flag, len(left)))
print("; ".join(bad) if bad else "ok")
PY
)
if [ "$out" = ok ]; then t_pass; else t_fail "$out"; fi

t_done
