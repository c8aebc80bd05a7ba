/* libFuzzer harness for the Tarmac reader: any bytes, read through the
 * reader API (detection, chunking, batches) with options taken from the
 * first byte (including partial parsing); every effect byte handed out is
 * touched so the sanitizers see any out-of-range pool offset. Under
 * partial parsing without memory (where the reader runs its flow loop,
 * lib/tarmac/flow.c) the events must equal the line parser's, fed the same
 * lines one at a time: the harness aborts when they differ. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "trawl/tarmac.h"

#include "../unit/event-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_reader_options o;
	struct trawl_input *in;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	uint8_t flags = size ? data[0] : 0;
	volatile unsigned sink = 0;

	memset(&o, 0, sizeof o);
	o.format = TRAWL_FORMAT_TARMAC;      /* parse even what detection would refuse */
	o.implicit_thumb = flags & 1;
	o.big_endian = (flags >> 1) & 1;
	o.lenient = (flags >> 2) & 1;
	o.batch_events = (flags >> 3) & 1 ? 3 : 0;
	o.input.chunk_size = (flags >> 4) & 1 ? 64 : 0;
	if ((flags >> 5) & 1) { /* partial parsing, as the call commands use it */
		o.want = TRAWL_WANT_FILTER | ((flags >> 6) & 1 ? TRAWL_WANT_MEMS : 0);
		o.want_regs = TRAWL_WANT_REG(TRAWL_REG_SP) | TRAWL_WANT_REG(TRAWL_REG_X0 + 30) |
			      TRAWL_WANT_REG(TRAWL_REG_X0 + 14) | TRAWL_WANT_REG(TRAWL_REG_PSR);
	}
	if (trawl_input_open_memory(&in, data, size, "fuzz", &o.input, &err) != TRAWL_OK)
		return 0;
	if (trawl_reader_open_input(&r, in, &o, &err) != TRAWL_OK)
		return 0;
	/* compared with the line parser: whole lines only (the reader treats
	 * a last line without its newline as possibly cut off) */
	int compare = (o.want & (TRAWL_WANT_FILTER | TRAWL_WANT_MEMS)) == TRAWL_WANT_FILTER &&
		      (size == 0 || data[size - 1] == '\n');
	struct event_text got = { 0, 0, 0 };
	while (trawl_reader_next(r, &b, &err) == TRAWL_OK) {
		if (compare)
			event_text_batch(&got, &b);
		for (size_t i = 0; i < b.count; i++) {
			const struct trawl_event *e = &b.events[i];
			for (uint32_t k = 0; k < e->nregs; k++) {
				const struct trawl_reg_write *w = &b.regs[e->first_reg + k];
				for (uint32_t j = 0; j < w->size; j++)
					sink += b.pool[w->value + j] + trawl_known_bit(b.pool, w->known, j);
				sink += (unsigned)trawl_reg_names_get(b.sysregs, w->reg)[0];
			}
			for (uint32_t k = 0; k < e->nmems; k++) {
				const struct trawl_mem_access *m = &b.mems[e->first_mem + k];
				for (uint32_t j = 0; j < m->size; j++)
					sink += b.pool[m->value + j] + trawl_known_bit(b.pool, m->known, j);
			}
			if (e->kind == TRAWL_EV_INSN && e->u.insn.disasm.len)
				sink += (unsigned char)e->u.insn.disasm.ptr[e->u.insn.disasm.len - 1];
			if (e->kind == TRAWL_EV_TEXT && e->u.text.text.len)
				sink += (unsigned char)e->u.text.text.ptr[e->u.text.text.len - 1];
		}
	}
	trawl_reader_close(r);
	if (compare) {
		event_text_put(&got, "end\n");
		struct event_text want = { 0, 0, 0 };
		struct trawl_reader_stats ls;
		enum trawl_status lst =
			event_text_by_lines(&want, (const char *)data, size, &o, 1, &err, &ls);
		event_text_put(&want, "end\n");
		if (lst != TRAWL_ERR_NOMEM && strcmp(want.s, got.s) != 0)
			abort(); /* the flow loop and the line parser disagree */
		free(want.s);
	}
	free(got.s);
	(void)sink;
	return 0;
}
