/* Linux perf.data files (PERFILE2) holding CoreSight ETM/ETE trace, as
 * `perf record -e cs_etm//` and Android simpleperf write them.
 *
 * trawl_perf_open reads the whole file and walks it once: header, event
 * attributes, every record of the data section, the build-id feature
 * section (other feature sections are skipped by their size). What it
 * finds is kept in plain arrays (simpleperf's init_map feature adds its
 * mappings there too); AUXTRACE trace bytes point into the
 * file's memory. Damage (a cut record, an unknown record type, a record
 * too short for its type) does not fail the open: the walk stops or skips
 * there, counts a warning and keeps the first message, naming the record
 * and its file offset, so callers decode what there is and exit 1.
 */
#ifndef TRAWL_PERF_H
#define TRAWL_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ete.h"
#include "trawl/kallsyms.h"
#include "trawl/reader.h"
#include "trawl/status.h"

/* record types used here (perf_event.h, perf's own user records >= 64) */
enum {
	TRAWL_PERF_RECORD_MMAP = 1,
	TRAWL_PERF_RECORD_LOST = 2,
	TRAWL_PERF_RECORD_COMM = 3,
	TRAWL_PERF_RECORD_EXIT = 4,
	TRAWL_PERF_RECORD_FORK = 7,
	TRAWL_PERF_RECORD_SAMPLE = 9,
	TRAWL_PERF_RECORD_MMAP2 = 10,
	TRAWL_PERF_RECORD_AUX = 11,
	TRAWL_PERF_RECORD_ITRACE_START = 12,
	TRAWL_PERF_RECORD_AUX_OUTPUT_HW_ID = 21,
	TRAWL_PERF_RECORD_HEADER_ATTR = 64,
	TRAWL_PERF_RECORD_HEADER_TRACING_DATA = 66,
	TRAWL_PERF_RECORD_HEADER_BUILD_ID = 67,
	TRAWL_PERF_RECORD_FINISHED_ROUND = 68,
	TRAWL_PERF_RECORD_AUXTRACE_INFO = 70,
	TRAWL_PERF_RECORD_AUXTRACE = 71,
	TRAWL_PERF_RECORD_HEADER_FEATURE = 80,
	TRAWL_PERF_RECORD_COMPRESSED = 81,
	TRAWL_PERF_RECORD_COMPRESSED2 = 83,
};

/* AUX record flags */
#define TRAWL_PERF_AUX_TRUNCATED 0x01u
#define TRAWL_PERF_AUX_OVERWRITE 0x02u
#define TRAWL_PERF_AUX_PARTIAL   0x04u
#define TRAWL_PERF_AUX_COLLISION 0x08u
#define TRAWL_PERF_AUX_FORMAT_MASK 0xff00u
#define TRAWL_PERF_AUX_CS_RAW    0x0100u  /* CoreSight: no frame formatter */

/* cs_etm per-CPU block magics */
#define TRAWL_PERF_ETMV3_MAGIC 0x3030303030303030ull
#define TRAWL_PERF_ETMV4_MAGIC 0x4040404040404040ull
#define TRAWL_PERF_ETE_MAGIC   0x5050505050505050ull

struct trawl_perf_mmap {
	uint64_t offset;          /* file offset of the record */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;     /* MMAP2 only */
	uint8_t cpumode;          /* header misc & 7: 1 kernel, 2 user */
	uint8_t build_id_size;    /* MMAP2 with a build id in the record */
	uint8_t build_id[20];
	char filename[512];
};

struct trawl_perf_comm {
	uint64_t offset;
	uint32_t pid, tid;
	char comm[64];
};

struct trawl_perf_aux {
	uint64_t offset;
	uint64_t aux_offset, aux_size, flags;
	int32_t cpu;              /* from the sample-id trailer, -1 unknown */
};

struct trawl_perf_auxtrace {
	uint64_t offset;          /* file offset of the record */
	uint64_t size, aux_offset, reference;
	uint32_t idx, tid;
	int32_t cpu;
	const uint8_t *data;      /* into the file image */
	size_t avail;             /* bytes present (< size if the file is cut) */
};

struct trawl_perf_itrace_start {
	uint64_t offset;
	uint32_t pid, tid;
	int32_t cpu;
};

struct trawl_perf_hw_id {
	uint64_t offset;
	uint64_t hw_id;           /* bits 7:0 trace ID, 63:56 version */
	int32_t cpu;
};

struct trawl_perf_build_id {
	int32_t pid;
	uint8_t size;
	uint8_t id[20];
	char filename[512];
};

/* One cs_etm per-CPU block of the AUXTRACE_INFO record. */
struct trawl_perf_etm_cpu {
	uint64_t magic;
	uint32_t cpu;
	uint32_t nparams;         /* as the block says (or the v0 fixed count) */
	uint64_t params[16];      /* the trace parameters, in the file's order */
	struct trawl_ete_config cfg; /* derived from them (ETMv4/ETE) */
	int cfg_ok;               /* 0: ETMv3/PTM, or registers inconsistent */
};

/* Every record of the data section, in file order. */
struct trawl_perf_rec {
	uint64_t offset;
	uint32_t type;
	uint32_t size;            /* header size (AUXTRACE: plus its data) */
};

struct trawl_perf_file {
	char path[1024];
	uint8_t *mem;
	size_t len;
	uint64_t data_offset, data_size;
	uint64_t features[4];
	uint32_t nattrs;
	uint32_t attr_type;       /* of the first attribute */
	uint64_t attr_config, sample_type;
	int sample_id_all;
	/* cs_etm AUXTRACE_INFO */
	int have_etm_info;
	uint64_t etm_version, etm_pmu_type, etm_snapshot;
	struct trawl_perf_etm_cpu *etm;
	size_t netm;

	struct trawl_perf_mmap *mmaps;       size_t nmmaps, cap_mmaps;
	struct trawl_perf_comm *comms;       size_t ncomms, cap_comms;
	struct trawl_perf_aux *aux;          size_t naux, cap_aux;
	struct trawl_perf_auxtrace *chunks;  size_t nchunks, cap_chunks;
	struct trawl_perf_itrace_start *its; size_t nits, cap_its;
	struct trawl_perf_hw_id *hwids;      size_t nhwids, cap_hwids;
	struct trawl_perf_build_id *bids;    size_t nbids, cap_bids;
	struct trawl_perf_rec *recs;         size_t nrecs, cap_recs;
	uint64_t nrecords;
	uint64_t by_type[128];    /* records seen per type (types < 128) */
	unsigned nwarnings;       /* damage that did not stop the open */
	char warning[512];        /* the first of it */
	/* reader state for COMPRESSED records (zstd stream, a cut record) */
	void *zctx;
	uint8_t *zbuf;
	size_t zlen, zcap;
	int in_z;
	int pipe;                 /* pipe-mode file (perf record -o -): 16-byte header */
	const char *meta;         /* simpleperf's meta_info feature ("key\0value\0"...), */
	size_t meta_len;          /* into mem; NULL when absent */
	int aux_overwrite;        /* an AUX record has the overwrite flag */
};

/* Open and walk a perf.data. Fails only when the file cannot be read or is
 * not a PERFILE2 file whose header and attribute section make sense;
 * later damage is recorded in nwarnings/warning. */
enum trawl_status trawl_perf_open(struct trawl_perf_file **out, const char *path,
				  struct trawl_error *err);
/* The same over bytes already in memory (copied). */
enum trawl_status trawl_perf_open_mem(struct trawl_perf_file **out, const uint8_t *data,
				      size_t len, const char *name, struct trawl_error *err);
void trawl_perf_close(struct trawl_perf_file *f);

/* 1 when the first 8 bytes are the PERFILE2 magic. */
int trawl_perf_is_perf(const uint8_t *data, size_t len);

/* Parse the cs_etm AUXTRACE_INFO payload (priv[] after type/reserved, in
 * u64 words) into f->etm. Used by trawl_perf_open; public for tests. */
enum trawl_status trawl_perf_etm_info_parse(struct trawl_perf_file *f, const uint64_t *priv,
					    size_t n, struct trawl_error *err);

/* The ETM block of a CPU, or NULL. */
const struct trawl_perf_etm_cpu *trawl_perf_etm_for_cpu(const struct trawl_perf_file *f,
							int32_t cpu);
/* The trace ID a CPU's trace carries: its last AUX_OUTPUT_HW_ID record
 * (version-2 recordings), else TRCTRACEIDR from its block; -1 if none. */
int trawl_perf_trace_id(const struct trawl_perf_file *f, int32_t cpu);
/* AUX format of a CPU's data: 1 raw (TRBE, no frame formatter), 0
 * formatted, -1 no AUX record says (callers then look at the bytes). */
int trawl_perf_aux_raw(const struct trawl_perf_file *f, int32_t cpu);

const char *trawl_perf_record_name(uint32_t type);

/* simpleperf's meta_info: the value of a key ("simpleperf_version",
 * "event_type_info", ...), or NULL. */
const char *trawl_perf_meta(const struct trawl_perf_file *f, const char *key);
/* Every meta_info pair in turn: start with *pos = 0; 0 at the end. */
int trawl_perf_meta_next(const struct trawl_perf_file *f, size_t *pos, const char **key,
			 const char **value);

/* 1 for a snapshot-mode recording (perf record -S): the cs_etm header
 * says so, or an AUX record carries the overwrite flag. */
int trawl_perf_snapshot_mode(const struct trawl_perf_file *f);

/* Where AUXTRACE chunk i stands in its AUX buffer (same idx and cpu). */
struct trawl_perf_chunk_place {
	int restart;              /* not the continuation of the chunk before it:
				   * decoding starts again at its first sync point */
	int snapshot;             /* a snapshot capture of its own */
	int first;                /* the first chunk of its buffer: decoding
				   * starts at its first sync point too */
	uint64_t missing;         /* full mode: AUX bytes between the previous
				   * chunk's end (or 0) and this chunk */
};
void trawl_perf_chunk_place(const struct trawl_perf_file *f, size_t i,
			    struct trawl_perf_chunk_place *out);

/* A CPU's decoding, segment by segment (lib/ete/perf-segment.c), for
 * `trawl ete` and the reader backend alike: they own their decoders, these
 * say when to end one and start over, and what was lost. */
struct trawl_perf_segment {
	size_t chunk;             /* the chunk it began at */
	int why;                  /* 0 none yet, 1 a snapshot, 2 after a gap,
				   * 3 the CPU's first chunk */
	uint64_t unsynced0;       /* the stream's unsynced bytes when it began */
};
struct trawl_perf_segment_step {
	int end_first;            /* end the segment before it first: flush, and
				   * start the stream over unsynced */
	int begins;               /* a segment begins at this chunk */
	int why;                  /* for trawl_perf_segment_begin */
	uint64_t missing;         /* AUX bytes before it not in the file: damage,
				   * msg says it (without the file offset) */
	char msg[256];
};
/* The trace unit of chunk c (a per-thread recording's one unit for cpu
 * -1), or NULL when it has none or an ETMv3/PTM one, msg saying so (the
 * chunk is skipped: damage). */
const struct trawl_perf_etm_cpu *trawl_perf_chunk_unit(const struct trawl_perf_file *f,
							const struct trawl_perf_auxtrace *c,
							char *msg, size_t cap);
/* 1: the unit's chunks are raw (TRBE) bytes, 0: CoreSight frames. */
int trawl_perf_chunk_raw(const struct trawl_perf_file *f, const struct trawl_perf_etm_cpu *e);
/* What chunk i (of the unit of `cpu`) means for that unit's segment. */
void trawl_perf_segment_step(const struct trawl_perf_file *f, size_t i, uint32_t cpu,
			     struct trawl_perf_segment_step *out);
/* A segment begins at chunk i (st->begins), its stream's unsynced bytes
 * counted so far being `unsynced`. */
void trawl_perf_segment_begin(struct trawl_perf_segment *s, size_t i,
			      const struct trawl_perf_segment_step *st, uint64_t unsynced);
/* At a segment's end, with the stream's unsynced bytes now: how many of
 * its bytes came before its first sync point (not decoded: damage), msg
 * and *offset (the chunk it began at) saying so; 0 when none. */
uint64_t trawl_perf_segment_lost(const struct trawl_perf_file *f,
				 const struct trawl_perf_segment *s, uint32_t cpu, uint64_t unsynced,
				 char *msg, size_t cap, uint64_t *offset);

/* Full mode: the AUX records whose bytes no AUXTRACE chunk of their CPU
 * holds (perf stopped before copying them, or the file lost them): how
 * many, the index of the first, and the bytes missing in all. */
size_t trawl_perf_aux_missing(const struct trawl_perf_file *f, size_t *first, uint64_t *bytes);

/* The recording's own word that trace was lost: each AUX record marked
 * truncated, partial or collision, and the AUX data no AUXTRACE record
 * holds (the first such record, with the count). Each is told to fn with
 * the record's file offset and a message; returns how many were told. */
typedef void (*trawl_perf_loss_fn)(void *ctx, uint64_t offset, const char *msg);
unsigned trawl_perf_aux_losses(const struct trawl_perf_file *f, trawl_perf_loss_fn fn, void *ctx);

/* ---- program images from the mappings (perf-images.c) ---- */

/* The build id the recording gives for a mapping's file, as hex, or "". */
void trawl_perf_build_id_hex(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
			     char *hex, size_t cap);
/* 1 for a mapping of a file (not the kernel, [vdso], anonymous memory). */
int trawl_perf_mmap_has_file(const struct trawl_perf_mmap *m);
/* The mapping's file: by build id in bindir (DIR/<hex id>,
 * DIR/.build-id/xx/rest), under symfs (DIR/recorded path, then DIR/base
 * name), or at its recorded path. 1 with the path in out, 0 not found.
 * symfs and bindir may be NULL. */
int trawl_perf_find_file(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
			 const char *symfs, const char *bindir, char *out, size_t cap);
/* Add every file-backed mapping's bytes to img at its mapped address
 * (file offset pgoff at start, as the mapping says). Kernel and anonymous
 * mappings are left out: their addresses decode as "no image". Returns
 * how many mapped files were not found or could not be read; what went
 * wrong is told to warn (may be NULL), which is a note, not a loss: the
 * decoder reports trace that runs there as "no program image". *clashes
 * (may be NULL): how many mappings put other bytes where a later one is;
 * trace that ran in the older one decodes with the newer one's bytes (one
 * address space for every process and every time), so the decode may be
 * wrong there: damage, for the caller to count. */
unsigned trawl_perf_images_add(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			       const char *symfs, const char *bindir, trawl_warn_fn warn, void *ctx,
			       unsigned *clashes);
/* How far above its link addresses mapping m placed the ELF at path (the
 * mapping's start less the link address of its file offset pgoff), for
 * addresses relative to the binary. */
enum trawl_status trawl_perf_mapping_bias(const struct trawl_perf_mmap *m, const char *path,
					  uint64_t *bias, struct trawl_error *err);
/* Add vmlinux's loadable segments to img where the recording's kernel ran:
 * shifted by the run-time _text address (the kernel MMAP's pgoff, else
 * _text in ks, which may be NULL) less vmlinux's own _text; placed at its
 * link addresses, with a note to warn, when neither says. */
enum trawl_status trawl_perf_kernel_image_add(const struct trawl_perf_file *pf,
					      struct trawl_ete_image *img, const char *vmlinux,
					      const struct trawl_kallsyms *ks, trawl_warn_fn warn,
					      void *ctx, struct trawl_error *err);

#endif
