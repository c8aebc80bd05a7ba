#!/bin/sh
# A perf.data as a trace of its own (the ETE reader backend): trawl index,
# cat, pc on hand-made recordings of two CPUs (perf-mkdata.py, the trace
# of ete-basic.sh on CPU 0, a second hand-worked one on CPU 1), raw ETE
# and frame-formatted ETMv4 data, pipe mode; lost AUX data exits 1 when
# built and when the index is reused; a changed image rebuilds. With the
# corpus: the direct path answers as `trawl ete tarmac` -> trawl index,
# and trawl autofdo equals the recording tool's own profile.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
export XDG_CACHE_HOME="$t/cache"

# CPU 1: PCs 1008 100c 1004 100c (perf_trace1, tests/perf-lib.sh)
perf_trace1 "$t/trace1.bin"
# the hand-worked PCs, CPU 0 then CPU 1 (the chunks' file order)
printf '%s\n' "0 1000" "0 1004" "0 1008" "0 100c" "0 1004" "0 100c" \
	"1 1008" "1 100c" "1 1004" "1 100c" >"$t/want.pcs"

check_pcs() { # name file
	"$TRAWL" index --symfs "$t" "$2" >/dev/null 2>"$t/err" || fail "$1: index: $(cat "$t/err")"
	"$TRAWL" cat --symfs "$t" "$2" >"$t/cat" 2>"$t/err" || fail "$1: cat: $(cat "$t/err")"
	sed -n 's/^L[0-9]* cpu\([0-9]*\) .* pc=\([0-9a-f]*\) .*/\1 \2/p' "$t/cat" >"$t/got.pcs"
	diff -u "$t/want.pcs" "$t/got.pcs" >"$t/diff" || fail "$1: PCs per core: $(cat "$t/diff")"
	# pc through the index: 0x1008 ran at line 3 (CPU 0) and line 7 (CPU 1)
	"$TRAWL" pc --symfs "$t" "$2" 0x1008 >"$t/pc" 2>"$t/err" || fail "$1: pc: $(cat "$t/err")"
	printf '%s\n' "0x1008: 2 visits" "  line 3 (event 2)" "  line 7 (event 6)" >"$t/want.pc"
	diff -u "$t/want.pc" "$t/pc" >"$t/diff" || fail "$1: pc 0x1008: $(cat "$t/diff")"
}

$mk "$t/ete.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin"
check_pcs "ete raw" "$t/ete.data"
# its events come from the ETE decoder: the index names that reader's
# version, so a decoder fix rebuilds perf.data indexes too
v=$(sed -n 's/^#define TRAWL_ETE_READER_VERSION \([0-9]*\)u.*/\1/p' "$TRAWL_SRC/include/trawl/ete.h")
python3 - "$t/ete.data.trawlidx" "$v" <<'PY' || fail "the perf.data index has no ETE reader version (key 7 = $v)"
import struct, sys
path, v = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, 'rb').read())
key = struct.pack('<HHI', 7, 4, v)
i = b.find(key)
if i < 0:
    sys.exit(1)
b[i + 4:i + 8] = struct.pack('<I', v - 1)  # as an older decoder would have written
open(path, 'wb').write(b)
PY
expect_stderr_has "building it again" "$TRAWL" pc --symfs "$t" "$t/ete.data" 0x1008
$mk "$t/etm.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin" \
	--unit etmv4 --version 1 --formatted
check_pcs "etmv4 formatted" "$t/etm.data"
$mk "$t/z.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin" --compress
check_pcs "compressed records" "$t/z.data"
# pipe mode, from a pipe
$mk "$t/pipe.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --trace1 "$t/trace1.bin" --pipe
cat "$t/pipe.data" | "$TRAWL" cat --symfs "$t" - >"$t/cat" 2>"$t/err" || fail "pipe: cat -: $(cat "$t/err")"
sed -n 's/^L[0-9]* cpu\([0-9]*\) .* pc=\([0-9a-f]*\) .*/\1 \2/p' "$t/cat" >"$t/got.pcs"
diff -u "$t/want.pcs" "$t/got.pcs" >"$t/diff" || fail "pipe: PCs per core: $(cat "$t/diff")"
# the same by build id (DIR/<hex id>) instead of --symfs
mkdir -p "$t/ids"
cp "$t/prog.bin" "$t/ids/0102030405060708090a0b0c0d0e0f10"
"$TRAWL" cat --binary-dir "$t/ids" "$t/ete.data" >"$t/cat2" 2>/dev/null
cmp -s "$t/cat" "$t/cat2" || fail "--binary-dir: other events than --symfs"

# a file not found where --symfs / --binary-dir point: the warning lists
# the places looked in (perf.md's order), not advice to give those options
expect_stderr_has "1 mapped file not found (first: /no/such/dir/prog.bin, looked for as $t/none//no/such/dir/prog.bin, $t/none/prog.bin, /no/such/dir/prog.bin)" \
	"$TRAWL" stats --symfs "$t/none" "$t/ete.data"
expect_stderr_has "looked for as $t/none/0102030405060708090a0b0c0d0e0f10, $t/none/.build-id/01/02030405060708090a0b0c0d0e0f10, /no/such/dir/prog.bin)" \
	"$TRAWL" stats --binary-dir "$t/none" "$t/ete.data"
grep -q "give --symfs" "$t/err" && fail "--binary-dir given, and the warning says to give it"
expect_stderr_has "give --symfs DIR or --binary-dir DIR" "$TRAWL" stats "$t/ete.data"

# two mappings of one address, the later one the program: its bytes are
# the ones decoded and shown (a new mmap replaces what was there, as in
# perf's maps), and the other bytes are warned about; trace that ran in
# the earlier mapping would decode wrongly with them (one address space
# for all processes and times), so the answer is not whole: exit 1
printf '\037\040\003\325%.0s' 1 2 3 4 >"$t/old.bin" # four nops
$mk "$t/remap.data" "$t/trace.bin" /unused --map 0x1000="$t/old.bin" --map 0x1000="$t/prog.bin"
"$TRAWL" cat "$t/remap.data" >"$t/cat" 2>"$t/remap.err"
[ $? = 1 ] || fail "remapped: cat exit status not 1: $(cat "$t/remap.err")"
grep -qF "may be decoded wrongly" "$t/remap.err" || fail "remapped: the warning does not say what it costs: $(cat "$t/remap.err")"
expect_exit 1 "$TRAWL" ete tarmac "$t/remap.data"
# and again from the index it built (the warning is not printed then)
expect_exit 1 "$TRAWL" index --index "$t/remap2.idx" "$t/remap.data"
expect_exit 1 "$TRAWL" pc --index "$t/remap2.idx" "$t/remap.data" 0x1004
sed -n 's/^L[0-9]* cpu\([0-9]*\) .* pc=\([0-9a-f]*\) .*/\1 \2/p' "$t/cat" >"$t/got.pcs"
head -6 "$t/want.pcs" | diff -u - "$t/got.pcs" >"$t/diff" || fail "remapped: PCs: $(cat "$t/diff")"
grep -qF "1 mapping put other bytes where a later mapping is" "$t/remap.err" ||
	fail "remapped: no warning: $(cat "$t/remap.err")"
"$TRAWL" mem --json --index "$t/remap.idx" "$t/remap.data" --at 1 0x1000 16 >"$t/mem" 2>/dev/null
grep -qF "\"bytes\":\"$(xxd -p "$t/prog.bin" | tr -d '\n')\"" "$t/mem" ||
	fail "remapped: mem is not the later mapping's: $(cat "$t/mem")"

# without the program: no image, said, exit 1
expect_exit 1 "$TRAWL" index --index "$t/noimg.idx" "$t/ete.data"
expect_stderr_has "place" "$TRAWL" index --index "$t/noimg.idx" "$t/ete.data"

# lost trace: AUX marked truncated and collided (offset by hand in
# perf-handmade.sh): named when built, exit 1, and again from the index
$mk "$t/trunc.data" "$t/trace.bin" /no/such/dir/prog.bin --aux-flags 9
expect_exit 1 "$TRAWL" index --symfs "$t" --index "$t/trunc.idx" "$t/trunc.data"
rm -f "$t/trunc.idx"
expect_stderr_has "offset 768: AUX record (cpu 0, 40 bytes) marked truncated collision: trace was lost there" \
	"$TRAWL" index --symfs "$t" --index "$t/trunc.idx" "$t/trunc.data"
expect_exit 1 "$TRAWL" pc --symfs "$t" --index "$t/trunc.idx" "$t/trunc.data" 0x1004
expect_stderr_has "1 place of the trace could not be decoded when this index was built" \
	"$TRAWL" pc --symfs "$t" --index "$t/trunc.idx" "$t/trunc.data" 0x1004
expect_stdout_has "0x1004: 2 visits" "$TRAWL" pc --symfs "$t" --index "$t/trunc.idx" "$t/trunc.data" 0x1004
# a CPU's AUX data not in the file (no AUXTRACE record for it)
$mk "$t/drop.data" "$t/trace.bin" /no/such/dir/prog.bin --cpus 2 --drop-auxtrace 2
expect_exit 1 "$TRAWL" index --symfs "$t" --index "$t/drop.idx" "$t/drop.data"
expect_exit 1 "$TRAWL" index --symfs "$t" --index "$t/drop.idx" "$t/drop.data"
expect_stderr_has "AUX record (cpu 1, AUX offset 0, 40 bytes): its trace is not in the file" \
	"$TRAWL" cat --symfs "$t" "$t/drop.data"
# cut inside the AUXTRACE data: the record walk names where
$mk "$t/cut.data" "$t/trace.bin" /no/such/dir/prog.bin --cut 20
expect_exit 1 "$TRAWL" index --symfs "$t" --index "$t/cut.idx" "$t/cut.data"
expect_exit 1 "$TRAWL" index --symfs "$t" --index "$t/cut.idx" "$t/cut.data"

# the image is part of the index identity: a changed program rebuilds
mkdir -p "$t/sym"
cp "$t/prog.bin" "$t/sym/prog.bin"
"$TRAWL" pc --symfs "$t/sym" "$t/ete.data" 0x1008 >/dev/null 2>&1 || fail "pc with --symfs sym"
# nop at 0x1008 becomes b.ne: the trace decodes otherwise
printf '\037\040\003\325\101\000\000\124\101\000\000\124\300\003\137\326' >"$t/sym/prog.bin"
expect_stderr_has "building it again" "$TRAWL" pc --symfs "$t/sym" "$t/ete.data" 0x1008
# said as a changed file, not only as options the user did not change
cp "$t/prog.bin" "$t/sym/prog.bin"
expect_stderr_has "was built with other reader options or from other files they name (--ete-*; perf.data: its mapped programs" \
	"$TRAWL" pc --symfs "$t/sym" "$t/ete.data" 0x1008
printf '\037\040\003\325\101\000\000\124\101\000\000\124\300\003\137\326' >"$t/sym/prog.bin"
"$TRAWL" pc --symfs "$t/sym" "$t/ete.data" 0x1008 >/dev/null 2>&1
# also for a compressed perf.data (read through the input layer)
if command -v gzip >/dev/null; then
	gzip -c "$t/ete.data" >"$t/ete.data.gz"
	"$TRAWL" pc --symfs "$t/sym" "$t/ete.data.gz" 0x1008 >/dev/null 2>&1 || fail "pc of ete.data.gz"
	cp "$t/prog.bin" "$t/sym/prog.bin"
	expect_stderr_has "building it again" "$TRAWL" pc --symfs "$t/sym" "$t/ete.data.gz" 0x1008
	expect_stdout_has "  line 7 (event 6)" "$TRAWL" pc --symfs "$t/sym" "$t/ete.data.gz" 0x1008
fi
# and so are the perf options: --symfs elsewhere is another decode
expect_stderr_has "building it again" "$TRAWL" pc --symfs "$t" "$t/ete.data" 0x1008
# perf options on other ETE sources would change nothing: usage errors
expect_exit 2 "$TRAWL" cat --symfs "$t" --ete-config /dev/null "$t/trace.bin"

corpus=${TRAWL_CORPUS:-}
p="$corpus/perf"
if [ -z "$corpus" ] || [ ! -f "$p/perf_etm.data" ]; then
	echo "note: no perf corpus at '${corpus}/perf': corpus checks skipped"
	finish
fi
# direct path = `trawl ete tarmac` -> trawl index, on the same recording
"$TRAWL" ete tarmac --symfs "$p" "$p/perf_etm.data" >"$t/c.tarmac" 2>/dev/null || fail "ete tarmac"
for q in calltree profile; do
	"$TRAWL" $q --symfs "$p" "$p/perf_etm.data" >"$t/direct" 2>"$t/err" || fail "$q direct: $(cat "$t/err")"
	"$TRAWL" $q "$t/c.tarmac" >"$t/via" 2>"$t/err" || fail "$q via Tarmac: $(cat "$t/err")"
	diff -u "$t/via" "$t/direct" >"$t/diff" || fail "$q: direct differs from the Tarmac path: $(cat "$t/diff")"
	[ -s "$t/direct" ] || fail "$q: no output"
done
# pc: the same visits; the Tarmac path also shows each line's text
for a in 0x582b2b105c 0x582b2b10e0 0x582b2b1088; do
	"$TRAWL" pc --symfs "$p" "$p/perf_etm.data" $a >"$t/direct" 2>"$t/err" || fail "pc $a direct: $(cat "$t/err")"
	"$TRAWL" pc "$t/c.tarmac" $a 2>"$t/err" | sed 's/): .*/)/' >"$t/via" || fail "pc $a via Tarmac"
	diff -u "$t/via" "$t/direct" >"$t/diff" || fail "pc $a: direct differs from the Tarmac path: $(cat "$t/diff")"
	grep -q visit "$t/direct" || fail "pc $a: no visits"
done
# the br x17 at 0x10ec is the last instruction before trace was off (a
# Trace On follows, then 0x108c): the call tree makes no tail call of it
# (it did: "0x582b2b108c ... from 0x582b2b10ec [tail call]")
"$TRAWL" calltree --symfs "$p" "$p/perf_etm.data" >"$t/ct" 2>/dev/null
grep -q "from 0x582b2b10e" "$t/ct" || grep -q "0x582b2b1054 .* from 0x582b2b10a0" "$t/ct" ||
	fail "calltree of perf_etm.data: the calls are missing: $(cat "$t/ct")"
grep -q "from 0x582b2b10ec" "$t/ct" && fail "calltree joins across the Trace On: $(cat "$t/ct")"
# a file of the program's name that is another build (its build id is not
# the recording's): passed over and named, not decoded into wrong
# instructions (any ELF with a build id will do: trawl itself)
if readelf -n "$TRAWL" 2>/dev/null | grep -q "Build ID"; then
	# a long folder name: the note names two paths and two build ids, and
	# must not be cut (a 256-byte message ended it short in a longer checkout)
	w="$t/a-folder-name-long-enough-that-the-note-is-longer-than-256-bytes-wherever-the-tree-is/wrong"
	mkdir -p "$w"
	cp "$TRAWL" "$w/etm_test_loop"
	for c in stats "ete decode"; do
		expect_exit 1 "$TRAWL" $c --symfs "$w" "$p/perf_etm.data"
		expect_stderr_has "wrong/etm_test_loop is another build of /data/local/tmp/etm_test_loop (build id " \
			"$TRAWL" $c --symfs "$w" "$p/perf_etm.data"
		expect_stderr_has "the recording's 0c9a20bf9c009d0e4e8bbf9fad0300ae): not used" \
			"$TRAWL" $c --symfs "$w" "$p/perf_etm.data"
	done
else
	echo "note: no readelf or no build id in trawl: the other-build check skipped"
fi
# autofdo without --image: the binary from the mapping; etm_test_loop's
# first load segment is at link address 0 (readelf -l), so trawl's text
# profile has simpleperf's addresses, unshifted
"$TRAWL" autofdo --symfs "$p" --binary etm_test_loop "$p/perf_etm.data" >"$t/afdo" 2>"$t/err" ||
	fail "autofdo: $(cat "$t/err")"
expect_stdout_has "// build_id: 0x0c9a20bf9c009d0e4e8bbf9fad0300ae00000000" \
	"$TRAWL" autofdo --symfs "$p" --binary etm_test_loop "$p/perf_etm.data"
python3 "$TRAWL_SRC/tests/cli/perf-autofdo-oracle.py" "$t/afdo" "$p/perf_inject.data" 0 "$p/etm_test_loop" >"$t/o" ||
	fail "autofdo differs from perf_inject.data: $(cat "$t/o")"
finish
