#!/bin/sh
# Damage in a Barrelfish dump, expectations worked out by hand (word =
# subsys<<48 | event<<32 | arg; cat prints L<line> in time order, ties in
# dump order).
# 1. A bad line mid-dump lost every event (cat printed nothing, import-bf
#    wrote no trace): the events of the lines before it are kept, the damage
#    is named file:line:col, exit 1; the lines after it are not read (no
#    --lenient for dumps).
# 2. '# core 1 offset 2x5' read as offset 2, '25junk' and '25.7' as 25.
# 3. import-bf truncated an argument to its field's width (u16 0x12345678
#    became 22136) and cat did not (305419896); s32 ffffffff was -1 in one,
#    4294967295 in the other. The argument is the first field, signed types
#    sign-extended from 32 bits; one that does not fit is damage.
. "$TRAWL_SRC/tests/cli-lib.sh"

# cat's events as "NAME FIELDS", and the same from an imported trace's list
cat_fields() { sed 's/^L[0-9]* cpu[0-9]* t=[0-9]*cyc sw //; s/ tid=0//' "$_tmp/out"; }
list_fields() { "$TRAWL" events list --abs "$1" | awk '{$1=$2=$3=$4=$5=""; sub(/^ +/, ""); print}'; }

printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\n' >"$_tmp/n.tdef"

# ---- 1. a bad line in the middle
printf '0 100 0000000000000001\n0 150 0000000000000002\n0 200 000000010000000g\n0 300 0000000100000003\n' >"$_tmp/mid.txt"
expect_exit 1 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/mid.txt"
grep -qF "mid.txt:3:22: unexpected text after the event word" "$_tmp/err" || fail "cat mid: damage not named: $(cat "$_tmp/err")"
printf 'L1 cpu0 t=100cyc sw net:RX tid=0 num=1\nL2 cpu0 t=150cyc sw net:RX tid=0 num=2\n' | diff -u - "$_tmp/out" ||
	fail "cat mid: the events before the bad line differ"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/mid.txt" --defs "$_tmp/n.tdef" -o "$_tmp/mid"
grep -qF "mid.txt:3:22: unexpected text after the event word" "$_tmp/err" || fail "import mid: damage not named: $(cat "$_tmp/err")"
"$TRAWL" events list --abs "$_tmp/mid" | awk '{print $1, $3, $6, $7}' >"$_tmp/got" || fail "import mid: no trace"
printf '100 0 net:RX num=1\n150 0 net:RX num=2\n' | diff -u - "$_tmp/got" || fail "import mid: events differ"
# trawl stats counts what was read before the damage (it printed nothing)
expect_exit 1 "$TRAWL" stats --defs "$_tmp/n.tdef" "$_tmp/mid.txt"
grep -q "^events: 2$" "$_tmp/out" || fail "stats mid: $(cat "$_tmp/out")"
grep -q "^  net:RX  *2$" "$_tmp/out" || fail "stats mid: by name: $(cat "$_tmp/out")"

# a NUL byte, two cores: line 4 (core 1, t=130) comes after the damage and
# is lost although it is earlier than nothing kept; the kept ones merge by time
printf '1 120 0000000100000005\n0 100 0000000000000001\n0 15\0000 0000000000000002\n1 130 0000000100000006\n' >"$_tmp/nul.txt"
expect_exit 1 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/nul.txt"
grep -qF "nul.txt:3:5: expected the raw event word" "$_tmp/err" || fail "cat nul: damage not named: $(cat "$_tmp/err")"
printf 'L2 cpu0 t=100cyc sw net:RX tid=0 num=1\nL1 cpu1 t=120cyc sw net:TX tid=0 num=5\n' | diff -u - "$_tmp/out" ||
	fail "cat nul: the events before the NUL differ"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/nul.txt" --defs "$_tmp/n.tdef" -o "$_tmp/nul"
grep -qF "nul.txt:3:5:" "$_tmp/err" || fail "import nul: damage not named: $(cat "$_tmp/err")"
"$TRAWL" events list --abs "$_tmp/nul" | awk '{print $1, $3, $6, $7}' >"$_tmp/got"
printf '100 0 net:RX num=1\n120 1 net:TX num=5\n' | diff -u - "$_tmp/got" || fail "import nul: events differ"

# a Latin-1 byte (e-acute) where the word starts
printf '0 100 0000000000000001\n0 150 \3510000000000000002\n0 300 0000000100000003\n' >"$_tmp/lat.txt"
expect_exit 1 "$TRAWL" cat --defs "$_tmp/n.tdef" "$_tmp/lat.txt"
grep -qF "lat.txt:2:7: expected the raw event word" "$_tmp/err" || fail "cat latin-1: damage not named: $(cat "$_tmp/err")"
printf 'L1 cpu0 t=100cyc sw net:RX tid=0 num=1\n' | diff -u - "$_tmp/out" || fail "cat latin-1: events differ"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/lat.txt" --defs "$_tmp/n.tdef" -o "$_tmp/lat"
"$TRAWL" events list --abs "$_tmp/lat" | awk '{print $1, $3, $6, $7}' >"$_tmp/got"
printf '100 0 net:RX num=1\n' | diff -u - "$_tmp/got" || fail "import latin-1: events differ"
expect_exit 1 "$TRAWL" stats --defs "$_tmp/n.tdef" "$_tmp/lat.txt"

# damage and a folder already used: both are said, exit 1
expect_exit 1 "$TRAWL" events import-bf "$_tmp/mid.txt" --defs "$_tmp/n.tdef" -o "$_tmp/mid"
grep -qF "exists and is not an empty folder" "$_tmp/err" || fail "reused folder not said: $(cat "$_tmp/err")"
grep -qF "mid.txt:3:22:" "$_tmp/err" || fail "damage not said beside the reused folder: $(cat "$_tmp/err")"

# ---- 2. core offsets: the number and nothing after it
for c in '2x5 18' '25junk 19' '25.7 19' '25,0 19' '0x1g 20'; do
	set -- $c
	printf '0 100 0000000000000001\n# core 1 offset %s\n1 100 0000000000000002\n' "$1" >"$_tmp/off.txt"
	expect_exit 1 "$TRAWL" cat "$_tmp/off.txt"
	grep -qF "off.txt:2:$2: bad core offset" "$_tmp/err" || fail "offset '$1': not named at column $2: $(cat "$_tmp/err")"
	# the event before the bad line is kept
	[ "$(cat "$_tmp/out")" = "L1 cpu0 t=100cyc sw subsys0:event0 tid=0 arg=1" ] || fail "offset '$1': $(cat "$_tmp/out")"
	expect_exit 1 "$TRAWL" events import-bf "$_tmp/off.txt" -o "$_tmp/off-$1"
	grep -qF "off.txt:2:$2: bad core offset" "$_tmp/err" || fail "import offset '$1': $(cat "$_tmp/err")"
done
# well-formed ones still apply: 100 + 25, 100 - 25, 100 + 0x19, trailing blanks
for c in '25 125' '-25 75' '0x19 125' '25\t  125'; do
	set -- $c
	printf "# core 1 offset $1\n1 100 0000000000000002\n" >"$_tmp/off.txt"
	expect_exit 0 "$TRAWL" cat "$_tmp/off.txt"
	[ "$(cat "$_tmp/out")" = "L2 cpu1 t=${2}cyc sw subsys0:event0 tid=0 arg=2" ] || fail "offset '$1': $(cat "$_tmp/out")"
done

# ---- 3. the argument and the declared fields
cat >"$_tmp/k.tdef" <<'EOF'
subsystem k { event A (u16 a, u16 b), event B (u64 big), event C (u8 small), event D (s32 neg),
              event E (u32 x, u32 y, u32 z) };
subsystem m { event F (s8 c), event G (s16 h), event H (s64 w) };
EOF
# every argument fits: k ids 0-4, m ids 1<<16 | 0-2
cat >"$_tmp/fit.txt" <<'EOF'
0 100 0000000000001234
0 200 00000001ffffffff
0 300 00000002000000ff
0 400 00000003ffffffff
0 500 0000000380000000
0 600 00000004ffffffff
0 700 00010000ffffff80
0 710 000100000000007f
0 800 00010001ffff8000
0 900 00010002fffffffe
EOF
cat >"$_tmp/want" <<'EOF'
k:A a=4660 b=0
k:B big=4294967295
k:C small=255
k:D neg=-1
k:D neg=-2147483648
k:E x=4294967295 y=0 z=0
m:F c=-128
m:F c=127
m:G h=-32768
m:H w=-2
EOF
expect_exit 0 "$TRAWL" cat --defs "$_tmp/k.tdef" "$_tmp/fit.txt"
cat_fields | diff -u "$_tmp/want" - || fail "cat: field values differ"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/fit.txt" --defs "$_tmp/k.tdef" -o "$_tmp/fit"
list_fields "$_tmp/fit" | diff -u "$_tmp/want" - || fail "import-bf: field values differ"

# the tester's dump: its first argument does not fit u16, so nothing is kept
printf '0 100 0000000012345678\n0 300 00000002000001ff\n0 400 00000003ffffffff\n' >"$_tmp/k1.txt"
expect_exit 1 "$TRAWL" cat --defs "$_tmp/k.tdef" "$_tmp/k1.txt"
grep -qF "k1.txt:1:7: argument 305419896 (0x12345678) does not fit field 'a' (u16) of k:A" "$_tmp/err" ||
	fail "cat: u16 misfit not named: $(cat "$_tmp/err")"
[ -s "$_tmp/out" ] && fail "cat: events after a misfit: $(cat "$_tmp/out")"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/k1.txt" --defs "$_tmp/k.tdef" -o "$_tmp/k1"
grep -qF "k1.txt:1:7: argument 305419896 (0x12345678) does not fit field 'a' (u16) of k:A" "$_tmp/err" ||
	fail "import-bf: u16 misfit not named: $(cat "$_tmp/err")"
[ -z "$(list_fields "$_tmp/k1")" ] || fail "import-bf: events after a misfit"

# a misfit mid-dump, two cores: lines 1-2 kept; line 4 (core 1, t=120)
# and line 5 come after it and are not
cat >"$_tmp/k3.txt" <<'EOF'
0 100 0000000000001234
1 150 00000003ffffffff
0 200 00000002000001ff
1 120 0000000100000007
0 300 0000000000000001
EOF
expect_exit 1 "$TRAWL" cat --defs "$_tmp/k.tdef" "$_tmp/k3.txt"
grep -qF "k3.txt:3:7: argument 511 (0x1ff) does not fit field 'small' (u8) of k:C" "$_tmp/err" ||
	fail "cat: u8 misfit not named: $(cat "$_tmp/err")"
printf 'L1 cpu0 t=100cyc sw k:A tid=0 a=4660 b=0\nL2 cpu1 t=150cyc sw k:D tid=0 neg=-1\n' | diff -u - "$_tmp/out" ||
	fail "cat: the events before the misfit differ"
expect_exit 1 "$TRAWL" events import-bf "$_tmp/k3.txt" --defs "$_tmp/k.tdef" -o "$_tmp/k3"
grep -qF "k3.txt:3:7: argument 511 (0x1ff)" "$_tmp/err" || fail "import-bf: u8 misfit not named: $(cat "$_tmp/err")"
"$TRAWL" events list --abs "$_tmp/k3" | awk '{print $1, $3, $6, $7, $8}' >"$_tmp/got"
printf '100 0 k:A a=4660 b=0\n150 1 k:D neg=-1 \n' | diff -u - "$_tmp/got" || fail "import-bf: events before the misfit differ"

# signed misfits: 0xff is 255, past s8; 0x8000 is 32768, past s16
for c in '00010000000000ff 255 0xff c s8' '0001000100008000 32768 0x8000 h s16'; do
	set -- $c
	printf '0 100 %s\n' "$1" >"$_tmp/s.txt"
	expect_exit 1 "$TRAWL" cat --defs "$_tmp/k.tdef" "$_tmp/s.txt"
	grep -qF "s.txt:1:7: argument $2 ($3) does not fit field '$4' ($5)" "$_tmp/err" || fail "cat $5: $(cat "$_tmp/err")"
	expect_exit 1 "$TRAWL" events import-bf "$_tmp/s.txt" --defs "$_tmp/k.tdef" -o "$_tmp/s-$5"
	grep -qF "s.txt:1:7: argument $2 ($3) does not fit field '$4' ($5)" "$_tmp/err" || fail "import $5: $(cat "$_tmp/err")"
done
finish
