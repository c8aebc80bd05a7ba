# Helpers for the emulator's CLI tests (sourced after cli-lib.sh).

# same_as_qemu OUT RC PROGRAM ARGS...: QEMU runs PROGRAM with ARGS (stdout
# and stderr together, stdin /dev/null); its output must equal the file OUT
# and its exit status RC. Says so and does nothing when QEMU is missing.
same_as_qemu() {
	sq_out=$1 sq_rc=$2; shift 2
	if ! command -v qemu-aarch64 >/dev/null; then
		echo "qemu-aarch64 not installed: checked against the expected text only"
		return
	fi
	# in a subshell whose stderr is dropped: dash reports a program killed
	# by a signal ("Terminated") on the stderr the command had
	( qemu-aarch64 "$@" >"$_tmp/qemu.out" 2>&1 </dev/null ) 2>/dev/null
	sq_got=$?
	[ "$sq_got" = "$sq_rc" ] || fail "qemu-aarch64 $* exited $sq_got, expected $sq_rc"
	cmp -s "$_tmp/qemu.out" "$sq_out" ||
		fail "output of $* differs from QEMU's: $(diff "$_tmp/qemu.out" "$sq_out" | head -20)"
}
