# tui_real.sh — sourced by test_tui.sh when the agent's turn loop is built:
# the real `sandbx tui` in tmux against $MOCK (loopback Anthropic stand-in).
# Uses run/has/rc/shot/tm from test_tui.sh.

mock_sse() { # FILE...: a mock answering each request with the next SSE file
	mock_dir
	for f in "$@"; do printf 'sse %s\n' "$f"; done > "$D/script"
	mock_serve 60
}
# sse_text FILE TEXT / sse_bash FILE ID COMMAND: one answer each
sse_head() {
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_t","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":20,"output_tokens":1}}}\n\n'
}
sse_text() {
	{
		sse_head
		printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
		printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}\n\n' "$2"
		printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
		printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}\n\n'
		printf 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
	} > "$1"
}
sse_bash() {
	{
		sse_head
		printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"%s","name":"bash","input":{}}}\n\n' "$2"
		printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"command\\": \\"%s\\"}"}}\n\n' "$3"
		printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
		printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}\n\n'
		printf 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
	} > "$1"
}
# real NAME ARGS...: sandbx tui in a 100x30 session from $TMP/rw (fresh)
# wait_req N: the mock has recorded request N (5 s at most)
wait_req() {
	i=0
	while [ ! -s "$D/req-$1.json" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
real() {
	n=$1
	shift
	rm -rf "$TMP/rw" && mkdir -p "$TMP/rw" "$TMP/rhome"
	run "$n" 100 30 "HOME='$TMP/rhome' XDG_STATE_HOME='$TMP/rhome/state' ANTHROPIC_API_KEY=sk-test sh -c 'cd \"$TMP/rw\" && exec \"$SANDBX\" tui --base-url http://127.0.0.1:$PORT $*'"
}

sse_text "$TMP/hello.sse" 'Hello from the **mock**.\n\n- a list item\n'
t_start tui-real-answer "sandbx tui sends the typed prompt and shows the streamed answer"
mock_sse "$TMP/hello.sse"
real r1
if has r1 "type a prompt"; then
	tm send-keys -t r1 "say hello" Enter
	if has r1 "Hello from the **mock**." && has r1 "• a list item" && has r1 " ready " \
		&& grep -q "say hello" "$D/req-1.json"; then
		tm send-keys -t r1 C-d
		if [ "$(rc r1)" = 0 ]; then t_pass; else t_fail "exit $(rc r1)"; fi
	else t_fail "no answer: $(shot r1 | grep -v '^$' | tail -6)"; fi
else t_fail "no first screen: $(shot r1 | head -5)"; fi

sse_bash "$TMP/bash1.sse" toolu_w1 "echo approved > made.txt"
sse_text "$TMP/after.sse" 'All done.'
t_start tui-real-approve-yes "y at the question runs the bash call in the sandbox and the turn goes on"
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real r2 --allow-tool bash
has r2 "type a prompt" && tm send-keys -t r2 "make a file" Enter
if has r2 "y yes, n no" && shot r2 | grep -q "bash wants to run: echo approved > made.txt"; then
	answer r2 y
	if has r2 "All done." && [ -f "$TMP/rw/made.txt" ] && grep -q toolu_w1 "$D/req-2.json"; then t_pass
	else t_fail "the call did not run: $(shot r2 | grep -v '^$' | tail -6)"; fi
else t_fail "no question naming the command: $(shot r2 | grep -v '^$' | tail -6)"; fi
tm send-keys -t r2 C-d

t_start tui-real-approve-no "n with a reason refuses the call; the reason goes back to the model"
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real r3 --allow-tool bash
has r3 "type a prompt" && tm send-keys -t r3 "make a file" Enter
if has r3 "y yes, n no"; then
	answer r3 n
	has r3 "reason>" 20
	tm send-keys -t r3 "not in this directory" Enter
	if has r3 "All done." && [ ! -e "$TMP/rw/made.txt" ] && grep -q "not in this directory" "$D/req-2.json"; then t_pass
	else t_fail "refusal: file=$(ls "$TMP/rw"), req2=$(head -c 300 "$D/req-2.json" 2>/dev/null)"; fi
else t_fail "no question"; fi
tm send-keys -t r3 C-d

t_start tui-real-keys-not-answers "keys that are not a lone key press do not answer: keypad 9 (ESC O y), shift-keypad 9 in the old modifier form (ESC O 2 y), ctrl-alt-shift-up (ESC [1;8A), an unbracketed paste; y alone then does"
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real rk --allow-tool bash
has rk "type a prompt" && tm send-keys -t rk "make a file" Enter
if has rk "y yes, n no"; then
	tm send-keys -t rk KP9
	tm send-keys -t rk -H 1b 4f 32 79
	tm send-keys -t rk C-M-S-Up
	tm send-keys -t rk -H 1b 5b 31 3b 39 41
	tm send-keys -t rk -l "ok yes, always"
	sleep 1
	if [ -e "$TMP/rw/made.txt" ] || ! shot rk | grep -q "y yes, n no"; then
		t_fail "a burst answered the question: file=$(ls "$TMP/rw") $(shot rk | grep -v '^$' | tail -4)"
	else
		tm send-keys -t rk y
		if has rk "All done." && [ -f "$TMP/rw/made.txt" ]; then t_pass
		else t_fail "y alone did not answer: $(shot rk | grep -v '^$' | tail -6)"; fi
	fi
else t_fail "no question"; fi
tm send-keys -t rk C-d

sse_bash "$TMP/sleep.sse" toolu_s1 "sleep 313"
t_start tui-real-stop-bash "escape while bash runs kills the command and the prompt returns; quitting then exits 2"
mock_sse "$TMP/sleep.sse" "$TMP/after.sse"
real r4 --allow-tool bash --approve run
has r4 "type a prompt" && tm send-keys -t r4 "wait a while" Enter
i=0
while ! pgrep -u "$(id -u)" -f "sleep 313" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if pgrep -u "$(id -u)" -f "sleep 313" >/dev/null; then
	tm send-keys -t r4 Escape
	i=0
	while pgrep -u "$(id -u)" -f "sleep 313" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	if ! pgrep -u "$(id -u)" -f "sleep 313" >/dev/null && has r4 " ready " 50; then
		tm send-keys -t r4 C-d
		r=$(rc r4)
		if [ "$r" = 2 ]; then t_pass; else t_fail "quit after the stopped turn: exit $r, not 2"; fi
	else t_fail "sleep 313 still runs or no prompt: $(shot r4 | grep -v '^$' | tail -4)"; fi
else t_fail "bash did not start: $(shot r4 | grep -v '^$' | tail -6)"; fi
tm send-keys -t r4 C-d 2>/dev/null

t_start tui-real-hangup "a hang-up while a question waits ends sandbx tui with exit 3"
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real r5 --allow-tool bash
has r5 "type a prompt" && tm send-keys -t r5 "make a file" Enter
if has r5 "y yes, n no"; then
	tm kill-session -t r5
	r=$(rc r5)
	if [ "$r" = 3 ] && [ ! -e "$TMP/rw/made.txt" ]; then t_pass; else t_fail "exit $r"; fi
else t_fail "no question"; fi

t_start tui-real-resume "--continue resumes into the screen with the stored history shown"
mock_sse "$TMP/hello.sse" "$TMP/hello.sse"
real r6 --session
has r6 "type a prompt" && tm send-keys -t r6 "remember this prompt" Enter
if has r6 "Hello from the **mock**." && has r6 " ready "; then
	tm send-keys -t r6 C-d
	rc r6 >/dev/null
	real r7 --continue
	if has r7 "resumed session" && shot r7 | grep -q "^> remember this prompt" && shot r7 | grep -q "^Hello from the \*\*mock\*\*\."; then
		tm send-keys -t r7 "and again" Enter
		wait_req 2
		if has r7 "> and again" && grep -q "remember this prompt" "$D/req-2.json"; then t_pass
		else t_fail "the resumed turn did not carry the history"; fi
	else t_fail "no history on the screen: $(shot r7 | grep -v '^$' | head -8)"; fi
	tm send-keys -t r7 C-d
else t_fail "first session: $(shot r6 | grep -v '^$' | tail -5)"; fi

sse_text "$TMP/hidden.sse" 'Run ad\u200bmin now.\n\u26a0\ufe0f careful\ufe0f.\nHidden:\udb40\udc41\udb40\udc42 end.\n'
t_start tui-real-answer-hidden "the characters that draw nothing in the answer (a zero-width space, tag characters) are shown as <U+XXXX>, one emoji selector after a symbol is drawn; the session keeps and the next request carries the model's text byte for byte"
mock_sse "$TMP/hidden.sse" "$TMP/hello.sse"
real rh --session
has rh "type a prompt" && tm send-keys -t rh "which command" Enter
if has rh "Run ad<U+200B>min now." && has rh "Hidden:<U+E0041><U+E0042> end." && has rh "careful<U+FE0F>." \
	&& ! shot rh | grep -q "<U+FE0F> careful" && has rh " ready "; then
	tm send-keys -t rh "and then" Enter
	wait_req 2
	tm send-keys -t rh C-d
	rc rh >/dev/null
	if python3 -c "
import json, os, sys
want = 'Run ad\u200bmin now.\n\u26a0\ufe0f careful\ufe0f.\nHidden:\U000e0041\U000e0042 end.\n'
req = json.load(open(sys.argv[1]))
said = [b['text'] for m in req['messages'] if m['role'] == 'assistant' for b in m['content'] if b.get('type') == 'text']
assert said == [want], said
kept = []
for d, _, fs in os.walk(sys.argv[2]):
    for f in fs:
        if f.endswith('.jsonl'):
            for l in open(os.path.join(d, f), 'rb'):
                r = json.loads(l)
                if r.get('role') == 'assistant':
                    kept += [b['text'] for b in r['content'] if b.get('type') == 'text']
assert want in kept, ('the session store keeps', kept)
" "$D/req-2.json" "$TMP/rhome/state" 2>"$TMP/rh.why"; then t_pass
	else t_fail "$(tail -1 "$TMP/rh.why")"; fi
else t_fail "the answer as drawn: $(shot rh | grep -v '^$' | tail -8)"; fi

# a zero-width space and tag characters (i, g: hidden words), pasted
t_start tui-real-input-hidden "a bracketed paste carrying a zero-width space and tag characters is drawn in the input box with each as <U+XXXX>; the request carries the bytes pasted"
mock_sse "$TMP/hello.sse"
real rp
if has rp "type a prompt"; then
	tm set-buffer -b hp "$(printf 'run ad\342\200\213min\363\240\201\251\363\240\201\247 now')"
	tm paste-buffer -p -d -b hp -t rp
	if has rp "> run ad<U+200B>min<U+E0069><U+E0067> now"; then
		tm send-keys -t rp Enter
		wait_req 1
		has rp " ready " >/dev/null
		tm send-keys -t rp C-d
		rc rp >/dev/null
		if python3 -c "
import json, sys
req = json.load(open(sys.argv[1]))
said = [b['text'] if isinstance(b, dict) else b for m in req['messages'] if m['role'] == 'user'
        for b in (m['content'] if isinstance(m['content'], list) else [m['content']]) if not isinstance(b, dict) or b.get('type') == 'text']
assert said == ['run ad\u200bmin\U000e0069\U000e0067 now'], said
" "$D/req-1.json" 2>"$TMP/rp.why"; then t_pass
		else t_fail "$(tail -1 "$TMP/rp.why")"; fi
	else t_fail "the box as drawn: $(shot rp | grep -v '^$' | tail -4)"; fi
else t_fail "no first screen: $(shot rp | head -5)"; fi
tm send-keys -t rp C-d 2>/dev/null

# a tab, a control and a right-to-left override, pasted: kept, drawn
t_start tui-real-input-controls "a bracketed paste carrying a tab, a control (0x01) and U+202E is drawn in the input box with the tab as spaces to the next stop, ^A and <U+202E>, and echoed so once sent; the request carries the bytes pasted, tab and all"
mock_sse "$TMP/hello.sse"
real ic
if has ic "type a prompt"; then
	tm set-buffer -b hc "$(printf 'x\tmake \001\342\200\256gnp.exe')"
	tm paste-buffer -p -d -b hc -t ic
	if has ic "> x   make ^A<U+202E>gnp.exe"; then
		tm send-keys -t ic Enter
		wait_req 1
		has ic " ready " >/dev/null
		echoed=$(shot ic | grep -c '^> x   make ^A<U+202E>gnp.exe')
		raw=$(shot ic | grep -c "$(printf '\342\200\256')")
		tm send-keys -t ic C-d
		rc ic >/dev/null
		if [ "$raw" != 0 ]; then t_fail "U+202E drawn raw: $(shot ic | grep -v '^$' | tail -4)"
		elif python3 -c "
import json, sys
req = json.load(open(sys.argv[1]))
said = [b['text'] if isinstance(b, dict) else b for m in req['messages'] if m['role'] == 'user'
        for b in (m['content'] if isinstance(m['content'], list) else [m['content']]) if not isinstance(b, dict) or b.get('type') == 'text']
assert said == ['x\tmake \x01\u202egnp.exe'], said
" "$D/req-1.json" 2>"$TMP/ic.why"; then
			[ "$echoed" -ge 1 ] && t_pass || t_fail "the prompt sent is not echoed as drawn"
		else t_fail "$(tail -1 "$TMP/ic.why")"; fi
	else t_fail "the box as drawn: $(shot ic | grep -v '^$' | tail -4)"; fi
else t_fail "no first screen: $(shot ic | head -5)"; fi
tm kill-session -t ic 2>/dev/null

sse_bash "$TMP/bashtrue.sse" toolu_s1 "true"
t_start tui-real-stop-alternates "a prompt after a turn that ended on its tool results joins that user message; one stopped before its first round leaves it as it was: the roles alternate"
mock_dir
printf 'sse %s\nstall 20\nstall 20\nsse %s\n' "$TMP/bashtrue.sse" "$TMP/hello.sse" > "$D/script"
mock_serve 60
real r8 --session --allow-tool bash --approve run
has r8 "type a prompt" && tm send-keys -t r8 "first prompt" Enter
wait_req 2
tm send-keys -t r8 Escape
if has r8 " ready "; then
	tm send-keys -t r8 "stopped prompt" Enter
	wait_req 3
	tm send-keys -t r8 Escape
	has r8 " ready " && tm send-keys -t r8 "third prompt" Enter
	if has r8 "Hello from the **mock**." && python3 -c "
import json
m=json.load(open('$D/req-4.json'))['messages']
roles=[x['role'] for x in m]
assert roles==['user','assistant','user'], roles
assert [b.get('text', b['type']) for b in m[2]['content']]==['tool_result','third prompt'], m[2]
"; then t_pass; else t_fail "$(python3 -c "import json; print(json.load(open('$D/req-4.json'))['messages'])" 2>&1 | tail -c 600)"; fi
else t_fail "the first turn was not stopped: $(shot r8 | grep -v '^$' | tail -5)"; fi
tm send-keys -t r8 C-d

t_start tui-real-stop-keeps-rounds "without --session too, a turn stopped in its second round keeps its first (the call ran) for the next turn"
mock_dir
printf 'sse %s\nstall 20\nsse %s\n' "$TMP/bashtrue.sse" "$TMP/hello.sse" > "$D/script"
mock_serve 60
real r9 --allow-tool bash --approve run
has r9 "type a prompt" && tm send-keys -t r9 "first prompt" Enter
wait_req 2
tm send-keys -t r9 Escape
if has r9 " ready "; then
	tm send-keys -t r9 "next prompt" Enter
	if has r9 "Hello from the **mock**." && python3 -c "
import json
m=json.load(open('$D/req-3.json'))['messages']
assert [x['role'] for x in m]==['user','assistant','user'], m
assert m[1]['content'][0]['id']=='toolu_s1', m[1]
assert [b.get('text', b['type']) for b in m[2]['content']]==['tool_result','next prompt'], m[2]
"; then t_pass; else t_fail "$(python3 -c "import json; print(json.load(open('$D/req-3.json'))['messages'])" 2>&1 | tail -c 600)"; fi
else t_fail "the first turn was not stopped: $(shot r9 | grep -v '^$' | tail -5)"; fi
tm send-keys -t r9 C-d

t_start tui-real-crash-keeps-stderr "a crash while the screen is up still prints the audit records and stderr held meanwhile, after giving the terminal back"
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real rc1 --allow-tool bash --approve run
has rc1 "type a prompt" && tm send-keys -t rc1 "make a file" Enter
if has rc1 "All done."; then
	pid=$(pgrep -P "$(tm display -p -t rc1 '#{pane_pid}')" -x sandbx)
	kill -s SEGV "$pid"
	r=$(rc rc1)
	tm capture-pane -p -S -300 -t rc1 > "$TMP/rc1.txt"
	# a sanitizer's report follows the held records, then it exits 1
	if [ "${SANDBX_SANITIZED:-0}" = 1 ] && [ "$r" = 1 ]; then ok=0; grep -q "Sanitizer" "$TMP/rc1.txt" || ok=1
	elif [ "$r" != none ] && [ "$r" -gt 128 ]; then ok=0; else ok=1; fi
	if [ $ok = 0 ] && grep -qF "sandbx audit spawned" "$TMP/rc1.txt" && grep -qF "sandbx audit exited" "$TMP/rc1.txt" \
		&& grep -qF 'tool=bash command="echo approved' "$TMP/rc1.txt"; then t_pass
	else t_fail "exit $r: $(grep -v '^$' "$TMP/rc1.txt" | tail -8)"; fi
else t_fail "the call did not run: $(shot rc1 | grep -v '^$' | tail -6)"; fi
tm kill-session -t rc1 2>/dev/null

# big_sse FILE: an answer of 24 MiB of text, in 64 KiB deltas
big_sse() {
	python3 - "$1" <<'PY'
import json, sys
with open(sys.argv[1], 'w') as f:
    w = lambda d: f.write("event: %s\ndata: %s\n\n" % (d["type"], json.dumps(d)))
    w({"type": "message_start", "message": {"id": "msg_t", "type": "message", "role": "assistant", "content": [],
       "model": "m", "usage": {"input_tokens": 20, "output_tokens": 1}}})
    w({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    chunk = ("word " * 13107)[:65535] + "\n"
    for i in range(384):
        w({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": chunk}})
    w({"type": "content_block_stop", "index": 0})
    w({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 9}})
    w({"type": "message_stop"})
PY
}
t_start tui-real-out-of-memory "memory running out while the screen is up (a 24 MiB answer under an address-space limit, or, sanitized, ASan's 16 MiB cap on one allocation) ends sandbx tui with exit 1 after giving the terminal back: the normal screen shows 'out of memory' and the limit to raise, echo and canonical mode are on again (before: the alternate screen stayed, the terminal was left -echo -icanon, and the message went to the held stderr, never shown)"
big_sse "$TMP/big.sse"
oom_bad="" oom_ok=0
# the first limit under which the screen comes up (the libraries' mappings
# vary a little between machines), up to one where the answer fits (80 MiB)
for mb in 48 56 64; do
	mock_sse "$TMP/big.sse"
	rm -rf "$TMP/rw" "$TMP/om.stty" && mkdir -p "$TMP/rw" "$TMP/rhome"
	tm kill-session -t om 2>/dev/null
	if [ "${SANDBX_SANITIZED:-0}" = 1 ]; then
		lim="ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}max_allocation_size_mb=16:allocator_may_return_null=1"
		oom_advice="raise its memory limit (a cgroup's memory.max)"	# no ulimit -v is set
	else lim="prlimit --as=$((mb << 20))" oom_advice="(ulimit -v) is $((mb << 10)) KiB: raise it and run again"; fi
	rm -f "$TMP/om.rc"
	tm new-session -d -s om -x 100 -y 30 "trap '' HUP; cd '$TMP/rw' && env LANG=C.UTF-8 HOME='$TMP/rhome' XDG_STATE_HOME='$TMP/rhome/state' ANTHROPIC_API_KEY=sk-test $lim \"$SANDBX\" tui --base-url http://127.0.0.1:$PORT; echo \$? > '$TMP/om.rc'; stty -a > '$TMP/om.stty'; trap - HUP; sleep 30"
	if ! has om "type a prompt"; then
		oom_bad="$oom_bad [$mb MiB: no screen, exit $(rc om 10): $(shot om | grep -v '^$' | tail -2)]"
		mock_stop
		continue
	fi
	tm send-keys -t om "say much" Enter
	r=$(rc om 300)
	i=0; while [ ! -s "$TMP/om.stty" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	alt=$(tm display -p -t om '#{alternate_on}')
	if [ "$r" = 1 ] && [ "$alt" = 0 ] && has om "sandbx: out of memory — " 20 && tm capture-pane -p -J -t om | grep -qF "$oom_advice" &&
		grep -qw -- icanon "$TMP/om.stty" && grep -qw -- echo "$TMP/om.stty"; then oom_ok=1
	else
		oom_bad="$oom_bad [$mb MiB: exit $r, alternate screen $alt, $(grep -ow -- '-\?icanon\|-\?echo' "$TMP/om.stty" | tr '\n' ' ')screen: $(shot om | grep -v '^$' | tail -3)]"
	fi
	mock_stop
	break
done
tm kill-session -t om 2>/dev/null
if [ $oom_ok = 1 ]; then t_pass; else t_fail "$oom_bad"; fi

sse_bash "$TMP/envdump.sse" toolu_e1 "env > env.txt"
t_start tui-real-ldpath-bash-allow-env "after tui ran again without an LD_LIBRARY_PATH entry (an empty one), --allow-env still gives the bash call's command the caller's value, whole"
mock_sse "$TMP/envdump.sse" "$TMP/after.sse"
rm -rf "$TMP/rw" && mkdir -p "$TMP/rw" "$TMP/rhome"
run rl1 100 30 "HOME='$TMP/rhome' XDG_STATE_HOME='$TMP/rhome/state' ANTHROPIC_API_KEY=sk-test LD_LIBRARY_PATH=':$TMP/keep' sh -c 'cd \"$TMP/rw\" && exec \"$SANDBX\" tui --base-url http://127.0.0.1:$PORT --allow-tool bash --approve run --allow-env LD_LIBRARY_PATH 2>\"$TMP/rl1.err\"'"
has rl1 "type a prompt" && tm send-keys -t rl1 "dump it" Enter
if has rl1 "All done." && grep -qx "LD_LIBRARY_PATH=:$TMP/keep" "$TMP/rw/env.txt" 2>/dev/null &&
   grep -q "running again without LD_LIBRARY_PATH: '' (empty: the working directory)" "$TMP/rl1.err"; then t_pass
else t_fail "env: $(grep LD_ "$TMP/rw/env.txt" 2>&1) $(cat "$TMP/rl1.err") $(shot rl1 | grep -v '^$' | tail -4)"; fi
tm send-keys -t rl1 C-d

# ncurses reads the terminal description at the screen: one a call could
# write (here: one an earlier run left in the working directory, TERMINFO
# pointing there) would choose the bytes sent to the terminal.  Its
# enter-screen sequence here sets the pane title; outside the grants it is
# read (the test can tell).
# planted_ti DIR...: that description compiled into each DIR.
planted_ti() {
	{ infocmp -x screen > "$TMP/ti.src" && sed -i 's/smcup=[^,]*/smcup=\\E]2;PLANTED\\007\\E[?1049h/' "$TMP/ti.src"; } \
		2>"$TMP/tic.err" || return 1
	for d; do tic -x -o "$d" "$TMP/ti.src" 2>"$TMP/tic.err" || return 1; done
}
# ti_run ENV CWD ARGS: tui with ENV (assignments, env -u ...) from CWD with
# ARGS, stderr in $TMP/ti.err, then quit; $title: the pane's title it set,
# $ti_bad: what went wrong before that.
ti_run() {
	mock_sse "$TMP/hello.sse"
	tm kill-session -t ti 2>/dev/null
	run ti 100 30 "$1 ANTHROPIC_API_KEY=sk-test TERM=screen sh -c 'cd \"$2\" && exec \"$SANDBX\" tui $3 --base-url http://127.0.0.1:$PORT 2>\"$TMP/ti.err\"'"
	ti_bad=""
	has ti "type a prompt" || ti_bad="no first screen: $(shot ti | head -3)"
	title=$(tm display-message -p -t ti '#{pane_title}')
	tm send-keys -t ti C-d; rc ti >/dev/null
	tm kill-session -t ti 2>/dev/null
}

t_start tui-real-terminfo-planted "a TERMINFO in the working directory (a write grant) is not what the screen reads: a note names it and the planted description's sequence is not sent; one outside the grants is"
rm -rf "$TMP/tiw" "$TMP/tiout" && mkdir -p "$TMP/tiw" "$TMP/tiout" "$TMP/rhome"
if ! planted_ti "$TMP/tiw/ti" "$TMP/tiout"; then
	t_fail "cannot build the description: $(cat "$TMP/tic.err")"
else
	chmod -R a+rX "$TMP/tiout"
	bad=""
	for where in "$TMP/tiw/ti" "$TMP/tiout"; do
		ti_run "HOME='$TMP/rhome' XDG_STATE_HOME='$TMP/rhome/state' TERMINFO='$where'" "$TMP/tiw" \
			"--allow-write \"$TMP/tiw\" --allow-read \"$TMP/tiout\""
		[ -z "$ti_bad" ] || bad="$bad [$where: $ti_bad]"
		if [ "$where" = "$TMP/tiout" ]; then
			[ "$title" = PLANTED ] || bad="$bad [outside: not read: title=$title]"
		elif [ "$title" = PLANTED ] || ! grep -q "note: not using TERMINFO '$where' (it resolves into the write grant $TMP/tiw)" "$TMP/ti.err"; then
			bad="$bad [in grant: title=$title $(cat "$TMP/ti.err")]"
		fi
	done
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

t_start tui-real-home-terminfo-planted "a \$HOME/.terminfo that resolves into a write grant (a symlink into the working directory) is not what the screen reads, even with TERMINFO unset: a note names it; a \$HOME/.terminfo outside the grants is read"
rm -rf "$TMP/thw" "$TMP/thh" "$TMP/tho" && mkdir -p "$TMP/thw/ti" "$TMP/thh" "$TMP/tho/.terminfo"
if ! planted_ti "$TMP/thw/ti" "$TMP/tho/.terminfo"; then
	t_fail "cannot build the description: $(cat "$TMP/tic.err")"
else
	ln -s "$TMP/thw/ti" "$TMP/thh/.terminfo"
	chmod -R a+rX "$TMP/tho" "$TMP/thw"
	bad=""
	for home in "$TMP/thh" "$TMP/tho"; do
		ti_run "env -u TERMINFO -u TERMINFO_DIRS HOME='$home' XDG_STATE_HOME='$TMP/thstate'" "$TMP/thw" \
			"--allow-write \"$TMP/thw\""
		[ -z "$ti_bad" ] || bad="$bad [$home: $ti_bad]"
		if [ "$home" = "$TMP/tho" ]; then
			[ "$title" = PLANTED ] || bad="$bad [outside: not read: title=$title]"
		elif [ "$title" = PLANTED ] || ! grep -q "note: not using \$HOME/.terminfo '$TMP/thh/.terminfo' (it resolves into the write grant $TMP/thw)" "$TMP/ti.err"; then
			bad="$bad [in grant: title=$title $(cat "$TMP/ti.err")]"
		fi
	done
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

# sse_calls FILE ID TOOL INPUT-JSON...: one answer asking for each call in turn
sse_calls() {
	python3 - "$@" <<'PY'
import json, sys
ev = lambda d: "event: %s\ndata: %s\n\n" % (d["type"], json.dumps(d))
out = ev({"type": "message_start", "message": {"id": "msg_t", "type": "message", "role": "assistant", "content": [],
          "model": "m", "usage": {"input_tokens": 20, "output_tokens": 1}}})
a = sys.argv[2:]
for k in range(len(a) // 3):
    out += ev({"type": "content_block_start", "index": k,
               "content_block": {"type": "tool_use", "id": a[3 * k], "name": a[3 * k + 1], "input": {}}})
    out += ev({"type": "content_block_delta", "index": k,
               "delta": {"type": "input_json_delta", "partial_json": a[3 * k + 2]}})
    out += ev({"type": "content_block_stop", "index": k})
out += ev({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 9}})
out += ev({"type": "message_stop"})
open(sys.argv[1], "w").write(out)
PY
}
# kept_round REQ SESSIONS-DIR PROMPT NEXT LAST IDS...: the request carries
# the prompt, the answer's calls and one result for each (the last one an
# error saying LAST), then NEXT, and the session store holds the same round
kept_round() {
	python3 - "$@" <<'PY'
import json, os, sys
req, store, prompt, nxt, last, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
m = json.load(open(req))['messages']
assert [x['role'] for x in m] == ['user', 'assistant', 'user'], ('roles', m)
assert [b.get('text') for b in m[0]['content']] == [prompt], ('prompt', m[0])
assert [b['id'] for b in m[1]['content'] if b['type'] == 'tool_use'] == ids, ('calls', m[1])
res = [b for b in m[2]['content'] if b['type'] == 'tool_result']
assert [b['tool_use_id'] for b in res] == ids, ('results', m[2])
assert [b.get('text') for b in m[2]['content'] if b['type'] == 'text'] == [nxt], ('next', m[2])
assert last in json.dumps(res[-1]) and res[-1].get('is_error'), ('last result', res[-1])
assert not any(b.get('is_error') for b in res[:-1]), ('results that ran', res)
kept = []
for d, _, fs in os.walk(store):
    for f in fs:
        if f.endswith('.jsonl'):
            kept += [json.loads(l) for l in open(os.path.join(d, f))]
s = json.dumps(kept)
assert json.dumps(prompt) in s, ('session lacks the prompt', s[:600])
for i in ids:
    assert s.count('"tool_use_id": "%s"' % i) == 1, ('session results of ' + i, s[:1500])
PY
}

sse_calls "$TMP/three.sse" q1 bash '{"command": "echo one > q1.txt"}' q2 bash '{"command": "echo two > q2.txt"}' \
	q3 write '{"path": "q3.txt", "content": "three"}'
t_start tui-real-escape-question-keeps-round "escape at the question for a round's third call stops the turn but keeps the round: the prompt, the calls and the results of the two that ran, and a 'not run' result for the third, go to the next request and into the session (before, the next request held the new prompt alone)"
mock_sse "$TMP/three.sse" "$TMP/hello.sse"
rm -rf "$TMP/rhome/state"
real rq --allow-tool --session
has rq "type a prompt" && tm send-keys -t rq "go" Enter
if has rq "y yes, n no" && shot rq | grep -q "bash wants to run: echo one"; then
	answer rq a
	if has rq "write wants to run: q3.txt"; then
		answer rq Escape
		has rq " ready " && tm send-keys -t rq "did it work" Enter
		wait_req 2
		has rq "Hello from the **mock**." >/dev/null
		tm send-keys -t rq C-d
		rc rq >/dev/null
		if [ -f "$TMP/rw/q1.txt" ] && [ -f "$TMP/rw/q2.txt" ] && [ ! -e "$TMP/rw/q3.txt" ] &&
			kept_round "$D/req-2.json" "$TMP/rhome/state" go "did it work" "not run" q1 q2 q3 2>"$TMP/rq.why"; then t_pass
		else t_fail "files: $(ls "$TMP/rw" | tr '\n' ' ') $(tail -c 600 "$TMP/rq.why")"; fi
	else t_fail "no question for the write: $(shot rq | grep -v '^$' | tail -6)"; fi
else t_fail "no question: $(shot rq | grep -v '^$' | tail -6)"; fi
tm kill-session -t rq 2>/dev/null

sse_calls "$TMP/twobash.sse" b1 bash '{"command": "echo one > b1.txt"}' b2 bash '{"command": "echo partial-b2; sleep 317"}'
t_start tui-real-stop-bash-keeps-round "escape while a round's second bash call runs (--approve run) kills it and keeps the round: the first call's result and the stopped one's, with what it printed before the stop and a note that the user stopped it, go to the next request and into the session (before, the stopped call's result was 'cancelled' alone, its output lost)"
mock_sse "$TMP/twobash.sse" "$TMP/hello.sse"
rm -rf "$TMP/rhome/state"
real rb --allow-tool bash --approve run --session
has rb "type a prompt" && tm send-keys -t rb "go" Enter
i=0
while ! pgrep -u "$(id -u)" -f "sleep 317" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if pgrep -u "$(id -u)" -f "sleep 317" >/dev/null; then
	tm send-keys -t rb Escape
	has rb " ready " && tm send-keys -t rb "did it work" Enter
	wait_req 2
	has rb "Hello from the **mock**." >/dev/null
	tm send-keys -t rb C-d
	rc rb >/dev/null
	if [ -f "$TMP/rw/b1.txt" ] && grep -rqF 'partial-b2\n[cancelled: the user stopped' "$TMP/rhome/state" &&
		kept_round "$D/req-2.json" "$TMP/rhome/state" go "did it work" 'partial-b2\n[cancelled: the user stopped' b1 b2 2>"$TMP/rb.why"; then t_pass
	else t_fail "files: $(ls "$TMP/rw" | tr '\n' ' ') $(tail -c 600 "$TMP/rb.why")"; fi
else t_fail "bash did not start: $(shot rb | grep -v '^$' | tail -6)"; fi
tm kill-session -t rb 2>/dev/null

sse_text "$TMP/retried.sse" 'Retried.'
t_start tui-real-failed-prompt-dropped "a turn that failed before its first round (the stream cut mid-answer) leaves no trace of its prompt: the retry with Up and Enter sends it once, and the history the running screen sends next is the one --continue resumes (before, the failed prompt was merged into the next: [\"p\", \"p\"], while the session had it once)"
cut=$(grep -bo 'event: content_block_stop' "$TMP/hello.sse" | head -1 | cut -d: -f1)
mock_dir
printf 'disconnect %s %s\nsse %s\nsse %s\nsse %s\n' "$TMP/hello.sse" "$cut" "$TMP/retried.sse" "$TMP/retried.sse" "$TMP/retried.sse" > "$D/script"
mock_serve 60
rm -rf "$TMP/rhome/state"
real rf --session
has rf "type a prompt" && tm send-keys -t rf "p" Enter
wait_req 1
if has rf " ready "; then
	tm send-keys -t rf Up
	sleep 0.2
	tm send-keys -t rf Enter
	wait_req 2
	has rf "Retried." && has rf " ready " && tm send-keys -t rf "again" Enter
	wait_req 3
	has rf " ready " >/dev/null
	tm send-keys -t rf C-d
	rc rf >/dev/null
	real rf2 --continue
	has rf2 "resumed session" && tm send-keys -t rf2 "again" Enter
	wait_req 4
	tm send-keys -t rf2 C-d
	rc rf2 >/dev/null
	if python3 - "$D" <<'PY' 2>"$TMP/rf.why"; then t_pass
import json, sys
said = lambda n: [(m['role'], [b.get('text', b['type']) for b in m['content']]) for m in json.load(open('%s/req-%d.json' % (sys.argv[1], n)))['messages']]
assert said(2) == [('user', ['p'])], said(2)
want = [('user', ['p']), ('assistant', ['Retried.']), ('user', ['again'])]
assert said(3) == want, ('running', said(3))
assert said(4) == want + [('assistant', ['Retried.']), ('user', ['again'])], ('resumed', said(4))
PY
	else t_fail "$(tail -c 600 "$TMP/rf.why")"; fi
else t_fail "the failed turn did not end: $(shot rf | grep -v '^$' | tail -6)"; fi
tm kill-session -t rf 2>/dev/null
tm kill-session -t rf2 2>/dev/null

# An answer that stops for tool calls none of which could run (input not
# JSON) ends the turn with no answer (agent-run: tool_use, exit 2): the
# screen said only "turn ended: tool_use", as if tools were still to come.
sse_calls "$TMP/none-ran.sse" toolu_n1 read '{"path": "a.txt", }'
t_start tui-real-tool-calls-none-ran "a turn whose tool calls could none run (input not JSON) says in plain words that it ended without an answer and what to do; no further request; quitting then exits 2"
mock_sse "$TMP/none-ran.sse"
real nr
if has nr "type a prompt"; then
	tm send-keys -t nr "read a.txt" Enter
	if has nr "the turn ended without an answer: the model stopped to use tools" && has nr " ready " 20; then
		sleep 0.3
		if shot nr | grep -qF "turn ended: tool_use"; then t_fail "the bare stop reason is still shown: $(shot nr | grep -v '^$' | tail -6)"
		elif [ -e "$D/req-2.json" ]; then t_fail "a further request was sent"
		else
			tm send-keys -t nr C-d
			if [ "$(rc nr)" = 2 ]; then t_pass; else t_fail "exit $(rc nr)"; fi
		fi
	else t_fail "not said: $(shot nr | grep -v '^$' | tail -8)"; fi
else t_fail "no first screen: $(shot nr | head -5)"; fi
mock_stop
tm kill-session -t nr 2>/dev/null

# real_dfl NAME ARGS...: as real, with SIGHUP at its default action (run's
# shell ignores it to outlive the pane); tui_pid NAME: sandbx's pid
real_dfl() {
	n=$1
	shift
	rm -rf "$TMP/rw" && mkdir -p "$TMP/rw" "$TMP/rhome"
	run "$n" 100 30 "HOME='$TMP/rhome' XDG_STATE_HOME='$TMP/rhome/state' ANTHROPIC_API_KEY=sk-test sh -c 'cd \"$TMP/rw\" && exec env --default-signal=HUP \"$SANDBX\" tui --base-url http://127.0.0.1:$PORT $*'"
}
tui_pid() { pgrep -P "$(tm display -p -t "$1" '#{pane_pid}')" -x sandbx; }

t_start tui-real-signal-dies "sandbx tui sent SIGTERM, SIGINT or SIGHUP with no question waiting gives the terminal back, prints its transcript and dies by that signal (143, 130, 129), as sandbx does elsewhere; SIGTERM while a question waits dies by it too, the call not run (before, each exited 3, 'nobody left to approve')"
bad=""
for sw in TERM:143 INT:130 HUP:129; do
	sig=${sw%:*} want=${sw#*:}
	mock_sse "$TMP/hello.sse"
	real_dfl "sg$sig"
	has "sg$sig" "type a prompt" && tm send-keys -t "sg$sig" "say hello" Enter
	if has "sg$sig" "Hello from the **mock**." && has "sg$sig" " ready "; then
		kill -s "$sig" "$(tui_pid "sg$sig")"
		r=$(rc "sg$sig")
		# the normal screen: the transcript printed after the alternate one
		if [ "$r" != "$want" ] || ! has "sg$sig" "> say hello" 10; then bad="$bad [$sig: exit $r, not $want: $(shot "sg$sig" | grep -v '^$' | tail -3)]"; fi
	else bad="$bad [$sig: no answer]"; fi
	tm kill-session -t "sg$sig" 2>/dev/null
done
mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
real_dfl sgq --allow-tool bash
has sgq "type a prompt" && tm send-keys -t sgq "make a file" Enter
if has sgq "y yes, n no"; then
	kill -s TERM "$(tui_pid sgq)"
	r=$(rc sgq)
	[ "$r" = 143 ] && [ ! -e "$TMP/rw/made.txt" ] || bad="$bad [TERM at the question: exit $r, $(ls "$TMP/rw")]"
else bad="$bad [no question]"; fi
tm kill-session -t sgq 2>/dev/null
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

sse_calls "$TMP/onebash.sse" k1 bash '{"command": "echo one > k1.txt; sleep 319"}'
t_start tui-real-signal-keeps-round "SIGTERM while a bash call runs (--approve run, --session) kills the command, stores the round with the call's result (naming SIGTERM), then sandbx dies by SIGTERM (143): --continue sends the prompt, the call and its result; the exited record says stopped=SIGTERM code=143 (before: stopped=cancelled code=137, and the result 'cancelled', as if the user had stopped it)"
mock_sse "$TMP/onebash.sse" "$TMP/hello.sse"
rm -rf "$TMP/rhome/state"
real_dfl sgk --allow-tool bash --approve run --session "2>'$TMP/sgk.err'"
has sgk "type a prompt" && tm send-keys -t sgk "go" Enter
i=0
while ! pgrep -u "$(id -u)" -f "sleep 319" >/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if pgrep -u "$(id -u)" -f "sleep 319" >/dev/null; then
	kill -s TERM "$(tui_pid sgk)"
	r=$(rc sgk)
	tm kill-session -t sgk 2>/dev/null
	real sgk2 --continue
	has sgk2 "resumed session" && tm send-keys -t sgk2 "did it work" Enter
	wait_req 2
	tm send-keys -t sgk2 C-d
	rc sgk2 >/dev/null
	if [ "$r" = 143 ] && ! pgrep -u "$(id -u)" -f "sleep 319" >/dev/null &&
		grep -q '^sandbx audit exited tool=bash command="echo one > k1.txt; sleep 319" code=143 stopped=SIGTERM$' "$TMP/sgk.err" &&
		kept_round "$D/req-2.json" "$TMP/rhome/state" go "did it work" "killed: sandbx got SIGTERM" k1 2>"$TMP/sgk.why"; then t_pass
	else t_fail "exit $r: $(grep exited "$TMP/sgk.err") $(tail -c 600 "$TMP/sgk.why")"; fi
else t_fail "bash did not start: $(shot sgk | grep -v '^$' | tail -6)"; fi
tm kill-session -t sgk2 2>/dev/null

sse_calls "$TMP/hupbash.sse" h1 bash '{"command": "echo before-hup; sleep 323"}'
# hup_run HOW WAIT-FOR TTY ARGS...: sandbx tui on a pty this drives (no tmux:
# the test decides which of the pty's close and SIGHUP comes first); TTY
# ctty: the pty is its controlling terminal (closing the master sends it
# SIGHUP too, as a real hang-up does), none: it is not (the close alone).
# Prints its exit: "exit N" or "signal N".  HUP_IGN=1: SIGHUP ignored (as
# nohup leaves it); HUP_ERR=FILE: its standard error there.
hup_run() {
	rm -rf "$TMP/rw" "$TMP/rhome" && mkdir -p "$TMP/rw" "$TMP/rhome"
	( cd "$TMP/rw" && HOME="$TMP/rhome" XDG_STATE_HOME="$TMP/rhome/state" ANTHROPIC_API_KEY=sk-test LANG=C.UTF-8 TERM=xterm \
		python3 - "$@" <<'PY'
import fcntl, os, select, signal, subprocess, sys, termios, time
how, wait_for, tty, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x1e\x00\x64\x00\x00\x00\x00\x00")	# 30 x 100
def child():
	signal.signal(signal.SIGHUP, signal.SIG_IGN if os.environ.get("HUP_IGN") else signal.SIG_DFL)
	if tty == "ctty":
		fcntl.ioctl(0, termios.TIOCSCTTY, 0)
err = open(os.environ["HUP_ERR"], "w") if os.environ.get("HUP_ERR") else slave
p = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=err, start_new_session=True, preexec_fn=child)
os.close(slave)
seen = b""
def until(what, secs=10):
	global seen
	end = time.time() + secs
	while time.time() < end:
		if what(seen):
			return True
		r, _, _ = select.select([master], [], [], 0.1)
		if r:
			try:
				seen += os.read(master, 65536)
			except OSError:
				return what(seen)
	return False
def running(pat):
	return subprocess.run(["pgrep", "-f", pat], stdout=subprocess.DEVNULL).returncode == 0
ok = until(lambda s: b"type a prompt" in s)
os.write(master, b"go")
time.sleep(0.3)
os.write(master, b"\r")
if wait_for == "ready":
	ok = ok and until(lambda s: b"Hello from the" in s) and until(lambda s: s.rfind(b"ready") > s.rfind(b"Hello from the"))
elif wait_for == "question":
	ok = ok and until(lambda s: b"y yes, n no" in s)
else:
	ok = ok and until(lambda s: running(wait_for), 10)
if not ok:
	print("setup failed:", seen[-300:])
	p.kill()
	sys.exit(0)
time.sleep(0.3)
for step in how.split(","):
	if step == "close":
		os.close(master)
	elif step == "hup":
		p.send_signal(signal.SIGHUP)
	time.sleep(0.05)
try:
	rc = p.wait(timeout=15)
except subprocess.TimeoutExpired:
	p.kill()
	rc = "hung"
if "close" not in how:
	os.close(master)
print("signal %d" % -rc if isinstance(rc, int) and rc < 0 else "exit %s" % rc)
PY
	)
}
t_start tui-real-hangup-race "a hang-up is a hang-up whichever sandbx tui notices first, the pty closing (the keyboard's end) or SIGHUP: with no question waiting it dies by SIGHUP (129) having stored the session (a running bash call killed, its output kept, the record naming SIGHUP); with a question waiting it exits 3; the pty closed alone (not its controlling terminal), SIGHUP alone, both in either order, and the close of its controlling terminal (the kernel's SIGHUP racing the keyboard's end, 4 times) give the same (before, the close seen first exited 3)"
bad=""
for c in "close none" "hup none" "close,hup none" "hup,close none" "close ctty" "close ctty" "close ctty" "close ctty"; do
	mock_sse "$TMP/hello.sse"
	got=$(hup_run ${c% *} ready ${c#* } "$SANDBX" tui --base-url "http://127.0.0.1:$PORT" --session)
	[ "$got" = "signal 1" ] || bad="$bad [$c idle: $got]"
done
for c in "close none" "hup,close none" "close ctty"; do
	mock_sse "$TMP/hupbash.sse" "$TMP/hello.sse"
	got=$(hup_run ${c% *} "sleep 323" ${c#* } "$SANDBX" tui --base-url "http://127.0.0.1:$PORT" --allow-tool bash --approve run --session)
	if [ "$got" != "signal 1" ] || pgrep -f "sleep 323" >/dev/null ||
		! grep -rqF 'before-hup\n[killed: sandbx got SIGHUP' "$TMP/rhome/state"; then
		bad="$bad [$c bash: $got, $(grep -rho '"tool_result.\{0,120\}' "$TMP/rhome/state" 2>/dev/null)]"
	fi
done
for c in "close none" "hup none" "close,hup none" "hup,close none" "close ctty"; do
	mock_sse "$TMP/bash1.sse" "$TMP/after.sse"
	got=$(hup_run ${c% *} question ${c#* } "$SANDBX" tui --base-url "http://127.0.0.1:$PORT" --allow-tool bash)
	[ "$got" = "exit 3" ] && [ ! -e "$TMP/rw/made.txt" ] || bad="$bad [$c question: $got]"
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start tui-real-terminal-lost-bash "with SIGHUP ignored (nohup), the terminal closing while a bash call runs exits 3 (the terminal failed); the call is killed with its tree, its output kept with '[killed: the terminal went away ...]' in the session, and its exited record says stopped=terminal-lost (before: '[cancelled: the user stopped ...]' and stopped=cancelled, as if the user had stopped it)"
mock_sse "$TMP/hupbash.sse" "$TMP/hello.sse"
got=$(HUP_IGN=1 HUP_ERR="$TMP/lost.err" hup_run close "sleep 323" none "$SANDBX" tui --base-url "http://127.0.0.1:$PORT" --allow-tool bash --approve run --session)
if [ "$got" = "exit 3" ] && ! pgrep -f "sleep 323" >/dev/null &&
	grep -rqF 'before-hup\n[killed: the terminal went away' "$TMP/rhome/state" &&
	grep -q '^sandbx audit exited tool=bash command="echo before-hup; sleep 323" code=[0-9]* stopped=terminal-lost$' "$TMP/lost.err"; then t_pass
else t_fail "$got: $(grep exited "$TMP/lost.err") $(grep -rho '"tool_result.\{0,120\}' "$TMP/rhome/state" 2>/dev/null)"; fi
