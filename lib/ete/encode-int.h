/* ETE encoder internals shared by encode.c (which instruction gives which
 * packet) and encode-pkt.c (the bytes of each packet). */
#ifndef TRAWL_ETE_ENCODE_INT_H
#define TRAWL_ETE_ENCODE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ete-encode.h"
#include "trawl/event.h"

#define ENC_BUF 4096
#define ENC_ATOMS_MAX 24  /* the longest atom packet (format 6) */

struct trawl_ete_encoder {
	struct trawl_ete_enc_options o;
	struct trawl_ete_config cfg;
	trawl_ete_write_fn fn;
	void *fn_ctx;
	uint8_t buf[ENC_BUF];
	size_t nbuf;
	enum trawl_status st;       /* first failure of fn: every later call returns it */
	struct trawl_error fail;
	/* mirror of the decoder's address history (Trace Info clears it) */
	uint64_t hist[3];
	uint8_t hist_is[3];
	/* atoms not yet written: bit i = atom i taken */
	uint32_t atoms;
	unsigned natoms;
	uint64_t atom_cycles;       /* cycles at the newest atom */
	uint64_t cc_cycles;         /* cycles at the last cycle count written */
	int cc_valid;
	/* timestamps: the last value written, and whether a Trace Info came since */
	uint64_t ts;
	int ts_valid;
	/* context last written */
	uint8_t ctx_el, ctx_sec, ctx_sf;
	int ctx_valid;
	uint64_t since_sync;        /* bytes written since the last A-Sync */
	struct trawl_ete_enc_stats stats;
	/* the instruction before the next one */
	int have_prev;
	struct trawl_ete_enc_insn prev;
	struct trawl_ete_insn_info pinfo;
	int prev_svc;
	int uncovered;              /* instructions since the last P0 element or exception */
	int closed;                 /* settled early by a gap: the next insn starts afresh */
	int need_addr, need_ctx, need_trace_on;
	int exc_pending;            /* trawl_ete_encoder_exception before the next insn */
	uint32_t exc_type;
	uint64_t exc_ret;
	/* --speculate (encode-spec.c) */
	uint32_t spec;              /* P0 elements not yet committed */
	uint32_t spec_run;          /* P0 elements since the last Commit */
	uint32_t spec_depth;        /* commit when spec_run reaches it */
	uint64_t spec_seed;
};

/* encode-pkt.c */
size_t enc_cont_field(uint8_t *out, uint64_t v); /* bytes written (at most 10) */
void enc_put(struct trawl_ete_encoder *e, const uint8_t *b, size_t n);
void enc_flush_out(struct trawl_ete_encoder *e);
void enc_atom(struct trawl_ete_encoder *e, int taken, uint64_t cycles);
void enc_atom_raw(struct trawl_ete_encoder *e, int taken);
void enc_atoms_flush(struct trawl_ete_encoder *e);
void enc_sync(struct trawl_ete_encoder *e, uint64_t time);
void enc_trace_on(struct trawl_ete_encoder *e, uint64_t time);
void enc_timestamp(struct trawl_ete_encoder *e, uint64_t time);
/* Address (with context when ctx is set) of the next instruction */
void enc_address(struct trawl_ete_encoder *e, uint64_t addr, uint8_t is,
		 const struct trawl_ete_enc_insn *ctx);
void enc_exception(struct trawl_ete_encoder *e, uint32_t type, uint64_t ret, uint8_t is);

/* encode-spec.c */
int enc_spec_atom(struct trawl_ete_encoder *e, int taken, int *mispredict);
void enc_spec_mispredict(struct trawl_ete_encoder *e);
void enc_spec_p0(struct trawl_ete_encoder *e);
void enc_spec_commit(struct trawl_ete_encoder *e);

#endif
