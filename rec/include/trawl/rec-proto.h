/* The trawl stream protocol (recorder -> `trawl listen`), version 2, wire
 * constants. docs/stream-protocol.md is the full description; integers in
 * headers are little-endian; every CRC is CRC-32 as zlib's crc32().
 *
 * hello (client -> listener), 48 bytes:
 *   0  8 magic "TRWLSTRM"        8  2 version (2)     10 2 hello size (48)
 *   12 4 stream count            16 8 clock frequency (Hz, 1e9)
 *   24 8 clock offset, seconds   32 4 clock offset, ns
 *   36 4 pid                     40 4 flags (bit 0: packets big-endian)
 *   44 4 CRC of bytes 0..43
 * chunk header, 32 bytes, then `length` payload bytes:
 *   0 4 type (1 class, 2 packet, 3 end, 4 time, 5 keepalive)
 *   4 4 stream id                8 8 sequence number (1, 2, 3 ... per connection)
 *   16 4 payload length          20 4 CRC of the payload
 *   24 4 reserved (0)            28 4 CRC of header bytes 0..27
 * class payload: 0 4 event id, 4 4 field count (<= 16), 8 96 name (NUL
 *   padded), then per field 48 name bytes (NUL padded), 1 type, 7 zero.
 * packet payload: one CTF packet (rec-ctf.h), content_size == 8 * length.
 * time payload, 24 bytes: 0 4 round (of the probe answered), 4 4 zero,
 *   8 8 t1 = clock when the probe arrived, 16 8 t2 = clock when sent.
 * listener -> client message, 24 bytes: 0 4 magic, 4 4 arg, 8 8 value,
 *   16 4 CRC of bytes 0..15, 20 4 zero.
 *   "TACK": value = highest sequence number written to disk.
 *   "TPRB": clock probe; arg = round, value = number of rounds.
 */
#ifndef TRAWL_REC_PROTO_H
#define TRAWL_REC_PROTO_H

#define TRAWL_PROTO_MAGIC "TRWLSTRM"
#define TRAWL_PROTO_VERSION 2
#define TRAWL_PROTO_HELLO_SIZE 48
#define TRAWL_PROTO_CHUNK_HEADER 32
#define TRAWL_PROTO_MSG_SIZE 24
#define TRAWL_PROTO_ACK_MAGIC "TACK"
#define TRAWL_PROTO_PROBE_MAGIC "TPRB"
#define TRAWL_PROTO_CLASS 1
#define TRAWL_PROTO_PACKET 2
#define TRAWL_PROTO_END 3
#define TRAWL_PROTO_TIME 4
#define TRAWL_PROTO_KEEPALIVE 5
#define TRAWL_PROTO_TIME_SIZE 24
#define TRAWL_PROTO_CLASS_FIXED 104
#define TRAWL_PROTO_CLASS_FIELD 56
#define TRAWL_PROTO_DEFAULT_PORT 6666
/* a client with nothing else to send sends a keepalive this often */
#define TRAWL_PROTO_KEEPALIVE_MS 500

#endif
