#!/bin/sh
# Bad input to trawl emulate: files that are not static AArch64 programs are
# refused with a reason; programs that fault stop with the PC and address,
# exit 1 and leave a trace that is complete up to the last instruction.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples"

# usage errors
expect_exit 2 "$TRAWL" emulate
expect_exit 2 "$TRAWL" emulate x --style nope
expect_exit 2 "$TRAWL" emulate x -n 0
expect_stderr_has "cannot open 'nonexistent'" "$TRAWL" emulate nonexistent -o "$_tmp/t"

# not an ELF file
printf 'hello, world\n' >"$_tmp/text"
expect_exit 1 "$TRAWL" emulate "$_tmp/text" -o "$_tmp/t"
expect_stderr_has "not an ELF file" "$TRAWL" emulate "$_tmp/text" -o "$_tmp/t"

[ -x "$ex/sort" ] || { echo "examples not built: skipping the rest"; finish; }

# patch bytes of a copy of a good program: patch FILE OFFSET HEXBYTES...
patch() {
	f=$1 off=$2; shift 2
	for b in "$@"; do
		printf "\\$(printf '%03o' "0x$b")" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
		off=$((off + 1))
	done
}
# e_machine (offset 18) = 62, x86-64
cp "$ex/sort" "$_tmp/x86"; patch "$_tmp/x86" 18 3e 00
expect_stderr_has "wrong architecture: ELF machine 62" "$TRAWL" emulate "$_tmp/x86" -o "$_tmp/t"
expect_exit 1 "$TRAWL" emulate "$_tmp/x86" -o "$_tmp/t"
# 32-bit class (offset 4)
cp "$ex/sort" "$_tmp/elf32"; patch "$_tmp/elf32" 4 01
expect_stderr_has "not a 64-bit little-endian ELF" "$TRAWL" emulate "$_tmp/elf32" -o "$_tmp/t"
# program header 2 (offset 64 + 2*56) becomes PT_INTERP: dynamically linked
cp "$ex/sort" "$_tmp/dyn"; patch "$_tmp/dyn" 176 03 00 00 00
expect_stderr_has "dynamically linked" "$TRAWL" emulate "$_tmp/dyn" -o "$_tmp/t"
expect_exit 1 "$TRAWL" emulate "$_tmp/dyn" -o "$_tmp/t"
# program header 0's p_vaddr (offset 64 + 16) = 2^48: outside the address space
cp "$ex/sort" "$_tmp/far"; patch "$_tmp/far" 80 00 00 40 00 00 00 01 00
expect_stderr_has "lies outside the user address space" "$TRAWL" emulate "$_tmp/far" -o "$_tmp/t"
# truncated file: segment data beyond the end
head -c 4096 "$ex/sort" >"$_tmp/short"
expect_stderr_has "segment data lies outside the file" "$TRAWL" emulate "$_tmp/short" -o "$_tmp/t"

# guest faults: message with PC and address, partial trace that ends with
# a whole instruction and says as many instructions as the message. A fault
# with no handler (or its signal blocked or ignored) kills the program as on
# Linux: exit status 128 + the signal, and standard output and status equal
# qemu-aarch64's; trawl's own stop (unsupported system call) exits 1.
fault() { # mode expected-status expected-message
	"$TRAWL" emulate "$ex/faults" -o "$_tmp/f.tarmac" -- "$1" >"$_tmp/out" 2>"$_tmp/err" </dev/null
	rc=$?
	[ $rc = "$2" ] || fail "faults $1: exit $rc, expected $2"
	printf 'faults: %s\n' "$1" | cmp -s - "$_tmp/out" || fail "faults $1: output '$(cat "$_tmp/out")'"
	if [ "$2" != 1 ] && command -v qemu-aarch64 >/dev/null; then
		# the subshell waits for QEMU, so its report of the signal goes to /dev/null
		( qemu-aarch64 "$ex/faults" "$1" >"$_tmp/qout" 2>/dev/null </dev/null
		  echo $? >"$_tmp/qrc" ) 2>/dev/null
		qrc=$(cat "$_tmp/qrc")
		[ $qrc = $rc ] || fail "faults $1: qemu-aarch64 exits $qrc, trawl $rc"
		cmp -s "$_tmp/qout" "$_tmp/out" || fail "faults $1: output differs from qemu-aarch64's"
	fi
	set -- "$1" "$3"
	grep -qF "$2" "$_tmp/err" || fail "faults $1: stderr '$(cat "$_tmp/err")' lacks '$2'"
	grep -q "at pc 0x[0-9a-f]*, after [0-9]* instructions" "$_tmp/err" ||
		fail "faults $1: no PC in '$(cat "$_tmp/err")'"
	n=$(sed -n 's/.*after \([0-9]*\) instructions.*/\1/p' "$_tmp/err")
	last=$(awk '$3 == "IT" || $3 == "IS" { n = $1 } END { print n }' "$_tmp/f.tarmac")
	[ "$last" = "$n" ] || fail "faults $1: trace ends at instruction $last, message says $n"
	[ "$(tail -c 1 "$_tmp/f.tarmac" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "faults $1: trace does not end with a whole line"
	got=$("$TRAWL" stats --no-timing "$_tmp/f.tarmac" 2>"$_tmp/rerr" | awk '$1 == "insn" { print $2 }')
	[ "$got" = "$n" ] || fail "faults $1: trawl stats reads '$got' instructions, expected $n: $(head -3 "$_tmp/rerr")"
}
fault null 139 "killed by signal 11 (SIGSEGV): write to unmapped memory: 4 bytes at 0x10"
fault blocked 139 "killed by signal 11 (SIGSEGV): write to unmapped memory: 4 bytes at 0x10"
fault ignored 139 "killed by signal 11 (SIGSEGV): write to unmapped memory: 4 bytes at 0x10"
fault jump 139 "killed by signal 11 (SIGSEGV): jump to unmapped memory: 4 bytes at 0x1000 at pc 0x1000"
fault udf 132 "killed by signal 4 (SIGILL): undefined instruction 00000000"
fault brk 133 "killed by signal 5 (SIGTRAP): breakpoint instruction (BRK) reached"
fault syscall 1 "unsupported system call 999"

# the program's exit status becomes trawl's; abort() is 128 + SIGABRT
expect_exit 7 "$TRAWL" emulate "$ex/faults" -o "$_tmp/t" -- exit 7
expect_exit 134 "$TRAWL" emulate "$ex/faults" -o "$_tmp/t" -- abort
finish
