#!/bin/sh
# trawl ete encode: every example program (and Debian's busybox when
# build-arm64/ has it) runs under trawl emulate; the encoder turns the
# Tarmac into an ETE snapshot, and
#  - `trawl ete tarmac` of the snapshot must give exactly the emulated PC
#    sequence (the emulator's trace is the truth: it is checked against
#    QEMU in emulate-qemu.sh), with and without timestamps and cycle counts;
#  - Debian's reference decoder (trc_pkt_lister, OpenCSD) must decode the
#    same snapshot to the same instruction ranges, exceptions and contexts
#    as trawl (the comparison of ete-corpus.sh, through ete-norm.awk).
. "$TRAWL_SRC/tests/cli-lib.sh"
t=$_tmp
norm="$TRAWL_SRC/tests/cli/ete-norm.awk"
. "$TRAWL_SRC/tests/cli/ete-ref.inc"
ex="$TRAWL_BUILD/examples"
[ -x "$ex/sort" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
"$TRAWL" emulate --help >/dev/null 2>&1 || skip "trawl built without the emulator"
limit=150000
# the sanitizer build runs the same paths on shorter runs
[ -n "${TRAWL_ASAN:-}" ] && limit=40000



# roundtrip NAME TARMAC PROGRAM [encode options]: the PCs survive the trip
roundtrip() {
	name=$1 tarmac=$2 prog=$3
	shift 3
	snap="$t/$name.snap"
	rm -rf "$snap"
	"$TRAWL" ete encode -q "$@" "$tarmac" --image "$prog" -o "$snap" 2>"$t/err" ||
		{ fail "$name: encode exited $?: $(head -c 300 "$t/err")"; return; }
	"$TRAWL" ete tarmac "$snap" -o "$t/back" 2>"$t/err" ||
		{ fail "$name: ete tarmac exited $?: $(head -c 300 "$t/err")"; return; }
	pcs "$tarmac" >"$t/want"
	pcs "$t/back" >"$t/got"
	[ -s "$t/want" ] || fail "$name: the emulated trace has no instructions"
	cmp -s "$t/want" "$t/got" || fail "$name $*: PCs differ from the emulated run ($(wc -l <"$t/want") vs $(wc -l <"$t/got")): $(diff "$t/want" "$t/got" | head -5)"
	reference "$name $*" "$snap"
}

n=0
for p in "$ex"/*; do
	[ -f "$p" ] && [ -x "$p" ] || continue
	name=$(basename "$p")
	"$TRAWL" emulate -n $limit "$p" -o "$t/$name.tarmac" >/dev/null 2>&1 </dev/null
	[ -s "$t/$name.tarmac" ] || { fail "$name: emulate wrote no trace"; continue; }
	roundtrip "$name" "$t/$name.tarmac" "$p"
	n=$((n + 1))
done
[ $n -ge 5 ] || fail "only $n example programs found in $ex"

# timestamps and cycle counts, a short sync period (many A-Sync + Trace
# Info mid-stream): the same PCs, and OpenCSD still agrees
roundtrip sort-ts "$t/sort.tarmac" "$ex/sort" --timestamps --cycle-counts --sync-period 256
roundtrip sort-sync "$t/sort.tarmac" "$ex/sort" --sync-period 64
# --speculate: commits, cancels and mispredicts made up around the real
# atoms, and depths one beyond MaxSpec (the decoders commit the oldest):
# undone by both decoders, the PCs and OpenCSD's ranges stay the same
roundtrip sort-spec8 "$t/sort.tarmac" "$ex/sort" --speculate 8
roundtrip sort-spec1 "$t/sort.tarmac" "$ex/sort" --speculate 1 --cycle-counts --no-commit-option \
	--sync-period 256
[ -f "$t/threads.tarmac" ] && roundtrip threads-spec "$t/threads.tarmac" "$ex/threads" --speculate 16 --cycle-counts
"$TRAWL" ete stats "$t/sort-spec8.snap" >"$t/st"
for k in COMMIT CANCEL_F1 MISPREDICT; do
	grep -q "^  $k " "$t/st" || fail "--speculate 8: no $k packets: $(cat "$t/st")"
done
grep -q 'TRCIDR8=0x8' "$t/sort-spec8.snap/ETE_0.ini" || fail "--speculate 8: TRCIDR8 not 8"
# the timestamps are the trace's: the first instruction's time comes back
"$TRAWL" ete encode -q --timestamps "$t/sort.tarmac" --image "$ex/sort" -o "$t/ts.snap"
"$TRAWL" ete decode "$t/ts.snap" | awk -F'\t' '$3 == "TIMESTAMP" { print $4; exit }' >"$t/ts"
first=$(grep -m1 -E '^[0-9]+ clk IT ' "$t/sort.tarmac" | awk '{ print $1 }')
[ "$(printf %d "$(cat "$t/ts")")" = "$first" ] || fail "first timestamp $(cat "$t/ts"), expected $first"

# trawl emulate --ete writes what ete encode makes of its Tarmac, byte for
# byte (with timestamps: the instruction indexes), for a program with
# signals (its trampoline is code outside the ELF file) and one with threads
for p in signals threads; do
	[ -x "$ex/$p" ] || continue
	rm -rf "$t/e1" "$t/e2"
	"$TRAWL" emulate -n $limit --ete "$t/e1" --timestamps -o "$t/$p.t2" "$ex/$p" >/dev/null 2>"$t/err" </dev/null ||
		fail "emulate --ete $p exited $?: $(head -c 300 "$t/err")"
	grep -q 'bytes per instruction' "$t/err" || fail "emulate --ete: no summary: $(cat "$t/err")"
	"$TRAWL" ete encode -q --timestamps "$t/$p.t2" --image "$ex/$p" -o "$t/e2"
	diff -r "$t/e1" "$t/e2" >"$t/d" || fail "emulate --ete $p differs from ete encode: $(head -5 "$t/d")"
done
# without -o no Tarmac at all: the program's output is on standard output
rm -rf "$t/e3"
"$TRAWL" emulate --ete "$t/e3" "$ex/sort" -- 5 >"$t/out" 2>/dev/null </dev/null
grep -q ' clk ' "$t/out" && fail "emulate --ete without -o wrote Tarmac to standard output"
[ -s "$t/e3/trace.bin" ] || fail "emulate --ete wrote no trace.bin"
"$TRAWL" emulate -o "$t/s5.tarmac" "$ex/sort" -- 5 >"$t/out2" 2>/dev/null </dev/null
"$TRAWL" ete encode -q "$t/s5.tarmac" --image "$ex/sort" -o "$t/e4"
cmp -s "$t/e3/trace.bin" "$t/e4/trace.bin" || fail "emulate --ete without -o: not the stream of its Tarmac"

# a real program: Debian's static busybox (fetched by make deps)
bb=${TRAWL_ARM64_ROOT:-$TRAWL_SRC/build-arm64/root}/bin/busybox
if [ -x "$bb" ]; then
	printf 'b 2\na 1\nc 3\n' >"$t/in.txt"
	"$TRAWL" emulate -n 400000 "$bb" -o "$t/bb.tarmac" -- sort "$t/in.txt" >/dev/null 2>&1 </dev/null
	roundtrip busybox-sort "$t/bb.tarmac" "$bb"
else
	echo "note: $bb missing (make deps fetches Debian's busybox-static:arm64): busybox skipped"
fi

# the memory dumps hold every loaded segment, byte for byte as readelf
# and dd take it from the ELF file (file bytes, then zeros to its memory
# size): a segment starting inside a page (examples' data, a linker
# script's code) lost its bytes before the next page
# dumpfile ADDR INI: the file of the dump that starts at ADDR
dumpfile() {
	while IFS='=' read -r k v; do
		case $k in
		file) f=$v ;;
		address) a=$((v)) ;;
		length) [ "$a" = "$1" ] && { echo "$f"; return; } ;;
		esac
	done <"$2"
}
if command -v readelf >/dev/null 2>&1; then
	snap="$t/dumps.snap"
	"$TRAWL" emulate -n 1000 --ete "$snap" "$ex/sort" >/dev/null 2>&1 </dev/null
	readelf -lW "$ex/sort" | awk '$1 == "LOAD" { print $2, $3, $5, $6 }' >"$t/segs"
	[ -s "$t/segs" ] || fail "readelf found no LOAD segment in $ex/sort"
	while read -r off va fsz msz; do
		{ tail -c +$((off + 1)) "$ex/sort" | head -c $((fsz)); head -c $((msz - fsz)) /dev/zero; } >"$t/want-seg"
		f=$(dumpfile $((va)) "$snap/cpu_0.ini")
		[ -n "$f" ] || { fail "no dump starts at segment $va: $(grep address= "$snap/cpu_0.ini" | tr '\n' ' ')"; continue; }
		head -c $((msz)) "$snap/$f" | cmp -s - "$t/want-seg" || fail "dump $f differs from segment $va"
	done <"$t/segs"
fi

# usage errors: no -o, no trace
expect_exit 2 "$TRAWL" ete encode "$t/sort.tarmac" --image "$ex/sort"
expect_exit 2 "$TRAWL" ete encode -o "$t/x"
finish
