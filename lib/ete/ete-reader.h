/* The ETE trawl_reader backend's state, shared by its files: opening
 * (reader-open.c: snapshot or raw buffer, registers, images, TRBE), a
 * perf.data's AUX data (reader-perf.c) and decoding into events
 * (reader.c). Private to lib/ete. */
#ifndef TRAWL_ETE_READER_INT_H
#define TRAWL_ETE_READER_INT_H

#include "trawl/ete.h"
#include "trawl/kallsyms.h"
#include "trawl/perf.h"
#include "trawl/reader.h"

#define ETE_READER_IDS 128
#define ETE_NAME_MAX 96

struct ete_reader;

/* perf.data: bytes fed to a decoder from `from` on came from file offset
 * `file` on (one per AUXTRACE chunk). */
struct ete_seg {
	uint64_t from, file;
};

struct ete_segs {
	struct ete_seg *v;
	size_t n, cap;
};

/* perf.data: one trace unit (a CPU's ETM/ETE block) and its decoding: the
 * deformatter of formatted data and the bytes fed to it, the segment being
 * decoded (the chunk it began at, why, the stream's unsynced bytes then). */
struct ete_perf_cpu {
	struct trawl_ete_config cfg;   /* trace_id: the ID its trace carries */
	uint32_t cpu;
	int ok;                        /* ETMv4/ETE with consistent registers */
	struct trawl_ete_deformatter *df;
	uint64_t fed;
	struct ete_segs segs;          /* deformatter input -> file offsets */
	struct trawl_perf_segment seg; /* the segment being decoded */
};

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
	int framed;                /* perf.data: fed by a deformatter (frame_off) */
	struct ete_segs segs;      /* perf.data raw data: stream -> file offsets */
	/* a break in the flow seen (Trace On, resync after a bad packet, the
	 * end of a segment, a fresh stream): the gap event goes out before
	 * the next instruction, if its core ran since its last gap */
	int gap_pending;
	uint32_t gap_reason;
	uint64_t gap_off;
};

/* Cores with instructions since their last gap, one bit each; a core
 * numbered past the map always counts as running. */
#define ETE_READER_CPUS 4096

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
	uint8_t unknown_id[ETE_READER_IDS]; /* frames carried this ID, which no
	                                       trace unit has: said once */
	/* the batch */
	struct trawl_event *ev;
	char (*names)[ETE_NAME_MAX];       /* exception names, beside ev */
	size_t nev, cap, ncap;
	uint32_t limit;
	uint64_t seq, ts;
	struct trawl_reader_stats stats;
	uint64_t nacc, nacc_off, nacc_addr;
	uint8_t nacc_id;
	uint8_t ran[ETE_READER_CPUS / 8];
	int done, nomem;
	/* perf.data (reader-perf.c) */
	struct trawl_perf_file *perf;
	struct ete_perf_cpu *pcpu;         /* one per ETM block */
	size_t npcpu;
	struct trawl_kallsyms *ksyms;
	size_t chunk;                      /* the AUXTRACE chunk being fed */
	int chunk_started;
	struct ete_perf_cpu *cur;          /* its trace unit */
	struct ete_stream *cur_raw;        /* raw data: its stream */
};

/* Open path (is_dir: a snapshot directory; else a raw buffer). */
enum trawl_status ete_reader_open(void **state, const char *path, int is_dir,
				  const struct trawl_reader_options *opt, struct trawl_error *err);
/* Open a perf.data (data: its bytes, or NULL to read path). */
enum trawl_status ete_reader_open_perf(void **state, const char *path, const uint8_t *data,
				       size_t len, const struct trawl_reader_options *opt,
				       struct trawl_error *err);
void ete_reader_free(struct ete_reader *r);
/* Start decoding the next snapshot buffer (buf_next) with streams of its
 * own; the previous buffer's are released first (ete_streams_release). */
enum trawl_status ete_reader_next_buffer(struct ete_reader *r, struct trawl_error *err);
void ete_streams_release(struct ete_reader *r);
/* perf.data: open (data: the whole file, or NULL to read path), feed the
 * next step of AUX data (0 when nothing is left), end every segment, and
 * release what the perf source holds. */
enum trawl_status ete_perf_open(struct ete_reader *r, const char *path, const uint8_t *data,
				size_t len, const struct trawl_reader_options *opt,
				struct trawl_error *err);
int ete_perf_feed_step(struct ete_reader *r);
void ete_perf_finish(struct ete_reader *r);
void ete_perf_release(struct ete_reader *r);
/* A perf.data stream's offset as a file offset. */
uint64_t ete_perf_offset(const struct ete_stream *s, uint64_t off);
/* The stream of formatted bytes of trace ID id at file offset off; NULL
 * when out of memory (r->nomem) or when no trace unit has that ID (a
 * corrupt ID byte, or a source trawl does not decode, such as STM):
 * damage, said once an ID. */
struct ete_stream *ete_frame_stream(struct ete_reader *r, uint8_t id, uint64_t off);
/* Finish a deformatter: what it could not decode
 * (trawl_ete_deformatter_damage) is damage, said at the file offset map
 * gives for the deformatter's own offset (NULL: the same). */
void ete_deformatter_end(struct ete_reader *r, struct trawl_ete_deformatter *df,
			 uint64_t (*map)(const void *ctx, uint64_t off), const void *map_ctx);
/* Warn about damage at a file offset (UINT64_MAX: none), counted. */
void ete_reader_damage(struct ete_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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
