#!/bin/sh
# A C++ program under trawl emulate: examples/exceptions.cpp (built with
# Debian's aarch64-linux-gnu-g++, static) throws through several frames,
# catches by type, runs destructors while unwinding, and prints with
# iostreams. Standard output, standard error and exit status must equal
# qemu-aarch64's; a few lines are also checked against hand-computed values.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/exceptions"
[ -x "$ex" ] || skip "examples/exceptions not built (aarch64-linux-gnu-g++ missing)"
cd "$_tmp" || exit 1

# about 10 M instructions (the unwinder's first throw sorts every FDE of
# the static binary): the trace goes to /dev/null
"$TRAWL" emulate "$ex" -o /dev/null -- 20 >t.out 2>t.err </dev/null
rc=$?
# 2 ParseError + 6 int + 2 out_of_range + 1 std::exception
[ $rc = 11 ] || fail "emulate exited $rc, expected 11; stderr: $(head -c 300 t.err)"
for want in "round 5: not a digit: x at 5" "round 9: out of range, index 9" "round 4: big value 9" \
	"at(): vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)"; do
	grep -qxF "$want" t.out || fail "output lacks '$want'"
done
[ "$(cat t.err)" = "parsed 1001" ] || fail "stderr is not 'parsed 1001' (7*11*13): $(head -c 300 t.err)"
if command -v qemu-aarch64 >/dev/null; then
	env -i PATH=/usr/bin:/bin LANG=C HOME=/ qemu-aarch64 "$ex" 20 >q.out 2>q.err </dev/null
	qrc=$?
	[ $qrc = $rc ] || fail "qemu-aarch64 exited $qrc, trawl $rc"
	cmp -s q.out t.out || fail "stdout differs from qemu's: $(diff q.out t.out | head -10)"
	cmp -s q.err t.err || fail "stderr differs from qemu's: $(diff q.err t.err | head -10)"
else
	echo "qemu-aarch64 not installed: hand-checked lines only"
fi
finish
