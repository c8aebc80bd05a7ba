#!/bin/sh
# Views of compressed traces (issue #18 item 2): the text every command
# prints for a .gz (one member, many members) and a .zst (one frame, many
# frames) copy of a trace is the plain trace's, byte for byte, and that
# text is the trace's own line (sed -n Lp, an independent reader) at
# random lines. A damaged seek file is found and built again, and so is
# the seek file of a trace that changed.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v gzip >/dev/null 2>&1 || skip "gzip is not installed"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"
P="$_tmp/t.tarmac"
"$TRAWL_BUILD/bench-gen-tarmac" 6 >"$P" || fail "generator failed"
gzip -6 -c "$P" >"$P.gz"
zstd -q -c "$P" >"$P.zst"
split -b 500000 "$P" "$_tmp/part."
for p in "$_tmp"/part.*; do
	gzip -c "$p" >>"$_tmp/members.gz"
	zstd -q -c "$p" >>"$_tmp/frames.zst"
done
rm -f "$_tmp"/part.*
copies="$P.gz $P.zst $_tmp/members.gz $_tmp/frames.zst"

for f in $P $copies; do
	expect_exit 0 "$TRAWL" index "$f"
done
expect_stdout_has ".trawlseek: " "$TRAWL" index "$P.zst"
expect_stdout_has "seek file:" "$TRAWL" info "$P.gz"
"$TRAWL" info "$P" | grep -q "seek file" && fail "a plain trace has no seek file"
[ -f "$P.gz.trawlseek" ] || fail "no seek file beside the .gz"

lines=$(wc -l <"$P")
# "after lines A-B (event N): TEXT": TEXT is line A of the trace
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	L=$(( ($(od -An -N4 -tu4 /dev/urandom) % lines) + 1 ))
	"$TRAWL" regs "$P" --at "$L" | head -1 >"$_tmp/want" || fail "regs --at $L"
	A=$(sed -n 's/^cpu [0-9]* after lines\{0,1\} \([0-9]*\).*/\1/p' "$_tmp/want")
	[ -n "$A" ] || { fail "no line number in: $(cat "$_tmp/want")"; continue; }
	sed 's/^[^:]*: //' "$_tmp/want" >"$_tmp/text"
	sed -n "${A}p" "$P" | cmp -s - "$_tmp/text" || fail "line $A: regs prints other text than the trace has"
	for f in $copies; do
		"$TRAWL" regs "$f" --at "$L" | head -1 | cmp -s - "$_tmp/want" ||
			fail "$f: regs --at $L prints other text than the plain trace"
	done
done

# every visit of a PC, with its text, from each copy
pc=$(sed -n '1000,2000s/.* IT ([0-9]*) \([0-9a-f]*\) .*/\1/p' "$P" | sort | uniq -c | sort -rn |
	awk 'NR == 1 { print $2 }')
"$TRAWL" pc "$P" "0x$pc" >"$_tmp/pc" || fail "pc"
"$TRAWL" pc "$P" "0x$pc" --json >"$_tmp/pc.json" || fail "pc --json"
[ "$(wc -l <"$_tmp/pc")" -gt 3 ] || fail "pc 0x$pc: too few visits to compare"
sed -n 's/^line \([0-9]*\) (event [0-9]*): \(.*\)/\1 \2/p' "$_tmp/pc" | while read -r L text; do
	[ "$(sed -n "${L}p" "$P")" = "$text" ] || echo "line $L"
done >"$_tmp/bad"
[ -s "$_tmp/bad" ] && fail "pc prints other text than the trace at $(head -3 "$_tmp/bad")"
for f in $copies; do
	"$TRAWL" pc "$f" "0x$pc" | cmp -s - "$_tmp/pc" || fail "$f: pc prints other text"
	"$TRAWL" pc "$f" "0x$pc" --json | cmp -s - "$_tmp/pc.json" || fail "$f: pc --json differs"
done

# damage: a flipped byte in the first blob of the seek file (the zstd
# copy's first frame: text from byte 0; the gzip window of the restart
# point 512 KiB in), then a truncated one: the text is still the trace's,
# and stderr says why it was built again
for f in "$P.gz" "$P.zst"; do
	case $f in
	*.gz) L=$(head -c 800000 "$P" | wc -l) ;;
	*) L=100 ;;
	esac
	"$TRAWL" regs "$P" --at "$L" | head -1 >"$_tmp/want"
	size=$(wc -c <"$f.trawlseek")
	printf '\377\377\377\377' | dd of="$f.trawlseek" bs=1 seek=300 conv=notrunc 2>/dev/null
	"$TRAWL" regs "$f" --at "$L" 2>"$_tmp/err" | head -1 | cmp -s - "$_tmp/want" ||
		fail "$f: other text after damage"
	grep -q "building the seek file again" "$_tmp/err" ||
		fail "$f: damage not reported: $(cat "$_tmp/err")"
	truncate -s $((size / 3)) "$f.trawlseek"
	"$TRAWL" regs "$f" --at "$L" 2>"$_tmp/err" | head -1 | cmp -s - "$_tmp/want" ||
		fail "$f: other text after truncation"
	grep -q "building it again" "$_tmp/err" || fail "$f: truncation not reported: $(cat "$_tmp/err")"
	[ "$(wc -c <"$f.trawlseek")" -eq "$size" ] || fail "$f: seek file not rebuilt whole"
done

# damage no view has read yet: info --verify finds it (exit 1, nothing
# rebuilt), trawl index reads the whole seek file and builds over it
for f in "$P.gz" "$P.zst"; do
	size=$(wc -c <"$f.trawlseek")
	printf '\377' | dd of="$f.trawlseek" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	expect_exit 1 "$TRAWL" info --verify "$f"
	expect_stderr_has "does not match" "$TRAWL" info --verify "$f"
	expect_stderr_has "building the seek file again" "$TRAWL" index "$f"
	expect_exit 0 "$TRAWL" info --verify "$f"
done

# a trace changed after its seek file was built: rebuilt, not trusted
head -c 3000000 "$P" | gzip -c >"$P.gz"
"$TRAWL" regs "$P.gz" --at 100 2>"$_tmp/err" | head -1 >"$_tmp/got"
"$TRAWL" regs "$P" --at 100 | head -1 | cmp -s - "$_tmp/got" || fail "changed .gz: other text"
grep -q "another version" "$_tmp/err" || fail "changed .gz: not reported: $(cat "$_tmp/err")"

# traces of other tools (the corpus, when present, ES/LD/ST style and
# AArch32 included): regs at 15 random lines and every visit of the most
# visited PC, from .gz and .zst copies, against the plain file
if [ -d "${TRAWL_CORPUS:-}/tarmac" ]; then
	for t in $(find "$TRAWL_CORPUS/tarmac" -name '*.tarmac' | sort); do
		c="$_tmp/corpus-$(basename "$t")"
		cp "$t" "$c"
		gzip -c "$c" >"$c.gz"
		zstd -q -c "$c" >"$c.zst"
		"$TRAWL" index "$c" >/dev/null 2>&1 || continue # not indexable as it is
		n=$(wc -l <"$c")
		pc=$(sed -n -e 's/.* I[TS] ([0-9]*) \([0-9a-f]*\) .*/\1/p' \
			-e 's/.* ES  *(0*\([0-9a-f][0-9a-f]*\):.*/\1/p' "$c" | sort | uniq -c |
			sort -rn | awk 'NR == 1 { print $2 }')
		for f in "$c.gz" "$c.zst"; do
			"$TRAWL" index "$f" >/dev/null 2>&1 || fail "$f: index"
			if [ -n "$pc" ]; then
				"$TRAWL" pc "$c" "0x$pc" >"$_tmp/want" 2>/dev/null
				"$TRAWL" pc "$f" "0x$pc" 2>/dev/null | cmp -s - "$_tmp/want" ||
					fail "$f: pc 0x$pc prints other text"
			fi
			i=0
			while [ $i -lt 15 ]; do
				i=$((i + 1))
				L=$(( ($(od -An -N4 -tu4 /dev/urandom) % n) + 1 ))
				"$TRAWL" regs "$c" --at "$L" >"$_tmp/want" 2>/dev/null
				"$TRAWL" regs "$f" --at "$L" 2>/dev/null | cmp -s - "$_tmp/want" ||
					fail "$f: regs --at $L differs"
			done
		done
	done
else
	echo "SKIP (part): corpus not found under ${TRAWL_CORPUS:-<unset>}"
fi
finish
