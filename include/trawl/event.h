/* The event model: the contract between readers and everything else.
 *
 * Every reader (Tarmac text, ETE decode, recorded software events, the
 * emulator) hands out the same events, in batches from reusable buffers, so
 * the index, analyses and views never care where a trace came from.
 *
 * Byte conventions (decided once, here):
 *  - register values are stored least significant byte first: byte i of a
 *    register write is bits [8i+7:8i] of the register, counting from `offset`
 *    bytes above bit 0 (so `V0<127:64>` is offset 8, size 8);
 *  - memory values are stored in address order: byte i is the byte at
 *    address addr+i, already corrected for the trace's endianness;
 *  - "known" masks have one bit per byte (bit i%8 of byte i/8); a mask offset
 *    of TRAWL_ALL_KNOWN means every byte is known.
 */
#ifndef TRAWL_EVENT_H
#define TRAWL_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/reg.h"
#include "trawl/status.h"

enum trawl_event_kind {
	TRAWL_EV_INSN = 1,      /* instruction executed (or condition-failed: see flags) */
	TRAWL_EV_STATE,         /* register/memory lines not attached to an instruction */
	TRAWL_EV_EXCEPTION,     /* exception taken (reset, interrupt, fault ...) */
	TRAWL_EV_EXC_RETURN,    /* exception return */
	TRAWL_EV_CONTEXT,       /* context change: EL, security state, context IDs */
	TRAWL_EV_SW,            /* software event (subsystem, event, fields) */
	TRAWL_EV_TEXT,          /* a line kept as text (unknown or informative) */
	TRAWL_EV_GAP,           /* trace off, overflow, lost events */
};

/* Instruction sets. */
enum trawl_iset {
	TRAWL_ISET_UNKNOWN = 0,
	TRAWL_ISET_A64,
	TRAWL_ISET_A32,
	TRAWL_ISET_T32,         /* Thumb, 16- or 32-bit encodings (see insn_width) */
};

/* Time units. Counting units keep their value; real-time units with a
 * fractional part ("10.356000us") are converted to picoseconds by the reader
 * and reported as TRAWL_TIME_PS. */
enum trawl_time_unit {
	TRAWL_TIME_NONE = 0,    /* the source has no timestamps */
	TRAWL_TIME_CLK,
	TRAWL_TIME_CYC,
	TRAWL_TIME_CS,
	TRAWL_TIME_TIC,
	TRAWL_TIME_NS,
	TRAWL_TIME_PS,
	TRAWL_TIME_US,
	TRAWL_TIME_INSN,        /* instruction count (emulator) */
};

/* Event flags. */
#define TRAWL_EVF_CCFAIL      0x0001u /* instruction failed its condition */
#define TRAWL_EVF_FETCH_FAIL  0x0002u /* instruction fetch failed (--------) */
#define TRAWL_EVF_HAS_TIME    0x0004u /* time came from this line (not inherited) */
#define TRAWL_EVF_HAS_PADDR   0x0008u /* insn.paddr is valid */
#define TRAWL_EVF_HAS_ENCODING 0x0010u /* insn.encoding is valid */
#define TRAWL_EVF_TRUNCATED   0x0020u /* the source ended inside this event */
/* Exception events: what the producer's name says (trawl_exception_flags),
 * decided by the reader so that the index (which keeps the low 8 flag bits
 * but no names) and the text agree. */
#define TRAWL_EVF_RESET       0x0040u /* a reset: every open frame ends */
#define TRAWL_EVF_DEBUG_ENTRY 0x0080u /* halting debug entry: not a transfer */
/* The source has no text (decoded trace): `line` numbers the events
 * (1-based), as an index of such a source numbers them. */
#define TRAWL_EVF_NO_TEXT     0x0100u

#define TRAWL_ALL_KNOWN UINT32_MAX

/* A slice of text borrowed from the source buffer or the batch's pool. */
struct trawl_str {
	const char *ptr;
	uint32_t len;
};

/* One register write. `reg` is a canonical storage register (see reg.h);
 * `offset`/`size` select the bytes written. When `zext` is larger than
 * offset+size, bytes [offset+size, zext) are set to zero as well (writing w3
 * zero-extends into x3 on AArch64). */
struct trawl_reg_write {
	uint32_t reg;
	uint16_t offset;
	uint16_t size;
	uint16_t zext;
	uint16_t pad_;
	uint32_t value;   /* offset of `size` bytes in the batch pool */
	uint32_t known;   /* offset of the known-mask in the pool, or TRAWL_ALL_KNOWN */
};

#define TRAWL_MEM_READ     0x01u
#define TRAWL_MEM_WRITE    0x02u
#define TRAWL_MEM_ABORTED  0x04u  /* access aborted: no value */
#define TRAWL_MEM_HAS_PADDR 0x08u
#define TRAWL_MEM_FETCH    0x10u  /* instruction fetch (kept, not state) */

/* One memory access. */
struct trawl_mem_access {
	uint64_t addr;
	uint64_t paddr;   /* physical address when TRAWL_MEM_HAS_PADDR */
	uint32_t size;    /* bytes */
	uint32_t flags;   /* TRAWL_MEM_* */
	uint32_t value;   /* offset of `size` bytes in the pool (address order) */
	uint32_t known;   /* known-mask offset in the pool, or TRAWL_ALL_KNOWN */
};

struct trawl_event_insn {
	uint64_t pc;
	uint64_t paddr;
	uint32_t encoding;      /* as an integer: 0x940011de, 0xa00a */
	uint8_t width;          /* encoding size in bytes: 2 or 4 (0 unknown) */
	uint8_t iset;           /* enum trawl_iset */
	uint8_t el;             /* exception level 0-3, 0xff unknown */
	uint8_t pad_;
	struct trawl_str mode;  /* mode text as written ("EL3h_s", "svc_s"), may be empty */
	struct trawl_str disasm;/* disassembly as written, may be empty */
};

struct trawl_event_exception {
	struct trawl_str name;  /* "CoreEvent_RESET", "Reset", "[0x200] Synchronous ..." */
	uint64_t target;        /* handler address if given, else 0 */
	uint64_t ret_addr;      /* preferred return address if given, else 0 */
	uint32_t number;        /* exception number/vector offset if given */
};

struct trawl_event_context {
	uint64_t context_id;
	uint64_t vmid;
	uint8_t el;
	uint8_t security;       /* 0 secure, 1 non-secure, 2 realm, 3 root */
	uint8_t is64;
	uint8_t valid;          /* bit 0 ctxid, bit 1 vmid, bit 2 el/sec/is64 */
};

struct trawl_sw_class;           /* trawl/sw-event.h */

/* A recorded software event (CTF traces of the recorder and `trawl
 * listen`, Barrelfish dumps). The fields' values are cls->nfields 64-bit
 * words in host byte order at pool offset `fields` (signed types
 * sign-extended), fields_len = 8 * nfields; fields is 0 when there are
 * none. Time is in ns (TRAWL_TIME_NS) for CTF traces, in the dump's ticks
 * (TRAWL_TIME_CYC) for Barrelfish dumps. */
struct trawl_event_sw {
	uint16_t subsys;
	uint16_t event;
	uint32_t arg;           /* the first field's low 32 bits (a Barrelfish word's argument) */
	uint32_t fields;        /* pool offset of the field values, 0 if none */
	uint32_t fields_len;
	uint32_t tid;           /* thread id; 0 when the source has none (Barrelfish) */
	uint32_t stream;        /* the trace's stream (file) the event is in */
	struct trawl_str name;  /* "subsys:event", borrowed from the reader until it is closed */
	const struct trawl_sw_class *cls; /* names and types of the fields, valid as name */
};

struct trawl_event_text {
	struct trawl_str type;  /* record type word ("CADI", "E", "BR" ...) */
	struct trawl_str text;  /* the rest of the line */
};

enum trawl_gap_reason {
	TRAWL_GAP_TRACE_OFF = 0, /* trace was off (or not decodable: no image) */
	TRAWL_GAP_OVERFLOW = 1,  /* the trace unit overflowed */
	TRAWL_GAP_LOST = 2,      /* trace lost: bytes skipped, a new buffer or segment */
};

struct trawl_event_gap {
	uint32_t reason;        /* enum trawl_gap_reason */
	uint64_t lost;          /* events lost, if known */
};

struct trawl_event {
	/* place in the source */
	uint64_t seq;           /* 0-based sequence number in the stream */
	uint64_t line;          /* first line, 1-based (0 for binary sources) */
	uint32_t nlines;
	uint16_t kind;          /* enum trawl_event_kind */
	uint16_t flags;         /* TRAWL_EVF_* */
	uint64_t offset;        /* byte offset in the (decompressed) source */
	uint64_t length;        /* bytes in the source */
	/* when and where */
	uint64_t time;
	uint16_t time_unit;     /* enum trawl_time_unit */
	uint16_t cpu;
	/* effects, in source order: indices into the batch's arrays */
	uint32_t first_reg, nregs;
	uint32_t first_mem, nmems;
	union {
		struct trawl_event_insn insn;
		struct trawl_event_exception exc;
		struct trawl_event_context ctx;
		struct trawl_event_sw sw;
		struct trawl_event_text text;
		struct trawl_event_gap gap;
	} u;
};

/* A batch of events. All pointers inside (including trawl_str slices) are
 * borrowed: valid until the next call on the reader that produced it. */
struct trawl_event_batch {
	const struct trawl_event *events;
	size_t count;
	const struct trawl_reg_write *regs;
	const struct trawl_mem_access *mems;
	const uint8_t *pool;
	/* register names for ids >= TRAWL_REG_SYS_BASE (system registers the
	 * reader met by name); may be NULL when none */
	const struct trawl_reg_names *sysregs;
};

/* Test one bit of a known-mask. */
static inline int trawl_known_bit(const uint8_t *pool, uint32_t known, uint32_t i)
{
	return known == TRAWL_ALL_KNOWN || ((pool[known + i / 8] >> (i % 8)) & 1);
}

const char *trawl_event_kind_name(enum trawl_event_kind k);
/* TRAWL_EVF_RESET / TRAWL_EVF_DEBUG_ENTRY for an exception named `name`
 * (any case: "CoreEvent_RESET", "Reset", "DebugEvent_HaltingDebug"), else 0. */
uint16_t trawl_exception_flags(const char *name, size_t len);
const char *trawl_iset_name(enum trawl_iset s);
const char *trawl_time_unit_name(enum trawl_time_unit u);

/* A time a user gives for a trace whose times are in `unit`: a bare count
 * ("1500") is in that unit; with a unit ("1500ns", "1.5 us", "12 clk") it
 * is converted to it when both are real time (exactly: "1ps" is no whole
 * number of ns) and must be that unit when it counts cycles. TRAWL_ERR_FORMAT
 * with the reason otherwise (cycles and real time are never converted). */
enum trawl_status trawl_time_parse(const char *s, enum trawl_time_unit unit, uint64_t *out,
				   struct trawl_error *err);

#endif
