#!/bin/sh
# The CTF reader decodes one layout (docs/recorder.md), so the metadata's
# declarations of it are held to it: each edit below to a recorder trace's
# metadata was read with exit status 0 and the events decoded as before
# (wrongly: babeltrace2 printed cpu_id = 13062 where trawl said cpu 1, or
# refused the trace). Each is now an error naming the metadata line and
# column. What does not change decoding (comments, blanks, env entries,
# clock descriptions and uuids, typealiases no field uses, string escapes)
# is still read, to the same events; a clock offset of more than a second
# of cycles is honoured (its whole seconds were dropped).
. "$TRAWL_SRC/tests/cli-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
demo="$TRAWL_BUILD/rec/rec-demo/rec-demo"
[ -x "$demo" ] || skip "rec-demo not built"
TRAWL_REC_SUBBUF=4096 "$demo" --threads 2 --packets 100 --out "$_tmp/tr" >/dev/null || fail "rec-demo failed"
expect_exit 0 "$TRAWL" events list "$_tmp/tr"
cp "$_tmp/out" "$_tmp/want"
[ -s "$_tmp/want" ] || fail "the recorder's trace lists nothing"

# edit NAME OLD NEW [MARK]: a copy of the trace, the first OLD in its
# metadata replaced by NEW ("\n", "\t" as in C; "$" appends NEW at the end);
# prints the line:col of MARK in NEW (the first of it; "$": the end of the
# text), where an error should be named
edit() {
	rm -rf "$_tmp/$1"
	cp -r "$_tmp/tr" "$_tmp/$1"
	python3 - "$_tmp/$1/metadata" "$2" "$3" "${4:-}" <<'EOP'
import sys
path, old, new, mark = sys.argv[1:5]
unq = lambda s: s.replace("\\n", "\n").replace("\\t", "\t")
old, new, mark = unq(old), unq(new), unq(mark)
s = open(path).read()
if old == "$":
    at = len(s)
else:
    at = s.find(old)
    if at < 0:
        sys.exit("no '%s' in the metadata" % old)
s = s[:at] + new + s[at + len(old):]
open(path, "w").write(s)
if mark:
    p = len(s) if mark == "$" else at + new.index(mark)
    line = s.count("\n", 0, p) + 1
    print("%d:%d" % (line, p - (s.rfind("\n", 0, p) + 1) + 1))
EOP
}

# bad NAME OLD NEW MARK MESSAGE: the edit is refused, naming where and why
bad() {
	pos=$(edit "$1" "$2" "$3" "$4") || { fail "$1: cannot edit"; return; }
	expect_exit 1 "$TRAWL" events list "$_tmp/$1"
	[ ! -s "$_tmp/out" ] || fail "$1: events listed from a metadata trawl cannot read"
	if [ -n "$pos" ]; then
		grep -qF "metadata:$pos: " "$_tmp/err" || fail "$1: not named at $pos: $(cat "$_tmp/err")"
	else
		grep -q "metadata:[0-9]*:[0-9]*: " "$_tmp/err" || fail "$1: no line and column: $(cat "$_tmp/err")"
	fi
	grep -qF -- "$5" "$_tmp/err" || fail "$1: message $(cat "$_tmp/err"), expected $5"
	expect_exit 1 "$TRAWL" events stats "$_tmp/$1"
	expect_exit 1 "$TRAWL" cat "$_tmp/$1"
}

# good NAME OLD NEW: the edit changes nothing read
good() {
	edit "$1" "$2" "$3" >/dev/null || { fail "$1: cannot edit"; return; }
	expect_exit 0 "$TRAWL" events list "$_tmp/$1"
	cmp -s "$_tmp/want" "$_tmp/out" || fail "$1: the events differ"
	[ ! -s "$_tmp/err" ] || fail "$1: said $(cat "$_tmp/err")"
}

laid="as trawl's recorder writes it (docs/recorder.md)"
bad freq "freq = 1000000000" "freq = 1000" "1000" "freq = 1000: trawl reads times in nanoseconds"
bad cpu-tid "uint32_t cpu_id;\n\t\tuint32_t thread_id;" "uint32_t thread_id;\n\t\tuint32_t cpu_id;" "thread_id" \
	"packet.context must be struct { trawl_clock_t timestamp_begin;"
grep -qF "$laid: 'thread_id' where 'cpu_id' belongs" "$_tmp/err" || fail "cpu-tid: $(cat "$_tmp/err")"
bad begin-end "timestamp_begin;\n\t\ttrawl_clock_t timestamp_end;" "timestamp_end;\n\t\ttrawl_clock_t timestamp_begin;" \
	"timestamp_end" "'timestamp_end' where 'timestamp_begin' belongs"
bad uuid "uint32_t magic;" "uint32_t magic;\n\t\tuint8_t uuid[16];" "[" \
	"packet.header must be struct { uint32_t magic; uint32_t stream_id; } $laid: 'uuid' is an array"
bad context-extra "uint32_t thread_id;" "uint32_t thread_id;\n\t\tuint32_t extra;" "extra" "'extra' is a field too many"
bad header-extra "trawl_clock_t timestamp;" "trawl_clock_t timestamp;\n\t\tuint32_t extra;" "extra" \
	"event.header must be struct { uint32_t id; trawl_clock_t timestamp; } $laid: 'extra' is a field too many"
bad cpu64 "uint32_t cpu_id;" "uint64_t cpu_id;" "uint64_t" "'cpu_id' must be an unsigned 32-bit integer"
bad no-map "trawl_clock_t timestamp;" "uint64_t timestamp;" "uint64_t" "'timestamp' must be mapped to the clock"
bad alias-be "size = 32; align = 8; signed = false; }" "size = 32; align = 8; signed = false; byte_order = be; }" "" \
	"byte_order = be: trawl reads integers in the trace's byte order only"
bad alias-align "size = 64; align = 8; signed = false; map" "size = 64; align = 64; signed = false; map" "" \
	"align = 64: trawl reads fields packed at byte boundaries"
bad major "major = 1" "major = 2" "2" "major = 2: trawl reads CTF 1.8"
bad trace-be "byte_order = le" "byte_order = be" "be" "trace byte order be differs from this machine's"
bad event-sid "stream_id = 0;\n\tfields" "stream_id = 1;\n\tfields" "1" "stream_id = 1, but the stream block is stream 0"
bad stream-twice "$" "\nstream { id = 1; };\n" "stream" "a second stream block"
bad event-context "stream {\n\tid = 0;" "stream {\n\tid = 0;\n\tevent.context := struct { uint32_t x; };" "event.context" \
	"stream event.context is not read"
bad offset-words "offset = " "offset = 5 + " "+" "expected ';'"
bad freq-1e9 "freq = 1000000000" "freq = 1e9" "1e9" "malformed number"
bad end-typealias-int "$" "typealias int" "$" "unexpected end of the metadata (unterminated typealias)"
bad end-typealias "$" "typealias" "$" "unexpected end of the metadata"
bad end-event "$" "event { name = \"x\"; id = 99999; }" "$" "expected ';' after '}'"
bad end-comment "$" "/* the rest" "/*" "unterminated comment"
bad id-twice "$" "event { name = \"x\"; id = 1; id = 7; };\n" "id = 7" "'id' given twice in this event block"
bad field-twice "$" "event { name = \"x\"; id = 99999; fields := struct { uint32_t a; uint32_t a; }; };\n" "a; }" \
	"field 'a' declared twice in this event"
bad id-same "$" "event { name = \"x\"; id = 0x1869f; };\nevent { name = \"y\"; id = 99999; };\n" "99999" \
	"two events with id 99999 (the other at"
bad undeclared "$" "event { name = \"x\"; id = 99999; fields := struct { u32 a; }; };\n" "u32" "type 'u32' is not declared"
bad clock-field "$" "event { name = \"x\"; id = 99999; fields := struct { trawl_clock_t a; }; };\n" "trawl_clock_t" \
	"field 'a' is mapped to clock 'trawl'"
bad float-field "$" "typealias floating_point { exp_dig = 8; mant_dig = 24; align = 8; } := float;
event { name = \"x\"; id = 99999; fields := struct { float f; }; };\n" "float f" "trawl decodes integer fields only"
bad event-attr "$" "event { name = \"x\"; id = 99999; size = 4; };\n" "size" "event attribute 'size' is not one trawl reads"
bad top "$" "callsite { name = \"x\"; };\n" "callsite" "unexpected 'callsite' at top level"

# changes nothing decoded: still read, the same events
good comments "stream {" "/* the stream */\nstream { // one\n\t/* id */"
good blanks "typealias integer { size = 32;" "typealias   integer\n\t{ size =\n32 ;"
good env "procname" "extra_key = 5;\n\tnegative = -3;\n\twho = \"me\";\n\tprocname"
good clock "description = \"cycle" "uuid = \"9e3b5f2a-0000-4000-8000-000000000000\";\n\tdescription = \"a different"
good trace-uuid "minor = 8;" "minor = 8;\n\tuuid = \"9e3b5f2a-0000-4000-8000-000000000000\";"
good unused-aliases "$" "typealias integer { size = 12; byte_order = be; align = 3; frob = 1; } := odd_t;
typealias floating_point { exp_dig = 8; mant_dig = 24; align = 8; } := float;
typealias string { encoding = UTF8; } := str_t;\n"
good escapes "$" "event { name = \"a \\\"quoted\\\" name\"; id = 99999; loglevel = 3; model.emf.uri = \"x\"; };\n"

# a clock offset in cycles beyond a second: its seconds count (a set of
# two traces, each on wall-clock time by its own offset)
python3 - "$TRAWL_SRC/tests/cli" "$_tmp/set" <<'EOP' || fail "cannot write the set"
import sys
sys.path.insert(0, sys.argv[1])
import ctf_trace
for d, off in (("a", "offset_s = 0; offset = 0;"), ("b", "offset_s = 1; offset = 2500000000;")):
    out = sys.argv[2] + "/" + d
    ctf_trace.write_metadata(out, [("net:RX", 0, [("num", "uint32_t")])])
    p = out + "/metadata"
    s = open(p).read()
    assert "offset_s = 0; offset = 0;" in s
    open(p, "w").write(s.replace("offset_s = 0; offset = 0;", off))
    open(out + "/stream-0", "wb").write(ctf_trace.packet_of([ctf_trace.event(0, 1000, "<I", 5)]))
EOP
expect_exit 0 "$TRAWL" cat "$_tmp/set"
[ "$(grep -o 't=[0-9]*ns' "$_tmp/out" | tr '\n' ' ')" = "t=1000ns t=3500001000ns " ] ||
	fail "clock offset: $(cat "$_tmp/out")"
# metadata without the stream block, or with an empty packet.header: the
# events could not be laid out as trawl reads them
mkdir "$_tmp/nostream" "$_tmp/noheader"
printf '/* CTF 1.8 */\ntypealias integer { size = 32; } := u32;\ntrace { major = 1; minor = 8; byte_order = le;\n\tpacket.header := struct { u32 magic; u32 stream_id; }; };\n' \
	>"$_tmp/nostream/metadata"
expect_exit 1 "$TRAWL" events list "$_tmp/nostream"
grep -qF "metadata:5:1: metadata: no stream block: trawl reads the trace, clock and stream blocks" "$_tmp/err" ||
	fail "no stream block: $(cat "$_tmp/err")"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le;\n\tpacket.header := struct { }; };\n' \
	>"$_tmp/noheader/metadata"
expect_exit 1 "$TRAWL" events list "$_tmp/noheader"
grep -qF "metadata:3:28: metadata: packet.header must be struct { uint32_t magic; uint32_t stream_id; } $laid: 'magic' is missing" \
	"$_tmp/err" || fail "empty packet.header: $(cat "$_tmp/err")"

# what trawl itself writes reads: the recorder's (above), the test
# traces (ctf_trace.py, above) and an imported Barrelfish dump
d="$TRAWL_SRC/tests/data/rec"
"$TRAWL" events import-bf "$d/bf-dump.txt" --defs "$d/bf.tdef" -o "$_tmp/bf" >/dev/null 2>&1 || fail "import-bf failed"
expect_exit 0 "$TRAWL" events list "$_tmp/bf"
[ -s "$_tmp/out" ] || fail "the imported trace lists nothing"
finish
