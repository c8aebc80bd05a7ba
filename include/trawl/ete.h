/* ETE / ETMv4 instruction trace: packets, buffers, snapshots, instruction flow.
 *
 * Layers, each usable alone:
 *   trawl_ete_config      trace-unit register values and what follows from them
 *   trawl_ete_pkt_decoder bytes (any chunking) -> packets, in batches
 *   trawl_ete_deformatter CoreSight 16-byte frames -> per-trace-ID byte streams
 *   trawl_ete_trbe_unwrap a wrapped TRBE buffer -> bytes in time order
 *   trawl_ete_snapshot    an Arm snapshot directory (ini files, buffers, dumps)
 *   trawl_ete_image       program memory (dumps, ELF files) + decoded-block cache
 *   trawl_ete_flow        packets + image -> instruction ranges and other elements
 *
 * Ownership: every object is created by its _create/_open and released by
 * its _destroy/_close. Packet and element batches handed to callbacks are
 * borrowed for the duration of the call.
 */
#ifndef TRAWL_ETE_H
#define TRAWL_ETE_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* ---------------------------------------------------------------- config */

struct trawl_ete_config {
	uint32_t idr0, idr1, idr2, idr8, configr, devarch;
	uint8_t trace_id;
	/* derived by trawl_ete_config_derive() */
	uint8_t is_ete;          /* TRCDEVARCH.ARCHVER >= 5 */
	uint8_t arch_minor;      /* ETE revision / ETMv4 minor version */
	uint8_t cid_bytes;       /* context ID bytes in context packets */
	uint8_t vmid_bytes;
	uint8_t cc_bits;         /* cycle counter width */
	uint8_t q_supported;
	uint8_t commopt1;        /* cycle-count packets carry no commit section */
	uint8_t return_stack;    /* TRCCONFIGR.RS */
	uint32_t max_spec;       /* TRCIDR8.MAXSPEC */
};

/* Fill the derived fields from the register values. Fails (with a message)
 * when the values are inconsistent, e.g. a reserved context ID size. */
enum trawl_status trawl_ete_config_derive(struct trawl_ete_config *cfg, struct trawl_error *err);

/* A default ETE configuration (the values a Linux perf session on an
 * Armv9 core typically reports), for buffers given without registers. */
void trawl_ete_config_default(struct trawl_ete_config *cfg);

/* Set one register by name (TRCIDR0, TRCIDR1, TRCIDR2, TRCIDR8, TRCCONFIGR,
 * TRCDEVARCH, TRCTRACEIDR; any case; a "(...)" annotation after the name,
 * as snapshot files write it, is ignored). Returns 1, or 0 for a name that
 * is not one of these (cfg unchanged). Call trawl_ete_config_derive after. */
int trawl_ete_config_set_reg(struct trawl_ete_config *cfg, const char *name, uint32_t value);

/* Apply the NAME=VALUE lines of an ini file (any section; snapshot device
 * files work as they are) to cfg with trawl_ete_config_set_reg. Lines whose
 * value is not a number or whose name is not a register are ignored; a
 * file that cannot be read or is not ini text is an error. */
enum trawl_status trawl_ete_config_load(struct trawl_ete_config *cfg, const char *path,
					struct trawl_error *err);

/* --------------------------------------------------------------- packets */

enum trawl_ete_pkt_type {
	TRAWL_ETE_PKT_NOTSYNC = 0,   /* bytes skipped while looking for A-Sync */
	TRAWL_ETE_PKT_BAD,           /* reserved header or malformed packet */
	TRAWL_ETE_PKT_INCOMPLETE,    /* the stream ended inside a packet */
	TRAWL_ETE_PKT_ASYNC,
	TRAWL_ETE_PKT_DISCARD,
	TRAWL_ETE_PKT_OVERFLOW,
	TRAWL_ETE_PKT_TRACE_INFO,
	TRAWL_ETE_PKT_TIMESTAMP,
	TRAWL_ETE_PKT_TRACE_ON,
	TRAWL_ETE_PKT_EXCEPT,
	TRAWL_ETE_PKT_EXCEPT_RTN,
	TRAWL_ETE_PKT_PE_RESET,
	TRAWL_ETE_PKT_TRANS_FAIL,
	TRAWL_ETE_PKT_ITE,
	TRAWL_ETE_PKT_TRANS_ST,
	TRAWL_ETE_PKT_TRANS_COMMIT,
	TRAWL_ETE_PKT_CCNT_F1,
	TRAWL_ETE_PKT_CCNT_F2,
	TRAWL_ETE_PKT_CCNT_F3,
	TRAWL_ETE_PKT_COMMIT,
	TRAWL_ETE_PKT_CANCEL_F1,
	TRAWL_ETE_PKT_CANCEL_F1_MISPRED,
	TRAWL_ETE_PKT_MISPREDICT,
	TRAWL_ETE_PKT_CANCEL_F2,
	TRAWL_ETE_PKT_CANCEL_F3,
	TRAWL_ETE_PKT_IGNORE,
	TRAWL_ETE_PKT_EVENT,
	TRAWL_ETE_PKT_CTXT,
	TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0,
	TRAWL_ETE_PKT_ADDR_CTXT_L_32IS1,
	TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0,
	TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1,
	TRAWL_ETE_PKT_TS_MARKER,
	TRAWL_ETE_PKT_ADDR_MATCH,
	TRAWL_ETE_PKT_ADDR_S_IS0,
	TRAWL_ETE_PKT_ADDR_S_IS1,
	TRAWL_ETE_PKT_ADDR_L_32IS0,
	TRAWL_ETE_PKT_ADDR_L_32IS1,
	TRAWL_ETE_PKT_ADDR_L_64IS0,
	TRAWL_ETE_PKT_ADDR_L_64IS1,
	TRAWL_ETE_PKT_Q,
	TRAWL_ETE_PKT_SRC_ADDR_MATCH,
	TRAWL_ETE_PKT_SRC_ADDR_S_IS0,
	TRAWL_ETE_PKT_SRC_ADDR_S_IS1,
	TRAWL_ETE_PKT_SRC_ADDR_L_32IS0,
	TRAWL_ETE_PKT_SRC_ADDR_L_32IS1,
	TRAWL_ETE_PKT_SRC_ADDR_L_64IS0,
	TRAWL_ETE_PKT_SRC_ADDR_L_64IS1,
	TRAWL_ETE_PKT_ATOM_F1,
	TRAWL_ETE_PKT_ATOM_F2,
	TRAWL_ETE_PKT_ATOM_F3,
	TRAWL_ETE_PKT_ATOM_F4,
	TRAWL_ETE_PKT_ATOM_F5,
	TRAWL_ETE_PKT_ATOM_F6,
	TRAWL_ETE_PKT_COUNT_
};

/* Why a packet is TRAWL_ETE_PKT_BAD. */
enum trawl_ete_bad {
	TRAWL_ETE_BAD_NONE = 0,
	TRAWL_ETE_BAD_RESERVED,      /* reserved header byte */
	TRAWL_ETE_BAD_CONFIG,        /* header not valid for this configuration */
	TRAWL_ETE_BAD_SEQUENCE,      /* malformed extension / A-Sync / Q type */
	TRAWL_ETE_BAD_FIELD,         /* continuation field too long */
};

/* Context carried by context and address-with-context packets. */
struct trawl_ete_ctx {
	uint8_t el;
	uint8_t sf;      /* 1 = AArch64 */
	uint8_t ns;      /* non-secure */
	uint8_t nse;     /* ETE realm/root extension bit */
	uint8_t has_vmid, has_cid;
	uint32_t vmid;
	uint32_t cid;
};

/* One packet (64 bytes: the decoder writes one per packet in its hot
 * loop). Fields that do not apply to the type are 0. */
struct trawl_ete_packet {
	uint64_t offset;         /* byte offset of the header in the stream */
	uint64_t addr;           /* full address (after history/compression) */
	uint64_t value;          /* timestamp, ITE payload, TINFO info field */
	uint32_t atoms;          /* bit i = atom i (oldest first) taken (E) */
	uint32_t count;          /* commit/cancel/Q count, event bits, exc type,
	                            NOTSYNC skipped bytes, BAD reason */
	uint32_t cc;             /* cycle count */
	uint16_t len;            /* bytes in the packet */
	uint16_t commit;         /* commit count carried by cycle-count packets */
	uint8_t type;            /* enum trawl_ete_pkt_type */
	uint8_t header;
	uint8_t natoms;
	uint8_t is;              /* instruction set bit of the address */
	uint8_t addr_bits;       /* bits given by the packet (short forms) */
	uint8_t flags;           /* TRAWL_ETE_PF_* */
	uint8_t exc_addr_interp; /* exception packet E1:E0 */
	uint8_t ite_el;
	union {
		struct trawl_ete_ctx ctx;  /* context and address-with-context */
		struct {                   /* TRACE_INFO sections */
			uint32_t tinfo_key, tinfo_spec, tinfo_cyct;
			uint8_t tinfo_sections; /* bit0 INFO, 1 KEY, 2 SPEC, 3 CYCT, 4 WNDW */
		};
	};
};

#define TRAWL_ETE_PF_HAS_ADDR   0x01u
#define TRAWL_ETE_PF_HAS_CTX    0x02u  /* ctx is valid (not "same as before") */
#define TRAWL_ETE_PF_HAS_CC     0x04u
#define TRAWL_ETE_PF_HAS_COMMIT 0x08u
#define TRAWL_ETE_PF_HAS_COUNT  0x10u  /* Q packet carries a count */
#define TRAWL_ETE_PF_CC_UNKNOWN 0x20u

const char *trawl_ete_pkt_name(enum trawl_ete_pkt_type t);
/* Exception type name ("IRQ", "Call", ...); never NULL. */
const char *trawl_ete_exception_name(uint32_t type, int is_ete);
/* An exception as `trawl ete tarmac` names it and the ETE reader's events
 * do: "CoreEvent_EXCEPTION Call (return address 1b37f4)"; snprintf's
 * result. */
int trawl_ete_exception_text(uint32_t type, int is_ete, uint64_t ret, char *buf, size_t size);
/* Security state of a context: "S", "NS", and with RME's NSE bit set
 * "Root" (NS = 0) or "Realm" (NS = 1). */
const char *trawl_ete_security_name(const struct trawl_ete_ctx *c);

struct trawl_ete_pkt_decoder;

/* Called with each batch of decoded packets (borrowed for the call). A
 * decoder created with no callback parses every packet and only keeps the
 * counters (trawl_ete_pkt_decoder_stats), without building records. */
typedef void (*trawl_ete_packet_fn)(void *ctx, const struct trawl_ete_packet *pkts, size_t n);

enum trawl_status trawl_ete_pkt_decoder_create(struct trawl_ete_pkt_decoder **out,
					       const struct trawl_ete_config *cfg,
					       trawl_ete_packet_fn fn, void *fn_ctx,
					       struct trawl_error *err);
/* Feed the next bytes of the stream (any size, including 0). Complete
 * packets are delivered; a packet cut by the chunk end waits for the next
 * call. Bad input never fails the call: it yields BAD/NOTSYNC packets. */
void trawl_ete_pkt_decoder_feed(struct trawl_ete_pkt_decoder *d, const uint8_t *data, size_t len);
/* End of stream: report a cut packet (INCOMPLETE) and flush the batch. */
void trawl_ete_pkt_decoder_finish(struct trawl_ete_pkt_decoder *d);
/* Forget all state (as at creation); the next byte has offset `offset`. */
void trawl_ete_pkt_decoder_reset(struct trawl_ete_pkt_decoder *d, uint64_t offset);
void trawl_ete_pkt_decoder_destroy(struct trawl_ete_pkt_decoder *d);
/* on = 1: decode every packet through the general per-packet parser,
 * bypassing the fast paths (precomputed one-byte records, the counting
 * loop). Output is identical; tests use it as the reference for the fast
 * paths. */
void trawl_ete_pkt_decoder_set_generic(struct trawl_ete_pkt_decoder *d, int on);

/* Counters over everything fed so far. */
struct trawl_ete_pkt_stats {
	uint64_t bytes;
	uint64_t packets;
	uint64_t by_type[TRAWL_ETE_PKT_COUNT_];
	uint64_t atoms_e, atoms_n;
	uint64_t bad;
	uint64_t unsynced_bytes;
	uint64_t lead_bytes;    /* of them, those before the first A-Sync */
};
const struct trawl_ete_pkt_stats *trawl_ete_pkt_decoder_stats(const struct trawl_ete_pkt_decoder *d);
/* Entry i (0 = most recent) of the three-entry address history as it
 * stands after the bytes fed so far: what the next exact-match or short
 * address packet builds on. Counting-only decoders keep it too, which is how
 * tests check that they really decode addresses. TRAWL_ERR_USAGE if i > 2. */
enum trawl_status trawl_ete_pkt_decoder_history(const struct trawl_ete_pkt_decoder *d, unsigned i,
						uint64_t *addr, uint8_t *is);

/* ------------------------------------------------------- buffer handling */

/* CoreSight frame deformatter: 16-byte frames, trace IDs 1..0x6f.
 * Output goes per ID to the callback in runs of bytes; `offset` is the
 * position in the formatted input of the frame that held the first byte. */
typedef void (*trawl_ete_id_bytes_fn)(void *ctx, uint8_t id, const uint8_t *data, size_t n,
				      uint64_t offset);
struct trawl_ete_deformatter;
/* tpiu: 1 = the capture may contain FSYNC (FF FF FF 7F) and HSYNC (FF 7F)
 * sequences that must be removed (TPIU); 2 = as 1, in a DSTREAM file whose
 * 512-byte blocks end with 8 bytes of capture metadata. */
enum trawl_status trawl_ete_deformatter_create(struct trawl_ete_deformatter **out, int tpiu,
					       trawl_ete_id_bytes_fn fn, void *fn_ctx,
					       struct trawl_error *err);
void trawl_ete_deformatter_feed(struct trawl_ete_deformatter *d, const uint8_t *data, size_t len);
void trawl_ete_deformatter_finish(struct trawl_ete_deformatter *d);
/* frames processed, bytes dropped (before a TPIU capture's first FSYNC;
 * after trawl_ete_deformatter_finish also a partial last frame, unless it
 * is all zeros, a capture's padding), syncs removed (in memory, a frame
 * of four FSYNCs is a barrier that Linux's CoreSight drivers write where
 * a wrapped buffer lost trace: skipped) */
void trawl_ete_deformatter_counts(const struct trawl_ete_deformatter *d, uint64_t *frames,
				  uint64_t *dropped, uint64_t *syncs);
/* What a finished deformatter could not decode, one finding at a time
 * (i from 0): 1 with its input offset and a sentence in msg, 0 past the
 * last. The findings: bytes not in a whole frame (a buffer cut inside its
 * last frame; in a TPIU capture, bytes before the first FSYNC); data bytes
 * before the input's first ID byte, unless all zeros (a wrapped buffer
 * starts inside some ID's run, so which unit sent them is unknown); stray
 * bytes: not zero under the null ID 0 (a formatter pads with zeros), or
 * any under a reserved ID but the trigger's 0x7d, which is where a
 * damaged ID byte sends the trace after it. */
int trawl_ete_deformatter_damage(const struct trawl_ete_deformatter *d, unsigned i, uint64_t *offset, char *msg,
				 size_t size);
void trawl_ete_deformatter_destroy(struct trawl_ete_deformatter *d);

/* A stopped TRBE buffer in wrap mode: `buf` holds memory [base, limit);
 * `write` is the write pointer. The oldest bytes are [write, limit), then
 * [base, write). Without wrapping (`wrapped` = 0) the data is [base, write).
 * On success first/first_len and second/second_len describe the two
 * parts in time order (second may be empty). */
enum trawl_status trawl_ete_trbe_unwrap(const uint8_t *buf, size_t buf_len, uint64_t base,
					uint64_t limit, uint64_t write, int wrapped,
					const uint8_t **first, size_t *first_len,
					const uint8_t **second, size_t *second_len,
					struct trawl_error *err);

/* TRBE pointers from a file of base=, limit=, write=, wrapped= lines (ini
 * syntax; any section, any case; the last of a key wins). `have` says which
 * keys were there (TRAWL_ETE_TRBE_* bits); fields whose key is missing are
 * left as they were, so a caller can fill defaults first. A value that is
 * not a number is TRAWL_ERR_USAGE ("FILE: bad limit value 'zz'"), as are
 * inconsistent pointers in trawl_ete_trbe_unwrap. */
enum {
	TRAWL_ETE_TRBE_BASE = 1, TRAWL_ETE_TRBE_LIMIT = 2, TRAWL_ETE_TRBE_WRITE = 4,
	TRAWL_ETE_TRBE_WRAPPED = 8,
};
struct trawl_ete_trbe {
	uint64_t base, limit, write;
	int wrapped;
	unsigned have;
};
enum trawl_status trawl_ete_trbe_load(const char *path, struct trawl_ete_trbe *out,
				      struct trawl_error *err);

/* ---------------------------------------------------------- program image */

struct trawl_ete_image;
enum trawl_status trawl_ete_image_create(struct trawl_ete_image **out, struct trawl_error *err);
/* Add bytes at a virtual address (copied). Where they overlap bytes added
 * before, the earlier ones stay (the first added wins, as in OpenCSD) and
 * only the uncovered part is added; overlapping bytes that differ count
 * as a conflict. */
enum trawl_status trawl_ete_image_add(struct trawl_ete_image *img, uint64_t addr,
				      const uint8_t *data, size_t len, const char *name,
				      struct trawl_error *err);
/* Add a file's bytes [offset, offset+len) at addr; len 0 = to the end. */
enum trawl_status trawl_ete_image_add_file(struct trawl_ete_image *img, const char *path,
					   uint64_t addr, uint64_t offset, uint64_t len,
					   struct trawl_error *err);
/* Add the loadable segments of an ELF file, shifted by `bias`. */
enum trawl_status trawl_ete_image_add_elf(struct trawl_ete_image *img, const char *path,
					  uint64_t bias, struct trawl_error *err);
/* Add from a command-line spec: "ADDR=FILE" (the file's bytes at ADDR)
 * or "ELF[@OFFSET]" (its loadable segments, OFFSET above their link
 * addresses, as trawl_image_spec_parse splits it). */
enum trawl_status trawl_ete_image_add_spec(struct trawl_ete_image *img, const char *spec,
					   struct trawl_error *err);
/* Split such a spec: the file into path (size bytes), the address (raw
 * bytes) or load offset (ELF) into *addr, *is_elf which form it is. */
enum trawl_status trawl_ete_image_spec_parse(const char *spec, char *path, size_t size,
					     uint64_t *addr, int *is_elf, struct trawl_error *err);
/* Copy up to n bytes at addr; returns how many were available contiguously. */
size_t trawl_ete_image_read(const struct trawl_ete_image *img, uint64_t addr, uint8_t *out,
			    size_t n);
size_t trawl_ete_image_regions(const struct trawl_ete_image *img);
/* Additions so far whose bytes differed from what was there (0: none);
 * buf (may be NULL) gets the latest of them described: its name and
 * range, the earlier region's name, the first differing address. */
unsigned trawl_ete_image_conflicts(const struct trawl_ete_image *img, char *buf, size_t size);
/* Complete what a query knows of [addr, addr+len): every byte whose bit in
 * known (bit i%8 of known[i/8]) is clear and that the image holds is
 * copied into val[i] and marked known. Returns how many bytes it filled. */
size_t trawl_ete_image_fill(const struct trawl_ete_image *img, uint64_t addr, size_t len,
			    uint8_t *val, uint8_t *known);
/* A number that changes whenever the image's contents may have changed
 * (a region added): what was decoded from it before is stale. */
uint64_t trawl_ete_image_generation(const struct trawl_ete_image *img);
/* The instruction at pc in instruction set iset (enum trawl_iset): its
 * encoding (T32: first halfword in bits 15:0, second in 31:16) and size in
 * bytes, 0 when the image does not hold it. This is how a consumer expands
 * a RANGE element into per-instruction PC, encoding and instruction set. */
unsigned trawl_ete_insn_fetch(const struct trawl_ete_image *img, uint64_t pc, int iset,
			      uint32_t *enc);
void trawl_ete_image_destroy(struct trawl_ete_image *img);

/* Instruction classes (the last instruction of a range). */
enum trawl_ete_insn_class {
	TRAWL_ETE_INSN_OTHER = 0,
	TRAWL_ETE_INSN_BR,        /* direct branch */
	TRAWL_ETE_INSN_IBR,       /* indirect branch */
	TRAWL_ETE_INSN_ISB,
	TRAWL_ETE_INSN_WFI,       /* WFI/WFE/WFIT/WFET (P0 in ETE) */
	TRAWL_ETE_INSN_TSTART,
};
#define TRAWL_ETE_INSN_COND 0x01u  /* conditional */
#define TRAWL_ETE_INSN_LINK 0x02u  /* branch with link */
#define TRAWL_ETE_INSN_RET  0x04u  /* function return */
#define TRAWL_ETE_INSN_ERET 0x08u  /* exception return */
#define TRAWL_ETE_INSN_XISA 0x10u  /* direct branch changes A32<->T32 */

/* Classify one instruction; returns its size (2 or 4). `enc` holds the
 * encoding as fetched (T32: first halfword in bits 15:0, second in 31:16). */
struct trawl_ete_insn_info {
	uint8_t cls;      /* enum trawl_ete_insn_class */
	uint8_t flags;    /* TRAWL_ETE_INSN_* */
	uint8_t size;
	uint64_t target;  /* direct branch target */
};
void trawl_ete_insn_classify(uint32_t enc, int iset, uint64_t pc, int is_ete,
			     struct trawl_ete_insn_info *info);

/* The version of what the ETE reader (trawl_reader on a snapshot or a raw
 * buffer) yields for given bytes and options. Raise it with any change to
 * the events it makes of the same input (a decoder fix, a new field):
 * indexes built by another version then no longer match and are rebuilt
 * (identity key 7, docs/index-format.md). */
#define TRAWL_ETE_READER_VERSION 2u /* 2: gap events at Trace On, resyncs and new segments */

/* -------------------------------------------------------- snapshot dirs */

struct trawl_ete_source {
	char name[64];           /* trace source device name (ETE_0_s1, ETM_0) */
	struct trawl_ete_config cfg;
	char core[64];           /* core device it traces, "" if unknown */
};

struct trawl_ete_buffer {
	char name[64];
	char path[4096];
	char format[32];         /* source_data, coresight, dstream_coresight */
	uint8_t *data;           /* whole file */
	size_t len;
	int source;              /* index in sources[] of the source that wrote
	                            it ([source_buffers]), -1 if not named */
	/* TRBE state written by trawl's encoder (trace.ini trbe_* keys):
	 * with trbe_wrapped the file is the memory [trbe_base, trbe_limit)
	 * and the oldest byte is at trbe_ptr */
	uint8_t trbe, trbe_wrapped;
	uint64_t trbe_base, trbe_limit, trbe_ptr, trbe_sr;
};

struct trawl_ete_snapshot {
	char dir[4096];
	struct trawl_ete_source *sources;
	size_t nsources;
	struct trawl_ete_buffer *buffers;
	size_t nbuffers;
	struct trawl_ete_image *image;  /* every [dumpN] of every core */
	unsigned nwarnings;             /* problems that did not stop loading */
	char warning[512];              /* the first of them */
};

enum trawl_status trawl_ete_snapshot_open(struct trawl_ete_snapshot **out, const char *dir,
					  struct trawl_error *err);
/* Call fn with the path of every file the snapshot at dir is made of:
 * snapshot.ini, its device files and their [dumpN] files, the trace
 * metadata file and the buffer files it names (only the ini files are
 * read). What an index of the snapshot is identified by. */
typedef void (*trawl_ete_file_fn)(void *ctx, const char *path);
/* 1 when dir is a snapshot directory (it has a snapshot.ini), else 0. */
int trawl_ete_snapshot_probe(const char *dir);
void trawl_ete_snapshot_files(const char *dir, trawl_ete_file_fn fn, void *ctx);
/* The source whose trace ID is `id`, or (id < 0) the first one. */
const struct trawl_ete_source *trawl_ete_snapshot_source(const struct trawl_ete_snapshot *s, int id);
/* "the buffers are A, B" (or "the snapshot has no buffer") into buf, cut
 * with "..." to fit size: what an error about a wrong name lists. */
void trawl_ete_snapshot_buffer_names(const struct trawl_ete_snapshot *s, char *buf, size_t size);
void trawl_ete_snapshot_close(struct trawl_ete_snapshot *s);

/* ------------------------------------------------------- instruction flow */

enum trawl_ete_elem_type {
	TRAWL_ETE_EL_NO_SYNC = 1,
	TRAWL_ETE_EL_TRACE_ON,
	TRAWL_ETE_EL_CONTEXT,
	TRAWL_ETE_EL_RANGE,       /* instructions start..end executed */
	TRAWL_ETE_EL_RANGE_NOPATH,/* Q: count instructions, path unknown */
	TRAWL_ETE_EL_NACC,        /* no image at addr */
	TRAWL_ETE_EL_EXCEPTION,
	TRAWL_ETE_EL_EXC_RET,
	TRAWL_ETE_EL_TIMESTAMP,
	TRAWL_ETE_EL_CYCLE_COUNT,
	TRAWL_ETE_EL_EVENT,
	TRAWL_ETE_EL_SYNC_MARKER, /* timestamp marker */
	TRAWL_ETE_EL_INSTRUMENTATION,
	TRAWL_ETE_EL_MEMTRANS,    /* count: enum trawl_ete_trans_kind */
	TRAWL_ETE_EL_OVERFLOW,
	TRAWL_ETE_EL_DISCARD,
	TRAWL_ETE_EL_BAD,         /* packet error; decoding resyncs */
	TRAWL_ETE_EL_END,         /* end of trace */
};

/* MEMTRANS elements (TME transactions). TRAWL_ETE_TRANS_FAIL also has:
 * value 1 when `start` is the PE's address at the failure (the instruction
 * after the last P0 element), `cc` the Exception packet's E1:E0, and
 * last_flags 1 when `end` is where execution resumed (the address packet
 * that followed). INIT: the trace starts inside a transaction (Trace Info
 * TSTATE). */
enum trawl_ete_trans_kind {
	TRAWL_ETE_TRANS_START = 0,
	TRAWL_ETE_TRANS_COMMIT = 1,
	TRAWL_ETE_TRANS_FAIL = 2,
	TRAWL_ETE_TRANS_INIT = 3,
};

struct trawl_ete_elem {
	uint64_t offset;          /* packet offset that produced it */
	uint8_t type;             /* enum trawl_ete_elem_type */
	uint8_t isa;              /* enum trawl_iset (event.h) */
	uint8_t taken;            /* RANGE: last instruction taken (E) */
	uint8_t last_cls;         /* RANGE: enum trawl_ete_insn_class */
	uint8_t last_flags;
	uint8_t last_size;
	uint8_t el;               /* current exception level */
	uint8_t pad_;
	uint64_t start, end;      /* RANGE: [start, end); NOPATH: first/next */
	uint64_t value;           /* timestamp, ITE value, NACC address ...;
	                           * CYCLE_COUNT: 1 = count unknown */
	uint32_t count;           /* instructions, event bits, exception type ... */
	uint32_t cc;
	struct trawl_ete_ctx ctx; /* CONTEXT */
};

typedef void (*trawl_ete_elem_fn)(void *ctx, const struct trawl_ete_elem *e);

/* Walk a RANGE element's instructions: start with *pc = e->start and done
 * = 0, count done up by one per call. Gives the encoding of the one at *pc
 * as Tarmac shows it (a 32-bit T32 instruction with its first halfword
 * high) and its size, moving *pc past it; 0 at the end of the range or
 * where the image holds no bytes. */
unsigned trawl_ete_range_next(const struct trawl_ete_image *img, const struct trawl_ete_elem *e,
			      uint32_t done, uint64_t *pc, uint32_t *enc);

struct trawl_ete_flow;
/* The image is borrowed and must outlive the flow decoder. */
enum trawl_status trawl_ete_flow_create(struct trawl_ete_flow **out,
					const struct trawl_ete_config *cfg,
					struct trawl_ete_image *img, trawl_ete_elem_fn fn,
					void *fn_ctx, struct trawl_error *err);
/* Packets in, elements out (the packet callback signature, so a flow can be
 * plugged directly behind a packet decoder). */
void trawl_ete_flow_packets(void *flow, const struct trawl_ete_packet *pkts, size_t n);
/* End of trace: flush held elements and emit END. */
void trawl_ete_flow_finish(struct trawl_ete_flow *f);
struct trawl_ete_flow_stats {
	uint64_t ranges, instructions, exceptions, nacc, block_hits, block_misses;
};
const struct trawl_ete_flow_stats *trawl_ete_flow_stats(const struct trawl_ete_flow *f);
void trawl_ete_flow_destroy(struct trawl_ete_flow *f);
/* Tests: every packet through the general path and every block walked
 * afresh from the image (no block cache, no linked successors, no atom
 * fast path). Elements are identical; the cache counters differ. */
void trawl_ete_flow_set_generic(struct trawl_ete_flow *f, int on);

const char *trawl_ete_elem_name(enum trawl_ete_elem_type t);

/* -------------------------------------------------------- transactions */

/* TME transactions from the decoded elements and the program image. The
 * trace gives the outer transaction only (TME flattens nesting: a nested
 * TSTART enters no new state), so the nesting depth, the end instruction
 * and a TCANCEL's reason come from walking the image along the traced
 * instructions. */
#define TRAWL_ETE_TRANS_UNKNOWN UINT64_MAX

enum trawl_ete_trans_outcome {
	TRAWL_ETE_TRANS_COMMITTED = 1,
	TRAWL_ETE_TRANS_FAILED,
	TRAWL_ETE_TRANS_OPEN,     /* the trace ended inside it */
	TRAWL_ETE_TRANS_LOST,     /* trace was lost inside it (overflow, bad packet) */
};

enum trawl_ete_trans_reason {
	TRAWL_ETE_TRANS_NOT_TRACED = 0, /* a failure the trace does not explain */
	TRAWL_ETE_TRANS_TCANCEL,        /* a TCANCEL in the image: cancel_imm */
};

struct trawl_ete_trans {
	uint64_t start_off, end_off; /* offsets of the elements that opened / closed it */
	uint64_t start_pc;   /* the outer TSTART; UNKNOWN when not traced */
	uint64_t end_pc;     /* the TCOMMIT, or the TCANCEL that failed it; UNKNOWN otherwise */
	uint64_t resume_pc;  /* failure: where execution resumed (after the outer TSTART) */
	uint64_t insns;      /* instructions traced after the TSTART, up to end_pc */
	uint32_t depth;      /* deepest nesting reached, 1 = none */
	uint16_t cancel_imm; /* TCANCEL #imm (bit 15: retry, 14:0: reason) */
	uint8_t outcome;     /* enum trawl_ete_trans_outcome */
	uint8_t reason;      /* enum trawl_ete_trans_reason (failures) */
	uint8_t fail_form;   /* the failure packet's address interpretation E1:E0 */
	uint8_t started_before; /* the trace began inside it (Trace Info TSTATE) */
};

struct trawl_ete_trans_stats {
	uint64_t committed, failed, open, lost;
};

typedef void (*trawl_ete_trans_fn)(void *ctx, const struct trawl_ete_trans *t);
struct trawl_ete_trans_tracker;
/* The image is borrowed. fn gets each transaction once it has ended (or
 * at trawl_ete_trans_finish for one still open). */
enum trawl_status trawl_ete_trans_create(struct trawl_ete_trans_tracker **out,
					 const struct trawl_ete_image *img, trawl_ete_trans_fn fn,
					 void *fn_ctx, struct trawl_error *err);
/* Every element of one trace stream, in order. */
void trawl_ete_trans_elem(struct trawl_ete_trans_tracker *t, const struct trawl_ete_elem *e);
void trawl_ete_trans_finish(struct trawl_ete_trans_tracker *t);
const struct trawl_ete_trans_stats *trawl_ete_trans_stats(const struct trawl_ete_trans_tracker *t);
void trawl_ete_trans_destroy(struct trawl_ete_trans_tracker *t);

#endif
