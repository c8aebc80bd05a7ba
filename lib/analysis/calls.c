/* Call detection over the event stream, building the call tree.
 *
 * Per CPU we keep a stack of open activations plus the few registers the
 * heuristics need (SP and the link register), and the previous instruction:
 * every decision is taken when the next instruction shows where control
 * went. The rules are listed in include/trawl/calls.h and docs/calls.md;
 * the functions below are in the order they apply them.
 */
#include "trawl/calls.h"
#include "trawl/fmt.h"

#include "analysis-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_SP UINT64_MAX
#define NO_TIME UINT64_MAX /* pop: the trace ended, no event ended the frame */
#define RETURN_SEARCH 256 /* frames searched for a return address */

struct cpu_state {
	uint32_t *stack;
	size_t depth, cap;
	uint32_t first_root, last_root;
	uint64_t sp, x14, x30;
	uint8_t sp_known, x14_known, x30_known;
	uint8_t lr_written;     /* LR written since the last transfer of control */
	uint8_t have_prev;
	uint8_t prev_iset;
	uint8_t prev_width;
	/* the previous instruction's encoding, classified only when control
	 * does not simply go on to the next instruction (prev_branch) */
	uint8_t prev_decodable; /* it had an encoding and passed its condition */
	uint8_t prev_enc_width; /* insn.width as the trace gave it (0 unknown) */
	uint32_t prev_enc;
	uint64_t prev_pc, prev_line;
	uint64_t insns;
	/* time of this CPU's last instruction and how long the one before it
	 * took: the estimate of the last one's own length at the trace end */
	uint64_t insn_time, step;
	uint8_t have_time;
	uint8_t exc_pending;    /* an exception frame awaits its first instruction */
	uint64_t exc_next;      /* where execution would have gone without it */
};

struct label {
	uint64_t addr;
	const char *name;
	uint8_t func;           /* an ELF function symbol (not a bare label) */
	uint64_t size;
};

struct trawl_calls {
	struct trawl_calls_options opt;
	struct trawl_call *nodes;
	size_t count, cap;
	struct cpu_state *cpus;
	unsigned ncpus;
	char *names;
	size_t names_len, names_cap;
	struct label *labels;
	size_t nlabels;
	struct trawl_calls_stats stats;
	enum trawl_time_unit unit;
	int unit_set;
	int has_code;           /* the image has loaded segments */
	int failed;             /* out of memory or limit: status in fail_status */
	enum trawl_status fail_status;
	uint64_t last_time;
};

/* ---- small helpers --------------------------------------------------- */

static void dbg(struct trawl_calls *c, const struct trawl_event *ev, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void dbg(struct trawl_calls *c, const struct trawl_event *ev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->opt.debug(c->opt.debug_ctx, ev, msg);
}

#define DBG(c, ev, ...)                                 \
	do {                                            \
		if ((c)->opt.debug)                     \
			dbg((c), (ev), __VA_ARGS__);    \
	} while (0)

static uint32_t intern(struct trawl_calls *c, const char *s, size_t len)
{
	if (c->names_len + len + 1 > c->names_cap) {
		size_t cap = c->names_cap ? c->names_cap * 2 : 256;
		while (cap < c->names_len + len + 1)
			cap *= 2;
		char *p = realloc(c->names, cap);
		if (!p)
			return 0;
		c->names = p;
		c->names_cap = cap;
	}
	if (c->names_len == 0) /* offset 0 means "no name" */
		c->names[c->names_len++] = 0;
	if (c->names_len + len + 1 > c->names_cap)
		return 0;
	uint32_t off = (uint32_t)c->names_len;
	memcpy(c->names + off, s, len);
	c->names[off + len] = 0;
	c->names_len += len + 1;
	return off;
}

static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address prefer function symbols, then the first name */
	if (x->func != y->func)
		return x->func ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Code labels: every symbol that is not a data object. Trace tools meet
 * hand-written assembly whose functions are bare labels (STT_NOTYPE), so
 * those name frames too. */
static int load_labels(struct trawl_calls *c)
{
	if (!c->opt.image)
		return 1;
	size_t n;
	const struct trawl_symbol *s = trawl_image_symbols(c->opt.image, &n);
	c->labels = calloc(n ? n : 1, sizeof *c->labels);
	if (!c->labels)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].type == TRAWL_SYM_OBJECT || !s[i].name[0])
			continue;
		struct label *l = &c->labels[c->nlabels++];
		l->addr = s[i].addr;
		l->name = s[i].name;
		l->func = s[i].type == TRAWL_SYM_FUNC;
		l->size = s[i].size;
	}
	qsort(c->labels, c->nlabels, sizeof *c->labels, cmp_label);
	return 1;
}

/* Last label at or below addr, or NULL. */
static const struct label *label_at(const struct trawl_calls *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nlabels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->labels[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct label *l = &c->labels[lo - 1];
	while (l > c->labels && l[-1].addr == l->addr) /* first (preferred) of equals */
		l--;
	return l;
}

/* "name+0xOFF" into buf: by hand when it fits (a call tree prints one per
 * activation, and snprintf was the larger part of printing one), else
 * snprintf's truncation. */
static const char *sym_plus(char *buf, size_t size, const char *name, uint64_t off)
{
	size_t n = strlen(name);
	if (n + 3 + 16 + 1 > size) {
		snprintf(buf, size, "%s+0x%llx", name, (unsigned long long)off);
		return buf;
	}
	memcpy(buf, name, n);
	char *p = buf + n;
	*p++ = '+';
	*p++ = '0';
	*p++ = 'x';
	p = trawl_fmt_hex(p, off);
	*p = 0;
	return buf;
}

const char *trawl_calls_describe(const struct trawl_calls *c, uint64_t addr, char *buf,
				 size_t size)
{
	const struct label *l = label_at(c, addr);
	if (l && l->addr == addr) {
		size_t n = strlen(l->name);
		if (n >= size)
			n = size ? size - 1 : 0;
		if (size) {
			memcpy(buf, l->name, n);
			buf[n] = 0;
		}
		return buf;
	}
	const struct trawl_symbol *s = c->opt.image ? trawl_image_symbol_at(c->opt.image, addr) : NULL;
	if (s && s->type != TRAWL_SYM_OBJECT) {
		if (!l || l->addr < s->addr)
			return sym_plus(buf, size, s->name, addr - s->addr);
		return sym_plus(buf, size, l->name, addr - l->addr);
	}
	/* a bare label names the code after it within its segment: an
	 * address in none of the image's segments is code of something else
	 * (a wrong --image named a whole trace after one label) */
	if (l && addr - l->addr < 0x10000 && (!l->size || addr < l->addr + l->size) &&
	    trawl_image_same_segment(c->opt.image, l->addr, addr))
		return sym_plus(buf, size, l->name, addr - l->addr);
	snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	return buf;
}

const char *trawl_calls_name(const struct trawl_calls *c, const struct trawl_call *n,
			     char *buf, size_t size)
{
	if (n->kind == TRAWL_FRAME_EXCEPTION) {
		snprintf(buf, size, "[%s]", n->name ? c->names + n->name : "exception");
		return buf;
	}
	return trawl_calls_describe(c, n->entry_pc, buf, size);
}

static void fail(struct trawl_calls *c, enum trawl_status st)
{
	if (!c->failed) {
		c->failed = 1;
		c->fail_status = st;
	}
}

static struct cpu_state *cpu_get(struct trawl_calls *c, unsigned cpu)
{
	if (cpu >= c->ncpus) {
		unsigned n = cpu + 1;
		struct cpu_state *p = realloc(c->cpus, n * sizeof *p);
		if (!p) {
			fail(c, TRAWL_ERR_NOMEM);
			return NULL;
		}
		memset(p + c->ncpus, 0, (n - c->ncpus) * sizeof *p);
		for (unsigned i = c->ncpus; i < n; i++)
			p[i].first_root = p[i].last_root = TRAWL_CALL_NONE;
		c->cpus = p;
		c->ncpus = n;
	}
	return &c->cpus[cpu];
}

/* ---- tree surgery ---------------------------------------------------- */

/* Both arrays that can grow are grown before the tree is touched, so a
 * failure (out of memory, or the node limit) leaves the tree as it was and
 * only sets the sticky failure. Nodes are linked by index, not by pointer,
 * because the node array moves when it grows. */
static uint32_t node_new(struct trawl_calls *c, struct cpu_state *st, unsigned cpu, uint8_t kind)
{
	size_t limit = c->opt.max_nodes ? c->opt.max_nodes : (size_t)UINT32_MAX - 1;
	if (c->count >= limit) {
		fail(c, TRAWL_ERR_LIMIT);
		return TRAWL_CALL_NONE;
	}
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct trawl_call *p = realloc(c->nodes, cap * sizeof *p);
		if (!p) {
			fail(c, TRAWL_ERR_NOMEM);
			return TRAWL_CALL_NONE;
		}
		c->nodes = p;
		c->cap = cap;
	}
	if (st->depth == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		uint32_t *p = realloc(st->stack, cap * sizeof *p);
		if (!p) {
			fail(c, TRAWL_ERR_NOMEM);
			return TRAWL_CALL_NONE;
		}
		st->stack = p;
		st->cap = cap;
	}
	uint32_t id = (uint32_t)c->count++;
	struct trawl_call *n = &c->nodes[id];
	memset(n, 0, sizeof *n);
	n->parent = n->first_child = n->last_child = n->next = n->prev = TRAWL_CALL_NONE;
	n->cpu = (uint16_t)cpu;
	n->kind = kind;
	n->sp = NO_SP;
	if (st->depth) {
		uint32_t pid = st->stack[st->depth - 1];
		struct trawl_call *p = &c->nodes[pid];
		n->parent = pid;
		n->prev = p->last_child;
		if (p->last_child != TRAWL_CALL_NONE)
			c->nodes[p->last_child].next = id;
		else
			p->first_child = id;
		p->last_child = id;
	} else {
		n->prev = st->last_root;
		if (st->last_root != TRAWL_CALL_NONE)
			c->nodes[st->last_root].next = id;
		else
			st->first_root = id;
		st->last_root = id;
	}
	st->stack[st->depth++] = id;
	return id;
}

/* The activation on top ended: hand its counts to its caller. end_time is
 * when control left it: the instruction returned to, or the event that
 * unwound it; NO_TIME when the trace ended with it open, then its last
 * instruction is taken to last as long as the CPU's step before it, so a
 * frame that never returns keeps its last instruction's tick. */
static void pop(struct trawl_calls *c, struct cpu_state *st, uint8_t flags, uint64_t end_time)
{
	uint32_t id = st->stack[--st->depth];
	struct trawl_call *n = &c->nodes[id];
	n->flags |= flags;
	if (!(flags & TRAWL_FRAMEF_RETURNED) && !n->insns)
		end_time = n->last_time; /* ran nothing: no time either */
	else if (end_time == NO_TIME)
		end_time = n->last_time + st->step;
	n->end_time = end_time;
	if (n->parent != TRAWL_CALL_NONE) {
		struct trawl_call *p = &c->nodes[n->parent];
		p->insns += n->insns;
		if (n->insns) {
			p->last_line = n->last_line;
			p->last_time = n->last_time;
		}
	}
}

/* The activation on top never returned although its caller did: it was not
 * a call (a BL that reads the PC, a computed jump through LR). Its
 * instructions and callees become its caller's. */
static void fold(struct trawl_calls *c, struct cpu_state *st)
{
	uint32_t id = st->stack[--st->depth];
	struct trawl_call *n = &c->nodes[id];
	struct trawl_call *p = &c->nodes[n->parent];
	p->self += n->self;
	p->insns += n->insns;
	if (n->insns) {
		p->last_line = n->last_line;
		p->last_time = n->last_time;
		p->last_pc = n->last_pc;
	}
	/* n is p's last child: replace it by n's children */
	uint32_t prev = n->prev;
	if (n->first_child != TRAWL_CALL_NONE) {
		for (uint32_t k = n->first_child; k != TRAWL_CALL_NONE; k = c->nodes[k].next)
			c->nodes[k].parent = n->parent;
		c->nodes[n->first_child].prev = prev;
		if (prev != TRAWL_CALL_NONE)
			c->nodes[prev].next = n->first_child;
		else
			p->first_child = n->first_child;
		p->last_child = n->last_child;
	} else {
		if (prev != TRAWL_CALL_NONE)
			c->nodes[prev].next = TRAWL_CALL_NONE;
		else
			p->first_child = TRAWL_CALL_NONE;
		p->last_child = prev;
	}
	n->flags |= TRAWL_FRAMEF_DEAD;
	n->parent = n->first_child = n->last_child = n->next = n->prev = TRAWL_CALL_NONE;
	c->stats.folded++;
}

/* ---- registers ------------------------------------------------------- */

/* mark: 3 when the writes come from an instruction (they count as "LR
 * written before a branch"), 0 for register dumps outside instructions. */
static void track_regs(struct cpu_state *st, const struct trawl_event *ev,
		       const struct trawl_event_batch *b, unsigned mark)
{
	for (uint32_t i = 0; i < ev->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[ev->first_reg + i];
		switch (w->reg) {
		case TRAWL_REG_SP:
			trawl_regval_apply(&st->sp, &st->sp_known, w, b->pool);
			break;
		case TRAWL_REG_X0 + 14:
			trawl_regval_apply(&st->x14, &st->x14_known, w, b->pool);
			st->lr_written |= mark & 1;
			break;
		case TRAWL_REG_X0 + 30:
			trawl_regval_apply(&st->x30, &st->x30_known, w, b->pool);
			st->lr_written |= mark & 2;
			break;
		default:
			break;
		}
	}
}

/* ---- the previous instruction's branch class -------------------------- */

/* Its class as trawl_branch_decode gives it; a condition-failed instruction
 * or one without an encoding is no branch. */
static void prev_branch(const struct cpu_state *st, struct trawl_branch *br)
{
	if (!st->prev_decodable) {
		memset(br, 0, sizeof *br);
		return;
	}
	trawl_branch_decode(st->prev_enc, st->prev_enc_width, (enum trawl_iset)st->prev_iset,
			    st->prev_pc, br);
}

/* An instruction after which even the next one in memory is a transfer
 * of control: a call (BL to the next address still links) or an exception
 * return. Most A64 encodings are ruled out by the decoder's own first test
 * without decoding. */
static int forces_transfer(uint32_t enc, unsigned width, uint8_t iset, uint64_t pc,
			   int decodable)
{
	if (!decodable || (iset == TRAWL_ISET_A64 && trawl_branch_a64_plain(enc)))
		return 0;
	struct trawl_branch br;
	enum trawl_branch_kind k = trawl_branch_decode(enc, width, (enum trawl_iset)iset, pc, &br);
	return k == TRAWL_BR_CALL || k == TRAWL_BR_EXC_RETURN;
}

static int decodable(const struct trawl_event *ev)
{
	return (ev->flags & (TRAWL_EVF_CCFAIL | TRAWL_EVF_HAS_ENCODING)) == TRAWL_EVF_HAS_ENCODING;
}

static uint8_t insn_width(const struct trawl_event_insn *in)
{
	return in->width ? in->width : (in->iset == TRAWL_ISET_T32 ? 2 : 4);
}

/* ---- decisions ------------------------------------------------------- */

static uint64_t addr_mask(uint8_t iset)
{
	return iset == TRAWL_ISET_A64 ? ~0ull : ~1ull;
}

static int lr_now(const struct cpu_state *st, uint8_t iset, uint64_t *lr)
{
	if (iset == TRAWL_ISET_A64) {
		*lr = st->x30;
		return st->x30_known && (st->lr_written & 2);
	}
	*lr = st->x14 & 0xFFFFFFFFu;
	return st->x14_known && (st->lr_written & 1);
}

static int lr_value(const struct cpu_state *st, uint8_t iset, uint64_t *lr)
{
	if (iset == TRAWL_ISET_A64) {
		*lr = st->x30;
		return st->x30_known;
	}
	*lr = st->x14 & 0xFFFFFFFFu;
	return st->x14_known;
}

/* Deepest frame (searching down from the top, not past an exception
 * frame) that expects control back at pc with the current stack pointer;
 * 0 when none. */
static size_t find_return(const struct trawl_calls *c, const struct cpu_state *st, uint64_t pc)
{
	size_t stop = st->depth > RETURN_SEARCH ? st->depth - RETURN_SEARCH : 1;
	for (size_t i = st->depth; i-- > stop;) {
		const struct trawl_call *n = &c->nodes[st->stack[i]];
		if (n->kind == TRAWL_FRAME_EXCEPTION || n->kind == TRAWL_FRAME_ROOT)
			return 0;
		if (n->ret_addr == pc &&
		    (n->sp == NO_SP || !st->sp_known || n->sp == st->sp))
			return i;
	}
	return 0;
}

static void return_to(struct trawl_calls *c, struct cpu_state *st, size_t k,
		      const struct trawl_event *ev, const char *why)
{
	while (st->depth > k + 1) {
		DBG(c, ev, "fold: frame entered at 0x%llx never returned; its caller did",
		    (unsigned long long)c->nodes[st->stack[st->depth - 1]].entry_pc);
		fold(c, st);
	}
	for (;;) {
		struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
		int tail = n->kind == TRAWL_FRAME_TAIL;
		DBG(c, ev, "return to 0x%llx (%s) from frame entered at 0x%llx, depth %zu",
		    (unsigned long long)n->ret_addr, why, (unsigned long long)n->entry_pc,
		    st->depth - 1);
		pop(c, st, TRAWL_FRAMEF_RETURNED, ev->time);
		c->stats.returns++;
		if (!tail || st->depth < 2)
			break;
	}
}

/* Frames whose stack pointer at the call is below the current one have
 * been unwound (longjmp, exception unwinding, a thread switch). */
static void resync_sp(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev)
{
	if (!st->sp_known)
		return;
	while (st->depth > 1) {
		struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
		if ((n->kind != TRAWL_FRAME_CALL && n->kind != TRAWL_FRAME_TAIL) || n->sp == NO_SP ||
		    st->sp <= n->sp)
			return;
		DBG(c, ev, "unwound: sp 0x%llx is above 0x%llx, the sp at the call to 0x%llx",
		    (unsigned long long)st->sp, (unsigned long long)n->sp,
		    (unsigned long long)n->entry_pc);
		pop(c, st, TRAWL_FRAMEF_UNWOUND, ev->time);
		c->stats.unwound++;
	}
}

static void push_call(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev,
		      uint8_t kind, uint8_t flags, uint64_t ret)
{
	uint64_t call_pc = st->prev_pc, call_line = st->prev_line;
	uint32_t id = node_new(c, st, ev->cpu, kind);
	if (id == TRAWL_CALL_NONE)
		return;
	struct trawl_call *n = &c->nodes[id];
	n->flags = flags;
	n->call_pc = call_pc;
	n->call_line = call_line;
	n->ret_addr = ret;
	n->sp = st->sp_known ? st->sp : NO_SP;
	if (kind == TRAWL_FRAME_TAIL) {
		const struct trawl_call *p = &c->nodes[n->parent];
		n->ret_addr = p->ret_addr;
		n->sp = p->sp;
	}
}

/* A frame (ret, sp) identical to the one on top is the same return
 * promise: the new activation replaces its caller (a tail call). */
static uint8_t tail_or_call(const struct trawl_calls *c, const struct cpu_state *st, uint64_t ret)
{
	const struct trawl_call *t = &c->nodes[st->stack[st->depth - 1]];
	if ((t->kind == TRAWL_FRAME_CALL || t->kind == TRAWL_FRAME_TAIL) && t->ret_addr == ret &&
	    (t->sp == NO_SP || !st->sp_known || t->sp == st->sp))
		return TRAWL_FRAME_TAIL;
	return TRAWL_FRAME_CALL;
}

static int is_cold_part(const char *name)
{
	return strstr(name, ".cold") != NULL;
}

/* A plain branch out of a torn-down frame to a function entry. */
static int is_tail_call(const struct trawl_calls *c, const struct cpu_state *st,
			const struct trawl_branch *br, uint64_t pc)
{
	const struct trawl_call *t = &c->nodes[st->stack[st->depth - 1]];
	if (t->kind != TRAWL_FRAME_CALL && t->kind != TRAWL_FRAME_TAIL)
		return 0;
	if (t->sp != NO_SP && st->sp_known && t->sp != st->sp)
		return 0;
	uint64_t lr;
	if (lr_value(st, st->prev_iset, &lr) && (lr & addr_mask(st->prev_iset)) != t->ret_addr)
		return 0;
	const struct label *to = label_at(c, pc);
	if (to && to->addr == pc && to->func && !is_cold_part(to->name)) {
		const struct label *from = label_at(c, st->prev_pc);
		const struct trawl_symbol *fs = trawl_image_symbol_at(c->opt.image, st->prev_pc);
		if (fs && fs->addr == to->addr)
			return 0;
		if (from && from->addr == to->addr)
			return 0;
		return 1;
	}
	if (br->indirect && pc < t->entry_pc) {
		const struct trawl_symbol *fs =
			c->opt.image ? trawl_image_symbol_at(c->opt.image, st->prev_pc) : NULL;
		if (fs && fs->size && pc >= fs->addr && pc < fs->addr + fs->size)
			return 0;
		return 1;
	}
	return 0;
}

static void exc_return(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev)
{
	size_t k = st->depth;
	while (k > 0 && c->nodes[st->stack[k - 1]].kind != TRAWL_FRAME_EXCEPTION)
		k--;
	c->stats.exc_returns++;
	if (k == 0) {
		DBG(c, ev, "exception return with no exception frame open: the trace began in a "
			   "handler; a new root starts");
		while (st->depth)
			pop(c, st, st->depth == 1 ? TRAWL_FRAMEF_RETURNED : TRAWL_FRAMEF_UNWOUND,
			    ev->time);
		return;
	}
	while (st->depth >= k) { /* the exception frame is stack[k - 1] */
		struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
		if (n->kind == TRAWL_FRAME_EXCEPTION) {
			DBG(c, ev, "exception return from %s", n->name ? c->names + n->name : "exception");
			if (n->sp != NO_SP) { /* the interrupted context's stack pointer */
				st->sp = n->sp;
				st->sp_known = 1;
			}
			pop(c, st, TRAWL_FRAMEF_RETURNED, ev->time);
		} else {
			DBG(c, ev, "unwound by exception return: frame entered at 0x%llx",
			    (unsigned long long)n->entry_pc);
			pop(c, st, TRAWL_FRAMEF_UNWOUND, ev->time);
			c->stats.unwound++;
		}
	}
}

/* A return past the outermost frame: the trace began inside a function.
 * The old root becomes a call, under a new root for its caller. */
static void reroot(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev,
		   uint64_t pc)
{
	uint32_t old = st->stack[0];
	struct trawl_call *o = &c->nodes[old];
	DBG(c, ev, "return to 0x%llx past the first frame: the trace began inside 0x%llx",
	    (unsigned long long)pc, (unsigned long long)o->entry_pc);
	pop(c, st, TRAWL_FRAMEF_RETURNED, ev->time);
	/* put the old root under a new root */
	uint32_t id = node_new(c, st, ev->cpu, TRAWL_FRAME_ROOT);
	if (id == TRAWL_CALL_NONE)
		return;
	o = &c->nodes[old];
	struct trawl_call *r = &c->nodes[id];
	/* node_new appended the new root after the old one: move the old one under it */
	r->prev = o->prev;
	if (o->prev != TRAWL_CALL_NONE)
		c->nodes[o->prev].next = id;
	else
		st->first_root = id;
	o->next = o->prev = TRAWL_CALL_NONE;
	o->parent = id;
	o->kind = TRAWL_FRAME_CALL;
	o->flags |= TRAWL_FRAMEF_BEFORE;
	o->ret_addr = pc;
	r->first_child = r->last_child = old;
	r->insns = o->insns;
	r->first_line = o->first_line;
	r->first_time = o->first_time;
	r->first_insn = o->first_insn;
	r->entry_pc = o->entry_pc; /* replaced by the first instruction seen in it */
	r->flags |= TRAWL_FRAMEF_BEFORE;
	c->stats.reroots++;
}

/* Could lr be where a call returns to? Code is aligned (A64: 4 bytes;
 * A32/Thumb: 2, with the Thumb bit allowed) and, when the program image is
 * known, inside it: x30 used as a scratch register holds data. */
static int plausible_return(const struct trawl_calls *c, const struct cpu_state *st, uint64_t lr)
{
	if (lr == 0)
		return 0;
	if (st->prev_iset == TRAWL_ISET_A64 && (lr & 3) != 0)
		return 0;
	if (c->has_code) {
		uint8_t b;
		return trawl_image_read(c->opt.image, lr & addr_mask(st->prev_iset), &b, 1) == 1;
	}
	return 1;
}

/* Control went from the previous instruction to pc: decide what it was. */
static void transfer(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev,
		     uint64_t pc)
{
	struct trawl_branch pb;
	prev_branch(st, &pb);
	const struct trawl_branch *br = &pb;
	uint64_t mask = addr_mask(st->prev_iset);
	uint64_t lr;
	int lr_fresh = lr_now(st, st->prev_iset, &lr);
	st->lr_written = 0;

	if (br->kind == TRAWL_BR_EXC_RETURN) {
		exc_return(c, st, ev);
		return;
	}
	/* a direct branch or a call never lands on a return address by
	 * returning: skip the search (it is what hot loops do) */
	int may_return = !((br->kind == TRAWL_BR_BRANCH && !br->indirect) ||
			   br->kind == TRAWL_BR_CALL);
	size_t k = may_return ? find_return(c, st, pc & mask) : 0;
	if (k) {
		return_to(c, st, k, ev, br->kind == TRAWL_BR_RETURN ? "return instruction"
				  : "return address reached");
		return;
	}
	resync_sp(c, st, ev);
	if (br->kind == TRAWL_BR_RETURN && st->depth >= 2) {
		struct trawl_call *t = &c->nodes[st->stack[st->depth - 1]];
		if ((t->kind == TRAWL_FRAME_CALL || t->kind == TRAWL_FRAME_TAIL) &&
		    t->ret_addr == (pc & mask)) {
			return_to(c, st, st->depth - 1, ev, "return instruction, sp differs");
			return;
		}
	}
	if (br->kind == TRAWL_BR_CALL) {
		/* never a tail call: the BL made a new return address (the same
		 * as the caller's only in recursion from one call site) */
		uint64_t ret = (st->prev_pc + st->prev_width) & mask;
		uint8_t kind = TRAWL_FRAME_CALL;
		DBG(c, ev, "call from 0x%llx to 0x%llx (branch with link), returns to 0x%llx",
		    (unsigned long long)st->prev_pc, (unsigned long long)pc, (unsigned long long)ret);
		push_call(c, st, ev, kind, 0, ret);
		c->stats.calls++;
		return;
	}
	if (lr_fresh && (br->kind == TRAWL_BR_BRANCH || br->kind == TRAWL_BR_NONE) &&
	    !br->conditional && (lr & mask) != (pc & mask) && plausible_return(c, st, lr)) {
		uint8_t kind = tail_or_call(c, st, lr & mask);
		DBG(c, ev, "call from 0x%llx to 0x%llx: link register set to 0x%llx before the "
			   "branch (tentative until it returns)",
		    (unsigned long long)st->prev_pc, (unsigned long long)pc,
		    (unsigned long long)(lr & mask));
		push_call(c, st, ev, kind, TRAWL_FRAMEF_LINKLESS, lr & mask);
		c->stats.linkless_calls++;
		return;
	}
	if (br->kind == TRAWL_BR_BRANCH && st->depth >= 2 && is_tail_call(c, st, br, pc)) {
		DBG(c, ev, "tail call from 0x%llx to 0x%llx: frame torn down, branch to a function "
			   "entry",
		    (unsigned long long)st->prev_pc, (unsigned long long)pc);
		push_call(c, st, ev, TRAWL_FRAME_TAIL, 0, 0);
		c->stats.tail_calls++;
		return;
	}
	if (br->kind == TRAWL_BR_RETURN && st->depth >= 1 &&
	    c->nodes[st->stack[st->depth - 1]].kind == TRAWL_FRAME_EXCEPTION) {
		/* a handler returning by itself: M-profile BX lr / POP {pc} with
		 * an EXC_RETURN value, the only exception return it has */
		DBG(c, ev, "return instruction in an exception handler's own frame: exception return");
		exc_return(c, st, ev);
		return;
	}
	if (br->kind == TRAWL_BR_RETURN && st->depth == 1 &&
	    c->nodes[st->stack[0]].kind == TRAWL_FRAME_ROOT) {
		reroot(c, st, ev, pc & mask);
		return;
	}
	if (br->kind == TRAWL_BR_RETURN)
		DBG(c, ev, "return instruction at 0x%llx to 0x%llx matches no open frame: ignored",
		    (unsigned long long)st->prev_pc, (unsigned long long)pc);
}

static void start_root(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev)
{
	DBG(c, ev, "new root frame at 0x%llx", (unsigned long long)ev->u.insn.pc);
	node_new(c, st, ev->cpu, TRAWL_FRAME_ROOT);
}

static void note_time(struct cpu_state *st, uint64_t t)
{
	if (st->have_time)
		st->step = t >= st->insn_time ? t - st->insn_time : 0;
	st->insn_time = t;
	st->have_time = 1;
}

static void set_prev(struct cpu_state *st, const struct trawl_event *ev)
{
	const struct trawl_event_insn *in = &ev->u.insn;
	st->have_prev = 1;
	st->prev_pc = in->pc;
	st->prev_iset = in->iset;
	st->prev_width = insn_width(in);
	st->prev_decodable = (uint8_t)decodable(ev);
	st->prev_enc_width = in->width;
	st->prev_enc = in->encoding;
	st->prev_line = ev->line;
}

/* The order is the point: first decide what the previous instruction did
 * (a transfer is only visible now, from where control arrived), then drop an
 * exception frame that did not change the flow, then count this instruction
 * in whatever frame is on top. Timestamps going backwards are counted, not
 * rejected: the tree's shape does not depend on them. */
static void on_insn(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev,
		    const struct trawl_event_batch *b)
{
	const struct trawl_event_insn *in = &ev->u.insn;
	if (ev->flags & TRAWL_EVF_FETCH_FAIL) {
		st->have_prev = 0;
		track_regs(st, ev, b, 3);
		return;
	}
	if (!c->unit_set) {
		c->unit = (enum trawl_time_unit)ev->time_unit;
		c->unit_set = 1;
	}
	if (ev->time < c->last_time)
		c->stats.time_backwards++;
	c->last_time = ev->time;
	if (st->depth && st->have_prev) {
		uint64_t next = st->prev_pc + st->prev_width;
		if (in->pc != next || forces_transfer(st->prev_enc, st->prev_enc_width,
						      st->prev_iset, st->prev_pc,
						      st->prev_decodable))
			transfer(c, st, ev, in->pc);
	}
	if (st->exc_pending && st->depth) {
		st->exc_pending = 0;
		struct trawl_call *x = &c->nodes[st->stack[st->depth - 1]];
		if (x->kind == TRAWL_FRAME_EXCEPTION && x->insns == 0 && st->depth > 1 &&
		    in->pc == st->exc_next) {
			DBG(c, ev, "exception event did not change the flow of control: no frame");
			fold(c, st);
			c->stats.exceptions--;
		}
	}
	if (!st->depth)
		start_root(c, st, ev);
	if (c->failed || !st->depth)
		return;
	struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
	if (n->insns == 0) {
		n->entry_pc = in->pc;
		n->first_line = ev->line;
		n->first_time = ev->time;
		n->first_insn = st->insns;
	} else if (n->self == 0) { /* a root made above a frame that began before the trace */
		n->entry_pc = in->pc;
	}
	n->self++;
	n->insns++;
	n->last_line = ev->line;
	n->last_time = ev->time;
	note_time(st, ev->time);
	n->last_pc = in->pc;
	st->insns++;
	c->stats.insns++;

	track_regs(st, ev, b, 3);
	set_prev(st, ev);
}

/* The fast path. An instruction that follows the previous one in memory
 * on the same CPU, when that one neither linked nor returned from an
 * exception, is no transfer of control: on_insn would only count it in
 * the activation on top and remember it as the previous instruction. Given
 * that on_insn's checks hold for ev (can_run), run takes ev and every next
 * event of the batch that continues the run the same way, keeps the counts
 * in locals and stores them once. */
static int can_run(const struct trawl_calls *c, const struct cpu_state *st,
		   const struct trawl_event *ev)
{
	if ((ev->flags & TRAWL_EVF_FETCH_FAIL) || !st->have_prev || !st->depth ||
	    st->exc_pending || !c->unit_set || ev->u.insn.pc != st->prev_pc + st->prev_width)
		return 0;
	const struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
	/* a fresh activation takes its entry from its first instruction */
	if (!n->insns || !n->self)
		return 0;
	return !forces_transfer(st->prev_enc, st->prev_enc_width, st->prev_iset, st->prev_pc,
				st->prev_decodable);
}

static const struct trawl_event *run(struct trawl_calls *c, struct cpu_state *st,
				     const struct trawl_event *ev, const struct trawl_event *end,
				     const struct trawl_event_batch *b)
{
	const struct trawl_event *first = ev;
	uint16_t cpu = ev->cpu;
	uint64_t last_time = c->last_time, backwards = 0;
	for (;;) {
		const struct trawl_event_insn *in = &ev->u.insn;
		if (ev->time < last_time)
			backwards++;
		last_time = ev->time;
		if (ev->nregs)
			track_regs(st, ev, b, 3);
		uint64_t next = in->pc + insn_width(in);
		ev++;
		if (ev == end || ev->kind != TRAWL_EV_INSN || ev->cpu != cpu ||
		    (ev->flags & TRAWL_EVF_FETCH_FAIL) || ev->u.insn.pc != next)
			break;
		if ((in->iset != TRAWL_ISET_A64 || !trawl_branch_a64_plain(in->encoding)) &&
		    forces_transfer(in->encoding, in->width, in->iset, in->pc, decodable(ev - 1)))
			break;
	}
	const struct trawl_event *last = ev - 1;
	uint64_t k = (uint64_t)(ev - first);
	struct trawl_call *n = &c->nodes[st->stack[st->depth - 1]];
	n->self += k;
	n->insns += k;
	n->last_line = last->line;
	n->last_time = last->time;
	n->last_pc = last->u.insn.pc;
	if (k > 1) /* the run's instructions are this CPU's, back to back */
		note_time(st, (last - 1)->time);
	note_time(st, last->time);
	st->insns += k;
	c->stats.insns += k;
	c->stats.time_backwards += backwards;
	c->last_time = last_time;
	set_prev(st, last);
	return ev;
}

static void on_exception(struct trawl_calls *c, struct cpu_state *st, const struct trawl_event *ev)
{
	const struct trawl_event_exception *x = &ev->u.exc;
	/* the reader classifies by name (trawl_exception_flags); the index
	 * keeps the flags but not the name */
	if (ev->flags & TRAWL_EVF_RESET) {
		if (st->depth)
			DBG(c, ev, "reset: every open frame ends");
		while (st->depth)
			pop(c, st, TRAWL_FRAMEF_UNWOUND, ev->time);
		st->have_prev = 0;
		st->exc_pending = 0;
		st->have_time = 0; /* no step across a reset */
		st->step = 0;
		return;
	}
	if (ev->flags & TRAWL_EVF_DEBUG_ENTRY) { /* halting debug state: not a transfer */
		DBG(c, ev, "debug event %.*s: ignored", (int)x->name.len, x->name.ptr);
		return;
	}
	uint64_t sp = st->sp_known ? st->sp : NO_SP;
	uint64_t call_pc = st->have_prev ? st->prev_pc : 0;
	st->exc_pending = st->have_prev;
	st->exc_next = st->prev_pc + st->prev_width;
	uint32_t id = node_new(c, st, ev->cpu, TRAWL_FRAME_EXCEPTION);
	if (id == TRAWL_CALL_NONE)
		return;
	struct trawl_call *n = &c->nodes[id];
	n->name = intern(c, x->name.ptr ? x->name.ptr : "exception",
			 x->name.ptr ? x->name.len : 9);
	n->call_pc = call_pc;
	n->call_line = ev->line;
	/* where it was taken, until its first instruction says where it ran
	 * (a frame the trace ends in before any has these only) */
	n->first_line = n->last_line = ev->line;
	n->first_time = n->last_time = ev->time;
	n->ret_addr = x->ret_addr;
	n->sp = sp;
	c->stats.exceptions++;
	DBG(c, ev, "exception %.*s taken: new frame at depth %zu", (int)x->name.len,
	    x->name.ptr ? x->name.ptr : "", st->depth - 1);
	st->have_prev = 0;
}

/* ---- public API ------------------------------------------------------ */

enum trawl_status trawl_calls_create(struct trawl_calls **out, const struct trawl_calls_options *opt,
				     struct trawl_error *err)
{
	struct trawl_calls *c = calloc(1, sizeof *c);
	if (!c)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (opt)
		c->opt = *opt;
	if (c->opt.image) {
		uint8_t b;
		size_t n;
		const struct trawl_symbol *sy = trawl_image_symbols(c->opt.image, &n);
		for (size_t i = 0; i < n && !c->has_code; i++)
			c->has_code = trawl_image_read(c->opt.image, sy[i].addr, &b, 1) == 1;
	}
	if (!load_labels(c)) {
		trawl_calls_destroy(c);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	*out = c;
	return TRAWL_OK;
}

void trawl_calls_destroy(struct trawl_calls *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->ncpus; i++)
		free(c->cpus[i].stack);
	free(c->cpus);
	free(c->nodes);
	free(c->names);
	free(c->labels);
	free(c);
}

/* The per-CPU state pointer is looked up only when the CPU changes, which is
 * safe because only cpu_get moves the array. Runs of straight-line
 * instructions go through the fast path; everything else, and every event
 * kind that can end or open a frame, takes the general one. A failure is
 * sticky: once the tree is incomplete no later batch is added to it. */
enum trawl_status trawl_calls_add(struct trawl_calls *c, const struct trawl_event_batch *b,
				  struct trawl_error *err)
{
	const struct trawl_event *ev = b->events, *end = b->events + b->count;
	struct cpu_state *st = NULL;
	unsigned cpu = 0;
	for (; ev < end && !c->failed; ev++) {
		/* only cpu_get moves the per-CPU states */
		if (!st || ev->cpu != cpu) {
			cpu = ev->cpu;
			st = cpu_get(c, cpu);
			if (!st)
				break;
		}
		switch (ev->kind) {
		case TRAWL_EV_INSN:
			if (can_run(c, st, ev)) {
				ev = run(c, st, ev, end, b) - 1;
				break;
			}
			on_insn(c, st, ev, b);
			break;
		case TRAWL_EV_STATE:
			track_regs(st, ev, b, 0);
			break;
		case TRAWL_EV_EXCEPTION:
			on_exception(c, st, ev);
			track_regs(st, ev, b, 0);
			break;
		case TRAWL_EV_EXC_RETURN:
			if (st->depth)
				exc_return(c, st, ev);
			st->have_prev = 0;
			track_regs(st, ev, b, 0);
			break;
		case TRAWL_EV_GAP:
			DBG(c, ev, "gap in the trace: the next jump is not interpreted");
			st->have_prev = 0;
			break;
		default:
			break;
		}
	}
	if (c->failed)
		return trawl_error_set(err, c->fail_status,
				       c->fail_status == TRAWL_ERR_LIMIT
					       ? "call tree node limit reached"
					       : "out of memory building the call tree");
	return TRAWL_OK;
}

void trawl_calls_finish(struct trawl_calls *c)
{
	for (unsigned i = 0; i < c->ncpus; i++) {
		struct cpu_state *st = &c->cpus[i];
		while (st->depth)
			pop(c, st, TRAWL_FRAMEF_UNFINISHED, NO_TIME);
		st->have_prev = 0;
	}
}

const struct trawl_call *trawl_calls_nodes(const struct trawl_calls *c, size_t *count)
{
	*count = c->count;
	return c->nodes;
}

unsigned trawl_calls_cpus(const struct trawl_calls *c)
{
	return c->ncpus;
}

uint32_t trawl_calls_first_root(const struct trawl_calls *c, unsigned cpu)
{
	return cpu < c->ncpus ? c->cpus[cpu].first_root : TRAWL_CALL_NONE;
}

const struct trawl_calls_stats *trawl_calls_stats(const struct trawl_calls *c)
{
	return &c->stats;
}

enum trawl_time_unit trawl_calls_time_unit(const struct trawl_calls *c)
{
	return c->unit;
}
