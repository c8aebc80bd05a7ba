/* Fuzz harness for program images (libelf symbols and segments): any bytes
 * as an ELF file, no crash, and lookups agree with the symbol table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trawl/image.h"
#include "fuzz-memfd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd("fuzz-image", data, size, path);
	if (fd < 0)
		return 0;
	struct trawl_image *img;
	if (trawl_image_create(&img, NULL) == TRAWL_OK) {
		if (trawl_image_add_elf(img, path, 0x1000, NULL) == TRAWL_OK) {
			size_t n;
			const struct trawl_symbol *s = trawl_image_symbols(img, &n);
			char buf[128];
			uint8_t bytes[16];
			for (size_t i = 0; i < n && i < 64; i++) {
				/* hostile symbol tables may overlap arbitrarily: the
				 * lookup only has to return a symbol at or below addr */
				const struct trawl_symbol *hit = trawl_image_symbol_at(img, s[i].addr);
				if (hit && hit->addr > s[i].addr)
					abort();
				trawl_image_describe(img, s[i].addr + 1, buf, sizeof buf);
				if (trawl_image_read(img, s[i].addr, bytes, sizeof bytes) > sizeof bytes)
					abort();
			}
		}
		trawl_image_destroy(img);
	}
	close(fd);
	return 0;
}
