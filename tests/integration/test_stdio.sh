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

t_start sr-stdio-mode-restored "a command that chmods the file its stdout was redirected to (outside every grant) leaves the file's mode as it was, and sandbx says so"
: > "$O/log"; chmod 644 "$O/log"
( cd "$W" && "$SANDBX" sandbox-run -- $PY -c 'import os; os.fchmod(1, 0o666); print("wrote")' ) >"$O/log" 2>"$TMP/err"
mode=$(stat -c %a "$O/log")
if [ "$mode" = 644 ] && grep -qx wrote "$O/log" && grep -q "changed the mode of descriptor 1's file from 0644 to 0666 — put back" "$TMP/err"; then t_pass
else t_fail "mode $mode, log '$(cat "$O/log")', stderr: $(cat "$TMP/err")"; fi
t_start sr-stdio-dir-refused "a directory, or an O_PATH handle, as standard input, output or error is refused before the command runs (through it every host path beneath it would be reachable)"
echo secret > "$O/secret"; chmod 600 "$O/secret"
( cd "$W" && "$SANDBX" sandbox-run --allow-read /proc --allow-write "$W" -- /bin/sh -c 'chmod 666 /proc/self/fd/0/secret' ) <"$O" >/dev/null 2>"$TMP/err"
rc1=$?
( cd "$W" && $PY -c '
import os, sys
fd = os.open(sys.argv[1], os.O_PATH); os.dup2(fd, 1)
os.execv(sys.argv[2], ["sandbx", "sandbox-run", "--", "/bin/true"])' "$O" "$SANDBX" ) 2>"$TMP/err2"
rc2=$?
mode=$(stat -c %a "$O/secret")
if [ $rc1 -eq 125 ] && [ $rc2 -eq 125 ] && [ "$mode" = 600 ] &&
	grep -q "^sandbx: the command's standard input is a directory (or an O_PATH handle)" "$TMP/err" &&
	grep -q "^sandbx: the command's standard output is a directory (or an O_PATH handle)" "$TMP/err2"; then
	t_pass
else
	t_fail "rc=$rc1/$rc2 mode=$mode $(cat "$TMP/err" "$TMP/err2")"
fi

t_done
