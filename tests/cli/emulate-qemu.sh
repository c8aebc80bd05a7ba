#!/bin/sh
# trawl emulate against an independent emulator: QEMU's user-mode emulator
# runs the same program single-stepped and logs every general-purpose
# register and the flags before each instruction; from main onwards, every
# register (X0-X30, SP, PC, NZCV) after each of 200,000 traced instructions
# must agree. Two programs: examples/sort (C, glibc) and Debian's static
# busybox for arm64 (its awk applet; no symbols, so main is the X0 that
# _start hands to __libc_start_main).
# What differs between the two runs by construction is lined up first:
#  - trawl's stack is put where QEMU put its own (--stack-top, from QEMU's
#    first SP), and both get the same environment in the same order;
#  - QEMU runs as uid 1000, trawl's guest uid (busybox drops privileges
#    only when it is not root), under the program's own name (what
#    prctl(PR_GET_NAME) answers: QEMU passes it to the host);
#  - QEMU emulates a Cortex-A72 (no LSE atomics, as trawl's HWCAP says);
#  - the canary and malloc's key come from randomness (AT_RANDOM,
#    getrandom): fixed in trawl, each may stand for one QEMU value.
. "$TRAWL_SRC/tests/cli-lib.sh"
# QEMU and the comparison dominate the time and are the same in every build;
# the sanitizer build covers the emulator through the other emulate tests
[ -n "${TRAWL_ASAN:-}" ] && skip "QEMU comparison runs in the plain build only"
ex="$TRAWL_BUILD/examples/sort"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
qemu=$(command -v qemu-aarch64) || skip "qemu-aarch64 not installed (qemu-user)"
command -v nm >/dev/null || skip "nm not installed (binutils)"
awkf="$TRAWL_SRC/tests/cli/emulate-qemu.awk"
limit=200000
# trawl's stack-protector canary (AT_RANDOM bytes 0x5a ^ 37i, low byte 0)
# and malloc's tcache key (the first 8 bytes of its getrandom sequence)
randoms="5984e3ce35107f00 eacf79ec743676ad"
# as uid 1000 when we are root; as ourselves when we are uid 1000
asuser=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	asuser="setpriv --reuid=1000 --regid=1000 --clear-groups"
fi
chmod 711 "$_tmp"
mkdir -p "$_tmp/q" && chmod 777 "$_tmp/q"

# oracle NAME MAIN PROGRAM ARGS...: both runs, then the comparison
oracle() {
	name=$1 main=$2 prog=$3
	shift 3
	# QEMU runs as uid 1000, which may not reach into the checkout (a clone
	# in a mode-700 folder): both run the same copy, at the same path
	mkdir -p "$_tmp/p" && chmod 755 "$_tmp/p"
	cp "$prog" "$_tmp/p/" || fail "$name: cannot copy $prog"
	prog="$_tmp/p/$(basename "$prog")"
	ln -sf "$qemu" "$_tmp/q/$(basename "$prog")"
	# QEMU first: where its stack is decides where trawl's goes
	env -i HOME=/ LANG=C PATH=/usr/bin:/bin $asuser "$_tmp/q/$(basename "$prog")" -cpu cortex-a72 \
		-singlestep -d cpu,nochain -D "$_tmp/q/q.log" "$prog" "$@" >"$_tmp/q.out" 2>&1 </dev/null ||
		fail "$name: qemu-aarch64 failed: $(head -c 300 "$_tmp/q.out")"
	qsp=$(head -20 "$_tmp/q/q.log" | sed -n 's/.*SP=\([0-9a-f]*\).*/\1/p' | head -1)
	"$TRAWL" emulate "$prog" -n 1 -o "$_tmp/t1.tarmac" -- "$@" >/dev/null 2>&1 </dev/null
	tsp=$(awk '$3 == "R" && $4 == "SP_EL0" { print $5; exit }' "$_tmp/t1.tarmac")
	top=$(printf '0x%x' $((0x$qsp + 0xfffffffff000 - 0x$tsp)))
	[ $((top % 4096)) = 0 ] || fail "$name: QEMU's stack (SP 0x$qsp) is not laid out like trawl's (0x$tsp)"
	"$TRAWL" emulate "$prog" --stack-top "$top" -o "$_tmp/t.tarmac" -- "$@" >"$_tmp/t.out" 2>&1 </dev/null ||
		fail "$name: trawl emulate failed: $(head -c 300 "$_tmp/t.out")"
	cmp -s "$_tmp/q.out" "$_tmp/t.out" || fail "$name: output differs from QEMU's"
	[ "$main" = auto ] && main=$(awk '$3 ~ /^I[TS]$/ && $10 == "bl" { sub(/^0+/, "", x0); print x0; exit }
		$3 == "R" && $4 == "X0" { x0 = $5 }' "$_tmp/t.tarmac")
	awk -v mode=trace -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/t.tarmac" >"$_tmp/t.txt"
	awk -v mode=qemu -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/q/q.log" >"$_tmp/q.txt"
	rm -f "$_tmp/q/q.log"
	n=$(wc -l <"$_tmp/t.txt")
	[ "$n" -ge $limit ] || fail "$name: only $n instructions after main ($main) in the trace"
	awk -v mode=compare -v randoms="$randoms" -v qemu="$_tmp/q.txt" -f "$awkf" "$_tmp/t.txt" >"$_tmp/cmp" ||
		fail "$name: registers differ from QEMU: $(head -20 "$_tmp/cmp")"
	grep -q "^compared $limit instructions, 0 mismatches" "$_tmp/cmp" ||
		fail "$name: unexpected comparison result: $(tail -3 "$_tmp/cmp")"
	echo "$name (main at $main): $(tail -1 "$_tmp/cmp")"
}

main=$(nm "$ex" | awk '$3 == "main" { sub(/^0+/, "", $1); print $1 }')
[ -n "$main" ] || { fail "no main symbol in $ex"; finish; }
oracle sort "$main" "$ex" 1600

# the oracle itself must notice a wrong value: change one X19 write, and
# the flags of one compare
awk 'done == 0 && $3 == "R" && $4 == "X19" && NR > 100000 { $5 = "00000000deadbeef"; done = 1 } { print }' \
	"$_tmp/t.tarmac" >"$_tmp/bad.tarmac"
awk -v mode=trace -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/bad.tarmac" >"$_tmp/t.txt"
if awk -v mode=compare -v randoms="$randoms" -v qemu="$_tmp/q.txt" -f "$awkf" "$_tmp/t.txt" >"$_tmp/cmp"; then
	fail "comparison did not notice a corrupted register value"
fi
awk 'done == 0 && $3 == "R" && $4 == "cpsr" && NR > 100000 { $5 = ($5 ~ /^8/ ? "0" : "8") substr($5, 2); done = 1 } { print }' \
	"$_tmp/t.tarmac" >"$_tmp/bad.tarmac"
awk -v mode=trace -v main="$main" -v limit=$limit -f "$awkf" "$_tmp/bad.tarmac" >"$_tmp/t.txt"
if awk -v mode=compare -v randoms="$randoms" -v qemu="$_tmp/q.txt" -f "$awkf" "$_tmp/t.txt" >"$_tmp/cmp"; then
	fail "comparison did not notice corrupted flags"
fi
rm -f "$_tmp/t.tarmac" "$_tmp/bad.tarmac"

bb=${TRAWL_ARM64_ROOT:-$TRAWL_SRC/build-arm64/root}/bin/busybox
if [ ! -x "$bb" ]; then
	echo "SKIP busybox part: $bb missing (make deps fetches Debian's busybox-static:arm64)"
elif [ -z "$asuser" ] && [ "$(id -u)" != 1000 ]; then
	echo "SKIP busybox part: QEMU must run as uid 1000 (trawl's guest uid); needs root and setpriv"
else
	oracle busybox-awk auto "$bb" awk 'BEGIN { for (i = 0; i < 36; i++) s += i * i; print s }'
fi
finish
