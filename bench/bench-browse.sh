#!/bin/sh
# trawl browse on a trace of more than 1 GB: how long each key press that
# moves or jumps takes to redraw, and how long an already-indexed trace
# takes to show its first screen; peak memory against a trace ten times
# smaller. Baseline in the same run: a one-shot `trawl regs --at LINE` (a
# fresh process opening the index and answering one query), the cheapest
# thing a person could run instead of the browser.
#
# Two measurements of the keys:
#  - inside: --bench-keys plays a key script and times, for each key, the
#    handling plus the redraw written to the terminal (tmux);
#  - outside: tmux send-keys, then capture-pane polled until the status line
#    changes (includes tmux's own latency and the polling interval).
#
# The trace is written by `trawl emulate` running examples/recurse (real
# calls and returns); without the cross-compiled examples, the synthetic
# Fast-Models-style generator (bench/gen-tarmac.c) is used instead.
set -u
build=${TRAWL_BUILD:-build}
out=${TRAWL_BENCH_OUT:-bench/out}/browse
trawl=${TRAWL:-$build/trawl}
mkdir -p "$out"
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 0; }

prog="$build/examples/recurse"
if [ -x "$prog" ]; then
	big="$out/recurse-14.tarmac" small="$out/recurse-10.tarmac"
	[ -s "$big" ] || "$trawl" emulate "$prog" -o "$big" -- 14 >/dev/null 2>&1 || exit 1
	[ -s "$small" ] || "$trawl" emulate "$prog" -o "$small" -- 10 >/dev/null 2>&1 || exit 1
	image="--image $prog"
	func=fib
else
	big="$out/gen-1100.tarmac" small="$out/gen-110.tarmac"
	[ -s "$big" ] || "$build/bench-gen-tarmac" 1100 >"$big" || exit 1
	[ -s "$small" ] || "$build/bench-gen-tarmac" 110 >"$small" || exit 1
	image=""
	func=0x80000
fi
bytes=$(wc -c <"$big")
[ "$bytes" -ge 1000000000 ] || echo "note: trace is only $bytes bytes"
t0=$(date +%s%N)
for f in "$big" "$small"; do
	"$trawl" index "$f" >/dev/null || exit 1
	# an index left by an older build may open but fail queries: rebuild it
	"$trawl" regs "$f" --at 100 >/dev/null 2>&1 || "$trawl" index --force "$f" >/dev/null || exit 1
done
t1=$(date +%s%N)
lines=$("$trawl" info "$big" | awk -F: '/^lines/ { gsub(/ /, "", $2); print $2 }')
[ -n "$lines" ] || lines=$(wc -l <"$big")
mid=$((lines / 2))
q1=$((lines / 4))
midtime=$("$trawl" regs "$big" --at "$mid" --json | sed -n 's/.*"line":\([0-9]*\).*/\1/p')
echo "trace: $(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }'), $lines lines (index ready in $(( (t1 - t0) / 1000000 )) ms, built if it was missing)"

# baseline: one-shot trawl regs at a line (fresh process, index in page cache)
: >"$out/base.txt"
for i in 1 2 3 4 5 6 7; do
	a=$(date +%s%N)
	"$trawl" regs "$big" --at $((q1 + i * 1000)) >/dev/null || exit 1
	b=$(date +%s%N)
	echo $(( (b - a) / 1000 )) >>"$out/base.txt"
done
base_ms=$(sort -n "$out/base.txt" | sed -n 4p | awk '{ printf "%.2f", $1 / 1000 }')

sock="$out/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
trap 'tmux -S "$sock" kill-server 2>/dev/null' EXIT

# the key script: steps, pages, ends, jumps by line and time, PC visits,
# step over/out, folds, register and memory time travel, text search
nl='
'
keys="jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjkkkkkkkkkkkkkkkkkkkk          bbbbbbbbbbGgGg"
keys="${keys}l${mid}${nl}jjjjjkkkkkl${q1}${nl}t${mid}${nl}"
keys="${keys}p${func}${nl}nnnnnnnnnnNNNNN"
keys="${keys}sssssssssSSSSSuu"
keys="${keys}fjjjjjkkkkkf"
keys="${keys}	wwwwwWWWWW"
keys="${keys}msp - 64${nl}wwwWWW[[[[[]]]]]"
keys="${keys}l${mid}${nl}/ret${nl}nnnnn?bl ${nl}NNNN"
keys="${keys}vjjjjjzjjjjjz"

# run_keys TRACE OUTFILE: --bench-keys inside tmux, with peak RSS
run_keys() {
	tm kill-server 2>/dev/null
	rm -f "$sock"
	tm -f /dev/null new-session -d -s b -x 160 -y 50 \
		"/usr/bin/time -f %M -o '$2.rss' '$trawl' browse '$1' $image --bench-keys '$keys' --bench-out '$2'; tmux -S '$sock' wait-for -S done" || exit 1
	timeout 600 tmux -S "$sock" wait-for done
	tm kill-server 2>/dev/null
}
run_keys "$big" "$out/keys-big.txt"
run_keys "$small" "$out/keys-small.txt"
[ -s "$out/keys-big.txt" ] || { echo "no timings written"; exit 1; }

# outside view: key to screen through tmux
tm kill-server 2>/dev/null
rm -f "$sock"
a=$(date +%s%N)
tm -f /dev/null new-session -d -s b -x 160 -y 50 "'$trawl' browse '$big' $image; sleep 600"
while ! tm capture-pane -p -t b 2>/dev/null | tail -1 | grep -q "^line "; do :; done
b=$(date +%s%N)
first_outside=$(( (b - a) / 1000 ))
status() { tm capture-pane -p -t b | tail -1; }
: >"$out/outside.txt"
i=0
while [ $i -lt 30 ]; do
	before=$(status)
	case $((i % 3)) in
	0) set -- j ;;
	1) set -- l "$((q1 + i * 997))" Enter ;;
	2) set -- k ;;
	esac
	if [ "$1" = l ]; then
		tm send-keys -t b l; tm send-keys -t b -l "$2"
		# time from Enter, the key that makes the jump
		a=$(date +%s%N); tm send-keys -t b Enter
	else
		a=$(date +%s%N); tm send-keys -t b "$1"
	fi
	while [ "$(status)" = "$before" ]; do :; done
	b=$(date +%s%N)
	echo $(( (b - a) / 1000 )) >>"$out/outside.txt"
	i=$((i + 1))
done
# how long one capture-pane takes: the resolution of the outside figure
a=$(date +%s%N); for i in 1 2 3 4 5 6 7 8 9 10; do status >/dev/null; done; b=$(date +%s%N)
poll_us=$(( (b - a) / 10000 ))
tm send-keys -t b q
tm kill-server 2>/dev/null

awk -v base="$base_ms" -v fo="$first_outside" -v poll="$poll_us" \
    -v rb="$(cat "$out/keys-big.txt.rss")" -v rs="$(cat "$out/keys-small.txt.rss")" \
    -v ab="$(awk '$2 == "RssAnon" { print $3 }' "$out/keys-big.txt")" \
    -v as="$(awk '$2 == "RssAnon" { print $3 }' "$out/keys-small.txt")" \
    -v fb="$(awk '$2 == "RssFile" { print $3 }' "$out/keys-big.txt")" \
    -v fs="$(awk '$2 == "RssFile" { print $3 }' "$out/keys-small.txt")" \
    -v bb="$bytes" -v sb="$(wc -c <"$small")" -v of="$out/outside.txt" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n ? a[int((n + 1) / 2)] : 0
}
/^first_screen_ms/ { first = $2 }
/^key / {
	n++; v[n] = $3; all[n] = $3
	k = $2; cnt[k]++; if ($3 > mx[k]) mx[k] = $3
	if ($3 > max) { max = $3; maxkey = k }
	if ($3 >= 50) over++
}
END {
	while ((getline x < of) > 0) { m++; o[m] = x / 1000 }
	med = median(v, n)
	printf "first screen of an indexed trace: %.1f ms inside (process start to drawn), %.1f ms seen through tmux   target < 200 ms   (%.1fx the one-shot regs query)\n", first, fo / 1000, first / base
	printf "key redraw (inside, %d keys): median %.2f ms, max %.2f ms (key %s), %d over 50 ms   target < 50 ms each\n", n, med, max, maxkey, over + 0
	printf "key to screen (outside via tmux, %d keys j/k/line jumps): median %.1f ms (one capture-pane poll takes %.1f ms)\n", m, median(o, m), poll / 1000
	printf "baseline: one-shot trawl regs --at LINE: %.2f ms; median key redraw is %.3fx of it\n", base, med / base
	printf "slowest redraw per key:"
	for (k in mx) printf " %s=%.1f", k, mx[k]
	printf " (ms)\n"
	printf "memory of the browser itself (RssAnon at exit): %.1f MB on %.2f GB, %.1f MB on %.2f GB (ratio %.2f for a %.0fx larger trace)   target: independent of size\n", ab / 1024, bb / 1e9, as / 1024, sb / 1e9, ab / as, bb / sb
	printf "mapped trace+index pages resident (RssFile, shared page cache): %.1f MB vs %.1f MB; peak RSS (time -f %%M) %.1f MB vs %.1f MB\n", fb / 1024, fs / 1024, rb / 1024, rs / 1024
}' "$out/keys-big.txt"
