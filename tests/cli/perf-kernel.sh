#!/bin/sh
# Kernel addresses in a perf.data: without an image they decode as "no
# image" (the decode goes on, exit 1, said apart from user code and named
# with --kallsyms); --vmlinux places the kernel's ELF where it ran, shifted
# by the run-time _text (the kernel MMAP's pgoff, else kallsyms' _text)
# less its own. The trace is ete-basic.sh's with its one long address moved
# from 0x1000 to 0xffff800000001000 (its other address packet keeps the high
# half), so its decode is the hand-worked one at that address.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
K=ffff80000000
{
	printf '\000\000\000\000\000\000\000\000\000\000\000\200'
	printf '\001\000\004'
	printf '\205\000\010\000\000\000\200\377\377\021'
	printf '\366\367'
	printf '\232\001\010\000\000'
	printf '\367\367'
} >"$t/ktrace.bin"
kwant() {
	printf '%s\n' TRACE_ON "PE_CONTEXT	EL1	S	64" \
		"INSTR_RANGE	0x${K}1000	0x${K}1008	2	A64	N	BR" \
		"INSTR_RANGE	0x${K}1008	0x${K}1010	2	A64	E	iBR-ret" \
		"INSTR_RANGE	0x${K}1004	0x${K}1008	1	A64	E	BR" \
		"INSTR_RANGE	0x${K}100c	0x${K}1010	1	A64	E	iBR-ret"
}
kdecode() { # name want-rc args...
	name=$1 wrc=$2; shift 2
	"$TRAWL" ete decode "$@" >"$t/d.out" 2>"$t/d.err"
	rc=$?
	[ "$rc" = "$wrc" ] || fail "$name: exit $rc, want $wrc: $(cat "$t/d.err")"
}
printf '%s\n' "${K}0000 T _text" "${K}1000 T kfunc" "${K}2000 t other" \
	"ffff800000100000 t mod_fn	[some_module]" >"$t/kallsyms"

# the kernel MMAP says where _text ran (0xffff800000000000)
$mk "$t/k.data" "$t/ktrace.bin" /no/such/dir/prog.bin --kernel-text 0xffff800000000000
kdecode "no vmlinux" 1 "$t/k.data"
grep -q "ADDR_NACC	no image at 0x${K}1000" "$t/d.out" || fail "no vmlinux: want a no-image element at 0x${K}1000: $(cat "$t/d.out")"
grep -q "kernel addresses (first: 0x${K}1000): give --vmlinux FILE to decode them, --kallsyms FILE to name them" "$t/d.err" ||
	fail "no vmlinux: message: $(cat "$t/d.err")"
kdecode "kallsyms only" 1 --kallsyms "$t/kallsyms" "$t/k.data"
grep -q "(first: 0x${K}1000 (kfunc+0x0)): give --vmlinux FILE to decode them$" "$t/d.err" ||
	fail "kallsyms: message: $(cat "$t/d.err")"

if command -v aarch64-linux-gnu-as >/dev/null 2>&1 && command -v aarch64-linux-gnu-ld >/dev/null 2>&1; then
	# vmlinux linked with _text at 0xffff800010000000: KASLR moved it down
	# by 0x10000000; kfunc is the program of ete-basic.sh
	printf '%s\n' '.text' '.globl _text' '_text: .skip 0x1000' \
		'kfunc: .inst 0xd503201f, 0x54000041, 0xd503201f, 0xd65f03c0' >"$t/k.s"
	aarch64-linux-gnu-as -o "$t/k.o" "$t/k.s" &&
		aarch64-linux-gnu-ld -Ttext=0xffff800010000000 -e _text -o "$t/vmlinux" "$t/k.o" ||
		fail "cannot build the test vmlinux"
	kdecode "vmlinux" 0 --vmlinux "$t/vmlinux" "$t/k.data"
	grep -v '^-' "$t/d.out" | cut -f3- >"$t/got"
	kwant >"$t/want"
	diff -u "$t/want" "$t/got" >"$t/diff" || fail "vmlinux: $(cat "$t/diff")"
	# a kernel MMAP without the run-time _text (pgoff 0): kallsyms gives it
	$mk "$t/k0.data" "$t/ktrace.bin" /no/such/dir/prog.bin
	kdecode "vmlinux + kallsyms" 0 --vmlinux "$t/vmlinux" --kallsyms "$t/kallsyms" "$t/k0.data"
	grep -v '^-' "$t/d.out" | cut -f3- >"$t/got"
	diff -u "$t/want" "$t/got" >"$t/diff" || fail "vmlinux + kallsyms: $(cat "$t/diff")"
	# neither says: placed at its link addresses, said; nothing decodes there
	kdecode "vmlinux unplaced" 1 --vmlinux "$t/vmlinux" "$t/k0.data"
	grep -q "placed at its link addresses (the recording does not say where _text ran" "$t/d.err" ||
		fail "vmlinux unplaced: message: $(cat "$t/d.err")"
else
	echo "note: no aarch64 binutils: --vmlinux checks skipped"
fi

# bad --kallsyms / --vmlinux files: a clear error naming them, exit 1
printf '%s\n' "${K}0000 T _text" "not a symbol line" >"$t/bad.ks"
expect_exit 1 "$TRAWL" ete decode --kallsyms "$t/bad.ks" "$t/k.data"
expect_stderr_has "bad.ks: line 2: not a kallsyms line" "$TRAWL" ete decode --kallsyms "$t/bad.ks" "$t/k.data"
printf '%s\n' "0000000000000000 T _text" "0000000000000000 T kfunc" >"$t/zero.ks"
expect_stderr_has "every address is 0" "$TRAWL" ete decode --kallsyms "$t/zero.ks" "$t/k.data"
expect_exit 1 "$TRAWL" ete decode --vmlinux "$t/kallsyms" "$t/k.data"
expect_stderr_has "is not an ELF file" "$TRAWL" ete decode --vmlinux "$t/kallsyms" "$t/k.data"
finish
