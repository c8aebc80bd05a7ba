# Sourced by the events-script-*.sh tests, after cli-lib.sh: $T is a trace
# of 1000 net:RX events (num = 0..999, cpu = num % 2, time = 1000 + 10 *
# num ns, imported from a generated Barrelfish dump), $d the test data
# folder, nums FILE the nums an events list printed, as one line. Skips
# when trawl was built without Lua.
d="$TRAWL_SRC/tests/data/rec"
awk 'BEGIN { print "# generated: CORE TIME subsys<<48|event<<32|arg";
	for (i = 0; i < 1000; i++) printf "%d %d 00000000%08x\n", i % 2, 1000 + 10 * i, i }' >"$_tmp/dump.txt"
expect_exit 0 "$TRAWL" events import-bf "$_tmp/dump.txt" --defs "$d/act.tdef" -o "$_tmp/tr"
T="$_tmp/tr"
if "$TRAWL" events list "$T" --script /dev/null 2>&1 | grep -q "built without Lua"; then
	skip "trawl built without Lua (liblua5.4-dev)"
fi
nums() { sed -n 's/.*net:RX num=\([0-9]*\).*/\1/p' "$1" | tr '\n' ' '; }
