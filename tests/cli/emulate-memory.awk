# Replays the memory lines of a trawl emulate trace (MR/MW lines of the
# Fast Models style, or LD/ST lines of the ldst style) and
# checks that every byte a load returns is the byte the last store to that
# address wrote. Bytes never stored in the trace (loaded from the ELF file,
# or the initial stack) are not checked but counted.
#   awk -f emulate-memory.awk trace.tarmac
# Values are printed most significant byte first, so byte i of an access
# at address A (the byte at A+i) is the i-th pair of hex digits from the
# right. Prints "loads N checked-bytes N unknown-bytes N stores N
# mismatches N" and exits 1 on any mismatch.
function hex2num(h,   i, v) {
	v = 0
	h = tolower(h)
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
$3 ~ /^M[RW][0-9]+$/ {
	size = substr($3, 3) + 0
	addr = hex2num($4)
	val = $5
	if (size == 16) val = $5 $6
	if (length(val) != 2 * size) { print "line " NR ": value length does not match size: " $0; bad++; next }
	if (substr($3, 2, 1) == "W") {
		stores++
		for (i = 0; i < size; i++)
			mem[sprintf("%.0f", addr + i)] = substr(val, 2 * (size - i) - 1, 2)
		next
	}
	loads++
	for (i = 0; i < size; i++) {
		k = sprintf("%.0f", addr + i)
		if (!(k in mem)) { unknown++; continue }
		checked++
		b = substr(val, 2 * (size - i) - 1, 2)
		if (mem[k] != b) {
			if (bad < 20) print "line " NR ": load of byte " k " returned " b ", last store wrote " mem[k] ": " $0
			bad++
		}
	}
}
# LD/ST: a 16-byte line at a multiple of 16, four groups of four bytes,
# highest address first; ".." marks bytes not accessed
$3 == "LD" || $3 == "ST" {
	base = hex2num($4)
	all = $5 $6 $7 $8
	if (length(all) != 32) { print "line " NR ": bad LD/ST line: " $0; bad++; next }
	if ($3 == "ST") stores++; else loads++
	for (j = 0; j < 16; j++) {
		b = substr(all, (15 - j) * 2 + 1, 2)
		if (b == "..") continue
		k = sprintf("%.0f", base + j)
		if ($3 == "ST") { mem[k] = b; continue }
		if (!(k in mem)) { unknown++; continue }
		checked++
		if (mem[k] != b) {
			if (bad < 20) print "line " NR ": load of byte " k " returned " b ", last store wrote " mem[k] ": " $0
			bad++
		}
	}
}
END {
	printf "loads %d checked-bytes %d unknown-bytes %d stores %d mismatches %d\n", loads, checked, unknown, stores, bad
	exit bad || checked == 0 ? 1 : 0
}
