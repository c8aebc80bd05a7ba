# Normalise packet / element listings from OpenCSD's trc_pkt_lister (.ppl)
# and from `trawl ete packets|decode` into one comparable form, so the
# differential tests compare meaning rather than text layout.
#   mode=refpkt  reference packets  -> "ID OFFSET TYPE [addr] [atoms]"
#   mode=ourpkt  trawl packets      -> same
#   mode=refel   reference elements -> "ID KIND fields"
#   mode=ourel   trawl elements     -> same
function hex(s) { s = tolower(s); sub(/^0x0*/, "", s); return "0x" (s == "" ? "0" : s) }
function hexval(s,  i, v) { s = tolower(s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
function idn(s) { s = tolower(s); sub(/^0*/, "", s); return s == "" ? "0" : s }
mode == "refpkt" && /^Idx:[0-9]+; ID:[0-9a-fA-F]+;.*\tI_/ {
	split($0, a, ";"); off = substr(a[1], 5); id = substr(a[2], 5)
	t = $0; sub(/^[^\t]*\t/, "", t); type = t; sub(/ :.*/, "", type); sub(/^I_/, "", type)
	if (type == "NOT_SYNC") next
	if (type == "SCR_ADDR_L_32IS0") type = "SRC_ADDR_L_32IS0"
	if (type == "SCR_ADDR_L_32IS1") type = "SRC_ADDR_L_32IS1"
	if (type == "SCR_ADDR_L_64IS0") type = "SRC_ADDR_L_64IS0"
	if (type == "SCR_ADDR_L_64IS1") type = "SRC_ADDR_L_64IS1"
	# after a reserved header OpenCSD keeps parsing the following bytes
	# as packets; trawl (as specified) skips to the next A-Sync. Compare
	# the bad packet itself, then nothing until the A-Sync.
	if (type == "ASYNC") skip[id] = 0
	if (skip[id]) next
	if (type == "RESERVED") skip[id] = 1
	out = (ignore_id ? "-" : idn(id)) " " off " " type
	if (match(t, /Addr=0x[0-9A-Fa-f]+/)) out = out " " hex(substr(t, RSTART + 5, RLENGTH - 5))
	if (type ~ /^ATOM_F/) { n = split(t, f, "; "); out = out " " f[n] }
	print out; next
}
# DSTREAM files: OpenCSD counts offsets without the 8-byte trailer of each
# 512-byte block; trawl reports file offsets. dstream=1 converts ours.
function strip(o) { return dstream ? o - 8 * int(o / 512) : o }
mode == "ourpkt" {
	n = split($0, f, "\t"); type = f[3]; f[1] = strip(f[1])
	if (type == "NOTSYNC") next
	if (type == "BAD") type = ($0 ~ /reason=2/ ? "RESERVED_CFG" : "RESERVED")
	if (type == "ASYNC") skip[f[2]] = 0
	if (skip[f[2]]) next
	if (type == "RESERVED") skip[f[2]] = 1
	out = (ignore_id ? "-" : idn(f[2])) " " f[1] " " type
	if (match($0, /addr=0x[0-9a-f]+/)) out = out " " hex(substr($0, RSTART + 5, RLENGTH - 5))
	if (type ~ /^ATOM_F/) out = out " " f[4]
	print out; next
}
mode == "refel" && /OCSD_GEN_TRC_ELEM_/ {
	split($0, a, ";"); id = (ignore_id ? "-" : idn(substr(a[2], 5)))
	if (match($0, /INSTR_RANGE\(exec range=0x[0-9a-f]+:\[0x[0-9a-f]+\] num_i\([0-9]+\)/)) {
		s = substr($0, RSTART + 23, RLENGTH - 23); gsub(/[^0-9a-fx]+/, " ", s); split(s, v, " ")
		tk = ($0 ~ /\) E / ? "E" : "N")
		print id " RANGE " hex(v[1]) " " hex(v[2]) " " v[3] " " tk; next
	}
	if (match($0, /I_RANGE_NOPATH\(first 0x[0-9a-f]+:\[next 0x[0-9a-f]+\] num_i\([0-9]+\)/)) {
		s = substr($0, RSTART, RLENGTH); gsub(/I_RANGE_NOPATH\(first |next |num_i/, "", s)
		gsub(/[^0-9a-fx]+/, " ", s); split(s, v, " ")
		print id " NOPATH " hex(v[1]) " " hex(v[2]) " " v[3]; next
	}
	if (match($0, /EXCEPTION\(pref ret addr:0x[0-9a-f]+; excep num \(0x[0-9a-f]+\)/)) {
		s = substr($0, RSTART, RLENGTH); split(s, v, /0x/)
		r = v[2]; sub(/;.*/, "", r); e = v[3]; sub(/\).*/, "", e)
		print id " EXCEPTION " hex("0x" r) " " hex("0x" e); next
	}
	if ($0 ~ /ELEM_EXCEPTION_RET/) { print id " EXC_RET"; next }
	if (match($0, /ELEM_MEMTRANS\([A-Za-z]+\)/)) { print id " MEMTRANS " tolower(substr($0, RSTART + 14, RLENGTH - 15)); next }
	if (cc_events && match($0, /ELEM_CYCLE_COUNT\( \[CC=[0-9]+\]/)) { s = substr($0, RSTART + 22, RLENGTH - 23); print id " CC " s; next }
	if (cc_events && match($0, /ELEM_EVENT\( Numbered:[0-9]+/)) { print id " EVENT " substr($0, RSTART + 21, RLENGTH - 21); next }
	if ($0 ~ /ELEM_NO_SYNC|ELEM_EO_TRACE/) { print id " SYNC_LOST"; next }
	if (match($0, /ADDR_NACC\( 0x[0-9a-f]+/)) { print id " NACC " hex(substr($0, RSTART + 11, RLENGTH - 11)); next }
	if (match($0, /PE_CONTEXT\(\(ISA=[A-Z0-9]+\) EL[0-3][SNR]/)) {
		s = substr($0, RSTART, RLENGTH); el = substr(s, length(s) - 3, 3)
		sec = $0 ~ /EL[0-3]Realm/ ? "Realm" : $0 ~ /EL[0-3]Root/ ? "Root" : $0 ~ /EL[0-3]N/ ? "NS" : "S"
		print id " CONTEXT " el " " sec " " ($0 ~ /64-bit/ ? "64" : "32"); next
	}
	next
}
mode == "ourel" {
	n = split($0, f, "\t"); id = (ignore_id ? "-" : idn(f[2]))
	if (f[3] == "INSTR_RANGE") { print id " RANGE " hex(f[4]) " " hex(f[5]) " " f[6] " " f[8]; next }
	if (f[3] == "I_RANGE_NOPATH") { print id " NOPATH " hex(f[4]) " " hex(f[5]) " " f[6]; next }
	if (f[3] == "EXCEPTION") { r = f[4]; sub(/ret=/, "", r); e = f[5]; sub(/type=/, "", e); print id " EXCEPTION " hex(r) " " hex(e); next }
	if (f[3] == "EXCEPTION_RET") { print id " EXC_RET"; next }
	if (f[3] == "MEMTRANS") { print id " MEMTRANS " f[4]; next }
	if (cc_events && f[3] == "CYCLE_COUNT") { print id " CC " (f[4] == "unknown" ? 0 : f[4]); next }
	if (cc_events && f[3] == "EVENT") { ev = f[4]; sub(/^0x/, "", ev); print id " EVENT " hexval(ev); next }
	if (f[3] == "BAD_PACKET" || f[3] == "EO_TRACE") { print id " SYNC_LOST"; next }
	if (f[3] == "ADDR_NACC") { s = f[4]; sub(/no image at /, "", s); print id " NACC " hex(s); next }
	if (f[3] == "PE_CONTEXT") { print id " CONTEXT " f[4] " " f[5] " " f[6]; next }
	next
}
# mode=ctx: a context element only counts when execution follows it (an
# instruction range, no-image, exception; not a transaction element) before the trace ends or loses
# sync: OpenCSD holds context elements until the next P0 element and drops
# them at end of trace, trawl reports them when they arrive.
mode == "ctx" {
	id = $1
	if ($2 == "CONTEXT") { held[id] = held[id] $0 "\n"; next }
	if ($2 == "SYNC_LOST") { held[id] = ""; next }
	if ($2 == "MEMTRANS") { print; next } # not execution: held contexts wait on
	if (held[id] != "") { printf "%s", held[id]; held[id] = "" }
	print; next
}
