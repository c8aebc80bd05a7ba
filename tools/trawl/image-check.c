/* The image against the trace's own encodings (image-check.h). */
#include "image-check.h"

#include <inttypes.h>

#include "cli.h"

void image_check_batch(struct image_check *c, const struct trawl_image *img,
		       const struct trawl_event *ev, size_t n)
{
	if (!img)
		return;
	for (size_t i = 0; i < n && c->checked < IMAGE_CHECK_SAMPLE; i++) {
		const struct trawl_event_insn *in = &ev[i].u.insn;
		if (ev[i].kind != TRAWL_EV_INSN || in->width != 4 ||
		    (in->iset != TRAWL_ISET_A64 && in->iset != TRAWL_ISET_A32))
			continue;
		uint8_t b[4];
		if (trawl_image_read(img, in->pc, b, 4) != 4)
			continue;
		uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			     (uint32_t)b[3] << 24;
		c->checked++;
		/* either byte order: BE-32 images (Armv5 big-endian) store
		 * their A32 instructions big-endian */
		uint32_t bs = (w >> 24) | (w >> 8 & 0xff00u) | (w << 8 & 0xff0000u) | (w << 24);
		if (w == in->encoding || (in->iset == TRAWL_ISET_A32 && bs == in->encoding))
			continue;
		if (!c->differ++) {
			c->first_line = ev[i].line;
			c->first_pc = in->pc;
			c->first_trace = in->encoding;
			c->first_image = w;
		}
	}
}

int image_check_report(const char *cmd, const struct image_check *c)
{
	if (!c->checked || c->differ * 2 <= c->checked)
		return 0;
	cli_warn(cmd, "the image does not hold the code this trace ran: %" PRIu64 " of the %" PRIu64
		 " instructions compared differ (first at line %" PRIu64 ", pc 0x%" PRIx64
		 ": the trace has %08" PRIx32 ", the image %08" PRIx32 "); the function names "
		 "and calls are not to be trusted (another program or build?)",
		 c->differ, c->checked, c->first_line, c->first_pc, c->first_trace, c->first_image);
	cli_mark_lossy();
	return 1;
}
