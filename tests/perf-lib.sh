# Shared by the tests/cli/perf-*.sh tests (source after cli-lib.sh): the
# program and trace of ete-basic.sh (its decode worked out by hand there),
# the helper that writes perf.data files from the documented layouts, and
# the check of a decode against those hand-worked ranges.
command -v python3 >/dev/null || skip "no python3"
t=$_tmp
mk="python3 $TRAWL_SRC/tests/cli/perf-mkdata.py"
. "$TRAWL_SRC/tests/ete-basic-data.sh"
# the decode worked out by hand in ete-basic.sh, once per trace ID
want() {
	for id in "$@"; do
		printf '%s\t%s\n' "$id" TRACE_ON "$id" "PE_CONTEXT	EL1	S	64" \
			"$id" "INSTR_RANGE	0x1000	0x1008	2	A64	N	BR" \
			"$id" "INSTR_RANGE	0x1008	0x1010	2	A64	E	iBR-ret" \
			"$id" "INSTR_RANGE	0x1004	0x1008	1	A64	E	BR" \
			"$id" "INSTR_RANGE	0x100c	0x1010	1	A64	E	iBR-ret"
	done
}
# the exit status wanted is $want_rc (default 0); d.err keeps the messages
check_decode() { # name file ids...
	name=$1 file=$2; shift 2
	"$TRAWL" ete decode --symfs "$t" "$file" >"$t/d.out" 2>"$t/d.err"
	rc=$?
	[ "$rc" = "${want_rc:-0}" ] || fail "$name: exit $rc: $(cat "$t/d.err")"
	grep -v '^-' "$t/d.out" | cut -f2- >"$t/got"
	want "$@" >"$t/want"
	diff -u "$t/want" "$t/got" >"$t/diff" || fail "$name: $(cat "$t/diff")"
}
# perf report -D's records ("0x1e8@FILE [0x38]: event: 3", pipe offsets
# count from after the 16-byte header) and OpenCSD packets ("Idx:27;
# ID:10;	I_ATOM_F1 : ...") against trawl info --records / ete packets.
# perf also prints its synthesized attribute records at offset 0: not in
# the file; it lists what COMPRESSED records hold, not themselves.
perf_cross_check() { # name file [pipe]
	name=$1 f=$2
	if [ "${3:-}" = pipe ]; then
		cat "$f" | timeout 60 perf report -D -i - --stdio >"$t/perf.txt" 2>/dev/null
		sed -n 's/^\(0x[0-9a-f]*\|0\)@pipe \[0x[0-9a-f]*\]: event: \([0-9]*\)$/\1 \2/p' "$t/perf.txt" |
			while read -r o ty; do echo "$((o + 16)) $ty"; done >"$t/perf.recs"
	else
		timeout 60 perf report -D -i "$f" --stdio >"$t/perf.txt" 2>/dev/null
		sed -n 's/^0x\([0-9a-f]*\)@.* \[0x[0-9a-f]*\]: event: \([0-9]*\)$/\1 \2/p' "$t/perf.txt" |
			while read -r o ty; do echo "$((0x$o)) $ty"; done >"$t/perf.recs"
	fi
	"$TRAWL" info --records "$f" | cut -f1,2 | tr '\t' ' ' | grep -v ' 81$' >"$t/trawl.recs"
	diff -u "$t/perf.recs" "$t/trawl.recs" >"$t/diff" || fail "perf report -D records ($name): $(cat "$t/diff")"
	sed -n 's/^	Idx:\([0-9]*\); ID:\([0-9a-f]*\);	I_\([A-Z0-9_]*\) .*/\1 \2 \3/p' "$t/perf.txt" >"$t/perf.pk"
	"$TRAWL" ete packets "$f" 2>/dev/null | cut -f1-3 | tr '\t' ' ' |
		awk '{ sub(/^0/, "", $2); print }' >"$t/trawl.pk"
	[ -s "$t/perf.pk" ] || fail "perf report -D ($name) listed no packets"
	diff -u "$t/perf.pk" "$t/trawl.pk" >"$t/diff" || fail "perf packets ($name): $(cat "$t/diff")"
}

# perf_trace1 FILE: a second CPU's raw ETE for the hand-made recordings:
# A-Sync, Trace Info, Trace On, Address+Context 0x1008 (EL1, S, AArch64),
# E (nop; ret taken), Address 0x1004, E (b.ne taken), E (ret): over the
# test program's b.ne/nop/nop/ret at 0x1000, PCs 1008 100c 1004 100c
perf_trace1() {
	{
		printf '\000\000\000\000\000\000\000\000\000\000\000\200'
		printf '\001\000\004'
		printf '\205\002\010\000\000\000\000\000\000\021'
		printf '\367'
		printf '\232\001\010\000\000'
		printf '\367\367'
	} >"$1"
}
