/* ETE packet decoder internals shared by packet.c (tables, parse_one,
 * streaming) and packet-fast.c (the two fast paths over runs of whole
 * packets). The fast paths read and write the decoder's state directly, so
 * its layout lives here rather than in the public header. */
#ifndef TRAWL_ETE_PACKET_INT_H
#define TRAWL_ETE_PACKET_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ete.h"

#define CARRY_MAX 64
#define BATCH_MAX 256  /* 16 KiB of packets: stays in L1 */
#define CONT_MAX 5       /* bytes of a 32-bit continuation field */

/* Headers the fast paths consume themselves: one-byte packets, cycle
 * count formats 1 and 2, and the address packets (short, long, exact match, plain
 * or source). Everything else goes through parse_one. */
enum fast_kind {
	FK_SLOW = 0, FK_ONE, FK_CC2, FK_S0, FK_S1, FK_L32_0, FK_L32_1, FK_L64_0, FK_L64_1,
	FK_MATCH, FK_CC1,
};

/* The counting loop's kinds: those above, and cycle count format 1 with
 * only its cycle count field (COMMOPT = 1, even header), which has a
 * handler of its own there. */
#define CK_CC1C (FK_CC1 + 1)
#define CK_KINDS (CK_CC1C + 1)

/* Longest fast-path packet (64-bit long address; cycle count format 1 with
 * 5 + 3 bytes of fields): while this many bytes remain, the fast path reads
 * without bounds checks. */
#define FAST_MAX 9

struct hist {
	uint64_t addr;
	uint8_t is;
};

struct trawl_ete_pkt_decoder {
	struct trawl_ete_config cfg;
	uint8_t table[256];
	/* one-byte packets whose record does not depend on state (atoms,
	 * events, ...): precomputed; one_byte: 1 = copy, 2 = copy and add the
	 * cycle-count threshold (cycle count format 3). n_e/n_n: atom counts */
	struct trawl_ete_packet tmpl[256];
	uint8_t one_byte[256], n_e[256], n_n[256];
	/* counting fast path: packet kind (enum fast_kind) and type per header */
	uint8_t fast[256], htype[256];
	/* counting loop: its dispatch index for a header pair is crow[first]
	 * + ccol[second]: crow = count kind * 32, ccol = count kind, + 16 when
	 * bit 7 is set (the continuation bit when the byte is a payload) */
	uint16_t crow[256];
	uint8_t ccol[256];
	int generic;              /* every packet through parse_one (tests) */
	trawl_ete_packet_fn fn;
	void *fn_ctx;
	uint64_t offset;          /* offset of the next byte fed */
	int synced;
	int ever_synced;          /* an A-Sync seen: later skipped bytes are not lead bytes */
	uint32_t zeros;           /* unsynced: current run of zero bytes */
	uint64_t skip_start;      /* unsynced: first skipped byte */
	uint64_t skipped;         /* unsynced: bytes skipped so far */
	struct hist hist[3];
	uint64_t ts;
	int ts_reset;             /* next timestamp replaces all bits */
	uint32_t cc_threshold;
	uint8_t carry[CARRY_MAX];
	size_t carry_len;
	uint64_t carry_off;
	struct trawl_ete_packet batch[BATCH_MAX];
	size_t nbatch;
	struct trawl_ete_pkt_stats stats;
};

/* Hands the batch to the callback (with its statistics) and empties it. */
void ete_pkt_flush(struct trawl_ete_pkt_decoder *d);

/* The fast paths over b[pos, end), where FAST_MAX bytes of the run follow
 * end; each returns the position of the first header it does not handle
 * (or end). Both keep d->hist up to date; see packet-fast.c. */
size_t ete_records_fast(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t pos,
			size_t end, uint64_t base);
size_t ete_count_fast(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t pos,
		      size_t end, uint32_t (*cnt)[256]);

#endif
