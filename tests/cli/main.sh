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
	# the options listed: each long name once (the parser takes the first
	# entry of a name, so a second one would describe an option never used)
	opts=$(printf '%s\n' "$a" | sed -n 's/^  \(-[a-zA-Z0-9], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p')
	dup=$(printf '%s\n' "$opts" | sort | uniq -d)
	[ -z "$dup" ] || fail "trawl $cmd --help lists an option twice: $dup"
	# every --option of the usage line (up to the first blank line) is
	# listed; a command of subcommands (events) lists them in theirs
	[ -n "$opts" ] || continue
	for u in $(printf '%s\n' "$a" | sed '/^$/q' | grep -o -- '--[a-z][a-z0-9-]*' | sed 's/^--//'); do
		case "$u" in help|version|debug) continue;; esac
		printf '%s\n' "$opts" | grep -qx -- "$u" || fail "trawl $cmd: usage names --$u, which its options do not list"
	done
done
finish
