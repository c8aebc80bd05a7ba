"""CTF traces in the layout trawl's recorder writes (docs/recorder.md), made
by hand for tests whose answers are worked out from the events they write:
one place for the metadata's fixed part and the packet header, so the
tests that write traces (events-random.py, events-where-u64.sh,
events-time-back.sh) and the stream client (stream-client.py) agree with
the recorder and with each other.

    import ctf_trace
    ctf_trace.write_metadata(out, [("net:RX", 0, [("len", "uint32_t")])])
    evs = [ctf_trace.event(0, t, "<I", v) for t, v in ...]
    open(out + "/stream-0", "wb").write(ctf_trace.packet_of(evs, cpu=0, tid=7))
"""
import os
import struct

MAGIC = 0xC1FC1FC1
HEADER = struct.Struct("<IIQQQQQQII")  # packet header and context: 64 bytes

PREAMBLE = """/* CTF 1.8 */
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
clock { name = trawl; freq = 1000000000; offset_s = 0; offset = 0; absolute = false; };
typealias integer { size = 64; align = 8; signed = false; map = clock.trawl.value; } := trawl_clock_t;
stream { id = 0;
	packet.context := struct { trawl_clock_t timestamp_begin; trawl_clock_t timestamp_end;
		uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
		uint64_t events_discarded; uint32_t cpu_id; uint32_t thread_id; };
	event.header := struct { uint32_t id; trawl_clock_t timestamp; }; };
"""


def metadata(classes):
    """The metadata text: classes are (name, id, [(field, type), ...]) with
    types uint16_t, uint32_t, uint64_t or int64_t."""
    out = [PREAMBLE]
    for name, cid, fields in classes:
        fs = " ".join("%s %s;" % (ty, f) for f, ty in fields)
        out.append('event { name = "%s"; id = %d; stream_id = 0; fields := struct { %s }; };\n' % (name, cid, fs))
    return "".join(out)


def write_metadata(out, classes):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(metadata(classes))


def event(cid, time, fmt="", *vals):
    """One event: its header (class id, time in ns), then its fields
    packed with the struct format fmt ("<I", "<IHq", ...)."""
    return struct.pack("<IQ", cid, time) + (struct.pack(fmt, *vals) if fmt else b"")


def event_time(ev):
    return struct.unpack_from("<Q", ev, 4)[0]


def packet(body, t0, t1, cpu=0, tid=0, seq=0, discarded=0):
    """A packet of the events in body (bytes), from time t0 to t1."""
    size = (HEADER.size + len(body)) * 8
    return HEADER.pack(MAGIC, 0, t0, t1, size, size, seq, discarded, cpu, tid) + body


def packet_of(evs, cpu=0, tid=0, seq=0, discarded=0):
    """A packet of a list of events (each event()'s bytes), its times the
    first's and the last's."""
    return packet(b"".join(evs), event_time(evs[0]), event_time(evs[-1]), cpu, tid, seq, discarded)
