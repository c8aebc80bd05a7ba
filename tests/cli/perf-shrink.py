"""Hand-damage a perf.data (file mode): the first record of type TYPE in
the data section gets size NEW, and the bytes it gave up become a
FINISHED_ROUND record (type 68), so the records after it stay in step.
Walks the records by their headers (perf.data-file-format.txt: the data
section's offset and size at bytes 40 and 48 of the header) and prints the
damaged record's file offset.
Usage: perf-shrink.py IN OUT TYPE NEW
"""
import struct
import sys

src, out, rtype, new = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(src, "rb").read())
data_off, data_size = struct.unpack_from("<QQ", b, 40)
pos = data_off
while pos + 8 <= data_off + data_size:
    t, misc, size = struct.unpack_from("<IHH", b, pos)
    if t == rtype:
        assert 8 <= new and new + 8 <= size and (size - new) % 8 == 0, (size, new)
        struct.pack_into("<H", b, pos + 6, new)
        struct.pack_into("<IHH", b, pos + new, 68, 0, size - new)
        open(out, "wb").write(b)
        print(pos)
        sys.exit(0)
    extra = struct.unpack_from("<Q", b, pos + 8)[0] if t == 71 else 0  # AUXTRACE data
    pos += size + extra
sys.exit("no record of type %d" % rtype)
