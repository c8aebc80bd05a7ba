/* ELF64 program images for the emulator: header and program headers only. */
#ifndef TRAWL_EMU_ELF_H
#define TRAWL_EMU_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

#define TRAWL_ELF_MAX_SEGMENTS 16

/* One PT_LOAD segment: file bytes [offset, offset+filesz) land at vaddr,
 * the rest up to memsz is zero (bss). */
struct trawl_elf_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;       /* PF_R 4, PF_W 2, PF_X 1 */
};

struct trawl_elf_image {
	uint64_t entry;
	uint64_t phdr_vaddr;  /* where the program headers are in guest memory (AT_PHDR) */
	uint16_t phentsize;
	uint16_t phnum;
	uint32_t nsegments;
	struct trawl_elf_segment segments[TRAWL_ELF_MAX_SEGMENTS];
	uint64_t lowest;      /* lowest mapped address, page aligned down */
	uint64_t highest;     /* end of the highest segment (start of brk) */
	uint64_t tls_vaddr;   /* PT_TLS, informative */
};

/* Highest guest address a segment may reach: AArch64 Linux user space with
 * 48-bit virtual addresses. */
#define TRAWL_ELF_ADDR_LIMIT (UINT64_C(1) << 48)

/* Check and describe a statically linked AArch64 ELF64 executable held in
 * data[0..len). Rejects (TRAWL_ERR_FORMAT with a message saying why): not
 * ELF, not 64-bit little-endian, not AArch64, not an executable, dynamically
 * linked (PT_INTERP or PT_DYNAMIC), segments outside the file or outside the
 * 48-bit address space, overlapping or too many segments. */
enum trawl_status trawl_elf_parse(const uint8_t *data, size_t len, struct trawl_elf_image *img,
				  struct trawl_error *err);

#endif
