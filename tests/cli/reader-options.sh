#!/bin/sh
# One rule for the reader options (docs/ete.md, "As a trace", 1. Options):
# an option given for a trace it does not apply to is a usage error (exit
# 2) that names the option, what it is for and the trace's kind, in every
# command, also when an index already exists (no reader opens the trace
# then); with several traces (serve, autofdo) each option must be for one
# of them, and each trace is read with the ones for its kind. Before, a
# perf.data option beside a Tarmac was ignored without a word (exit 0).
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
. "$TRAWL_SRC/tests/ete-snap.sh"
export XDG_CACHE_HOME="$t/cache"

tarmac="$t/t.tarmac"
cp "$TRAWL_SRC/tests/data/tarmac/es-style.tarmac" "$tarmac"
snap="$t/snap"
mksnap "$snap" 000000000000000000000080""0100""04850008000000000000""11""f6f7 \
	61000054""1f2003d5""1f2003d5""c0035fd6 0x0
$mk "$t/p.data" "$t/trace.bin" /no/such/dir/prog.bin
printf '[regs]\nTRCIDR0=0x28000ea1\nTRCDEVARCH=0x47705a13\n' >"$t/regs.ini"
bf="$TRAWL_SRC/tests/data/rec/act-dump.txt"

# misfit KIND-NAME TRACE OPTION... : exit 2, the message, for several commands
misfit() {
	kind=$1 trace=$2; shift 2
	opt=$1
	for cmd in cat stats calltree "index --index $t/any.idx" "regs --at 1 --index $t/any.idx"; do
		expect_exit 2 "$TRAWL" $cmd "$@" "$trace"
		grep -qF -- "$opt is for " "$_tmp/err" && grep -qF -- "'$trace' is $kind" "$_tmp/err" ||
			fail "$cmd $* on $kind: $(head -c 300 "$_tmp/err")"
	done
	rm -f "$t/any.idx"
}
for o in "--symfs $t" "--binary-dir $t" "--vmlinux $t/x" "--kallsyms $t/x" "--ete-buffer ETB_0" \
	"--ete-image 0x1000=$t/prog.bin" "--defs $t/x.tdef"; do
	misfit "a Tarmac trace" "$tarmac" $o
done
for o in "--symfs $t" "--lenient" "--implicit-thumb" "--big-endian" "--ete-config $t/regs.ini"; do
	misfit "an ETE snapshot directory" "$snap" $o
done
for o in "--lenient" "--ete-buffer ETB_0" "--ete-config $t/regs.ini" "--defs $t/x.tdef"; do
	misfit "a perf.data" "$t/p.data" $o
done
misfit "a raw ETE buffer" "$t/trace.bin" --ete-buffer ETB_0 --ete-config "$t/regs.ini"
misfit "a raw ETE buffer" "$t/trace.bin" --symfs "$t" --ete-config "$t/regs.ini"
misfit "a Barrelfish dump" "$bf" --lenient

# with an index built (a reader never opens the trace): still exit 2
"$TRAWL" index --index "$t/t.idx" "$tarmac" >/dev/null 2>&1 || fail "index of the Tarmac"
expect_exit 2 "$TRAWL" regs --index "$t/t.idx" --symfs "$t" --at 1 "$tarmac"
expect_stderr_has "--symfs is for a perf.data; '$tarmac' is a Tarmac trace" \
	"$TRAWL" pc --index "$t/t.idx" --symfs "$t" "$tarmac" 0x1000
# the options that do apply still work
expect_exit 0 "$TRAWL" stats --lenient "$tarmac"
expect_exit 0 "$TRAWL" stats --ete-buffer ETB_0 "$snap"
expect_exit 0 "$TRAWL" stats --symfs "$t" "$t/p.data"

# trawl ete's own names for them follow the same rule
for c in "--symfs $t:$snap:an ETE snapshot directory" "--vmlinux $t/x:$snap:an ETE snapshot directory" \
	"--buffer ETB_0:$t/p.data:a perf.data" "--image 0x1000=$t/prog.bin:$t/p.data:a perf.data" \
	"--config $t/regs.ini:$snap:an ETE snapshot directory" "--kallsyms $t/x:$t/trace.bin:a raw ETE buffer"; do
	o=${c%%:*} rest=${c#*:}; trace=${rest%%:*} kind=${rest#*:}
	expect_exit 2 "$TRAWL" ete decode $o "$trace"
	grep -qF -- "${o%% *} is for " "$_tmp/err" && grep -qF -- "'$trace' is $kind" "$_tmp/err" ||
		fail "ete decode $o on $kind: $(head -c 300 "$_tmp/err")"
done

# several traces: an option must be for one of them ...
expect_exit 2 "$TRAWL" autofdo --lenient "$t/p.data" "$snap"
expect_stderr_has "--lenient is for a Tarmac trace; the traces given are a perf.data, an ETE snapshot directory" \
	"$TRAWL" autofdo --lenient "$t/p.data" "$snap"
expect_exit 2 timeout 30 "$TRAWL" serve --symfs "$t" "$tarmac" "$snap"
expect_stderr_has "--symfs is for a perf.data; the traces given are a Tarmac trace, an ETE snapshot directory" \
	timeout 30 "$TRAWL" serve --symfs "$t" "$tarmac" "$snap"
# ... and is used for those it is for: --symfs finds the perf.data's program
"$TRAWL" autofdo --symfs "$t" "$t/p.data" "$t/p.data" >"$t/two.afdo" 2>"$t/err" ||
	fail "autofdo of two perf.data with --symfs: $(cat "$t/err")"
"$TRAWL" autofdo --symfs "$t" "$t/p.data" "$snap" >/dev/null 2>"$t/err"
grep -q "is for" "$t/err" && fail "autofdo --symfs PERF SNAPSHOT: $(cat "$t/err")"
finish
