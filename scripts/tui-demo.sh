#!/bin/sh
# scripts/tui-demo.sh — `sandbx tui` against the bundled mock provider with a
# scripted conversation, so a new user sees everything work with no API key:
# a read, an approval question for a sandboxed bash call (answer y), a write
# to refuse (answer n, give a reason if you like), and a closing answer.
#
#   scripts/tui-demo.sh [BUILD_DIR]      (default build/; `make demo`)
#
# The mock answers in order whatever you type: type any prompt, press Enter.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(realpath "${1:-$here/../build}")
for t in "$B/sandbx" "$B/testtools/mockprov"; do
	[ -x "$t" ] || { echo "demo: missing $t — run 'make B=$B' first" >&2; exit 1; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/sandbx-demo.XXXXXX")
MOCK=
trap 'kill $MOCK 2>/dev/null || true; rm -rf "$dir"' EXIT INT TERM
mkdir -p "$dir/project" "$dir/home" "$dir/m"
printf '# Demo project\n\nA tiny directory the demo agent may read and change.\n' > "$dir/project/README.md"
printf 'int main(void) { return 0; }\n' > "$dir/project/main.c"

ev() { printf 'event: %s\ndata: %s\n\n' "$1" "$2"; }
start() { ev message_start '{"type":"message_start","message":{"id":"msg_demo","type":"message","role":"assistant","content":[],"model":"mock","usage":{"input_tokens":120,"output_tokens":1}}}'; }
text() { # INDEX TEXT
	ev content_block_start "{\"type\":\"content_block_start\",\"index\":$1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"
	ev content_block_delta "{\"type\":\"content_block_delta\",\"index\":$1,\"delta\":{\"type\":\"text_delta\",\"text\":\"$2\"}}"
	ev content_block_stop "{\"type\":\"content_block_stop\",\"index\":$1}"
}
tool() { # INDEX ID NAME JSON-ESCAPED-INPUT
	ev content_block_start "{\"type\":\"content_block_start\",\"index\":$1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"$2\",\"name\":\"$3\",\"input\":{}}}"
	ev content_block_delta "{\"type\":\"content_block_delta\",\"index\":$1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"$4\"}}"
	ev content_block_stop "{\"type\":\"content_block_stop\",\"index\":$1}"
}
stop() {
	ev message_delta "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"$1\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":42}}"
	ev message_stop '{"type":"message_stop"}'
}
{ start; text 0 "Let me look at the project first."; tool 1 toolu_d1 read '{\"path\": \"README.md\"}'; stop tool_use; } > "$dir/1.sse"
{ start; text 0 "Now I will list the files and compile main.c **inside the sandbox** (no network, only this directory writable)."
  tool 1 toolu_d2 bash '{\"command\": \"ls -la && TMPDIR=. gcc -o demo main.c && echo built demo inside the sandbox\"}'; stop tool_use; } > "$dir/2.sse"
{ start; text 0 "I would also like to add a file. You may refuse this one."
  tool 1 toolu_d3 write '{\"path\": \"NOTES.md\", \"content\": \"# Notes\\nwritten by the demo\\n\"}'; stop tool_use; } > "$dir/3.sse"
{ start; text 0 "## Summary\n\n- I read **README.md**\n- I ran a build in the sandbox\n- the write was up to you\n\n\`\`\`sh\nsandbx tui --allow-tool    # your turn, with a real key\n\`\`\`\n"; stop end_turn; } > "$dir/4.sse"
printf 'sse %s\n' "$dir/1.sse" "$dir/2.sse" "$dir/3.sse" "$dir/4.sse" > "$dir/script"

"$B/testtools/mockprov" -s "$dir/script" -d "$dir/m" -p "$dir/port" -t 3600 2>"$dir/mock.err" &
MOCK=$!
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$dir/port" ] || { echo "demo: the mock provider did not start: $(cat "$dir/mock.err")" >&2; exit 1; }
cd "$dir/project"
# the mock needs no real key; the sandbox grants this project directory only
HOME="$dir/home" XDG_STATE_HOME="$dir/home/state" ANTHROPIC_API_KEY=demo-key-not-real \
	"$B/sandbx" tui --allow-tool --approve call --base-url "http://127.0.0.1:$(cat "$dir/port")" || rc=$?
exit "${rc:-0}"
