/* The stream protocol from the recorder to `trawl listen`: a parser fed
 * whatever bytes arrive, handing out whole checked items. */
#ifndef TRAWL_SW_STREAM_H
#define TRAWL_SW_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-event.h"

/* ---- stream protocol (recorder -> `trawl listen`), version 2 ----
 * The wire format is in docs/stream-protocol.md and rec/include/trawl/rec-proto.h.
 * The parser is fed whatever bytes arrive and hands out whole items; it
 * checks every checksum, length, sequence number, class and packet before
 * handing it out, and buffers at most max_chunk + 80 bytes (less when a
 * limit is set). */
#define TRAWL_SP_VERSION 2
#define TRAWL_SP_HELLO_SIZE 48
#define TRAWL_SP_CHUNK_HEADER 32
#define TRAWL_SP_MSG_SIZE 24         /* listener -> client: ack, clock probe */
#define TRAWL_SP_TIME_SIZE 24
#define TRAWL_SP_MAX_CLASSES 4096

enum trawl_sp_kind {
	TRAWL_SP_HELLO = 0, TRAWL_SP_CLASS = 1, TRAWL_SP_PACKET = 2, TRAWL_SP_END = 3,
	TRAWL_SP_TIME = 4,           /* answer to a clock probe */
	TRAWL_SP_KEEPALIVE = 5,
};

struct trawl_sp_hello {
	uint16_t version;
	uint32_t nstreams;
	uint64_t clock_freq;
	int64_t clock_offset_s;
	uint32_t clock_offset_ns;
	uint32_t pid;
	uint32_t flags;
};

struct trawl_sp_item {
	enum trawl_sp_kind kind;
	uint64_t seq;                /* 0 for the hello */
	uint64_t offset;             /* byte offset of the item in the connection */
	uint32_t stream;
	const struct trawl_sp_hello *hello;  /* TRAWL_SP_HELLO */
	const struct trawl_sw_class *cls;    /* TRAWL_SP_CLASS */
	const uint8_t *data;         /* TRAWL_SP_PACKET: the CTF packet */
	size_t len;
	uint32_t nevents;            /* events in the packet */
	uint32_t round;              /* TRAWL_SP_TIME: the probe answered, */
	uint64_t t1, t2;             /* its arrival and the answer (client clock) */
};

struct trawl_sp_parser;

/* Return non-zero to stop feeding (the item is consumed). */
typedef int (*trawl_sp_fn)(void *ctx, const struct trawl_sp_item *item);

enum trawl_status trawl_sp_parser_create(struct trawl_sp_parser **out, size_t max_chunk, struct trawl_error *err);
/* Feed bytes. Protocol violations (checksums included) return
 * TRAWL_ERR_FORMAT with the byte offset in the connection; needing more
 * memory than the limit returns TRAWL_ERR_LIMIT. The parser is then
 * unusable. */
enum trawl_status trawl_sp_parser_feed(struct trawl_sp_parser *p, const uint8_t *data, size_t len, trawl_sp_fn fn,
				       void *ctx, struct trawl_error *err);
/* Bytes held (buffer and classes: the memory a connection holds). */
size_t trawl_sp_parser_buffered(const struct trawl_sp_parser *p);
/* Most bytes trawl_sp_parser_buffered may reach (the listener's share of
 * its total bound); SIZE_MAX by default. */
void trawl_sp_parser_set_limit(struct trawl_sp_parser *p, size_t max_bytes);
/* For fuzzing only: accept any checksum, so mutated inputs reach the rest. */
void trawl_sp_parser_skip_checksums(struct trawl_sp_parser *p);
int trawl_sp_parser_ended(const struct trawl_sp_parser *p);
/* Bytes received but not yet a whole item (a chunk cut off when the
 * connection ends is lost data). */
size_t trawl_sp_parser_pending(const struct trawl_sp_parser *p);
void trawl_sp_parser_destroy(struct trawl_sp_parser *p);

/* Add delta to every time in a packet the parser accepted (its begin and
 * end and each event's): puts a connection's packets on the listener's
 * clock. TRAWL_ERR_FORMAT when a time would leave the u64 range. */
enum trawl_status trawl_sp_packet_shift(const struct trawl_sp_parser *p, uint8_t *data, size_t len, int64_t delta,
					struct trawl_error *err);
/* The protocol's CRC-32 (zlib's crc32 from 0). */
uint32_t trawl_sp_crc32(const void *data, size_t len);
/* A listener -> client message: magic "TACK" or "TPRB", arg, value. */
void trawl_sp_message(uint8_t out[TRAWL_SP_MSG_SIZE], const char *magic, uint32_t arg, uint64_t value);

#endif
