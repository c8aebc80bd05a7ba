#!/bin/sh
# The option parser every command shares (tools/trawl/options.c): both
# spellings of a value, flags refusing values, unknown options, and every
# option the help lists being one the command accepts (the table drives
# both, so they cannot disagree; this checks it does).
. "$TRAWL_SRC/tests/cli-lib.sh"

T="$TRAWL_SRC/tests/data/tarmac/mixed.tarmac"
t="$_tmp/w"
mkdir -p "$t"
cp "$T" "$t/m.tarmac"
T="$t/m.tarmac"
"$TRAWL" index "$T" >/dev/null || fail "cannot index $T"

# --opt VALUE and --opt=VALUE give the same output, for each kind of value
same() {
	desc=$1; shift
	a=$1 b=$2
	eval "$a" >"$_tmp/a" 2>&1; ra=$?
	eval "$b" >"$_tmp/b" 2>&1; rb=$?
	[ "$ra" = 0 ] || fail "$desc: '$a' exited $ra: $(head -c 300 "$_tmp/a")"
	[ "$ra" = "$rb" ] && cmp -s "$_tmp/a" "$_tmp/b" || fail "$desc: '$a' and '$b' differ"
}
same "string value" "\"$TRAWL\" regs \"$T\" --at 4" "\"$TRAWL\" regs \"$T\" --at=4"
same "option after the trace" "\"$TRAWL\" regs --at 4 \"$T\"" "\"$TRAWL\" regs \"$T\" --at=4"
same "choice value" "\"$TRAWL\" profile --sort self \"$T\"" "\"$TRAWL\" profile --sort=self \"$T\""
same "number value" "\"$TRAWL\" pc \"$T\" 0x80000 --limit 1" "\"$TRAWL\" pc \"$T\" 0x80000 --limit=1"
same "number value" "\"$TRAWL\" calltree --max-depth 0 \"$T\"" "\"$TRAWL\" calltree --max-depth=0 \"$T\""
"$TRAWL" flamegraph "$T" -o "$t/f1" || fail "flamegraph -o FILE"
"$TRAWL" flamegraph "$T" "-o$t/f2" || fail "flamegraph -oFILE"
"$TRAWL" flamegraph "$T" "--output=$t/f3" || fail "flamegraph --output=FILE"
cmp -s "$t/f1" "$t/f2" && cmp -s "$t/f1" "$t/f3" || fail "-o FILE, -oFILE and --output=FILE differ"
[ -s "$t/f1" ] || fail "flamegraph wrote nothing"
# calltree, profile and callinfo write to -o FILE what they print
for c in "calltree" "profile --json" "callinfo"; do
	extra=; [ "$c" = callinfo ] && extra=0x80000
	"$TRAWL" $c "$T" $extra >"$t/stdout" || fail "$c failed"
	"$TRAWL" $c "$T" $extra -o "$t/file" >"$t/none" || fail "$c -o failed"
	cmp -s "$t/stdout" "$t/file" || fail "$c -o FILE differs from its standard output"
	[ -s "$t/none" ] && fail "$c -o FILE still printed to standard output"
	[ -s "$t/file" ] || fail "$c -o FILE is empty"
done
expect_exit 1 "$TRAWL" calltree "$T" -o "$t/no-such-dir/x"

# -- ends the options: a trace named like an option
cp "$T" "$t/--json"
(cd "$t" && "$TRAWL" stats --no-timing -- --json) >"$_tmp/a" 2>&1 || fail "stats -- --json: $(cat "$_tmp/a")"
"$TRAWL" stats --no-timing "$T" >"$_tmp/b" 2>&1
sed 1d "$_tmp/a" >"$_tmp/a1"; sed 1d "$_tmp/b" >"$_tmp/b1"
cmp -s "$_tmp/a1" "$_tmp/b1" || fail "stats -- FILE reads another file"

# usage errors: exit 2 with a message naming the option
expect_exit 2 "$TRAWL" regs "$T" --json=yes
expect_stderr_has "--json takes no value" "$TRAWL" regs "$T" --json=yes --at 4
expect_exit 2 "$TRAWL" regs "$T" --at
expect_stderr_has "--at needs a value" "$TRAWL" regs "$T" --at
expect_exit 2 "$TRAWL" pc "$T" 0x80000 --limit=ten
expect_stderr_has "'ten' is not a number" "$TRAWL" pc "$T" 0x80000 --limit=ten
expect_exit 2 "$TRAWL" profile --sort=bogus "$T"
expect_stderr_has "one of incl, self, calls, name, addr" "$TRAWL" profile --sort=bogus "$T"
expect_exit 2 "$TRAWL" regs "$T" --at 4 extra
# the whole message, stdout and stderr, against golden files
expect_golden usage-typo "$TRAWL" regs "$T" --att 4
expect_golden usage-missing-trace "$TRAWL" mem --at 4

# every option each command lists in --help is one it accepts, and an
# option it does not list is refused
for cmd in $("$TRAWL" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p') \
	"events list" "events stats" "events recover" "events import-bf"; do
	# $cmd unquoted: "events list" is a command and its verb
	"$TRAWL" $cmd --help >"$_tmp/help"
	for opt in $(sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z0-9-]*\).*/\2/p' "$_tmp/help"); do
		"$TRAWL" $cmd "--$opt=1" "$t/no-such-trace" >"$_tmp/o" 2>"$_tmp/e" </dev/null
		grep -q "unknown option" "$_tmp/e" && fail "$cmd: --help lists --$opt but it is refused"
	done
	"$TRAWL" $cmd --no-such-option "$t/no-such-trace" >"$_tmp/o" 2>"$_tmp/e" </dev/null
	rc=$?
	[ "$rc" = 2 ] || fail "$cmd --no-such-option exited $rc, expected 2"
	grep -q "unknown option '--no-such-option'" "$_tmp/e" || fail "$cmd: no 'unknown option' message: $(cat "$_tmp/e")"
done
finish
