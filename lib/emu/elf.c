/* ELF64 parsing for the emulator's loader.
 *
 * Only what loading a static executable needs is read (offsets from the
 * System V gABI and the AArch64 ELF supplement):
 *
 *   ELF header (64 bytes)
 *   off size field
 *     0   4  magic 7f 'E' 'L' 'F'
 *     4   1  class: 2 = 64-bit
 *     5   1  data: 1 = little-endian
 *     6   1  version: 1
 *    16   2  e_type: 2 = EXEC, 3 = DYN (static-pie)
 *    18   2  e_machine: 183 = AArch64
 *    24   8  e_entry
 *    32   8  e_phoff
 *    54   2  e_phentsize (56)
 *    56   2  e_phnum
 *
 *   program header (56 bytes each)
 *     0   4  p_type: 1 LOAD, 2 DYNAMIC, 3 INTERP, 6 PHDR, 7 TLS
 *     4   4  p_flags
 *     8   8  p_offset
 *    16   8  p_vaddr
 *    32   8  p_filesz
 *    40   8  p_memsz
 *
 * Every offset and size is checked against the file length and the 48-bit
 * user address space before it is used.
 */
#include "emu/elf.h"

#include <string.h>

#define PAGE 4096u

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static enum trawl_status bad(struct trawl_error *err, const char *what)
{
	return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", what);
}

/* Only what the loader needs, and every field checked before it is used
 * (the file may be anything a user passes). Dynamic linking is refused with
 * the reason and the fix (-static), not run wrongly; static-pie is refused
 * last, after the checks that would report a more basic problem. */
enum trawl_status trawl_elf_parse(const uint8_t *data, size_t len, struct trawl_elf_image *img,
				  struct trawl_error *err)
{
	memset(img, 0, sizeof *img);
	if (len < 64 || memcmp(data, "\177ELF", 4) != 0)
		return bad(err, "not an ELF file");
	if (data[4] != 2 || data[5] != 1)
		return bad(err, "not a 64-bit little-endian ELF file (AArch64 programs are)");
	uint16_t type = rd16(data + 16), machine = rd16(data + 18);
	if (machine != 183)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "wrong architecture: ELF machine %u, expected AArch64 (183)",
				       machine);
	if (type != 2 && type != 3)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "not an executable (ELF type %u)", type);
	img->entry = rd64(data + 24);
	uint64_t phoff = rd64(data + 32);
	img->phentsize = rd16(data + 54);
	img->phnum = rd16(data + 56);
	if (img->phentsize < 56)
		return bad(err, "program header entries too small");
	if (img->phnum == 0 || img->phnum > 256)
		return bad(err, "no program headers, or too many");
	if (phoff > len || (uint64_t)img->phentsize * img->phnum > len - phoff)
		return bad(err, "program headers lie outside the file");

	uint64_t lowest = UINT64_MAX, highest = 0;
	for (unsigned i = 0; i < img->phnum; i++) {
		const uint8_t *ph = data + phoff + (uint64_t)i * img->phentsize;
		uint32_t ptype = rd32(ph);
		if (ptype == 3)
			return bad(err, "dynamically linked (has an interpreter); "
					"build with -static");
		if (ptype == 2)
			return bad(err, "dynamically linked (has a dynamic section); "
					"build with -static");
		if (ptype == 7)
			img->tls_vaddr = rd64(ph + 16);
		if (ptype != 1)
			continue;
		struct trawl_elf_segment s = {
			.flags = rd32(ph + 4),
			.offset = rd64(ph + 8),
			.vaddr = rd64(ph + 16),
			.filesz = rd64(ph + 32),
			.memsz = rd64(ph + 40),
		};
		if (s.memsz == 0)
			continue;
		if (img->nsegments == TRAWL_ELF_MAX_SEGMENTS)
			return bad(err, "too many loadable segments");
		if (s.filesz > s.memsz)
			return bad(err, "segment file size exceeds its memory size");
		if (s.offset > len || s.filesz > len - s.offset)
			return bad(err, "segment data lies outside the file");
		if (s.vaddr < PAGE || s.vaddr >= TRAWL_ELF_ADDR_LIMIT ||
		    s.memsz > TRAWL_ELF_ADDR_LIMIT - s.vaddr)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "segment at 0x%llx (0x%llx bytes) lies outside the "
					       "user address space",
					       (unsigned long long)s.vaddr,
					       (unsigned long long)s.memsz);
		uint64_t lo = s.vaddr & ~(uint64_t)(PAGE - 1), hi = s.vaddr + s.memsz;
		for (uint32_t k = 0; k < img->nsegments; k++) {
			const struct trawl_elf_segment *o = &img->segments[k];
			if (s.vaddr < o->vaddr + o->memsz && o->vaddr < hi)
				return bad(err, "loadable segments overlap");
		}
		if (lo < lowest)
			lowest = lo;
		if (hi > highest)
			highest = hi;
		/* AT_PHDR: the segment holding the program headers, if any */
		if (phoff >= s.offset && phoff - s.offset < s.filesz)
			img->phdr_vaddr = s.vaddr + (phoff - s.offset);
		img->segments[img->nsegments++] = s;
	}
	if (img->nsegments == 0)
		return bad(err, "no loadable segments");
	if (img->entry < lowest || img->entry >= highest)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "entry point 0x%llx is outside the loaded segments",
				       (unsigned long long)img->entry);
	if (type == 3)
		return bad(err, "position-independent executable (static-pie) is not supported; "
				"link with -static -no-pie");
	img->lowest = lowest;
	img->highest = highest;
	return TRAWL_OK;
}
