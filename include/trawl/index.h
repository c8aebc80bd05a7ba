/* The time-travel index: every register and memory byte at every event.
 *
 * A builder consumes event batches (event.h) and writes an index file; a
 * query object maps that file and answers, in microseconds, what the
 * registers and memory held after any event, which event last or next wrote
 * a register or address, every visit of a PC, and what changed between two
 * events. The file format is described in docs/index-format.md and at the
 * top of lib/index/format.h.
 *
 * Event numbers are 0-based positions in the trace. "State at event N" is
 * the state after event N has completed. Unknown bytes are reported as
 * unknown (a cleared bit in a known-mask), never as zero.
 *
 * Known-masks in this API have one bit per byte, like event.h: bit i%8 of
 * byte i/8 is set when byte i is known.
 */
#ifndef TRAWL_INDEX_H
#define TRAWL_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/event.h"
#include "trawl/reader.h"
#include "trawl/status.h"

/* Index kinds a file may hold (the header says which). Every kind answers
 * every query with the same results; they trade size against speed
 * (docs/index.md, "Kinds"). */
enum trawl_index_kind {
	TRAWL_INDEX_KIND_FULL = 1,      /* event table + delta log + checkpoints +
	                                   sorted write lists, stored as is */
	TRAWL_INDEX_KIND_LINEAR = TRAWL_INDEX_KIND_FULL, /* its old name */
	TRAWL_INDEX_KIND_COMPACT = 2,   /* the same tables in blocks compressed one
	                                   by one, decoded on demand */
};

/* The kinds this trawl knows, by name ("full", "compact"): NULL / 0 for
 * one it does not know. trawl_index_kind_list gives the i-th known kind
 * (0 past the end), for help texts and tests. */
const char *trawl_index_kind_name(uint32_t kind);
uint32_t trawl_index_kind_parse(const char *name);
uint32_t trawl_index_kind_list(size_t i);

/* ---- building ---- */

struct trawl_index_builder;

/* Reader options that change what an index means; recorded in it, and an
 * index built with other ones does not match. */
#define TRAWL_ID_BIG_ENDIAN 1u
#define TRAWL_ID_IMPLICIT_THUMB 2u
#define TRAWL_ID_LENIENT 4u

/* Which reader turned the source into events (IDENTITY key 1): only an
 * index of the same source kind matches. */
enum trawl_index_source {
	TRAWL_INDEX_SOURCE_TRACE = 1,   /* a text trace read by trawl_reader (Tarmac) */
	TRAWL_INDEX_SOURCE_ETE = 2,     /* decoded ETE / ETMv4 trace */
	TRAWL_INDEX_SOURCE_PERF = 3,    /* perf.data */
	TRAWL_INDEX_SOURCE_SWEVENTS = 4,/* recorded software events */
};

/* Identity of the trace an index belongs to (docs/index.md, "Identity").
 * The file's size, modification and change times, inode and device are
 * cheap to read; `hash` (XXH3-64 of every byte) is computed only when one
 * of them differs from what the index recorded. */
struct trawl_trace_id {
	uint64_t size;
	uint64_t mtime_ns;
	uint64_t ctime_ns;      /* change time: `touch` cannot set it back */
	uint64_t ino, dev;
	uint64_t hash;          /* valid when hashed != 0 */
	int hashed;
	uint32_t source;        /* enum trawl_index_source */
	uint32_t reader;        /* TRAWL_ID_* bits */
	uint32_t format;        /* enum trawl_format asked for (0 = detect) */
	/* a reader other than trawl_reader's (ETE, perf.data, software
	 * events): a hash of its own options and inputs (decoder settings,
	 * the images it decoded with and their contents); 0 = none. An index
	 * made with another one does not match. */
	uint64_t reader_hash;
	/* the output version of the reader of this source kind
	 * (trawl_index_source_reader_version): a reader that now yields other
	 * events for the same bytes makes the indexes of the old ones not
	 * match */
	uint32_t reader_version;
	uint64_t skipped;       /* informational: lines skipped by --lenient */
	uint64_t cut;           /* informational: a last line cut off by the end
	                           of the trace, dropped (0 or 1) */
	uint64_t damaged;       /* informational: places of a decoded trace that
	                           could not be decoded */
	uint64_t defs_hash;     /* XXH3-64 of the reader's definitions file (--defs) */
	int has_defs;
	uint64_t taken_ns;      /* wall clock when the stat was taken */
};

struct trawl_index_build_options {
	uint32_t checkpoint_interval;   /* events between checkpoints; 0 = 128 */
	size_t sort_memory;             /* bytes per external sorter; 0 = 64 MiB */
	/* progress: called now and then with bytes of trace consumed; may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	struct trawl_reader_options reader;  /* for trawl_index_build */
	uint32_t kind;                  /* enum trawl_index_kind; 0 = full */
	/* trawl_index_build_memory only: stop reading after the batch that
	 * holds an event starting past this line (0 = the whole trace). The
	 * index then answers what needs only the trace up to that line
	 * (registers, last writes), not what needs the rest (back-dated
	 * memory, next writes, visits after it). */
	uint64_t until_line;
};

/* Start building an index that will be written to `path` (through a
 * temporary file renamed into place by _finish); path NULL builds in
 * memory (see trawl_index_build_memory). opt may be NULL. */
enum trawl_status trawl_index_builder_create(struct trawl_index_builder **out, const char *path,
					     const struct trawl_index_build_options *opt,
					     struct trawl_error *err);
/* Feed the next batch of events, in trace order. */
enum trawl_status trawl_index_builder_add(struct trawl_index_builder *b,
					  const struct trawl_event_batch *batch,
					  struct trawl_error *err);
/* Write the index file and rename it into place. id may be NULL (an index
 * with no trace identity, for tests). After this only _destroy is valid. */
enum trawl_status trawl_index_builder_finish(struct trawl_index_builder *b,
					     const struct trawl_trace_id *id,
					     struct trawl_error *err);
/* Free everything; removes the temporary file if _finish did not succeed. */
void trawl_index_builder_destroy(struct trawl_index_builder *b);

/* The cheap part of a trace's identity (stat: no content read); reader
 * options may be NULL (defaults). */
enum trawl_status trawl_trace_id_get(const char *trace_path, struct trawl_trace_id *id,
				     struct trawl_error *err);
void trawl_trace_id_set_options(struct trawl_trace_id *id, const struct trawl_reader_options *o);
/* The reader version an index of this source kind records (key 7). */
uint32_t trawl_index_source_reader_version(uint32_t source);
/* Hash every byte of the trace into id->hash (sets id->hashed). */
enum trawl_status trawl_trace_id_hash(const char *trace_path, struct trawl_trace_id *id,
				      struct trawl_error *err);

/* Read `trace_path` with trawl_reader_open and write its index to
 * `index_path`. */
enum trawl_status trawl_index_build(const char *trace_path, const char *index_path,
				    const struct trawl_index_build_options *opt,
				    struct trawl_error *err);

/* Build the index of a trace in memory (nothing is written to any
 * folder) and open it: *out lives until closed. */
struct trawl_index;
enum trawl_status trawl_index_build_memory(struct trawl_index **out, const char *trace_path,
					   const struct trawl_index_build_options *opt,
					   struct trawl_error *err);

/* Where the index of a trace lives by default: TRACE.trawlidx beside it when
 * that folder is writable, else $XDG_CACHE_HOME/trawl/ (or ~/.cache/trawl/)
 * under a name derived from the trace's absolute path. */
enum trawl_status trawl_index_default_path(const char *trace_path, char *buf, size_t size,
					   struct trawl_error *err);

/* ---- querying ---- */

struct trawl_index;

/* Open an index file. When id is not NULL, the index must belong to that
 * trace (trawl_index_match gives TRAWL_INDEX_SAME, else TRAWL_ERR_NOT_FOUND:
 * "stale"). Every header field and section bound is checked: a damaged file
 * gives TRAWL_ERR_CORRUPT, one of an older format TRAWL_ERR_UNSUPPORTED.
 *
 * Every byte a query reads is covered by a block checksum, checked the
 * first time the block is read in this process: a query that meets damage
 * returns TRAWL_ERR_CORRUPT, and so does every later query on this handle. */
enum trawl_status trawl_index_open(struct trawl_index **out, const char *index_path,
				   const struct trawl_trace_id *id, struct trawl_error *err);

/* Open the index of a trace, building (or rebuilding) it when it is
 * missing, stale, incomplete, damaged or of an older format. index_path may
 * be NULL for the default place: TRACE.trawlidx beside the trace is used
 * when it matches, even in a read-only folder, else the cache one. With an
 * explicit index_path, an index built with other reader options is an
 * error (TRAWL_ERR_FORMAT) rather than overwritten,
 * and a file that does not start like an index is never overwritten.
 * When neither the trace's folder nor the cache folder can be written, the
 * index is built in memory (trawl_index_build_memory) after a warning
 * through opt->reader.warn.
 * *built (may be NULL) is set to 1 when a build happened; why it happened
 * goes to opt->reader.warn when set. */
enum trawl_status trawl_index_open_trace(struct trawl_index **out, const char *trace_path,
					 const char *index_path,
					 const struct trawl_index_build_options *opt, int *built,
					 struct trawl_error *err);

void trawl_index_close(struct trawl_index *ix);

/* How an open index relates to a trace. */
enum trawl_index_match {
	TRAWL_INDEX_SAME = 0,       /* built from this content with these options */
	TRAWL_INDEX_STALE,          /* the content (or its size) differs */
	TRAWL_INDEX_OPTIONS,        /* built with other reader options */
	TRAWL_INDEX_UNSURE,         /* file times differ and id has no hash yet */
};
enum trawl_index_match trawl_index_match(const struct trawl_index *ix,
					 const struct trawl_trace_id *id);
/* The same rule for any file that records a trace's identity (the seek
 * file of a compressed trace, include/trawl/text.h): `was` as recorded,
 * `now` as trawl_trace_id_get (and _hash) found it. */
enum trawl_index_match trawl_trace_id_compare(const struct trawl_trace_id *was,
					      const struct trawl_trace_id *now);
/* The reader options the index was built with (TRAWL_ID_* bits) and lines
 * the build skipped (--lenient). */
uint32_t trawl_index_reader_options(const struct trawl_index *ix);
uint64_t trawl_index_skipped_lines(const struct trawl_index *ix);
/* How many events have a time below the one before them (0 when times
 * never go backwards); *line, when given and there is one, gets the first
 * such event's first line. */
uint64_t trawl_index_time_back(const struct trawl_index *ix, uint64_t *line);
/* 1 when the trace ended inside its last line and the build dropped it. */
uint64_t trawl_index_cut_lines(const struct trawl_index *ix);
/* Places of a decoded trace (ETE) that could not be decoded when the index
 * was built (trawl_reader_stats.damaged); 0 for text traces. */
uint64_t trawl_index_damaged(const struct trawl_index *ix);
/* Path of the file an open index was read from. */
const char *trawl_index_path(const struct trawl_index *ix);
/* TRAWL_ERR_CORRUPT (with err filled) when a query on this handle met a
 * block whose checksum did not match; TRAWL_OK otherwise. */
enum trawl_status trawl_index_damage(const struct trawl_index *ix, struct trawl_error *err);

struct trawl_index_info {
	uint32_t version;
	uint32_t kind;
	uint64_t file_size;
	uint64_t events;
	uint64_t lines;             /* last line of the last event */
	uint64_t trace_size;
	uint32_t source;            /* enum trawl_index_source (identity key 1) */
	uint32_t reader_version;    /* identity key 7: the output version of the
	                               reader it was built by (0: from before) */
	uint64_t build_ns;          /* how long the build took */
	uint64_t created;           /* unix time */
	uint32_t checkpoint_interval;
	uint32_t cpus;
	uint32_t time_unit;         /* enum trawl_time_unit of the first timed event */
	uint64_t mem_writes;        /* write-list records (block pieces) */
	uint64_t reg_writes;
	uint64_t snapshots;         /* memory block snapshots */
	uint64_t backdated;         /* back-dated block records */
	uint64_t clobbers;          /* ranges made unknown (semihosting, unknown writes) */
	uint64_t sw_events;         /* software events (their sections are present) */
	int no_text;                /* some events came without a text line (a
	                               decoded source): their line is their
	                               ordinal, and there is no text to show */
};
void trawl_index_get_info(const struct trawl_index *ix, struct trawl_index_info *info);

/* Check every block and section checksum (reads the whole file). */
enum trawl_status trawl_index_verify(struct trawl_index *ix, struct trawl_error *err);

/* One event as the index keeps it. */
struct trawl_index_event {
	uint64_t seq;
	uint64_t line;
	uint32_t nlines;
	uint64_t offset;
	uint64_t length;
	uint64_t time;
	uint64_t pc;
	uint32_t encoding;
	int32_t depth;          /* call depth (BL/BLR/RET heuristics), may be negative */
	uint16_t cpu;
	uint16_t flags;         /* TRAWL_EVF_* (low 8 bits) */
	uint8_t kind;           /* enum trawl_event_kind */
	uint8_t iset;
	uint8_t el;
	uint8_t width;
};

uint64_t trawl_index_event_count(const struct trawl_index *ix);
enum trawl_status trawl_index_event(const struct trawl_index *ix, uint64_t ev,
				    struct trawl_index_event *out, struct trawl_error *err);
/* Sequential scans: events [first, first + count) into out[0, count), read
 * a window at a time into a small buffer (no mapped pages stay resident,
 * few system calls), so a pass over every event keeps memory bounded
 * whatever the trace's length. TRAWL_ERR_NOT_FOUND past the last event. */
enum trawl_status trawl_index_events(const struct trawl_index *ix, uint64_t first, size_t count,
				     struct trawl_index_event *out, struct trawl_error *err);
/* The event containing line `line` (or the last event starting before it).
 * TRAWL_ERR_NOT_FOUND when the line is before the first event. */
enum trawl_status trawl_index_event_at_line(const struct trawl_index *ix, uint64_t line,
					    uint64_t *ev, struct trawl_error *err);
/* The last event before the first one with time > t: the last event with
 * time <= t where times never decrease; where they go backwards, each run
 * of non-decreasing times is searched in order (docs/index.md,
 * "Semantics"). TRAWL_ERR_NOT_FOUND before the first event;
 * TRAWL_ERR_UNSUPPORTED when they go backwards more often than the index
 * lists. */
enum trawl_status trawl_index_event_at_time(const struct trawl_index *ix, uint64_t t,
					    uint64_t *ev, struct trawl_error *err);
/* The event whose bytes contain trace byte offset `off`. */
enum trawl_status trawl_index_event_at_offset(const struct trawl_index *ix, uint64_t off,
					      uint64_t *ev, struct trawl_error *err);

/* ---- software events (kind 2 indexes) ---- */

/* What the index keeps of a software event beyond trawl_index_event
 * (time, cpu, offset, length, kind). */
struct trawl_index_sw_event {
	uint32_t tid;
	uint32_t stream;
	uint16_t subsys, event;
	uint32_t arg;               /* the first field's low 32 bits */
};

enum trawl_index_sw_scope {
	TRAWL_SW_SCOPE_ALL = 0,     /* every event */
	TRAWL_SW_SCOPE_CPU,         /* the events of cpu `key` */
	TRAWL_SW_SCOPE_THREAD,      /* the events of thread `key` */
};

/* The last event of the scope with time <= t, by bisection (a trace of
 * software events is merged by time). TRAWL_ERR_NOT_FOUND when the scope
 * has no event at or before t; TRAWL_ERR_UNSUPPORTED on a kind 1 index
 * for the cpu and thread scopes. */
enum trawl_status trawl_index_sw_at_time(const struct trawl_index *ix, enum trawl_index_sw_scope scope,
					 uint64_t key, uint64_t t, uint64_t *ev, struct trawl_error *err);
/* Event ev's thread, stream and ids (zero for events of other kinds). */
enum trawl_status trawl_index_sw_event(const struct trawl_index *ix, uint64_t ev,
				       struct trawl_index_sw_event *out, struct trawl_error *err);
/* Distinct cpus and threads with software events (one pass over the
 * per-cpu and per-thread lists). */
enum trawl_status trawl_index_sw_counts(const struct trawl_index *ix, uint64_t *cpus, uint64_t *threads,
					struct trawl_error *err);

/* A register file as it was after some event. `value`/`known` hold every
 * register the file layout has; use trawl_index_regs_view for one register.
 * known is one byte per byte (0/1) here, for easy use by views. */
struct trawl_index_regs {
	uint16_t cpu;
	uint32_t nsys;          /* system registers: ids TRAWL_REG_SYS_BASE.. +nsys */
	size_t size;
	uint8_t *value;
	uint8_t *known;
	size_t cap;
};
void trawl_index_regs_init(struct trawl_index_regs *r);
void trawl_index_regs_release(struct trawl_index_regs *r);
/* Bytes of register `reg` in r: returns its width (0 when r has no such
 * register) and points value/known at its bytes (least significant first). */
uint32_t trawl_index_regs_view(const struct trawl_index_regs *r, uint32_t reg,
			       const uint8_t **value, const uint8_t **known);
/* Name of a register id as the trace called it (system registers included). */
const char *trawl_index_reg_name(const struct trawl_index *ix, uint32_t reg);
/* Look up a register name the trace used: returns the id or UINT32_MAX. */
uint32_t trawl_index_reg_find(const struct trawl_index *ix, const char *name);

/* Registers of `cpu` after event ev. */
enum trawl_status trawl_index_regs_at(const struct trawl_index *ix, uint64_t ev, uint16_t cpu,
				      struct trawl_index_regs *out, struct trawl_error *err);

/* The register writes events [first, first+count) made, in order, as the
 * index's delta log holds them: for each write of a register whose bit is
 * set in want (bit n = register id n, ids below 64, as TRAWL_WANT_REG), fn
 * gets the event number, its CPU and the write; the value (and the known
 * mask unless TRAWL_ALL_KNOWN) are at w->value / w->known in pool, valid
 * during the call. A non-zero return from fn stops the walk. Sequential
 * preads, nothing stays mapped: what a reader of the event table needs
 * to replay a few registers without the trace text. */
typedef int (*trawl_index_reg_fn)(void *ctx, uint64_t ev, uint16_t cpu,
				  const struct trawl_reg_write *w, const uint8_t *pool);
enum trawl_status trawl_index_reg_writes(const struct trawl_index *ix, uint64_t first,
					 uint64_t count, uint64_t want, trawl_index_reg_fn fn,
					 void *ctx, struct trawl_error *err);

/* Memory [addr, addr+len) after event ev: value[len] (unknown bytes are 0)
 * and known as a bit mask of (len+7)/8 bytes. */
enum trawl_status trawl_index_mem_at(const struct trawl_index *ix, uint64_t ev, uint64_t addr,
				     size_t len, uint8_t *value, uint8_t *known,
				     struct trawl_error *err);

/* The last event <= ev (or next event > ev) that wrote any byte of the
 * range. TRAWL_ERR_NOT_FOUND when there is none. Registers: bytes
 * [offset, offset+size) of storage register `reg` of `cpu`. */
enum trawl_status trawl_index_last_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err);
enum trawl_status trawl_index_next_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err);
enum trawl_status trawl_index_last_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err);
enum trawl_status trawl_index_next_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err);

/* Visits of a PC, in event order: the number of visits, and the i-th. */
uint64_t trawl_index_pc_count(const struct trawl_index *ix, uint64_t pc);
enum trawl_status trawl_index_pc_visit(const struct trawl_index *ix, uint64_t pc, uint64_t i,
				       uint64_t *ev, struct trawl_error *err);
/* First visit of pc after ev (dir > 0) or last visit before ev (dir < 0). */
enum trawl_status trawl_index_pc_step(const struct trawl_index *ix, uint64_t pc, uint64_t ev,
				      int dir, uint64_t *out, struct trawl_error *err);

/* What differs between the state after ev1 and after ev2 (ev1 < ev2):
 * registers (cpu, reg) and memory ranges written in between whose bytes
 * (value or knownness) differ. Called once per item, in order: registers
 * first (by cpu, reg), then memory ranges by address. A non-zero return
 * from the callback stops the walk. */
struct trawl_index_change {
	int is_mem;
	uint16_t cpu;
	uint32_t reg;
	uint64_t addr;          /* memory: range start */
	uint64_t len;           /* memory: range length */
};
enum trawl_status trawl_index_changes(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
				      int (*fn)(void *ctx, const struct trawl_index_change *c),
				      void *ctx, struct trawl_error *err);

#endif
