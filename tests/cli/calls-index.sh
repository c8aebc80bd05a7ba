#!/bin/sh
# --use-index must give the call trees the trace text gives: calltree,
# profile, flamegraph, callinfo and the --debug=calls reasoning, byte for
# byte. The index carries each exception event's reset flag (so the reset
# at the start of an AArch32 Fast Models trace ends frames instead of
# opening an "[exception]" root) and the SP and link-register writes (so
# linkless calls such as MOV lr,pc; B f are found). Truth: the text path,
# and for calltest32 the root its ELF names, _start at 0x200b4.
. "$TRAWL_SRC/tests/cli-lib.sh"

same() { # same TRACE ARGS...: text and --use-index agree on every command
	_t=$1; shift
	for cmd in calltree profile flamegraph "calltree --debug=calls"; do
		# shellcheck disable=SC2086 # cmd is split into words on purpose
		"$TRAWL" $cmd "$@" "$_t" >"$_tmp/text" 2>&1
		# shellcheck disable=SC2086
		"$TRAWL" $cmd --use-index "$@" "$_t" >"$_tmp/ix" 2>&1
		cmp -s "$_tmp/text" "$_tmp/ix" || fail "$(basename "$_t") $cmd: --use-index differs:
$(diff "$_tmp/text" "$_tmp/ix" | head -20)"
	done
}

# hand-made traces (A64, A32 with linkless calls, two CPUs)
for f in calls-a64 calls-a32 calls-2cpu; do
	cp "$TRAWL_SRC/tests/data/$f.tarmac" "$_tmp/$f.tarmac"
	same "$_tmp/$f.tarmac"
done

C32="${TRAWL_CORPUS:-}/tarmac/calltests/calltest32"
if [ ! -f "$C32.tarmac" ]; then
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
	finish
fi
cp "$C32.tarmac" "$_tmp/c32.tarmac"
same "$_tmp/c32.tarmac" --image "$C32.elf"
"$TRAWL" callinfo --image "$C32.elf" "$_tmp/c32.tarmac" leaf_bx_lr >"$_tmp/text" 2>&1
"$TRAWL" callinfo --use-index --image "$C32.elf" "$_tmp/c32.tarmac" leaf_bx_lr >"$_tmp/ix" 2>&1
cmp -s "$_tmp/text" "$_tmp/ix" || fail "callinfo leaf_bx_lr: --use-index differs:
$(diff "$_tmp/text" "$_tmp/ix")"
# the root frame: the reset at line 51 ends nothing (no frame yet); the
# first instruction, at _start, opens the root
"$TRAWL" calltree --use-index --image "$C32.elf" "$_tmp/c32.tarmac" >"$_tmp/ix"
head -1 "$_tmp/ix" | grep -q '^_start @0x200b4  lines 52-' ||
	fail "calltree --use-index root is not _start @0x200b4 from line 52: $(head -1 "$_tmp/ix")"
grep -q '^  nonleaf_pop_lr @0x20148 .*\[linkless\]' "$_tmp/ix" ||
	fail "calltree --use-index misses the linkless call of nonleaf_pop_lr"

# an index built before reset flags were recorded is rebuilt, not trusted:
# the calculator trace starts with a reset too
CALC="${TRAWL_CORPUS:-}/tarmac/calculator-aarch64-fastmodel.tarmac"
cp "$CALC" "$_tmp/calc.tarmac"
same "$_tmp/calc.tarmac" --image "${TRAWL_CORPUS:-}/tarmac/calculator-aarch64.elf"
finish
