/* Recorded software events: reading the CTF traces the recorder (rec/),
 * `trawl listen` and `trawl events import-bf` write, parsing the stream
 * protocol, and compiling event definitions (.tdef).
 *
 * Trace layout: a directory with `metadata` (CTF 1.8 TSDL text) and one
 * binary stream file per thread; the packet and event layout is the fixed
 * one in docs/recorder.md (64-byte packet preamble, 12-byte event header
 * u32 id + u64 ns, fields at natural size). Event id = subsys << 16 | event.
 */
#ifndef TRAWL_SWEVENTS_H
#define TRAWL_SWEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

#define TRAWL_SW_MAX_FIELDS 16

/* Field types (same numbers as enum trawl_rec_type in trawl/rec.h). */
enum trawl_sw_type {
	TRAWL_SW_U8 = 1, TRAWL_SW_U16, TRAWL_SW_U32, TRAWL_SW_U64,
	TRAWL_SW_S8, TRAWL_SW_S16, TRAWL_SW_S32, TRAWL_SW_S64,
};

/* "u32" -> TRAWL_SW_U32, 0 when unknown; and back. */
int trawl_sw_type_parse(const char *s, size_t len);
const char *trawl_sw_type_name(int type);
size_t trawl_sw_type_size(int type);

struct trawl_sw_class {
	uint32_t id;                 /* subsys << 16 | event */
	char name[96];               /* "subsys:event" */
	unsigned nfields;
	struct {
		char name[48];
		uint8_t type;        /* enum trawl_sw_type */
	} fields[TRAWL_SW_MAX_FIELDS];
};

struct trawl_sw_event {
	uint64_t time;               /* clock value, ns */
	uint32_t cpu, tid;
	uint32_t stream;             /* index into the trace's streams */
	uint64_t offset;             /* byte offset of the event in its stream file */
	const struct trawl_sw_class *cls; /* borrowed from the trace */
	uint64_t vals[TRAWL_SW_MAX_FIELDS]; /* signed types are sign-extended */
};

struct trawl_swtrace;

/* Open a trace directory (metadata + stream files). */
enum trawl_status trawl_swtrace_open(struct trawl_swtrace **out, const char *dir, struct trawl_error *err);
/* Same from memory (for tests and fuzzing): metadata text and stream
 * buffers, borrowed until close. */
enum trawl_status trawl_swtrace_open_mem(struct trawl_swtrace **out, const char *meta, size_t meta_len,
					 const uint8_t *const *streams, const size_t *lens, size_t nstreams,
					 struct trawl_error *err);

/* Next event of all streams merged by time. TRAWL_END when every stream is
 * exhausted. Damage in a stream (truncated or corrupt packet) stops that
 * stream only; the first damage is kept for trawl_swtrace_damage(). */
enum trawl_status trawl_swtrace_next(struct trawl_swtrace *t, struct trawl_sw_event *ev);

/* The first damage met so far (file and byte offset filled), or NULL. */
const struct trawl_error *trawl_swtrace_damage(const struct trawl_swtrace *t);

struct trawl_swtrace_info {
	int64_t clock_offset_s;      /* clock value 0 in wall-clock time */
	uint32_t clock_offset_ns;
	size_t nstreams;
	size_t nclasses;
	const struct trawl_sw_class *classes;
	uint64_t lost;               /* events_discarded summed over streams (read so far) */
	char procname[64];
	uint32_t pid;
	/* buffer files (.ring-N) a program left when it did not stop cleanly
	 * (crash, SIGKILL, _exit): their events are read along with the
	 * streams (docs/recorder.md, "What survives a crash") */
	uint64_t recovered;          /* events taken from them */
	uint32_t rings;              /* buffer files read */
	uint32_t live_rings;         /* buffer files of a program still recording (left alone) */
	uint32_t signal;             /* fatal signal the recorder's handler saw (0: none seen) */
};
void trawl_swtrace_info(const struct trawl_swtrace *t, struct trawl_swtrace_info *info);
void trawl_swtrace_close(struct trawl_swtrace *t);

/* Make what trawl_swtrace_open recovered part of the trace on disk: each
 * stream file is cut to what the recorder's journal vouches for and the
 * recovered packets appended, classes made up for undefined events are
 * appended to the metadata, and the buffer files are removed (a damaged
 * one is renamed .ring-N.damaged). Call before reading any event. The
 * trace then reads the same, and babeltrace2 reads it too. */
enum trawl_status trawl_swtrace_recover(struct trawl_swtrace *t, const char *dir, struct trawl_error *err);

/* Parse the metadata text alone into classes (malloc'd array). */
enum trawl_status trawl_ctf_metadata_parse(const char *text, size_t len, struct trawl_sw_class **classes,
					   size_t *nclasses, struct trawl_swtrace_info *info,
					   struct trawl_error *err);

/* ---- event definitions (.tdef files and their JSON form) ----
 *
 *   # comment, // comment, block comments
 *   subsystem net "networking" {
 *       event RX "packet received" (u32 len "bytes"),
 *       event TX "packet sent" (u32 len, u16 port, s64 delay_ns),
 *       event IRQ,
 *   };
 *
 * Subsystems and events are numbered in order from 0. Field types: u8 u16
 * u32 u64 s8 s16 s32 s64. */

#define TRAWL_DEFS_MAX_SUBSYS 0x8000
#define TRAWL_DEFS_MAX_EVENTS 0x10000

struct trawl_defs_field {
	char name[48];
	int type;                    /* enum trawl_sw_type */
	char *desc;                  /* may be NULL */
};

struct trawl_defs_event {
	char name[48];
	uint16_t id;
	char *desc;
	unsigned nfields;
	struct trawl_defs_field fields[TRAWL_SW_MAX_FIELDS];
};

struct trawl_defs_subsys {
	char name[48];
	uint16_t id;
	char *desc;
	struct trawl_defs_event *events;
	size_t nevents;
};

struct trawl_defs {
	struct trawl_defs_subsys *subsys;
	size_t nsubsys;
};

/* Parse .tdef text; errors carry file, line and column. */
enum trawl_status trawl_defs_parse(struct trawl_defs **out, const char *text, size_t len, const char *file,
				   struct trawl_error *err);
/* Parse the JSON written by trawl_defs_to_json. */
enum trawl_status trawl_defs_parse_json(struct trawl_defs **out, const char *text, size_t len, const char *file,
					struct trawl_error *err);
/* Does this event go through the 16-byte fast path (no fields, or one
 * unsigned field of at most 32 bits)? */
int trawl_defs_event_fast(const struct trawl_defs_event *e);
/* Generated texts (malloc'd, NULL when out of memory). `base` names the
 * header guard and the registration function ("net" for net.tdef). */
char *trawl_defs_to_header(const struct trawl_defs *d, const char *base, const char *source);
char *trawl_defs_to_ctf(const struct trawl_defs *d);
char *trawl_defs_to_json(const struct trawl_defs *d);
/* The class (id, name, fields) the recorder writes for an event. */
void trawl_defs_class(const struct trawl_defs_subsys *s, const struct trawl_defs_event *e,
		      struct trawl_sw_class *c);
void trawl_defs_free(struct trawl_defs *d);

/* ---- Barrelfish trace dumps ----
 * Text: header lines start with '#' (a line "# core N offset V" gives the
 * clock offset of core N to add to its timestamps; other header lines are
 * kept as comments), then one event per line: "CORE TIMESTAMP RAWHEX",
 * CORE decimal, TIMESTAMP decimal (or 0x hex), RAWHEX the 64-bit word
 * subsys << 48 | event << 32 | arg in hex (0x optional). */
struct trawl_bf_event {
	uint32_t core;
	uint64_t time;               /* timestamp plus the core's offset */
	uint64_t word;
	uint64_t line;
};

struct trawl_bf_stats {
	uint64_t events, header_lines, offsets;
};

/* Called per event; a non-zero return stops parsing (returned as TRAWL_ERR_LIMIT). */
typedef int (*trawl_bf_fn)(void *ctx, const struct trawl_bf_event *ev);

enum trawl_status trawl_bf_parse(const char *text, size_t len, const char *file, trawl_bf_fn fn, void *ctx,
				 struct trawl_bf_stats *stats, struct trawl_error *err);

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
