#!/bin/sh
# The command table: help, version, unknown commands and exit codes.
. "$TRAWL_SRC/tests/cli-lib.sh"

expect_exit 0 "$TRAWL" --version
expect_stdout_has "trawl 0.1.0" "$TRAWL" --version
expect_exit 0 "$TRAWL" --help
expect_stdout_has "Commands:" "$TRAWL" help
expect_exit 2 "$TRAWL"
expect_exit 2 "$TRAWL" no-such-command
expect_stderr_has "trawl: 'no-such-command' is not a trawl command" "$TRAWL" no-such-command
expect_exit 2 "$TRAWL" help no-such-command
# every command answers --help with a usage line and exit 0, the same text as 'trawl help CMD'
for cmd in $("$TRAWL" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
	a=$("$TRAWL" "$cmd" --help) || fail "trawl $cmd --help failed"
	b=$("$TRAWL" help "$cmd") || fail "trawl help $cmd failed"
	[ "$a" = "$b" ] || fail "help text of $cmd differs between --help and help"
	case "$a" in usage:*) ;; *) fail "trawl $cmd --help does not start with usage:";; esac
done
finish
