# test_store.sh — the store (issue 7) through the CLI: `sandbx auth
# login|logout|status` and `sandbx sessions` with HOME and XDG_* in a private
# tree, and the policy's refusal of any grant reaching the session store or
# the credential file.
. "$(dirname "$0")/lib.sh"

H="$TMP/home"
CFG="$TMP/cfg"
ST="$TMP/state"
CRED="$CFG/sandbx/credentials.toml"
SESS="$ST/sandbx/sessions"
mkdir -p "$H" "$TMP/work"
KEY="sk-ant-test-KEY0123456789"

# st ARGS...: sandbx with the private tree; stdout in $out, stderr in $err, status in $rc
st() {
	out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		"$SANDBX" "$@" 2>"$TMP/err")
	rc=$?
	err=$(cat "$TMP/err")
}
mode() { stat -c %a "$1"; }
both() { printf '%s\n%s\n' "$out" "$err"; }

t_start st-status-none "auth status without a key exits 1 and says how to add one"
st auth status
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "sandbx auth login"; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-login-pipe "auth login reads the key from a pipe, stores it 0600 in a 0700 directory, never prints it"
out=$(printf '  %s\n' "$KEY" | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
if [ $rc -eq 0 ] && [ "$(mode "$CRED")" = 600 ] && [ "$(mode "$CFG/sandbx")" = 700 ] && [ "$(mode "$CFG")" = 700 ] &&
	grep -qF "api_key = \"$KEY\"" "$CRED" && ! both | grep -qF "$KEY" &&
	[ -z "$(find "$CFG/sandbx" -name '.credentials*')" ]; then t_pass
else t_fail "rc=$rc modes $(mode "$CRED" 2>&1) $(mode "$CFG/sandbx" 2>&1) out=$out err=$err"; fi

t_start st-login-nul "auth login refuses a piped key holding a NUL byte (it would be cut there) and stores nothing"
rm -f "$CRED.nul"; cp "$CRED" "$CRED.nul"
out=$(printf 'sk-ant-REAL\0-rest\n' | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "holds a NUL byte, which no API key has — pipe the key alone; nothing stored" &&
	cmp -s "$CRED" "$CRED.nul" && ! grep -q "sk-ant-REAL" "$CRED"; then t_pass; else t_fail "rc=$rc $err $(cat "$CRED")"; fi
rm -f "$CRED.nul"

t_start st-login-read-error "auth login says a failed read of stdin as one (a directory given as stdin), stores nothing and keeps the key stored before; before, the error counted as the end of the input: 'no key was given', or what was read up to it stored as the key"
rm -f "$CRED.rd"; cp "$CRED" "$CRED.rd"
out=$(env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth login < "$TMP" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
if [ $rc -eq 1 ] && [ -z "$out" ] && printf '%s' "$err" | grep -q "cannot read the key from stdin: Is a directory — nothing stored" &&
	cmp -s "$CRED" "$CRED.rd"; then t_pass; else t_fail "rc=$rc out=$out $err"; fi
rm -f "$CRED.rd"

t_start st-login-bad-key "auth login refuses what is not an API key (one letter, a 'Bearer ' or header name pasted with it, quotes around it, a space, a byte that is not ASCII, over 1024 bytes) saying why and that the key stored before is kept, which it is, byte for byte; auth status refuses such a key in ANTHROPIC_API_KEY or in the file the same way; none is ever printed (before, a 1-byte key was stored and sent)"
cp "$CRED" "$CRED.before"
bad=""
long=$(head -c 1025 /dev/zero | tr '\0' a)
for c in "k|shorter than 6 bytes" "Bearer sk-ant-REAL-0123|begins with 'Bearer '" "x-api-key: sk-ant-REAL-0123|begins with 'x-api-key:'" \
	"authorization:sk-ant-REAL-0123|begins with 'Authorization:'" "\"sk-ant-REAL-0123\"|quote mark" "'sk-ant-REAL-0123'|quote mark" \
	"sk-ant-REAL-0123 and more|space or tab" "sk-ant-REAL–0123|not ASCII" "$long|longer than 1024 bytes"; do
	in=${c%%|*} why=${c#*|}
	out=$(printf '%s\n' "$in" | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		"$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
	{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "that is not an API key: it" && printf '%s' "$err" | grep -qF "$why" &&
	  printf '%s' "$err" | grep -qF " — nothing stored (a key stored before is kept); give the key alone" &&
	  cmp -s "$CRED" "$CRED.before" && ! both | grep -q "REAL\|aaaaaaaa"; } || bad="$bad|login '$in': rc=$rc $err"
done
out=$(cd "$TMP/work" && ANTHROPIC_API_KEY=k HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth status 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && [ "$err" = "sandbx: ANTHROPIC_API_KEY does not hold an API key: it is shorter than 6 bytes — set it to the key alone, or unset it to use the key 'sandbx auth login' stored" ]; } ||
	bad="$bad|status with ANTHROPIC_API_KEY=k: rc=$rc $err"
printf '# pasted by hand\napi_key = "Bearer sk-ant-REAL-0123"\n' > "$CRED"
st auth status
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "cannot read the key from '$CRED': line 2: the value is not an API key: it begins with 'Bearer '" &&
  ! both | grep -q REAL; } || bad="$bad|status with a file: rc=$rc $err"
cp "$CRED.before" "$CRED"; rm -f "$CRED.before"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start st-status-file "auth status names the file as the source and never prints the key"
st auth status
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "from the file '$CRED'" && ! both | grep -qF "$KEY"; then t_pass
else t_fail "rc=$rc $(both)"; fi

t_start st-status-env "auth status names the environment when ANTHROPIC_API_KEY is set, without printing it"
out=$(cd "$TMP/work" && ANTHROPIC_API_KEY=sk-ant-ENVKEY42 HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth status 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "from the environment (ANTHROPIC_API_KEY)" &&
	! both | grep -qF ENVKEY42 && ! both | grep -qF "$KEY"; then t_pass; else t_fail "rc=$rc $(both)"; fi

t_start st-wide-file "a credential file with a group/other bit is refused (path, mode, rotate) and not chmod'ed"
ok=1
for m in 640 604 660 620; do
	chmod "$m" "$CRED"
	st auth status
	if [ $rc -ne 1 ] || ! printf '%s' "$err" | grep -qF "'$CRED' has mode 0$m" ||
		! printf '%s' "$err" | grep -q rotate || [ "$(mode "$CRED")" != "$m" ] || both | grep -qF "$KEY"; then
		ok=0; t_fail "mode $m: rc=$rc $err"; break
	fi
done
[ $ok = 1 ] && t_pass
chmod 600 "$CRED"

t_start st-wide-dir "a credential directory with a group/other bit is refused and not chmod'ed"
chmod 750 "$CFG/sandbx"
st auth status
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$CFG/sandbx' has mode 0750" && printf '%s' "$err" | grep -q rotate &&
	[ "$(mode "$CFG/sandbx")" = 750 ]; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-login-narrows "auth login narrows sandbx's own config directory to 0700 and says so"
printf '%s\n' "$KEY" | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
	"$SANDBX" auth login >/dev/null 2>"$TMP/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(mode "$CFG/sandbx")" = 700 ] && grep -q "narrowed '$CFG/sandbx' from mode 0750" "$TMP/err"; then
	t_pass; else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start st-login-umask "auth login under umask 0777 or 0277 stores the key 0600 in directories 0700 that auth status reads back, a new key over an old one too (before: all 0000, the old key replaced by a file its owner could not read)"
CFGU="$TMP/cfgu"; ok=1
for um in 0777 0277; do
	rm -rf "$CFGU"
	for k in one two; do
		( umask $um; printf 'sk-ant-umask-%s\n' "$k" | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFGU" \
			XDG_STATE_HOME="$ST" "$SANDBX" auth login >/dev/null 2>"$TMP/err" ); r1=$?
		out=$(env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFGU" "$SANDBX" auth status 2>&1); r2=$?
		if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || [ "$(mode "$CFGU")" != 700 ] || [ "$(mode "$CFGU/sandbx")" != 700 ] ||
			[ "$(mode "$CFGU/sandbx/credentials.toml")" != 600 ] ||
			! grep -q "sk-ant-umask-$k" "$CFGU/sandbx/credentials.toml"; then
			ok=0; t_fail "umask $um key $k: rc=$r1/$r2 $(cat "$TMP/err") $out modes $(mode "$CFGU") $(mode "$CFGU/sandbx" 2>&1) $(mode "$CFGU/sandbx/credentials.toml" 2>&1)"
			break 2
		fi
	done
done
[ $ok = 1 ] && t_pass
chmod -R u+rwx "$CFGU" 2>/dev/null; rm -rf "$CFGU"

t_start st-parse-no-echo "a credentials file that does not parse is refused naming the line, never its content"
printf '# mine\napi_key = "sk-ant-TOPSECRET999\n' > "$CRED"
chmod 600 "$CRED"
st auth status
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "line 2" && ! both | grep -q TOPSECRET; then t_pass
else t_fail "rc=$rc $(both)"; fi

t_start st-symlink "a credentials file that is a symbolic link is refused"
mv "$CRED" "$TMP/elsewhere.toml"
ln -s "$TMP/elsewhere.toml" "$CRED"
st auth status
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "symbolic link"; then t_pass; else t_fail "rc=$rc $err"; fi
rm -f "$CRED"

t_start st-other-owner "a credential file owned by another user is refused, naming the owner"
printf 'api_key = "%s"\n' "$KEY" > "$CRED"
chmod 600 "$CRED"
if is_root; then
	chown 4242:4242 "$CRED"
	st auth status
	chown 0:0 "$CRED"
elif command -v unshare >/dev/null 2>&1 && unshare -Urm true 2>/dev/null; then
	# In a user namespace a root-owned file bound over ours shows an owner
	# that is not us; nothing else changes.
	out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		unshare -Urm sh -c 'mount --bind /etc/passwd "$1" && exec "$2" auth status' sh "$CRED" "$SANDBX" \
		2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
else
	rc=skip
fi
if [ "$rc" = skip ]; then t_skip "not root and no user namespaces to show another owner"
elif [ "$rc" -eq 1 ] && printf '%s' "$err" | grep -qF "'$CRED' is owned by uid"; then t_pass
else t_fail "rc=$rc $err"; fi

t_start st-logout-wide "auth logout removes the key, also from a file whose mode is too wide"
printf 'api_key = "%s"\n' "$KEY" > "$CRED"
chmod 644 "$CRED"
st auth logout
r1=$rc
st auth logout
if [ $r1 -eq 0 ] && [ ! -e "$CRED" ] && [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "no stored key"; then t_pass
else t_fail "rc=$r1/$rc $(both)"; fi

t_start st-logout-leftovers "auth logout also removes the copy of a key an interrupted login left"
LEFT="$CFG/sandbx/.credentials.toml.k1lled00"
printf 'api_key = "%s"\n' "$KEY" > "$LEFT"
chmod 600 "$LEFT"
st auth logout
if [ $rc -eq 0 ] && [ ! -e "$LEFT" ] && printf '%s' "$out" | grep -q "removed 1 temporary copy"; then t_pass
else t_fail "rc=$rc left=$(ls -A "$CFG/sandbx") $(both)"; fi

t_start st-login-concurrent "logins at the same time all succeed, one whole key is stored and no temporary copy is left (before, one login's sweep took another's temporary file before its rename: cannot rename ... No such file or directory)"
CC="$TMP/cfgcc"; mkdir -p "$CC"; chmod 700 "$CC"
for r in 1 2 3; do
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		( printf 'sk-ant-cc-%s-%s\n' "$r" "$i" | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CC" XDG_STATE_HOME="$ST" \
			"$SANDBX" auth login >/dev/null 2>"$TMP/cc.$r.$i" || echo "fail $(cat "$TMP/cc.$r.$i")" ) &
	done
	wait
done > "$TMP/cc.out"
if [ ! -s "$TMP/cc.out" ] && grep -Eq '^api_key = "sk-ant-cc-3-[0-9]+"$' "$CC/sandbx/credentials.toml" &&
	[ -z "$(find "$CC/sandbx" -name '.credentials*')" ]; then t_pass
else t_fail "$(sort "$TMP/cc.out" | uniq -c | head -3) left=$(ls -A "$CC/sandbx")"; fi

t_start st-login-tty "auth login on a terminal reads the key with echo off"
if ! command -v script >/dev/null 2>&1; then
	t_skip "script(1) from util-linux is not installed"
else
	TTYKEY=sk-ant-TTYKEY-77
	tout=$( (sleep 1; printf '%s\n' "$TTYKEY") | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" \
		XDG_STATE_HOME="$ST" TERM=dumb script -qec "$SANDBX auth login" /dev/null 2>&1); rc=$?
	if [ $rc -eq 0 ] && printf '%s' "$tout" | grep -q "input hidden" && ! printf '%s' "$tout" | grep -qF "$TTYKEY" &&
		grep -qF "$TTYKEY" "$CRED"; then t_pass; else t_fail "rc=$rc out=$tout"; fi
fi

t_start st-login-tty-stopped "auth login stopped with ^Z while echo is off and brought back with fg reads the key with echo off again, asking again"
if ! command -v script >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
	t_skip "no script(1) or bash to make a job-control terminal"
else
	TTYKEY=sk-ant-TTYKEY-STOPPED-78
	cat > "$TMP/login.sh" <<IN
set -m
"$SANDBX" auth login
echo "stopped:\$?"
stty echo
fg >/dev/null
echo "fg:\$?"
IN
	# An interactive shell takes the terminal back at ^Z with echo on
	# (stty echo here) and leaves it so at fg: before, the key typed
	# after fg was shown.
	tout=$( (sleep 1; printf '\032'; sleep 1.5; printf '%s\n' "$TTYKEY"; sleep 1.5) | env -u ANTHROPIC_API_KEY HOME="$H" \
		XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" TERM=dumb timeout 30 script -qec "bash $TMP/login.sh" /dev/null 2>&1 |
		tr -d '\r')
	if printf '%s' "$tout" | grep -q "stopped:148" && [ "$(printf '%s' "$tout" | grep -o "input hidden" | wc -l)" = 2 ] &&
		! printf '%s' "$tout" | grep -qF "$TTYKEY" && printf '%s' "$tout" | grep -q "fg:0" && grep -qF "$TTYKEY" "$CRED"
	then t_pass; else t_fail "out=$tout"; fi
fi

t_start st-xdg-unusable "XDG_STATE_HOME or XDG_CONFIG_HOME naming a file (or, not as root, a directory that cannot be written) is refused naming the variable and what to do; the key stored elsewhere is untouched"
: > "$TMP/afile"; mkdir -p "$TMP/rodir"; chmod 500 "$TMP/rodir"; cp "$CRED" "$TMP/cred.before" 2>/dev/null || : > "$TMP/cred.before"
xr() { out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
bad=""
xr XDG_STATE_HOME="$TMP/afile" "$SANDBX" sessions
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "XDG_STATE_HOME"; } || bad="$bad|sessions rc=$rc $err"
xr XDG_STATE_HOME="$TMP/afile" ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hi
{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -q "XDG_STATE_HOME" && ! printf '%s' "$err" | grep -q "connection failed"; } ||
	bad="$bad|agent-run rc=$rc $err"
xr XDG_CONFIG_HOME="$TMP/afile" "$SANDBX" auth status
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "XDG_CONFIG_HOME"; } || bad="$bad|status rc=$rc $err"
out=$(printf 'sk-ant-new-0000\n' | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$TMP/afile" "$SANDBX" auth login 2>"$TMP/err")
rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "XDG_CONFIG_HOME"; } || bad="$bad|login rc=$rc $err"
if ! is_root; then
	xr XDG_STATE_HOME="$TMP/rodir" ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hi
	{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -q "XDG_STATE_HOME"; } || bad="$bad|ro agent-run rc=$rc $err"
	out=$(printf 'sk-ant-new-0000\n' | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$TMP/rodir" "$SANDBX" auth login 2>"$TMP/err")
	rc=$?; err=$(cat "$TMP/err")
	{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "XDG_CONFIG_HOME"; } || bad="$bad|ro login rc=$rc $err"
	# HOME's default: named as the default of the unset variable
	mkdir -p "$TMP/rohome"; chmod 500 "$TMP/rohome"
	out=$(cd "$TMP/work" && env -u XDG_STATE_HOME -u ANTHROPIC_API_KEY HOME="$TMP/rohome" XDG_CONFIG_HOME="$CFG" \
		ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hi 2>"$TMP/err")
	rc=$?; err=$(cat "$TMP/err")
	{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -q "XDG_STATE_HOME is unset"; } || bad="$bad|rohome rc=$rc $err"
fi
cmp -s "$CRED" "$TMP/cred.before" 2>/dev/null || [ ! -e "$CRED" ] || bad="$bad|the stored key changed"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
chmod 700 "$TMP/rodir" "$TMP/rohome" 2>/dev/null; rm -rf "$TMP/afile" "$TMP/rodir" "$TMP/rohome" "$TMP/cred.before"

t_start st-own-mode-0000 "sandbx's own directory, session file or credential file left mode 0000 (an earlier sandbx under umask 0777), or a session file left 0400, is refused naming it, its mode and the chmod that mends it"
U="$TMP/u0"; mkdir -p "$U/h" "$U/w" "$U/st/sandbx/sessions" "$U/cfg/sandbx"
printf '{"type":"header","version":1,"id":"zzzz0000","created":1700000000}\n' > "$U/st/sandbx/sessions/zzzz0000.jsonl"
printf 'api_key = "sk-ant-zero-0000"\n' > "$U/cfg/sandbx/credentials.toml"
chmod 700 "$U/st/sandbx" "$U/st/sandbx/sessions" "$U/cfg/sandbx"; chmod 755 "$U" "$U/h" "$U/w" "$U/st" "$U/cfg"
chmod 000 "$U/st/sandbx/sessions/zzzz0000.jsonl" "$U/cfg/sandbx/credentials.toml"
asu=""
if is_root; then chown -R 65534:65534 "$U"; asu="setpriv --reuid=65534 --regid=65534 --clear-groups"; fi
ur() { out=$(cd "$U/w" && $asu env -u ANTHROPIC_API_KEY HOME="$U/h" XDG_STATE_HOME="$U/st" XDG_CONFIG_HOME="$U/cfg" "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
bad=""
ur ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session zzzz0000 -- hi
{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -qF "'$U/st/sandbx/sessions/zzzz0000.jsonl' (mode 0000)" &&
	printf '%s' "$err" | grep -qF "chmod 600 '$U/st/sandbx/sessions/zzzz0000.jsonl'"; } || bad="$bad|session file: rc=$rc $err"
chmod 400 "$U/st/sandbx/sessions/zzzz0000.jsonl"
ur ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session zzzz0000 -- hi
{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -qF "'$U/st/sandbx/sessions/zzzz0000.jsonl' (mode 0400)" &&
	printf '%s' "$err" | grep -qF "chmod 600 '$U/st/sandbx/sessions/zzzz0000.jsonl'" &&
	! printf '%s' "$err" | grep -q "connection failed"; } || bad="$bad|read-only session file: rc=$rc $err"
ur "$SANDBX" auth status
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$U/cfg/sandbx/credentials.toml' (mode 0000)" &&
	printf '%s' "$err" | grep -qF "chmod 600 '$U/cfg/sandbx/credentials.toml'"; } || bad="$bad|credential: rc=$rc $err"
chmod 000 "$U/st/sandbx"
ur "$SANDBX" sessions
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$U/st/sandbx' (mode 0000)" && printf '%s' "$err" | grep -qF "chmod 700 '$U/st/sandbx'" &&
	! printf '%s' "$err" | grep -q "XDG_STATE_HOME names it"; } || bad="$bad|state dir: rc=$rc $err"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
chmod -R u+rwX "$U"; rm -rf "$U"

# ---- sessions ----

t_start st-sessions-empty "sandbx sessions with no store lists nothing and exits 0"
st sessions
if [ $rc -eq 0 ] && [ -z "$out" ] && printf '%s' "$err" | grep -q "no stored sessions"; then t_pass
else t_fail "rc=$rc $(both)"; fi

# mksession ID CREATED MTIME PROMPT: a session file as the agent writes it
mksession() {
	mkdir -p "$SESS"
	chmod 700 "$ST/sandbx" "$SESS"
	{
		printf '{"type":"header","version":1,"id":"%s","created":%s}\n' "$1" "$2"
		printf '{"type":"message","role":"user","content":[{"type":"text","text":"%s\\nsecond line"}]}\n' "$4"
		printf '{"type":"message","role":"assistant","content":[{"type":"text","text":"ok"}]}\n'
		printf '{"type":"turn","stop_reason":"end_turn","rounds":1}\n'
	} > "$SESS/$1.jsonl"
	chmod 600 "$SESS/$1.jsonl"
	touch -d "@$3" "$SESS/$1.jsonl"
}

t_start st-sessions-list "sandbx sessions lists id, start, turns and the first prompt line, most recent first"
mksession aaaa1111 1700000000 1700000100 "fix the build"
mksession bbbb2222 1700000500 1700009000 "write the docs"
printf '{"type":"message","role":"user","content":[{"type":"text","text":"more"}]}\n' >> "$SESS/aaaa1111.jsonl"
touch -d @1700000200 "$SESS/aaaa1111.jsonl"
st sessions
l2=$(printf '%s\n' "$out" | sed -n 2p)
l3=$(printf '%s\n' "$out" | sed -n 3p)
if [ $rc -eq 0 ] && printf '%s' "$l2" | grep -qE '^bbbb2222 +[0-9-]+ [0-9:]+ +1  +write the docs$' &&
	printf '%s' "$l3" | grep -qE '^aaaa1111 +[0-9-]+ [0-9:]+ +2\* +fix the build$' &&
	! printf '%s' "$out" | grep -q "second line"; then t_pass; else t_fail "rc=$rc $(both)"; fi

t_start st-sessions-ldpath-cjson-plant "sandbx sessions with LD_LIBRARY_PATH=':' runs again without it before it opens cJSON to read the store: a libcjson.so.1 planted in the working directory is loaded by no process of sandbx's (its constructor never runs), and the sessions are still listed (before, the plant was loaded and the listing failed: cannot load libcjson.so.1)"
LE="$TMP/ldevil"; mkdir -p "$LE"; chmod 755 "$LE"; rm -f "$LE/pwned"
printf '#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("%s/pwned", "w"); if (f) fclose(f); }\n' "$LE" > "$LE/evil.c"
if ! cc -shared -fPIC -o "$TMP/work/libcjson.so.1" "$LE/evil.c" 2>"$TMP/err"; then t_fail "cannot build the library: $(cat "$TMP/err")"
else
	out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		LD_LIBRARY_PATH=":" "$SANDBX" sessions 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
	rm -f "$TMP/work/libcjson.so.1"
	if [ $rc -eq 0 ] && [ ! -e "$LE/pwned" ] && printf '%s' "$out" | grep -q '^bbbb2222 .*write the docs$' &&
		printf '%s' "$err" | grep -q "running again without LD_LIBRARY_PATH: '' (empty: the working directory)"; then t_pass
	else t_fail "rc=$rc pwned=$(ls "$LE/pwned" 2>&1) $(both)"; fi
fi

t_start st-sessions-damaged "a damaged session is listed as unreadable with its line, the others still listed"
printf '{"type":"header","version":9,"id":"cccc3333","created":1}\n' > "$SESS/cccc3333.jsonl"
chmod 600 "$SESS/cccc3333.jsonl"
st sessions
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "^cccc3333 .*unreadable: .*line 1: session version 9" &&
	printf '%s' "$out" | grep -q "^bbbb2222"; then t_pass; else t_fail "rc=$rc $(both)"; fi
rm -f "$SESS/cccc3333.jsonl"
t_start st-sessions-too-deep "a session whose line nests one level past cJSON's 1000 is listed as unreadable saying so, with the limit (before: not a JSON object), the others still listed"
{ printf '{"type":"header","version":1,"id":"cccc3334","created":1}\n'
  printf '{"type":"message","role":"user","content":%s"x"%s}\n' "$(printf '%1000s' | tr ' ' '[')" "$(printf '%1000s' | tr ' ' ']')"
} > "$SESS/cccc3334.jsonl"
chmod 600 "$SESS/cccc3334.jsonl"
st sessions
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "^cccc3334 .*unreadable: .*line 2: nested more than 1000 levels deep, deeper than sandbx reads" &&
	printf '%s' "$out" | grep -q "^bbbb2222"; then t_pass; else t_fail "rc=$rc $(both)"; fi
rm -f "$SESS/cccc3334.jsonl"

t_start st-sessions-bidi "the listing shows a prompt's bidi controls and bytes that are not UTF-8, never obeys them"
mksession dddd4444 1700000600 1700009500 'invoice \u202efdp.exe\u202c'
st sessions
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -qF 'invoice <U+202E>fdp.exe<U+202C>' &&
	! printf '%s' "$out" | grep -q "$(printf '\342\200\256')"; then t_pass; else t_fail "rc=$rc $(printf '%s' "$out" | cat -A)"; fi
rm -f "$SESS/dddd4444.jsonl"

t_start st-sessions-hidden "the listing shows a prompt's characters that draw nothing (a zero-width space, tag characters) as <U+XXXX>, and the store's path in an unreadable session's line with its ESC and BEL made visible, to a terminal and a pipe alike (before, the tag characters read as nothing and the path's escape sequence reached the terminal raw)"
ST0=$ST SESS0=$SESS
ST="$TMP/st$(printf '\033]2;pwned\007\342\200\213')" SESS="$ST/sandbx/sessions"
mksession eeee5555 1700000700 1700009600 'ad\u200bmin\udb40\udc41\udb40\udc42 \u26a0\ufe0f'
printf '{"type":"header","version":9,"id":"ffff6666","created":1}\n' > "$SESS/ffff6666.jsonl"
chmod 600 "$SESS/ffff6666.jsonl"
st sessions
printf '%s\n' "$out" > "$TMP/ss-pipe"
trc=$(cd "$TMP/work" && unset ANTHROPIC_API_KEY && export HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" &&
	tty_stdout "$TMP/ss-tty" "$SANDBX" sessions; echo $?)
if [ $rc -eq 0 ] && [ "$trc" = 0 ] && python3 - "$TMP/ss-tty" "$TMP/ss-pipe" 2>"$TMP/why" <<'PY'; then t_pass; else t_fail "rc=$rc/$trc $(tail -1 "$TMP/why")"; fi
import sys
for f in sys.argv[1:]:
    b = open(f, 'rb').read()
    for raw in (b'\xe2\x80\x8b', b'\xf3\xa0', b'\x1b', b'\x07'):
        assert raw not in b, (f, 'got', raw, b)
    assert b'ad<U+200B>min<U+E0041><U+E0042> \xe2\x9a\xa0\xef\xb8\x8f' in b, (f, b)
    assert b"st^[]2;pwned^G<U+200B>/sandbx/sessions/ffff6666.jsonl' line 1: session version 9" in b, (f, b)
PY
rm -rf "$ST"
ST=$ST0 SESS=$SESS0

t_start st-sessions-wide-dir "a group/other-writable session directory is refused, naming it and its mode"
chmod 777 "$SESS"
st sessions
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$SESS' has mode 0777"; then t_pass; else t_fail "rc=$rc $(both)"; fi
chmod 700 "$SESS"

t_start st-sessions-readable "a group/other-readable session directory is listed with a note"
chmod 755 "$SESS"
st sessions
if [ $rc -eq 0 ] && printf '%s' "$err" | grep -q "other users can read it" && printf '%s' "$out" | grep -q "^bbbb2222"; then
	t_pass; else t_fail "rc=$rc $(both)"; fi
chmod 700 "$SESS"

# mkbig ID MTIME COUNT: a session over 1 MiB of two turns; COUNT: "turns" in the turn records, or empty
mkbig() {
	big=$(head -c 1200000 /dev/zero | tr '\0' a)
	{
		printf '{"type":"header","version":1,"id":"%s","created":1700000000}\n' "$1"
		for t in 1 2; do
			printf '{"type":"message","role":"user","content":[{"type":"text","text":"big prompt %s"}]}\n' "$t"
			printf '{"type":"message","role":"assistant","content":[{"type":"text","text":"%s"}]}\n' "$big"
			printf '{"type":"turn","stop_reason":"end_turn","rounds":1%s}\n' "${3:+,\"turns\":$t}"
		done
	} > "$SESS/$1.jsonl"
	chmod 600 "$SESS/$1.jsonl"
	touch -d "@$2" "$SESS/$1.jsonl"
}

t_start st-sessions-large "of a session over 1 MiB the listing reads the start and the end: the count from the last turn record, '-' and a footnote when the end holds none"
mkbig eeee5555 1700009600 yes
mkbig ffff6666 1700009700 ""
st sessions
if [ $rc -eq 0 ] && printf '%s' "$out" | grep -qE '^eeee5555 +[0-9-]+ [0-9:]+ +2  +big prompt 1$' &&
	printf '%s' "$out" | grep -qE '^ffff6666 +[0-9-]+ [0-9:]+ +-  +big prompt 1$' &&
	printf '%s' "$out" | grep -q '^- not counted: of a session over 1 MiB only the start and the end are read' &&
	printf '%s' "$out" | grep -qE '^bbbb2222 +[0-9-]+ [0-9:]+ +1  +write the docs$'; then t_pass; else t_fail "rc=$rc $(both)"; fi
rm -f "$SESS/eeee5555.jsonl" "$SESS/ffff6666.jsonl"

t_start st-sessions-create-killed "a kill between a session file's create and its header's write leaves no session file without its header"
# python3 loads a seccomp filter that kills at the first write(2) above
# stderr, then runs sandbx: before, the session file was created, then
# written, and the kill left it empty, which --continue refused.
cat > "$TMP/killw.py" <<'PY'
import ctypes, os, platform, struct, sys
nr = {'x86_64': 1, 'aarch64': 64}.get(platform.machine())
if nr is None:
	sys.exit(77)
def ins(code, k, jt=0, jf=0): return struct.pack('HBBI', code, jt, jf, k)
# nr == write && args[0] >= 3: kill the process, else allow
prog = (ins(0x20, 0) + ins(0x15, nr, 0, 3) + ins(0x20, 16) + ins(0x35, 3, 0, 1) +
	ins(0x06, 0x80000000) + ins(0x06, 0x7fff0000))
buf = ctypes.create_string_buffer(prog, len(prog))
class fprog(ctypes.Structure): _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
fp = fprog(len(prog) // 8, ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp)) != 0:
	sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
PY
ST2="$TMP/state2"
# (the subshell reports the kill, into $TMP/err)
(cd "$TMP/work" && env HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST2" ANTHROPIC_API_KEY=sk-ant-test-0000 \
	python3 "$TMP/killw.py" "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hello; echo $? >"$TMP/rc") \
	>/dev/null 2>"$TMP/err"
rc=$(cat "$TMP/rc")
left=$(find "$ST2/sandbx/sessions" -name '*.jsonl' ! -name '.*' 2>/dev/null)
out2=$(cd "$TMP/work" && env HOME="$H" XDG_STATE_HOME="$ST2" "$SANDBX" sessions 2>&1)
if [ $rc -eq 77 ]; then t_skip "no seccomp filter from python3 on $(uname -m)"
elif [ $rc -eq 159 ] && [ -z "$left" ] && printf '%s' "$out2" | grep -q "no stored sessions"; then t_pass
else t_fail "rc=$rc left: $left $(for f in $left; do wc -c < "$f"; done) sessions: $out2"; fi

t_start st-sessions-unborn "an empty session file an earlier sandbx left (killed while creating it) is listed as such and passed over by --continue, named, never removed"
: > "$SESS/hhhh8888.jsonl"
chmod 600 "$SESS/hhhh8888.jsonl"
touch -d @1700010000 "$SESS/hhhh8888.jsonl"
st sessions
l1=$out
FX=$(cd "${FIXTURES:-$(dirname "$0")/../fixtures}/sse" && pwd)
mock_start <<EOF
sse $FX/text.sse
EOF
out=$(cd "$TMP/work" && env HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" ANTHROPIC_API_KEY=sk-ant-test-0000 \
	"$SANDBX" agent-run --base-url "http://127.0.0.1:$PORT" --continue -- and then 2>"$TMP/err")
rc=$?
err=$(cat "$TMP/err")
mock_stop
if printf '%s' "$l1" | grep -q "^hhhh8888 .*unreadable: .*line 1: no session header: the file is empty .*can be removed" &&
	printf '%s' "$l1" | grep -q "^bbbb2222" && [ $rc -eq 0 ] &&
	printf '%s' "$err" | grep -qF "passed over '$SESS/hhhh8888.jsonl' line 1: no session header: the file is empty" &&
	printf '%s' "$err" | grep -q "resumed session bbbb2222: 1 turn loaded" &&
	[ -f "$SESS/hhhh8888.jsonl" ] && [ ! -s "$SESS/hhhh8888.jsonl" ]; then t_pass
else t_fail "rc=$rc list: $l1 continue: $err"; fi
rm -f "$SESS/hhhh8888.jsonl"

t_start st-sessions-hardlink "a session file with a second name (a hard link) is not resumed: refused naming the link count, nothing appended or cut under the other name; with the link gone it resumes"
mksession kkkk1111 1700000700 1700010100 "linked"
printf '{"type":"mess' >> "$SESS/kkkk1111.jsonl"	# a torn tail resume would cut
mkdir -p "$TMP/lnsess"
if ln "$SESS/kkkk1111.jsonl" "$TMP/lnsess/notes.jsonl" 2>/dev/null; then
	cp "$TMP/lnsess/notes.jsonl" "$TMP/lnsess.before"
	out=$(cd "$TMP/work" && env HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" ANTHROPIC_API_KEY=sk-ant-test-0000 \
		"$SANDBX" agent-run --base-url http://127.0.0.1:9 --session kkkk1111 -- and then 2>"$TMP/err")
	r1=$?; e1=$(cat "$TMP/err")
	cmp -s "$TMP/lnsess/notes.jsonl" "$TMP/lnsess.before"; same=$?
	rm -f "$TMP/lnsess/notes.jsonl"
	mock_start <<EOF
sse $FX/text.sse
EOF
	out=$(cd "$TMP/work" && env HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" ANTHROPIC_API_KEY=sk-ant-test-0000 \
		"$SANDBX" agent-run --base-url "http://127.0.0.1:$PORT" --session kkkk1111 -- and then 2>"$TMP/err")
	r2=$?; e2=$(cat "$TMP/err")
	mock_stop
	if [ $r1 -ne 0 ] && [ $same -eq 0 ] && printf '%s' "$e1" | grep -qF "'$SESS/kkkk1111.jsonl' has 2 hard links" &&
		printf '%s' "$e1" | grep -q -- "-samefile" && ! printf '%s' "$e1" | grep -q "connection failed" &&
		[ $r2 -eq 0 ] && printf '%s' "$e2" | grep -q "resumed session kkkk1111: 1 turn loaded"; then t_pass
	else t_fail "rc=$r1/$r2 same=$same err=$e1 | $e2"; fi
else t_skip "no hard link could be made in $TMP"; fi
rm -rf "$SESS/kkkk1111.jsonl" "$TMP/lnsess" "$TMP/lnsess.before"

# Not in a sanitized build: its runtime reserves shadow memory before main,
# which no address-space limit fits; the other legs run it.
if [ "${SANDBX_SANITIZED:-0}" != 1 ]; then
t_start st-resume-short-of-memory "resuming a session whose last line is a 6 MiB answer under address-space limits (prlimit --as) swept from 24 to 70 MiB: each run either says memory ran short (exit 1, the file byte for byte as it was) or resumes with the whole answer in the request it sends, the stored lines kept; never a line cut or a text dropped (before, measured here: at 30-34 MiB cJSON's failed allocation read as a torn append and the answer was cut off the file; at 36-40 MiB the request carried the answer's block without its text)"
	mkdir -p "$SESS"; chmod 700 "$ST/sandbx" "$SESS"
	python3 - "$SESS/mmmm1111.jsonl" <<'PY'
import json, sys
d = lambda o: json.dumps(o, separators=(',', ':')) + '\n'
with open(sys.argv[1], 'w') as f:
    f.write(d({"type": "header", "version": 1, "id": "mmmm1111", "created": 1700000000}))
    f.write(d({"type": "message", "role": "user", "content": [{"type": "text", "text": "say it long"}]}))
    f.write(d({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "x" * (6 << 20)}]}))
PY
	chmod 600 "$SESS/mmmm1111.jsonl"
	cp "$SESS/mmmm1111.jsonl" "$TMP/mm.before"
	size=$(stat -c %s "$TMP/mm.before")
	mock_dir
	i=0; while [ $i -lt 30 ]; do echo "sse $FX/text.sse"; i=$((i + 1)); done > "$D/script"
	mock_serve 120
	bad="" short=0 resumed=0 mb=24
	while [ $mb -le 70 ]; do
		cp "$TMP/mm.before" "$SESS/mmmm1111.jsonl"
		n0=$(ls "$D" | grep -c '^req-.*\.json$')
		(cd "$TMP/work" && exec env HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" ANTHROPIC_API_KEY=sk-ant-test-0000 \
			prlimit --as=$((mb << 20)) "$SANDBX" agent-run --base-url "http://127.0.0.1:$PORT" --session mmmm1111 \
			-- and then) >/dev/null 2>"$TMP/err" </dev/null
		r=$?
		n1=$(ls "$D" | grep -c '^req-.*\.json$')
		if ! cmp -s -n "$size" "$TMP/mm.before" "$SESS/mmmm1111.jsonl" || grep -q "cut the torn" "$TMP/err"; then
			bad="$bad [$mb MiB: the stored lines changed, rc=$r: $(head -c 300 "$TMP/err")]"
		elif [ $r -ge 128 ]; then
			bad="$bad [$mb MiB: signal, rc=$r: $(head -c 300 "$TMP/err")]"
		elif grep -q "resumed session mmmm1111" "$TMP/err"; then
			resumed=$((resumed + 1))
			k=$((n0 + 1))
			while [ $k -le "$n1" ]; do
				python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['messages']
assert m[1]['role'] == 'assistant' and m[1]['content'][0]['text'] == 'x' * (6 << 20), 'the answer is not whole'
" "$D/req-$k.json" 2>"$TMP/py" || bad="$bad [$mb MiB: request $k: $(tail -1 "$TMP/py")]"
				k=$((k + 1))
			done
		elif [ $r -eq 1 ] && grep -q "out of memory\|short of memory\|failed to map segment" "$TMP/err" &&
			cmp -s "$TMP/mm.before" "$SESS/mmmm1111.jsonl"; then
			short=$((short + 1))
		else
			bad="$bad [$mb MiB: rc=$r, neither resumed nor short of memory: $(head -c 300 "$TMP/err")]"
		fi
		mb=$((mb + 2))
	done
	mock_stop
	if [ -n "$bad" ]; then t_fail "$bad"
	elif [ $short -eq 0 ] || [ $resumed -eq 0 ]; then t_fail "the sweep missed the edge: $resumed runs resumed, $short were short of memory"
	else t_pass; fi
	rm -f "$SESS/mmmm1111.jsonl" "$TMP/mm.before"
fi

# ---- the policy keeps grants away from the store (cli_owned_check) ----

# pol ARGS...: sandbox-run with the private tree and the given grants
pol() { st sandbox-run "$@" -- /bin/true; }

t_start st-grant-state "a grant holding the session store is refused (125) naming the store"
pol --allow-read "$ST"
if [ $rc -eq 125 ] && printf '%s' "$err" | grep -q "reaches sandbx's own session store"; then t_pass
else t_fail "rc=$rc $err"; fi

t_start st-grant-inside "a grant inside the session store is refused too"
pol --allow-write "$SESS"
if [ $rc -eq 125 ] && printf '%s' "$err" | grep -q "session store"; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-grant-store-spelled-missing "a grant reaching a store whose XDG value passes through a directory not made yet ('missing/..') or a dangling symlink is refused: the store is compared where it is, or will be made, not as spelled (before: sandbox-run and tool read let the command read the sessions, and tool write made a store through the link)"
SP="$TMP/spelled"; rm -rf "$SP"; mkdir -p "$SP/xdg8/sandbx/sessions" "$SP/p4"; chmod -R 755 "$SP"
echo SESSION8 > "$SP/xdg8/sandbx/sessions/s.jsonl"
ln -s "$SP/p4/state" "$SP/slink"
bad=""
o=$(cd "$SP/xdg8" && XDG_STATE_HOME="$SP/nonexist/../xdg8" "$SANDBX" tool read '{"path":"sandbx/sessions/s.jsonl"}' 2>&1); r=$?
case "$r $o" in "125 "*"sandbx's own session store '$SP/xdg8/sandbx'"*) ;; *) bad="$bad [missing/.. tool read: rc=$r $o]";; esac
o=$(cd "$SP" && XDG_STATE_HOME="$SP/nonexist/../xdg8" "$SANDBX" sandbox-run --allow-read "$SP/xdg8" -- /bin/cat "$SP/xdg8/sandbx/sessions/s.jsonl" 2>&1); r=$?
case "$r $o" in "125 "*"sandbx's own session store"*) ;; *) bad="$bad [missing/.. sandbox-run: rc=$r $o]";; esac
o=$(cd "$SP/p4" && XDG_STATE_HOME="$SP/slink" "$SANDBX" tool write '{"path":"state/sandbx/sessions/x.jsonl","content":"planted"}' 2>&1); r=$?
case "$r $o" in "125 "*"sandbx's own session store '$SP/p4/state/sandbx'"*) ;; *) bad="$bad [dangling link tool write: rc=$r $o]";; esac
[ -e "$SP/p4/state" ] && bad="$bad [the store was made through the link]"
o=$(cd "$SP" && XDG_STATE_HOME="$SP/nonexist/../xdg8" "$SANDBX" sandbox-run --allow-read "$SP/p4" -- /bin/true 2>&1); r=$?
[ $r -eq 0 ] || bad="$bad [an unrelated grant refused: rc=$r $o]"
rm -rf "$SP"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start st-grant-config "a grant holding the credential file is refused naming the credential directory"
pol --allow-read "$CFG"
r1=$rc e1=$err
pol --allow-exec "$CFG/sandbx"
if [ $r1 -eq 125 ] && printf '%s' "$e1" | grep -q "credential directory" && [ $rc -eq 125 ]; then t_pass
else t_fail "rc=$r1/$rc $e1 $err"; fi

t_start st-grant-link "a grant reaching the store through a symlink is refused"
ln -s "$ST/sandbx" "$TMP/innocent"
pol --allow-read "$TMP/innocent"
if [ $rc -eq 125 ] && printf '%s' "$err" | grep -q "session store"; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-grant-home "--allow-read ~ is refused when the store lives under the home (XDG defaults)"
mkdir -p "$H/.local/state/sandbx" "$H/.config"
out=$(cd "$TMP/work" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$H" "$SANDBX" sandbox-run --allow-read "$H" \
	-- /bin/true 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
if [ $rc -eq 125 ] && printf '%s' "$err" | grep -qF "$H/.local/state/sandbx"; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-grant-root "--allow-read / is refused: it reaches the store"
pol --allow-read /
if [ $rc -eq 125 ] && printf '%s' "$err" | grep -q "sandbx's own"; then t_pass; else t_fail "rc=$rc $err"; fi

t_start st-grant-sibling "a grant beside the store (not reaching it) is not refused for the store's sake"
mkdir -p "$TMP/project"
pol --allow-read "$TMP/project"
if printf '%s' "$err" | grep -q "sandbx's own"; then t_fail "refused: $err"
elif ! sandbox_works; then t_skip "the sandbox cannot run here (user namespaces or Landlock missing)"
elif [ $rc -eq 0 ]; then t_pass; else t_fail "rc=$rc $err"; fi

# ---- the key stays with the harness ----

t_start st-env-key-agent "agent-run and tui refuse --allow-env ANTHROPIC_API_KEY (64, stdout empty, sandbox-run named)"
st agent-run --allow-env ANTHROPIC_API_KEY -- hello
r1=$rc o1=$out e1=$err
st tui --allow-env ANTHROPIC_API_KEY
if [ $r1 -eq 64 ] && [ -z "$o1" ] && printf '%s' "$e1" | grep -q "sandbx sandbox-run" && [ $rc -eq 64 ] && [ -z "$out" ]
then t_pass; else t_fail "agent-run rc=$r1 $e1 / tui rc=$rc $err"; fi

t_start st-env-key-sandbox-run "sandbox-run passes ANTHROPIC_API_KEY on purpose with --allow-env"
if ! sandbox_works; then t_skip "the sandbox cannot run here (user namespaces or Landlock missing)"
else
	out=$(cd "$TMP/work" && ANTHROPIC_API_KEY=sk-ant-PASSED HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		"$SANDBX" sandbox-run --allow-env ANTHROPIC_API_KEY -- /bin/sh -c 'echo "k=$ANTHROPIC_API_KEY"' 2>"$TMP/err")
	rc=$?
	o2=$(cd "$TMP/work" && ANTHROPIC_API_KEY=sk-ant-PASSED HOME="$H" XDG_CONFIG_HOME="$CFG" XDG_STATE_HOME="$ST" \
		"$SANDBX" sandbox-run -- /bin/sh -c 'echo "k=$ANTHROPIC_API_KEY"' 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$out" = "k=sk-ant-PASSED" ] && [ "$o2" = "k=" ]; then t_pass
	else t_fail "rc=$rc out=$out without flag: $o2 $(cat "$TMP/err")"; fi
fi

t_start st-grant-default-store-other-xdg "a store under the default location stays refused when XDG_CONFIG_HOME points elsewhere"
H="$TMP/althome"; mkdir -p "$H/.config/sandbx" "$H/proj"; chmod 700 "$H/.config/sandbx"
echo 'api_key = "sk-ant-old-0000"' > "$H/.config/sandbx/credentials.toml"
out=$( cd "$H/proj" && HOME="$H" XDG_CONFIG_HOME="$TMP/elsewhere" "$SANDBX" sandbox-run --allow-read "$H" -- /bin/cat "$H/.config/sandbx/credentials.toml" 2>"$TMP/err")
rc=$?
if [ $rc -eq 125 ] && ! echo "$out" | grep -q sk-ant && grep -q "reaches sandbx.s own" "$TMP/err"; then t_pass; else t_fail "rc=$rc $out $(cat "$TMP/err")"; fi


# The credential under another name: a hard link (a dotfiles tree linking
# its files in) or a bind mount of the file itself has the (dev, ino) of
# the credential but none of its path.
H="$TMP/lnhome"; mkdir -p "$H/.config/sandbx" "$H/.local/state" "$TMP/lnproj/sub"; chmod 700 "$H/.config/sandbx"
echo 'api_key = "sk-ant-linked-0000"' > "$H/.config/sandbx/credentials.toml"; chmod 600 "$H/.config/sandbx/credentials.toml"
lnrun() { out=$(cd "$TMP/lnproj/sub" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME HOME="$H" "$SANDBX" sandbox-run "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
t_start st-grant-cred-hardlink "a grant that is, or holds, a hard link of the credential file is refused (125) naming it; with the link gone the same grants run"
if ln "$H/.config/sandbx/credentials.toml" "$TMP/lnproj/sub/c" 2>/dev/null; then
	lnrun --allow-read "$TMP/lnproj/sub/c" -- /bin/cat "$TMP/lnproj/sub/c"; r1=$rc o1=$out e1=$err
	lnrun --allow-read "$TMP/lnproj" -- /bin/cat "$TMP/lnproj/sub/c"; r2=$rc o2=$out e2=$err
	lnrun -- /bin/cat c; r3=$rc o3=$out e3=$err
	rm -f "$TMP/lnproj/sub/c"; echo other > "$TMP/lnproj/sub/c"
	lnrun --allow-read "$TMP/lnproj" -- /bin/cat "$TMP/lnproj/sub/c"; r4=$rc o4=$out
	lnrun -- /bin/cat c; r5=$rc o5=$out
	if [ $r1 -eq 125 ] && [ $r2 -eq 125 ] && [ $r3 -eq 125 ] && ! printf '%s%s%s' "$o1" "$o2" "$o3" | grep -q sk-ant &&
		printf '%s' "$e1" | grep -qF "$TMP/lnproj/sub/c" && printf '%s' "$e1" | grep -q "credential" &&
		printf '%s' "$e2" | grep -q "hard link" && printf '%s' "$e3" | grep -q "hard link" &&
		[ $r4 -eq 0 ] && [ "$o4" = other ] && [ $r5 -eq 0 ] && [ "$o5" = other ]; then t_pass
	else t_fail "rc=$r1/$r2/$r3/$r4/$r5 out=$o1|$o2|$o3|$o4|$o5 err=$e1 | $e2 | $e3"; fi
else t_skip "no hard link could be made in $TMP"; fi

t_start st-logout-hardlink "auth logout and auth login refuse a credential file with a second name (a hard link), naming the link count and keeping the file and the grant refusal; before, logout removed one name, said the key was removed, and a command granted the tree read the key through the other"
C="$H/.config/sandbx/credentials.toml"
ln "$C" "$TMP/lnproj/sub/c2"
cp "$C" "$TMP/cred.before"
ah() { out=$(cd "$TMP/lnproj" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u ANTHROPIC_API_KEY HOME="$H" "$SANDBX" auth "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
ah logout; r1=$rc e1=$err
out=$(printf 'sk-ant-newer-0000\n' | env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u ANTHROPIC_API_KEY HOME="$H" "$SANDBX" auth login 2>"$TMP/err")
r2=$?; e2=$(cat "$TMP/err")
cmp -s "$C" "$TMP/cred.before"; same=$?
lnrun --allow-read "$TMP/lnproj" -- /bin/cat "$TMP/lnproj/sub/c2"; r3=$rc o3=$out
rm -f "$TMP/lnproj/sub/c2"
ah logout; r4=$rc
if [ $r1 -eq 1 ] && [ $r2 -eq 1 ] && [ $same -eq 0 ] && printf '%s' "$e1" | grep -qF "'$C' has 2 hard links" &&
	printf '%s' "$e1" | grep -q -- "-samefile" && printf '%s' "$e2" | grep -qF "'$C' has 2 hard links" &&
	[ $r3 -eq 125 ] && ! printf '%s' "$o3" | grep -q sk-ant && [ $r4 -eq 0 ] && [ ! -e "$C" ]; then t_pass
else t_fail "rc=$r1/$r2/$r3/$r4 same=$same out=$o3 err=$e1 | $e2"; fi
rm -f "$TMP/cred.before"

t_start st-readonly-store-advice "on a read-only filesystem auth login, auth logout, a new session and a resumed one each fail saying what failed and what to do (remount, or point the XDG variable elsewhere), and change nothing"
ROH="$TMP/ro"; rm -rf "$ROH"; mkdir -p "$ROH/cfg/sandbx" "$ROH/state/sandbx/sessions"
chmod -R 700 "$ROH"
printf '# written by sandbx auth login\napi_key = "%s"\n' "$KEY" > "$ROH/cfg/sandbx/credentials.toml"
printf '{"type":"header","version":1,"id":"roaaaaaa","created":1700000000}\n{"type":"message","role":"user","content":[{"type":"text","text":"hi"}]}\n{"type":"message","role":"assistant","content":[{"type":"text","text":"yes"}]}\n{"type":"turn","stop_reason":"end_turn","rounds":1}\n' > "$ROH/state/sandbx/sessions/roaaaaaa.jsonl"
chmod 600 "$ROH/cfg/sandbx/credentials.toml" "$ROH/state/sandbx/sessions/roaaaaaa.jsonl"
sum0=$(cat "$ROH/cfg/sandbx/credentials.toml" "$ROH/state/sandbx/sessions/roaaaaaa.jsonl" | cksum)
NS=""; [ "$(id -u)" = 0 ] || NS="unshare --user --map-root-user"
if ! $NS unshare -m true 2>/dev/null; then t_skip "no mount namespace here"
else
	( cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$ROH/cfg" XDG_STATE_HOME="$ROH/state" \
		$NS unshare -m --propagation private sh -c '
		mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99
		echo sk-ant-other-KEY0123456789 | "$2" auth login 2>"$1/../e1"; echo "login $?"
		"$2" auth logout 2>"$1/../e2"; echo "logout $?"
		ANTHROPIC_API_KEY=sk-ant-test-0000 "$2" agent-run --base-url http://127.0.0.1:1 --session -- x </dev/null 2>"$1/../e3"; echo "new $?"
		ANTHROPIC_API_KEY=sk-ant-test-0000 "$2" agent-run --base-url http://127.0.0.1:1 --session roaaaaaa -- x </dev/null 2>"$1/../e4"; echo "resume $?"
	' sh "$ROH" "$SANDBX" ) > "$TMP/rc" 2>&1
	bad=""
	for i in 1 2 3 4; do
		grep -q '^sandbx: cannot .*Read-only file system — ' "$TMP/e$i" 2>/dev/null || bad="$bad [e$i: $(cat "$TMP/e$i" 2>&1)]"
	done
	if [ "$(tr '\n' ' ' < "$TMP/rc")" != "login 1 logout 1 new 1 resume 1 " ]; then t_fail "exits: $(cat "$TMP/rc")"
	elif [ -n "$bad" ]; then t_fail "a message says nothing to do:$bad"
	elif [ "$(cat "$ROH/cfg/sandbx/credentials.toml" "$ROH/state/sandbx/sessions/roaaaaaa.jsonl" | cksum)" != "$sum0" ]; then t_fail "a file changed"
	else t_pass; fi
fi

t_start st-full-disk-keeps "on a full disk auth login, a new session and a resumed one whose turn does not fit each fail saying to free space, and leave what was stored byte for byte, with no temporary file"
FD="$TMP/fulldisk"; rm -rf "$FD"; mkdir -p "$FD/r" "$FD/work"; chmod -R 700 "$FD"
pad=$(head -c 3700 /dev/zero | tr '\0' a)
mock_start <<EOF
sse $FX/text.sse
EOF
NS=""; [ "$(id -u)" = 0 ] || NS="unshare --user --map-root-user"
if ! $NS unshare -m true 2>/dev/null; then t_skip "no mount namespace here"
else
	# a 64 KiB tmpfs: the stored key and a session of 3,969 bytes (its
	# page nearly full, so the turn appended needs a new one), then a
	# filler takes the rest
	( cd "$FD/work" && env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$FD/r/cfg" XDG_STATE_HOME="$FD/r/state" \
		$NS unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=64k,mode=700 tmpfs "$1/r" || exit 99
		mkdir -p "$1/r/cfg/sandbx" "$1/r/state/sandbx/sessions" && chmod -R 700 "$1/r"
		echo sk-ant-first-KEY0123456789 | "$2" auth login 2>/dev/null >&2 || exit 98
		printf "{\"type\":\"header\",\"version\":1,\"id\":\"fdaaaaaa\",\"created\":1700000000}\n{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"yes\"}]}\n{\"type\":\"turn\",\"stop_reason\":\"end_turn\",\"rounds\":1}\n" "$4" > "$1/r/state/sandbx/sessions/fdaaaaaa.jsonl"
		chmod 600 "$1/r/state/sandbx/sessions/fdaaaaaa.jsonl"
		dd if=/dev/zero of="$1/r/fill" bs=1k 2>/dev/null
		cat "$1/r/cfg/sandbx/credentials.toml" "$1/r/state/sandbx/sessions/fdaaaaaa.jsonl" | cksum > "$1/sum0"
		echo sk-ant-second-KEY0123456789 | "$2" auth login 2>"$1/e1"; echo "login $?"
		ANTHROPIC_API_KEY=sk-ant-test-0000 "$2" agent-run --base-url "http://127.0.0.1:$3" --session -- x </dev/null >/dev/null 2>"$1/e2"; echo "new $?"
		ANTHROPIC_API_KEY=sk-ant-test-0000 "$2" agent-run --base-url "http://127.0.0.1:$3" --session fdaaaaaa -- x </dev/null >/dev/null 2>"$1/e3"; echo "resume $?"
		cat "$1/r/cfg/sandbx/credentials.toml" "$1/r/state/sandbx/sessions/fdaaaaaa.jsonl" | cksum > "$1/sum1"
		ls -A "$1/r/cfg/sandbx" "$1/r/state/sandbx/sessions" > "$1/ls"
	' sh "$FD" "$SANDBX" "$PORT" "$pad" ) > "$TMP/rc" 2>&1
	bad=""
	grep -q "^sandbx: cannot write '.*credentials.toml': No space left on device — free some disk space" "$FD/e1" 2>/dev/null || bad="$bad [login: $(cat "$FD/e1" 2>&1)]"
	grep -q "^sandbx: cannot write '.*\.jsonl': No space left on device — free some disk space" "$FD/e2" 2>/dev/null || bad="$bad [new: $(cat "$FD/e2" 2>&1)]"
	grep -q "cannot append to the session .*No space left on device — .*free some space" "$FD/e3" 2>/dev/null || bad="$bad [resume: $(cat "$FD/e3" 2>&1)]"
	if [ "$(tr '\n' ' ' < "$TMP/rc")" != "login 1 new 1 resume 1 " ]; then t_fail "exits: $(cat "$TMP/rc")"
	elif [ -n "$bad" ]; then t_fail "a message does not say it:$bad"
	elif ! cmp -s "$FD/sum0" "$FD/sum1"; then t_fail "a stored file changed"
	elif [ "$(tr '\n' ' ' < "$FD/ls")" != "$FD/r/cfg/sandbx: credentials.toml  $FD/r/state/sandbx/sessions: fdaaaaaa.jsonl " ]; then
		t_fail "files left: $(tr '\n' ' ' < "$FD/ls")"
	else t_pass; fi
fi
mock_stop

t_start st-stdout-full "a command whose output cannot be written (standard output on /dev/full, or closed) exits 1 saying so, not 0 with its output lost: hash, tool, sessions, auth status, --version"
mkdir -p "$TMP/sf/state/sandbx/sessions"; chmod -R 700 "$TMP/sf"
printf '{"type":"header","version":1,"id":"sfaaaaaa","created":1700000000}\n{"type":"message","role":"user","content":[{"type":"text","text":"hi"}]}\n' > "$TMP/sf/state/sandbx/sessions/sfaaaaaa.jsonl"
chmod 600 "$TMP/sf/state/sandbx/sessions/sfaaaaaa.jsonl"
echo hello > "$TMP/work/sf.txt"
bad=""
for to in /dev/full closed; do
	for c in "hash sf.txt" "tool read {\"path\":\"sf.txt\"}" "sessions" "auth status" "--version"; do
		if [ $to = closed ]; then
			( cd "$TMP/work" && env ANTHROPIC_API_KEY=sk-ant-test-0000 XDG_STATE_HOME="$TMP/sf/state" XDG_CONFIG_HOME="$TMP/sf/cfg" \
				"$SANDBX" $c >&- 2>"$TMP/err" ); rc=$?
		else
			( cd "$TMP/work" && env ANTHROPIC_API_KEY=sk-ant-test-0000 XDG_STATE_HOME="$TMP/sf/state" XDG_CONFIG_HOME="$TMP/sf/cfg" \
				"$SANDBX" $c >/dev/full 2>"$TMP/err" ); rc=$?
		fi
		if [ $rc -ne 1 ] || ! grep -q '^sandbx: cannot write to standard output.* — ' "$TMP/err"; then
			bad="$bad [$c >$to: exit $rc $(grep -v '^sandbx audit' "$TMP/err" | tr '\n' ' ')]"
		fi
	done
done
[ -z "$bad" ] && t_pass || t_fail "$bad"

t_start st-xdg-relative-ignored "a relative XDG_CONFIG_HOME or XDG_STATE_HOME is ignored as the XDG spec says: the key and a new session go to HOME's defaults, named in what sandbx prints, and nothing is read from or created in the working directory (where a credential or session the agent planted there would be taken)"
RH="$TMP/relhome"; RW="$TMP/relwork"; mkdir -p "$RH" "$RW/relcfg/sandbx" "$RW/relst/sandbx/sessions"
printf 'api_key = "sk-ant-planted-0000"\n' > "$RW/relcfg/sandbx/credentials.toml"
printf '{"type":"header","version":1,"id":"pppp0000","created":1700000000}\n' > "$RW/relst/sandbx/sessions/pppp0000.jsonl"
chmod 700 "$RW/relcfg" "$RW/relcfg/sandbx" "$RW/relst" "$RW/relst/sandbx" "$RW/relst/sandbx/sessions"
chmod 600 "$RW/relcfg/sandbx/credentials.toml" "$RW/relst/sandbx/sessions/pppp0000.jsonl"
before=$(cd "$RW" && find . -exec stat -c '%n %s %Y' {} + | sort)
rr() { out=$(cd "$RW" && env -u ANTHROPIC_API_KEY HOME="$RH" XDG_CONFIG_HOME=relcfg XDG_STATE_HOME=relst "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
bad=""
rr "$SANDBX" auth status
{ [ $rc -eq 1 ] && ! printf '%s%s' "$out" "$err" | grep -q "relcfg"; } || bad="$bad|status before login took the planted key: rc=$rc $out $err"
out=$(cd "$RW" && printf 'sk-ant-rel-0000\n' | env -u ANTHROPIC_API_KEY HOME="$RH" XDG_CONFIG_HOME=relcfg XDG_STATE_HOME=relst \
	"$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 0 ] && printf '%s%s' "$out" "$err" | grep -qF "'$RH/.config/sandbx/credentials.toml'" &&
  grep -q 'sk-ant-rel-0000' "$RH/.config/sandbx/credentials.toml"; } || bad="$bad|login: rc=$rc $out $err"
rr "$SANDBX" sessions
{ [ $rc -eq 0 ] && printf '%s' "$err" | grep -qF "'$RH/.local/state/sandbx/sessions'" && ! printf '%s' "$out" | grep -q pppp0000; } ||
	bad="$bad|sessions listed the planted one or another directory: rc=$rc $out $err"
FX=$(cd "${FIXTURES:-$(dirname "$0")/../fixtures}/sse" && pwd)
mock_start <<EOF
sse $FX/text.sse
EOF
rr ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url "http://127.0.0.1:$PORT" --session -- hi
mock_stop
{ [ $rc -eq 0 ] && [ "$(find "$RH/.local/state/sandbx/sessions" -name '*.jsonl' | wc -l)" -eq 1 ]; } ||
	bad="$bad|agent-run: rc=$rc $err $(find "$RH" -type f)"
[ "$(cd "$RW" && find . -exec stat -c '%n %s %Y' {} + | sort)" = "$before" ] ||
	bad="$bad|the working directory changed: $(cd "$RW" && find . | sort | tr '\n' ' ')"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
rm -rf "$RH" "$RW"

t_start st-auth-edges "auth login given no key (empty or blank input) or not a key refuses saying nothing was stored, and makes no directory; with ANTHROPIC_API_KEY set, login and logout say the variable wins; a credential path that is a directory is refused by status, login and logout, which leave it as it was"
AH="$TMP/ah"; AC="$TMP/acfg"; mkdir -p "$AH"
ae() { out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$AH" XDG_CONFIG_HOME="$AC" XDG_STATE_HOME="$TMP/ast" "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
bad=""
for input in '' '\n' '   \n'; do
	out=$(printf "$input" | env -u ANTHROPIC_API_KEY HOME="$AH" XDG_CONFIG_HOME="$AC" "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
	{ [ $rc -eq 1 ] && [ "$err" = "sandbx: no key was given — nothing stored" ] && [ ! -e "$AC" ]; } || bad="$bad|input '$input': rc=$rc $err $(ls -A "$AC" 2>&1)"
done
out=$(printf 'sk-ant-with space\n' | env -u ANTHROPIC_API_KEY HOME="$AH" XDG_CONFIG_HOME="$AC" "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -q "that is not an API key: .* — nothing stored" && [ ! -e "$AC" ] &&
  ! printf '%s' "$err" | grep -q "with space"; } || bad="$bad|not a key: rc=$rc $err"
out=$(printf 'sk-ant-stored-0000\n' | env HOME="$AH" XDG_CONFIG_HOME="$AC" ANTHROPIC_API_KEY=sk-ant-env-0000 "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 0 ] && printf '%s' "$err" | grep -q "ANTHROPIC_API_KEY is set in this environment and takes precedence over the stored key" &&
  grep -q sk-ant-stored-0000 "$AC/sandbx/credentials.toml"; } || bad="$bad|login with env: rc=$rc $err"
out=$(env HOME="$AH" XDG_CONFIG_HOME="$AC" ANTHROPIC_API_KEY=sk-ant-env-0000 "$SANDBX" auth logout 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 0 ] && printf '%s' "$err" | grep -q "ANTHROPIC_API_KEY is still set in this environment; sandbx will use it until you unset it" &&
  [ ! -e "$AC/sandbx/credentials.toml" ]; } || bad="$bad|logout with env: rc=$rc $err"
mkdir -p "$AC/sandbx/credentials.toml/inner"
ae "$SANDBX" auth status
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$AC/sandbx/credentials.toml' is not a regular file"; } || bad="$bad|status on a dir: rc=$rc $err"
ae "$SANDBX" auth logout
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$AC/sandbx/credentials.toml' is a directory" && printf '%s' "$err" | grep -q "nothing was changed"; } ||
	bad="$bad|logout on a dir: rc=$rc $err"
out=$(printf 'sk-ant-new-0000\n' | env -u ANTHROPIC_API_KEY HOME="$AH" XDG_CONFIG_HOME="$AC" "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$AC/sandbx/credentials.toml' is a directory" && printf '%s' "$err" | grep -q "no key can be stored there"; } ||
	bad="$bad|login on a dir: rc=$rc $err"
[ -d "$AC/sandbx/credentials.toml/inner" ] || bad="$bad|the directory was changed"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
rm -rf "$AH" "$AC" "$TMP/ast"

t_start st-own-dir-link "sandbx's own config and state directories made symbolic links (as a dotfiles manager does) are refused by auth login, auth status, sessions and a new session, naming the link and to move it away, and nothing is written through them; owned by another user (as root) they are refused naming the owner"
LR="$TMP/lr"; mkdir -p "$LR/h" "$LR/cfg" "$LR/st" "$LR/real"; chmod 700 "$LR/real"
ln -s "$LR/real" "$LR/cfg/sandbx"; ln -s "$LR/real" "$LR/st/sandbx"
le() { out=$(cd "$TMP/work" && env -u ANTHROPIC_API_KEY HOME="$LR/h" XDG_CONFIG_HOME="$LR/cfg" XDG_STATE_HOME="$LR/st" "$@" 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
LINKMSG="is a symbolic link or not a directory — sandbx keeps its state only in a real directory; move it away"
bad=""
out=$(printf 'sk-ant-link-0000\n' | env -u ANTHROPIC_API_KEY HOME="$LR/h" XDG_CONFIG_HOME="$LR/cfg" "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$LR/cfg/sandbx' $LINKMSG"; } || bad="$bad|login: rc=$rc $err"
le "$SANDBX" auth status
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$LR/cfg/sandbx' $LINKMSG"; } || bad="$bad|status: rc=$rc $err"
le "$SANDBX" sessions
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$LR/st/sandbx' $LINKMSG"; } || bad="$bad|sessions: rc=$rc $err"
le ANTHROPIC_API_KEY=sk-ant-test-0000 "$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hi
{ [ $rc -ne 0 ] && printf '%s' "$err" | grep -qF "'$LR/st/sandbx' $LINKMSG" && ! printf '%s' "$err" | grep -q "connection failed"; } ||
	bad="$bad|new session: rc=$rc $err"
[ -z "$(ls -A "$LR/real")" ] || bad="$bad|written through the link: $(ls -A "$LR/real")"
if is_root; then
	rm "$LR/cfg/sandbx" "$LR/st/sandbx"; mkdir -m 700 "$LR/cfg/sandbx" "$LR/st/sandbx"; chown 65534 "$LR/cfg/sandbx" "$LR/st/sandbx"
	le "$SANDBX" auth status
	{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$LR/cfg/sandbx' is owned by uid 65534, not by you (uid 0)"; } || bad="$bad|status, other owner: rc=$rc $err"
	le "$SANDBX" sessions
	{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "'$LR/st/sandbx' is owned by uid 65534, not by you (uid 0)"; } || bad="$bad|sessions, other owner: rc=$rc $err"
fi
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
rm -rf "$LR"

t_start st-resume-missing "resuming a session that is not stored (no store yet, or a store without it), or with --continue and no session, fails before any connection naming where it looked and what to do, and creates nothing; an id that is not one (a path, capitals) is a usage error, and one too long names the limit"
MR="$TMP/mr"; mkdir -p "$MR/h"
me() { out=$(cd "$TMP/work" && env HOME="$MR/h" XDG_CONFIG_HOME="$MR/cfg" XDG_STATE_HOME="$MR/st" ANTHROPIC_API_KEY=sk-ant-test-0000 \
	"$SANDBX" agent-run --base-url http://127.0.0.1:9 "$@" -- hi 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err"); }
bad=""
me --session abcd1234
{ [ $rc -eq 1 ] && [ "$err" = "sandbx: no session 'abcd1234': the store '$MR/st/sandbx/sessions' does not exist yet — start one with --session" ]; } ||
	bad="$bad|no store: rc=$rc $err"
me --continue
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "no stored session to continue in '$MR/st/sandbx/sessions' — start one with --session"; } ||
	bad="$bad|continue, no store: rc=$rc $err"
[ ! -e "$MR/st" ] || bad="$bad|created: $(find "$MR/st")"
mkdir -p "$MR/st/sandbx/sessions"; chmod 700 "$MR/st/sandbx" "$MR/st/sandbx/sessions"
me --session abcd1234
{ [ $rc -eq 1 ] && [ "$err" = "sandbx: no session file '$MR/st/sandbx/sessions/abcd1234.jsonl' — 'sandbx sessions' lists the stored ones" ]; } ||
	bad="$bad|not in store: rc=$rc $err"
me --continue
{ [ $rc -eq 1 ] && printf '%s' "$err" | grep -qF "no stored session to continue in '$MR/st/sandbx/sessions'"; } || bad="$bad|continue, empty store: rc=$rc $err"
for id in ../etc ABCD1234; do
	me --session "$id"
	{ [ $rc -eq 64 ] && [ "$err" = "sandbx: --session: '$id' is not a session id — 'sandbx sessions' lists them" ]; } || bad="$bad|id $id: rc=$rc $err"
done
long=$(printf '%080d' 0)
me --session "$long"	# the limit named, not only "not a session id"
{ [ $rc -eq 64 ] &&
  [ "$err" = "sandbx: --session: '$long' is 80 characters long; a session id is at most 64 — 'sandbx sessions' lists them" ]; } ||
	bad="$bad|id of 80: rc=$rc $err"
[ -z "$(ls -A "$MR/st/sandbx/sessions")" ] || bad="$bad|created: $(ls -A "$MR/st/sandbx/sessions")"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
rm -rf "$MR"

t_start st-xdg-ancestor "XDG_CONFIG_HOME or XDG_STATE_HOME under a directory its user may not write, with directories on the way missing (run unprivileged), fails auth login and a new session naming the path, the variable and what to do, before any connection, and creates nothing"
XA="$TMP/xa"; mkdir -p "$XA/h" "$XA/ro" "$XA/w"; chmod 755 "$XA" "$XA/h"; chmod 777 "$XA/w"; chmod 555 "$XA/ro"
asu=""; is_root && asu="setpriv --reuid=65534 --regid=65534 --clear-groups"
bad=""
out=$(cd "$XA/w" && printf 'sk-ant-anc-0000\n' | $asu env -u ANTHROPIC_API_KEY HOME="$XA/h" XDG_CONFIG_HOME="$XA/ro/a/cfg" "$SANDBX" auth login 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && [ "$err" = "sandbx: cannot create a directory on the way to '$XA/ro/a/cfg': Permission denied — XDG_CONFIG_HOME names it: point XDG_CONFIG_HOME at a directory you own and can write, or unset it" ]; } ||
	bad="$bad|login: rc=$rc $err"
out=$(cd "$XA/w" && $asu env HOME="$XA/h" XDG_CONFIG_HOME="$XA/h/cfg" XDG_STATE_HOME="$XA/ro/a/st" ANTHROPIC_API_KEY=sk-ant-test-0000 \
	"$SANDBX" agent-run --base-url http://127.0.0.1:9 --session -- hi 2>"$TMP/err"); rc=$?; err=$(cat "$TMP/err")
{ [ $rc -eq 1 ] && [ "$err" = "sandbx: cannot create a directory on the way to '$XA/ro/a/st': Permission denied — XDG_STATE_HOME names it: point XDG_STATE_HOME at a directory you own and can write, or unset it" ]; } ||
	bad="$bad|new session: rc=$rc $err"
[ -z "$(ls -A "$XA/ro")" ] || bad="$bad|created: $(ls -A "$XA/ro")"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
chmod 755 "$XA/ro"; rm -rf "$XA"

t_start st-login-tty-interrupt "auth login interrupted with ^C while it reads the key with echo off dies of SIGINT (exit 130), leaves the terminal echoing again and stores nothing"
if ! command -v script >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
	t_skip "no script(1) or bash to make a terminal"
else
	IC="$TMP/icfg"
	# the trap keeps the shell alive past its child's SIGINT to report
	cat > "$TMP/login-int.sh" <<IN
trap 'echo sh-int' INT
"$SANDBX" auth login
echo "int:\$?"
stty -a | tr ' ;' '\n\n' | grep -x -- '-\{0,1\}echo'
IN
	tout=$( (sleep 1; printf '\003'; sleep 2) | env -u ANTHROPIC_API_KEY HOME="$H" XDG_CONFIG_HOME="$IC" TERM=dumb \
		timeout 30 script -qec "bash $TMP/login-int.sh" /dev/null 2>&1 | tr -d '\r')
	if printf '%s' "$tout" | grep -q "input hidden" && printf '%s' "$tout" | grep -qx "int:130" &&
		printf '%s' "$tout" | grep -qx "echo" && [ ! -e "$IC/sandbx/credentials.toml" ]; then t_pass
	else t_fail "out=$tout stored=$(ls -A "$IC/sandbx" 2>&1)"; fi
	rm -rf "$IC"
fi

t_done
