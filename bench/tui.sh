#!/bin/sh
# bench/tui.sh — the interactive screen: time from start to the first drawn
# screen (median of 10 starts), idle RSS after 5 s, and RSS after a 5 MB
# answer streamed into the transcript, in a 200x50 pseudo-terminal, side by
# side with Claude Code and Codex when they are installed.
#
#   bench/tui.sh [BUILD_DIR]        (default build/; needs its testtools)
#   CLAUDE_BIN=... CODEX_BIN=... bench/tui.sh build-x
#
# Rows:
#   ncfloor   a bare ncursesw program drawing a similar screen (the floor)
#   tuifake   the real screen (src/tui) with a scripted turn: no network
#   sandbx    `sandbx tui` against the loopback mock provider (when the
#             agent's turn loop is built)
#   claude    Claude Code (CLAUDE_BIN, default /tmp/peers/node_modules/.bin/
#             claude), ANTHROPIC_BASE_URL at the same loopback mock
#   codex     Codex (CODEX_BIN, default /tmp/peers/node_modules/.bin/codex),
#             a custom model provider whose base_url is the loopback mock;
#             its idle RSS counts the app-server daemon it starts
#   codex-nd  the same with --disable daemon_auto_start (no daemon)
# A peer that is not found is skipped (RUN_PEERS=0 skips both).  Install the
# peers outside the repository, never in it:
#   mkdir -p /tmp/peers && cd /tmp/peers &&
#   npm install --no-audit --no-fund @anthropic-ai/claude-code @openai/codex
# Notes on how the peers are started and what cannot be measured for them:
# bench/tui-peers.md.
#
# ptytime (tests/tools) times the pty output: the first screen is drawn when
# a string of its last-drawn line is written ("ready" in sandbx's status
# line, "/effort" and "for shortcuts" in Claude Code's and Codex's footers).  RSS is the sum of VmRSS
# over the whole process tree under the pty (and, for Codex, its app-server
# daemon), read from /proc by this script: a node launcher or a helper
# process counts.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(realpath "${1:-$here/../build}")
T=$B/testtools
for t in "$B/sandbx" "$T/ptytime" "$T/ncfloor" "$T/tuifake" "$T/mockprov"; do
	[ -x "$t" ] || { echo "bench: missing $t — build with make B=$B" >&2; exit 1; }
done
command -v stdbuf >/dev/null || { echo "bench: missing stdbuf — install coreutils" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/sbxtui.XXXXXX")
dir=$(cd "$dir" && pwd -P)
MOCKPID=
cleanup() {
	[ -z "$MOCKPID" ] || kill "$MOCKPID" 2>/dev/null || true
	stop_under_dir
	sock=$(readlink "$dir/codex/app-server-control/app-server-control.sock" 2>/dev/null || true)
	case $sock in /tmp/codex-daemon-*/?*) rm -f "$sock" ;; esac
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export LANG=C.UTF-8 TERM=xterm-256color
SIZE=200x50
RUNS=${RUNS:-10}
PEERS=/tmp/peers/node_modules/.bin
CLAUDE_BIN=${CLAUDE_BIN:-$PEERS/claude}
CODEX_BIN=${CODEX_BIN:-$PEERS/codex}
[ "${RUN_PEERS:-1}" = 1 ] || CLAUDE_BIN= CODEX_BIN=

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/^$1=//p"; }
mib() { awk "BEGIN{printf \"%.1f\", $1/1024}"; }

# Processes whose program lies in $dir (Codex's app-server daemon runs from
# a copy of itself under CODEX_HOME and outlives the TUI that started it).
under_dir() { find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$dir/*" 2>/dev/null | cut -d/ -f3; }
stop_under_dir() { # Codex's updater restarts its daemon: until none is left
	i=0
	while [ $i -lt 30 ]; do
		ps=$(under_dir)
		[ -n "$ps" ] || return 0
		sig=TERM
		[ $i -lt 10 ] || sig=KILL
		kill -s $sig $ps 2>/dev/null || true
		sleep 0.1
		i=$((i + 1))
	done
}
# The descendants of PID (not PID itself), from /proc/*/stat.
descendants() {
	root=$1
	for s in /proc/[0-9]*/stat; do
		read -r l 2>/dev/null < "$s" || continue
		p=${s#/proc/}
		set -- ${l##*) }
		echo "${p%/stat} $2"
	done | awk -v root="$root" '{pp[$1] = $2}
		END {t[root] = 1; do {n = 0; for (p in pp) if (!(p in t) && (pp[p] in t)) {t[p] = 1; n++}} while (n)
		     for (p in t) if (p != root) print p}'
}
# The summed VmRSS (KiB) of ptytime PID's process tree plus under_dir; each
# process's share ("argv0 argv1 argv2" shortened, MiB) goes to $dir/parts.
tree_kib() {
	sum=0
	: > "$dir/parts"
	for p in $( (descendants "$1"; under_dir) | sort -u); do
		v=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$p/status" 2>/dev/null || true)
		[ -n "$v" ] || continue
		sum=$((sum + v))
		what=$(tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null | head -3 | sed 's,.*/,,' | tr '\n' ' ' | cut -c1-40)
		printf '%s%s\n' "${what:-?}" "$(mib "$v")" >> "$dir/parts"
	done
	echo $sum
}
# ptyrun WHEN DELAY PTYTIME-ARG...: run ptytime in $dir/work, its output
# line-buffered in $dir/out; DELAY seconds after its line WHEN=... appears,
# store the tree's RSS (KiB) in $dir/tree (0 if WHEN never came).  stdbuf's
# LD_PRELOAD is kept from the program measured by the "env -u" in front.
ptyrun() {
	when=$1 delay=$2
	shift 2
	echo 0 > "$dir/tree"
	(cd "$dir/work" && exec stdbuf -oL "$T/ptytime" -s $SIZE "$@") > "$dir/out" &
	pp=$!
	while kill -0 $pp 2>/dev/null && ! grep -q "^$when=" "$dir/out"; do sleep 0.05; done
	if grep -q "^$when=" "$dir/out"; then
		sleep "$delay"
		tree_kib $pp > "$dir/tree"
	fi
	wait $pp || true
}
NOPRE="env -u LD_PRELOAD -u _STDBUF_O"

printf 'stream 5242880\ntext Done.\\n\nend end_turn\n' > "$dir/fake5.s"
: > "$dir/idle.s"

sse_head() {
	printf 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_b","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
	printf 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
}
sse_tail() {
	printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done.\\n"}}\n\n'
	printf 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
	printf 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":99}}\n\n'
	printf 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
}
# The mock's 5 MB answer: text deltas of 200 bytes; and a short one.
{
	sse_head
	i=0
	line=$(printf 'lorem ipsum dolor sit amet %.0s' 1 2 3 4 5 6 7)
	while [ $i -lt 26215 ]; do
		printf 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s\\n"}}\n\n' "$line"
		i=$((i + 1))
	done
	sse_tail
} > "$dir/big.sse"
{ sse_head; sse_tail; } > "$dir/small.sse"

has_agent=1
(cd "$dir" && ANTHROPIC_API_KEY=sk-bench "$B/sandbx" agent-run -- hi 2>&1 </dev/null) | grep -q "not built yet" && has_agent=0

mock() { # [-l] FILE...: start a mock serving the steps "sse FILE" given
	# (-l: again and again); sets PORT
	loop=
	[ "$1" != -l ] || { loop=-l; shift; }
	: > "$dir/mock.script"
	for f; do printf 'sse %s\n' "$f" >> "$dir/mock.script"; done
	rm -rf "$dir/port" "$dir/m"
	mkdir "$dir/m"
	"$T/mockprov" $loop -s "$dir/mock.script" -d "$dir/m" -p "$dir/port" -t 300 2>/dev/null &
	MOCKPID=$!
	i=0
	while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$dir/port" ] || { echo "bench: the mock provider did not start" >&2; exit 1; }
	PORT=$(cat "$dir/port")
}
unmock() { kill "$MOCKPID" 2>/dev/null || true; wait "$MOCKPID" 2>/dev/null || true; MOCKPID=; }
mock_n() { # N FILE: N steps of FILE
	n=$1 f=$2
	set --
	while [ $n -gt 0 ]; do set -- "$@" "$f"; n=$((n - 1)); done
	mock "$@"
}
mkdir -p "$dir/work" "$dir/home"
SBX="env HOME=$dir/home ANTHROPIC_API_KEY=sk-bench $B/sandbx tui"

# row NAME TEXT QUIT CMD...: first screen (TEXT drawn) median of RUNS starts,
# then idle tree RSS 5 s after the first screen; sets FIRST and IDLE (MiB)
row() {
	name=$1 text=$2 quit=$3
	shift 3
	: > "$dir/first"
	r=0
	while [ $r -lt "$RUNS" ]; do
		ms=$(cd "$dir/work" && "$T/ptytime" -s $SIZE -f "$text" -q "$quit" -- "$@" | field first_ms)
		[ -n "$ms" ] || break # 60 s without TEXT: another version's screen?
		echo "$ms" >> "$dir/first"
		r=$((r + 1))
	done
	if [ ! -s "$dir/first" ]; then
		FIRST=timeout IDLE=- AFTER=-
		printf '%-9s %14s %14s' "$name" "no '$text'" -
		return 0
	fi
	FIRST=$(median < "$dir/first")
	ptyrun first_ms 4.8 -f "$text" -i 5 -q "$quit" -- $NOPRE "$@"
	IDLE=$(mib "$(cat "$dir/tree")")
	[ "$(wc -l < "$dir/parts")" -lt 2 ] || PARTS="$PARTS$name idle: $(sed 's/$/ MiB/' "$dir/parts" | paste -sd+ - | sed 's/+/ + /g')
"
	printf '%-9s %14s %14s' "$name" "$FIRST" "$IDLE"
}
# stream TEXT QUIT CMD...: type "go", wait for "Done." after the 5 MB answer;
# prints the tree RSS then (and the direct child's peak) and the stream time
stream() {
	text=$1 quit=$2
	shift 2
	ptyrun done_ms 0 -f "$text" -k 'go\r' -d 'Done.' -q "$quit" -- $NOPRE "$@"
	if grep -q '^done_ms=' "$dir/out"; then
		AFTER=$(mib "$(cat "$dir/tree")")
		printf ' %18s %14s\n' "$AFTER (peak $(field peak_rss_kib < "$dir/out" | awk '{printf "%.1f", $1/1024}'))" \
			"$(field done_ms < "$dir/out")"
	else
		AFTER=-
		printf ' %18s %14s\n' "$(head -1 "$dir/out")" -
	fi
}

PARTS=
printf '%-9s %14s %14s %18s %14s\n' case first_ms_med idle_rss_mib rss_after_5MB_mib stream_ms
row ncfloor ready '\d' "$T/ncfloor"
printf ' %18s %14s\n' - -
row tuifake ready '\d' "$T/tuifake" "$dir/idle.s"
stream ready '\d' "$T/tuifake" "$dir/fake5.s"
S_FIRST= S_IDLE= S_AFTER=
if [ $has_agent = 1 ]; then
	mock_n 100 "$dir/big.sse"
	row sandbx ready '\d' $SBX --base-url "http://127.0.0.1:$PORT"
	unmock
	mock "$dir/big.sse"
	stream ready '\d' $SBX --base-url "http://127.0.0.1:$PORT"
	unmock
	S_FIRST=$FIRST S_IDLE=$IDLE S_AFTER=$AFTER
else
	echo "sandbx    (the agent's turn loop is not built yet: sandbx tui cannot start; rows above use the same screen code)"
fi

RATIOS=
ratio() { # NAME: sandbx's share of the peer's figures just measured
	RATIOS="$RATIOS$(printf '%-9s %14s %14s %18s' "$1" \
		"$(awk -v s="$S_FIRST" -v p="$FIRST" 'BEGIN {print (s + 0 > 0 && p + 0 > 0) ? sprintf("1/%.1f", p / s) : "-"}')" \
		"$(awk -v s="$S_IDLE" -v p="$IDLE" 'BEGIN {print (s + 0 > 0 && p + 0 > 0) ? sprintf("1/%.1f", p / s) : "-"}')" \
		"$(awk -v s="$S_AFTER" -v p="$AFTER" 'BEGIN {print (s + 0 > 0 && p + 0 > 0) ? sprintf("1/%.1f", p / s) : "-"}')")
"
}

# Claude Code: a home of its own with onboarding done, this work directory
# trusted and the dummy key approved (its last 20 characters), so the first
# screen is the main one; no autoupdater, telemetry or other traffic.
if [ -n "$CLAUDE_BIN" ] && [ -x "$CLAUDE_BIN" ]; then
	key=sk-ant-bench-00000000000000000000000000
	mkdir -p "$dir/claude"
	printf '{"hasCompletedOnboarding": true, "theme": "dark", "customApiKeyResponses": {"approved": ["%s"], "rejected": []}, "projects": {"%s": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []}}}\n' \
		"$(printf %s "$key" | tail -c 20)" "$dir/work" > "$dir/claude/.claude.json"
	CL="env -u CLAUDE_CONFIG_DIR -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_MODEL HOME=$dir/claude XDG_CONFIG_HOME=$dir/claude/.config
		ANTHROPIC_API_KEY=$key DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
		DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 $CLAUDE_BIN"
	# It draws the footer's "/effort" last; spaces are cursor moves.
	# It sends HEAD / at start, then POST /v1/messages per prompt.
	mock_n 100 "$dir/small.sse"
	row claude /effort '\d\d' env ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" $CL
	unmock
	if [ "$FIRST" = timeout ]; then
		printf ' %18s %14s\n' - -
	else
		mock "$dir/small.sse" "$dir/big.sse"
		stream /effort '\d\d' env ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" $CL
		unmock
		grep -q '^POST /v1/messages' "$dir/m/req-2.head" 2>/dev/null ||
			echo "claude    (warning: the 5 MB answer did not go to its POST /v1/messages: $(head -c 60 "$dir/m/req-2.head" 2>/dev/null || true))"
	fi
	ratio claude
else
	echo "claude    (not found: ${CLAUDE_BIN:-RUN_PEERS=0}; skipped)"
fi

# Codex: CODEX_HOME of its own whose config selects a custom provider at
# the loopback mock (no login needed: the key comes from MOCK_API_KEY) and
# trusts the work directory.  It speaks the OpenAI Responses API, which the
# mock does not, so no 5 MB answer.  Its TUI starts an app-server daemon
# (from a copy of itself under CODEX_HOME) that outlives it: an unmeasured
# first start warms it up, its RSS counts, and it is stopped at the end.
if [ -n "$CODEX_BIN" ] && [ -x "$CODEX_BIN" ]; then
	mkdir -p "$dir/codex/home"
	mock -l "$dir/small.sse"
	cat > "$dir/codex/config.toml" <<EOF
model = "gpt-bench"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$PORT/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[projects."$dir/work"]
trust_level = "trusted"
EOF
	CX="env -u OPENAI_API_KEY -u OPENAI_BASE_URL HOME=$dir/codex/home CODEX_HOME=$dir/codex MOCK_API_KEY=sk-bench $CODEX_BIN"
	(cd "$dir/work" && "$T/ptytime" -s $SIZE -f 'for shortcuts' -- $CX > /dev/null) || true
	row codex 'for shortcuts' '\d' $CX
	AFTER=-
	printf ' %18s %14s\n' "- (no Responses API mock)" -
	ratio codex
	# The same without the daemon (its TUI then runs the app server in
	# process): the lightest Codex can be made to start.
	stop_under_dir
	row codex-nd 'for shortcuts' '\d' $CX --disable daemon_auto_start
	printf ' %18s %14s\n' "- (no Responses API mock)" -
	ratio codex-nd
	unmock
else
	echo "codex     (not found: ${CODEX_BIN:-RUN_PEERS=0}; skipped)"
fi

[ -z "$PARTS" ] || { echo; echo "processes in the idle RSS (VmRSS each; shared pages count in each):"; printf '%s' "$PARTS"; }
if [ -n "$RATIOS" ] && [ -n "$S_FIRST" ]; then
	echo
	echo "sandbx / peer (1/N: sandbx is N times faster or lighter)"
	printf '%-9s %14s %14s %18s\n' peer first_ms idle_rss rss_after_5MB
	printf '%s' "$RATIOS"
fi
echo "targets: first screen < 50 ms, idle RSS < 12 MiB, < 40 MiB after the 5 MB answer"
