#!/bin/sh
# The TRBE model behind trawl ete encode (--trbe-*): one emulated run
# (examples/recurse) encoded without a TRBE gives the whole stream S of L
# bytes and the whole PC sequence P; then, through TRBE buffers of many
# sizes:
#  - wrap and circular mode: the snapshot's memory, read from TRBPTR_EL1
#    on, is exactly the last SIZE bytes of S, TRBPTR_EL1 = base + L mod
#    SIZE, TRBSR_EL1 has WRAP (and IRQ in wrap mode only), and `trawl ete
#    tarmac` (which starts at the oldest byte and syncs at the first
#    A-Sync) gives exactly a tail of P, at least what the buffer can hold
#    after one sync period; the run exits 1 and says how many of the
#    stream's bytes were overwritten (trace lost, though asked for);
#  - fill mode: collection stops at the limit (TRBSR_EL1 IRQ, S, buffer
#    full; TRBPTR_EL1 = limit; encode exits 1 and says how much was lost),
#    the snapshot holds the first SIZE bytes of S and decodes to a prefix
#    of P;
#  - the trigger: TRBTRG_EL1 bytes after the trigger event, stop mode
#    stops (TRG, S, IRQ, BSC 2), irq mode goes on;
#  - with and without timestamps and cycle counts; OpenCSD decodes a fill
#    and an unwrapped wrap snapshot to the ranges trawl gives;
#  - base and limit not 4 KiB aligned are refused, naming the register.
. "$TRAWL_SRC/tests/cli-lib.sh"
t=$_tmp
norm="$TRAWL_SRC/tests/cli/ete-norm.awk"
. "$TRAWL_SRC/tests/cli/ete-ref.inc"
prog="$TRAWL_BUILD/examples/recurse"
[ -x "$prog" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
"$TRAWL" emulate --help >/dev/null 2>&1 || skip "trawl built without the emulator"
ninsn=600000 pages="1 2 3 5 8" variants=2
# the sanitizer build runs the same code paths on less (the plain build
# covers every size)
[ -n "${TRAWL_ASAN:-}" ] && ninsn=400000 pages="1 3" variants=1
"$TRAWL" emulate -n $ninsn "$prog" -o "$t/run.tarmac" >/dev/null 2>&1 </dev/null
# the buffers are written by emulate --ete, which writes what ete encode
# makes of the same run's Tarmac (ete-encode.sh checks it byte for byte)
etrun() { "$TRAWL" emulate -n $ninsn "$@" "$prog" >/dev/null 2>"$t/err" </dev/null; }
base=2147483648 # 0x80000000, the default TRBBASER_EL1

key() { sed -n "s/^$1=//p" "$2/trace.ini"; }
hex() { printf '0x%x' "$1"; }


for opts in "" "--timestamps --cycle-counts"; do
	variants=$((variants - 1))
	[ $variants -lt 0 ] && break
	tag=${opts:+-ts}
	"$TRAWL" ete encode -q $opts --sync-period 1024 "$t/run.tarmac" --image "$prog" -o "$t/all$tag" ||
		fail "encode without TRBE exited $?"
	cp "$t/all$tag/trace.bin" "$t/S"
	L=$(stat -c %s "$t/S")
	pcs "$t/run.tarmac" >"$t/P"
	[ "$L" -gt 40000 ] || fail "stream of $L bytes: too short to wrap the buffers below"
	for np in $pages; do
		size=$((np * 4096))
		for mode in wrap circular; do
			n="$mode-$size$tag"
			d="$t/$n"
			# a wrapping buffer is what was asked for, but the start of
			# the run is gone: exit 1, saying how much was overwritten
			etrun --ete "$d" $opts --sync-period 1024 --trbe-size $size --trbe-mode $mode
			[ $? = 1 ] || fail "$n: an overwritten buffer should make the run exit 1"
			grep -q "the oldest $((L - size)) of the $L bytes of trace of the $(wc -l <"$t/P") instructions were overwritten" "$t/err" ||
				fail "$n: message: $(cat "$t/err")"
			w=$((L % size))
			[ "$(key trbe_ptr "$d")" = "$(hex $((base + w)))" ] ||
				fail "$n: TRBPTR $(key trbe_ptr "$d"), expected $(hex $((base + w)))"
			[ "$(key trbe_wrapped "$d")" = 1 ] || fail "$n: not marked wrapped"
			sr=0x100000; [ $mode = wrap ] && sr=0x500000
			[ "$(key TRBSR_EL1 "$d")" = $sr ] || fail "$n: TRBSR $(key TRBSR_EL1 "$d"), expected $sr"
			{ tail -c +$((w + 1)) "$d/trace.bin"; head -c $w "$d/trace.bin"; } >"$t/unwrapped"
			tail -c $size "$t/S" | cmp -s - "$t/unwrapped" || fail "$n: memory is not the last $size bytes of the stream"
			# the bytes before the first A-Sync (11+ zeros and 0x80, found
			# here in the memory in time order) cannot be decoded: every
			# path says how many, naming the buffer, and exits 1 (it was 0)
			lead=$(python3 -c 'import re, sys; print(re.search(rb"\x00{11,}\x80", open(sys.argv[1], "rb").read()).start())' "$t/unwrapped")
			[ "$lead" -gt 0 ] || fail "$n: the wrapped memory starts with an A-Sync: nothing to check"
			msg="the first $lead of $size bytes, before the first A-Sync, are not decoded"
			"$TRAWL" ete tarmac "$d" -o "$t/back" 2>"$t/err"
			[ $? = 1 ] || fail "$n: ete tarmac of a wrapped buffer should exit 1"
			grep -q "^trawl: ete: warning: $d: offset $w: trace ID 0x10: $msg" "$t/err" ||
				fail "$n: ete tarmac: $(cat "$t/err")"
			if [ "$np$mode" = "2wrap" ]; then
				expect_exit 1 "$TRAWL" ete decode "$d"
				grep -q "$msg" "$_tmp/err" || fail "$n: ete decode: $(cat "$_tmp/err")"
				expect_exit 1 "$TRAWL" cat "$d"
				grep -q "$d:offset $w: trace ID 0x10: $msg" "$_tmp/err" || fail "$n: cat: $(cat "$_tmp/err")"
				expect_exit 1 "$TRAWL" index --index "$t/w.idx" "$d"
				grep -q "$msg" "$_tmp/err" || fail "$n: index: $(cat "$_tmp/err")"
				rm -f "$t/w.idx"
			fi
			pcs "$t/back" >"$t/got"
			k=$(wc -l <"$t/got")
			[ "$k" -gt 0 ] || fail "$n: nothing decoded"
			tail -n "$k" "$t/P" | cmp -s - "$t/got" || fail "$n: decoded PCs are not the tail of the run"
			# at least the instructions of all but one sync period of the buffer
			[ $((k * L)) -ge $(((size - 2048) * $(wc -l <"$t/P"))) ] ||
				[ $((k * 4)) -ge $(wc -l <"$t/P") ] || fail "$n: only $k instructions decoded"
		done
		n="fill-$size$tag"
		d="$t/$n"
		etrun --ete "$d" $opts --sync-period 1024 --trbe-size $size
		[ $? = 1 ] || fail "$n: a stopped buffer should make the run exit 1"
		grep -q "the last $((L - size)) bytes of trace were not written" "$t/err" ||
			fail "$n: message: $(cat "$t/err")"
		[ "$(key TRBSR_EL1 "$d")" = 0x420001 ] || fail "$n: TRBSR $(key TRBSR_EL1 "$d"), expected 0x420001"
		[ "$(key trbe_ptr "$d")" = "$(hex $((base + size)))" ] || fail "$n: TRBPTR $(key trbe_ptr "$d")"
		head -c $size "$t/S" | cmp -s - "$d/trace.bin" || fail "$n: buffer is not the first $size bytes"
		# a filled buffer starts with the run's first A-Sync: nothing before
		# it is lost (a packet the limit cut may be, and is named)
		"$TRAWL" ete tarmac "$d" -o "$t/back" 2>"$t/err"
		grep -q "before the first A-Sync" "$t/err" && fail "$n: bytes before an A-Sync in a filled buffer: $(cat "$t/err")"
		pcs "$t/back" >"$t/got"
		k=$(wc -l <"$t/got")
		[ "$k" -gt 0 ] || fail "$n: nothing decoded"
		head -n "$k" "$t/P" | cmp -s - "$t/got" || fail "$n: decoded PCs are not the start of the run"
	done
	reference "fill-12288$tag" "$t/fill-12288$tag"
	# OpenCSD reads a buffer from its first byte: give it the wrapped
	# memory in time order, and trawl the wrapped snapshot itself
	d="$t/wrap-12288$tag"
	cp -r "$d" "$t/lin"
	w=$(($(stat -c %s "$t/S") % 12288))
	{ tail -c +$((w + 1)) "$d/trace.bin"; head -c $w "$d/trace.bin"; } >"$t/lin/trace.bin"
	sed -i '/^trbe_/d; /^TRB/d' "$t/lin/trace.ini"
	reference "wrap-12288$tag" "$t/lin" "$d"
	rm -rf "$t/lin"
done

# the wrapped memory as a raw buffer, with one ini file (registers and
# [trbe] pointers) given to ete --config as to the reader's --ete-config:
# both decode the tail of the run (ete --config read no pointers, so it
# decoded the memory from its first byte, across the write pointer)
d="$t/wrap-12288"
{ echo '[regs]'; grep '^TRC' "$d/ETE_0.ini"; echo '[trbe]'
  echo "base=$(key trbe_base "$d")"; echo "limit=$(key trbe_limit "$d")"
  echo "write=$(key trbe_ptr "$d")"; } >"$t/raw.ini"
"$TRAWL" ete tarmac --config "$t/raw.ini" --elf "$prog" "$d/trace.bin" -o "$t/back" 2>"$t/err"
[ $? = 1 ] || fail "ete tarmac --config of the raw wrapped buffer: the bytes before its first A-Sync are lost, exit 1"
grep -q "trace.bin: offset [0-9]*: trace ID 0x10: the first [0-9]* of 12288 bytes, before the first A-Sync" "$t/err" ||
	fail "ete tarmac --config of the raw wrapped buffer: $(cat "$t/err")"
pcs "$t/back" >"$t/got"
k=$(wc -l <"$t/got")
[ "$k" -gt 0 ] && tail -n "$k" "$t/P" | cmp -s - "$t/got" ||
	fail "ete --config with [trbe]: $k decoded PCs are not the tail of the run"
"$TRAWL" cat --ete-config "$t/raw.ini" --ete-image "$prog" "$d/trace.bin" 2>/dev/null |
	sed -n 's/.* pc=\([0-9a-f]*\) .*/\1/p' >"$t/got2"
sed 's/^0*//' "$t/got" | cmp -s - "$t/got2" || fail "cat --ete-config and ete --config decode the raw buffer differently"
# a register value that is no number is refused where it is (it kept the
# default and decoded with the wrong configuration, exit 0)
sed 's/^TRCCONFIGR=.*/TRCCONFIGR=0x1z/' "$t/raw.ini" >"$t/bad.ini"
ln=$(grep -n '^TRCCONFIGR' "$t/bad.ini" | cut -d: -f1)
expect_exit 2 "$TRAWL" ete tarmac --config "$t/bad.ini" --elf "$prog" "$d/trace.bin"
grep -q "bad.ini:$ln: bad TRCCONFIGR value '0x1z'" "$_tmp/err" || fail "ete --config bad value: $(cat "$_tmp/err")"
expect_exit 2 "$TRAWL" cat --ete-config "$t/bad.ini" --ete-image "$prog" "$d/trace.bin"
grep -q "bad.ini:$ln: bad TRCCONFIGR value" "$_tmp/err" || fail "cat --ete-config bad value: $(cat "$_tmp/err")"
[ -s "$_tmp/out" ] && fail "cat --ete-config bad value: wrote events"

d="$t/trig"
etrun --ete "$d" --sync-period 1024 --trbe-size 131072 --trbe-trigger-at 3000 --trbe-trg 1000
[ "$(key TRBSR_EL1 "$d")" = 0x620002 ] || fail "trigger stop: TRBSR $(key TRBSR_EL1 "$d"), expected 0x620002"
[ "$(key trbe_ptr "$d")" = "$(hex $((base + 4000)))" ] || fail "trigger stop: TRBPTR $(key trbe_ptr "$d")"
[ "$(key TRBTRG_EL1 "$d")" = 0x0 ] || fail "trigger stop: TRBTRG $(key TRBTRG_EL1 "$d")"
# irq mode: the interrupt, and collection goes on to the end
etrun --ete "$d" --sync-period 1024 --trbe-size 131072 --trbe-trigger-at 3000 --trbe-trg 1000 \
	--trbe-trigger-mode irq --trbe-external --trbe-nvm
L=$(stat -c %s "$t/all/trace.bin")
[ "$(key TRBSR_EL1 "$d")" = 0x600002 ] || fail "trigger irq: TRBSR $(key TRBSR_EL1 "$d"), expected 0x600002"
[ "$(key trbe_ptr "$d")" = "$(hex $((base + L)))" ] || fail "trigger irq: TRBPTR $(key trbe_ptr "$d")"
cmp -s "$d/trace.bin" "$t/all/trace.bin" || fail "trigger irq: the buffer differs from the stream"
# external mode and nVM land in TRBLIMITR_EL1 (XE bit 6, nVM bit 5, E bit 0)
[ "$(key TRBLIMITR_EL1 "$d")" = "$(hex $((base + 131072 + 64 + 32 + 8 + 1)))" ] ||
	fail "TRBLIMITR $(key TRBLIMITR_EL1 "$d")"
[ "$(key trbe_external "$d")" = 1 ] || fail "external mode not recorded"

# the architecture's alignment rules
expect_exit 2 "$TRAWL" ete encode --trbe-size 5000 "$t/run.tarmac" --image "$prog" -o "$t/bad"
grep -q 'TRBLIMITR_EL1.*4 KiB aligned' "$_tmp/err" || fail "unaligned limit: $(cat "$_tmp/err")"
expect_exit 2 "$TRAWL" ete encode --trbe-size 8192 --trbe-base 0x80000800 "$t/run.tarmac" --image "$prog" -o "$t/bad"
grep -q 'TRBBASER_EL1.*4 KiB aligned' "$_tmp/err" || fail "unaligned base: $(cat "$_tmp/err")"
expect_exit 2 "$TRAWL" ete encode --trbe-size 0 "$t/run.tarmac" --image "$prog" -o "$t/bad"
# TRBE options without a TRBE, ETE options without --ete would change
# nothing: a usage error, and no snapshot (they were silently ignored)
for o in "--trbe-mode wrap" "--trbe-trigger-at 100" "--trbe-trg 5" "--trbe-base 0x90000000" \
	"--trbe-external" "--trbe-nvm" "--trbe-trigger-mode irq"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$TRAWL" ete encode $o "$t/run.tarmac" --image "$prog" -o "$t/nobuf"
	grep -q 'need --trbe-size' "$_tmp/err" || fail "ete encode $o without --trbe-size: $(cat "$_tmp/err")"
	# shellcheck disable=SC2086
	expect_exit 2 "$TRAWL" emulate -n 1000 --ete "$t/nobuf" $o "$prog"
	[ -e "$t/nobuf" ] && fail "$o without --trbe-size wrote a snapshot"
done
for o in "--trbe-size 4096" "--timestamps" "--sync-period 64" "--speculate 2" "--cycle-counts"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$TRAWL" emulate -n 1000 --style none $o "$prog"
	grep -q 'need --ete' "$_tmp/err" || fail "emulate $o without --ete: $(cat "$_tmp/err")"
done
finish
