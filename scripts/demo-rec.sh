#!/bin/sh
# make demo, software events: run the instrumented example, read its trace
# with trawl (and babeltrace2 when installed), then stream it live.
set -eu
build=${1:-build}
T="$PWD/$build/trawl"
D="$PWD/$build/rec/rec-demo/rec-demo"
out="$PWD/$build/demo-rec"
rm -rf "$out"
mkdir -p "$out"
echo "== software events: examples/rec-demo (events from examples/rec-demo/demo.tdef)"
"$D" --threads 2 --packets 1000 --out "$out/trace"
echo "== trawl events stats"
"$T" events stats "$out/trace"
echo "== trawl events list (first 8)"
"$T" events list "$out/trace" --limit 8
if command -v babeltrace2 >/dev/null 2>&1; then
	echo "== babeltrace2 reads the same trace (first 3)"
	babeltrace2 "$out/trace" | head -3
fi
echo "== live: trawl listen, then the program with TRAWL_REC_STREAM"
"$T" listen --port 0 --count 1 -o "$out/live" 2>"$out/listen.log" &
lp=$!
port=
for i in 1 2 3 4 5 6 7 8 9 10; do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out/listen.log")
	[ -n "$port" ] && break
	sleep 0.2
done
TRAWL_REC_STREAM="127.0.0.1:$port" "$D" --threads 3 --packets 500 --out "$out/fallback"
wait $lp
cat "$out/listen.log"
"$T" events stats "$out/live" | head -4
