#!/bin/sh
# trawl events connect against a stand-in Bfscope server (python3, loopback,
# one connection each, every wait bounded): the dumps of tests/data/rec/
# bf-dump.txt sent in two flushes must give the listing worked out by hand
# for import-bf (tests/cli/events-import-bf.sh); an incomplete last dump is
# reported (exit 1) and the complete ones kept; SIGINT ends cleanly (exit 0).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
d="$TRAWL_SRC/tests/data/rec"
cat >"$_tmp/server.py" <<'EOP'
import socket, sys, time
mode, portfile, dump = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read().splitlines(True)
one, two = b"".join(dump[:6]), b"".join(dump[6:])
def frame(b, junk=b"\xff"):
    h = str(len(b)).encode() + b"\0"
    return h + junk * (8 - len(h)) + b   # the bytes after the NUL are undefined
s = socket.socket()
s.bind(("127.0.0.1", 0)); s.listen(1); s.settimeout(20)
open(portfile + ".tmp", "w").write(str(s.getsockname()[1])); __import__("os").rename(portfile + ".tmp", portfile)
c, _ = s.accept()
if mode == "two":
    data = frame(one) + frame(two, b"x")
    for i in range(0, len(data), 7):          # odd pieces: framing across reads
        c.sendall(data[i:i + 7]); time.sleep(0.001)
elif mode == "cut":
    c.sendall(frame(one) + b"500\0\0\0\0\0" + two[:50])
elif mode == "hold":
    c.sendall(frame(one)); c.settimeout(20)
    try: c.recv(1)                            # until the client goes (bounded)
    except Exception: pass
elif mode == "bad":
    c.sendall(frame(one) + b"12a\0\0\0\0\0" + two)
c.close()
EOP
start() { # mode: starts the server, sets $port
	rm -f "$_tmp/port"
	python3 "$_tmp/server.py" "$1" "$_tmp/port" "$d/bf-dump.txt" &
	spid=$!
	i=0; while [ ! -s "$_tmp/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$_tmp/port")
}
# the listing worked out by hand (tests/data/rec/bf-dump.list)
cp "$d/bf-dump.list" "$_tmp/want"
head -2 "$_tmp/want" >"$_tmp/want1"

start two
"$TRAWL" events connect "127.0.0.1:$port" --bf --defs "$d/bf.tdef" -o "$_tmp/tr" 2>"$_tmp/err" ||
	fail "connect (two dumps) exit $?: $(cat "$_tmp/err")"
wait $spid
grep -c "dump of" "$_tmp/err" | grep -qx 2 || fail "two dumps expected: $(cat "$_tmp/err")"
"$TRAWL" events list --abs "$_tmp/tr" >"$_tmp/out" || fail "list of the received trace failed"
diff -u "$_tmp/want" "$_tmp/out" || fail "received events differ"

start cut
expect_exit 1 "$TRAWL" events connect "127.0.0.1:$port" --bf --defs "$d/bf.tdef" -o "$_tmp/tr2"
wait $spid
"$TRAWL" events list --abs "$_tmp/tr2" >"$_tmp/out" || fail "list after an incomplete dump failed"
diff -u "$_tmp/want1" "$_tmp/out" || fail "the complete dump was not kept"
start cut
expect_stderr_has "incomplete (50 of 500 bytes)" "$TRAWL" events connect "127.0.0.1:$port" --bf -o "$_tmp/tr3"
wait $spid

start hold
# a stderr file of its own: the poll must not see an earlier run's lines
# (it did, and sent SIGINT before the handler was in place)
"$TRAWL" events connect "127.0.0.1:$port" --bf --defs "$d/bf.tdef" -o "$_tmp/tr4" 2>"$_tmp/err4" &
cpid=$!
i=0; while ! grep -q "dump of" "$_tmp/err4" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $cpid
wait $cpid; rc=$?
wait $spid
[ $rc = 0 ] || fail "SIGINT: exit $rc, want 0: $(cat "$_tmp/err4")"
"$TRAWL" events list --abs "$_tmp/tr4" >"$_tmp/out" || fail "list after SIGINT failed"
diff -u "$_tmp/want1" "$_tmp/out" || fail "the dump before SIGINT was not kept"

# the bad field starts after the first frame: 8 + 166 bytes (head -6 of the dump)
start bad
expect_stderr_has "offset 174: Bfscope length field" "$TRAWL" events connect "127.0.0.1:$port" --bf -o "$_tmp/tr5"
wait $spid
[ "$("$TRAWL" events list "$_tmp/tr5" | wc -l)" = 2 ] || fail "dump before a bad length field not kept"

expect_exit 2 "$TRAWL" events connect "127.0.0.1:1" -o "$_tmp/tr6"
expect_exit 2 "$TRAWL" events connect nocolon --bf -o "$_tmp/tr6"
# a TCP port is 1-65535: PORT+65536 is refused as usage, not cut to its low
# 16 bits (getaddrinfo's reading), which reached the server on PORT
start two
expect_exit 2 "$TRAWL" events connect "127.0.0.1:$((port + 65536))" --bf --defs "$d/bf.tdef" -o "$_tmp/tr7"
grep -q "bad port '$((port + 65536))'" "$_tmp/err" || fail "port $((port + 65536)): $(cat "$_tmp/err")"
[ -e "$_tmp/tr7" ] && fail "a trace was written from port $((port + 65536))"
kill $spid 2>/dev/null; wait $spid 2>/dev/null
for p in 0 070 99999 12x; do
	expect_exit 2 "$TRAWL" events connect "127.0.0.1:$p" --bf -o "$_tmp/tr7"
done
finish
