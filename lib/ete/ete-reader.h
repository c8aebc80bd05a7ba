/* The ETE trawl_reader backend's state, shared by its two files: opening
 * (reader-open.c: snapshot or raw buffer, registers, images, TRBE) and
 * decoding into events (reader.c). Private to lib/ete. */
#ifndef TRAWL_ETE_READER_INT_H
#define TRAWL_ETE_READER_INT_H

#include "trawl/ete.h"
#include "trawl/reader.h"

#define ETE_READER_IDS 128
#define ETE_NAME_MAX 96

struct ete_reader;

/* One trace ID's decoders and the state its events need. */
struct ete_stream {
	struct ete_reader *r;
	uint8_t id;
	uint16_t cpu;              /* the trace source's place in the snapshot */
	struct trawl_ete_config cfg;
	struct trawl_ete_pkt_decoder *pd;
	struct trawl_ete_flow *flow;
	uint8_t el, ns;
	int exc_pending;
	uint64_t exc_ret, exc_off;
	uint32_t exc_type;
	uint64_t frame_off;        /* formatted buffer: the frame being read */
};

struct ete_reader {
	char name[4096 + 80];      /* the source, or "DIR [buffer NAME]", for messages */
	char path[4096];           /* the snapshot directory or buffer file */
	trawl_warn_fn warn;
	void *warn_ctx;
	struct trawl_ete_snapshot *snap;
	struct trawl_ete_image *img;       /* the snapshot's, or our own */
	struct trawl_ete_config raw;       /* raw buffer: its registers */
	const struct trawl_ete_config *one;/* an unformatted buffer's registers */
	uint16_t one_cpu;                  /* and the core of its source */
	/* snapshot buffers still to decode, in trace.ini's order: [next, end) */
	size_t buf_next, buf_end;
	uint8_t *rawdata;
	/* the buffer in time order (a wrapped TRBE buffer is two parts) */
	const uint8_t *pdata[2];
	size_t plen[2];
	uint64_t pstart[2];        /* file offset of each part */
	int part;
	size_t pos;
	struct trawl_ete_deformatter *df;  /* CoreSight-formatted buffers */
	struct ete_stream *single;         /* or the one stream */
	struct ete_stream *streams[ETE_READER_IDS];
	/* the batch */
	struct trawl_event *ev;
	char (*names)[ETE_NAME_MAX];       /* exception names, beside ev */
	size_t nev, cap, ncap;
	uint32_t limit;
	uint64_t seq, ts;
	struct trawl_reader_stats stats;
	uint64_t nacc, nacc_off, nacc_addr;
	uint8_t nacc_id;
	int done, nomem;
};

/* Open path (is_dir: a snapshot directory; else a raw buffer). */
enum trawl_status ete_reader_open(void **state, const char *path, int is_dir,
				  const struct trawl_reader_options *opt, struct trawl_error *err);
void ete_reader_free(struct ete_reader *r);
/* Start decoding the next snapshot buffer (buf_next) with streams of its
 * own; the previous buffer's are released first (ete_streams_release). */
enum trawl_status ete_reader_next_buffer(struct ete_reader *r, struct trawl_error *err);
void ete_streams_release(struct ete_reader *r);
/* The core events of a trace source go to: sources that trace one core
 * ([core_trace_sources]) share the number of the first of them. */
uint16_t ete_source_cpu(const struct trawl_ete_snapshot *snap, size_t k);
/* The stream of trace ID id, made at its first use (NULL: no ETE source
 * has that ID, or err says why). */
struct ete_stream *ete_stream_get(struct ete_reader *r, uint8_t id, struct trawl_error *err);
/* A packet's stream offset as a file offset (across the TRBE wrap; for a
 * formatted buffer, the frame being read). */
uint64_t ete_stream_offset(const struct ete_stream *s, uint64_t off);

#endif
