#!/bin/sh
# trawl browse driven through tmux: open, step, jump to a line, time travel
# to the last/next write of a register and of a memory byte, PC search,
# text search, fold a call, switch CPU, SVE and FP/SIMD panes, help,
# resize, quit and signals.
# Every value on screen is checked against what trawl regs / mem /
# last-write / next-write / pc print for the same line.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/browse-lib.sh"
D="$TRAWL_SRC/tests/data/browse"
C="$_tmp/calls.tarmac"
cp "$D/calls.tarmac" "$C"
"$TRAWL" index "$C" >/dev/null || fail "index failed"

# symbols when the cross compiler is there (the program is calls.S)
IMG=
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	aarch64-linux-gnu-gcc -nostdlib -static -Wl,-Ttext=0x1000 -o "$_tmp/calls.elf" \
		"$D/calls.S" 2>/dev/null; then
	IMG="$_tmp/calls.elf"
else
	echo "note: aarch64-linux-gnu-gcc missing: symbol checks skipped"
fi

expect_exit 2 "$TRAWL" browse
expect_stderr_has "needs a terminal" "$TRAWL" browse "$C"

if [ -n "$IMG" ]; then
	start_browse 160 40 "$C" --image "$IMG"
else
	start_browse 160 40 "$C"
fi
wait_status "line 1  ev 0/21  time 10 clk  cpu 0  pc 0x1000"
[ -n "$IMG" ] && wait_status "pc 0x1000 _start  depth 0"
wait_for ">      1 10 clk cpu0 IT (1) 00001000 d2a00021"
check_regs "$C" 1

# step forward and back
keys j
wait_status "line 3  ev 1/21"
check_regs "$C" 3
wait_for "x30 *0000000000001008"   # * = changed by this event
keys j j
wait_status "line 7  ev 3/21"
[ -n "$IMG" ] && wait_status "pc 0x1018 func+0x4  depth 1"
keys k
wait_status "line 5  ev 2/21"
check_regs "$C" 5

# jump to a line inside a two-line event: lands on its first line
keys l; type_line 30
want=$(event_line "$C" 30)
wait_status "line $want  ev"
check_regs "$C" 30

# last write of a register: focus the registers, x0 is selected first
keys Tab
keys w
lw=$("$TRAWL" last-write "$C" --at 30 x0 | sed -n 's/^line \([0-9]*\) .*/\1/p')
[ -n "$lw" ] || fail "trawl last-write printed no line"
wait_status "line $lw  ev"
check_regs "$C" "$lw"
# pressing it again goes to the write before that one
keys w
lw2=$("$TRAWL" last-write "$C" --at $((lw - 1)) x0 | sed -n 's/^line \([0-9]*\) .*/\1/p')
wait_status "line $lw2  ev"
# the next write of x9 from there
keys Down Down Down Down Down Down Down Down Down
keys W
nw=$("$TRAWL" next-write "$C" --at "$lw2" x9 | sed -n 's/^line \([0-9]*\) .*/\1/p')
wait_status "line $nw  ev"
wait_for "next write of x9"
check_regs "$C" "$nw"

# memory pane at an expression with a register, then a byte's last write
keys g
wait_status "line 1  ev 0/21"
keys G
wait_status "line 37  ev 20/21"
keys m; type_line "x1 + 8"
# the header gives the expression's value (x1 = 0x10000 at line 37, by
# hand: 0x10008), the rows start at its 16-byte row 0x10000
wait_for "memory  x1 + 8 = 0x10008"
check_mem_row "$C" 37 0x10000
# the selected byte is 0x10008; its last write is the STR at 0x1008
keys w
lw=$("$TRAWL" last-write "$C" --at 37 0x10008 | sed -n 's/^line \([0-9]*\) .*/\1/p')
wait_status "line $lw  ev"
wait_for "last write of byte 0x10008"
check_mem_row "$C" "$lw" 0x10000
# byte 0x10000: move left 8, then next write from here
keys Left Left Left Left Left Left Left Left
keys W
nw=$("$TRAWL" next-write "$C" --at "$lw" 0x10000 | sed -n 's/^line \([0-9]*\) .*/\1/p')
wait_status "line $nw  ev"
check_mem_row "$C" "$nw" 0x10000
# [ and ]: writes to the range shown
keys ']'
wait_for "no later write to 0x10000"
keys '['
pw=$("$TRAWL" last-write "$C" --at $((nw - 1)) 0x10000:0x100 | sed -n 's/^line \([0-9]*\) .*/\1/p')
wait_status "line $pw  ev"
# a reference line for the highlighting
keys r
wait_for "changed since line $pw"
# highlighting: against the previous event only the byte the STR at line 25
# changed (01 -> 02); against line 1 all 16 bytes (unknown -> known)
keys R
keys l; type_line 25
wait_status "line 25  ev 13/21"
wait_for "changed since the previous event"
n=$(changed_bytes 0000000000010000)
[ "$n" = 1 ] || fail "line 25: $n bytes highlighted as changed, want 1"
keys g
wait_status "line 1  ev 0/21"
keys r G
wait_status "line 37  ev 20/21"
wait_for "changed since line 1"
n=$(changed_bytes 0000000000010000)
[ "$n" = 16 ] || fail "since line 1: $n bytes highlighted as changed, want 16"
keys R
wait_for "changed since the previous event"
n=$(changed_bytes 0000000000010000)
[ "$n" = 0 ] || fail "the HLT changed no memory, yet $n bytes are highlighted"

# PC search: p, then n/N to repeat
keys g
wait_status "line 1  ev"
keys p; type_line 0x1014
"$TRAWL" pc "$C" 0x1014 | sed -n 's/^  line \([0-9]*\) .*/\1/p' >"$_tmp/visits"
v1=$(sed -n 1p "$_tmp/visits") v2=$(sed -n 2p "$_tmp/visits")
wait_status "line $v1  ev"
keys n
wait_status "line $v2  ev"
keys N
wait_status "line $v1  ev"
if [ -n "$IMG" ]; then
	keys G
	wait_status "line 37  ev"
	keys P; type_line inner
	wait_status "line 31  ev 16/21"
	wait_status "pc 0x102c inner  depth 2"
fi

# text search forward and backward
keys g
wait_status "line 1  ev"
keys /; type_line "MOV x30,x9"
wait_status "line 16  ev 8/21"
keys n
wait_status "line 34  ev 18/21"
keys ?; type_line "BL {pc}"
wait_status "line 29  ev 15/21"

# fold: at the first BL (depth 0), calls deeper than 0 fold into one line
keys l; type_line 3
wait_status "line 3  ev 1/21"
keys f
wait_for "calls deeper than 0 folded"
wait_for "... 8 events folded"
keys j
wait_status "line 19  ev 10/21"
wait_status "pc 0x1008"
keys f
wait_for "calls unfolded"
# step over (s) without folding, and step out (u)
keys k
wait_status "line 18  ev 9/21"
keys l; type_line 11
wait_status "line 11  ev 5/21"
keys s
wait_status "line 16  ev 8/21"
keys u
wait_status "line 19  ev 10/21"

# help, then any key closes it
keys h
wait_for "trawl browse: keys"
wait_for "jump to the last / next write of the selected register or byte"
keys x
wait_status "line 19"

# resize: the panes follow the window
tm resize-window -t b -x 100 -y 30
wait_for "memory  x1 + 8"
_deadline=$(( $(date +%s) + 10 ))
while [ "$(screen | wc -l)" -ne 30 ] || [ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -gt 100 ]; do
	[ "$(date +%s)" -ge "$_deadline" ] && { fail "screen did not shrink to 100x30"; break; }
	sleep 0.05
done
wait_status "line 19  ev 10/21"
check_regs "$C" 19
tm resize-window -t b -x 180 -y 50
wait_status "line 19  ev 10/21"
check_regs "$C" 19

expect_fullscreen
keys q
wait_for "browse exited 0"
expect_restored q

# two CPUs: c pins cpu 0, then cpu 1; steps skip the other CPU
M="$_tmp/mixed.tarmac"
cp "$TRAWL_SRC/tests/data/index/mixed.tarmac" "$M"
start_browse 160 40 "$M"
wait_status "line 1  ev 0/12"
keys j
wait_status "line 3  ev 1/12  time 2 clk  cpu 1"
check_regs "$M" 3
keys c
wait_for "cpu 0 (pinned)"
check_regs "$M" 3 --cpu 0
keys j
wait_status "line 5  ev 2/12"
keys c
wait_for "cpu 1 (pinned)"
check_regs "$M" 5 --cpu 1
keys G
wait_status "line 30  ev 11/12"
keys g
wait_status "line 3  ev 1/12"
keys c
wait_for "following the CPU of each event"
keys j
wait_status "line 5  ev 2/12"
keys G
wait_status "line 30  ev 11/12"
# Ctrl-C restores the terminal and exits 130
keys C-c
wait_for "browse exited 130"
expect_restored SIGINT

# SIGTERM too
start_browse 120 30 "$M"
wait_status "line 1  ev 0/12"
pid=$(pgrep -n -f "browse $M" 2>/dev/null || true)
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	wait_for "browse exited 130"
	expect_restored SIGTERM
else
	echo "note: pgrep found no process: SIGTERM check skipped"
fi
# SVE pane: z and p registers at the trace's vector length (512 bits here),
# FP/SIMD pane: their low 128 bits; both as trawl regs prints them
V="$_tmp/sve.tarmac"
cp "$D/sve.tarmac" "$V"
start_browse 220 50 "$V"
wait_status "line 1  ev 0/4"
keys G
wait_status "line 7  ev 3/4"
keys z
wait_for "SVE: z, p, ffr"
"$TRAWL" regs "$V" --at 7 >"$_tmp/sregs"
for r in v0:z0 v1:z1; do
	v=$(awk -v r="${r%%:*}" '$1 == r { print $2 }' "$_tmp/sregs")
	[ ${#v} -eq 128 ] || fail "trawl regs has no 512-bit ${r%%:*}"
	wait_for "${r##*:}    $v"
done
wait_for "z2    ????????????????????????????????????????????????????????????????"
# the predicates are below the 32 z registers: scroll 8 x 4 rows
keys '>' '>' '>' '>' '>' '>' '>' '>'
v=$(awk '$1 == "p1" { print $2 }' "$_tmp/sregs")
wait_for "p1    $v"
wait_for "p0    ????????????????"
keys v
wait_for "FP/SIMD: v (128 bits)"
v=$(awk '$1 == "v1" { print substr($2, length($2) - 31) }' "$_tmp/sregs")
wait_for "v1    $v"
keys q
wait_for "browse exited 0"

# a crash restores the terminal too, then dies of its signal (128+11)
start_browse 120 30 "$M"
wait_status "line 1  ev 0/12"
pid=$(pgrep -n -f "browse $M" 2>/dev/null || true)
if [ -n "$pid" ]; then
	kill -SEGV "$pid"
	wait_for "browse exited 139"
	expect_restored SIGSEGV
fi
finish
