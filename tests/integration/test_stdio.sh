# test_stdio.sh — the descriptors 0-2 sandbox-run passes to the command are
# the user's (terminal, redirected files): what the command changes on them
# is put back after the run.
. "$(dirname "$0")/lib.sh"

W="$TMP/work"; O="$TMP/outside"
mkdir -p "$W" "$O"; chmod 755 "$W" "$O"
PY=/usr/bin/python3

t_start sr-stdio-tty-restored "a command that turns echo off and sets O_NONBLOCK on the terminal it was given leaves both as they were once sandbx returns"
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	cat > "$TMP/inner.sh" <<IN
cd "$W"
before=\$(stty -g)
"$SANDBX" sandbox-run -- $PY -c 'import os,fcntl,termios; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK); a = termios.tcgetattr(0); a[3] &= ~termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a); print("inside", "nb" if fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK else "b", "noecho" if not termios.tcgetattr(0)[3] & termios.ECHO else "echo")' 2>/dev/null
after=\$(stty -g)
[ "\$before" = "\$after" ] && echo termios-same || echo termios-changed
$PY -c 'import os,fcntl; print("after", "nb" if fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK else "b")'
IN
	out=$(script -qc "sh $TMP/inner.sh" /dev/null </dev/null | tr -d '\r')
	case "$out" in
	*"inside nb noecho"*termios-same*"after b"*) t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sr-stdio-tty-settings-said "terminal settings a command leaves changed (stty tostop, stty -echo, raw mode when --timeout kills it) are put back once sandbx returns, with one line naming the terminal; its window size cannot be set (stty rows 13 cols 37 fails, the size stays); a command that changes nothing gets no line"
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	rm -f "$W/tty.err" "$W/tty0.err"
	cat > "$TMP/set.sh" <<IN
cd "$W"
stty rows 50 cols 100
before=\$(stty -g)
for c in 'stty tostop' 'stty -echo' 'stty rows 13 cols 37' 'stty raw -echo; sleep 30'; do
	"$SANDBX" sandbox-run --timeout 2 -- sh -c "\$c" 2>>tty.err
	echo "rc=\$?"
	if [ "\$(stty -g)" = "\$before" ]; then echo "same"; else echo "changed:\$c"; stty "\$before"; fi
done
"$SANDBX" sandbox-run -- true 2>tty0.err
echo "size \$(stty size)"
IN
	out=$(timeout 60 script -qec "sh $TMP/set.sh" /dev/null </dev/null | tr -d '\r' | tr '\n' ' ')
	said=$(grep -c "^sandbx: the command changed the settings of terminal /dev/pts/[0-9]* — put back as they were\$" "$W/tty.err")
	if [ "$out" = "rc=0 same rc=0 same rc=1 same rc=124 same size 50 100 " ] && [ "$said" = 3 ] &&
	   grep -q "^stty: 'standard input': Operation not permitted" "$W/tty.err" && ! grep -q '^sandbx: ' "$W/tty0.err"; then t_pass
	else t_fail "$out | said $said | $(grep -v audit "$W/tty.err" "$W/tty0.err" | tr '\n' ' ')"; fi
fi

t_start sr-stdio-tty-bg-left "sandbx ended in the background of its terminal (^Z, bg, then --timeout) leaves that terminal's settings to the program in the foreground, which turned echo off meanwhile, and says so; before, it put back the settings the run started with under that program (echo on again)"
if ! command -v script >/dev/null || ! command -v bash >/dev/null; then t_skip "no script(1) or bash to make a job-control terminal"
else
	rm -f "$W/bg.err"
	cat > "$TMP/bgset.sh" <<IN
set -m
cd "$W"
"$SANDBX" sandbox-run --timeout 4 -- sleep 30 2>bg.err
bg >/dev/null
$PY -c 'import termios,time; a = termios.tcgetattr(0); a[3] &= ~termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a); time.sleep(5); print("fg", "echo" if termios.tcgetattr(0)[3] & termios.ECHO else "noecho"); a[3] |= termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a)'
wait
IN
	out=$( (sleep 1.5; printf '\032'; sleep 9) | timeout 40 script -qec "bash $TMP/bgset.sh" /dev/null 2>/dev/null | tr -d '\r')
	case "$out" in
	*"fg noecho"*)
		if grep -q "^sandbx: sandbx ended in the background of terminal /dev/pts/[0-9]*, whose settings are not those the run started with: they are left to the program in the foreground" "$W/bg.err" &&
		   grep -q 'audit exited command="sleep 30" code=124' "$W/bg.err"; then t_pass
		else t_fail "$(cat "$W/bg.err")"; fi ;;
	*) t_fail "$out | $(cat "$W/bg.err" 2>/dev/null)" ;;
	esac
fi

t_start sr-stdio-tty-bg-tostop "sandbx ended in the background of its terminal (^Z, bg, then --timeout) puts back tostop, which the command set before the stop (left set, it stops the shell's later background jobs at their first write), and leaves the rest of the settings to the program in the foreground, saying so; before, tostop stayed set"
if ! command -v script >/dev/null || ! command -v bash >/dev/null; then t_skip "no script(1) or bash to make a job-control terminal"
else
	rm -f "$W/bgt.err"
	cat > "$TMP/bgtostop.sh" <<IN
set -m
cd "$W"
stty -tostop echo
"$SANDBX" sandbox-run --timeout 4 -- sh -c 'stty tostop -echo; sleep 30' 2>bgt.err
bg >/dev/null
wait
stty -a | tr ' ;' '\n\n' | grep -x -e '-*tostop' -e '-*echo' | tr '\n' ' '
stty echo -tostop
IN
	out=$( (sleep 1.5; printf '\032'; sleep 9) | timeout 40 script -qec "bash $TMP/bgtostop.sh" /dev/null 2>/dev/null | tr -d '\r')
	case "$out" in
	*"-echo -tostop "*)
		if grep -q "^sandbx: sandbx ended in the background of terminal /dev/pts/[0-9]*, whose settings are not those the run started with: they are left to the program in the foreground, but for tostop, put back — if the terminal misbehaves, run 'stty sane' there\$" "$W/bgt.err" &&
		   grep -q 'audit exited command=.* code=124' "$W/bgt.err"; then t_pass
		else t_fail "$(cat "$W/bgt.err")"; fi ;;
	*) t_fail "settings after: '$out' (want -echo -tostop) | $(cat "$W/bgt.err" 2>/dev/null)" ;;
	esac
fi

# ttyfail.py hangup|lock ERRFILE -- ARGV...: runs ARGV in a session of its
# own with a new terminal as its stdin and stdout (stderr to ERRFILE); at
# 1.5 s hangs that terminal up (closes its master) or, as root, locks its
# echo bit as it is then (TIOCSLCKTRMIOS, which needs CAP_SYS_ADMIN), so
# tcsetattr succeeds and leaves echo off; prints "rc=N" when ARGV ends.
cat > "$TMP/ttyfail.py" <<'PY'
import os, select, struct, subprocess, sys, termios, fcntl, time
mode, errfile, argv = sys.argv[1], sys.argv[2], sys.argv[4:]
m, s = os.openpty()
name = os.ttyname(s)
with open(errfile, "w") as err:
	p = subprocess.Popen(argv, stdin=s, stdout=s, stderr=err, start_new_session=True)
os.close(s)
t0, done, lk = time.monotonic(), False, None
while p.poll() is None and time.monotonic() - t0 < 30:
	if not done and time.monotonic() - t0 > 1.5:
		done = True
		if mode == "hangup":
			os.close(m)
			m = None
		else:
			lk = os.open(name, os.O_RDWR | os.O_NOCTTY)
			fcntl.ioctl(lk, 0x5457, struct.pack("4I B 19s", 0, 0, 0, termios.ECHO, 0, bytes(19)))
	if m is not None and select.select([m], [], [], 0.05)[0]:
		try:
			os.read(m, 4096)
		except OSError:
			pass
	elif m is None:
		time.sleep(0.05)
if lk is not None:
	fcntl.ioctl(lk, 0x5457, bytes(36))
print("rc=%s" % p.wait())
PY

t_start sr-stdio-tty-restore-failed "terminal settings that cannot be put back are named on stderr with what to do ('stty sane'), and the command's exit status is kept: a terminal hung up during the run; as root also one whose echo bit was locked meanwhile, where tcsetattr succeeds but leaves it off"
cmd="\"$SANDBX\" sandbox-run -- sh -c 'stty -echo; sleep 3; exit 3'"
out=$(cd "$W" && eval "$PY $TMP/ttyfail.py hangup $TMP/hup.err -- $cmd")
ok=1; why="hangup: $out $(grep -v audit "$TMP/hup.err")"
[ "$out" = "rc=3" ] && grep -q "^sandbx: cannot read back the settings of terminal /dev/pts/[0-9]* (Input/output error) — if it is still in use, run 'stty sane' there\$" "$TMP/hup.err" || ok=0
if is_root; then
	out=$(cd "$W" && eval "$PY $TMP/ttyfail.py lock $TMP/lock.err -- $cmd")
	why="$why | lock: $out $(grep -v audit "$TMP/lock.err")"
	[ "$out" = "rc=3" ] && grep -q "^sandbx: the command changed the settings of terminal /dev/pts/[0-9]* and they could not be put back (the terminal kept some of the command's) — run 'stty sane' there\$" "$TMP/lock.err" || ok=0
fi
if [ $ok = 1 ]; then t_pass; else t_fail "$why"; fi

t_start sr-stdio-mode-restored "a command that chmods the file its stdout was redirected to (outside every grant) leaves the file's mode as it was, and sandbx says so"
: > "$O/log"; chmod 644 "$O/log"
( cd "$W" && "$SANDBX" sandbox-run -- $PY -c 'import os; os.fchmod(1, 0o666); print("wrote")' ) >"$O/log" 2>"$TMP/err"
mode=$(stat -c %a "$O/log")
if [ "$mode" = 644 ] && grep -qx wrote "$O/log" && grep -q "changed the mode of descriptor 1's file from 0644 to 0666 — put back" "$TMP/err"; then t_pass
else t_fail "mode $mode, log '$(cat "$O/log")', stderr: $(cat "$TMP/err")"; fi
t_start sr-stdio-group-restored "a command that changes the group of the file its stdout was redirected to (outside every grant), as the file's owner may, to its own leaves the file's group as it was, and sandbx says so"
# As root the file is root:adm (gid 4), as a log is, and the command
# makes it root's; a user has no second group the sandbox maps, so its
# command's chgrp to gid 0 fails and the group stays all the same.
: > "$O/glog"; chmod 640 "$O/glog"
[ "$(id -u)" = 0 ] && chgrp 4 "$O/glog"
gbefore=$(stat -c %g "$O/glog")
( cd "$W" && "$SANDBX" sandbox-run -- $PY -c '
import os
try:
    os.fchown(1, -1, 0); print("chgrp", os.fstat(1).st_gid)
except OSError as e:
    print("refused", e.errno)' ) >>"$O/glog" 2>"$TMP/err"
gafter=$(stat -c %g "$O/glog"); mode=$(stat -c %a "$O/glog")
said=yes
if [ "$(id -u)" = 0 ]; then
	grep -qx "chgrp 0" "$O/glog" &&
		grep -q "changed the group of descriptor 1's file from 4 to 0 — put back" "$TMP/err" || said=no
fi
if [ "$gafter" = "$gbefore" ] && [ "$mode" = 640 ] && [ "$said" = yes ]; then t_pass
else t_fail "group $gbefore -> $gafter, mode $mode, log '$(cat "$O/glog")', stderr: $(cat "$TMP/err")"; fi
t_start sr-stdio-owner-restored "a command that sets the SIGIO owner and signal (F_SETOWN, F_SETSIG) of the file its stdout was redirected to, or of its terminal, leaves both as they were once sandbx returns: they belong to the open file description, shared with the caller's shell, and a later program that turned O_ASYNC on there got the command's SIGKILL at the next line typed"
SET='import fcntl, os, sys; fd = int(sys.argv[1]); fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid()); fcntl.fcntl(fd, 10, 9); print("set", fcntl.fcntl(fd, 11), fcntl.fcntl(fd, fcntl.F_GETOWN) > 0)'
GET='import fcntl, sys; fd = int(sys.argv[1]); print("after", fcntl.fcntl(fd, 11), fcntl.fcntl(fd, fcntl.F_GETOWN))'
: > "$O/own"
( cd "$W" && exec 3>>"$O/own" && "$SANDBX" sandbox-run -- $PY -c "$SET" 1 >&3 2>"$TMP/err"; $PY -c "$GET" 3 >&3 )
file=$(tr '\n' ' ' < "$O/own")
term="(no script(1) to make a terminal)"
if command -v script >/dev/null; then
	cat > "$TMP/inner-own.sh" <<IN
cd "$W"
"$SANDBX" sandbox-run -- $PY -c '$SET' 0 2>/dev/null
$PY -c '$GET' 0
IN
	term=$(script -qc "sh $TMP/inner-own.sh" /dev/null </dev/null | tr -d '\r' | tr '\n' ' ')
fi
if [ "$file" = "set 9 True after 0 0 " ] && [ "$term" = "set 9 True after 0 0 " ]; then t_pass
else t_fail "file: '$file', terminal: '$term', stderr: $(cat "$TMP/err")"; fi
t_start sr-stdio-lock-released "a lock the command takes on the file its stdout was redirected to (flock, or an OFD lock) is released once sandbx returns, saying so: it belongs to the open file description, and before it stayed as long as the caller kept that open (a script's exec >>log), refusing every other program's lock; a lock the caller held there before the run is left alone"
LOCK='import fcntl, struct, sys; how = sys.argv[1]
if how == "flock": fcntl.flock(1, fcntl.LOCK_EX)
elif how == "ofd": fcntl.fcntl(1, 37, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
print("locked", how)'
# A lock of the same kind from another description (flock and fcntl
# locks do not see each other).
FREE='import fcntl, sys
f = open(sys.argv[1], "a")
try:
    (fcntl.flock if sys.argv[2] == "flock" else fcntl.lockf)(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print("free")
except OSError:
    print("held")'
bad=""
for how in flock ofd; do
	: > "$O/lk-$how"
	got=$( exec 3>>"$O/lk-$how"; ( cd "$W" && "$SANDBX" sandbox-run -- $PY -c "$LOCK" $how ) >&3 2>"$TMP/err-$how"; $PY -c "$FREE" "$O/lk-$how" $how )
	[ "$got" = free ] && grep -qx "locked $how" "$O/lk-$how" &&
		grep -q "the command left a lock on descriptor 1's file — released" "$TMP/err-$how" ||
		bad="$bad [$how: after the run '$got', file '$(cat "$O/lk-$how")', stderr: $(cat "$TMP/err-$how")]"
done
# 0 and 1 one description, as a terminal's are: looked at once, through
# 0, and still released.
: > "$O/lk-dup"
got=$( exec 3<>"$O/lk-dup"; ( cd "$W" && "$SANDBX" sandbox-run -- $PY -c "$LOCK" flock ) <&3 >&3 2>"$TMP/err-dup"; $PY -c "$FREE" "$O/lk-dup" flock )
[ "$got" = free ] && grep -q "the command left a lock on descriptor 0's file — released" "$TMP/err-dup" &&
	[ "$(grep -c 'left a lock' "$TMP/err-dup")" = 1 ] || bad="$bad [0 and 1 one description: after the run '$got', stderr: $(cat "$TMP/err-dup")]"
# The caller's own lock on the description, taken before the run: kept.
: > "$O/lk-own"
got=$( exec 3>>"$O/lk-own"; $PY -c 'import fcntl; fcntl.flock(3, fcntl.LOCK_EX)'
	( cd "$W" && "$SANDBX" sandbox-run -- $PY -c "$LOCK" flock ) >&3 2>"$TMP/err-own"; $PY -c "$FREE" "$O/lk-own" flock )
[ "$got" = held ] && ! grep -q "left a lock" "$TMP/err-own" || bad="$bad [caller's lock: after the run '$got', stderr: $(cat "$TMP/err-own")]"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
t_start sr-stdio-devnull-own "a standard descriptor that is a null, zero or urandom device reaches the command as the view's own read-only node: fchmod, fchown and utimes through it fail with EROFS, so the host's node keeps its mode even if sandbx never gets to put it back"
# As root a private node stands in for /dev/null, so a failure cannot
# break the machine's own; a user cannot make one, nor chmod /dev/null.
if [ "$(id -u)" = 0 ]; then
	mknod "$O/null" c 1 3 && mknod "$O/urandom" c 1 9 && chmod 666 "$O/null" "$O/urandom"
	NUL="$O/null" URND="$O/urandom"
else
	NUL=/dev/null URND=/dev/urandom
fi
before=$(stat -c %a "$NUL")
# The command gets the view's node of the same device, bound from the
# host's /dev: should that bind ever be writable, a chmod through it
# reaches the host's node, not the private one.  Put that back too.
host_before=$(stat -c '%a %u %g' /dev/null /dev/urandom | tr '\n' ' ')
rm -f "$W/res"
( cd "$W" && "$SANDBX" sandbox-run -- $PY -c '
import errno, os
res = open("res", "w")
for fd in 0, 1, 2:
    r = []
    for what, f in (("chmod", lambda: os.fchmod(fd, 0o600)), ("chown", lambda: os.fchown(fd, 0, 0)),
                     ("utime", lambda: os.utime(fd))):
        try:
            f(); r.append(what + "=ok")
        except OSError as e:
            r.append(what + "=" + errno.errorcode[e.errno])
    res.write(str(fd) + " " + " ".join(r) + "\n")
res.write(os.read(0, 1) == b"" and "read-eof\n" or "read-data\n")
os.write(1, b"x" * 10); os.write(2, b"y" * 10)
' <"$NUL" >"$NUL" 2>"$URND" )
got=$(cat "$W/res" 2>&1)
after=$(stat -c %a "$NUL")
host_after=$(stat -c '%a %u %g' /dev/null /dev/urandom | tr '\n' ' ')
if [ "$host_after" != "$host_before" ] && [ "$(id -u)" = 0 ]; then
	read -r m1 u1 g1 m2 u2 g2 <<HOST
$host_before
HOST
	chmod "$m1" /dev/null; chown "$u1:$g1" /dev/null; chmod "$m2" /dev/urandom; chown "$u2:$g2" /dev/urandom
fi
want="0 chmod=EROFS chown=EROFS utime=EROFS
1 chmod=EROFS chown=EROFS utime=EROFS
2 chmod=EROFS chown=EROFS utime=EROFS
read-eof"
if [ "$got" = "$want" ] && [ "$after" = "$before" ] && [ "$host_after" = "$host_before" ]; then t_pass
else t_fail "mode $before -> $after; host's /dev/null, /dev/urandom: $host_before -> $host_after (put back); inside: $got"; fi

t_start sr-stdio-device-own "a standard descriptor on a device node the caller owns that the view does not carry (root's >/dev/kmsg, </dev/sdb, a loop device) reaches the command through a read-only mount of its own: fchmod, fchown and utimes through it fail with EROFS, so the host's node keeps its mode and group for every user while the run lasts, and after it"
# As root private nodes (the kernel log's, written nothing; a loop
# device's, read nothing) stand in, so a failure cannot change the
# machine's own; a user can neither make a node nor own one, and gets
# the view's nodes (sr-stdio-devnull-own), read-only all the same.
if [ "$(id -u)" = 0 ]; then
	mknod "$O/kdev" c 1 11 && mknod "$O/bdev" b 7 0 && chmod 640 "$O/kdev" && chmod 600 "$O/bdev" &&
		chgrp 4 "$O/kdev" "$O/bdev"
	DIN="$O/bdev" DOUT="$O/kdev"
else
	DIN=/dev/urandom DOUT=/dev/null
fi
before=$(stat -c '%a %g' "$DIN" "$DOUT" | tr '\n' ' ')
rm -f "$W/res"
( cd "$W" && "$SANDBX" sandbox-run -- $PY -c '
import errno, os, stat
res = open("res", "w")
for fd in 0, 1:
    r = []
    for what, f in (("chmod", lambda: os.fchmod(fd, 0o666)), ("chown", lambda: os.fchown(fd, -1, 0)),
                     ("utime", lambda: os.utime(fd))):
        try:
            f(); r.append(what + "=ok")
        except OSError as e:
            r.append(what + "=" + errno.errorcode[e.errno])
    res.write(str(fd) + " " + " ".join(r) + "\n")
res.write("write=%d\n" % os.write(1, b""))
' <"$DIN" >"$DOUT" 2>"$TMP/err" )
got=$(cat "$W/res" 2>&1)
after=$(stat -c '%a %g' "$DIN" "$DOUT" | tr '\n' ' ')
# A node of the caller's that is no longer at its path cannot be opened
# again through a mount of its own: refused, nothing run.
refused=ok
if [ "$(id -u)" = 0 ]; then
	mknod "$O/gone" c 1 11
	( cd "$W" && exec 3>"$O/gone" && rm -f "$O/gone" && "$SANDBX" sandbox-run -- /bin/echo ran >&3 2>"$TMP/err-gone"; echo "rc=$?" >"$TMP/rc-gone" )
	grep -qx rc=125 "$TMP/rc-gone" && grep -q "refused mechanism=stdio-device" "$TMP/err-gone" &&
		grep -q "standard output is a device node of yours that could not be opened again" "$TMP/err-gone" ||
		refused="$(cat "$TMP/rc-gone"): $(cat "$TMP/err-gone")"
fi
want="0 chmod=EROFS chown=EROFS utime=EROFS
1 chmod=EROFS chown=EROFS utime=EROFS
write=0"
if [ "$got" = "$want" ] && [ "$after" = "$before" ] && [ "$refused" = ok ]; then t_pass
else t_fail "nodes (mode group) $before -> $after; inside: $got; stderr: $(cat "$TMP/err"); removed node: $refused"; fi

t_start sr-stdio-devtty-own "a standard descriptor opened on /dev/tty (</dev/tty) reaches the command as the terminal itself: chmod through it, also as root, cannot change the /dev/tty node every user's programs open, even while the run lasts"
# As root a private 5,0 node stands in for /dev/tty (opening it names the
# caller's terminal all the same), so a failure cannot break the
# machine's own; a user cannot chmod /dev/tty at all.
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	if [ "$(id -u)" = 0 ]; then
		mknod "$O/tty" c 5 0 && chmod 666 "$O/tty"
		TTYN="$O/tty"
	else
		TTYN=/dev/tty
	fi
	rm -f "$W/changed" "$W/go"
	cat > "$TMP/devtty.sh" <<IN
cd "$W"
"$SANDBX" sandbox-run -- /bin/sh -c 'chmod 600 /proc/self/fd/0 2>/dev/null; : > changed; i=0; while [ ! -e go ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done' <"$TTYN" 2>/dev/null &
i=0; while [ ! -e changed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done
echo "during \$(stat -c %a "$TTYN")"
: > go; wait
echo "after \$(stat -c %a "$TTYN")"
IN
	out=$(timeout 60 script -qec "sh $TMP/devtty.sh" /dev/null </dev/null | tr -d '\r')
	case $out in
	*"during 666"*"after 666"*) t_pass ;;
	*) t_fail "the 5,0 node's mode: $out" ;;
	esac
fi

t_start sr-stdio-tty-mode-own "the caller's own terminal reaches the command through a read-only mount of its own: chmod and chgrp of it, through the descriptor or /proc/self/fd/0, fail with EROFS, so no other user of the machine may open it (and read the keys typed) while the run lasts; the terminal still works (stty)"
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	rm -f "$W/changed" "$W/go" "$W/res"
	cat > "$TMP/ttymode.sh" <<IN
cd "$W"
T=\$(tty); echo "before \$(stat -c '%a %g' \$T)"
"$SANDBX" sandbox-run -- $PY -c '
import errno, os, subprocess, time
r = []
for what, f in (("chmod", lambda: os.fchmod(0, 0o666)), ("chgrp", lambda: os.fchown(0, -1, os.getgid())),
                 ("proc", lambda: os.chmod("/proc/self/fd/0", 0o666))):
    try:
        f(); r.append(what + "=ok")
    except OSError as e:
        r.append(what + "=" + errno.errorcode[e.errno])
r.append("stty=%d" % subprocess.call(["stty", "-echo"]))
open("res", "w").write(" ".join(r) + "\\n"); open("changed", "w")
for i in range(100):
    if os.path.exists("go"): break
    time.sleep(0.1)
' <\$T 2>/dev/null &
i=0; while [ ! -e changed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done
echo "during \$(stat -c '%a %g' \$T)"
: > go; wait
echo "after \$(stat -c '%a %g' \$T)"
IN
	out=$(timeout 60 script -qec "sh $TMP/ttymode.sh" /dev/null </dev/null | tr -d '\r')
	b=$(echo "$out" | sed -n 's/^before //p'); d=$(echo "$out" | sed -n 's/^during //p'); a=$(echo "$out" | sed -n 's/^after //p')
	got=$(cat "$W/res" 2>&1)
	# A pty's master given as standard output is the caller's still,
	# never a new pty (every open of /dev/ptmx makes one): what the
	# command writes there is read on the caller's slave.
	ptm=$(cd "$W" && $PY - "$SANDBX" 2>&1 <<'PYEOF'
import os, pty, select, subprocess, sys, termios
m, s = pty.openpty()
a = termios.tcgetattr(s); a[3] &= ~termios.ECHO; termios.tcsetattr(s, termios.TCSANOW, a)
subprocess.run([sys.argv[1], "sandbox-run", "--", "/bin/echo", "through-master"], stdout=m,
               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
r, _, _ = select.select([s], [], [], 5)
print(os.read(s, 100).decode().strip() if r else "nothing")
PYEOF
)
	if [ -n "$b" ] && [ "$d" = "$b" ] && [ "$a" = "$b" ] && [ "$got" = "chmod=EROFS chgrp=EROFS proc=EROFS stty=0" ] &&
		[ "$ptm" = through-master ]; then t_pass
	else t_fail "terminal (mode group): $out; inside: $got; through a master: $ptm"; fi
fi

t_start sr-stdio-dir-refused "a directory, or an O_PATH handle, as standard input, output or error is refused before the command runs (through it every host path beneath it would be reachable)"
echo secret > "$O/secret"; chmod 600 "$O/secret"
( cd "$W" && "$SANDBX" sandbox-run --allow-read /proc --allow-write "$W" -- /bin/sh -c 'chmod 666 /proc/self/fd/0/secret' ) <"$O" >/dev/null 2>"$TMP/err"
rc1=$?
( cd "$W" && $PY -c '
import os, sys
fd = os.open(sys.argv[1], os.O_PATH); os.dup2(fd, 1)
os.execv(sys.argv[2], ["sandbx", "sandbox-run", "--", "/bin/true"])' "$O" "$SANDBX" ) 2>"$TMP/err2"
rc2=$?
# An O_PATH handle on a regular file is refused too, not only a directory:
# chmod through /proc/self/fd/1 would reach the host's file around Landlock.
echo secret > "$O/opath"; chmod 600 "$O/opath"
( cd "$W" && $PY -c '
import os, sys
fd = os.open(sys.argv[1], os.O_PATH); os.dup2(fd, 1)
os.execv(sys.argv[2], ["sandbx", "sandbox-run", "--allow-write", sys.argv[3], "--", "/bin/sh", "-c", "chmod 666 /proc/self/fd/1"])' "$O/opath" "$SANDBX" "$W" ) 2>"$TMP/err3"
rc3=$?
mode=$(stat -c %a "$O/secret")
mode3=$(stat -c %a "$O/opath")
if [ $rc1 -eq 125 ] && [ $rc2 -eq 125 ] && [ $rc3 -eq 125 ] && [ "$mode" = 600 ] && [ "$mode3" = 600 ] &&
	grep -q "^sandbx: the command's standard input is a directory (or an O_PATH handle)" "$TMP/err" &&
	grep -q "^sandbx: the command's standard output is a directory (or an O_PATH handle)" "$TMP/err2" &&
	grep -q "^sandbx: the command's standard output is a directory (or an O_PATH handle)" "$TMP/err3"; then
	t_pass
else
	t_fail "rc=$rc1/$rc2/$rc3 mode=$mode/$mode3 $(cat "$TMP/err" "$TMP/err2" "$TMP/err3")"
fi

t_start sr-stdio-memfd-refused "an anonymous memory file (memfd) as standard input, output or error is refused before the command runs: Landlock does not govern it, so through /proc/self/fd the command wrote a program into it and ran it; one sealed against every change is refused too (it would still run from there)"
# Each descriptor in turn is a memfd holding "data"; the command copies
# /usr/bin/id into it through /proc/self/fd/N and runs it from there.
out=$(cd "$W" && $PY - "$SANDBX" 2>&1 <<'PYEOF'
import os, sys
for n in (0, 1, 2):
    fd = os.memfd_create("data", 0)
    os.write(fd, b"data\n"); os.lseek(fd, 0, 0)
    err = os.open("err%d" % n, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid == 0:
        os.dup2(err, 2); os.dup2(fd, n)
        if n != 0:
            os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
        os.execv(sys.argv[1], ["sandbx", "sandbox-run", "--", "/bin/sh", "-c",
                 "cp /usr/bin/id /proc/self/fd/%d && /proc/self/fd/%d -u >&%d && echo ran-$((6*7)) >&%d" % (n, n, 2 - (n == 2), 2 - (n == 2))])
    _, st = os.waitpid(pid, 0)
    os.lseek(fd, 0, 0)
    held = os.read(fd, 1 << 20)
    said = open("err%d" % n, "rb").read() + (held if n == 2 else b"")
    print("fd%d rc=%d kept=%s said=%s ran=%s" % (n, os.waitstatus_to_exitcode(st), held == b"data\n" or n == 2,
          b"is an anonymous memory file" in said, b"ran-42" in said))
PYEOF
)
# A memfd sealed against every change cannot be written, but would still
# run from /proc/self/fd/0: refused as well, and left as it was.
out2=$(cd "$W" && $PY - "$SANDBX" 2>&1 <<'PYEOF'
import os, sys, fcntl
fd = os.memfd_create("data", os.MFD_ALLOW_SEALING)
os.write(fd, b"data\n"); os.lseek(fd, 0, 0)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
pid = os.fork()
if pid == 0:
    os.dup2(fd, 0); os.dup2(os.open("/dev/null", os.O_WRONLY), 2)
    os.execv(sys.argv[1], ["sandbx", "sandbox-run", "--", "/bin/sh", "-c", "cat; /proc/self/fd/0; echo ran"])
_, st = os.waitpid(pid, 0)
os.lseek(fd, 0, 0)
print("rc=%d kept=%s" % (os.waitstatus_to_exitcode(st), os.read(fd, 100) == b"data\n"))
PYEOF
)
case "$out/$out2" in
"fd0 rc=125 kept=True said=True ran=False
fd1 rc=125 kept=True said=True ran=False
fd2 rc=125 kept=True said=True ran=False/rc=125 kept=True") t_pass ;;
*) t_fail "$out / $out2" ;;
esac

t_start sr-stdio-async-refused "a terminal as standard input on which a program of the caller's turned O_ASYNC on is refused before the command runs (exit 125, naming the descriptor): the command could set the signal the next line typed sends that program (F_SETSIG) to SIGKILL, which Landlock's signal scope lets through since the caller set the owner, and did kill it before; the same terminal with O_ASYNC off runs"
# The owner makes a terminal its controlling one, turns O_ASYNC on (the
# terminal then signals the owner's process group), and runs sandbx on it;
# the command sets F_SETSIG to SIGKILL and waits; a line is typed.
cat > "$TMP/asyncown.py" <<'PYEOF'
import os, pty, sys, time, fcntl, termios, signal
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGIO, lambda *a: None)
    if sys.argv[2] == "on":
        fcntl.fcntl(s, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(s, fcntl.F_SETFL, fcntl.fcntl(s, fcntl.F_GETFL) | os.O_ASYNC)
    r = os.fork()
    if r == 0:
        os.dup2(s, 0); os.dup2(s, 1); os.dup2(os.open("err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        os.execv(sys.argv[1], ["sandbx", "sandbox-run", "--", sys.executable, "-c",
                 "import fcntl, time; fcntl.fcntl(0, 10, 9); print('set', flush=True); time.sleep(3)"])
    _, st = os.waitpid(r, 0)
    os._exit(os.waitstatus_to_exitcode(st) & 0x7f)
os.close(s)
time.sleep(1.5)
os.write(m, b"x\n")
_, st = os.waitpid(pid, 0)
said = open("err", "rb").read()
print("owner=%s said=%s" % ("sig%d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "rc%d" % os.WEXITSTATUS(st),
      b"standard input is a terminal (or another device) on which a program of yours turned O_ASYNC on" in said))
PYEOF
on=$(cd "$W" && timeout 30 $PY "$TMP/asyncown.py" "$SANDBX" on 2>&1)
off=$(cd "$W" && timeout 30 $PY "$TMP/asyncown.py" "$SANDBX" off 2>&1)
# 125 & 0x7f is 125; a run that went on reads rc0
case "$on/$off" in
"owner=rc125 said=True/owner=rc0 said=False") t_pass ;;
*) t_fail "O_ASYNC on: '$on' (expected owner=rc125 said=True); off: '$off' (expected owner=rc0 said=False)" ;;
esac

t_start sr-stdio-timeout-restored "a command ended by --timeout is gone when sandbx returns, so the terminal flags put back stay put: 16 processes setting O_NONBLOCK on the terminal without pause leave it blocking, in each of 8 runs"
if ! command -v script >/dev/null; then t_skip "no script(1) to make a terminal"
else
	cat > "$TMP/tmo.sh" <<IN
cd "$W"
for i in 1 2 3 4 5 6 7 8; do
	"$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" --timeout 1 -- "$PROBES/fs" nonblock-spin 16 2>/dev/null
	echo "rc=\$?"
	$PY -c 'import os,fcntl; fl = fcntl.fcntl(0, fcntl.F_GETFL); print("after", "nb" if fl & os.O_NONBLOCK else "b"); fcntl.fcntl(0, fcntl.F_SETFL, fl & ~os.O_NONBLOCK)'
done
IN
	out=$(timeout 60 script -qec "sh $TMP/tmo.sh" /dev/null </dev/null | tr -d '\r')
	if [ "$(echo "$out" | grep -c '^rc=124$')" = 8 ] && [ "$(echo "$out" | grep -c '^after b$')" = 8 ]; then t_pass
	else t_fail "$(echo "$out" | tr '\n' ' ')"; fi
fi

# Job control: the command is in a session of its own (setsid), where the
# kernel's SIGTTIN/SIGTSTP do not reach it; the init passes them on.
# Each case runs a job-control shell under script(1), which types the
# feeder's bytes into the terminal.
job_terminal() {	# true when script(1) and bash can make one; else the test is skipped
	command -v script >/dev/null && command -v bash >/dev/null && return 0
	t_skip "no script(1) or bash to make a job-control terminal"
	return 1
}
t_start sr-stdio-background-no-read "sandbox-run started in the background ('&') of the terminal it gives the command does not read the keys typed for the shell in the foreground: sandbx's job is stopped (tty input) until fg, as a background job of the shell reading the terminal is"
if job_terminal; then
	cat > "$TMP/bg.sh" <<IN
set -m
cd "$W"
"$SANDBX" sandbox-run -- sh -c 'read x; echo "stolen:\$x"' 2>/dev/null &
read -r y
echo "shell:\$y"
jobs -l
kill %1 2>/dev/null
wait 2>/dev/null
IN
	out=$( (sleep 2; printf 'hunter2\n'; sleep 2) | timeout 30 script -qec "bash $TMP/bg.sh" /dev/null 2>/dev/null | tr -d '\r')
	case "$out" in
	*"stolen:hunter2"*) t_fail "the background command read the shell's line: $out" ;;
	*"shell:hunter2"*"Stopped (tty input)"*) t_pass ;;
	*) t_fail "$out" ;;
	esac
fi

t_start sr-stdio-stopped-job "^Z stops the whole sandbox with sandbx's job, bg keeps it stopped while the job is in the background, fg continues it to its end"
if job_terminal; then
	cat > "$TMP/stop.sh" <<IN
set -m
cd "$W"
rm -f ticks
"$SANDBX" sandbox-run -- sh -c 'i=0; while [ \$i -lt 30 ]; do echo x >> ticks; sleep 0.1; i=\$((i+1)); done' 2>/dev/null
a=\$(wc -c < ticks); sleep 1; b=\$(wc -c < ticks)
bg >/dev/null; sleep 1; c=\$(wc -c < ticks)
fg >/dev/null; d=\$(wc -c < ticks)
echo "ticks \$a \$b \$c \$d"
IN
	out=$( (sleep 1; printf '\032'; sleep 8) | timeout 30 script -qec "bash $TMP/stop.sh" /dev/null 2>/dev/null | tr -d '\r' | grep -o 'ticks [0-9 ]*')
	set -- $out
	if [ $# -eq 5 ] && [ "$2" -gt 0 ] && [ "$2" -lt 60 ] && [ "$2" = "$3" ] && [ "$3" = "$4" ] && [ "$5" = 60 ]; then t_pass
	else t_fail "bytes written at the stop, 1 s later, 1 s after bg, after fg: '$out'"; fi
fi

# stop_job SCRIPT [BEFORE [KEY]]: run SCRIPT (a sandbox-run, stderr to
# $W/sbx.err) as a job of a job-control terminal, BEFORE started first in
# the background; KEY (^Z unless given) at 1.5 s, 'hunter2' typed for the shell while the job is
# stopped, fg, 'after' typed for the command, then end of input.  Sets out
# to what the terminal showed.
stop_job() {
	cat > "$TMP/job.sh" <<IN
set -m
cd "$W"
${2:-:} &
sh "$1" 2>sbx.err
sleep 2
read -r y
echo "shell:\$y"
fg >/dev/null
echo "fg:\$?"
kill %1 2>/dev/null
IN
	out=$( (sleep 1.5; printf '%s' "${3-$(printf '\032')}"; sleep 2; printf 'hunter2\n'; sleep 1.5; printf 'after\n'; sleep 0.5; printf '\004'; sleep 1) |
		timeout 40 script -qec "bash $TMP/job.sh" /dev/null 2>/dev/null | tr -d '\r')
}
# stop_held: the job held stopped, the shell's line the shell's, and the
# command read only what was typed after fg ($W/stolen); then cleaned up
stop_held() {
	got=$(cat "$W/stolen" 2>/dev/null)
	case "$out|$got" in
	*hunter2*"|"*hunter2*) t_fail "the stopped command read the shell's line: $got" ;;
	*"shell:hunter2"*"fg:0|stolen:after") t_pass ;;
	*) t_fail "$out | $got | $(cat "$W/sbx.err" 2>/dev/null)" ;;
	esac
	rm -f "$W/stolen" "$W/sbx.err"
}

t_start sr-stdio-stopped-self-cont "a command stopped with sandbx's job (^Z) stays stopped although it sends itself SIGCONT (a POSIX timer every 10 ms, O_ASYNC input): the keys typed ahead for the shell while the job is stopped are the shell's; fg continues the command, which reads what is typed then and ends"
if job_terminal; then
	rm -f "$W/stolen"
	echo "exec \"$SANDBX\" sandbox-run --allow-exec \"$PROBES\" --allow-write \"$W\" -- \"$PROBES/fs\" cont-read \"$W/stolen\"" > "$TMP/cmd.sh"
	stop_job "$TMP/cmd.sh"
	stop_held
fi

t_start sr-stdio-sigstop-held "a command whose job is stopped by SIGSTOP (kill -STOP %1, sent to the job's process group: the init cannot block it, so it cannot pass it on) is stopped and held with it, as at a ^Z: the keys typed for the shell meanwhile are the shell's, and fg continues the command, which reads what is typed then"
if job_terminal; then
	rm -f "$W/stolen"
	echo "exec \"$SANDBX\" sandbox-run --allow-exec \"$PROBES\" --allow-write \"$W\" -- \"$PROBES/fs\" cont-read \"$W/stolen\"" > "$TMP/cmd.sh"
	# the terminal's foreground group (tpgid, field 8) at 1.5 s is the job's
	stop_job "$TMP/cmd.sh" 'bash -c '\''sleep 1.5; read -r _ _ _ _ _ _ _ fg _ < /proc/self/stat; kill -STOP -- -$fg'\''' ''
	stop_held
fi

t_start sr-stdio-sigstop-harness-held "a command whose sandbx alone is stopped by SIGSTOP (kill -STOP of its pid: the shell reports the job stopped and takes the terminal back, and the init gets no signal at all) is stopped and held within 100 ms, as a job continued in the background is: the keys typed for the shell meanwhile are the shell's, and fg continues the command"
if job_terminal; then
	rm -f "$W/stolen"
	echo "exec \"$SANDBX\" sandbox-run --allow-exec \"$PROBES\" --allow-write \"$W\" -- \"$PROBES/fs\" cont-read \"$W/stolen\"" > "$TMP/cmd.sh"
	# the job's group leader is sandbx (cmd.sh execs it)
	stop_job "$TMP/cmd.sh" 'bash -c '\''sleep 1.5; read -r _ _ _ _ _ _ _ fg _ < /proc/self/stat; kill -STOP $fg'\''' ''
	stop_held
fi

t_start sr-stdio-sigstop-harness-chld-held "the same stop of sandbx's pid alone holds a command that keeps the init's SIGCHLDs coming faster than every 100 ms (orphans that exit, which the init reaps), so the init's look at the foreground is never put off"
if job_terminal; then
	rm -f "$W/stolen"
	cat > "$TMP/cmd.sh" <<IN
exec "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" -- /bin/sh -c '(while :; do sh -c "true &"; done) & exec "\$0" cont-read "\$1"' "$PROBES/fs" "$W/stolen"
IN
	stop_job "$TMP/cmd.sh" 'bash -c '\''sleep 1.5; read -r _ _ _ _ _ _ _ fg _ < /proc/self/stat; kill -STOP $fg'\''' ''
	stop_held
fi

t_start sr-stdio-stop-zombie-held "a zombie in the sandbox (a child its parent never reaped, which a seize refuses like a thread held elsewhere) does not make a ^Z fail: the job stops, holds, and ends after fg"
if job_terminal; then
	rm -f "$W/stolen"
	cat > "$TMP/cmd.sh" <<IN
exec "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" -- /bin/sh -c 'true & exec "\$0" cont-read "\$1"' "$PROBES/fs" "$W/stolen"
IN
	stop_job "$TMP/cmd.sh"
	stop_held
fi

t_start sr-stdio-stop-unheld-refused "a stopped job the init cannot hold stopped (a process of it traced from the host, so the init's own ptrace seize is refused) fails closed: the sandbox is killed and the run reported refused (exit 125, mechanism=job-control), never left running while the shell has the terminal"
if job_terminal; then
	rm -f "$W/stolen" "$W/hold.err"
	echo "exec \"$SANDBX\" sandbox-run --allow-exec \"$PROBES\" --allow-write \"$W\" -- \"$PROBES/fs\" cont-read \"$W/stolen\"" > "$TMP/cmd.sh"
	stop_job "$TMP/cmd.sh" "\"$TESTTOOLS/ptracehold\" \"$PROBES/fs\" \"$W/stolen\" 15 2>hold.err"
	got=$(cat "$W/stolen" 2>/dev/null)
	if ! grep -q '^held ' "$W/hold.err" 2>/dev/null; then t_fail "the host-side tracer held nothing: $(cat "$W/hold.err" 2>/dev/null) | $out"
	else case "$out|$got" in
	*"|"*hunter2*) t_fail "the stopped command read the shell's line: $got" ;;
	*"shell:hunter2"*"fg:125|"*)
		if grep -q 'sandbx audit refused mechanism=job-control' "$W/sbx.err"; then t_pass
		else t_fail "no job-control refusal: $(cat "$W/sbx.err")"; fi ;;
	*) t_fail "$out | $got | $(cat "$W/sbx.err" 2>/dev/null)" ;;
	esac; fi
	rm -f "$W/stolen" "$W/sbx.err" "$W/hold.err"
fi

t_start sr-stdio-orphaned-bg-refused "sandbox-run in the background of its terminal with no way back to the foreground (an orphaned process group: '( cmd & )') is refused at once (exit 125, naming the descriptor), not held for good"
if job_terminal; then
	# The inner subshell's parent exits at once: its process group is
	# orphaned, and the shell has taken the terminal back when sandbx starts.
	cat > "$TMP/orphan.sh" <<IN
set -m
cd "$W"
( ( sleep 1; "$SANDBX" sandbox-run -- sh -c 'echo ran > orphan.ran' </dev/null 2>orphan.err; echo \$? > orphan.rc ) & )
sleep 4
IN
	timeout 30 script -qec "bash $TMP/orphan.sh" /dev/null </dev/null >/dev/null 2>&1
	rc=$(cat "$W/orphan.rc" 2>/dev/null)
	if [ "$rc" = 125 ] && grep -q 'descriptor 1 is a terminal' "$W/orphan.err" && grep -q 'refused mechanism=job-control' "$W/orphan.err" && [ ! -e "$W/orphan.ran" ]; then t_pass
	else t_fail "rc='$rc' ran=$([ -e "$W/orphan.ran" ] && echo yes || echo no): $(cat "$W/orphan.err" 2>/dev/null)"; fi
	rm -f "$W/orphan.rc" "$W/orphan.ran" "$W/orphan.err"
fi

# sockdrv.py FDS [--send-after MARK] [--bulk N] [--hold] [--close] -- ARGV...
# runs ARGV with the descriptors named in FDS ("01", "012", "1"...) on one
# end of a unix stream socket pair, as a service's journald stream or
# Node's child_process gives them; the others: stdin /dev/null, stdout a
# pipe, stderr inherited.  Prints what came back (socket, then pipe), then
# "rc=N" (a negative N: killed by signal -N; "rc=hung" when it ran past
# 60 s, and its process group was killed) and "secs=S".
#   --send-after MARK   write "later\n" to the socket once MARK came back
#   --bulk N            write N random bytes and shut the writing side,
#                       print "sent=SHA256" (the output is then not printed,
#                       only "got=LEN SHA256-of-the-first-line-stripped...")
#   --hold              write nothing, never shut, and hold the other end
#                       open too (a caller that lives on past the run)
#   --close             close our end after the first bytes came back
#   --deaf              hold the socket open and never read from it (a
#                       reader that stalls): only the exit is waited for
#   --deaf-for S        read nothing for S seconds, then all to the end
#   --sndbuf N          SO_SNDBUF N on the end the command side gets, so
#                       the socket takes only a few KiB ahead of its reader
#                       (N=1: the kernel's least, 4480 bytes here)
#   --count             print "got=LEN" of what came back, not the bytes
cat > "$TMP/sockdrv.py" <<'PY'
import hashlib, os, selectors, signal, socket, subprocess, sys, threading, time
a = sys.argv[1:]
fds = a.pop(0)
opt = {}
while a[0] != "--":
	k = a.pop(0)
	opt[k] = a.pop(0) if k in ("--send-after", "--bulk", "--deaf-for", "--sndbuf") else True
argv = a[1:]
s, t = socket.socketpair()
if "--sndbuf" in opt:
	t.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(opt["--sndbuf"]))
late = float(opt["--deaf-for"]) if "--deaf-for" in opt else None
p = subprocess.Popen(argv, stdin=t if "0" in fds else subprocess.DEVNULL,
	stdout=t if "1" in fds else subprocess.PIPE, stderr=t if "2" in fds else None, start_new_session=True)
if "--hold" not in opt:
	t.close()	# else held, as by a caller that outlives the run
t0 = time.monotonic()
if "--bulk" in opt:
	data = os.urandom(int(opt["--bulk"]))
	print("sent=" + hashlib.sha256(data).hexdigest())
	def feed():
		s.sendall(data)
		s.shutdown(socket.SHUT_WR)
	threading.Thread(target=feed, daemon=True).start()
sel = selectors.DefaultSelector()
if "--deaf" not in opt and late is None:
	sel.register(s, selectors.EVENT_READ)
if p.stdout:
	sel.register(p.stdout, selectors.EVENT_READ)
out, sent, live = b"", False, len(sel.get_map())
while (live or "--deaf" in opt or late is not None) and time.monotonic() < t0 + 60:
	if late is not None and time.monotonic() >= t0 + late:
		sel.register(s, selectors.EVENT_READ)
		live += 1
		late = None
	if not live:
		time.sleep(0.05)
	for k, _ in sel.select(0.1):
		try:
			d = k.fileobj.recv(1 << 20) if k.fileobj is s else os.read(k.fileobj.fileno(), 1 << 20)
		except ConnectionResetError:	# its end closed with our bytes unread
			d = b""
		if not d:
			sel.unregister(k.fileobj)
			live -= 1
			continue
		out += d
		if "--close" in opt and k.fileobj is s:
			sel.unregister(s)
			s.close()
			live -= 1
		if "--send-after" in opt and not sent and opt["--send-after"].encode() in out:
			s.sendall(b"later\n")
			sent = True
	# the socket ends only once every holder closed it: stop at the end of the run
	if p.poll() is not None and ("--hold" in opt or "--deaf" in opt):
		break
try:
	rc = p.wait(max(1, t0 + 60 - time.monotonic()))
except subprocess.TimeoutExpired:
	os.killpg(p.pid, signal.SIGKILL)
	p.wait()
	rc = "hung"
if "--bulk" in opt:
	head, _, rest = out.partition(b"\n")
	print("sum=" + head.decode(errors="replace").split()[0] if head else "sum=")
	print("got=%d %s" % (len(rest), hashlib.sha256(rest).hexdigest()))
elif "--count" in opt:
	print("got=%d" % len(out))
else:
	sys.stdout.write(out.decode(errors="replace"))
print("rc=%s" % rc)
print("secs=%.1f" % (time.monotonic() - t0))
PY
DRV="$PY $TMP/sockdrv.py"
# what the command's descriptors are (fstat: "fifo" or "sock"), on stderr
KIND="$PY -c 'import os,stat,sys; sys.stderr.write(\" \".join(\"fifo\" if stat.S_ISFIFO(os.fstat(int(i)).st_mode) else \"sock\" if stat.S_ISSOCK(os.fstat(int(i)).st_mode) else \"other\" for i in sys.argv[1:]) + \"\\n\")'"
SR="$SANDBX sandbox-run --allow-exec $PROBES"

t_start sr-stdio-socket-shutdown "a command given the caller's unix socket as standard input and output that shuts it down (SHUT_RD on 0, SHUT_WR on 1) leaves the caller's socket as it was: the calling shell writes to it and reads from it after the run (it was killed by SIGPIPE on its next echo)"
out=$(cd "$W" && $DRV 01 --send-after MARK -- sh -c "$SR -- $PROBES/sys stdio-shutdown 2>$TMP/err; echo MARK rc=\$?; read x; echo got=\$x" 2>&1)
case "$out" in
*"MARK rc=0"*"got=later"*"rc=0"*) t_pass ;;
*) t_fail "the caller's socket was shut: '$out' $(cat "$TMP/err")" ;;
esac

t_start sr-stdio-socket-options "socket options a command sets on a standard socket of the caller's (SO_RCVTIMEO of 1 ms on 0, SO_SNDBUF on 1) are not the caller's afterwards"
cat > "$TMP/opts.py" <<'PY'
import socket, sys
a, b = socket.socket(fileno=0), socket.socket(fileno=1)
sys.stderr.write("%s %d\n" % (a.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16).hex(), b.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)))
a.detach(); b.detach()
PY
out=$(cd "$W" && $DRV 01 -- sh -c "$PY $TMP/opts.py 2>$TMP/before; $SR -- $PROBES/sys stdio-sockopt 2>$TMP/err; $PY $TMP/opts.py 2>$TMP/after; echo done" 2>&1)
if [ -s "$TMP/before" ] && cmp -s "$TMP/before" "$TMP/after" && case "$out" in *done*rc=0*) true ;; *) false ;; esac; then t_pass
else t_fail "before '$(cat "$TMP/before")' after '$(cat "$TMP/after")' inside '$(cat "$TMP/err")': $out"; fi

t_start sr-stdio-socket-no-peer "a standard descriptor that is a unix socket (a service's journald stream, Node's child_process) reaches the command as a pipe: SO_PEERCRED, getpeername and SO_PEERPIDFD answer ENOTSOCK, where unconfined the same probe names the peer, a host process of the caller's"
out=$(cd "$W" && $DRV 01 -- sh -c "$SR -- $PROBES/sys stdio-peer; $SR -- $PROBES/sys peer-pidfd" 2>"$TMP/err")
free=$($DRV 01 -- sh -c "$PROBES/sys stdio-peer; $PROBES/sys peer-pidfd" 2>&1)
case "$free" in
"cred=ok name=ok"*"ok info=ok"*) case "$out" in
	"cred=ENOTSOCK name=ENOTSOCK"*"err ENOTSOCK"*) t_pass ;;
	*) t_fail "the peer reached the command: '$out' $(cat "$TMP/err")" ;;
	esac ;;
*) t_fail "unconfined control: '$free'" ;;
esac

t_start sr-stdio-socket-bulk "8 MiB through a standard input that is a socket and 8 MiB back through standard output on it reach the command and the caller whole (through the pipes the command is given), and the command's exit status passes through"
out=$(cd "$W" && $DRV 01 --bulk 8388608 -- $SR -- /bin/sh -c "$KIND 0 1; sha256sum | cut -c1-64; head -c 8388608 /dev/zero; exit 7" 2>"$TMP/err")
sent=$(echo "$out" | sed -n 's/^sent=//p')
zeros=$(head -c 8388608 /dev/zero | sha256sum | cut -d' ' -f1)
if [ -n "$sent" ] && echo "$out" | grep -qx "sum=$sent" && echo "$out" | grep -qx "got=8388608 $zeros" &&
   echo "$out" | grep -qx "rc=7" && grep -qx 'fifo fifo' "$TMP/err"; then t_pass
else t_fail "$out $(cat "$TMP/err")"; fi

t_start sr-stdio-socket-writer-open "a command that ends without reading its standard input, while the caller holds that socket open and neither writes to it nor shuts it, ends sandbx at once, with what it wrote to output and error (one socket) passed on in its order"
out=$(cd "$W" && $DRV 012 --hold -- $SR -- /bin/sh -c "$KIND 0 1 2; echo a; echo b >&2; echo c; sleep 0.3")
secs=$(echo "$out" | sed -n 's/^secs=//p')
body=$(echo "$out" | grep -v '^sandbx ' | grep -v '^secs=' | tr '\n' ' ')
if [ "$body" = "fifo fifo fifo a b c rc=0 " ] && [ "${secs%.*}" -lt 10 ]; then t_pass
else t_fail "'$body' after ${secs}s"; fi

t_start sr-stdio-socket-reader-gone "a caller that closes its end of the socket a command writes to ends the command as the socket would (SIGPIPE: 141) and sandbx exits with that status, not killed by SIGPIPE itself"
out=$(cd "$W" && $DRV 1 --close -- $SR -- /bin/sh -c "$KIND 1; exec yes" 2>"$TMP/err")
if echo "$out" | grep -qx "rc=141" && grep -qx fifo "$TMP/err"; then t_pass
else t_fail "$(echo "$out" | tail -2 | tr '\n' ' ') $(cat "$TMP/err")"; fi

t_start sr-stdio-socket-err-reader-gone "a caller that closes its end of a standard error socket during the run does not end sandbx by SIGPIPE at its last record: sandbx exits with the command's own status (7); before, it died of SIGPIPE"
out=$(cd "$W" && $DRV 2 --close -- $SR -- /bin/sh -c 'sleep 1; echo x >&2; sleep 0.5; exit 7')
if echo "$out" | grep -qx "rc=7"; then t_pass
else t_fail "$(echo "$out" | tail -2 | tr '\n' ' ')"; fi

t_start sr-stdio-socket-timeout-stalled "--timeout 2 still ends sandbx (exit 124) within seconds when the command filled a standard output socket whose reader stalls: what the relay still holds is dropped at the deadline rather than waited on for ever"
out=$(cd "$W" && $DRV 1 --deaf -- $SR --timeout 2 -- /bin/sh -c "$KIND 1; exec yes" 2>"$TMP/err")
secs=$(echo "$out" | sed -n 's/^secs=//p')
if echo "$out" | grep -qx "rc=124" && [ "${secs%.*}" -lt 10 ] && grep -qx fifo "$TMP/err"; then t_pass
else t_fail "$(echo "$out" | tail -2 | tr '\n' ' ') $(cat "$TMP/err")"; fi

t_start sr-stdio-socket-err-order "with standard error a socket whose reader stalls, a command that wrote 50 KB of 999-character lines to it (less than its pipe takes: it never waits) and exited in time has what the socket took, then sandbx's message of what was not passed on, then the exited record last: each a line of its own, no line of sandbx's in the middle of one of the command's where the flush was given up"
# The reader comes back at 4 s: after the flush's deadline (3 s), before
# that of sandbx's last lines (2 s more, relay.h).
out=$(cd "$W" && $DRV 2 --sndbuf 1 --deaf-for 4 -- $SR --timeout 3 -- /bin/sh -c 'yes $(printf %0999d 0) | head -c 50000 >&2')
body=$(echo "$out" | grep -v '^rc=' | grep -v '^secs=')
# the command's lines whole, but for the one the flush cut; sandbx's lines
# whole and in their order
mixed=$(echo "$body" | grep -v '^sandbx audit ' | grep -v '^sandbx: ' | grep -v '^0\{1,999\}$' | cut -c1-80)
cut=$(echo "$body" | grep '^0*$' | awk 'length($0) != 999' | wc -l)
ours=$(echo "$body" | grep '^sandbx' | sed 's/^\(sandbx audit [a-z]*\) .*/\1/; s/^sandbx: [0-9]* bytes the command wrote were not passed on: .*/sandbx: lost/' | tr '\n' ' ')
if echo "$out" | grep -qx 'rc=0' && [ -z "$mixed" ] && [ "$cut" -le 1 ] &&
   [ "$ours" = "sandbx audit spawned sandbx: lost sandbx audit exited " ] &&
   echo "$body" | tail -1 | grep -q '^sandbx audit exited .* code=0$'; then t_pass
else t_fail "mixed '$mixed' cut=$cut ours '$ours' $(echo "$out" | tail -2 | tr '\n' ' ')"; fi

t_start sr-stdio-socket-err-stalled-final "--timeout 2 ends sandbx (exit 124) within seconds when the command filled a standard error socket whose reader never reads: sandbx's own last lines (the timeout message, the exited record) have 2 s past the deadline, then are dropped; before, sandbx waited on them for ever"
out=$(cd "$W" && $DRV 2 --deaf -- $SR --timeout 2 -- /bin/sh -c 'exec yes >&2')
secs=$(echo "$out" | sed -n 's/^secs=//p')
if echo "$out" | grep -qx "rc=124" && [ -n "$secs" ] && [ "${secs%.*}" -lt 9 ]; then t_pass
else t_fail "$(echo "$out" | tail -2 | tr '\n' ' ')"; fi

t_start sr-stdio-socket-lost-output "a command that wrote 50 KB to a standard output socket and exited in time, whose reader then took nothing for the rest of --timeout 3 (the socket's buffer at the least: 4480 bytes), ends sandbx with the command's own status (0), with one message, its exact words, counting the bytes that did not reach the socket: 50000 less what the reader got afterwards"
out=$(cd "$W" && $DRV 1 --sndbuf 1 --deaf-for 5 --count -- $SR --timeout 3 -- /bin/sh -c 'head -c 50000 /dev/zero' 2>"$TMP/err")
got=$(echo "$out" | sed -n 's/^got=//p')
lost=$(sed -n 's/^sandbx: \([0-9]*\) bytes the command wrote were not passed on: the reader of its standard output or error took none for the rest of --timeout 3s$/\1/p' "$TMP/err")
said=$(grep -c 'not passed on' "$TMP/err")
if echo "$out" | grep -qx 'rc=0' && [ -n "$got" ] && [ -n "$lost" ] && [ "$said" = 1 ] &&
   [ $((got + lost)) -eq 50000 ] && [ "$lost" -ge 40000 ] &&
   tail -n 1 "$TMP/err" | grep -q '^sandbx audit exited .* code=0$'; then t_pass
else t_fail "got='$got' lost='$lost' $(echo "$out" | tail -2 | tr '\n' ' ') $(grep -v '^sandbx audit spawned' "$TMP/err" | tr '\n' ' ')"; fi

t_start sr-stdio-socket-lost-on-signal "output a stalled reader never took, given up because sandbx got SIGTERM after the command ended (no --timeout), is counted in a message that names the signal (it named a --timeout 0s that was never given), and sandbx ends by the signal (143) with the exited record last"
out=$(cd "$W" && $DRV 1 --sndbuf 1 --deaf-for 5 --count -- /bin/sh -c "$SR -- /bin/sh -c 'head -c 50000 /dev/zero' 2>$TMP/err & p=\$!; sleep 2; kill \$p; wait \$p 2>/dev/null; echo \$? > $TMP/rc")
got=$(echo "$out" | sed -n 's/^got=//p')
lost=$(sed -n 's/^sandbx: \([0-9]*\) bytes the command wrote were not passed on: sandbx was asked to end (SIGTERM) before the reader of its standard output or error took them$/\1/p' "$TMP/err")
said=$(grep -c 'not passed on' "$TMP/err")
if [ "$(cat "$TMP/rc")" = 143 ] && [ -n "$got" ] && [ -n "$lost" ] && [ "$said" = 1 ] && [ $((got + lost)) -eq 50000 ] &&
   tail -n 1 "$TMP/err" | grep -q '^sandbx audit exited .* code=143 stopped=SIGTERM$'; then t_pass
else t_fail "rc=$(cat "$TMP/rc") got='$got' lost='$lost' $(grep -v '^sandbx audit spawned' "$TMP/err" | tr '\n' ' ')"; fi

# ---- standard descriptors that are pipes: relayed too (relay.h) ----
printf 'top-secret\n' > "$O/secret"; chmod 600 "$O/secret"

t_start sr-stdio-pipe-out-not-readable "a command cannot open its standard output pipe again for reading (through /proc/self/fd): what another host process wrote into that pipe (a 0600 file outside every grant) still reaches the pipe's reader, and the command reads none of it (before, it took the bytes: the reader got nothing)"
( cat "$O/secret"; cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c 'exec 3>&1; timeout 1 cat /proc/self/fd/3 > stolen' 2>/dev/null ) | { sleep 2; cat > "$TMP/consumer"; }
if grep -qx top-secret "$TMP/consumer" && [ -f "$W/stolen" ] && ! grep -q secret "$W/stolen"; then t_pass
else t_fail "consumer: $(cat "$TMP/consumer") stolen: $(cat "$W/stolen" 2>&1)"; fi
rm -f "$W/stolen"

t_start sr-stdio-pipe-err-record-kept "a command given standard output and error as one pipe ('2>&1 |') cannot take sandbx's spawned record out of it by reading it through /proc/self/fd: the reader gets the record, then the command's own lines (before, the command took the record and printed a forged one in its place)"
( cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c 'exec 3>&1; timeout 1 cat /proc/self/fd/3 > gone; echo "sandbx audit spawned forged" >&2' 2>&1 ) | { sleep 2; cat > "$TMP/reader"; }
if sed -n 1p "$TMP/reader" | grep -q '^sandbx audit spawned command="/bin/sh' && grep -qx 'sandbx audit spawned forged' "$TMP/reader" &&
   ! grep -q 'audit spawned command' "$W/gone"; then t_pass
else t_fail "reader: $(cat "$TMP/reader") gone: $(cat "$W/gone" 2>&1)"; fi
rm -f "$W/gone"

t_start sr-stdio-err-record-own-line "a command that ends its standard error (a pipe, one pipe with standard output, or a socket) in the middle of a line cannot have sandbx's exited record continue that line: the record starts a line of its own, the last one, with the command's true status (before, a forged 'sandbx audit exited ... code=0' line followed by a partial one left the true record, code=3, glued to the end of the partial line, where a reader of lines that begin with it does not see it)"
forge='printf "sandbx audit exited command=\"/bin/true\" code=0\npartial" >&2; exit 3'
p1=$( (cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c "$forge") 2>&1 >/dev/null | cat)
p2=$( (cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c "printf out-partial; $forge") 2>&1 | cat)
s1=$(cd "$W" && $DRV 2 -- $SR -- /bin/sh -c "$forge" | grep -v '^rc=' | grep -v '^secs=')
bad=""
for v in p1 p2 s1; do
	eval "got=\$$v"
	echo "$got" | tail -1 | grep -q '^sandbx audit exited .* code=3$' || bad="$bad $v: $(echo "$got" | tail -2 | tr '\n' '|')"
	echo "$got" | grep -q '^partial$' || [ "$v" = p2 ] || bad="$bad $v: no 'partial' line"
done
echo "$p2" | grep -q 'out-partial' || bad="$bad p2: no out-partial"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start sr-stdio-pipe-in-not-writable "a command cannot write into its standard input pipe for the process that reads that pipe after it (/proc/self/fd/0 opened for writing), nor through the pipe's read end given as its output (1<&0): a shell loop reading the rest of the pipe reads only what the caller wrote (before: it read the command's INJECTED line, and acted on it unconfined)"
out=$(printf 'a\nb\n' | { cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c 'timeout 1 sh -c "echo INJECTED > /proc/self/fd/0"' 2>/dev/null; while read l; do echo "loop:$l"; done; })
# its input pipe's read end given as its output too (1<&0): the command's
# writes fail, and sandbx does not write into that pipe for it
out2=$(printf 'a\nb\n' | { cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c 'echo INJECTED; timeout 1 sh -c "echo INJECTED2 > /proc/self/fd/1"' 1<&0 2>/dev/null; while read l; do echo "loop:$l"; done; })
if [ "$out" = "$(printf 'loop:a\nloop:b')" ] && [ "$out2" = "$(printf 'loop:a\nloop:b')" ]; then t_pass; else t_fail "$out / 1<&0: $out2"; fi

t_start sr-stdio-pipe-input-left "a command given a pipe as standard input takes only what it reads: one that reads nothing leaves a shell loop's input whole ('... | while read l; do sandbx sandbox-run ...; done' sees every line), one that reads a line (sh's read, a byte at a time) leaves the rest to the next reader"
out=$(printf 'l1\nl2\nl3\n' | while read l; do echo "got $l"; (cd "$W" && "$SANDBX" sandbox-run -- /bin/true 2>/dev/null); done)
out2=$(printf 'l1\nl2\nl3\n' | { cd "$W" && "$SANDBX" sandbox-run -- /bin/sh -c 'read x; echo "cmd $x"' 2>/dev/null; cat; })
if [ "$out" = "$(printf 'got l1\ngot l2\ngot l3')" ] && [ "$out2" = "$(printf 'cmd l1\nl2\nl3')" ]; then t_pass
else t_fail "loop: $out / read: $out2"; fi

t_start sr-stdio-pipe-bulk "50 MB through a standard input pipe and back through a standard output pipe reach the command and the reader whole, in order (sha256), and a reader that goes away ends the command as its pipe would (yes | head: SIGPIPE, 141)"
head -c 50000000 /dev/urandom > "$TMP/bulk"
want=$(sha256sum < "$TMP/bulk")
got2=$(cat "$TMP/bulk" | (cd "$W" && "$SANDBX" sandbox-run -- /bin/cat 2>/dev/null) | sha256sum)
y=$( (cd "$W" && "$SANDBX" sandbox-run -- /usr/bin/yes 2>/dev/null; echo "rc=$?" > "$TMP/yrc") | head -2 | tr '\n' ' ')
rm -f "$TMP/bulk"
if [ "$got2" = "$want" ] && [ "$y" = "y y " ] && [ "$(cat "$TMP/yrc")" = rc=141 ]; then t_pass
else t_fail "sha: $got2 vs $want; yes: '$y' $(cat "$TMP/yrc")"; fi

t_start sr-stdio-pipe-other-user "pipes another user made (as root: the shell's pipes, sandbx run as nobody through setpriv) are relayed as the caller's own: the input reaches the command and its output the reader (sandbx opens neither again, which the pipes' 0600 owner would refuse)"
if [ "$(id -u)" = 0 ]; then
	out=$(echo through | setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "cd / && '$SANDBX' sandbox-run --allow-read '$W' -- /bin/cat 2>/dev/null; echo rc=\$?" | cat)
else
	out=$(echo through | (cd "$W" && "$SANDBX" sandbox-run -- /bin/cat 2>/dev/null; echo "rc=$?") | cat)
fi
if [ "$out" = "$(printf 'through\nrc=0')" ]; then t_pass; else t_fail "$out"; fi

t_start sr-stdio-pipe-timeout-stalled "--timeout 2 still ends sandbx (exit 124) within seconds when the command filled a standard output pipe whose reader stalls"
t0=$(date +%s)
( cd "$W" && "$SANDBX" sandbox-run --timeout 2 -- /bin/sh -c 'head -c 10000000 /dev/zero' 2>/dev/null; echo "rc=$?" > "$TMP/trc" ) | sleep 15 &
sp=$!
i=0; while [ ! -s "$TMP/trc" ] && [ $i -lt 120 ]; do sleep 0.1; i=$((i + 1)); done
took=$(( $(date +%s) - t0 ))
kill $sp 2>/dev/null; wait $sp 2>/dev/null
if [ "$(cat "$TMP/trc" 2>/dev/null)" = rc=124 ] && [ $took -le 8 ]; then t_pass
else t_fail "$(cat "$TMP/trc" 2>/dev/null) after ${took}s"; fi

t_done
