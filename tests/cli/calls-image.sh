#!/bin/sh
# The image given to the call commands must hold the code the trace ran:
# a trace of examples/recurse named by examples/sort's symbols gave a tree
# of sort's functions at recurse's addresses, exit 0. Now the trace's own
# encodings are compared with the image's bytes at their PCs: the wrong
# image is a warning (the first differing word, which the test reads from
# the Tarmac line it names) and exit 1, in every call command and with
# --use-index; the right image, and a self-modifying program with its own
# image, pass without a word.
. "$TRAWL_SRC/tests/cli-lib.sh"
E="${TRAWL_BUILD:-}/examples"
[ -x "$E/recurse" ] && [ -x "$E/sort" ] && [ -x "$E/selfmod" ] ||
	skip "examples not built (needs aarch64-linux-gnu-gcc)"
"$TRAWL" emulate "$E/recurse" -o "$_tmp/rec.tarmac" -- 4 >/dev/null 2>&1 || fail "emulate recurse"
for c in calltree profile "callinfo @ main" flamegraph "export --perfetto" "profile --use-index" \
	coverage autofdo "vcd -o /dev/null"; do
	set -- $c
	cmd=$1; shift
	args=$(echo "$*" | sed 's/@//')
	# shellcheck disable=SC2086
	expect_exit 1 "$TRAWL" $cmd --image "$E/sort" "$_tmp/rec.tarmac" $args
	grep -q "warning: the image does not hold the code this trace ran: [0-9]* of the [0-9]* instructions compared differ (first at line [0-9]*" "$_tmp/err" ||
		fail "$c with sort's image: $(cat "$_tmp/err")"
	# the word the message gives for the trace is that line's encoding
	ln=$(sed -n 's/.*first at line \([0-9]*\), pc 0x\([0-9a-f]*\): the trace has \([0-9a-f]*\),.*/\1 \2 \3/p' "$_tmp/err")
	[ -n "$ln" ] || continue
	set -- $ln
	sed -n "$1p" "$_tmp/rec.tarmac" | grep -qi " 0*$2 $3 " || fail "$c: line $1 is not pc $2 with $3: $(sed -n "$1p" "$_tmp/rec.tarmac")"
	# shellcheck disable=SC2086
	expect_exit 0 "$TRAWL" $cmd --image "$E/recurse" "$_tmp/rec.tarmac" $args
	grep -q "does not hold" "$_tmp/err" && fail "$c with its own image warned: $(cat "$_tmp/err")"
done
# an image whose only segment ends below the trace's code names none of it:
# a bare label 0x163c bytes before recurse's entry named recurse's
# functions "far_label+0x..." (its segment, read back with readelf, ends at
# 0x3ff008; recurse's code starts at 0x400000)
if command -v aarch64-linux-gnu-as >/dev/null && command -v aarch64-linux-gnu-ld >/dev/null; then
	printf '.text\n.globl _start\n_start:\n\tnop\nfar_label:\n\tret\n' >"$_tmp/far.s"
	aarch64-linux-gnu-as -o "$_tmp/far.o" "$_tmp/far.s" && aarch64-linux-gnu-ld -Ttext=0x3ff000 -o "$_tmp/far.elf" "$_tmp/far.o" ||
		fail "assembling far.elf"
	set -- $(readelf -lW "$_tmp/far.elf" | awk '$1 == "LOAD" { print $3, $6 }')
	end=$(($1 + $2))
	first=$(awk '$3 == "IT" { print $5; exit }' "$_tmp/rec.tarmac")
	[ "$end" -le "$((0x$first))" ] || fail "far.elf's segment reaches recurse's code ($end, 0x$first)"
	for c in profile calltree flamegraph; do
		"$TRAWL" $c --image "$_tmp/far.elf" "$_tmp/rec.tarmac" >"$_tmp/out" 2>"$_tmp/err"
		grep -q "far_label\|_start\|bss\|_end" "$_tmp/out" && fail "$c named recurse's code after far.elf: $(grep -m1 "far_label\|_start\|bss\|_end" "$_tmp/out")"
	done
fi
# code that rewrites itself (in a page of its own) passes too
"$TRAWL" emulate "$E/selfmod" -o "$_tmp/sm.tarmac" >/dev/null 2>&1 || fail "emulate selfmod"
expect_exit 0 "$TRAWL" calltree --image "$E/selfmod" "$_tmp/sm.tarmac"
grep -q "does not hold" "$_tmp/err" && fail "selfmod with its own image warned: $(cat "$_tmp/err")"
finish
