#!/bin/sh
# --root DIR (issue #17): the guest's changes to files happen under DIR
# only. examples/syscalls "write /d" (an absolute guest path, run from a
# working directory outside DIR) makes, removes, renames, links, truncates
# and writes files; QEMU runs the same on a copy of the tree for real. The
# outputs must be equal and so must the two trees afterwards (names, sizes,
# modes, kinds). "escape" tries "..", symlinks to "/" and upwards and an
# absolute path: every file must land inside DIR, none outside. Without
# --root the changes are refused and one warning names the first.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples/syscalls"
[ -x "$ex" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"

for x in r q; do
	mkdir -p "$_tmp/$x/d/sub"
	printf 'hello world\n' >"$_tmp/$x/d/a.txt"
	echo b >"$_tmp/$x/d/b.txt"
done
mkdir -p "$_tmp/host"
cd "$_tmp/host" || exit 1
"$TRAWL" emulate --root "$_tmp/r" "$ex" -o "$_tmp/t.tarmac" -- write /d >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(head -c 300 "$_tmp/t.err")"
[ -s "$_tmp/t.err" ] && fail "a warning with --root: $(cat "$_tmp/t.err")"
listing() { (cd "$1" && find . -printf '%p %s %m %y %l\n' | sort); }
for want in "mkdir ok" "unlink ok" "rename ok" "create ok" "made 8" "read back 8 written" \
	"symlink ok" "rename into ok" "entry sub2" "devnull ok 1"; do
	grep -qxF "$want" "$_tmp/t.out" || fail "output lacks '$want': $(cat "$_tmp/t.out")"
done
if command -v qemu-aarch64 >/dev/null; then
	qemu-aarch64 "$ex" write "$_tmp/q/d" >"$_tmp/q.out" 2>&1 </dev/null
	cmp -s "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's: $(diff "$_tmp/q.out" "$_tmp/t.out")"
	[ "$(listing "$_tmp/q")" = "$(listing "$_tmp/r")" ] ||
		fail "trees differ: $(listing "$_tmp/q" >"$_tmp/ql"; listing "$_tmp/r" | diff "$_tmp/ql" -)"
else
	echo "qemu-aarch64 not installed: checked against the expected lines only"
fi
[ -z "$(ls -A "$_tmp/host")" ] || fail "files appeared in the working directory: $(ls -A "$_tmp/host")"

# ways out: all land in the root
mkdir -p "$_tmp/j/r/e" "$_tmp/j/r2"
cd "$_tmp/j/r2" || exit 1
"$TRAWL" emulate --root "$_tmp/j/r" "$ex" -o /dev/null -- escape /e >"$_tmp/e.out" 2>&1 </dev/null ||
	fail "escape run failed: $(cat "$_tmp/e.out")"
for f in escaped-dotdot.txt escaped-slash.txt escaped-up.txt escaped-dir escaped-abs.txt; do
	[ -e "$_tmp/j/r/$f" ] || fail "$f is not at the top of the root: $(cat "$_tmp/e.out")"
done
out=$(find "$_tmp" / -xdev -maxdepth 3 -name 'escaped-*' 2>/dev/null | grep -v "^$_tmp/j/r/")
[ -z "$out" ] || fail "files escaped the root: $out"

# without --root: refused, the first change named once
cd "$_tmp/host" || exit 1
before=$(listing "$_tmp/q")
"$TRAWL" emulate "$ex" -o /dev/null -- write "$_tmp/q/d" >"$_tmp/n.out" 2>"$_tmp/n.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "write without --root exited $rc"
[ "$(listing "$_tmp/q")" = "$before" ] || fail "files changed without --root"
[ "$(grep -c . "$_tmp/n.err")" = 1 ] && grep -q "changes to files were refused (EROFS), .* the first: mkdirat 'new'. Give --root DIR" "$_tmp/n.err" ||
	fail "no single warning naming the first refused change: $(cat "$_tmp/n.err")"
expect_exit 1 "$TRAWL" emulate --root "$_tmp/missing" "$ex" -o /dev/null -- write /d
grep -q "root .*missing" "$_tmp/err" || fail "no message for a missing root: $(cat "$_tmp/err")"
finish
