#!/bin/sh
# summary's total duration is exact past 2^64 ns: two overlapping spans of
# 2^63 + 100 ns each (times as a damaged or synthetic trace may hold them) total
# 2^64 + 200 ns, mean 2^63 + 100; the u64 total wrapped to 200 (mean 100)
# with exit 0. Text, CSV and JSON (read by python, whose integers do not
# wrap) say the same.
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 - "$TRAWL_SRC/tests/cli" "$_tmp/tr" <<'EOP' || fail "cannot write the trace"
import os, sys
sys.path.insert(0, sys.argv[1])
import ctf_trace
out = sys.argv[2]
ctf_trace.write_metadata(out, [("net:RX", 0, [("num", "uint32_t")]), ("net:TX", 1, [("num", "uint32_t")])])
big = (1 << 63) + 100
evs = [ctf_trace.event(0, 1000, "<I", 1), ctf_trace.event(0, 2000, "<I", 2),
       ctf_trace.event(1, 1000 + big, "<I", 1), ctf_trace.event(1, 2000 + big, "<I", 2)]
open(os.path.join(out, "stream-0"), "wb").write(ctf_trace.packet_of(evs, cpu=0, tid=7))
EOP
printf 'subsystem net { event RX (u32 num), event TX (u32 num) };\nactivity pkt span { begin net:RX; end net:TX; key num; };\n' >"$_tmp/a.tdef"
total=18446744073709551816 mean=9223372036854775908
expect_exit 0 "$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/a.tdef"
grep -Eq "^pkt +span +2 +$total +$mean +$mean " "$_tmp/out" || fail "text: $(cat "$_tmp/out")"
expect_exit 0 "$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/a.tdef" --csv
grep -q "^pkt,span,2,$total,$mean,$mean," "$_tmp/out" || fail "csv: $(cat "$_tmp/out")"
"$TRAWL" events summary "$_tmp/tr" --defs "$_tmp/a.tdef" --json >"$_tmp/s.json" || fail "json: exit status $?"
python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["activities"][0]
assert a["count"] == 2 and a["total_ns"] == 2 ** 64 + 200 and a["mean_ns"] == 2 ** 63 + 100, a' "$_tmp/s.json" ||
	fail "json: $(head -c 400 "$_tmp/s.json")"
finish
