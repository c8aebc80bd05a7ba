/* Fuzz harness for the emulator's ELF checks: any bytes, no crash, and an
 * accepted image always describes segments inside the file and the 48-bit
 * address space. */
#include <stdint.h>
#include <stdlib.h>

#include "emu/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_elf_image img;
	struct trawl_error err;
	if (trawl_elf_parse(data, size, &img, &err) != TRAWL_OK)
		return 0;
	for (uint32_t i = 0; i < img.nsegments; i++) {
		const struct trawl_elf_segment *s = &img.segments[i];
		if (s->offset > size || s->filesz > size - s->offset || s->filesz > s->memsz ||
		    s->vaddr + s->memsz > TRAWL_ELF_ADDR_LIMIT)
			abort();
	}
	if (img.entry < img.lowest || img.entry >= img.highest)
		abort();
	return 0;
}
