/* VCD (IEEE 1364 value change dump) of a trace: PC, encoding, instruction
 * text, function, core registers and memory accesses per CPU.
 *
 * File layout written (IEEE 1364-2005 section 18):
 *   $comment ... $end          what the file is, time base, warnings
 *   $version trawl X $end
 *   $timescale 1 ps $end       1/1000 of the time unit: 1 ns per instruction,
 *                              or 1/1000 of the trace's unit with --timestamps
 *   $scope module cpuN $end    one scope per CPU
 *     $var wire W ID NAME $end pc(64) encoding(32) text(512) function(512)
 *                              registers(64, PSR 32) v0-v31 / q0-q15 (128)
 *                              mem_addr(64) mem_data(64) mem_size(8)
 *                              mem_read(1) mem_write(1)
 *   $upscope $end
 *   $enddefinitions $end
 *   #T                         a time, non-decreasing
 *   bVALUE ID | 0ID | 1ID      value changes (binary, leading zeros dropped)
 * Text signals hold ASCII, one byte per 8 bits, last character in the
 * least significant byte (viewers show them with an ASCII radix).
 *
 * An instruction's changes are at its time T (x1000); its memory accesses
 * are spread over its unit: access j of n at T*1000 + j*1000/n, so the two
 * accesses of an LDP/STP are two value changes a viewer shows apart
 * instead of one overwriting the other. Vector registers are 128 bits
 * (the V/Q view; unknown bytes are x).
 *
 * Signals are only known once the trace has shown them (which CPUs, which
 * registers), so value changes go to a temporary file while reading and the
 * header is written in front of them at the end: the trace is read once.
 */
#include "trawl/vcd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-int.h"
#include "trawl/reg.h"
#include "trawl/trawl.h"

#define TEXT_BYTES 64
#define NREGS 37   /* X0..X30, SP, PC (unused), PSR, FPSR, FPCR, FPSCR */
#define NVEC 32    /* V0..V31, 128 bits each */
#define SUB 1000u  /* VCD time steps per unit (instruction or trace tick) */

enum sig_kind { SIG_PC, SIG_ENC, SIG_TEXT, SIG_FUNC, SIG_MADDR, SIG_MDATA, SIG_MSIZE,
		SIG_MRD, SIG_MWR, SIG_FIXED, SIG_REG = SIG_FIXED, SIG_VEC = SIG_FIXED + NREGS,
		NSIG = SIG_VEC + NVEC };

struct cpu_sigs {
	int used;
	uint8_t iset;
	uint32_t id[NSIG]; /* 0 = not declared yet */
	uint64_t last[NSIG];
	uint8_t has_last[NSIG];
	uint64_t reg[NREGS];
	uint8_t reg_known[NREGS];
	uint8_t vec[NVEC][16], vec_known[NVEC][16];     /* current */
	uint8_t vlast[NVEC][16], vlast_known[NVEC][16]; /* as last written */
};

struct trawl_vcd {
	struct trawl_vcd_options opt;
	FILE *body;
	struct cpu_sigs *cpus;
	unsigned ncpus;
	uint32_t next_id;
	uint64_t now;               /* last time written (VCD steps) */
	uint64_t base_now;          /* last event time (units), for backwards */
	int time_written;
	uint64_t insns;
	enum trawl_time_unit unit;
	int unit_set;
	uint64_t backwards, first_backwards_line;
};

enum trawl_status trawl_vcd_create(struct trawl_vcd **out, const struct trawl_vcd_options *opt,
				   struct trawl_error *err)
{
	struct trawl_vcd *v = calloc(1, sizeof *v);
	if (!v)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (opt)
		v->opt = *opt;
	v->body = tmpfile();
	if (!v->body) {
		free(v);
		return trawl_error_errno(err, errno, "cannot create a temporary file");
	}
	*out = v;
	return TRAWL_OK;
}

void trawl_vcd_destroy(struct trawl_vcd *v)
{
	if (!v)
		return;
	if (v->body)
		fclose(v->body);
	free(v->cpus);
	free(v);
}

static struct cpu_sigs *cpu_get(struct trawl_vcd *v, unsigned cpu)
{
	if (cpu >= v->ncpus) {
		struct cpu_sigs *p = realloc(v->cpus, (cpu + 1) * sizeof *p);
		if (!p)
			return NULL;
		memset(p + v->ncpus, 0, (cpu + 1 - v->ncpus) * sizeof *p);
		v->cpus = p;
		v->ncpus = cpu + 1;
	}
	return &v->cpus[cpu];
}

/* Identifier codes: base-94 over the printable characters '!'..'~'. */
static void put_id(FILE *f, uint32_t id)
{
	do {
		putc('!' + (int)(id % 94), f);
		id /= 94;
	} while (id);
}

static void set_time(struct trawl_vcd *v, uint64_t t)
{
	if (!v->time_written || t > v->now) {
		fprintf(v->body, "#%llu\n", (unsigned long long)t);
		v->now = t;
		v->time_written = 1;
	}
}

static uint32_t sig_id(struct trawl_vcd *v, struct cpu_sigs *s, unsigned k)
{
	if (!s->id[k])
		s->id[k] = ++v->next_id;
	return s->id[k] - 1;
}

static void put_bits(FILE *f, uint64_t val)
{
	char buf[65];
	int n = 0;
	do {
		buf[n++] = (char)('0' + (val & 1));
		val >>= 1;
	} while (val);
	putc('b', f);
	while (n)
		putc(buf[--n], f);
}

static void change(struct trawl_vcd *v, struct cpu_sigs *s, unsigned k, uint64_t val)
{
	if (s->has_last[k] && s->last[k] == val && s->id[k])
		return;
	uint32_t id = sig_id(v, s, k);
	s->last[k] = val;
	s->has_last[k] = 1;
	if (k == SIG_MRD || k == SIG_MWR) {
		fprintf(v->body, "%c", val ? '1' : '0');
	} else {
		put_bits(v->body, val);
		putc(' ', v->body);
	}
	put_id(v->body, id);
	putc('\n', v->body);
}

static uint64_t hash_text(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* A text value: printable ASCII only, at most TEXT_BYTES, written as a bit
 * vector with the last character in the low byte. */
static void change_text(struct trawl_vcd *v, struct cpu_sigs *s, unsigned k, const char *p,
			size_t n)
{
	char clean[TEXT_BYTES];
	size_t m = 0;
	for (size_t i = 0; i < n && m < TEXT_BYTES; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == ' ' && (m == 0 || clean[m - 1] == ' '))
			continue; /* squeeze the column padding Tarmac uses */
		clean[m++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	while (m && clean[m - 1] == ' ')
		m--;
	uint64_t h = hash_text(clean, m);
	if (s->has_last[k] && s->last[k] == h && s->id[k])
		return;
	uint32_t id = sig_id(v, s, k);
	s->last[k] = h;
	s->has_last[k] = 1;
	putc('b', v->body);
	size_t i = 0;
	while (i < m && clean[i] == 0)
		i++;
	if (i == m) {
		putc('0', v->body);
	} else {
		int started = 0;
		for (; i < m; i++)
			for (int bit = 7; bit >= 0; bit--) {
				int b = ((unsigned char)clean[i] >> bit) & 1;
				if (b)
					started = 1;
				if (started)
					putc('0' + b, v->body);
			}
	}
	putc(' ', v->body);
	put_id(v->body, id);
	putc('\n', v->body);
}

static int reg_slot(uint32_t reg)
{
	if (reg <= TRAWL_REG_SP)
		return (int)reg;
	if (reg == TRAWL_REG_PSR)
		return 33;
	if (reg == TRAWL_REG_FPSR)
		return 34;
	if (reg == TRAWL_REG_FPCR)
		return 35;
	if (reg == TRAWL_REG_FPSCR)
		return 36;
	return -1;
}

/* The function containing pc: exact label or nearest one below. */
static void function_of(const struct trawl_vcd *v, uint64_t pc, char *buf, size_t size)
{
	const struct trawl_symbol *s = trawl_image_symbol_at(v->opt.image, pc);
	if (s && s->type != TRAWL_SYM_OBJECT) {
		snprintf(buf, size, "%s", s->name);
		return;
	}
	size_t n;
	const struct trawl_symbol *all = trawl_image_symbols(v->opt.image, &n);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (all[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && all[lo - 1].type == TRAWL_SYM_OBJECT)
		lo--;
	if (lo > 0 && pc - all[lo - 1].addr < 0x10000)
		snprintf(buf, size, "%s", all[lo - 1].name);
	else
		buf[0] = 0;
}

/* The time of an event on the VCD axis, never earlier than the last. */
static uint64_t event_time(struct trawl_vcd *v, const struct trawl_event *ev)
{
	if (!v->opt.use_timestamps)
		return v->insns;
	if (!v->unit_set && ev->time_unit != TRAWL_TIME_NONE) {
		v->unit = (enum trawl_time_unit)ev->time_unit;
		v->unit_set = 1;
	}
	if (v->unit_set && ev->time < v->base_now) {
		if (!v->backwards++)
			v->first_backwards_line = ev->line;
		return v->base_now;
	}
	v->base_now = ev->time;
	return ev->time;
}

/* A unit time on the VCD axis (saturating: the file stays valid). */
static uint64_t steps(uint64_t t)
{
	return t > UINT64_MAX / SUB - 1 ? UINT64_MAX - SUB : t * SUB;
}

/* 128-bit vector value: x for unknown bits, leading zeros dropped. */
static void change_vec(struct trawl_vcd *v, struct cpu_sigs *s, unsigned k)
{
	unsigned vi = k - SIG_VEC;
	const uint8_t *val = s->vec[vi], *kn = s->vec_known[vi];
	if (s->id[k] && !memcmp(val, s->vlast[vi], 16) &&
	    !memcmp(kn, s->vlast_known[vi], 16))
		return;
	memcpy(s->vlast[vi], val, 16);
	memcpy(s->vlast_known[vi], kn, 16);
	uint32_t id = sig_id(v, s, k);
	char bits[129];
	int n = 0, started = 0;
	for (int i = 15; i >= 0; i--)
		for (int b = 7; b >= 0; b--) {
			char c = !kn[i] ? 'x' : (char)('0' + ((val[i] >> b) & 1));
			if (c != '0')
				started = 1;
			if (started)
				bits[n++] = c;
		}
	if (!n)
		bits[n++] = '0';
	bits[n] = 0;
	fprintf(v->body, "b%s ", bits);
	put_id(v->body, id);
	putc('\n', v->body);
}

/* A write to V<n>: bytes [offset, offset+size) of its low 128 bits, then
 * zero-extension up to zext. */
static void vec_apply(struct cpu_sigs *s, unsigned n, const struct trawl_reg_write *w,
		      const uint8_t *pool)
{
	for (uint32_t i = 0; i < w->size && w->offset + i < 16; i++) {
		int k = trawl_known_bit(pool, w->known, i);
		s->vec[n][w->offset + i] = k ? pool[w->value + i] : 0;
		s->vec_known[n][w->offset + i] = (uint8_t)k;
	}
	for (uint32_t i = (uint32_t)w->offset + w->size; i < w->zext && i < 16; i++) {
		s->vec[n][i] = 0;
		s->vec_known[n][i] = 1;
	}
}

static void regs(struct trawl_vcd *v, struct cpu_sigs *s, const struct trawl_event *ev,
		 const struct trawl_event_batch *b)
{
	for (uint32_t i = 0; i < ev->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[ev->first_reg + i];
		if (w->reg >= TRAWL_REG_V0 && w->reg < TRAWL_REG_V0 + NVEC) {
			unsigned n = w->reg - TRAWL_REG_V0;
			vec_apply(s, n, w, b->pool);
			change_vec(v, s, SIG_VEC + n);
			continue;
		}
		int k = reg_slot(w->reg);
		if (k < 0)
			continue;
		trawl_regval_apply(&s->reg[k], &s->reg_known[k], w, b->pool);
		if (s->reg_known[k])
			change(v, s, SIG_REG + (unsigned)k, s->reg[k]);
	}
}

/* Value changes are written only for what changed (change() compares with
 * the last value), which keeps the file small. The accesses of one
 * instruction get distinct times inside its step, so the two halves of an
 * LDP are both visible; mem_read and mem_write drop to 0 on an instruction
 * without accesses so a viewer does not show the last one as still going on. */
static void on_insn(struct trawl_vcd *v, struct cpu_sigs *s, const struct trawl_event *ev,
		    const struct trawl_event_batch *b)
{
	const struct trawl_event_insn *in = &ev->u.insn;
	uint64_t t = event_time(v, ev);
	v->insns++;
	if (!s->used || !s->iset) {
		s->used = 1;
		s->iset = in->iset;
	}
	set_time(v, steps(t));
	change(v, s, SIG_PC, in->pc);
	if (ev->flags & TRAWL_EVF_HAS_ENCODING)
		change(v, s, SIG_ENC, in->encoding);
	change_text(v, s, SIG_TEXT, in->disasm.ptr ? in->disasm.ptr : "", in->disasm.len);
	if (v->opt.image) {
		char fn[TEXT_BYTES + 1];
		function_of(v, in->pc, fn, sizeof fn);
		change_text(v, s, SIG_FUNC, fn, strlen(fn));
	}
	regs(v, s, ev, b);
	uint32_t n = 0, nth = 0;
	for (uint32_t i = 0; i < ev->nmems; i++)
		n += !(b->mems[ev->first_mem + i].flags & TRAWL_MEM_FETCH);
	for (uint32_t i = 0; i < ev->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[ev->first_mem + i];
		if (m->flags & TRAWL_MEM_FETCH)
			continue;
		/* each access at its own time inside the instruction's unit */
		if (nth)
			set_time(v, steps(t) + (uint64_t)nth * SUB / n);
		nth++;
		change(v, s, SIG_MRD, (m->flags & TRAWL_MEM_READ) != 0);
		change(v, s, SIG_MWR, (m->flags & TRAWL_MEM_WRITE) != 0);
		change(v, s, SIG_MADDR, m->addr);
		change(v, s, SIG_MSIZE, m->size);
		if (!(m->flags & TRAWL_MEM_ABORTED)) {
			uint64_t d = 0; /* little-endian view of the first 8 bytes */
			for (uint32_t j = 0; j < m->size && j < 8; j++)
				d |= (uint64_t)b->pool[m->value + j] << (8 * j);
			change(v, s, SIG_MDATA, d);
		}
	}
	if (!n) {
		change(v, s, SIG_MRD, 0);
		change(v, s, SIG_MWR, 0);
	}
}

enum trawl_status trawl_vcd_add(struct trawl_vcd *v, const struct trawl_event_batch *b,
				struct trawl_error *err)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *ev = &b->events[i];
		int insn = ev->kind == TRAWL_EV_INSN && !(ev->flags & TRAWL_EVF_FETCH_FAIL);
		if (!insn && !(ev->kind == TRAWL_EV_STATE && ev->nregs))
			continue;
		struct cpu_sigs *s = cpu_get(v, ev->cpu);
		if (!s)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		if (insn) {
			on_insn(v, s, ev, b);
		} else { /* register lines outside instructions: initial state */
			s->used = 1;
			set_time(v, steps(event_time(v, ev)));
			regs(v, s, ev, b);
		}
	}
	if (ferror(v->body))
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot write the temporary VCD body");
	return TRAWL_OK;
}

uint64_t trawl_vcd_backwards(const struct trawl_vcd *v, uint64_t *first_line)
{
	if (first_line)
		*first_line = v->first_backwards_line;
	return v->backwards;
}

/* A thousandth of the time unit (see SUB). */
static const char *timescale(const struct trawl_vcd *v)
{
	if (!v->opt.use_timestamps)
		return "1 ps";
	switch (v->unit) {
	case TRAWL_TIME_PS: return "1 fs";
	case TRAWL_TIME_US: return "1 ns";
	default: return "1 ps";
	}
}

static void declare(FILE *f, uint32_t id, unsigned width, const char *name)
{
	fprintf(f, "$var wire %u ", width);
	put_id(f, id - 1);
	fprintf(f, " %s $end\n", name);
}

/* The header can only be written now, when every CPU and register the trace
 * used is known; the value changes went to a temporary file meanwhile and
 * are copied after it, so the trace is read once. A write error anywhere
 * ends as one I/O error, so a short file is never reported as written. */
enum trawl_status trawl_vcd_finish(struct trawl_vcd *v, FILE *f, struct trawl_error *err)
{
	static const char *fixed[] = { "pc", "encoding", "text", "function", "mem_addr",
				       "mem_data", "mem_size", "mem_read", "mem_write" };
	static const unsigned widths[] = { 64, 32, 8 * TEXT_BYTES, 8 * TEXT_BYTES, 64, 64, 8, 1, 1 };
	fprintf(f, "$comment\n  written by trawl vcd: one scope per CPU; text and function hold\n"
		   "  ASCII (show them with an ASCII radix)\n");
	if (v->opt.use_timestamps) {
		fprintf(f, "  time: the trace's timestamps (%s)\n",
			v->unit_set ? trawl_time_unit_name(v->unit) : "none");
		if (v->backwards)
			fprintf(f, "  timestamps went backwards %llu times (first at line %llu); those "
				   "changes are shown at the latest earlier time\n",
				(unsigned long long)v->backwards,
				(unsigned long long)v->first_backwards_line);
	} else {
		fprintf(f, "  time: instruction count (1 ns = 1 instruction)\n");
	}
	fprintf(f, "  the memory accesses of one instruction are spread over its time step\n"
		   "  (access j of n at +j/n), so each has its own value change\n");
	fprintf(f, "$end\n$version trawl %s $end\n$timescale %s $end\n", TRAWL_VERSION, timescale(v));
	for (unsigned c = 0; c < v->ncpus; c++) {
		struct cpu_sigs *s = &v->cpus[c];
		if (!s->used)
			continue;
		fprintf(f, "$scope module cpu%u $end\n", c);
		for (unsigned k = 0; k < SIG_FIXED; k++)
			if (s->id[k])
				declare(f, s->id[k], widths[k], fixed[k]);
		int a32 = s->iset == TRAWL_ISET_A32 || s->iset == TRAWL_ISET_T32;
		for (unsigned k = 0; k < NREGS; k++) {
			if (!s->id[SIG_REG + k])
				continue;
			char name[16];
			if (k < 31)
				snprintf(name, sizeof name, "%s%u", a32 ? "r" : "x", k);
			else
				snprintf(name, sizeof name, "%s",
					 k == 31 ? "sp" : k == 33 ? (a32 ? "cpsr" : "psr")
						       : k == 34 ? "fpsr" : k == 35 ? "fpcr" : "fpscr");
			declare(f, s->id[SIG_REG + k], k == 33 || k == 36 || a32 ? 32 : 64, name);
		}
		for (unsigned k = 0; k < NVEC; k++) {
			if (!s->id[SIG_VEC + k])
				continue;
			char name[16];
			snprintf(name, sizeof name, "%s%u", a32 ? "q" : "v", k);
			declare(f, s->id[SIG_VEC + k], 128, name);
		}
		fprintf(f, "$upscope $end\n");
	}
	fprintf(f, "$enddefinitions $end\n");
	rewind(v->body);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, v->body)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(v->body) || fflush(f) != 0 || ferror(f))
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot write the VCD file");
	return TRAWL_OK;
}
