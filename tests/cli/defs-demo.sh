#!/bin/sh
# trawl defs: the committed demo.h/.json/.ctf are what the compiler makes
# of demo.tdef; the header compiles as C and C++; errors point at line and
# column.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_SRC/examples/rec-demo"
expect_exit 0 "$TRAWL" defs "$ex/demo.tdef" -o "$_tmp/g"
for f in demo.h demo.json demo.ctf; do
	cmp -s "$ex/$f" "$_tmp/g/$f" || fail "$f is out of date: run 'trawl defs demo.tdef -o .' in examples/rec-demo"
done
# the header is valid C and C++ against <trawl/rec.h>
cat >"$_tmp/use.c" <<'EOC'
#include "demo.h"
int main(void) { trawl_net_rx(1); trawl_net_tx(2, 3, -4); trawl_lock_acquire(5); return 0; }
EOC
if command -v cc >/dev/null 2>&1; then
	cc -std=c11 -Wall -Wextra -Werror -c -I"$TRAWL_SRC/rec/include" -I"$_tmp/g" "$_tmp/use.c" -o "$_tmp/use.o" ||
		fail "generated header does not compile as C"
fi
if command -v c++ >/dev/null 2>&1 && [ -f "$TRAWL_BUILD/rec/libtrawlrec.a" ]; then
	cp "$_tmp/use.c" "$_tmp/use.cc"
	san=
	nm "$TRAWL_BUILD/rec/libtrawlrec.a" 2>/dev/null | grep -q __asan && san="-fsanitize=address,undefined"
	c++ $san -Wall -Wextra -Werror -I"$TRAWL_SRC/rec/include" -I"$_tmp/g" "$_tmp/use.cc" "$TRAWL_BUILD/rec/libtrawlrec.a" \
		-lpthread -o "$_tmp/use" || fail "generated header does not compile as C++"
	(cd "$_tmp" && TRAWL_REC_OUT="$_tmp/cxx" ./use) || fail "C++ program failed"
	"$TRAWL" events list "$_tmp/cxx" | grep -q "net:TX len=2 port=3 latency_ns=-4$" || fail "C++ program's events"
fi
# errors
printf 'subsystem a {\n  event X,\n  event X\n};\n' >"$_tmp/dup.tdef"
expect_exit 1 "$TRAWL" defs "$_tmp/dup.tdef" -o "$_tmp/o"
expect_stderr_has "dup.tdef:3:9: duplicate event 'X' in subsystem 'a'" "$TRAWL" defs "$_tmp/dup.tdef" -o "$_tmp/o"
printf 'subsystem a { event X (f32 v) }\n' >"$_tmp/type.tdef"
expect_stderr_has "type.tdef:1:24: unknown type 'f32'" "$TRAWL" defs "$_tmp/type.tdef" --check
expect_exit 0 "$TRAWL" defs "$ex/demo.tdef" --check
expect_exit 2 "$TRAWL" defs "$ex/demo.tdef"
# names differing only in case give the same macros and functions: refused
printf 'subsystem a {\n  event rx,\n  event RX\n};\n' >"$_tmp/case.tdef"
expect_exit 1 "$TRAWL" defs "$_tmp/case.tdef" --check
expect_stderr_has "case.tdef:3:9: duplicate event 'RX' in subsystem 'a'" "$TRAWL" defs "$_tmp/case.tdef" --check
printf 'subsystem net { event X };\nsubsystem NET { event Y };\n' >"$_tmp/case2.tdef"
expect_exit 1 "$TRAWL" defs "$_tmp/case2.tdef" --check
# a field named like the generated code's local array still records its
# value (the array read its own address), and the header is shadow-free
printf 'subsystem s { event e (u64 f_, u64 f__, u64 b) };\n' >"$_tmp/f.tdef"
"$TRAWL" defs "$_tmp/f.tdef" -o "$_tmp/fo" || fail "defs of f.tdef failed"
grep -q "uint64_t f___\[3\] = { (uint64_t)f_, (uint64_t)f__, (uint64_t)b }" "$_tmp/fo/f.h" ||
	fail "the local array is named like a field: $(grep 'uint64_t f' "$_tmp/fo/f.h")"
if command -v cc >/dev/null 2>&1; then
	printf '#include "f.h"\nint main(void) { trawl_s_e(1, 2, 3); return 0; }\n' >"$_tmp/fo/use.c"
	cc -std=c11 -Wall -Wshadow -Werror -I "$TRAWL_SRC/rec/include" -fsyntax-only "$_tmp/fo/use.c" ||
		fail "the generated header does not compile cleanly with -Wshadow"
fi
finish
