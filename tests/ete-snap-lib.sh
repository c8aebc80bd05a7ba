# Hand-built ETE snapshots for the rule tests (sourced after cli-lib.sh):
# mksnap writes one, rule decodes it with trawl and with Debian's
# trc_pkt_lister (OpenCSD 1.3.3) and compares both with what the rule
# says. Used by ete-rules.sh and ete-transactions.sh.
norm="$TRAWL_SRC/tests/cli/ete-norm.awk"
t=$_tmp
lister=$(command -v trc_pkt_lister || true)
[ -n "$lister" ] || echo "note: no trc_pkt_lister (libopencsd-bin): reference side skipped"

. "$TRAWL_SRC/tests/ete-snap.sh" # mksnap

# rule NAME TRACEHEX CODEHEX TRCIDR8: compare with $want (the rule) and
# $ref_want (what OpenCSD 1.3.3 gives; the same as $want unless it differs);
# $after_mksnap, when set, is run with the snapshot's folder before decoding
rule() {
	d="$t/$1"
	mksnap "$d" "$2" "$3" "$4"
	${after_mksnap:-:} "$d" # a test's own change to the snapshot
	etm4= cci=
	"$TRAWL" ete decode "$d" 2>"$t/err" | awk -v mode=ourel -v cc_events=1 -f "$norm" | grep -v SYNC_LOST >"$t/ours"
	printf '%s\n' "$want" | diff - "$t/ours" >"$t/d" || fail "$1: trawl differs from the rule:
$(cat "$t/d")"
	[ -n "$lister" ] || return 0
	"$lister" -ss_dir "$d" -decode -no_time_print 2>&1 | sed 's/\(.\)Idx:/\1\nIdx:/g' |
		awk -v mode=refel -v cc_events=1 -f "$norm" | grep -v SYNC_LOST >"$t/ref"
	printf '%s\n' "${ref_want:-$want}" | diff - "$t/ref" >"$t/d" || fail "$1: OpenCSD differs:
$(cat "$t/d")"
	ref_want=
}

asy=000000000000000000000080
tinfo=0100
# Trace On, Address + Context 0x1000 (64-bit IS0), EL1 secure AArch64
start=04850008000000000000""11
ctx="10 CONTEXT EL1 S 64"
# 0x1000: b.ne 0x100c; 0x1004: nop; 0x1008: nop; 0x100c: ret
prog=61000054""1f2003d5""1f2003d5""c0035fd6

