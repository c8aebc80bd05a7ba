#!/bin/sh
# An answer written into a file that does not take it (a full disk: here
# /dev/full, every write ENOSPC) is lost: exit 1 with one message, whatever
# the command. stats, regs, pc, changes, info, events list... exited 0 with
# nothing written, since their output sat in stdout's buffer until exit.
. "$TRAWL_SRC/tests/cli-lib.sh"
[ -w /dev/full ] || skip "no /dev/full"
D="$TRAWL_SRC/tests/data/tarmac"
cp "$D/mixed.tarmac" "$_tmp/m.tarmac"
"$TRAWL" index "$_tmp/m.tarmac" >/dev/null 2>&1 || fail "index"
for c in "stats" "regs --at 3 --json" "regs --at 3" "mem --at 3 0x10000 16" "pc 0x80000" "changes --from 1 --to 5" \
	"info" "cat" "profile" "calltree" "last-write --at 5 x8"; do
	set -- $c
	cmd=$1; shift
	# shellcheck disable=SC2086
	"$TRAWL" $cmd "$_tmp/m.tarmac" "$@" >/dev/full 2>"$_tmp/err"
	rc=$?
	[ $rc = 1 ] || fail "$c into a full disk exited $rc: $(head -c 300 "$_tmp/err")"
	[ "$(grep -c "cannot write the output" "$_tmp/err")" = 1 ] || fail "$c: want one 'cannot write the output': $(head -c 300 "$_tmp/err")"
	# the same command into a file that takes it: 0, and it wrote something
	# shellcheck disable=SC2086
	"$TRAWL" $cmd "$_tmp/m.tarmac" "$@" >"$_tmp/out" 2>/dev/null || fail "$c exited $? into a file"
	[ -s "$_tmp/out" ] || fail "$c wrote nothing into a file"
done
# software events and help text too
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
if [ -x "$demo" ]; then
	"$demo" --threads 1 --packets 50 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
	expect_exit 1 sh -c "\"$TRAWL\" events list \"$_tmp/tr\" >/dev/full"
	expect_exit 1 sh -c "\"$TRAWL\" events stats \"$_tmp/tr\" >/dev/full"
fi
expect_exit 1 sh -c "\"$TRAWL\" help regs >/dev/full"
# an -o file that does not take the output: ete tarmac exited 0
if [ -x "$TRAWL_BUILD/examples/sort" ]; then
	"$TRAWL" emulate --ete "$_tmp/s.snap" -o /dev/null "$TRAWL_BUILD/examples/sort" -- 20 >/dev/null 2>&1 || fail "emulate --ete"
	expect_exit 0 "$TRAWL" ete tarmac "$_tmp/s.snap" -o "$_tmp/s.tarmac"
	[ -s "$_tmp/s.tarmac" ] || fail "ete tarmac wrote nothing"
	expect_exit 1 "$TRAWL" ete tarmac "$_tmp/s.snap" -o /dev/full
	expect_stderr_has "cannot write '/dev/full'" "$TRAWL" ete tarmac "$_tmp/s.snap" -o /dev/full
fi
finish
