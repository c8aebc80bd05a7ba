# Turns a trawl emulate trace (mode=trace) or a QEMU single-step CPU log
# (mode=qemu) into one line per instruction from the first one at MAIN:
#   PC X0 ... X30 SP NZCV   (registers *after* the instruction; NZCV as one
#                           hex digit, the top of CPSR / PSTATE)
# so that the two can be compared with diff.
#   awk -v mode=trace -v main=4007a0 -f emulate-qemu.awk trace.tarmac
# The trace gives the registers after each instruction (initial dump plus R
# lines); QEMU logs them *before* each instruction, so a QEMU line pairs the
# PC of record j with the registers of record j+1. The two runs put their
# stacks in different places, so values within 16 MiB below (or 64 KiB
# above) the SP at main are printed as "s" plus their offset from that SP.
# What start-up code left in the registers differs between the runs (QEMU
# tells glibc about other CPU features), so a register prints as "=" in the
# trace when no instruction since main wrote it, and in QEMU's log when it
# still holds its value at main (QEMU's first line lists those values).
# mode=compare then reads both outputs in step:
#   awk -v mode=compare -v qemu=qemu.txt -f emulate-qemu.awk trace.txt
# equal fields pass; a trace "=" against a QEMU value is a write the trace
# missed; a trace value against QEMU "=" must equal QEMU's value at main.
# With -v randoms="HEX ..." (values trawl derives from its fixed random
# bytes, lower case, no leading zeros) each such value in the trace may
# stand for one other value in QEMU's, the same every time.
function hex2num(h,   i, v) {
	v = 0
	h = tolower(h)
	for (i = length(h) > 13 ? length(h) - 12 : 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
# values repeat a lot: each raw value is normalised once (sp0 is set
# before the first call and does not change)
function norm(h,   v, raw) {
	if (h in normed) return normed[h]
	raw = h
	h = tolower(h)
	sub(/^0+/, "", h)
	if (h == "") h = "0"
	if (length(h) > 13) { normed[raw] = h; return h }
	v = hex2num(h)
	if (v >= sp0 - 16777216 && v < sp0 + 65536) h = "s" (v - sp0)
	normed[raw] = h
	return h
}
function emit(pc,   r, line) {
	if (limit && count >= limit) exit 0
	line = pc
	for (r = 0; r <= 32; r++)
		line = line " " ((mode == "trace" ? !written[r] : reg[r] == atmain[r]) ? "=" : norm(reg[r]))
	print line
	count++
}
mode == "trace" && ($3 == "IT" || $3 == "IS") {
	if (started) emit(curpc)
	curpc = tolower($5); sub(/^0+/, "", curpc)
	if (!started && curpc == main) { started = 1; sp0 = hex2num(reg[31]); for (r = 0; r <= 32; r++) atmain[r] = reg[r] }
	next
}
mode == "trace" && $3 == "R" {
	if ($4 ~ /^X[0-9]+$/) { r = substr($4, 2) + 0; reg[r] = $5; written[r] = started }
	else if ($4 == "SP_EL0") { reg[31] = $5; written[31] = started }
	else if ($4 == "cpsr") { reg[32] = substr($5, 1, 1); written[32] = started }
	next
}
# QEMU record k (k = 0 at main) is complete when record k+1 starts; the
# line for instruction k-1 is its PC with record k's registers.
mode == "qemu" && /PC=/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^PC=/) { pc = tolower(substr($i, 4)); sub(/^0+/, "", pc) }
	if (started) {
		k++
		if (k >= 2) emit(pc2)
		pc2 = pc1
		pc1 = pc
	}
	curpc = pc
}
mode == "qemu" {
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^X[0-9][0-9]=/) reg[substr($i, 2, 2) + 0] = substr($i, 5)
		else if ($i ~ /^SP=/) reg[31] = substr($i, 4)
		else if ($i ~ /^PSTATE=/) reg[32] = substr($i, 8, 1)
	}
	if (!started && curpc == main && $0 ~ /SP=/) {
		started = 1; k = 0; pc1 = main
		sp0 = hex2num(reg[31]); for (r = 0; r <= 32; r++) atmain[r] = reg[r]
		line = "atmain"
		for (r = 0; r <= 32; r++) line = line " " norm(reg[r])
		print line
	}
}
mode == "compare" {
	if (!opened) {
		opened = 1
		nr = split(randoms, rl, " ")
		for (j = 1; j <= nr; j++) rnd[rl[j]] = 1
		if ((getline q < qemu) <= 0) { print "empty QEMU side"; bad = 1; exit 1 }
		split(q, at, " ")
	}
	if ((getline q < qemu) <= 0) exit bad ? 1 : 0   # QEMU ran out: compare what both have
	nt = split($0, t, " "); split(q, v, " ")
	if (t[1] != v[1]) { print "PC diverges after " compared " instructions: trace " t[1] ", qemu " v[1]; bad++; exit 1 }
	# flags set while a register held one of those random values (a compare
	# with malloc's key) may differ too, until the flags change again
	if (t[34] != pt34 || v[34] != pv34) {
		rflags = 0
		for (i = 2; i <= 33; i++) if (t[i] in rnd) rflags = 1
		pt34 = t[34]; pv34 = v[34]
	}
	for (i = 2; i <= 34; i++) {
		if (t[i] == v[i] || (v[i] == "=" && t[i] == at[i])) continue
		if (i == 34 && rflags) continue
		# values from randomness (the stack protector's canary from
		# AT_RANDOM, malloc's tcache key from getrandom) are fixed in trawl
		# and random in QEMU: each of trawl's (-v randoms="HEX HEX") pairs
		# with one QEMU value, learnt where it first appears
		if (t[i] in rnd && v[i] != "=") {
			if (!(t[i] in qrnd)) qrnd[t[i]] = v[i]
			if (v[i] == qrnd[t[i]]) continue
		}
		if (bad < 20) print "instruction " compared " after main, pc " t[1] ": " (i == 34 ? "NZCV" : i == 33 ? "SP" : "X" (i - 2)) " trace " t[i] " qemu " (v[i] == "=" ? "unchanged since main" : v[i])
		bad++
	}
	compared++
	next
}
END {
	if (mode == "compare") { print "compared " compared + 0 " instructions, " bad + 0 " mismatches"; exit bad ? 1 : 0 }
	if (mode == "trace" && started) emit(curpc)
	if (mode == "qemu" && started && k >= 1) emit(pc2)
}
