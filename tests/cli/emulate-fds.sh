#!/bin/sh
# The guest's fds 0-2 are trawl's own open file descriptions: the guest's
# F_SETFL(O_NONBLOCK) on them must change only what the guest sees, not
# trawl's (or the shell's) descriptors. The kernel's own record of the
# description's flags (/proc/self/fdinfo/0 of a process sharing it) is the
# truth; the guest's view must equal QEMU's, which passes the call through.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/syscalls"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
[ -r /proc/self/fdinfo/0 ] || skip "no /proc/self/fdinfo"
printf 'hello\n' >"$_tmp/in"

# flags of the description behind fd 0, octal, as the kernel keeps them
( "$TRAWL" emulate "$ex" -o "$_tmp/t.tarmac" -- nonblock >"$_tmp/t.out" 2>"$_tmp/t.err"
  echo "rc $?" >>"$_tmp/t.out"
  sed -n 's/^flags:[[:space:]]*//p' /proc/self/fdinfo/0 >"$_tmp/flags" ) <"$_tmp/in"
flags=$(cat "$_tmp/flags")
[ $(( 0$flags & 04000 )) = 0 ] || fail "the guest made trawl's stdin non-blocking (flags $flags)"
for want in "setfl 0" "getfl 1 dup 1" "read 5 'hello'" "clear 0 0" "setfl again 0" "rc 0"; do
	grep -qxF "$want" "$_tmp/t.out" || fail "output lacks '$want': $(cat "$_tmp/t.out" "$_tmp/t.err")"
done
if command -v qemu-aarch64 >/dev/null; then
	( qemu-aarch64 "$ex" nonblock >"$_tmp/q.out" 2>&1; echo "rc $?" >>"$_tmp/q.out" ) <"$_tmp/in"
	cmp -s "$_tmp/q.out" "$_tmp/t.out" ||
		fail "guest view differs from QEMU's: $(diff "$_tmp/q.out" "$_tmp/t.out")"
fi
finish
