#!/bin/sh
# Differential test against OpenCSD 1.8 (reference/*.ppl in the corpus):
# for every snapshot, the packet sequence (ID, offset, type, address,
# atoms) and the decoded elements (instruction ranges with start, end,
# count and taken/not taken; no-image, exceptions, exception returns,
# contexts) must agree. Disagreements that come from OpenCSD are listed
# in KNOWN below with the reason; the normalisation rules that bridge
# presentation differences live in ete-norm.awk.
. "$TRAWL_SRC/tests/cli-lib.sh"
corpus=${TRAWL_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/ete" ] || skip "no ETE corpus at '${corpus}/ete'"
norm="$TRAWL_SRC/tests/cli/ete-norm.awk"

# Reference lines OpenCSD produces that trawl (rightly) does not:
#  ete_ip  after 'ret' (indirect branch) the next address is unknown until
#          an address packet; OpenCSD keeps walking from the instruction after
#          the ret and, for the exception that follows, reports 9131
#          instructions up to the preferred return address that never ran.
#  q_elem  same cause: a Q packet right after a taken 'ret' gets OpenCSD's
#          stale "first" address; trawl reports the count with start 0.
KNOWN='ete_ip|- RANGE 0x1aa948 0x1b37f4 9131 E|
q_elem|- NOPATH 0x6960c 0x695c8 1|- NOPATH 0x0 0x695c8 1'
# And one rule: a gap in the image gets one no-image element (OpenCSD 1.8
# repeats it when an exception follows in the same gap, as in
# infrastructure): a reference NACC that repeats the one before it and is
# followed by an exception is dropped (one_nacc). Two NACCs at one address
# with no exception after are two gaps (an address packet went back there).
one_nacc() {
	awk 'held != "" { if (!($2 == "EXCEPTION" && $1 == hid)) print held; held = "" }
	     $2 == "NACC" && $0 == prev { held = $0; hid = $1; next }
	     { prev = $0; print } END { if (held != "") print held }'
}

known_fix() { # snapshot file: replace known reference lines by trawl's answer
	printf '%s\n' "$KNOWN" | while IFS='|' read -r snap old new; do
		[ "$snap" = "$1" ] || continue
		awk -v old="$old" -v new="$new" '$0 == old { if (new != "") print new; next } { print }' \
			"$2" >"$2.k" && mv "$2.k" "$2"
	done
}

n=0
for d in "$corpus"/ete/*/*/; do
	name=$(basename "$d")
	ref=$(ls "$d"reference/*.pkts.ppl 2>/dev/null | head -1)
	dref=$(ls "$d"reference/*.decode.ppl 2>/dev/null | head -1)
	[ -n "$dref" ] || continue
	[ -n "$ref" ] || ref=$dref
	n=$((n + 1))
	ign=0; grep -q 'ID:0;' "$ref" && ign=1
	ds=0; grep -q dstream "$d/trace.ini" && ds=1
	buf=$(sed -n 's/^Using \(.*\) as trace source.*/\1/p' "$ref" | head -1)
	# packets (OpenCSD counts DSTREAM offsets in its own way: compare those
	# without offsets, see ete-norm.awk)
	sed 's/\(.\)Idx:/\1\nIdx:/g' "$ref" | awk -v mode=refpkt -v ignore_id=$ign -f "$norm" >"$_tmp/rp"
	"$TRAWL" ete packets --buffer "$buf" "$d" 2>"$_tmp/err" |
		awk -v mode=ourpkt -v ignore_id=$ign -v dstream=$ds -f "$norm" >"$_tmp/op"
	if [ $ds = 1 ]; then
		cut -d' ' -f1,3- "$_tmp/rp" >"$_tmp/rp2"; mv "$_tmp/rp2" "$_tmp/rp"
		cut -d' ' -f1,3- "$_tmp/op" >"$_tmp/op2"; mv "$_tmp/op2" "$_tmp/op"
	fi
	[ -s "$_tmp/rp" ] || fail "$name: no reference packets parsed"
	diff "$_tmp/rp" "$_tmp/op" >"$_tmp/d" || fail "$name: packets differ from OpenCSD:
$(head -10 "$_tmp/d")"
	# decoded elements, per trace ID
	sed 's/\(.\)Idx:/\1\nIdx:/g' "$dref" | awk -v mode=refel -v ignore_id=$ign -f "$norm" |
		awk -v mode=ctx -f "$norm" | grep -v SYNC_LOST | sort -s -k1,1 | one_nacc >"$_tmp/re"
	known_fix "$name" "$_tmp/re"
	"$TRAWL" ete decode --buffer "$buf" "$d" 2>"$_tmp/err" |
		awk -v mode=ourel -v ignore_id=$ign -f "$norm" |
		awk -v mode=ctx -f "$norm" | grep -v SYNC_LOST | sort -s -k1,1 >"$_tmp/oe"
	diff "$_tmp/re" "$_tmp/oe" >"$_tmp/d" || fail "$name: decoded elements differ from OpenCSD:
$(head -10 "$_tmp/d")"
done
[ $n -gt 0 ] || skip "no snapshots with reference output under $corpus/ete"
echo "compared $n snapshots"
finish
