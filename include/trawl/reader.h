/* Readers: bytes in, event batches out, whatever the source format.
 *
 * trawl_reader_open recognises the format by content (in one place, so
 * every command opens every format) and returns a reader that yields
 * batches of events (see event.h). Readers are driven in chunks from a
 * trawl_input, so files, pipes and compressed data all work the same way.
 */
#ifndef TRAWL_READER_H
#define TRAWL_READER_H

#include <stdint.h>

#include "trawl/event.h"
#include "trawl/input.h"
#include "trawl/status.h"

struct trawl_reader;

enum trawl_format {
	TRAWL_FORMAT_AUTO = 0,
	TRAWL_FORMAT_TARMAC,
	TRAWL_FORMAT_CTF,              /* software events: a CTF trace directory of
	                                  trawl's recorder or `trawl listen` (or its
	                                  metadata file) */
	TRAWL_FORMAT_BFDUMP,           /* software events: a Barrelfish trace dump */
	TRAWL_FORMAT_ETE,              /* ETE / ETMv4 trace: an Arm snapshot directory,
	                                  a Linux perf.data with cs_etm trace (by its
	                                  PERFILE2 magic), or a raw TRBE buffer (only
	                                  when asked for: it has no magic; docs/ete.md) */
};

/* Called for each warning (bad line skipped in lenient mode, first line of
 * an unknown record type, ...). The error record is only valid during the
 * call. */
typedef void (*trawl_warn_fn)(void *ctx, const struct trawl_error *warning);

/* Partial parsing (trawl_reader_options.want). With TRAWL_WANT_FILTER set,
 * the reader yields the same events (kinds, lines, byte offsets, line
 * counts, instruction fields) but only the effects asked for: memory
 * accesses only with TRAWL_WANT_MEMS, register writes only of the core
 * registers whose bit is set in want_regs (bit n = register id n, see
 * reg.h; system registers never). Lines of dropped effects are recognised
 * by their first bytes and not parsed further, so they are not checked
 * either: a malformed one is not reported. 0 = everything (the default). */
/* The version of the events trawl_reader's own backends (Tarmac,
 * Barrelfish text) make of the same bytes: raised with any parser change
 * that makes other events, so indexes built before it are rebuilt
 * (identity key 7, docs/index-format.md). */
#define TRAWL_READER_VERSION 3u /* 1: NUL bytes and a cut last line are damage;
                                  * 2: real time in ps, one unit per trace;
                                  * 3: text after a Tarmac value, a cut
                                  * variable-width value, a Barrelfish
                                  * argument that does not fit its field,
                                  * per-core state past core 255, bit ranges
                                  * past a register, accesses ending at 2^64 */

#define TRAWL_WANT_FILTER 1u
#define TRAWL_WANT_MEMS 2u
#define TRAWL_WANT_REG(id) ((uint64_t)1 << (id))

struct trawl_reader_options {
	enum trawl_format format;      /* AUTO: detect from content */
	int implicit_thumb;            /* Tarmac: lines without an instruction-set
	                                  field are Thumb (M-profile traces) */
	int big_endian;                /* Tarmac: memory values are big-endian */
	int lenient;                   /* skip malformed lines (counted, warned)
	                                  instead of failing */
	uint32_t batch_events;         /* events per batch; 0 = default (4096).
	                                  A batch may hold one more: a Tarmac
	                                  line that ends the open instruction and
	                                  is an event of its own completes two */
	struct trawl_input_options input;
	trawl_warn_fn warn;            /* may be NULL */
	void *warn_ctx;
	uint32_t want;                 /* TRAWL_WANT_* bits; 0 = everything */
	uint64_t want_regs;            /* with TRAWL_WANT_FILTER: registers kept */
	const char *defs;              /* Barrelfish dumps: event definitions (.json
	                                  of `trawl defs`, or .tdef) naming events;
	                                  NULL: names made up from the ids */
	/* ETE (docs/ete.md, "As a trace"): */
	const char *ete_config;        /* raw buffer: ini with the trace unit's
	                                  registers and the TRBE pointers */
	const char *const *ete_images; /* program images, "ELF[@OFFSET]" or
	                                  "ADDR=FILE", added after a snapshot's dumps */
	size_t ete_nimages;
	const char *ete_buffer;        /* snapshot: the one buffer to read (NULL:
	                                  every buffer, in trace.ini order) */
	/* perf.data (docs/perf.md): where the mapped files are (NULL: their
	 * recorded paths only) and the kernel */
	const char *perf_symfs;        /* DIR/recorded path, DIR/base name */
	const char *perf_binary_dir;   /* DIR/<hex build id>, DIR/.build-id/xx/.. */
	const char *perf_vmlinux;      /* the kernel's ELF, placed where it ran */
	const char *perf_kallsyms;     /* a /proc/kallsyms copy: where _text ran */
};

/* What kind of trace a path is, as far as reader options go: each option
 * applies to some kinds only (lib/core/reader-options.c has the table). */
enum trawl_trace_kind {
	TRAWL_KIND_UNKNOWN = 0,
	TRAWL_KIND_TARMAC,
	TRAWL_KIND_CTF,
	TRAWL_KIND_BFDUMP,
	TRAWL_KIND_ETE_SNAPSHOT,
	TRAWL_KIND_ETE_BUFFER,     /* raw ETE/ETMv4 bytes (--ete-config) */
	TRAWL_KIND_PERF,
};

/* The kind of a trace of the given format (ETE: is_dir for a snapshot,
 * the PERFILE2 magic in its first bytes for a perf.data). */
enum trawl_trace_kind trawl_trace_kind_get(enum trawl_format format, int is_dir,
					   const void *first, size_t len);
/* The same from the path alone (a directory, or the file's first bytes as
 * trawl_reader_probe reads them; opt->format when set); UNKNOWN for "-"
 * or what cannot be read. */
enum trawl_trace_kind trawl_trace_kind_probe(const char *path,
					     const struct trawl_reader_options *opt);
/* "a perf.data", "a Tarmac trace" ... */
const char *trawl_trace_kind_name(enum trawl_trace_kind k);
/* The first option opt gives that does not apply to a trace of this kind,
 * as the command line names it without "--" ("symfs"), and (for_what,
 * may be NULL) the kinds it is for; NULL when every option given applies
 * (or the kind is UNKNOWN). */
const char *trawl_reader_option_misfit(const struct trawl_reader_options *opt,
				       enum trawl_trace_kind kind, const char **for_what);
/* Leave out of opt every option that does not apply to the kind: for a
 * command given several traces, each read with the options that fit it. */
void trawl_reader_options_fit(struct trawl_reader_options *opt, enum trawl_trace_kind kind);
/* Option i of the table (0, 1, ... until -1): *name and *for_what as
 * trawl_reader_option_misfit gives them; 1 when opt does not give it or it
 * applies to one of the n kinds at least (an UNKNOWN one counts), else 0. */
int trawl_reader_option_fits_any(const struct trawl_reader_options *opt, size_t i,
				 const enum trawl_trace_kind *kinds, size_t n, const char **name,
				 const char **for_what);
/* TRAWL_ERR_USAGE naming that option, what it is for and the kind of
 * path ("--symfs is for a perf.data; 'x.tarmac' is a Tarmac trace"). */
enum trawl_status trawl_reader_options_check(const struct trawl_reader_options *opt,
					     enum trawl_trace_kind kind, const char *path,
					     struct trawl_error *err);

/* Counters a reader keeps; valid at any time. */
struct trawl_reader_stats {
	uint64_t lines;                /* lines read so far */
	uint64_t bytes;                /* decompressed bytes read so far */
	uint64_t events;
	uint64_t bad_lines;            /* skipped in lenient mode */
	uint64_t unknown_lines;        /* kept as text events */
	uint64_t cut_lines;            /* a last line cut off by the end of the
					* input, dropped (0 or 1) */
	uint64_t cut_input;            /* 1 when compressed data stops inside a
					* frame: the rest of the trace is lost */
	uint64_t lost_events;          /* software events the recorder counted as
	                                  lost (its buffers were full); not a
	                                  reading error */
	uint64_t damaged;              /* decoded trace (ETE): places that could not
	                                  be decoded (bad packets, no program image,
	                                  overflows), each warned about */
};

/* Open `path` ("-" = stdin; a directory is a CTF trace or an ETE snapshot). opt may be NULL
 * for defaults. */
enum trawl_status trawl_reader_open(struct trawl_reader **out, const char *path,
				    const struct trawl_reader_options *opt,
				    struct trawl_error *err);

/* The format a file's first chunk says it is (the backends' probes, as
 * trawl_reader_open picks them), without reading further; AUTO when none
 * recognises it or it cannot be read. */
enum trawl_format trawl_reader_probe(const char *path);

/* Read from an input already opened; the reader takes ownership of `in`. */
enum trawl_status trawl_reader_open_input(struct trawl_reader **out, struct trawl_input *in,
					  const struct trawl_reader_options *opt,
					  struct trawl_error *err);

/* Next batch. TRAWL_OK with batch->count > 0; TRAWL_END when the input is
 * exhausted; an error status (with err filled: file, line, column, excerpt)
 * for bad input. Everything the batch points to is borrowed until the next
 * call on this reader. */
enum trawl_status trawl_reader_next(struct trawl_reader *r, struct trawl_event_batch *batch,
				    struct trawl_error *err);

const struct trawl_reader_stats *trawl_reader_stats(const struct trawl_reader *r);
struct trawl_input *trawl_reader_input(struct trawl_reader *r);
enum trawl_format trawl_reader_format(const struct trawl_reader *r);
/* The program memory a decoding reader decodes with (an ETE snapshot's
 * dumps and --ete-image files, a perf.data's mapped files and kernel):
 * what its memory is known to hold, since such a trace records no data
 * accesses. NULL for a reader of a trace that records its memory (Tarmac)
 * or has none. Borrowed until the reader is closed. */
struct trawl_ete_image;
const struct trawl_ete_image *trawl_reader_image(const struct trawl_reader *r);

void trawl_reader_close(struct trawl_reader *r);

#endif
