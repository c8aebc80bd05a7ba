/* On-disk layout of a trawl index file, version 5: kind 1 "full" as
 * below, kind 2 "compact" the same sections with the big ones in
 * compressed blocks (SEC_ZBLOCKS below, zblock.h). Also in
 * docs/index-format.md. Every integer is little-endian, whatever the host.
 *
 * Header (1024 bytes at offset 0)
 *   off  size  meaning
 *     0     8  magic "TRAWLIDX"
 *     8     4  format version (6)
 *    12     4  kind (1 = full, 2 = compact; kinds.c)
 *    16     4  flags: bit 0 = complete (set in the last write of a build),
 *                bit 1 = exception events carry reset/debug flags,
 *                bit 2 = some events had no text line (IDX_FLAG_NO_TEXT)
 *    20     4  header size (1024)
 *    24     8  file size in bytes
 *    32     8  trace size          } what the trace file looked like when
 *    40     8  trace mtime (ns)    } it was indexed (0 = none recorded);
 *    48     8  trace ctime (ns)    } the content hash is in IDENTITY
 *    56     8  event count
 *    64     8  last line of the last event
 *    72     4  checkpoint interval K (events)
 *    76     4  cpu count (highest cpu number + 1)
 *    80     8  build duration (ns)
 *    88     8  creation time (unix seconds)
 *    96     4  time unit (enum trawl_time_unit)
 *   100     4  section count (<= 24)
 *   104     8  trace inode number
 *   112     8  trace device number
 *   120     4  log2 of the checksum block size (10: 1 KiB)
 *   124     4  reserved (0)
 *   128   768  section table: 24 entries of 32 bytes
 *                +0 u32 id, +4 u32 record size (0 = bytes),
 *                +8 u64 offset, +16 u64 length, +24 u64 checksum
 *   896     8  XXH3-64 of the SUMS_TOP section
 *   904     8  wall clock (ns) when the trace's stat above was taken
 *   912   104  reserved (0)
 *  1016     8  header checksum: hash of bytes [0, 1016)
 *
 * Sections (offsets 8-aligned, inside the file, not overlapping the header)
 *   1 EVENTS   packed event records (evpack.c), one per event, in event
 *              order, in blocks of EVB_EVENTS: a block is a header (EVB_HDR
 *              bytes: +0 u64 base[EVF_N], each field's smallest value in
 *              the block; +112 u8 width[EVF_N], bytes per field, 0-8;
 *              +126 u16 0), then its records: each field the difference
 *              from its base in `width` bytes, the fields in enum ev_field
 *              order
 *   2 DELTAS   the effects of each event; event i owns bytes [delta(i),
 *              delta(i+1)). Records:
 *                REG  tag 0x01 (|0x80 when a known-mask follows), reg u32,
 *                     offset u16, size u16, zext u16, value[size],
 *                     [mask ceil(size/8)]
 *                MEM  tag 0x02 (|0x80 mask), addr u64, size u32, value[size],
 *                     [mask] (a memory write; values in address order)
 *                CLOB tag 0x03, addr u64, size u64 (range made unknown)
 *                CKPT tag 0x04, length u32, then the register files before
 *                     this event: u32 n; n x { u16 cpu, u16 0, u32 nregs,
 *                     nregs x { u32 reg, u16 size, u8 all_known, u8 0,
 *                     value[size], [mask ceil(size/8) unless all_known] } };
 *                     bytes of a register beyond `size` are unknown. First
 *                     record of every event j*K (a checkpoint).
 *                CPU  tag 0x05, cpu u16: the core of this and the following
 *                     events; after each CKPT and when the core changes
 *              so registers at event N are one contiguous read: from the
 *              CKPT of N's epoch to the end of N's records.
 *   3 EVBLK    u64 per block of EVB_EVENTS events: bits 0-47 its offset
 *              in EVENTS, bits 48-63 its record size
 *   4          unused (was a checkpoint section before the format settled)
 *   5 MEMW     32-byte write-list records sorted by (block, event, delta):
 *              +0 block address u64 (64-byte aligned), +8 event u64,
 *              +16 delta-log offset of the MEM/CLOB record u64,
 *              +24 first byte in block u8, +25 byte count u8 (1-64),
 *              +26 flags u8 (1 = clobber), +27 5 bytes 0
 *   6 SNAP     88-byte block snapshots sorted by (block, event): the block
 *              as it was before event `event` (a checkpoint event), taken for
 *              blocks written in the epoch before it: +0 block u64,
 *              +8 event u64, +16 value[64], +80 known mask u64 (bit i = byte i)
 *   7 CLOB     24-byte records sorted by (block, event): +0 block, +8 event,
 *              +16 mask of bytes made unknown at that event
 *   8 BACKDATE 88-byte records sorted by (block, key): values learnt from
 *              reads of bytes nobody had written since `key` (0 = the start
 *              of the trace, else clobber event + 1): +0 block, +8 key,
 *              +16 value[64], +80 known mask u64
 *   9 REGW     16-byte records sorted by (cpu << 32 | reg, event, then
 *              the order of the writes): +0 key u64, +8 u64: bits 0-39
 *              event, 40-51 first byte, 52-63 end byte (zero-extension
 *              included)
 *  10 PCS      16-byte records sorted by (pc, event): +0 pc, +8 event
 *  11 SYSREGS  names of system registers, NUL-terminated, in id order
 *              (TRAWL_REG_SYS_BASE + i)
 *  12-17 FENCE of MEMW, SNAP, CLOB, BACKDATE, REGW, PCS: the first 16
 *              bytes (the sort key) of every IDX_FENCE-th record, so a
 *              search touches a few contiguous pages before the big table
 */
#ifndef TRAWL_INDEX_FORMAT_H
#define TRAWL_INDEX_FORMAT_H

#include <stdint.h>
#include <string.h>

#define IDX_MAGIC "TRAWLIDX"
#define IDX_VERSION 6u
#define IDX_HEADER_SIZE 1024u
#define IDX_MAX_SECTIONS 24u
#define IDX_FLAG_COMPLETE 1u
/* Exception events carry TRAWL_EVF_RESET / TRAWL_EVF_DEBUG_ENTRY (readers
 * set them since this flag exists); an index without it is rebuilt when
 * opened for its trace, so --use-index never reads a reset as a call. */
#define IDX_FLAG_EXC_FLAGS 2u
/* Some event came from a source without text (line 0 from its reader):
 * its line is its ordinal, and there is no text to show for it. */
#define IDX_FLAG_NO_TEXT 4u
/* The trace held software events: the SW sections are present (in either
 * kind, stored as is). */
#define IDX_FLAG_SW 8u
#define IDX_HDR_CHECKSUM_OFF 1016u

enum idx_section {
	SEC_EVENTS = 1,
	SEC_DELTAS,
	SEC_EVBLK,              /* one record per block of events: bases and widths */
	SEC_UNUSED4_,
	SEC_MEMW,
	SEC_SNAP,
	SEC_CLOB,
	SEC_BACKDATE,
	SEC_REGW,
	SEC_PCS,
	SEC_SYSREGS,
	SEC_FENCE_MEMW,
	SEC_FENCE_SNAP,
	SEC_FENCE_CLOB,
	SEC_FENCE_BACKDATE,
	SEC_FENCE_REGW,
	SEC_FENCE_PCS,
	SEC_IDENTITY,           /* key/value records: what the index was built from */
	SEC_SUMS,               /* u32 checksum per block of [1024, SUMS offset) */
	SEC_SUMS_TOP,           /* u64 checksum per 4 KiB of SUMS (verify only) */
	SEC_ZBLOCKS,            /* compact kind: where each compressed block is */
	/* software events only (IDX_FLAG_SW); written before SUMS like the others */
	SEC_SW_EVENTS,          /* 16-byte records per event: tid, stream, ids, arg */
	SEC_SW_CPU,             /* 16-byte (cpu u64, event u64), sorted by cpu, then event */
	SEC_SW_THREAD,          /* 16-byte (tid u64, event u64), sorted by tid, then event */
	SEC_COUNT_ = SEC_SW_THREAD,
};

/* Compact kind (2): the sections with a record size in zb_rec below (and
 * DELTAS) are stored as blocks compressed one by one (zblock.h); their
 * table entry gives the compressed bytes, SEC_ZBLOCKS the blocks: 16-byte
 * records u32 section id, u32 decoded bytes, u64 file offset of the frame,
 * a section's blocks consecutive and in order, each (but the last) of
 * zb_block_bytes(rec) decoded bytes; a frame ends where the next begins
 * (the last at its section's end). */
#define ZBLK_REC 16u
static inline int idx_sec_compressed(uint32_t sid)
{
	return sid <= SEC_EVBLK || (sid >= SEC_MEMW && sid <= SEC_PCS);
}

#define IDX_FENCE 256u          /* records per fence entry */
#define FENCE_REC 16u

/* Event fields, in the order a packed record (EVENTS) holds them. */
enum ev_field {
	EVF_LINE,               /* first line (1-based); never decreases */
	EVF_OFFSET,             /* byte offset in the (decompressed) trace; never decreases */
	EVF_TIME,               /* time in the trace's unit; assumed not to decrease */
	EVF_DELTA,              /* offset of the event's records in DELTAS */
	EVF_PC,                 /* instructions, else 0 */
	EVF_NLINES,             /* line count */
	EVF_LENGTH,             /* byte length (saturated at 2^32-1) */
	EVF_ENCODING,           /* instruction encoding */
	EVF_DEPTH,              /* call depth before the event, as u32 ^ 0x80000000 */
	EVF_CPU,
	EVF_FLAGS,              /* TRAWL_EVF_*, low 8 bits */
	EVF_KIND,               /* enum trawl_event_kind */
	EVF_ISET,               /* iset | encoding width << 4 */
	EVF_EL,                 /* exception level, 0xff unknown */
	EVF_N
};
#define EVB_EVENTS 256u         /* events per block */
#define EVB_REC 8u              /* EVBLK record */
#define EVB_HDR 128u            /* block header in EVENTS */
#define EVB_WIDTH (8u * EVF_N)  /* the widths in the header */
#define EVB_DEPTH_BIAS 0x80000000u
#define EV_MAX48 (((uint64_t)1 << 48) - 1)
#define MEMW_REC 32u
#define SNAP_REC 88u
#define CLOB_REC 24u
#define BD_REC 88u
#define REGW_REC 16u
#define REGW_EV_BITS 40u        /* event bits of a REGW record's second word */
#define REGW_EV_MASK (((uint64_t)1 << REGW_EV_BITS) - 1)
#define PCS_REC 16u
#define SW_REC 16u

#define BLOCK 64u
#define BLOCK_MASK (~(uint64_t)(BLOCK - 1))

#define DT_REG 0x01u
#define DT_MEM 0x02u
#define DT_CLOB 0x03u
#define DT_CKPT 0x04u
#define DT_CPU 0x05u
#define DT_MASK 0x80u

#define MEMW_CLOBBER 1u

/* Block checksums: every byte from the end of the header to the SUMS
 * section is covered by the u32 checksum of its 1 KiB block (check.c):
 * small, so that a cold point query hashes little more than it reads. */
#define IDX_BLOCK_LOG 10u
/* A trace changed less than this before its stat was recorded may look
 * unchanged (file time granularity): its content hash is checked. */
#define IDX_RACY_NS 2000000000ull
#define IDX_BLOCK ((uint64_t)1 << IDX_BLOCK_LOG)
#define IDX_PIECE 4096u        /* bytes of SUMS per SUMS_TOP entry */
#define IDX_SUMS_PER_TOP (IDX_PIECE / 4u)

/* IDENTITY keys (u16 key, u16 length, value). Keys below 0x8000 change
 * what the index means: one this version does not know makes the index
 * not match. Keys from 0x8000 are informational. */
#define ID_KEY_SOURCE 1u        /* u32: 1 = a trace file read by trawl_reader */
#define ID_KEY_CONTENT 2u       /* u64: XXH3-64 of every byte of the file */
#define ID_KEY_READER 3u        /* u32: TRAWL_ID_* reader option bits */
#define ID_KEY_FORMAT 4u        /* u32: reader format asked for (0 = detect) */
#define ID_KEY_DEFS 5u          /* u64: XXH3-64 of the event definitions file
				 * the reader named events from (--defs) */
#define ID_KEY_READER_HASH 6u   /* u64: another reader's options and inputs */
#define ID_KEY_READER_VERSION 7u /* u32: version of a decoding reader's output (ETE) */
#define ID_KEY_SKIPPED 0x8001u  /* u64: malformed lines skipped (--lenient) */
#define ID_KEY_CUT 0x8002u      /* u64: a last line cut off by the end of the trace, dropped */
#define ID_KEY_DAMAGED 0x8003u  /* u64: places of a decoded trace not decoded */
#define ID_KEY_TIME_BACK 0x8004u /* u64 count, then u64 event numbers: where times went backwards */
#define ID_TIME_BACK_MAX 8190u   /* numbers listed at most (the key's length is a u16) */

/* Largest range a semihosting call may make unknown (larger ones are not
 * believed, and a CLOB record claiming more is damage). */
#define IDX_MAX_CLOBBER (256ull << 20)

/* Little-endian loads and stores (fixed file byte order). */
static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, 8);
#else
	v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
#endif
	return v;
}
static inline uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline void st64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}
static inline void st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline uint64_t ld48(const uint8_t *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld16(p + 4) << 32;
}
static inline void st48(uint8_t *p, uint64_t v)
{
	st32(p, (uint32_t)v);
	p[4] = (uint8_t)(v >> 32);
	p[5] = (uint8_t)(v >> 40);
}
static inline void st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* A fast 64-bit hash over bytes, used for the header and section checksums. */
uint64_t idx_hash(uint64_t seed, const void *data, size_t len);

/* Block checksum of data block blk (check.c) and of 4 KiB piece `piece`
 * of SUMS. */
uint32_t idx_block_sum(const uint8_t *p, size_t n, uint64_t blk);
uint64_t idx_top_sum(const uint8_t *p, size_t n, uint64_t piece);

/* ---- register-file layout shared by builder and queries ---- */

/* Byte offset of a core register in a register file, or -1. System
 * registers follow the core area at RF_CORE_BYTES + i*16. */
#define RF_CORE_BYTES (37u * 8 + 32u * 256 + 33u * 32)
int32_t rf_core_offset(uint32_t reg);

#endif
