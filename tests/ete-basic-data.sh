# The hand-made program and trace of ete-basic.sh (whose decode is worked
# out by hand there), written into $t; sourced by ete-basic.sh and by the
# perf.data tests (tests/perf-lib.sh), which wrap the same trace.
# program at 0x1000:  nop; b.ne 0x100c; nop; ret   (little-endian words)
printf '\037\040\003\325\101\000\000\124\037\040\003\325\300\003\137\326' >"$t/prog.bin"
# trace: A-Sync, Trace Info, Trace On, Address+Context 64-bit IS0 0x1000
# (EL1, secure, AArch64), atom N, atom E, Address 32-bit 0x1004, E, E
{
	printf '\000\000\000\000\000\000\000\000\000\000\000\200'
	printf '\001\000\004'
	printf '\205\000\010\000\000\000\000\000\000\021'
	printf '\366\367'
	printf '\232\001\010\000\000'
	printf '\367\367'
} >"$t/trace.bin"
