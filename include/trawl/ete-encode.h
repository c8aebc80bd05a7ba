/* ETE encoder, TRBE model and snapshot writer: the trace a trace unit and
 * its TRBE would have written for a stream of executed instructions.
 *
 *   trawl_ete_encoder   executed instructions (+ exceptions, gaps) -> ETE bytes
 *   trawl_ete_trbe_sink ETE bytes -> TRBE buffer memory (fill, wrap, circular)
 *   trawl_ete_snapshot_write  registers, buffer and memory dumps -> a
 *                       snapshot directory that `trawl ete` and OpenCSD read
 *
 * Without `speculate` the encoder never speculates (TRCIDR8.MaxSpec 0:
 * every P0 element is committed at once); it traces returns with
 * addresses (TRCCONFIGR.RS 0).
 * Ownership: each object is made by _create and released by _destroy.
 */
#ifndef TRAWL_ETE_ENCODE_H
#define TRAWL_ETE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ete.h"
#include "trawl/status.h"

/* Where encoded bytes go; a non-OK status stops the encoder (it is
 * returned by the call that was writing). */
typedef enum trawl_status (*trawl_ete_write_fn)(void *ctx, const uint8_t *data, size_t n,
						struct trawl_error *err);

struct trawl_ete_enc_options {
	uint32_t sync_period;   /* bytes between A-Sync + Trace Info (0: 4096) */
	int timestamps;         /* Timestamp packets at each sync and trace on */
	int cycle_counts;       /* a cycle count after each atom packet */
	uint32_t speculate;     /* TRCIDR8.MaxSpec: inject commits, cancels and
	                           mispredicts up to this depth (0: none) */
	int no_commopt;         /* TRCIDR0.COMMOPT 0: cycle counts carry a
	                           commit section */
};

/* The registers an encoder with these options writes (ETE, 4-byte
 * context IDs, no return stack; MaxSpec, COMMOPT, TRCCONFIGR.TS / .CCI as
 * asked). */
void trawl_ete_enc_config(const struct trawl_ete_enc_options *o, struct trawl_ete_config *cfg);

/* One executed instruction. `enc` as trawl_ete_insn_fetch gives it (T32:
 * first halfword in bits 15:0). `time` is the source's timestamp (any
 * unit, non-decreasing), `cycles` a cycle counter (the emulator counts
 * instructions). */
struct trawl_ete_enc_insn {
	uint64_t pc;
	uint32_t enc;
	uint8_t size;           /* 2 or 4 */
	uint8_t isa;            /* enum trawl_iset */
	uint8_t el;             /* 0-3 */
	uint8_t security;       /* 0 secure, 1 non-secure, 2 realm, 3 root */
	uint64_t time;
	uint64_t cycles;
};

struct trawl_ete_enc_stats {
	uint64_t bytes, insns, atoms, atom_packets, addresses, exceptions, syncs, trace_ons;
	uint64_t timestamps, cycle_counts;
	uint64_t commits, implicit_commits, cancels, mispredicts;
};

struct trawl_ete_encoder;
enum trawl_status trawl_ete_encoder_create(struct trawl_ete_encoder **out,
					   const struct trawl_ete_enc_options *o,
					   trawl_ete_write_fn fn, void *fn_ctx,
					   struct trawl_error *err);
/* The next instruction that ran. Whether the one before it (a branch) was
 * taken, and whether an exception or a gap came between them, follows
 * from this instruction's address. */
enum trawl_status trawl_ete_encoder_insn(struct trawl_ete_encoder *e,
					 const struct trawl_ete_enc_insn *in,
					 struct trawl_error *err);
/* An exception was taken after the last instruction given (`type` as the
 * Exception packet has it: 2 Call, 14 IRQ, ...); ret is its preferred
 * return address, 0 when the source does not say (then: the instruction
 * after the last one). The next instruction is the handler's. */
enum trawl_status trawl_ete_encoder_exception(struct trawl_ete_encoder *e, uint32_t type,
					      uint64_t ret, struct trawl_error *err);
/* Trace was off (filtered, lost) after the last instruction: the next
 * one starts after a Trace On. */
enum trawl_status trawl_ete_encoder_gap(struct trawl_ete_encoder *e, struct trawl_error *err);
/* End of the run: settle the last instruction and flush. */
enum trawl_status trawl_ete_encoder_finish(struct trawl_ete_encoder *e, struct trawl_error *err);
const struct trawl_ete_enc_stats *trawl_ete_encoder_stats(const struct trawl_ete_encoder *e);
void trawl_ete_encoder_destroy(struct trawl_ete_encoder *e);

/* ----------------------------------------------------------- TRBE model */

enum trawl_ete_trbe_mode {
	TRAWL_ETE_TRBE_FILL = 0,      /* TRBLIMITR.FM 0b00: stop when full */
	TRAWL_ETE_TRBE_WRAP = 1,      /* 0b01: wrap at the limit, report wrap */
	TRAWL_ETE_TRBE_CIRCULAR = 3,  /* 0b11: circular buffer, no stop */
};
enum trawl_ete_trbe_trig {
	TRAWL_ETE_TRBE_TRIG_STOP = 0,   /* TRBLIMITR.TM 0b00: stop on trigger */
	TRAWL_ETE_TRBE_TRIG_IRQ = 1,    /* 0b01: interrupt, go on */
	TRAWL_ETE_TRBE_TRIG_IGNORE = 3, /* 0b11: ignore */
};

/* TRBSR_EL1 bits this model sets */
#define TRAWL_TRBSR_IRQ   (1u << 22)
#define TRAWL_TRBSR_TRG   (1u << 21)
#define TRAWL_TRBSR_WRAP  (1u << 20)
#define TRAWL_TRBSR_EA    (1u << 18)
#define TRAWL_TRBSR_S     (1u << 17)  /* collection stopped */
/* TRBSR.EC [31:26]: 0 other buffer event, 0x1e fault in the trace unit's
 * writes (stage 1), 0x1f buffer management; BSC [5:0] with EC 0:
 * 1 buffer full, 2 trigger */
#define TRAWL_TRBSR_BSC_FULL 1u
#define TRAWL_TRBSR_BSC_TRIG 2u

struct trawl_ete_trbe_regs {
	uint64_t baser;    /* TRBBASER_EL1: base [63:12] */
	uint64_t limitr;   /* TRBLIMITR_EL1: limit [63:12], XE [6], nVM [5],
	                      TM [4:3], FM [2:1], E [0] */
	uint64_t ptr;      /* TRBPTR_EL1: current write pointer */
	uint64_t sr;       /* TRBSR_EL1 */
	uint64_t mar;      /* TRBMAR_EL1: memory attributes */
	uint64_t trg;      /* TRBTRG_EL1: trigger count (bytes after the trigger) */
	int external;      /* external mode (TRBLIMITR.XE): EL3 owns the buffer */
};

struct trawl_ete_trbe_sink;
/* The buffer [base, limit): both 4 KiB aligned and base < limit, as the
 * architecture requires (else TRAWL_ERR_USAGE naming the register). mode
 * and trig as above; nvm: TRBLIMITR.nVM (addresses are physical);
 * trigger_at: byte count of the stream at which the trigger event comes
 * (UINT64_MAX: never); trg: TRBTRG_EL1, bytes still written after it. */
struct trawl_ete_trbe_setup {
	uint64_t base, limit;
	enum trawl_ete_trbe_mode mode;
	enum trawl_ete_trbe_trig trig;
	int nvm, external;
	uint64_t trigger_at;
	uint64_t trg;
	uint64_t mar;
};
enum trawl_status trawl_ete_trbe_sink_create(struct trawl_ete_trbe_sink **out,
					     const struct trawl_ete_trbe_setup *s,
					     struct trawl_error *err);
/* A trawl_ete_write_fn: ctx is the sink. Bytes after collection stopped
 * are counted as lost, never an error. */
enum trawl_status trawl_ete_trbe_sink_write(void *ctx, const uint8_t *data, size_t n,
					    struct trawl_error *err);
/* The buffer memory ([base, limit), limit - base bytes) and registers. */
const uint8_t *trawl_ete_trbe_sink_memory(const struct trawl_ete_trbe_sink *t, size_t *len);
const struct trawl_ete_trbe_regs *trawl_ete_trbe_sink_regs(const struct trawl_ete_trbe_sink *t);
/* 1 once the write pointer has passed the limit (oldest data at TRBPTR). */
int trawl_ete_trbe_sink_wrapped(const struct trawl_ete_trbe_sink *t);
/* Bytes never written (collection stopped), and bytes written and then
 * overwritten by the wrap (wrap and circular modes): both are trace lost. */
uint64_t trawl_ete_trbe_sink_lost(const struct trawl_ete_trbe_sink *t);
uint64_t trawl_ete_trbe_sink_overwritten(const struct trawl_ete_trbe_sink *t);
void trawl_ete_trbe_sink_destroy(struct trawl_ete_trbe_sink *t);

/* ------------------------------------------------------- snapshot writer */

struct trawl_ete_dump {
	uint64_t addr;
	const uint8_t *data;
	size_t len;
};

/* What goes into the snapshot: the trace unit's registers, its buffer (the
 * TRBE memory when trbe is set, else the stream as it is) and the memory
 * dumps of the program. */
struct trawl_ete_snapshot_spec {
	const struct trawl_ete_config *cfg;
	const uint8_t *buffer;
	size_t len;
	const struct trawl_ete_trbe_regs *trbe; /* NULL: an unwrapped stream */
	int wrapped;                            /* with trbe: oldest data at ptr */
	const struct trawl_ete_dump *dumps;
	size_t ndumps;
};

/* Write DIR/snapshot.ini, trace.ini, cpu_0.ini, ETE_0.ini, trace.bin and
 * mem_N.bin (DIR is made when missing; existing files are replaced). */
enum trawl_status trawl_ete_snapshot_write(const char *dir, const struct trawl_ete_snapshot_spec *s,
					   struct trawl_error *err);

#endif
