/* The recorder's per-thread buffer file, TRACE/.ring-N (N: the number of
 * the thread's stream-N). The recorder maps it shared, so the kernel keeps
 * every event written into it whatever kills the process; `trawl events`
 * turns what the stream file lacks into CTF packets (docs/recorder.md,
 * "What survives a crash"). The name starts with a dot so that CTF readers
 * (babeltrace2) skip it. Host byte order throughout.
 *
 *   offset            what
 *   0                 struct trawl_ring_head (TRAWL_RING_HEAD bytes)
 *   TRAWL_RING_HEAD   nsub x struct trawl_ring_sub
 *   data_off          nsub sub-buffers of sub_size bytes (page aligned)
 *
 * Records in a sub-buffer are 16-byte slots:
 *   fast:  [ticks][subsys<<48 | event<<32 | arg]
 *   typed: [ticks][1<<63 | subsys<<48 | event<<32 | n][n fields][pad to 16]
 *   cpu:   [ticks][1<<63 | 1<<31 | cpu<<8]   the thread is on `cpu` from here
 *          on (version 2): the sub-buffer header's cpu holds until the
 *          first such record; a typed event never sets bits 8-31.
 * The producer stores the ticks last, so a record whose ticks are older
 * than its sub-buffer's open_ticks (a zeroed slot, or one from the last
 * lap) ends the open sub-buffer. A sub-buffer that held typed events is
 * zeroed before reuse (field values could pass for ticks).
 *
 * The consumer (the flusher) keeps a two-entry journal: `pending` is
 * written before a packet goes to stream-N, `committed` after; an entry
 * holds once gen matches and stream-N has file_size bytes. */
#ifndef TRAWL_REC_RING_H
#define TRAWL_REC_RING_H

#include <stdint.h>

#define TRAWL_RING_MAGIC 0x474e4952u   /* "RING" little-endian */
#define TRAWL_RING_VERSION 2            /* 2: cpu records; readers take 1 too */
#define TRAWL_RING_CPU_MARK ((1ull << 63) | (1ull << 31))
#define TRAWL_RING_IS_CPU(w) (((w) & 0xffffffff800000ffull) == TRAWL_RING_CPU_MARK)
#define TRAWL_RING_CPU_OF(w) ((uint32_t)((w) >> 8) & 0x7fffffu)
#define TRAWL_RING_HEAD 512
#define TRAWL_RING_SUB_TYPED 1u        /* trawl_ring_sub.flags */
#define TRAWL_RING_FLUSHED 1u          /* trawl_ring_head.flags: the crash handler flushed */

/* Consumer progress: what stream-N holds of this ring. */
struct trawl_ring_cursor {
	uint64_t gen;                /* 0: never written */
	uint64_t consumed;           /* next sub-buffer number to read */
	uint64_t coff;               /* bytes of it already in stream-N */
	uint64_t expected;           /* events accounted for: delivered + overwritten */
	uint64_t gaps;               /* events overwritten before they were read */
	uint64_t packet_seq;         /* packet_seq_num of the next packet */
	uint64_t reported;           /* events_discarded of the last packet */
	uint64_t file_size;          /* bytes of stream-N with this entry */
};

struct trawl_ring_head {
	uint32_t magic;
	uint32_t version;
	uint32_t head_size;          /* TRAWL_RING_HEAD */
	uint32_t nsub;
	uint64_t sub_size;           /* bytes, multiple of 16 */
	uint64_t data_off;           /* offset of sub-buffer 0 */
	uint32_t stream_id;
	uint32_t tid;
	uint32_t pid;
	uint32_t mode;               /* enum trawl_rec_mode */
	double ns_per_tick;          /* clock: ns = mono0 + (ticks - tsc0) * ns_per_tick */
	uint64_t tsc0, mono0;
	char boot_id[40];            /* /proc/sys/kernel/random/boot_id of the recording */
	uint64_t dropped;            /* discard mode: events refused, all time */
	uint32_t signal;             /* fatal signal the handler saw (0: none) */
	uint32_t flags;
	struct trawl_ring_cursor committed, pending;
};

/* Header of one sub-buffer, written by the producer. */
struct trawl_ring_sub {
	uint64_t seq;                /* 2k+1 while number k is open, 2k+2 once closed */
	uint64_t ready;              /* k once the fields below are valid for number k */
	uint64_t ev_begin;           /* events recorded in this thread before number k */
	uint64_t open_ticks;         /* counter when number k opened */
	uint32_t used;               /* bytes written (valid when closed) */
	uint32_t cpu;
	uint32_t flags;              /* TRAWL_RING_SUB_TYPED */
	uint32_t pad;
};

_Static_assert(sizeof(struct trawl_ring_head) <= TRAWL_RING_HEAD, "ring head too big");
_Static_assert(sizeof(struct trawl_ring_sub) == 48, "ring sub-buffer header size");

#endif
