#!/bin/sh
# Address expressions in trawl browse (m, p, --mem): on AArch32 events sp,
# lr, pc and r15 have values (the pane shows them, so expressions must
# too); the memory pane's header gives the expression's value, not the
# 16-byte row the pane starts at; demangled C++ names work as the docs
# say. Truth: values worked out by hand from the trace text, `nm -C` for
# symbol addresses, `trawl pc` for where a PC is visited.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"

H="$_tmp/h.tarmac"
# A32 in svc mode: sp = 0x1000 (MOV sp,r0), lr = 0x800c (BL at 0x8008),
# then at 0x8010 r0 = 0x801d (ADD r0,pc,#5)
cat >"$H" <<'TR'
1 clk IT (1) 00008000 e3a00a01 A svc_s : MOV r0,#0x1000
1 clk R r0 00001000
1 clk R cpsr 000001d3
2 clk IT (2) 00008004 e1a0d000 A svc_s : MOV sp,r0
2 clk R r13_svc 00001000
3 clk IT (3) 00008008 eb000000 A svc_s : BL {pc}+8 ; 0x8010
3 clk R r14_svc 0000800c
4 clk IT (4) 00008010 e28f0005 A svc_s : ADD r0,pc,#5
4 clk R r0 0000801d
5 clk IT (5) 00008014 e12fff10 A svc_s : BX r0
TR
"$TRAWL" index "$H" >/dev/null || fail "index failed"

# --mem with sp on an AArch32 line (the README's example): 0x1000 - 64
start_browse 160 40 "$H" --at 8 --mem 'sp - 64'
wait_status "line 8  ev 3/5"
wait_for "memory  sp - 64 = 0xfc0 "
# m with a value that is not 16-aligned: the header says 0x801d
keys m; type_line "r0"
wait_for "memory  r0 = 0x801d "
keys m; type_line "lr + 1"
wait_for "memory  lr + 1 = 0x800d "
# pc and r15: the current instruction's address, 0x8010
keys m; type_line "pc"
wait_for "memory  pc = 0x8010 "
keys m; type_line "r15 - 0x10"
wait_for "memory  r15 - 0x10 = 0x8000 "
keys m; type_line "r13"
wait_for "memory  r13 = 0x1000 "
# p pc from another event goes to the next visit of that pc: none later
keys g
wait_status "line 1  ev 0/5"
keys p; type_line "pc + 0x10"
wait_status "line 8  ev 3/5"
keys q
wait_for "browse exited 0"

# Demangled C++ names (the corpus calculator): p Lexer::next() goes to the
# first visit of its address, as nm -C and trawl pc say.
CALC="${TRAWL_CORPUS:-}/tarmac/calculator-aarch64-fastmodel.tarmac"
ELF="${TRAWL_CORPUS:-}/tarmac/calculator-aarch64.elf"
if [ ! -f "$CALC" ] || [ ! -f "$ELF" ]; then
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
	finish
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP (part): nm (binutils) not installed"; finish; }
C="$_tmp/calc.tarmac"
cp "$CALC" "$C"
"$TRAWL" index "$C" >/dev/null || fail "index failed"
addr=$(nm -C "$ELF" | awk '/ Lexer::next\(\)$/ { print $1 }')
[ -n "$addr" ] || fail "nm -C shows no Lexer::next()"
addr=0x$(echo "$addr" | sed 's/^0*//')
first=$("$TRAWL" pc "$C" "$addr" | sed -n 's/^  line \([0-9]*\) .*/\1/p' | head -1)
[ -n "$first" ] || fail "trawl pc lists no visit of $addr"
start_browse 160 40 "$C" --image "$ELF"
wait_status "line 1  ev 0/"
keys p; type_line "Lexer::next()"
wait_status "line $first  ev"
wait_status "pc $addr Lexer::next()"
# the mangled spelling finds the same function
keys g
wait_status "line 1  ev 0/"
keys p; type_line "_ZN5Lexer4nextEv"
wait_status "line $first  ev"
# with parameters, and as part of an expression
paddr=0x$(nm -C "$ELF" | awk '/ Parser::add\(unsigned int&\)$/ { print $1 }' | sed 's/^0*//')
keys m; type_line "Parser::add(unsigned int&) + 4"
wait_for "memory  Parser::add(unsigned int&) + 4 = $(printf '0x%x' $((paddr + 4))) "
keys q
wait_for "browse exited 0"
finish
