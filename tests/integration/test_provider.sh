#!/bin/sh
# test_provider.sh — the streaming provider end to end, before agent-run
# exists: $TESTTOOLS/provcat runs one round against $TESTTOOLS/mockprov (a
# scripted loopback server) and prints the folded message as JSON.
. "$(dirname "$0")/lib.sh"

FX=$(cd "${FIXTURES:-$(dirname "$0")/../fixtures}/sse" && pwd)
MOCK=${TESTTOOLS:+$TESTTOOLS/mockprov}
PC=${TESTTOOLS:+$TESTTOOLS/provcat}

have_tools() { [ -n "$TESTTOOLS" ] && [ -x "$MOCK" ] && [ -x "$PC" ]; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# pc ARGS...: provcat against the current mock; out, err, rc, ms in $D.
pc() {
	t0=$(now_ms)
	ANTHROPIC_API_KEY=${KEY:-sk-test-key} "$PC" --base-url "http://127.0.0.1:$PORT" --prompt "${PROMPT:-hi}" "$@" \
		>"$D/out" 2>"$D/err"
	echo $? > "$D/rc"
	echo $(( $(now_ms) - t0 )) > "$D/ms"
}
rc() { cat "$D/rc"; }
ms() { cat "$D/ms"; }
out_has() { grep -qF -- "$1" "$D/out"; }
err_has() { grep -qF -- "$1" "$D/err"; }
nreq() { ls "$D" | grep -c '^req-.*\.json$'; }

if ! have_tools; then
	for id in prov-plain prov-tool-use; do t_start $id; t_skip "TESTTOOLS lacks mockprov/provcat"; done
	t_done
	exit 0
fi

printf '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}' > "$TMP/e429.json"
printf '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' > "$TMP/e529.json"
printf '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}' > "$TMP/e503.json"
printf '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}' > "$TMP/e400.json"
# An error event before any content: retried like a 529.
{
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n'
	printf 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
} > "$TMP/early_error.sse"

t_start prov-plain "a plain answer streams, folds and is sent with the API's headers"
mock_start <<EOF2
sse $FX/text.sse
EOF2
pc --system "be brief" --model claude-test --max-tokens 77
mock_stop
if [ "$(rc)" = 0 ] && out_has '"stop_reason":"end_turn"' && out_has '"streamed":"Hello, world' &&
	out_has '"output_tokens":15' && grep -q '^POST /v1/messages HTTP/1.1' "$D/req-1.head" &&
	grep -qi '^x-api-key: sk-test-key' "$D/req-1.head" && grep -qi '^anthropic-version: 2023-06-01' "$D/req-1.head" &&
	grep -qi '^content-type: application/json' "$D/req-1.head" &&
	grep -qF '"model":"claude-test","max_tokens":77,"stream":true,"system":"be brief","messages":[{"role":"user","content":"hi"}]' "$D/req-1.json"; then
	t_pass
else
	t_fail "rc=$(rc) out=$(cat "$D/out") err=$(cat "$D/err")"
fi

t_start prov-http-no-proxy "plain http to loopback never goes through a proxy (it would see the key)"
mock_start <<EOF2
sse $FX/text.sse
EOF2
http_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 no_proxy= NO_PROXY= pc --retries 0
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 1 ]; then t_pass; else t_fail "rc=$(rc) err=$(cat "$D/err")"; fi

t_start prov-tool-use "tool_use input fragments are joined; the request carries tools and the tool_result history"
cat > "$TMP/msgs.json" <<'EOF2'
[{"role":"user","content":"read it"},
 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01ReadFile","name":"read","input":{"path":"a"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01ReadFile","content":"hello"}]}]
EOF2
cat > "$TMP/tools.json" <<'EOF2'
[{"name":"read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]
EOF2
mock_start <<EOF2
sse $FX/tool_use.sse 37 0
EOF2
pc --messages "$TMP/msgs.json" --tools "$TMP/tools.json"
mock_stop
if [ "$(rc)" = 0 ] && out_has '"stop_reason":"tool_use"' &&
	out_has '{"type":"tool_use","id":"toolu_01ReadFile","name":"read","input":{"path":"src/main.c","limit":40,"note":"café"}}' &&
	out_has '{"type":"tool_use","id":"toolu_02ListDir","name":"ls","input":{}}' &&
	grep -qF '"tool_use_id":"toolu_01ReadFile"' "$D/req-1.json" && grep -qF '"tools":[{"name":"read"' "$D/req-1.json" &&
	! grep -qF tool_choice "$D/req-1.json"; then
	t_pass
else
	t_fail "rc=$(rc) out=$(cat "$D/out") err=$(cat "$D/err")"
fi

t_start prov-wrap-up "a wrap-up round sends tool_choice none"
mock_start <<EOF2
sse $FX/text.sse
EOF2
pc --messages "$TMP/msgs.json" --tools "$TMP/tools.json" --wrap-up
mock_stop
if [ "$(rc)" = 0 ] && grep -qF '"tool_choice":{"type":"none"}' "$D/req-1.json"; then t_pass; else t_fail "rc=$(rc) $(cat "$D/req-1.json")"; fi

t_start prov-max-tokens-tool "a tool call cut by max_tokens is dropped, not offered to run"
mock_start <<EOF2
sse $FX/max_tokens_tool.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 0 ] && out_has '"stop_reason":"max_tokens"' && ! out_has '"id":"toolu_01CutOff"' &&
	out_has '"dropped":[{"index":1,"type":"tool_use"'; then t_pass; else t_fail "rc=$(rc) out=$(cat "$D/out")"; fi

t_start prov-retry-429 "429 with retry-after: 1 is retried after about a second, and the retry is reported"
mock_start <<EOF2
status 429 $TMP/e429.json retry-after=1
sse $FX/text.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 0 ] && out_has '"retries":1' && err_has 'retry: rate limited — retrying in 1 s, attempt 1 of 4' &&
	[ "$(ms)" -ge 950 ] && [ "$(ms)" -lt 5000 ] && cmp -s "$D/req-1.json" "$D/req-2.json"; then
	t_pass
else
	t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"
fi

t_start prov-retry-529 "529 overloaded is retried with backoff until the answer comes"
mock_start <<EOF2
status 529 $TMP/e529.json
status 529 $TMP/e529.json
sse $FX/text.sse
EOF2
pc --backoff-ms 100
mock_stop
if [ "$(rc)" = 0 ] && out_has '"retries":2' && err_has 'retry: overloaded — retrying in' && err_has 'attempt 2 of 4' &&
	[ "$(nreq)" = 3 ]; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-retry-ms-header "retry-after-ms is honoured over retry-after"
mock_start <<EOF2
status 503 $TMP/e503.json retry-after=30 retry-after-ms=200
sse $FX/text.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 0 ] && err_has 'server error 503 — retrying in 200 ms, attempt 1 of 4' && [ "$(ms)" -lt 5000 ]; then
	t_pass
else
	t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"
fi

t_start prov-retry-after-too-long "a retry-after (or retry-after-ms) past the 60 s sandbx waits fails the round at once, saying how long the provider asked to wait, with no early retry (before, it was ignored and the retry came after 0.5 s)"
bad=""
for hdr in "retry-after=100000" "retry-after-ms=90000 retry-after=1" "retry-after=99999999999999999999"; do
	mock_start <<EOF2
status 429 $TMP/e429.json $hdr
sse $FX/text.sse
EOF2
	pc
	mock_stop
	case $hdr in
	retry-after=100000) want="it asked to wait 100000 s before a retry (retry-after), longer than the 60 s sandbx waits" ;;
	retry-after-ms=*) want="it asked to wait 90 s before a retry (retry-after-ms)" ;;
	*) want="it asked to wait over 1000000 s before a retry (retry-after)" ;;
	esac
	[ "$(rc)" != 0 ] && [ "$(nreq)" = 1 ] && [ "$(ms)" -lt 5000 ] && err_has "rate limited" && err_has "$want" &&
		! err_has "retrying in" || bad="$bad [$hdr: rc=$(rc) n=$(nreq) ms=$(ms) err=$(cat "$D/err")]"
done
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start prov-retry-exhausted "retries are bounded: the round fails after the last one"
mock_start <<EOF2
status 503 $TMP/e503.json
status 503 $TMP/e503.json
status 503 $TMP/e503.json
status 503 $TMP/e503.json
EOF2
pc --retries 2 --backoff-ms 50
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 3 ] && err_has 'gave up after 2 retries' && err_has 'api_error: Internal server error'; then
	t_pass
else
	t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"
fi

t_start prov-no-retry-400 "a 400 is not retried and its error reaches the user"
mock_start <<EOF2
status 400 $TMP/e400.json
sse $FX/text.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 1 ] && err_has 'HTTP 400 invalid_request_error: max_tokens: field required' &&
	err_has 'request-id req_mock_err'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-json-200-error-shown "a 200 answer that is not an event stream (a gateway's JSON error) fails naming its content type and the error it carries, not retried"
body='{"type":"error","error":{"type":"invalid_request_error","message":"streaming is not enabled on this route"}}'
printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' "${#body}" "$body" > "$TMP/json200.raw"
mock_start <<EOF2
raw $TMP/json200.raw 0 0 0
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 1 ] && err_has "answered with 'application/json', not an event stream: invalid_request_error: streaming is not enabled on this route — check --base-url"; then
	t_pass
else
	t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"
fi

t_start prov-error-body-stalled "an error status whose body stalls or never ends fails at once (or at the idle limit, not retried) naming the status and what to do, not as a silent server"
# A 400 announcing a 1 GB body, sending 1 MB of it, then holding the
# connection open: the kept 64 KiB are enough, the rest is not waited for.
{
	printf 'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n'
	printf '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long'
	head -c 1000000 /dev/zero | tr '\0' 'x'
} > "$TMP/endless400.raw"
# A 401 whose short body stops half-way (the length says more), inside
# an echo of the key: what it holds of the key is not shown either.
printf 'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-test-k' > "$TMP/stalled401.raw"
# A 503 whose body stalls fails on its status; a stall is not retried.
printf 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: 500\r\n\r\n<html>' > "$TMP/stalled503.raw"
mock_start <<EOF2
raw $TMP/endless400.raw 0 0 20
EOF2
pc --idle-ms 8000
mock_stop
r1=$(rc) m1=$(ms) e1=$(cat "$D/err")
l1=$(wc -l < "$D/err") c1=$(wc -c < "$D/err")
mock_start <<EOF2
raw $TMP/stalled401.raw 0 0 20
EOF2
SANDBX_LOG=debug pc --idle-ms 1500
mock_stop
r2=$(rc) e2=$(grep -v '^sandbx debug' "$D/err") k2=$(grep -c 'sk-test' "$D/err")
mock_start <<EOF2
raw $TMP/stalled503.raw 0 0 20
sse $FX/text.sse
EOF2
pc --idle-ms 1500 --backoff-ms 50
mock_stop
r3=$(rc) n3=$(nreq) e3=$(cat "$D/err")
if [ "$r1" = 1 ] && [ "$m1" -lt 5000 ] && [ "$l1" = 1 ] && [ "$c1" -lt 1000 ] &&
	printf '%s' "$e1" | grep -qF 'HTTP 400' && printf '%s' "$e1" | grep -qF 'prompt is too long' &&
	[ "$r2" = 1 ] && printf '%s' "$e2" | grep -qF 'HTTP 401' && printf '%s' "$e2" | grep -qF 'check the API key' &&
	! printf '%s' "$e2" | grep -qF 'sent nothing' && [ "$k2" = 0 ] && printf '%s' "$e2" | grep -qF 'x-api-key [redacted]' &&
	[ "$r3" = 1 ] && [ "$n3" = 1 ] && printf '%s' "$e3" | grep -qF 'HTTP 503 <html>' && printf '%s' "$e3" | grep -qF 'try again later'; then
	t_pass
else
	t_fail "400: rc=$r1 ${m1}ms lines=$l1 bytes=$c1 $(printf '%s' "$e1" | cut -c1-200) | 401: rc=$r2 keys=$k2 $e2 | 503: rc=$r3 n=$n3 $e3"
fi

t_start prov-should-retry-header "x-should-retry overrides the status both ways"
mock_start <<EOF2
status 400 $TMP/e400.json x-should-retry=true
status 529 $TMP/e529.json x-should-retry=false
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 2 ] && err_has 'HTTP 529 overloaded_error'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-midstream-error "an overloaded error after content fails the round, not retried"
mock_start <<EOF2
sse $FX/error_midstream.sse
sse $FX/text.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 1 ] && out_has '"streamed":"Partial answer"' &&
	err_has 'overloaded_error: Overloaded'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-early-error-retried "an overloaded error event before any content is retried"
mock_start <<EOF2
sse $TMP/early_error.sse
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 2 ] && err_has 'retry: overloaded — retrying'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-idle-stall "a stream that goes silent fails the round within the idle limit"
mock_start <<EOF2
stall-headers 20
EOF2
pc --idle-ms 1500
mock_stop
if [ "$(rc)" = 4 ] && [ "$(ms)" -ge 1400 ] && [ "$(ms)" -lt 4500 ] && err_has 'sent nothing for 1.5 s' && [ "$(nreq)" = 1 ]; then
	t_pass
else
	t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"
fi

t_start prov-idle-short "an idle limit under a second is named as it is: never 'sent nothing for 0 s'"
mock_start <<EOF2
stall-headers 20
EOF2
pc --idle-ms 400
mock_stop
if [ "$(rc)" = 4 ] && [ "$(ms)" -ge 350 ] && [ "$(ms)" -lt 3000 ] && err_has 'sent nothing for 400 ms' && ! err_has 'for 0 s'; then
	t_pass
else
	t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"
fi

t_start prov-idle-no-headers "a server that accepts and answers nothing fails the round within the idle limit"
mock_start <<EOF2
stall 20
EOF2
pc --idle-ms 1500
mock_stop
if [ "$(rc)" = 4 ] && [ "$(ms)" -lt 4500 ]; then t_pass; else t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"; fi

t_start prov-pings-keep-alive "pings arriving inside the idle limit keep a slow stream alive"
mock_start <<EOF2
sse $FX/ping.sse 200 600
EOF2
pc --idle-ms 1500
mock_stop
if [ "$(rc)" = 0 ] && [ "$(ms)" -ge 2500 ] && out_has '"streamed":"pong"'; then t_pass; else t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"; fi

t_start prov-idle-upload "a request the server takes in slowly is traffic too: no idle failure while it goes out"
# 12 MiB read 64 KiB every 25 ms: about 5 s going out, longer than the
# 3 s idle limit; before, the round failed at 3 s as "sent nothing".
python3 -c "import json; json.dump([{'role':'user','content':'x'*(12<<20)}], open('$TMP/big.json','w'))"
mock_start <<EOF2
slowread 65536 25 $FX/text.sse
EOF2
pc --idle-ms 3000 --retries 0 --messages "$TMP/big.json"
mock_stop
if [ "$(rc)" = 0 ] && [ "$(ms)" -ge 3000 ] && out_has '"streamed":"Hello, world'; then t_pass; else t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"; fi

t_start prov-total-cap "the per-round cap ends a stream that never stops trickling"
mock_start <<EOF2
sse $FX/ping.sse 20 300
EOF2
pc --idle-ms 1500 --total-ms 2000
mock_stop
if [ "$(rc)" = 4 ] && [ "$(ms)" -lt 4500 ] && err_has 'longer than its 2 s cap'; then t_pass; else t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"; fi

t_start prov-disconnect-mid "a connection cut after content arrived fails the round with a clear error"
mock_start <<EOF2
disconnect $FX/text.sse 700
sse $FX/text.sse
EOF2
pc
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 1 ] && err_has 'broke mid-answer' && out_has '"streamed":"Hello'; then
	t_pass
else
	t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"
fi

t_start prov-cut-after-stop "a connection cut after message_stop keeps the whole answer: the round is answered, not failed as broken mid-answer"
mock_start <<EOF2
disconnect $FX/text.sse 100000
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 1 ] && out_has '"stop_reason":"end_turn"' && ! err_has 'retry'; then t_pass
else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-disconnect-early "a connection cut before any content is retried"
mock_start <<EOF2
disconnect $FX/text.sse 0
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 2 ] && err_has 'retry: connection lost'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-connect-refused "a refused connection is retried, then fails with the reason and says to check the address, not that the provider has trouble"
mock_start <<EOF2
sse $FX/text.sse
EOF2
mock_stop	# nothing listens on $PORT now
pc --retries 1 --backoff-ms 50
if [ "$(rc)" = 1 ] && err_has 'retry: connection failed' && err_has 'gave up after 1 retry;' &&
	err_has "check --base-url ('http://127.0.0.1:$PORT" && err_has "') and the network" && ! err_has 'has trouble'; then t_pass
else t_fail "rc=$(rc) err=$(cat "$D/err")"; fi

t_start prov-stop-flag "the stop flag ends a stalled round promptly"
mock_start <<EOF2
stall-headers 20
EOF2
pc --idle-ms 30000 --stop-after-ms 400
mock_stop
if [ "$(rc)" = 5 ] && [ "$(ms)" -lt 2500 ] && err_has 'stopped'; then t_pass; else t_fail "rc=$(rc) ms=$(ms) err=$(cat "$D/err")"; fi

t_start prov-url-policy "plain http to a host that is not loopback is refused before any connection"
mock_start <<EOF2
sse $FX/text.sse
EOF2
ANTHROPIC_API_KEY=sk-test-key "$PC" --base-url "http://example.invalid:$PORT" --prompt hi >"$D/out" 2>"$D/err"
r=$?
mock_stop
if [ "$r" = 1 ] && err_has 'is plain http to a host that is not loopback' && [ "$(nreq)" = 0 ]; then t_pass; else t_fail "rc=$r err=$(cat "$D/err")"; fi

t_start prov-short-key-refused "a key that is not one (a letter, a 'Bearer ' prefix pasted with it) is refused before any connection, by the provider and by agent-run, saying why and what to do; nothing reaches the server (before, a 1-byte key was sent)"
mock_start <<EOF2
sse $FX/text.sse
sse $FX/text.sse
EOF2
bad=""
KEY=k pc --retries 0
{ [ "$(rc)" = 1 ] && err_has "the API key is not one: it is shorter than 6 bytes — check ANTHROPIC_API_KEY, or run 'sandbx auth login'"; } ||
	bad="$bad|provcat k: rc=$(rc) $(cat "$D/err")"
KEY="Bearer sk-test-key" pc --retries 0
{ [ "$(rc)" = 1 ] && err_has "it begins with 'Bearer '" && ! grep -q sk-test-key "$D/out" "$D/err"; } ||
	bad="$bad|provcat Bearer: rc=$(rc) $(cat "$D/err")"
mkdir -p "$TMP/w"
( cd "$TMP/w" && ANTHROPIC_API_KEY=k "$SANDBX" agent-run --base-url "http://127.0.0.1:$PORT" -- hi ) >"$D/out" 2>"$D/err" </dev/null
r=$?
{ [ $r = 1 ] && err_has "ANTHROPIC_API_KEY does not hold an API key: it is shorter than 6 bytes — set it to the key alone"; } ||
	bad="$bad|agent-run: rc=$r $(cat "$D/err")"
[ "$(nreq)" = 0 ] || bad="$bad|$(nreq) requests reached the server"
mock_stop
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start prov-no-redirect "a redirect is not followed (the key would go along)"
mock_start <<EOF2
sse $FX/text.sse
EOF2
D2=$D
P2=$PORT
M2=$MOCKPID
mock_start <<EOF2
status 307 - location=http://127.0.0.1:$P2/v1/messages
EOF2
pc
mock_stop
kill "$M2" 2>/dev/null
wait "$M2" 2>/dev/null
if [ "$(rc)" = 1 ] && err_has 'HTTP 307' && [ "$(ls "$D2" | grep -c '^req-')" = 0 ]; then t_pass; else t_fail "rc=$(rc) err=$(cat "$D/err")"; fi

t_start prov-redirect-named "a redirect fails with one line that says it is a redirect, not followed, where it points (controls shown, the key masked) and to check --base-url"
mock_start <<EOF2
status 301 - location=https://api.example.test/v1/messages?k=sk-test-key&x=$(printf '\033')[2J
EOF2
pc
mock_stop
if [ "$(rc)" = 1 ] && [ "$(nreq)" = 1 ] && [ "$(wc -l < "$D/err")" = 1 ] && err_has 'HTTP 301' && err_has 'redirect' &&
	err_has "'https://api.example.test/v1/messages?k=[redacted]&x=?[2J'" && err_has '--base-url' &&
	! err_has 'sk-test-key' && ! err_has 'SANDBX_LOG=debug'; then t_pass; else t_fail "rc=$(rc) n=$(nreq) err=$(cat -A "$D/err")"; fi

t_start prov-interim-only "an interim 100 Continue with no final response after it is a lost connection, retried, not a refusal 'HTTP 100'"
printf 'HTTP/1.1 100 Continue\r\n\r\n' > "$TMP/interim.raw"
mock_start <<EOF2
raw $TMP/interim.raw 0 0 0
sse $FX/text.sse
EOF2
pc --backoff-ms 50
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 2 ] && err_has 'retry: connection' && ! err_has 'HTTP 100'; then t_pass
else t_fail "rc=$(rc) n=$(nreq) err=$(cat "$D/err")"; fi

t_start prov-tls-verify "https checks the server's certificate: a self-signed one fails the round at the handshake, once, and the key is never sent"
if ! command -v openssl >/dev/null || ! python3 -c 'import ssl' 2>/dev/null; then
	t_skip "no openssl or no python3 ssl to make a TLS listener"
elif ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/tls.key" -out "$TMP/tls.crt" -days 1 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1; then
	t_fail "openssl could not make a test certificate"
else
	python3 - "$TMP/tls.crt" "$TMP/tls.key" "$TMP/tls.port" "$TMP/tls.log" <<'PY' &
import os, socket, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); s.settimeout(4)
open(sys.argv[3] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
log = open(sys.argv[4], "w")
try:
    while True:
        c, _ = s.accept(); c.settimeout(3)
        log.write("connection\n"); log.flush()
        try:
            t = ctx.wrap_socket(c, server_side=True)
            log.write("request %r\n" % t.recv(65536)); log.flush()
            t.close()
        except (OSError, ssl.SSLError) as e:
            log.write("handshake failed\n"); log.flush()
            c.close()
except OSError:
    pass
PY
	tls=$!
	i=0; while [ ! -s "$TMP/tls.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	mock_dir
	ANTHROPIC_API_KEY=sk-ant-secret-0123456789 "$PC" --base-url "https://127.0.0.1:$(cat "$TMP/tls.port")" --prompt hi \
		--backoff-ms 50 >"$D/out" 2>"$D/err"
	echo $? > "$D/rc"
	wait "$tls"
	if [ "$(rc)" = 1 ] && err_has 'certificate' && [ "$(grep -c connection "$TMP/tls.log")" = 1 ] &&
		grep -q 'handshake failed' "$TMP/tls.log" && ! grep -q request "$TMP/tls.log"; then t_pass
	else t_fail "rc=$(rc) err=$(cat "$D/err") server: $(cat "$TMP/tls.log")"; fi
fi

t_start prov-proxy-connect "https through a proxy from the environment: its CONNECT carries no key, and its refusal is named as the proxy's, not the provider's"
# A loopback stand-in for the proxy: records what it is sent, refuses the tunnel.
python3 - "$TMP/proxy.port" "$TMP/proxy.got" <<'PY' &
import os, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4); s.settimeout(15)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
got = b""
try:
    c, _ = s.accept(); c.settimeout(5)
    got = c.recv(65536)
    c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\ndenied")
    c.close()
except OSError:
    pass
open(sys.argv[2], "wb").write(got)
PY
PXPID=$!
i=0; while [ ! -s "$TMP/proxy.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
mock_dir
https_proxy=http://127.0.0.1:$(cat "$TMP/proxy.port") no_proxy= NO_PROXY= ANTHROPIC_API_KEY=sk-ant-secret-0123456789 \
	"$PC" --base-url https://api.example.invalid --prompt hi --retries 0 >"$D/out" 2>"$D/err"
echo $? > "$D/rc"
wait "$PXPID"
if [ "$(rc)" = 1 ] && grep -q '^CONNECT api.example.invalid:443 ' "$TMP/proxy.got" && ! grep -qi 'x-api-key\|secret' "$TMP/proxy.got" &&
	err_has 'proxy' && err_has '403' && ! err_has 'refused the request' && ! err_has 'check the API key'; then t_pass
else t_fail "rc=$(rc) proxy got: $(cat "$TMP/proxy.got") err=$(cat "$D/err")"; fi

t_start prov-debug-redacts-key "SANDBX_LOG=debug logs the exchange but never the API key"
mock_start <<EOF2
status 429 $TMP/e429.json retry-after-ms=10
sse $FX/text.sse
EOF2
KEY=sk-ant-secret-0123456789 PROMPT="echo of sk-ant-secret-0123456789" SANDBX_LOG=debug pc
mock_stop
if [ "$(rc)" = 0 ] && err_has 'sandbx debug provider > x-api-key: [redacted]' && err_has 'sandbx debug provider > POST http://127.0.0.1' &&
	err_has 'sandbx debug provider < HTTP/1.1 429' && err_has 'sandbx debug provider < event: message_start' &&
	err_has 'sandbx debug provider < event: message_stop' && ! grep -q '^event:' "$D/err" &&
	err_has '"content":"echo of [redacted]"' && ! err_has 'sk-ant-secret-0123456789'; then
	t_pass
else
	t_fail "rc=$(rc) err=$(head -c 2000 "$D/err")"
fi

# chunked OUT SSE TAIL: a 200 event stream whose body is the file SSE in
# one chunk, followed by TAIL (a printf format: the last chunk, trailers),
# as raw bytes for the mock's raw step.
chunked() {
	{
		printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n' "$(wc -c < "$2")"
		cat "$2"
		printf '\r\n'
		printf "$3"
	} > "$1"
}

t_start prov-trailer-ignored "a chunked trailer cannot turn a streamed answer into an error: one request, the answer once"
chunked "$TMP/trailer.raw" "$FX/text.sse" '0\r\nHTTP/1.1 500 boom: x\r\nx-should-retry: true\r\nretry-after: 0\r\n\r\n'
mock_start <<EOF2
raw $TMP/trailer.raw 0 0 0
EOF2
pc --stream-out --backoff-ms 10
mock_stop
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 1 ] && [ "$(grep -c 'Hello, world' "$D/out")" = 1 ] && ! err_has 'retry'; then
	t_pass
else
	t_fail "rc=$(rc) requests=$(nreq) out=$(cat "$D/out") err=$(cat "$D/err")"
fi

# trailers OUT SSE: a chunked 200 event stream of SSE followed by 32 MB of
# trailer lines (300,000 of 110 bytes).
trailers() {
	python3 - "$1" "$2" <<'PY'
import sys
sse = open(sys.argv[2], "rb").read()
with open(sys.argv[1], "wb") as f:
    f.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    f.write(b"%x\r\n%s\r\n0\r\n" % (len(sse), sse))
    f.write(b"".join(b"x-t%07d: %s\r\n" % (i, b"z" * 90) for i in range(300000)))
    f.write(b"\r\n")
PY
}
# peak KB PROGRAM ARGS...: run it (stdout, stderr, status as pc keeps
# them), then its peak RSS in KiB into $D/rss.
peak() {
	python3 -c 'import resource, subprocess, sys
r = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + "/out", "wb"), stderr=open(sys.argv[1] + "/err", "wb"))
open(sys.argv[1] + "/rc", "w").write("%d\n" % r)
open(sys.argv[1] + "/rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$D" "$@"
}
t_start prov-trailer-flood "chunked trailers are capped: a server sending them without end cannot grow sandbx's memory (libcurl keeps every one)"
head -c "$(grep -b 'event: message_stop' "$FX/text.sse" | cut -d: -f1)" "$FX/text.sse" > "$TMP/nostop.sse"
trailers "$TMP/tflood.raw" "$TMP/nostop.sse"
trailers "$TMP/tflood-done.raw" "$FX/text.sse"
mock_start <<EOF2
raw $TMP/tflood.raw 0 0 0
raw $TMP/tflood-done.raw 0 0 0
EOF2
peak env ANTHROPIC_API_KEY=sk-test-key "$PC" --base-url "http://127.0.0.1:$PORT" --prompt hi --retries 0
cp "$D/err" "$D/err1"; r1=$(rc); rss1=$(cat "$D/rss")
peak env ANTHROPIC_API_KEY=sk-test-key "$PC" --base-url "http://127.0.0.1:$PORT" --prompt hi --retries 0
mock_stop
rm -f "$TMP/tflood.raw" "$TMP/tflood-done.raw"
# Measured: 10 MB with the cap; before it, 50 MB for these 32 MB, and
# 625 MB for 6 s of trailers from a loopback server.  Under ASan the
# capped run peaks at 34 MB (its shadow memory and quarantine), and the
# 32 MB of trailers kept would come on top.
bound=30000; [ "${SANDBX_SANITIZED:-0}" = 1 ] && bound=48000
if [ "$r1" = 1 ] && grep -q 'trailer' "$D/err1" && [ "$rss1" -lt $bound ] &&
	[ "$(rc)" = 0 ] && out_has '"stop_reason":"end_turn"' && [ "$(cat "$D/rss")" -lt $bound ]; then t_pass
else t_fail "rc=$r1 rss=${rss1}KB err=$(cat "$D/err1"); done: rc=$(rc) rss=$(cat "$D/rss")KB err=$(cat "$D/err")"; fi

t_start prov-after-stop "after message_stop nothing is folded, and a connection held open ends the round at once, not at the idle limit"
{
	cat "$FX/text.sse"
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":"TWO-after-stop"}}\n\n'
	printf 'event: ping\ndata: {"type": "ping"}\n\n'
} > "$TMP/after_stop.sse"
chunked "$TMP/after_stop.raw" "$TMP/after_stop.sse" ''
mock_start <<EOF2
raw $TMP/after_stop.raw 0 0 20
EOF2
pc --stream-out --idle-ms 8000
mock_stop
if [ "$(rc)" = 0 ] && [ "$(ms)" -lt 4000 ] && out_has 'Hello, world' && ! out_has 'TWO-after-stop' && [ "$(nreq)" = 1 ]; then
	t_pass
else
	t_fail "rc=$(rc) ms=$(ms) out=$(cat "$D/out") err=$(cat "$D/err")"
fi

# key_echo NAME HEADER BODY MARK SKIP: a debug-logged call (key
# sk-ant-secret-0123456789) answered by a 401 with one more header line
# and BODY, sent in two network reads cut SKIP bytes into the first MARK.
key_echo() {
	printf 'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n%s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
		"$2" "${#3}" "$3" > "$TMP/$1.raw"
	cut=$(( $(grep -ob -- "$4" "$TMP/$1.raw" | head -n 1 | cut -d: -f1) + $5 ))
	mock_start <<EOF2
raw $TMP/$1.raw $cut 300 0
EOF2
	KEY=sk-ant-secret-0123456789 SANDBX_LOG=debug pc
	mock_stop
}
# A 401 whose body echoes the key, cut in the middle of it between two
# network reads, with controls in a header: the debug log and the error.
key_echo echo401 "$(printf 'x-junk: \033]0;pwned\007\302\233\342\200\256RID\r\nx-hidden: ad\342\200\213min\363\240\201\201\363\240\201\202')" \
	'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-secret-0123456789"}}' \
	'sk-ant-secret' 9
t_start prov-key-echo-redacted "a key the server echoes back is [redacted] in the error and the debug log, also when cut between two reads"
if [ "$(rc)" != 0 ] && err_has 'authentication_error: invalid x-api-key [redacted]' &&
	err_has 'sandbx debug provider < {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key [redacted]"}}' &&
	! err_has 'sk-ant-secret' && ! err_has '0123456789'; then
	t_pass
else
	t_fail "rc=$(rc) err=$(head -c 3000 "$D/err")"
fi
t_start prov-debug-controls "the debug log draws the server's controls visibly: no escape, C1 or bidi byte reaches the terminal"
if err_has 'x-junk: ^[]0;pwned^G<U+009B><U+202E>RID' && ! grep -q "$(printf '\033')" "$D/err" &&
	! grep -q "$(printf '\302\233')" "$D/err" && ! grep -q "$(printf '\342\200\256')" "$D/err"; then
	t_pass
else
	t_fail "err=$(head -c 3000 "$D/err" | od -c | head -20)"
fi
t_start prov-debug-hidden "the debug log shows what draws nothing (a zero-width space, tag characters) as <U+XXXX>"
if err_has 'x-hidden: ad<U+200B>min<U+E0041><U+E0042>' && ! grep -q "$(printf '\342\200\213')" "$D/err" &&
	! grep -q "$(printf '\363\240\201')" "$D/err"; then
	t_pass
else
	t_fail "err=$(grep -a 'x-hidden' "$D/err" | od -c | head -20)"
fi

t_start prov-key-dense-redacted "a line of the debug log longer than its 1 MiB cap is cut between copies of the key, never inside one; a key at the end of a cut error body or header is masked whole"
python3 - "$TMP/dense401.raw" <<'PY'
import sys
key = "sk-ant-secret-0123456789"
body = key * 60000                      # 1.4 MB on one line: cut by the debug log's cap
rid = "r" * 245 + key                   # a request-id cut at 255 bytes
open(sys.argv[1], "w").write("HTTP/1.1 401 Unauthorized\r\nContent-Type: text/html\r\nrequest-id: %s\r\n"
	"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (rid, len(body), body))
PY
mock_start <<EOF2
raw $TMP/dense401.raw 0 0 0
EOF2
KEY=sk-ant-secret-0123456789 SANDBX_LOG=debug pc
mock_stop
if [ "$(rc)" != 0 ] && ! grep -q 'sk-ant' "$D/err" && ! grep -q 'secret-0' "$D/err" && ! grep -q '0123456789' "$D/err" &&
	err_has '(request-id rrrrrrrrrr' && err_has 'HTTP 401 [redacted][redacted]'; then t_pass
else t_fail "rc=$(rc) $(grep -o '.\{40\}sk-ant.\{0,30\}' "$D/err" | head -3) $(tail -c 300 "$D/err")"; fi

# The key spelled as an echo may spell it: JSON escapes (\u002d, upper or
# lower case) and percent-encoding, in a header, in the error message, and
# across a debug-log line longer than its cap (copies of 29 and 28 bytes
# against a 1 MiB piece: the cut falls where the network reads end).
key_echo esc401 'x-echo: k=sk%2dant-secret%2D0123456789' \
	'{"type":"error","error":{"type":"authentication_error","message":"bad key sk\u002dant\u002Dsecret-0123456789 or sk%2Dant%2dsecret-0123456789"}}' \
	'sk\\u002dant' 4
cp "$D/err" "$TMP/esc401.err"
python3 - "$TMP/escdense401.raw" <<'PY'
import sys
body = r"sk\u002dant-secret-0123456789" * 20000 + "sk%2Dant-secret%2d0123456789" * 20000
open(sys.argv[1], "w").write("HTTP/1.1 401 Unauthorized\r\nContent-Type: text/html\r\n"
	"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
PY
mock_start <<EOF2
raw $TMP/escdense401.raw 0 0 0
EOF2
KEY=sk-ant-secret-0123456789 SANDBX_LOG=debug pc
mock_stop
t_start prov-key-escaped-redacted "a key echoed JSON-escaped or percent-encoded is [redacted] in the error and the debug log, also across a line longer than the log's cap"
if grep -q 'authentication_error: bad key \[redacted\] or \[redacted\]' "$TMP/esc401.err" &&
	grep -qF 'x-echo: k=[redacted]' "$TMP/esc401.err" &&
	grep -qF '"message":"bad key [redacted] or [redacted]"' "$TMP/esc401.err" &&
	! grep -q 'secret\|0123456789' "$TMP/esc401.err" &&
	[ "$(rc)" != 0 ] && ! grep -q 'secret\|0123456789\|sk\\\|sk%' "$D/err" && err_has 'HTTP 401 [redacted][redacted]'; then t_pass
else t_fail "$(grep -o '.\{40\}secret.\{0,30\}' "$TMP/esc401.err" "$D/err" | head -3) $(tail -c 300 "$TMP/esc401.err")"; fi

t_start prov-stream-out "text deltas reach the caller's hook in order, as they arrive, byte for byte"
mock_start <<EOF2
sse $FX/tool_use.sse 25 5
EOF2
pc --stream-out
mock_stop
if [ "$(rc)" = 0 ] && [ "$(cat "$D/out")" = "Okay, let me read that file." ] && err_has '"kept_bytes":' &&
	err_has '"stop_reason":"tool_use"'; then t_pass; else t_fail "rc=$(rc) out=$(cat "$D/out") err=$(cat "$D/err")"; fi

t_start prov-mock-textgen-loop "the mock's generated answer folds whole, and -l serves the script again"
mock_dir
echo "textgen 300000 30" > "$D/script"
mock_serve 20 -l
pc
cp "$D/out" "$D/out1"
pc --drop-text
mock_stop
# 30 characters a delta, each delta about 160 bytes of stream: some 1,800
# deltas; the whole text is kept the first time, dropped the second.
n1=$(grep -o 'The quick brown fox jumps over' "$D/out1" | wc -l)
if [ "$(rc)" = 0 ] && [ "$(nreq)" = 2 ] && [ "$n1" -gt 3000 ] && grep -qF '"stop_reason":"end_turn"' "$D/out1" &&
	out_has '"content":[]' && out_has '"stop_reason":"end_turn"'; then
	t_pass
else
	t_fail "rc=$(rc) n=$(nreq) n1=$n1 err=$(cat "$D/err")"
fi

t_start prov-short-key "a key that is part of 'text/event-stream' (a placeholder such as 'stream' for a local proxy; keys under 6 bytes are refused since prov-short-key-refused) does not turn the answer's content type into a refusal: the type is judged as sent, the key masked only where it is shown (before: 'not an event stream')"
mock_start <<EOF2
sse $FX/text.sse
sse $FX/text.sse
EOF2
bad=""
for KEY in stream text/event; do
	pc
	[ "$(rc)" = 0 ] && out_has '"streamed":"Hello, world' || bad="$bad [$KEY: rc=$(rc) $(cat "$D/err")]"
done
KEY=
mock_stop
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

# raw_answer STATUS EXTRA-HEADER BODY-FILE: a whole HTTP response, for the
# mock's raw step, with EXTRA-HEADER (one "Name: value" line, or "") and
# BODY-FILE's bytes as its body (Content-Length)
raw_answer() {
	printf 'HTTP/1.1 %s\r\nContent-Type: %s\r\n' "$1" "$(case $1 in 2*) echo text/event-stream;; *) echo application/json;; esac)"
	[ -n "$2" ] && printf '%s\r\n' "$2"
	printf 'Content-Length: %s\r\nConnection: close\r\n\r\n' "$(wc -c < "$3")"
	cat "$3"
}

t_start prov-unasked-encoding "an answer compressed (Content-Encoding: gzip) though sandbx sent no Accept-Encoding is named as such and not retried; an error body so compressed is named, not shown as noise; Content-Encoding: identity is read as usual (before: 'connection lost: the stream ended before the answer began', asked again up to 4 times)"
gzip -c < "$FX/text.sse" > "$TMP/text.sse.gz"
raw_answer "200 OK" "Content-Encoding: gzip" "$TMP/text.sse.gz" > "$TMP/gz200.raw"
gzip -c < "$TMP/e400.json" > "$TMP/e400.json.gz"
raw_answer "400 Bad Request" "Content-Encoding: gzip" "$TMP/e400.json.gz" > "$TMP/gz400.raw"
raw_answer "200 OK" "Content-Encoding: identity" "$FX/text.sse" > "$TMP/id200.raw"
bad=""
mock_start <<EOF2
raw $TMP/gz200.raw 0 0 0
raw $TMP/gz200.raw 0 0 0
EOF2
pc --retries 1 --backoff-ms 20
mock_stop
{ [ "$(rc)" = 1 ] && err_has "the model provider sent its answer compressed (Content-Encoding: gzip), which sandbx did not ask for and does not decode — the round failed, not retried; check --base-url" &&
  [ "$(nreq)" = 1 ] && ! err_has "retry" && ! grep -qi '^accept-encoding' "$D/req-1.head"; } ||
	bad="$bad|gzip 200: rc=$(rc) requests=$(nreq) $(cat "$D/err")"
mock_start <<EOF2
raw $TMP/gz400.raw 0 0 0
EOF2
pc --retries 1 --backoff-ms 20
mock_stop
{ [ "$(rc)" = 1 ] && err_has "refused the request: HTTP 400 (a body in Content-Encoding gzip, which sandbx did not ask for)" &&
  [ "$(nreq)" = 1 ]; } || bad="$bad|gzip 400: rc=$(rc) requests=$(nreq) $(cat "$D/err")"
mock_start <<EOF2
raw $TMP/id200.raw 0 0 0
EOF2
pc --retries 0
mock_stop
{ [ "$(rc)" = 0 ] && out_has '"streamed":"Hello, world'; } || bad="$bad|identity: rc=$(rc) $(cat "$D/err")"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start prov-header-line-cap "a response header line over libcurl's 100 KiB cap (CURL_MAX_HTTP_HEADER) is named as that cap, on a 200 or a 503, and not retried; a 90 KiB line is read as usual (before: 'connection lost: Out of memory', asked again up to 4 times)"
big() { head -c "$1" /dev/zero | tr '\0' x; }
raw_answer "200 OK" "X-Padding: $(big 112640)" "$FX/text.sse" > "$TMP/cap200.raw"
raw_answer "503 Service Unavailable" "X-Padding: $(big 112640)" "$TMP/e503.json" > "$TMP/cap503.raw"
raw_answer "200 OK" "X-Padding: $(big 92160)" "$FX/text.sse" > "$TMP/under.raw"
bad=""
for st in 200 503; do
	mock_start <<EOF2
raw $TMP/cap$st.raw 0 0 0
raw $TMP/cap$st.raw 0 0 0
EOF2
	pc --retries 1 --backoff-ms 20
	mock_stop
	{ [ "$(rc)" = 1 ] && err_has "sent a response header line longer than libcurl's 100 KiB cap (CURL_MAX_HTTP_HEADER) in its HTTP $st answer — the round failed, not retried" &&
	  [ "$(nreq)" = 1 ] && ! err_has "Out of memory" && ! err_has "retry"; } || bad="$bad|$st: rc=$(rc) requests=$(nreq) $(cat "$D/err")"
done
mock_start <<EOF2
raw $TMP/under.raw 0 0 0
EOF2
pc --retries 0
mock_stop
{ [ "$(rc)" = 0 ] && out_has '"streamed":"Hello, world'; } || bad="$bad|90 KiB: rc=$(rc) $(cat "$D/err")"
if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi

t_start prov-tls-plain "https to a loopback server that speaks plain http: the round fails saying to check that the server speaks TLS (http:// for one without it), not that the provider has trouble"
python3 - "$TMP/plain.port" <<'PY' &
import os, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); s.settimeout(8)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
try:
    while True:
        c, _ = s.accept(); c.settimeout(3)
        try:
            c.recv(65536)
            c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        c.close()
except OSError:
    pass
PY
plain=$!
i=0; while [ ! -s "$TMP/plain.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
mock_dir
ANTHROPIC_API_KEY=sk-test-key "$PC" --base-url "https://127.0.0.1:$(cat "$TMP/plain.port")" --prompt hi \
	--backoff-ms 20 --retries 1 >"$D/out" 2>"$D/err"
echo $? > "$D/rc"
kill "$plain" 2>/dev/null; wait "$plain" 2>/dev/null
if [ "$(rc)" = 1 ] && err_has 'connection failed' && err_has "; check that the server at 'https://127.0.0.1:" &&
	err_has "speaks TLS (one on loopback without it takes http://)" && ! err_has 'the provider has trouble'; then t_pass
else t_fail "rc=$(rc) err=$(cat "$D/err")"; fi

t_done
