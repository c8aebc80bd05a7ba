#!/bin/sh
# Partial parsing (the call commands skip memory and unneeded register lines
# unparsed) must not change any result: every call command's output equals
# its output with --parse-all, on the hand-made traces, the corpus traces and
# emulator traces of real programs.
. "$TRAWL_SRC/tests/cli-lib.sh"

# same CMD TRACE ARGS...: output and exit status equal with and without --parse-all
same() {
	cmd=$1; shift
	"$TRAWL" "$cmd" "$@" >"$_tmp/p" 2>"$_tmp/pe"; a=$?
	"$TRAWL" "$cmd" --parse-all "$@" >"$_tmp/f" 2>"$_tmp/fe"; b=$?
	[ "$a" = "$b" ] || { fail "$cmd $*: exit $a partial, $b full"; return; }
	[ -s "$_tmp/f" ] || { fail "$cmd $*: no output"; return; }
	cmp -s "$_tmp/p" "$_tmp/f" || fail "$cmd $*: output differs with --parse-all: $(diff "$_tmp/p" "$_tmp/f" | head -4)"
}

all() { # all TRACE ARGS...
	same calltree "$@"
	same profile --csv "$@"
	same flamegraph "$@"
	same calltree --debug=calls "$@"
}

D="$TRAWL_SRC/tests/data"
all "$D/calls-a64.tarmac"
all "$D/calls-a32.tarmac"
all "$D/calls-2cpu.tarmac"

C="${TRAWL_CORPUS:-}/tarmac"
if [ -d "$C/calltests" ]; then
	all --image "$C/calltests/calltest64.elf" "$C/calltests/calltest64.tarmac"
	all --image "$C/calltests/calltest32.elf" "$C/calltests/calltest32.tarmac"
	all --image "$C/quicksort.elf" "$C/quicksort.tarmac"
	all --image "$C/calculator-aarch64.elf" "$C/calculator-aarch64-fastmodel.tarmac"
	all --image "$C/calculator-aarch64.elf" "$C/calculator-aarch64-es-ld-st-style.tarmac"
	same callinfo --image "$C/quicksort.elf" "$C/quicksort.tarmac" quicksort
else
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
fi
E="${TRAWL_BUILD:-}/examples"
if [ -x "$E/recurse" ] && [ -x "$E/sort" ]; then
	"$TRAWL" emulate "$E/recurse" -o "$_tmp/rec.tarmac" -- 6 >/dev/null 2>&1 || fail "emulate recurse"
	all --image "$E/recurse" "$_tmp/rec.tarmac"
	"$TRAWL" emulate "$E/sort" -o "$_tmp/sort.tarmac" -- 300 >/dev/null 2>&1 || fail "emulate sort"
	all --image "$E/sort" "$_tmp/sort.tarmac"
	same export --perfetto --image "$E/sort" "$_tmp/sort.tarmac" -o -
else
	echo "SKIP (part): examples not built"
fi
finish
