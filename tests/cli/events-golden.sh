#!/bin/sh
# The outputs of a fixed recorder trace (tests/data/rec/golden/README) stay
# what the previous reader and activity engine printed: events list (all,
# and filtered), stats, summary (text, and --json with a --where filter),
# activities (sorted: their order changed on purpose) and the Perfetto file.
. "$TRAWL_SRC/tests/cli-lib.sh"
G="$TRAWL_SRC/tests/data/rec/golden"
T="$G/trace"
D="$TRAWL_SRC/bench/events-bench.tdef"
E="$TRAWL_SRC/examples/rec-demo/analysis.tdef"
w='len > 100 || cpu == 0'
same() { # NAME EXPECTED-FILE GOT-FILE
	cmp -s "$2" "$3" || { diff -u "$2" "$3" | head -20; fail "$1 differs from the previous binary's"; }
}
"$TRAWL" events list "$T" >"$_tmp/list" || fail "events list"
gzip -dc "$G/list.txt.gz" >"$_tmp/list.want"
same "events list" "$_tmp/list.want" "$_tmp/list"
"$TRAWL" events list --abs "$T" --where "$w" >"$_tmp/listw" || fail "events list --where"
gzip -dc "$G/list-where.txt.gz" >"$_tmp/listw.want"
same "events list --where" "$_tmp/listw.want" "$_tmp/listw"
"$TRAWL" events stats "$T" >"$_tmp/stats" || fail "events stats"
same "events stats" "$G/stats.txt" "$_tmp/stats"
"$TRAWL" events summary "$T" --defs "$D" --where "$w" --json >"$_tmp/sumw" || fail "events summary --json"
same "events summary --json --where" "$G/summary-where.json" "$_tmp/sumw"
"$TRAWL" events summary "$T" --defs "$E" >"$_tmp/sum" || fail "events summary"
same "events summary" "$G/summary.txt" "$_tmp/sum"
"$TRAWL" events activities "$T" --defs "$E" --abs | sort >"$_tmp/act" || fail "events activities"
gzip -dc "$G/activities.sorted.gz" >"$_tmp/act.want"
same "events activities" "$_tmp/act.want" "$_tmp/act"
# the process is named after the trace as given: a relative path here
(cd "$TRAWL_SRC" && "$TRAWL" export --perfetto tests/data/rec/golden/trace --defs "$E" -o "$_tmp/pf.json") ||
	fail "export --perfetto"
gzip -dc "$G/perfetto.json.gz" >"$_tmp/pf.want"
same "export --perfetto" "$_tmp/pf.want" "$_tmp/pf.json"
finish
