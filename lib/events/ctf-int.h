/* Internals of the CTF trace reader shared by ctf-read.c (metadata,
 * streams, merging) and ring-trace.c (recovering the recorder's buffer
 * files into streams). */
#ifndef TRAWL_EVENTS_CTF_INT_H
#define TRAWL_EVENTS_CTF_INT_H

#include "events/ring.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"

struct stream {
	char name[4096];
	const uint8_t *data;
	size_t size;
	void *owned;
	void *mapped;                /* the file, mapped read-only (until owned replaces it) */
	size_t map_len;
	size_t released;             /* bytes at the start of the mapping handed back */
	size_t release_at;           /* off at which to look at handing more back */
	size_t off;                  /* next byte to read */
	size_t content_end;          /* end of the current packet's events */
	size_t packet_end;
	/* the current packet runs past the end of the file: its start + 1
	 * (0: whole) and its size; its whole events are read, then the cut
	 * is the damage */
	size_t cut_packet, cut_size;
	uint32_t cpu, tid;
	uint64_t discarded;          /* the current packet's events_discarded */
	uint64_t seq;                /* the current packet's packet_seq_num */
	int seq_known;               /* a packet was read: seq holds */
	/* the current packet's timestamp_begin and _end: its events lie
	 * within (take_run keeps pkt_end in a register) */
	uint64_t pkt_begin, pkt_end;
	int done;
	int have;                    /* `ev` holds the next event's header */
	size_t cls_idx;              /* its class, for decoding its fields */
	struct trawl_sw_event ev;
};

/* A buffer file (.ring-N) a program left in the trace directory. */
struct ring_file {
	char path[4096];
	uint8_t *buf;
	size_t len;
	size_t stream;               /* index of its stream once recovered */
	uint64_t keep;               /* bytes of the stream file kept before the recovered ones */
	int recovered;               /* read (maybe up to damage) */
	int damaged;
};

/* A class's layout, compiled once from the metadata so an event decodes
 * without walking the type table: total size, and each field's size and
 * the shift that sign-extends it (0: unsigned or 64-bit). */
struct class_dec {
	uint32_t need;
	int all_u32;                 /* every field a 32-bit unsigned */
	uint8_t size[TRAWL_SW_MAX_FIELDS];
	uint8_t sext[TRAWL_SW_MAX_FIELDS];
};

#define CLASS_CACHE 256
#define CTF_MAX_SIDS 16

/* The stream ids the stream blocks declare (a block without one is
 * stream 0, as CTF has it for a trace of one stream class). */
struct stream_ids {
	uint32_t v[CTF_MAX_SIDS];
	size_t n;
	int any;                     /* more than v holds: take any id */
	int seen;                    /* the current block named its id */
};
void ctf_stream_ids_add(struct stream_ids *ids, uint64_t id);
/* The metadata's classes (sorted by id), the trace's info and the stream
 * ids it declares (ctf-metadata.c). */
enum trawl_status ctf_metadata_parse(const char *text, size_t len, struct trawl_sw_class **classes,
				     size_t *nclasses, struct trawl_swtrace_info *info, struct stream_ids *ids,
				     struct trawl_error *err);

struct trawl_swtrace {
	struct trawl_sw_class *classes;
	size_t nclasses;
	struct class_dec *dec;       /* per class; rebuilt when classes change */
	const struct trawl_sw_class *dec_of;
	size_t dec_n;
	/* id -> class index + 1 and the event's size: the size is what the
	 * next event's offset waits for, so it comes with the one load */
	struct { uint32_t id, idx, need, pad; } cache[CLASS_CACHE];
	/* the size take_run bets the next event has (the commonest lately):
	 * while it is right the next header's address is known without
	 * waiting for this one's class (see take_run) */
	uint32_t guess;
	/* the merge keeps taking from stream `run` while its next event is
	 * before every other stream's (run_lo: those before it, run_hi: after) */
	size_t run;
	uint64_t run_lo, run_hi;
	int in_run;
	struct trawl_swtrace_info info;
	struct stream *streams;
	size_t nstreams, streams_cap;
	struct trawl_error damage;
	int damaged;
	/* stream ids the metadata declares (a packet naming another is damage);
	 * more than fit: any is taken */
	uint32_t sids[CTF_MAX_SIDS];
	size_t nsids;
	int sids_any;
	struct ring_file *rings;
	size_t nrings;
	uint32_t *made;              /* class ids made up for recovered events */
	size_t nmade;
};

/* ring-trace.c */
/* Is this directory entry a buffer file (".ring-" and digits)? */
int ring_trace_is_ring(const char *name);
/* Read dir/name unless its program still holds it (then it only counts
 * as live). */
enum trawl_status ring_trace_add(struct trawl_swtrace *t, const char *dir, const char *name, struct trawl_error *err);
/* After the metadata: append each ring's missing events to its stream. */
enum trawl_status ring_trace_apply(struct trawl_swtrace *t);
void ring_trace_free(struct trawl_swtrace *t);
/* ctf-read.c: keep the first damage. */
void swtrace_note_damage(struct trawl_swtrace *t, const struct trawl_error *e);

#endif


