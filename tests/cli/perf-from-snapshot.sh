#!/bin/sh
# perf-mkdata.py --regs/--map (what bench-ete-perf.sh times): an emulated
# program's ETE snapshot, written into a perf.data with the snapshot's
# registers and its memory dumps as the mapped files, decodes to the same
# elements as the snapshot (bar the trace ID column and the helper's one
# IGNORE byte of padding), and to every instruction the emulator ran.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
ex=$TRAWL_BUILD/examples
[ -x "$ex/exceptions" ] || skip "examples not built"
"$TRAWL" emulate -n 200000 --ete "$t/s" --timestamps --cycle-counts "$ex/exceptions" -- 1000 \
	>/dev/null 2>"$t/gen.log" </dev/null || fail "emulate: $(cat "$t/gen.log")"
maps=$(awk -F= -v d="$t/s" '/^file=/{f=$2} /^address=/{printf " --map %s=%s/%s", $2, d, f}' "$t/s/cpu_0.ini")
# shellcheck disable=SC2086 # $maps is a list of options
$mk "$t/p.data" "$t/s/trace.bin" /none --regs "$t/s/ETE_0.ini" $maps
expect_stdout_has "TRCCONFIGR=0x811 " "$TRAWL" info "$t/p.data"
# each dump mapped where cpu_0.ini puts it, as long as it says
for m in $(awk -F= '/^file=/{f=$2} /^address=/{a=$2} /^length=/{printf "%s,%s,%s\n", a, $2, f}' "$t/s/cpu_0.ini"); do
	IFS=, read -r a l f <<M
$m
M
	expect_stdout_has "$(printf '0x%x-0x%x pgoff 0x0 %s' "$a" $((a + l)) "$t/s/$f")" "$TRAWL" info "$t/p.data"
done
expect_exit 0 "$TRAWL" ete decode "$t/s"
cut -f1,3- "$t/out" >"$t/snap.el"
expect_exit 0 "$TRAWL" ete decode "$t/p.data"
cut -f1,3- "$t/out" | grep -v '	IGNORE$' >"$t/perf.el"
diff -u "$t/snap.el" "$t/perf.el" >"$t/diff" || fail "perf.data and snapshot decode differently: $(head -c 2000 "$t/diff")"
n=$(awk -F'\t' '$2 == "INSTR_RANGE" { n += $5 } END { print n + 0 }' "$t/perf.el")
[ "$n" = 200000 ] || fail "perf.data decodes to $n instructions, the emulator ran 200000"

# autofdo and coverage from the mapping of the program's ELF itself (static,
# its code segment at file offset 0 and 0x400000, where it ran): the same
# profile as of the Tarmac that trawl ete tarmac writes of the perf.data;
# two recordings of it (here the same one twice) give one block with every
# count doubled (each file added the ELF again: a second block, and drcov
# listed the module twice)
$mk "$t/elf.data" "$t/s/trace.bin" /none --regs "$t/s/ETE_0.ini" --map "0x400000=$ex/exceptions"
"$TRAWL" autofdo --binary exceptions "$t/elf.data" >"$t/a1" 2>"$t/err" || fail "autofdo: $(cat "$t/err")"
"$TRAWL" ete tarmac "$t/elf.data" -o "$t/elf.tarmac" 2>"$t/err" || fail "ete tarmac: $(cat "$t/err")"
"$TRAWL" autofdo --image "$ex/exceptions" "$t/elf.tarmac" >"$t/at" 2>"$t/err" || fail "autofdo of the Tarmac: $(cat "$t/err")"
grep -v '^//' "$t/a1" >"$t/a1.counts"
grep -v '^//' "$t/at" | diff -u - "$t/a1.counts" >"$t/diff" || fail "autofdo: perf.data and its Tarmac differ: $(head -c 2000 "$t/diff")"
"$TRAWL" autofdo --binary exceptions "$t/elf.data" "$t/elf.data" >"$t/a2" 2>"$t/err" || fail "autofdo twice: $(cat "$t/err")"
awk -F: 'NR == FNR { if ($0 ~ /^[0-9a-f]+(-|->)[0-9a-f]+:[0-9]+$/) { c[$1] = $2; n++ }; next }
	/^[0-9a-f]+(-|->)[0-9a-f]+:[0-9]+$/ { if (!($1 in c) || $2 != 2 * c[$1]) bad++; m++ }
	/^\/\/ .*exceptions$/ { blocks++ }
	END { if (n == 0 || m != n || bad || blocks != 1) { print n, m, bad, blocks; exit 1 } }' \
	"$t/a1" "$t/a2" >"$t/o" || fail "autofdo of two copies: not one block of doubled counts (single, two, bad, blocks): $(cat "$t/o")"
"$TRAWL" coverage --format drcov "$t/elf.data" "$t/elf.data" >"$t/cov" 2>"$t/err" || fail "coverage twice: $(cat "$t/err")"
grep -aq "^Module Table: version 2, count 1$" "$t/cov" || fail "coverage of two copies: $(grep -a '^Module Table' "$t/cov")"

# --binary NAME that names nothing: a usage error (2) when the recording is
# whole; when it was cut short before its MMAP2 (records by hand: data at
# 256, AUXTRACE_INFO 136, COMM 56, so the MMAP2 at 448), the missing image
# is a consequence of the loss: exit 1, the damage named
expect_exit 2 "$TRAWL" autofdo --binary nosuch "$t/elf.data"
expect_stderr_has "no image named 'nosuch'" "$TRAWL" autofdo --binary nosuch "$t/elf.data"
expect_stdout_has "448	10	MMAP2" "$TRAWL" info --records "$t/elf.data"
size=$(wc -c <"$t/elf.data")
$mk "$t/cut.data" "$t/s/trace.bin" /none --regs "$t/s/ETE_0.ini" --map "0x400000=$ex/exceptions" \
	--cut $((size - 448))
expect_exit 1 "$TRAWL" autofdo --binary exceptions "$t/cut.data"
expect_stderr_has "cut.data: data section [256, +" "$TRAWL" autofdo --binary exceptions "$t/cut.data"
expect_stderr_has "no image named 'exceptions': the input is damaged" \
	"$TRAWL" autofdo --binary exceptions "$t/cut.data"
finish
