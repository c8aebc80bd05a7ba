#!/bin/sh
# ETE as a first-class trace (docs/ete.md, "As a trace"): a snapshot
# directory, or a raw TRBE buffer with --ete-config, read by trawl_reader.
# Truths: PCs worked out by hand for a hand-made stream; and for every
# hand-built rule stream and every corpus snapshot, the answers of the
# existing path (`trawl ete tarmac` -> Tarmac -> index, itself checked
# against OpenCSD by ete-corpus.sh and ete-rules.sh) must be the direct
# path's. Damaged snapshots: exit 1, a message naming where, and what is
# decoded a prefix of the undamaged decode (never a wrong answer).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/ete-snap.sh"
t=$_tmp
# the corpus is read-only for us: every index goes to $t
export XDG_CACHE_HOME="$t/cache"

# events without the Tarmac's disassembly text (the direct path has none);
# the Tarmac path's NO_IMAGE lines are the direct path's gaps
events() {
	"$TRAWL" cat "$@" 2>/dev/null |
		sed -e 's/ text E "[0-9a-f]* 00000000 NO_IMAGE"$/ gap/' -e 's/ "[^"]*"$//'
}

# same NAME DIR TARMAC [ADDR]: the direct path's events, call tree,
# profile, event count and (for ADDR) visits equal the Tarmac path's
same() {
	events "$2" >"$t/d.cat"; events "$3" >"$t/t.cat"
	[ -s "$t/t.cat" ] || [ ! -s "$t/d.cat" ] || fail "$1: events where the Tarmac has none"
	cmp -s "$t/d.cat" "$t/t.cat" || fail "$1: events differ: $(diff "$t/t.cat" "$t/d.cat" | head -4)"
	# the sanitizer build checks the reader on every input, and the
	# commands after it on the small ones (it runs ~8x slower)
	[ -n "${TRAWL_ASAN:-}" ] && [ "$(wc -l <"$t/t.cat")" -gt 2000 ] && return 0
	for c in calltree profile; do
		"$TRAWL" $c "$2" >"$t/d.$c" 2>/dev/null; "$TRAWL" $c "$3" >"$t/t.$c" 2>/dev/null
		cmp -s "$t/d.$c" "$t/t.$c" || fail "$1: $c differs: $(diff "$t/t.$c" "$t/d.$c" | head -4)"
	done
	"$TRAWL" info --index "$t/d.idx" "$2" 2>/dev/null | grep '^events:' >"$t/d.n"
	"$TRAWL" info --index "$t/t.idx" "$3" 2>/dev/null | grep '^events:' >"$t/t.n"
	[ -s "$t/t.n" ] && cmp -s "$t/d.n" "$t/t.n" || fail "$1: $(cat "$t/d.n") vs Tarmac $(cat "$t/t.n")"
	if [ -n "${4:-}" ]; then
		# the same visits; only the Tarmac path has text to show beside them
		"$TRAWL" pc --index "$t/d.idx" "$2" "$4" 2>/dev/null >"$t/d.pc"
		"$TRAWL" pc --index "$t/t.idx" "$3" "$4" 2>/dev/null | sed 's/): .*/)/' >"$t/t.pc"
		[ -s "$t/t.pc" ] || fail "$1: no visits of $4"
		cmp -s "$t/d.pc" "$t/t.pc" || fail "$1: pc $4 differs: $(diff "$t/t.pc" "$t/d.pc" | head -4)"
	fi
	rm -f "$t/d.idx" "$t/t.idx"
}

# --- a raw buffer, PCs by hand (the stream of ete-basic.sh) ------------
# program at 0x1000: nop; b.ne 0x100c; nop; ret. Trace: A-Sync, Trace Info,
# Trace On, address + context 0x1000, N, E, address 0x1004, E, E:
# 1000 1004 (N on b.ne) 1008 100c (E on ret to 0x1004) 1004 (E) 100c (E)
printf '\037\040\003\325\101\000\000\124\037\040\003\325\300\003\137\326' >"$t/prog.bin"
{
	printf '\000\000\000\000\000\000\000\000\000\000\000\200\001\000\004'
	printf '\205\000\010\000\000\000\000\000\000\021\366\367\232\001\010\000\000\367\367'
} >"$t/trace.bin"
printf '[regs]\nTRCIDR0=0x28000ea1\nTRCDEVARCH=0x47705a13\n' >"$t/regs.ini"
raw="--ete-config $t/regs.ini --ete-image 0x1000=$t/prog.bin"
"$TRAWL" cat $raw "$t/trace.bin" 2>"$t/err" | awk '{print $6}' | tr '\n' ' ' >"$t/pcs" ||
	fail "raw buffer: $(cat "$t/err")"
[ "$(cat "$t/pcs")" = "pc=1000 pc=1004 pc=1008 pc=100c pc=1004 pc=100c " ] || fail "raw PCs: $(cat "$t/pcs")"
"$TRAWL" pc $raw --index "$t/r.idx" "$t/trace.bin" 0x1004 >"$t/pc" 2>"$t/err" || fail "pc: $(cat "$t/err")"
grep -q '2 visits' "$t/pc" && grep -q 'line 2 ' "$t/pc" && grep -q 'line 5 ' "$t/pc" ||
	fail "pc 0x1004 (want lines 2 and 5): $(cat "$t/pc")"
# a Trace On after trace was off is a gap (it was not: autofdo counted a
# branch 100c->1004 that never ran). The same program; trace: A-Sync,
# Trace Info, Trace On, address + context 0x1000, N, E (the ret at 0x100c
# taken, its target not traced), Trace On, address 0x1004, E, E. By hand:
# ranges 1000-100c, then after the gap 1004-1004 (b.ne taken) and 100c-100c
# (the ret, trace ends), one branch 1004->100c
{
	printf '\000\000\000\000\000\000\000\000\000\000\000\200\001\000\004'
	printf '\205\000\010\000\000\000\000\000\000\021\366\367\004\232\001\010\000\000\367\367'
} >"$t/off.bin"
"$TRAWL" autofdo $raw "$t/off.bin" >"$t/off.afdo" 2>"$t/err" || fail "autofdo across Trace On: $(cat "$t/err")"
printf '3
1000-100c:1
1004-1004:1
100c-100c:1
0
1
1004->100c:1
' | cmp -s - "$t/off.afdo" ||
	fail "autofdo across Trace On: $(cat "$t/off.afdo")"
"$TRAWL" cat $raw "$t/off.bin" 2>"$t/err" | awk '{print $4 == "insn" ? $6 : $4}' | tr '\n' ' ' >"$t/pcs"
[ "$(cat "$t/pcs")" = "pc=1000 pc=1004 pc=1008 pc=100c gap pc=1004 pc=100c " ] || fail "Trace On: events $(cat "$t/pcs")"
# the Tarmac path writes the gap as a line its reader reads back as one
"$TRAWL" ete tarmac --config "$t/regs.ini" --image 0x1000="$t/prog.bin" "$t/off.bin" -o "$t/off.tarmac" ||
	fail "ete tarmac across Trace On"
grep -c . "$t/off.tarmac" | grep -qx 7 && sed -n 5p "$t/off.tarmac" | grep -q ' E 0000000000000000 00000000 GAP_TRACE_OFF$' ||
	fail "ete tarmac across Trace On: $(cat "$t/off.tarmac")"
"$TRAWL" autofdo "$t/off.tarmac" | cmp -s - "$t/off.afdo" || fail "autofdo of the Tarmac across Trace On differs"
# the index names the ETE reader's version (identity key 7), so a reader
# that changed rebuilds it; a Tarmac index names the text reader's
v=$(sed -n 's/^#define TRAWL_ETE_READER_VERSION \([0-9]*\)u.*/\1/p' "$TRAWL_SRC/include/trawl/ete.h")
"$TRAWL" info $raw --index "$t/r.idx" "$t/trace.bin" >"$t/info" 2>&1
grep -q "^reader version: *ETE $v\$" "$t/info" || fail "info of an ETE index (version $v): $(cat "$t/info")"
printf '1 clk IT (1) 00001000 d503201f O EL1h_s : NOP\n' >"$t/one.tarmac"
tv=$(sed -n 's/^#define TRAWL_READER_VERSION \([0-9]*\)u.*/\1/p' "$TRAWL_SRC/include/trawl/reader.h")
"$TRAWL" info --index "$t/one.idx" "$t/one.tarmac" >"$t/info" 2>&1
grep -q "^reader version: *text $tv\$" "$t/info" || fail "info of a Tarmac index (text reader $tv): $(cat "$t/info")"
# the call tree from the index (--use-index builds it with the same options)
"$TRAWL" calltree $raw "$t/trace.bin" >"$t/ct1" 2>"$t/err" || fail "calltree: $(cat "$t/err")"
"$TRAWL" calltree --use-index $raw "$t/trace.bin" >"$t/ct2" 2>"$t/err" || fail "calltree --use-index: $(cat "$t/err")"
[ -s "$t/ct1" ] && cmp -s "$t/ct1" "$t/ct2" || fail "calltree --use-index differs: $(diff "$t/ct1" "$t/ct2" | head -4)"
rm -f "$t/trace.bin.trawlidx"
# the index remembers the options and their files: other ones are refused
expect_exit 1 "$TRAWL" pc --ete-config "$t/regs.ini" --index "$t/r.idx" "$t/trace.bin" 0x1004
expect_stderr_has "other ETE options or files" "$TRAWL" pc --ete-config "$t/regs.ini" --index "$t/r.idx" "$t/trace.bin" 0x1004
# a raw buffer has no magic: never guessed
expect_exit 1 "$TRAWL" cat "$t/trace.bin"
expect_stderr_has "(raw ETE: --ete-config)" "$TRAWL" cat "$t/trace.bin"
# the same trace as a wrapped TRBE buffer (ete-basic.sh's), its pointers
# in the --ete-config file: the same events
head -c 16 "$t/trace.bin" >"$t/head"; tail -c +17 "$t/trace.bin" >"$t/tail"
{ cat "$t/tail"; i=$(wc -c <"$t/tail"); while [ $i -lt 48 ]; do printf '\160'; i=$((i + 1)); done; cat "$t/head"; } >"$t/trbe.bin"
{ cat "$t/regs.ini"; printf '[trbe]\nbase=0x80000000\nlimit=0x80000040\nwrite=0x80000030\n'; } >"$t/trbe.ini"
events $raw "$t/trace.bin" >"$t/e1"
events --ete-config "$t/trbe.ini" --ete-image "0x1000=$t/prog.bin" "$t/trbe.bin" >"$t/e2"
[ -s "$t/e1" ] && cmp -s "$t/e1" "$t/e2" || fail "wrapped TRBE buffer: $(diff "$t/e1" "$t/e2" | head -4)"
printf '[trbe]\nbase=0x80000000\nwrite=0x80000030\n' >"$t/half.ini"
expect_exit 2 "$TRAWL" cat --ete-config "$t/half.ini" "$t/trbe.bin"
expect_stderr_has "need base, limit and write" "$TRAWL" cat --ete-config "$t/half.ini" "$t/trbe.bin"
# no image: a gap, exit 1, named; the instructions after it still come
expect_exit 1 "$TRAWL" cat --ete-config "$t/regs.ini" "$t/trace.bin"
expect_stderr_has "with no program image (first: trace ID 0x00, offset 25, address 0x1000)" \
	"$TRAWL" cat --ete-config "$t/regs.ini" "$t/trace.bin"

# --- hand-built snapshots (streams of ete-rules.sh) against the Tarmac path
asy=000000000000000000000080
tinfo=0100
start=04850008000000000000""11
prog=61000054""1f2003d5""1f2003d5""c0035fd6
n=0
for s in "${asy}${tinfo}${start}f6f7342d01" "${asy}${tinfo}${start}f6f7352d02" \
	"${asy}${tinfo}${start}f6f6f6382d01" "${asy}${tinfo}${start}f6${asy}${tinfo}f7" \
	"${asy}${tinfo}04850008000000000000""39""f6811bf6" "${asy}${tinfo}${start}f7f7f7f6f7"; do
	n=$((n + 1)); d="$t/rule$n"
	mksnap "$d" "$s" "$prog" 0x4
	"$TRAWL" ete tarmac "$d" -o "$t/rule$n.tarmac" 2>/dev/null
	same "rule $n" "$d" "$t/rule$n.tarmac" 0x1000
done

# --- every snapshot of the corpus ------------------------------------------
corpus=${TRAWL_CORPUS:-}
if [ -n "$corpus" ] && [ -d "$corpus/ete" ]; then
	for d in "$corpus"/ete/*/*/; do
		name=$(basename "$d")
		# every buffer, in trace.ini's order, on both paths; a trace ID
		# that several buffers hold is one source (one core)
		"$TRAWL" ete tarmac "$d" -o "$t/$name.tarmac" 2>/dev/null
		ids=$("$TRAWL" ete stats "$d" 2>/dev/null | sed -n 's/^trace ID 0x\(..\).*/\1/p' | sort -u)
		if [ "$(echo "$ids" | wc -w)" -le 1 ]; then
			pc=$(awk '/ IT /{print "0x" $5; exit}' "$t/$name.tarmac")
			same "$name" "$d" "$t/$name.tarmac" $pc
			continue
		fi
		# several trace sources: the Tarmac path puts them all on one
		# core; the direct path gives each its own. Per source, the same
		# instruction sequence.
		for id in $ids; do
			"$TRAWL" ete tarmac --id "0x$id" "$d" 2>/dev/null |
				awk '/ IT / { pc = $5; sub(/^0+/, "", pc); print pc }' | md5sum
		done | sort >"$t/want.sums"
		"$TRAWL" cat "$d" 2>/dev/null | awk '$4 == "insn" { pc = $6; sub("pc=", "", pc); print $2, pc }' >"$t/mc"
		for c in $(cut -d' ' -f1 "$t/mc" | sort -u); do
			awk -v c="$c" '$1 == c { print $2 }' "$t/mc" | md5sum
		done >"$t/got.sums"
		# sources that decoded no instruction have no core in the direct path
		grep -v "$(printf '' | md5sum | cut -d' ' -f1)" "$t/want.sums" | sort >"$t/w"
		sort "$t/got.sums" >"$t/g"
		cmp -s "$t/w" "$t/g" || fail "$name: per-source instructions differ ($(wc -l <"$t/w") sources with instructions, $(wc -l <"$t/g") cores)"
	done
else
	echo "note: no ETE corpus at '${corpus}/ete': corpus snapshots skipped"
	d=; name=
fi

# --- several buffers, PCs by hand ---------------------------------------
# ETB_0 (source ETE_0, trace ID 0x10): E on the b.ne: 1000. ETB_1 (ETE_1,
# 0x11): N on the b.ne, E on the ret: 1000 1004 1008 100c. Every buffer is
# read, in trace.ini's order, each with decoders of its own; a source's
# events go to the core [core_trace_sources] names for it.
pcs() { "$TRAWL" cat "$@" 2>"$t/err" | awk '$4 == "insn" { printf "%s:%s ", $2, substr($6, 4) }'; }
d="$t/two"
mksnap "$d" "${asy}${tinfo}${start}f7" "$prog" 0x0
mksnap_second "$d" "${asy}${tinfo}${start}f6f7" cpu_1
got=$(pcs "$d") || fail "two buffers: $(cat "$t/err")"
[ "$got" = "cpu0:1000 cpu1:1000 cpu1:1004 cpu1:1008 cpu1:100c " ] || fail "two buffers, two cores: $got"
got=$(pcs --ete-buffer ETB_1 "$d")
[ "$got" = "cpu1:1000 cpu1:1004 cpu1:1008 cpu1:100c " ] || fail "--ete-buffer ETB_1: $got"
# a name the snapshot lacks is the user's mistake: exit 2 with the names
# (it exited 1, as for damaged input), in the reader and in `trawl ete`
expect_exit 2 "$TRAWL" cat --ete-buffer ETB_9 "$d"
grep -q "no trace buffer named 'ETB_9' (the buffers are ETB_0, ETB_1)" "$_tmp/err" ||
	fail "cat --ete-buffer ETB_9: $(cat "$_tmp/err")"
expect_exit 2 "$TRAWL" index --ete-buffer ETB_9 --index "$t/b9.idx" "$d"
expect_exit 2 "$TRAWL" ete stats --buffer ETB_9 "$d"
grep -q "no trace buffer named 'ETB_9' (the buffers are ETB_0, ETB_1)" "$_tmp/err" ||
	fail "ete --buffer ETB_9: $(cat "$_tmp/err")"
# both sources trace cpu_0 and trace.ini lists ETB_1 first: one core, the
# buffers one after the other; the second starts afresh (no state carried
# over), so it decodes as it does alone
d="$t/two-one-core"
mksnap "$d" "${asy}${tinfo}${start}f7" "$prog" 0x0
mksnap_second "$d" "${asy}${tinfo}${start}f6f7" cpu_0 buffer1,buffer0
got=$(pcs "$d") || fail "two buffers, one core: $(cat "$t/err")"
[ "$got" = "cpu0:1000 cpu0:1004 cpu0:1008 cpu0:100c cpu0:1000 " ] || fail "two buffers, one core: $got"
# damage in one buffer is named with the buffer, and the other still comes
printf '%s' "${asy}${tinfo}04850008000000" | xxd -r -p >"$d/trace1.bin"
expect_exit 1 "$TRAWL" cat "$d"
got=$(pcs "$d")
[ "$got" = "cpu0:1000 " ] || fail "a cut ETB_1: $got"
grep -q "two-one-core \[buffer ETB_1\]:offset 15: truncated packet" "$t/err" ||
	fail "a cut ETB_1 is not named: $(cat "$t/err")"

# --- an encoder-made wrapped TRBE buffer -------------------------------------
# the snapshot records the TRBE pointers; the direct path reads the buffer
# from its oldest byte as `trawl ete tarmac` does, and both are the tail of
# the emulated run's PCs (the emulator's own Tarmac, its IS lines the
# condition-failed instructions ETE also counts: the independent truth)
if [ -x "$TRAWL_BUILD/examples/recurse" ]; then
	d="$t/wrap"
	"$TRAWL" emulate -o "$t/emu.tarmac" --ete "$d" --trbe-size 4096 --trbe-mode wrap \
		"$TRAWL_BUILD/examples/recurse" -- 6 >/dev/null 2>"$t/err"
	# older trace overwritten: exit 1 (ete-trbe.sh checks the message)
	[ $? = 1 ] && grep -q 'were overwritten' "$t/err" || fail "emulate --ete wrap: $(cat "$t/err")"
	grep -q '^trbe_wrapped=1' "$d/trace.ini" || fail "recurse with a 4 KiB TRBE did not wrap"
	"$TRAWL" ete tarmac "$d" 2>/dev/null | awk '/ IT / { pc = $5; sub(/^0+/, "", pc); print pc }' >"$t/w.ete"
	"$TRAWL" cat "$d" 2>"$t/err" | awk '$4 == "insn" { print substr($6, 4) }' >"$t/w.direct" ||
		fail "wrapped snapshot: $(cat "$t/err")"
	n=$(wc -l <"$t/w.direct")
	[ "$n" -gt 1000 ] && cmp -s "$t/w.ete" "$t/w.direct" ||
		fail "wrapped snapshot: $n PCs, not \`ete tarmac\`'s $(wc -l <"$t/w.ete")"
	awk '/ I[TS] / { pc = $5; sub(/^0+/, "", pc); print pc }' "$t/emu.tarmac" | tail -n "$n" |
		cmp -s - "$t/w.direct" || fail "wrapped snapshot: not the tail of the emulated PCs"
else
	echo "note: examples not built (needs aarch64-linux-gnu-gcc): wrapped TRBE snapshot skipped"
fi

# --- damaged snapshots -----------------------------------------------------
d="$t/dmg"
# four rounds of: N on the b.ne, E on the ret, address 0x1000
loop="${asy}${tinfo}${start}f6f79a00080000f6f79a00080000f6f79a00080000f6f79a00080000"
mksnap "$d" "$loop" "$prog" 0x0
events "$d" >"$t/full"
[ "$(wc -l <"$t/full")" -gt 5 ] || fail "damage fixture decodes too little: $(cat "$t/full")"
# a buffer cut inside a packet: exit 1, the offset named, the rest a prefix
printf '%s' "${asy}${tinfo}04850008000000" | xxd -r -p >"$d/trace.bin"
expect_exit 1 "$TRAWL" calltree "$d"
expect_stderr_has "offset 15: truncated packet (header 0x85)" "$TRAWL" profile "$d"
for len in 30 31 32 33 34 40 41 42 47; do
	mksnap "$d" "$loop" "$prog" 0x0
	head -c $len "$d/trace.bin" >"$t/cut" && mv "$t/cut" "$d/trace.bin"
	events "$d" >"$t/part"
	head -n "$(wc -l <"$t/part")" "$t/full" | cmp -s - "$t/part" ||
		fail "cut at $len: not a prefix of the whole decode: $(diff "$t/full" "$t/part" | head -3)"
done
# a missing image: exit 1 from every command, also from a reused index
mksnap "$d" "$loop" "$prog" 0x0
rm "$d/code.bin"
expect_stderr_has "no program image (first: trace ID 0x10, offset 25, address 0x1000)" \
	"$TRAWL" index --index "$t/dmg.idx" "$d"
[ -f "$t/dmg.idx" ] || fail "no index of the snapshot without its image"
expect_exit 1 "$TRAWL" pc --index "$t/dmg.idx" "$d" 0x1000
expect_stderr_has "could not be decoded when this index was built" "$TRAWL" pc --index "$t/dmg.idx" "$d" 0x1000

# --ete-config (a raw buffer's registers) with a snapshot: a usage error,
# not silently ignored (it decoded the snapshot's registers, exit 0)
mksnap "$d" "$loop" "$prog" 0x0
for c in cat calltree; do
	expect_exit 2 "$TRAWL" $c --ete-config "$t/regs.ini" "$d"
	grep -q -- "--ete-config is for a raw buffer; '$d' is an ETE snapshot directory" "$_tmp/err" ||
		fail "$c --ete-config SNAPSHOT: $(cat "$_tmp/err")"
done

# --- identity: a changed image or buffer rebuilds the index ------------------
mksnap "$d" "$loop" "$prog" 0x0
"$TRAWL" index "$d" >/dev/null 2>&1 || fail "index of the snapshot failed"
[ -f "$d.trawlidx" ] || fail "no index beside the snapshot"
expect_exit 0 "$TRAWL" pc "$d" 0x1000
grep -q "building it again" "$t/err" && fail "an unchanged snapshot was re-indexed"
# a file the snapshot does not name is no part of it
echo notes >"$d/README"
expect_exit 0 "$TRAWL" pc "$d" 0x1000
grep -q "building it again" "$t/err" && fail "a file the snapshot does not name re-indexed it"
# the image, two folders down (beyond what a directory's identity sees)
mkdir -p "$d/a/b" && mv "$d/code.bin" "$d/a/b/code.bin"
sed -i 's|^file=code.bin|file=a/b/code.bin|' "$d/cpu_0.ini"
expect_stderr_has "belongs to another version of the trace" "$TRAWL" pc "$d" 0x1000
printf '%s' 1f2003d51f2003d51f2003d5c0035fd6 | xxd -r -p >"$d/a/b/code.bin" # b.ne -> nop
expect_stderr_has "belongs to another version of the trace" "$TRAWL" pc "$d" 0x1000
printf '\000' >>"$d/trace.bin"
expect_stderr_has "belongs to another version of the trace" "$TRAWL" pc "$d" 0x1000
finish
