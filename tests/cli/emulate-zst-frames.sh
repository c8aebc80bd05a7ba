#!/bin/sh
# A .zst trace compressed on threads is many independent frames (one per
# emulator block), in one frame without threads: both decompress with zstd
# -dc to exactly the plain trace, and trawl's readers (stats, cat, index,
# regs through the index) give what they give on the plain text, also when
# the file is cut inside its last frame or has bytes after it. A write that
# fails midway (a file size limit) exits 1 with the message, and what was
# written decodes to a prefix of the trace.
. "$TRAWL_SRC/tests/cli-lib.sh"
ex="$TRAWL_BUILD/examples"
[ -x "$ex/sort" ] || skip "examples not built (aarch64-linux-gnu-gcc missing)"
command -v zstd >/dev/null 2>&1 || skip "zstd is not installed (Debian package zstd)"

frames() { zstd -lv "$1" 2>/dev/null | sed -n 's/^# Zstandard Frames: *\([0-9]*\).*/\1/p'; }
# the program's stdout to /dev/null each time: fstat of it changes its path
"$TRAWL" emulate "$ex/sort" -o "$_tmp/plain" -- 3000 >/dev/null || fail "plain run failed"
[ "$(wc -c <"$_tmp/plain")" -gt 20000000 ] || fail "the trace is too small for many blocks"
for th in 1 2 0; do
	"$TRAWL" emulate "$ex/sort" --compress-threads $th -o "$_tmp/t$th.zst" -- 3000 >/dev/null ||
		fail "zst run on $th threads failed"
	zstd -dc "$_tmp/t$th.zst" | cmp -s - "$_tmp/plain" ||
		fail "--compress-threads $th: zstd -dc does not give the plain trace"
	n=$(frames "$_tmp/t$th.zst")
	if [ $th = 0 ]; then
		[ "$n" = 1 ] || fail "one thread: '$n' frames, want 1"
	else
		[ "${n:-0}" -gt 20 ] || fail "$th threads: '$n' frames, want one per block"
	fi
done
# the default is the threaded file too (on a machine of several CPUs)
if [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" -gt 1 ]; then
	"$TRAWL" emulate "$ex/sort" -o "$_tmp/def.zst" -- 3000 >/dev/null || fail "default zst run failed"
	[ "$(frames "$_tmp/def.zst")" -gt 20 ] || fail "the default did not compress on threads"
fi

# the readers: the same answers as from the plain text
strip() { grep -v -e '^trace:' -e '^elapsed' -e '^throughput' -e '^peak rss'; }
"$TRAWL" stats "$_tmp/plain" | strip >"$_tmp/stats.want"
"$TRAWL" cat "$_tmp/plain" | md5sum >"$_tmp/cat.want"
lines=$(wc -l <"$_tmp/plain")
for L in 1 $((lines / 3)) $((lines - 5)); do
	"$TRAWL" regs "$_tmp/plain" --index "$_tmp/plain.idx" --at $L >"$_tmp/regs$L.want" || fail "regs plain"
done
for f in "$_tmp/t2.zst" "$_tmp/t0.zst"; do
	"$TRAWL" stats "$f" | strip | cmp -s - "$_tmp/stats.want" || fail "$f: stats differ from the plain trace's"
	"$TRAWL" cat "$f" | md5sum | cmp -s - "$_tmp/cat.want" || fail "$f: cat differs from the plain trace's"
	expect_exit 0 "$TRAWL" index --index "$f.idx" "$f"
	for L in 1 $((lines / 3)) $((lines - 5)); do
		"$TRAWL" regs "$f" --index "$f.idx" --at $L | cmp -s - "$_tmp/regs$L.want" ||
			fail "$f: regs --at $L differs from the plain trace's"
	done
done

# cut inside the last frame, and bytes after the last frame: the text the
# oracle decodes is used, the damage named, exit 1
size=$(wc -c <"$_tmp/t2.zst")
head -c $((size - 3000)) "$_tmp/t2.zst" >"$_tmp/cut.tarmac.zst"
{ cat "$_tmp/t2.zst"; printf 'not zstd data\n'; } >"$_tmp/tail.tarmac.zst"
for f in "$_tmp/cut.tarmac.zst" "$_tmp/tail.tarmac.zst"; do
	zstd -dc "$f" 2>/dev/null >"$f.plain"
	[ "$(wc -c <"$f.plain")" -gt 20000000 ] || fail "$f: the oracle decoded too little"
	"$TRAWL" stats "$f.plain" | strip >"$_tmp/want"
	"$TRAWL" stats "$f" 2>"$_tmp/err" | strip >"$_tmp/got"
	cmp -s "$_tmp/want" "$_tmp/got" || fail "$f: stats differ from the decoded text's"
	expect_exit 1 "$TRAWL" stats "$f"
	case $f in
	*cut*) grep -q "zstd data is truncated" "$_tmp/err" || fail "$f: $(cat "$_tmp/err")" ;;
	*) grep -q "after compressed byte $size, where the last complete zstd frame ends" "$_tmp/err" ||
		fail "$f: $(cat "$_tmp/err")" ;;
	esac
done

# a write that fails midway: exit 1 naming it; the frames written before
# decode to the start of the trace (SIGXFSZ ignored: write gets EFBIG)
for th in 2 0; do
	sh -c "ulimit -f 2000 && trap '' XFSZ && exec \"\$0\" \"\$@\"" "$TRAWL" emulate "$ex/sort" \
		--compress-threads $th -o "$_tmp/lim.zst" -- 3000 >/dev/null 2>"$_tmp/err"
	[ $? = 1 ] || fail "$th threads, file size limit: exit status should be 1"
	grep -q "cannot write '$_tmp/lim.zst'" "$_tmp/err" || fail "$th threads, file size limit: $(cat "$_tmp/err")"
	zstd -dc "$_tmp/lim.zst" 2>/dev/null >"$_tmp/lim"
	n=$(wc -c <"$_tmp/lim")
	[ "$n" -gt 1000000 ] || fail "$th threads, file size limit: only $n bytes decode"
	head -c "$n" "$_tmp/plain" | cmp -s - "$_tmp/lim" ||
		fail "$th threads, file size limit: what was written is not the start of the trace"
done
finish
