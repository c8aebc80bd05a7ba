/* The emulator's ELF checks, on hand-built images: one good static
 * executable and one defect at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "emu/elf.h"

static uint8_t img[4096];

static void put16(size_t off, uint16_t v) { img[off] = (uint8_t)v; img[off + 1] = (uint8_t)(v >> 8); }
static void put32(size_t off, uint32_t v) { for (int i = 0; i < 4; i++) img[off + i] = (uint8_t)(v >> 8 * i); }
static void put64(size_t off, uint64_t v) { for (int i = 0; i < 8; i++) img[off + i] = (uint8_t)(v >> 8 * i); }

/* program header i at 64 + 56 * i */
static void phdr(int i, uint32_t type, uint32_t flags, uint64_t off, uint64_t vaddr, uint64_t filesz,
		 uint64_t memsz)
{
	size_t p = 64 + 56 * (size_t)i;
	put32(p, type);
	put32(p + 4, flags);
	put64(p + 8, off);
	put64(p + 16, vaddr);
	put64(p + 24, vaddr);
	put64(p + 32, filesz);
	put64(p + 40, memsz);
}

/* A static executable: text at 0x400000 (the whole file), data+bss at 0x410000. */
static void make_good(void)
{
	memset(img, 0, sizeof img);
	memcpy(img, "\177ELF", 4);
	img[4] = 2;
	img[5] = 1;
	img[6] = 1;
	put16(16, 2);
	put16(18, 183);
	put64(24, 0x400100);
	put64(32, 64);
	put16(52, 64);
	put16(54, 56);
	put16(56, 3);
	phdr(0, 1, 5, 0, 0x400000, 0x800, 0x800);
	phdr(1, 1, 6, 0x800, 0x410800, 0x100, 0x3000);
	phdr(2, 7, 4, 0x800, 0x410800, 0x10, 0x20);  /* PT_TLS */
}

static enum trawl_status parse(struct trawl_elf_image *out, struct trawl_error *err)
{
	return trawl_elf_parse(img, sizeof img, out, err);
}

static void good(void **state)
{
	struct trawl_elf_image e;
	struct trawl_error err;
	(void)state;
	make_good();
	assert_int_equal(parse(&e, &err), TRAWL_OK);
	assert_int_equal(e.entry, 0x400100);
	assert_int_equal(e.nsegments, 2);
	assert_int_equal(e.segments[1].vaddr, 0x410800);
	assert_int_equal(e.segments[1].filesz, 0x100);
	assert_int_equal(e.segments[1].memsz, 0x3000);
	assert_int_equal(e.phdr_vaddr, 0x400040);  /* headers at file offset 64, in segment 0 */
	assert_int_equal(e.phnum, 3);
	assert_int_equal(e.lowest, 0x400000);
	assert_int_equal(e.highest, 0x413800);
	assert_int_equal(e.tls_vaddr, 0x410800);
}

static void expect_bad(const char *what)
{
	struct trawl_elf_image e;
	struct trawl_error err;
	assert_int_equal(parse(&e, &err), TRAWL_ERR_FORMAT);
	if (!strstr(err.message, what))
		print_error("message '%s' lacks '%s'\n", err.message, what);
	assert_non_null(strstr(err.message, what));
}

static void defects(void **state)
{
	(void)state;
	make_good(); img[1] = 'X'; expect_bad("not an ELF file");
	make_good(); img[4] = 1; expect_bad("not a 64-bit little-endian");
	make_good(); img[5] = 2; expect_bad("not a 64-bit little-endian");
	make_good(); put16(18, 62); expect_bad("wrong architecture: ELF machine 62");
	make_good(); put16(16, 1); expect_bad("not an executable");
	make_good(); put16(16, 3); expect_bad("static-pie");
	make_good(); phdr(2, 3, 4, 0x800, 0x410800, 0x10, 0x10); expect_bad("dynamically linked");
	make_good(); phdr(2, 2, 4, 0x800, 0x410800, 0x10, 0x10); expect_bad("dynamically linked");
	make_good(); phdr(1, 1, 6, 0x800, UINT64_C(1) << 48, 0x100, 0x100); expect_bad("outside the user address space");
	make_good(); phdr(1, 1, 6, 0x800, UINT64_MAX - 0x10, 0x100, 0x100); expect_bad("outside the user address space");
	make_good(); phdr(1, 1, 6, 0x800, 0, 0x100, 0x100); expect_bad("outside the user address space");
	make_good(); phdr(1, 1, 6, 0x800, 0x410800, 0x1000, 0x3000); expect_bad("outside the file");
	make_good(); phdr(1, 1, 6, UINT64_MAX, 0x410800, 0x10, 0x3000); expect_bad("outside the file");
	make_good(); phdr(1, 1, 6, 0x800, 0x410800, 0x200, 0x100); expect_bad("exceeds its memory size");
	make_good(); phdr(1, 1, 6, 0x800, 0x400700, 0x100, 0x100); expect_bad("overlap");
	make_good(); put64(24, 0x500000); expect_bad("entry point");
	make_good(); put16(56, 0); expect_bad("no program headers");
	make_good(); put64(32, 4000); expect_bad("outside the file");
	make_good(); put64(32, UINT64_MAX - 8); expect_bad("outside the file");
	make_good(); put16(54, 20); expect_bad("too small");
	make_good(); phdr(0, 4, 5, 0, 0x400000, 0x800, 0x800); phdr(1, 4, 6, 0, 0, 0, 0); expect_bad("no loadable segments");
	struct trawl_elf_image e;
	struct trawl_error err;
	make_good();
	assert_int_equal(trawl_elf_parse(img, 40, &e, &err), TRAWL_ERR_FORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(defects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
