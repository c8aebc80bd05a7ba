#!/bin/sh
# Memory accesses computed from the decoded instructions (lib/emu/memop.c,
# memcalc.c; the default) against Unicorn's memory hooks (--memory-hooks,
# the old path): the two traces must be the same bytes, on every example
# program (examples/ldst runs every load/store form the decoder models
# once: integer, pairs, literals, exclusives, FP/SIMD registers, LD1-LD4
# and ST1-ST4, single structures, LDnR), the C++ program, busybox applets
# and both trace styles. The default path must not have fallen back to the
# hooks (no "memory hooks" line in --stats), except on `ldst pair`, whose
# LDXP the decoder leaves to the hooks: from that instruction on, as the
# trace's own line numbers say.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples"
[ -x "$ex/ldst" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
cd "$_tmp" || exit 1

# same NAME ARGS...: emulate ARGS both ways, compare the traces' hashes.
# The trace goes through a named pipe, the program's output to /dev/null:
# a program that fstat()s its output must see the same file both times.
mkfifo trace.fifo || exit 1
hashed() { # SUMFILE ERRFILE emulate-args...
	sum=$1 err=$2; shift 2
	md5sum <trace.fifo >"$sum" &
	"$TRAWL" emulate -o trace.fifo --stats "$@" >/dev/null 2>"$err" </dev/null
	wait
}
same() {
	name=$1; shift
	hashed new.sum new.err "$@"
	hashed old.sum old.err --memory-hooks "$@"
	cmp -s new.sum old.sum || fail "$name: traces differ between computed accesses and memory hooks"
	grep -q '^emulate: [1-9][0-9]* instructions' new.err || fail "$name: no --stats line: $(head -c 300 new.err)"
	grep -q "memory hooks from instruction 1 on (--memory-hooks)" old.err ||
		fail "$name: --memory-hooks did not say it used the hooks: $(tail -2 old.err)"
}
computed() { # name: the default run used no hooks
	if grep -q 'memory hooks' new.err; then fail "$1: fell back to memory hooks: $(tail -1 new.err)"; fi
}

# a directory whose listing and times stay put between the runs
mkdir -p dir/sub && printf 'x\n' >dir/a && touch -d '2020-01-02 03:04:05' dir/a dir/sub dir
"$TRAWL" emulate --style none "$ex/syscalls" -- "$_tmp/dir" >/dev/null 2>&1 </dev/null   # moves the access times once
for p in "sort 3000" "checksum" "recurse 10" "simd" "selfmod" "signals" "threads" "threads robust" \
	"threads mask" "syscalls $_tmp/dir" "ldst"; do
	set -- $p
	prog=$1; shift
	same "$p" "$ex/$prog" -- "$@"
	computed "$p"
done
same "faults null" "$ex/faults" -- null
computed "faults null"
same "simd ldst" --style ldst "$ex/simd"
same "ldst ldst" --style ldst "$ex/ldst"
computed "ldst ldst"
if [ -x "$ex/exceptions" ]; then
	same exceptions -n 3000000 "$ex/exceptions" -- 3
	computed exceptions
fi

# the fallback: LDXP/STXP are not modelled; hooks take over at the LDXP
same "ldst pair" "$ex/ldst" -- pair
"$TRAWL" emulate "$ex/ldst" -o pair.tarmac -- pair >/dev/null 2>&1 </dev/null
first=$(awk '$3 == "IT" && / : ldxp / { gsub(/[()]/, "", $4); print $4; exit }' pair.tarmac)
[ -n "$first" ] || fail "no ldxp in the ldst pair trace"
grep -q "memory hooks from instruction $first on; 2 instructions the decoder does not model" new.err ||
	fail "ldst pair: expected hooks from instruction $first (the ldxp), 2 unmodelled: $(tail -1 new.err)"
# the trace really has the pair's accesses (hand-checked shape)
awk -v n="$first" '$1 == n && $3 ~ /^MR8$/ { k++ } END { exit k != 2 }' pair.tarmac ||
	fail "ldst pair: the ldxp does not show two MR8 lines"

bb=${TRAWL_ARM64_ROOT:-$TRAWL_SRC/build-arm64/root}/bin/busybox
if [ -x "$bb" ]; then
	printf 'pear 3\napple 10\nfig 7\napple 10\nbanana 2\nkiwi 7\n' >in.txt
	cat in.txt >/dev/null   # its access time moves once, before both runs see it
	same "busybox awk" "$bb" -- awk 'BEGIN { for (i = 0; i < 300; i++) s += i * i; print s }'
	computed "busybox awk"
	same "busybox sort" "$bb" -- sort -k2n in.txt
	same "busybox sed" "$bb" -- sed -e 's/a/A/g' -e '/fig/d' in.txt
	same "busybox md5sum" "$bb" -- md5sum in.txt
	same "busybox sh" "$bb" -- sh -c 'i=0; while [ $i -lt 50 ]; do i=$((i + 1)); done; echo $i'
	computed "busybox sh"
else
	echo "busybox missing (make deps): its cases skipped"
fi
finish
