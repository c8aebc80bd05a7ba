/* The ETE output of `trawl ete encode` and `trawl emulate --ete`: the
 * encoder, the TRBE model behind it and the snapshot written at the end,
 * with the options both commands take (one table, ETE_OUT_OPTIONS). */
#ifndef TRAWL_ETE_OUT_H
#define TRAWL_ETE_OUT_H

#include "options.h"
#include "trawl/ete-encode.h"
#include "trawl/image.h"

struct ete_out_opts {
	uint64_t sync_period;
	int timestamps, cycle_counts;
	uint64_t trbe_size, trbe_base, trigger_at, trg;
	int have_trbe_size, have_trigger;
	int mode, trig;             /* indices into the choice names */
	int external, nvm;
	uint64_t speculate;
	int no_commopt;
};

extern const char *const ete_out_modes[];
extern const char *const ete_out_trigs[];

#define ETE_OUT_OPTIONS(o)                                                                \
	CLI_U64("sync-period", "N", &(o)->sync_period, 1u << 30, NULL,                      \
		"A-Sync + Trace Info every N bytes (default 4096)"),                         \
	CLI_FLAG("timestamps", 0, &(o)->timestamps,                                          \
		 "Timestamp packets (the trace's time) at each sync point\n"                 \
		 "and trace on"),                                                            \
	CLI_FLAG("cycle-counts", 0, &(o)->cycle_counts,                                      \
		 "a cycle count after each atom packet"),                                    \
	CLI_U64("speculate", "N", &(o)->speculate, 1024, NULL,                               \
		"TRCIDR8.MaxSpec N: add speculation (commits, cancels,\n"                  \
		"mispredicts) up to N elements deep"),                                      \
	CLI_FLAG("no-commit-option", 0, &(o)->no_commopt,                                    \
		 "TRCIDR0.COMMOPT 0: cycle counts carry a commit section"),                  \
	CLI_U64("trbe-size", "N", &(o)->trbe_size, 1ull << 32, &(o)->have_trbe_size,         \
		"write through a TRBE buffer of N bytes (a multiple of\n"                   \
		"4096; default: no TRBE, the whole stream)"),                               \
	CLI_CHOICE("trbe-mode", "MODE", &(o)->mode, ete_out_modes,                           \
		   "fill (default: stop when full), wrap (wrap, interrupt),\n"             \
		   "circular (wrap, no interrupt)"),                                        \
	CLI_U64("trbe-base", "ADDR", &(o)->trbe_base, 0, NULL,                               \
		"TRBBASER_EL1 (4 KiB aligned; default 0x80000000)"),                        \
	CLI_U64("trbe-trigger-at", "N", &(o)->trigger_at, 0, &(o)->have_trigger,             \
		"the trigger event comes after N bytes of trace"),                          \
	CLI_U64("trbe-trg", "N", &(o)->trg, 0xffffffffu, NULL,                               \
		"TRBTRG_EL1: bytes still written after the trigger"),                       \
	CLI_CHOICE("trbe-trigger-mode", "MODE", &(o)->trig, ete_out_trigs,                   \
		   "stop (default), irq (interrupt, go on), ignore"),                       \
	CLI_FLAG("trbe-external", 0, &(o)->external,                                         \
		 "external mode (TRBLIMITR_EL1.XE): recorded in the snapshot"),              \
	CLI_FLAG("trbe-nvm", 0, &(o)->nvm,                                                   \
		 "TRBLIMITR_EL1.nVM: buffer addresses are physical")

struct ete_out;

/* A usage error (printed, exit code returned) for options that would
 * change nothing; have_ete: the command writes ETE at all. Else 0. */
int ete_out_check(const char *cmd, const struct ete_out_opts *o, int have_ete);

/* Make the encoder (and TRBE) for o; prints why and returns an exit code
 * on failure, else 0. */
int ete_out_open(const char *cmd, const struct ete_out_opts *o, struct ete_out **out);
struct trawl_ete_encoder *ete_out_encoder(struct ete_out *eo);
/* An instruction that ran: when the image does not hold it, its bytes go
 * into the snapshot as a memory dump of their own (code the trace shows
 * but no ELF file has, such as a signal trampoline). */
void ete_out_code(struct ete_out *eo, const struct trawl_image *img, uint64_t pc, uint32_t enc,
		  unsigned size);
/* trawl_emu_options.insn_fn of `trawl emulate --ete`: ctx is a struct
 * ete_emu; each A64 instruction at EL0 (non-secure), its index as time
 * and cycle count, as the emulator's Tarmac gives them. */
struct ete_emu {
	struct ete_out *eo;
	const struct trawl_image *img;
	const char *dir;            /* the snapshot to write */
	int failed;
	struct trawl_error err;
};
void ete_out_emu_insn(void *ctx, uint64_t pc, uint32_t enc, uint64_t index);
/* Finish the encoder and write the snapshot DIR with the image's segments
 * as memory dumps; prints a summary line to stderr when verbose. Returns 0
 * or an exit code (after saying why); marks the run lossy when the TRBE
 * stopped before the end. Frees eo. */
int ete_out_close(const char *cmd, struct ete_out *eo, const char *dir,
		  const struct trawl_image *img, int verbose);
/* Free without writing (error paths). */
void ete_out_abandon(struct ete_out *eo);

#endif
