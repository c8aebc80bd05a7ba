/* Program images: ELF files with their load offsets, for symbol names
 * (`--image PROGRAM.elf[@OFFSET]`) and for the bytes of loaded code (the ETE
 * decoder walks the program image to follow the instruction flow).
 */
#ifndef TRAWL_IMAGE_H
#define TRAWL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

struct trawl_image;

enum trawl_symbol_type {
	TRAWL_SYM_FUNC = 1,
	TRAWL_SYM_OBJECT,
	TRAWL_SYM_OTHER,
};

struct trawl_symbol {
	uint64_t addr;          /* load address (offset applied, Thumb bit cleared) */
	uint64_t size;          /* 0 when the ELF does not say */
	const char *name;       /* as shown: C++ names demangled
	                           ("Lexer::next()" for "_ZN5Lexer4nextEv") */
	const char *raw;        /* as the ELF file has it (the same pointer as
	                           name when nothing was demangled) */
	uint8_t type;           /* enum trawl_symbol_type */
	uint8_t thumb;          /* function is Thumb code (ELF address had bit 0 set) */
};

enum trawl_status trawl_image_create(struct trawl_image **out, struct trawl_error *err);
void trawl_image_destroy(struct trawl_image *img);

/* Add an ELF file loaded `offset` bytes above its link addresses. */
enum trawl_status trawl_image_add_elf(struct trawl_image *img, const char *path,
				      uint64_t offset, struct trawl_error *err);

/* Split a command-line spec "PATH" or "PATH@OFFSET" (offset in C syntax:
 * decimal or 0x hex; a file whose name holds '@' is taken whole when it
 * exists) into path (size bytes) and offset. */
enum trawl_status trawl_image_spec_parse(const char *spec, char *path, size_t size,
					 uint64_t *offset, struct trawl_error *err);
/* Add from such a spec. */
enum trawl_status trawl_image_add_spec(struct trawl_image *img, const char *spec,
				       struct trawl_error *err);

/* The symbol covering addr: the function (or object) whose [addr, addr+size)
 * holds it, else the nearest preceding function symbol of unknown size in
 * the same loaded segment. NULL when none. The pointer is valid until the
 * image is destroyed. */
const struct trawl_symbol *trawl_image_symbol_at(const struct trawl_image *img, uint64_t addr);

/* 1 when a and b are in one loaded segment of the image (or it has none to
 * tell by: symbols only), else 0. */
int trawl_image_same_segment(const struct trawl_image *img, uint64_t a, uint64_t b);

/* A symbol by exact name, as shown or as the ELF has it ("Lexer::next()"
 * or "_ZN5Lexer4nextEv"); NULL when absent. */
const struct trawl_symbol *trawl_image_symbol_named(const struct trawl_image *img,
						    const char *name);

/* Format addr as "symbol+0xoff" (or "symbol", or hex when no symbol covers
 * it) into buf. Returns buf. */
char *trawl_image_describe(const struct trawl_image *img, uint64_t addr, char *buf, size_t size);

/* Copy up to len bytes of loaded file contents at addr into buf; returns the
 * number of bytes available contiguously from addr (0 when addr is not in a
 * loaded segment; zero-filled .bss counts as available). */
size_t trawl_image_read(const struct trawl_image *img, uint64_t addr, void *buf, size_t len);
/* The lowest loaded address at or above addr (UINT64_MAX: none): where
 * the next trawl_image_read succeeds after a gap between segments. */
uint64_t trawl_image_next_loaded(const struct trawl_image *img, uint64_t addr);

/* Every symbol, sorted by address. */
const struct trawl_symbol *trawl_image_symbols(const struct trawl_image *img, size_t *count);

/* One ELF file of an image, for tools that write per-binary output
 * (AutoFDO profiles, coverage). */
struct trawl_image_module {
	const char *path;       /* as given */
	uint64_t offset;        /* load offset */
	uint64_t lo, hi;        /* load addresses its PT_LOAD segments span */
	uint64_t text_lo, text_hi; /* the same for its executable segments */
	uint64_t text_base;     /* first executable segment's load address,
	                           page-aligned (4 KiB): what llvm-profgen's
	                           offsets are relative to */
	uint64_t load_base;     /* first PT_LOAD segment's load address, page-
	                           aligned: what AutoFDO text profiles' are */
	uint8_t build_id[64];   /* GNU build id note, build_id_len bytes */
	size_t build_id_len;
};

/* Every ELF file added, in the order added. */
const struct trawl_image_module *trawl_image_modules(const struct trawl_image *img, size_t *count);

/* The module whose executable segments hold addr, NULL when none. */
const struct trawl_image_module *trawl_image_module_at(const struct trawl_image *img,
						       uint64_t addr);

/* ELF machine of the first file added (EM_AARCH64 = 183, EM_ARM = 40), 0 if none. */
unsigned trawl_image_machine(const struct trawl_image *img);

#endif
