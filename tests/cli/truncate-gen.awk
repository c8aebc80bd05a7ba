# A trace for tests/cli/truncate-stream.sh: P instructions of a counting
# loop (never stuck: X0 changes every time), a faulting push with its
# CoreEvent_CURRENT_SPx_SYNC exception and register lines, then the crash
# loop (the vector's own push faults) TURNS times, forever when TURNS is 0.
# Lines before the cut: 2P + 8 (the fault) + 8 (one turn).
function fault(t, pc) {
	printf "%d clk cpu0 IT (%d) %s a9bf7bfd O EL1h_s : STP      x29,x30,[sp,#-0x10]!\n", t, t, pc
	printf "%d clk cpu0 MW8 0000fff0 (ABORTED)\n", t
	printf "%d clk cpu0 E %s 00000004 CoreEvent_CURRENT_SPx_SYNC\n", t, pc
	printf "%d clk cpu0 R ESR_EL1 96000045\n%d clk cpu0 R FAR_EL1 000000000000fff0\n", t, t
	printf "%d clk cpu0 R ELR_EL1 00000000%s\n", t, pc
	printf "%d clk cpu0 R SPSR_EL1 00000000000003c5\n%d clk cpu0 R cpsr 000003c5\n", t, t
}
BEGIN {
	for (i = 1; i <= P; i++) {
		printf "%d clk cpu0 IT (%d) 00003000 f1000400 O EL1h_s : SUBS     x0,x0,#1\n", i, i
		printf "%d clk cpu0 R X0 %016x\n", i, P - i
	}
	t = P + 1
	fault(t, "00080008")
	for (k = 0; TURNS == 0 || k < TURNS; k++)
		fault(++t, "00081200")
}
