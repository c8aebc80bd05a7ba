#!/usr/bin/env python3
"""An independent client of trawl's stream protocol, version 2
(docs/stream-protocol.md), for the listener's tests. CRCs come from
Python's zlib.crc32, not from trawl. Loopback only; every mode is bounded
in connections and time.

  stream-client.py flips PORT N EXPECT   N connections, each sending the
        same valid trace with one bit flipped (spread over the stream);
        EXPECT gets the packets of the unflipped stream
  stream-client.py idle PORT N HOLD      N connections that send nothing, a
        partial hello, or a chunk a byte at a time; held HOLD s at most
  stream-client.py memory PORT N SIZE HOLD   N connections that each announce
        a SIZE-byte packet and send all but 100 bytes of it, held HOLD s;
        prints 'held' once everything is sent
  stream-client.py v1 PORT               a version 1 hello; prints what the
        listener sent back
  stream-client.py dump FILE             the valid stream (listener side
        not needed: the probes' answers are made up) for fuzz seeds
"""
import os, socket, struct, sys, time, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctf_trace  # noqa: E402

CLASS_ID = 0x00010002


def crc(b):
    return zlib.crc32(b) & 0xffffffff


def hello(version=2):
    h = b"TRWLSTRM" + struct.pack("<HHIQqIII", version, 48, 1, 10**9, 1700000000, 0, 4242, 0)
    return h + struct.pack("<I", crc(h) if version == 2 else 0)


class Wire:
    def __init__(self):
        self.seq = 0

    def chunk(self, typ, payload=b"", sid=0):
        self.seq += 1
        h = struct.pack("<IIQIII", typ, sid, self.seq, len(payload), crc(payload), 0)
        return h + struct.pack("<I", crc(h)) + payload


def class_payload():
    c = struct.pack("<II", CLASS_ID, 1) + b"net:TX".ljust(96, b"\0")
    return c + b"len".ljust(48, b"\0") + bytes([2]) + bytes(7)   # u16 len


def packet(t0, n, seq):
    """A CTF packet (docs/recorder.md) of n events of the class, times t0.."""
    evs = [ctf_trace.event(CLASS_ID, t0 + i, "<H", 100 + i) for i in range(n)]
    return ctf_trace.packet_of(evs, cpu=1, tid=77, seq=seq)


def read_msg(s, timeout=5.0):
    s.settimeout(timeout)
    b = b""
    while len(b) < 24:
        got = s.recv(24 - len(b))
        if not got:
            return None
        b += got
    magic, arg, value, c, z = struct.unpack("<4sIQII", b)
    if c != crc(b[:16]) or z:
        raise SystemExit("listener message with a bad checksum")
    return magic, arg, value


def exchange(s, w):
    """Answer the listener's clock probes with our CLOCK_MONOTONIC, which is
    the listener's clock too: the measured offset must come out as 0."""
    while True:
        m = read_msg(s)
        if m is None:
            return False
        magic, rnd, total = m
        if magic != b"TPRB":
            continue
        t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        t2 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        s.sendall(w.chunk(4, struct.pack("<IIQQ", rnd, 0, t1, t2)))
        if rnd + 1 >= total:
            return True


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def trace_chunks(w, now):
    pk = [packet(now + 1000 * k, 5 + k, k) for k in range(2)]
    return [w.chunk(1, class_payload())] + [w.chunk(2, p, sid=1) for p in pk] + [w.chunk(3)], pk


def flips(port, n, expect):
    # the stream's shape is fixed, so its length is known before sending
    w = Wire()
    body, pk = trace_chunks(w, 10**12)
    times = [Wire().chunk(4, bytes(24)) for _ in range(8)]
    total = len(hello()) + sum(map(len, times)) + sum(map(len, body))
    with open(expect, "wb") as f:
        f.write(b"".join(pk))
    for k in range(n):
        pos = (k * total) // n + k % 7
        bit = k % 8
        s = connect(port)
        w = Wire()
        sent = [0]

        def send(b):
            # flip the chosen bit when it goes by
            if sent[0] <= pos < sent[0] + len(b):
                b = bytearray(b)
                b[pos - sent[0]] ^= 1 << bit
                b = bytes(b)
            sent[0] += len(b)
            s.sendall(b)
        try:
            send(hello())
            # answer probes; our time chunks pass through send() too
            while True:
                m = read_msg(s, 3)
                if m is None:
                    break
                if m[0] != b"TPRB":
                    continue
                t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                send(w.chunk(4, struct.pack("<IIQQ", m[1], 0, t, t)))
                if m[1] + 1 >= m[2]:
                    break
            body, _ = trace_chunks(w, 10**12)
            for c in body:
                send(c)
            while read_msg(s, 3) is not None:
                pass
        except (OSError, socket.timeout):
            pass
        s.close()


def idle(port, n, hold):
    socks = []
    for k in range(n):
        try:
            s = connect(port)
        except OSError:
            continue
        if k % 3 == 1:
            s.sendall(hello()[:20])          # a hello that never ends
        socks.append((k, s))
    end = time.time() + hold
    # every third: a whole hello and exchange, then a chunk a byte at a time
    slow = []
    for k, s in socks:
        if k % 3 == 2:
            try:
                s.sendall(hello())
                w = Wire()
                if exchange(s, w):
                    slow.append((s, w.chunk(1, class_payload())))
            except OSError:
                pass
    i = 0
    while time.time() < end and slow:
        for s, c in list(slow):
            try:
                s.sendall(c[i:i + 1])
            except OSError:
                slow.remove((s, c))
        i += 1
        time.sleep(0.2)
    for _, s in socks:
        s.close()


def memory(port, n, size, hold):
    socks = []
    for _ in range(n):
        try:
            s = connect(port)
            s.sendall(hello())
            w = Wire()
            if not exchange(s, w):
                continue
            w.seq += 1
            h = struct.pack("<IIQIII", 2, 1, w.seq, size, 0, 0)
            s.sendall(h + struct.pack("<I", crc(h)))
            s.sendall(bytes(size - 100))
            socks.append(s)
        except OSError:
            pass
    print("held", flush=True)
    time.sleep(hold)
    for s in socks:
        s.close()


def v1(port):
    s = connect(port)
    s.sendall(hello(version=1))
    try:
        got = s.recv(100)
    except OSError:
        got = b""
    print("v1 answer: %d bytes" % len(got))
    s.close()


def dump(path):
    w = Wire()
    out = hello()
    for r in range(8):
        out += w.chunk(4, struct.pack("<IIQQ", r, 0, 5000 + r, 5001 + r))
    out += w.chunk(5)
    body, _ = trace_chunks(w, 10**12)
    out += b"".join(body)
    with open(path, "wb") as f:
        f.write(bytes([int(sys.argv[3]) if len(sys.argv) > 3 else 7]) + out)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "dump":
        dump(sys.argv[2])
    elif mode == "flips":
        flips(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif mode == "idle":
        idle(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "memory":
        memory(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "v1":
        v1(int(sys.argv[2]))
