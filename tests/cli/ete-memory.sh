#!/bin/sh
# Memory of a decoded trace (docs/ete.md, "As a trace"): a snapshot or a
# perf.data records no data accesses, so `trawl mem` (and serve's mem)
# shows what the program image holds, the snapshot's dumps or the mapped
# files, and ?? everywhere else. Truth: the dump and ELF files' own bytes
# (xxd), never trawl's decode.
. "$TRAWL_SRC/tests/cli-lib.sh"
. "$TRAWL_SRC/tests/perf-lib.sh"
. "$TRAWL_SRC/tests/ete-snap.sh"
export XDG_CACHE_HOME="$t/cache"

hex() { xxd -p "$@" | tr -d '\n'; }
unknown() { i=0; while [ $i -lt "$1" ]; do printf '??'; i=$((i + 1)); done; }
mem_bytes() { # trawl mem args... -> the "bytes" field of --json
	"$TRAWL" mem --json "$@" 2>"$t/err" | sed -n 's/.*"bytes":"\([^"]*\)".*/\1/p'
}

# a snapshot: the program at 0x1000 (16 bytes) and a data dump at 0x2000
s="$t/snap"
mksnap "$s" "000000000000000000000080""0100""04850008000000000000""11""f6f7" \
	"61000054""1f2003d5""1f2003d5""c0035fd6" 0x0
printf 'data at 0x2000!!' >"$s/data.bin"
printf '\n[dump2]\nfile=data.bin\naddress=0x2000\n' >>"$s/cpu_0.ini"
want="$(unknown 8)$(hex "$s/code.bin")$(unknown 8)"
got=$(mem_bytes "$s" --at 1 0xff8 32)
[ "$got" = "$want" ] || fail "snapshot code: $got, the dump has $want"
want="$(hex -l 8 "$s/data.bin")"
got=$(mem_bytes "$s" --at 2 0x2000 8)
[ "$got" = "$want" ] || fail "snapshot data: $got, the dump has $want"
expect_stdout_has "(16 bytes from the program image" "$TRAWL" mem "$s" --at 1 0xff8 32
expect_stdout_has "0000000000002000: 64 61 74 61 20 61 74 20  30 78 32 30 30 30 21 21  |data at 0x2000!!|" \
	"$TRAWL" mem "$s" --at 1 0x2000 16
# --ete-image bytes too (where no dump is)
printf 'extra' >"$t/extra.bin"
got=$(mem_bytes "$s" --ete-image 0x3000="$t/extra.bin" --at 1 0x3000 6)
[ "$got" = "$(hex "$t/extra.bin")??" ] || fail "--ete-image bytes: $got"

# perf.data: the mapped file's bytes where the recording mapped it (0x1000)
$mk "$t/ete.data" "$t/trace.bin" /no/such/dir/prog.bin
got=$(mem_bytes --symfs "$t" "$t/ete.data" --at 2 0x1000 16)
[ "$got" = "$(hex "$t/prog.bin")" ] || fail "perf.data mapped file: $got, the file has $(hex "$t/prog.bin")"
# not found: unknown, as before
got=$(mem_bytes --index "$t/noimg.idx" "$t/ete.data" --at 1 0x1000 4)
[ "$got" = "$(unknown 4)" ] || fail "perf.data without its files: $got"

# the corpus' ETE snapshot with many dumps, each checked at its start
c="${TRAWL_CORPUS:-$TRAWL_SRC/../shared/corpus}/ete/ete/ete_mem"
if [ -d "$c" ]; then
	awk -F= '/^file=/ { f = $2 } /^address=/ { print f, $2 }' "$c/cpu_0.ini" | head -4 |
	while read -r f a; do
		w=$(hex -l 32 "$c/$f")
		n=$((${#w} / 2))
		g=$(mem_bytes --index "$t/corpus.idx" "$c" --at 1 "$a" "$n")
		[ "$g" = "$w" ] || echo "FAIL: corpus dump $f at $a: $g, the file has $w"
	done >"$t/corpus.fails"
	[ -s "$t/corpus.fails" ] && fail "$(cat "$t/corpus.fails")"
fi
finish
