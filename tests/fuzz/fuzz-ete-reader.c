/* The ETE trawl_reader backend on a raw buffer: input = the --ete-config
 * ini text (registers, TRBE pointers, format), a NUL byte, then the buffer
 * bytes. A buffer that starts with PERFILE2 is opened as a perf.data
 * instead (format detected, no --ete-config: the perf.data source). The
 * program image is a fixed 16-byte program at 0x1000 (nop,
 * b.ne, nop, ret) so ranges turn into instruction events. Checks what the
 * events promise: numbered lines, instruction widths, exception names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-memfd.h"
#include "trawl/reader.h"

static const uint8_t prog[16] = {
	0x1f, 0x20, 0x03, 0xd5, 0x41, 0x00, 0x00, 0x54,
	0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6,
};

static void check(const struct trawl_event_batch *b, uint64_t *seq)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *e = &b->events[i];
		if (e->seq != (*seq)++ || e->line != e->seq + 1)
			abort();
		if (e->kind == TRAWL_EV_INSN && e->u.insn.width != 2 && e->u.insn.width != 4)
			abort();
		if (e->kind == TRAWL_EV_EXCEPTION && e->u.exc.name.len &&
		    (!e->u.exc.name.ptr || memchr(e->u.exc.name.ptr, 0, e->u.exc.name.len)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t clen = nul ? (size_t)(nul - data) : 0;
	const uint8_t *buf = nul ? nul + 1 : data;
	size_t blen = size - (size_t)(buf - data);
	char cfg[64], trace[64], img[64], spec[80];
	int fc = fuzz_memfd("cfg", data, clen, cfg);
	int ft = fuzz_memfd("trace", buf, blen, trace);
	int fi = fuzz_memfd("prog", prog, sizeof prog, img);
	if (fc >= 0 && ft >= 0 && fi >= 0) {
		snprintf(spec, sizeof spec, "0x1000=%s", img);
		const char *images[1] = { spec };
		struct trawl_reader_options o = { .format = TRAWL_FORMAT_ETE, .ete_config = cfg,
						  .ete_images = images, .ete_nimages = 1,
						  .batch_events = 7 };
		if (blen >= 8 && !memcmp(buf, "PERFILE2", 8)) {
			o.format = TRAWL_FORMAT_AUTO;
			o.ete_config = NULL;
		}
		struct trawl_reader *r;
		struct trawl_error err;
		if (trawl_reader_open(&r, trace, &o, &err) == TRAWL_OK) {
			struct trawl_event_batch b;
			uint64_t seq = 0;
			while (trawl_reader_next(r, &b, &err) == TRAWL_OK && seq < 10000000)
				check(&b, &seq);
			trawl_reader_close(r);
		}
	}
	if (fc >= 0)
		close(fc);
	if (ft >= 0)
		close(ft);
	if (fi >= 0)
		close(fi);
	return 0;
}
