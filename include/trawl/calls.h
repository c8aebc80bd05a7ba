/* Call structure: which function called which, found from the event stream.
 *
 * A call detector consumes event batches (any source: Tarmac, emulator, ETE
 * decode) and builds the call tree of every CPU: one node per activation,
 * with its first and last line, time, PC and instruction counts. The tree
 * is the only thing that grows with the trace; everything else is a few
 * words of state per CPU, so a trace of any length is analysed in one pass.
 *
 * How a decision is made (docs/calls.md has the whole story):
 *  - a call is a branch-with-link (BL, BLR, BLX in A64, A32 and Thumb,
 *    decoded from the encoding), or any transfer of control after the link
 *    register was written since the previous one (MOV lr,pc; BX r1 and
 *    LDR x30,=ret; B f), which stays tentative until it returns;
 *  - a return is control arriving at the return address of a frame on the
 *    stack with the stack pointer back where it was at the call, whatever
 *    instruction did it (RET, BX lr, POP {..,pc}, LDR pc, MOV pc,lr...);
 *    frames above the one returned to never returned themselves and are
 *    folded into their caller (a BL used to read the PC is not a call);
 *  - a tail call is a plain branch to a function's entry (an ELF function
 *    symbol, or an indirect branch to below the current entry) once the
 *    frame is torn down (SP and LR back to their values at the call): it
 *    becomes a frame that returns together with its caller;
 *  - exceptions are frames of their own, ended by exception returns (ERET,
 *    SUBS pc,lr, LDM ..^, RFE, or the reader's exception-return event); a
 *    reset ends every frame of that CPU;
 *  - when the stack pointer rises above a frame's stack pointer at the call,
 *    that frame is gone (longjmp, unwinding): it is ended as unwound;
 *  - a return past the first frame means the trace began inside a function:
 *    the tree grows a new root above it.
 */
#ifndef TRAWL_CALLS_H
#define TRAWL_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trawl/event.h"
#include "trawl/image.h"
#include "trawl/status.h"

/* ---- branch decoding ------------------------------------------------- */

enum trawl_branch_kind {
	TRAWL_BR_NONE = 0,      /* not a branch we know of */
	TRAWL_BR_BRANCH,        /* plain branch (B, B.cond, CBZ, BR, BX rN, TBB, ...) */
	TRAWL_BR_CALL,          /* branch with link: BL, BLR, BLX (imm or reg) */
	TRAWL_BR_RETURN,        /* RET, BX lr, MOV pc,lr, POP {..,pc}, LDR pc,[sp].. */
	TRAWL_BR_EXC_RETURN,    /* ERET, SUBS pc,lr,#n, MOVS pc,lr, LDM ..,{..,pc}^, RFE */
	TRAWL_BR_EXC_CALL,      /* SVC, HVC, SMC */
};

struct trawl_branch {
	uint8_t kind;           /* enum trawl_branch_kind */
	uint8_t indirect;       /* target comes from a register or memory */
	uint8_t reg;            /* register number holding the target (BR/BLR/BX), else 0xff */
	uint8_t conditional;    /* may fall through (B.cond, CBZ, TBZ, A32 cond != AL, ...) */
	uint64_t target;        /* direct branches: the target address, else 0 */
};

/* Classify one instruction from its encoding. width is 2 or 4 (Thumb),
 * encodings of 32-bit Thumb instructions have the first halfword in the top
 * 16 bits (as Tarmac prints them). Returns the kind (also stored in out). */
enum trawl_branch_kind trawl_branch_decode(uint32_t encoding, unsigned width,
					   enum trawl_iset iset, uint64_t pc,
					   struct trawl_branch *out);

const char *trawl_branch_kind_name(enum trawl_branch_kind k);

/* ---- the call tree --------------------------------------------------- */

#define TRAWL_CALL_NONE UINT32_MAX

enum trawl_frame_kind {
	TRAWL_FRAME_ROOT = 0,   /* what was running when the trace (or a reset) began */
	TRAWL_FRAME_CALL,
	TRAWL_FRAME_TAIL,       /* entered by a tail call; returns with its caller */
	TRAWL_FRAME_EXCEPTION,
};

#define TRAWL_FRAMEF_RETURNED   0x01u /* ended by a return seen in the trace */
#define TRAWL_FRAMEF_UNFINISHED 0x02u /* still running when the trace ended */
#define TRAWL_FRAMEF_UNWOUND    0x04u /* ended by the stack pointer rising above it, or a reset */
#define TRAWL_FRAMEF_BEFORE     0x08u /* called before the trace began (found by its return) */
#define TRAWL_FRAMEF_LINKLESS   0x10u /* call found by an LR write + branch, not a BL */
#define TRAWL_FRAMEF_DEAD       0x80u /* folded into its caller: not part of the tree */

/* One activation. Children are in call order; walk them with first_child
 * and next. Lines and times are those of the first and last instruction
 * executed in the activation (children included); end_time is the time of
 * the instruction control returned to (last_time when there was none). */
struct trawl_call {
	uint32_t parent, first_child, last_child, next, prev;
	uint16_t cpu;
	uint8_t kind;           /* enum trawl_frame_kind */
	uint8_t flags;          /* TRAWL_FRAMEF_* */
	uint64_t call_pc;       /* the calling instruction (0 for roots and exceptions before any insn) */
	uint64_t call_line;     /* its first line, 0 if none */
	uint64_t entry_pc;      /* first instruction of the activation */
	uint64_t last_pc;       /* last instruction of the activation (children excluded) */
	uint64_t ret_addr;      /* where it was expected to return (0 unknown) */
	uint64_t sp;            /* stack pointer just after the call (UINT64_MAX unknown) */
	uint64_t first_line, last_line;
	uint64_t first_time, last_time, end_time;
	uint64_t first_insn;    /* index of its first instruction among the CPU's instructions */
	uint64_t insns;         /* instructions executed, callees included */
	uint64_t self;          /* instructions executed in this activation itself */
	uint32_t name;          /* exceptions: offset of the exception's name in the name pool, else 0 */
	uint32_t pad_;
};

struct trawl_calls;

/* Called once per decision with a sentence explaining it (--debug=calls).
 * ev is the event that triggered the decision. */
typedef void (*trawl_calls_debug_fn)(void *ctx, const struct trawl_event *ev, const char *msg);

struct trawl_calls_options {
	const struct trawl_image *image;   /* borrowed, may be NULL: names, tail calls */
	trawl_calls_debug_fn debug;        /* may be NULL */
	void *debug_ctx;
	uint32_t max_nodes;                /* 0 = no limit beyond 2^32-2 */
};

struct trawl_calls_stats {
	uint64_t insns;                    /* instructions seen */
	uint64_t calls, linkless_calls, tail_calls, exceptions;
	uint64_t returns, exc_returns, folded, unwound, reroots;
	uint64_t time_backwards;           /* timestamps that went backwards */
};

enum trawl_status trawl_calls_create(struct trawl_calls **out, const struct trawl_calls_options *opt,
				     struct trawl_error *err);
/* Feed the next batch of events, in trace order. */
enum trawl_status trawl_calls_add(struct trawl_calls *c, const struct trawl_event_batch *b,
				  struct trawl_error *err);
/* The trace ended: close every open frame (flagged unfinished). */
void trawl_calls_finish(struct trawl_calls *c);
void trawl_calls_destroy(struct trawl_calls *c);

/* Every node (dead ones included: skip TRAWL_FRAMEF_DEAD). Borrowed until
 * the next trawl_calls_add or destroy. */
const struct trawl_call *trawl_calls_nodes(const struct trawl_calls *c, size_t *count);
/* Number of CPUs seen (highest CPU number + 1), and the first root of one
 * (TRAWL_CALL_NONE when that CPU ran nothing); further roots via next. */
unsigned trawl_calls_cpus(const struct trawl_calls *c);
uint32_t trawl_calls_first_root(const struct trawl_calls *c, unsigned cpu);
const struct trawl_calls_stats *trawl_calls_stats(const struct trawl_calls *c);
/* Time unit of the trace's timestamps (from the first instruction seen). */
enum trawl_time_unit trawl_calls_time_unit(const struct trawl_calls *c);

/* Visit one CPU's call forest depth first: enter(node, depth) before a
 * node's callees, leave(node, depth) after them (either may be NULL). A
 * non-zero return from a callback stops the walk and is returned. Uses no
 * recursion, so any depth is fine. */
typedef int (*trawl_calls_visit_fn)(void *ctx, uint32_t id, const struct trawl_call *n,
				    unsigned depth);
int trawl_calls_walk(const struct trawl_calls *c, unsigned cpu, trawl_calls_visit_fn enter,
		     trawl_calls_visit_fn leave, void *ctx);

/* Duration of an activation in trace time units: end_time - first_time
 * (0 when the timestamps went backwards). */
static inline uint64_t trawl_call_duration(const struct trawl_call *n)
{
	return n->end_time >= n->first_time ? n->end_time - n->first_time : 0;
}

/* The name of a node's function: the symbol at its entry (exact or
 * "symbol+0xoff"), the exception's name in brackets, or the entry address
 * in hex. Returns buf. */
const char *trawl_calls_name(const struct trawl_calls *c, const struct trawl_call *n,
			     char *buf, size_t size);

/* Symbol naming used by every call analysis: exact symbol at addr (any kind
 * of code label, not only sized functions), else the nearest preceding
 * code label as "label+0xoff", else hex. */
const char *trawl_calls_describe(const struct trawl_calls *c, uint64_t addr, char *buf,
				 size_t size);

/* ---- profiles (per function) ----------------------------------------- */

struct trawl_profile_entry {
	const char *name;       /* owned by the profile */
	uint64_t addr;          /* entry address (of the first activation seen) */
	uint64_t calls;
	uint64_t incl_insns;    /* recursion counted once: outermost activation only */
	uint64_t self_insns;
	uint64_t incl_time, self_time;
	uint64_t max_depth;     /* deepest recursion (1 = never recursive) */
};

struct trawl_profile {
	struct trawl_profile_entry *entries;
	size_t count;
	uint64_t total_insns;
	/* private */
	char *names;
	size_t names_len, names_cap;
};

enum trawl_profile_sort {
	TRAWL_PROFILE_BY_INCL = 0,
	TRAWL_PROFILE_BY_SELF,
	TRAWL_PROFILE_BY_CALLS,
	TRAWL_PROFILE_BY_NAME,
	TRAWL_PROFILE_BY_ADDR,
};

/* Build the per-function profile of a finished call tree. */
enum trawl_status trawl_profile_build(struct trawl_profile *p, const struct trawl_calls *c,
				      struct trawl_error *err);
void trawl_profile_sort(struct trawl_profile *p, enum trawl_profile_sort by);
void trawl_profile_release(struct trawl_profile *p);

/* ---- calling-context tree (flame graphs) ------------------------------ */

struct trawl_cct_node {
	uint32_t parent, first_child, next;
	uint32_t name;          /* offset in the CCT's name pool */
	uint64_t self;          /* instructions with exactly this stack */
	uint64_t total;         /* self + descendants */
};

struct trawl_cct {
	struct trawl_cct_node *nodes; /* nodes[0] is the synthetic root ("all") */
	size_t count, cap;
	char *names;
	size_t names_len, names_cap;
};

/* Merge every activation with the same stack of function names (one root
 * per CPU named "cpuN" when there are several CPUs). */
enum trawl_status trawl_cct_build(struct trawl_cct *t, const struct trawl_calls *c,
				  struct trawl_error *err);
void trawl_cct_release(struct trawl_cct *t);
static inline const char *trawl_cct_name(const struct trawl_cct *t, const struct trawl_cct_node *n)
{
	return t->names + n->name;
}

/* ---- writers (output goes to a FILE the caller owns) ------------------ */

/* Folded stacks, one line per distinct stack: "a;b;c count" (instructions
 * executed with exactly that stack), as flamegraph.pl and speedscope read. */
enum trawl_status trawl_cct_write_folded(const struct trawl_cct *t, FILE *f,
					 struct trawl_error *err);

/* A self-contained interactive SVG flame graph (click a frame to zoom,
 * hover for counts). */
enum trawl_status trawl_cct_write_svg(const struct trawl_cct *t, FILE *f, const char *title,
				      struct trawl_error *err);

/* Chrome Trace Event JSON (opens in ui.perfetto.dev): one complete ("X")
 * slice per activation, one track per CPU, properly nested. Time is the
 * instruction count (1 instruction = 1 us) unless use_timestamps, when it is
 * the trace's own time converted to microseconds (tick units count as 1 us;
 * children are clamped inside their parents if the timestamps go backwards). */
struct trawl_perfetto_options {
	int use_timestamps;
	const char *process_name;   /* NULL = "trace" */
};
enum trawl_status trawl_calls_write_perfetto(const struct trawl_calls *c, FILE *f,
					     const struct trawl_perfetto_options *opt,
					     struct trawl_error *err);

#endif
