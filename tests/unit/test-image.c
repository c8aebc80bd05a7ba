/* ELF images: symbols and bytes, checked against values read off the corpus
 * ELF with binutils (readelf -s / objdump -d), written here by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/image.h"

static char elf_path[4096];

static int setup(void **state)
{
	const char *corpus = getenv("TRAWL_CORPUS");
	snprintf(elf_path, sizeof elf_path, "%s/tarmac/quicksort.elf", corpus ? corpus : ".");
	return 0;
}

static int have_corpus(void)
{
	if (access(elf_path, R_OK) == 0)
		return 1;
	printf("SKIP: %s not found (corpus absent)\n", elf_path);
	return 0;
}

static void symbols_of_quicksort(void **state)
{
	if (!have_corpus())
		skip();
	struct trawl_image *img;
	char buf[64];
	assert_int_equal(trawl_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_image_add_elf(img, elf_path, 0, NULL), TRAWL_OK);
	assert_int_equal(trawl_image_machine(img), 183); /* EM_AARCH64 */
	const struct trawl_symbol *s = trawl_image_symbol_at(img, 0x8040);
	assert_non_null(s);
	assert_string_equal(s->name, "quicksort");
	assert_int_equal(s->addr, 0x8038);
	assert_int_equal(s->size, 144);
	assert_string_equal(trawl_image_describe(img, 0x8040, buf, sizeof buf), "quicksort+0x8");
	assert_string_equal(trawl_image_describe(img, 0x8000, buf, sizeof buf), "_start");
	/* 0x80c8 is sys_exit's first byte; 0x80fc is the object "array" */
	assert_string_equal(trawl_image_symbol_at(img, 0x80c8)->name, "sys_exit");
	assert_string_equal(trawl_image_symbol_at(img, 0x8100)->name, "array");
	assert_null(trawl_image_symbol_at(img, 0x7000));
	/* mapping symbols ($x.0, $d.realdata) are not names */
	size_t n;
	const struct trawl_symbol *all = trawl_image_symbols(img, &n);
	for (size_t i = 0; i < n; i++)
		assert_true(all[i].name[0] != '$');
	assert_non_null(trawl_image_symbol_named(img, "c_entry"));
	assert_int_equal(trawl_image_symbol_named(img, "c_entry")->addr, 0x800c);

	/* code bytes: mov x0,#0x100000 = d2a00200 (little-endian in memory) */
	uint8_t code[8];
	assert_int_equal(trawl_image_read(img, 0x8000, code, 8), 8);
	assert_int_equal(code[0], 0x00);
	assert_int_equal(code[1], 0x02);
	assert_int_equal(code[2], 0xa0);
	assert_int_equal(code[3], 0xd2);
	assert_int_equal(trawl_image_read(img, 0x8120, code, 8), 4); /* segment ends at 0x8124 */
	assert_int_equal(trawl_image_read(img, 0x9000, code, 8), 0);
	trawl_image_destroy(img);
}

static void load_offset(void **state)
{
	if (!have_corpus())
		skip();
	struct trawl_image *img;
	char spec[4200];
	snprintf(spec, sizeof spec, "%s@0x100000", elf_path);
	assert_int_equal(trawl_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_image_add_spec(img, spec, NULL), TRAWL_OK);
	assert_string_equal(trawl_image_symbol_at(img, 0x108040)->name, "quicksort");
	uint8_t b;
	assert_int_equal(trawl_image_read(img, 0x108000, &b, 1), 1);
	trawl_image_destroy(img);
}

static void bad_images(void **state)
{
	struct trawl_image *img;
	struct trawl_error err;
	char path[] = "/tmp/trawl-notelf-XXXXXX";
	int fd = mkstemp(path);
	assert_true(write(fd, "hello world, not an elf\n", 24) == 24);
	close(fd);
	assert_int_equal(trawl_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_image_add_elf(img, path, 0, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "not an ELF"));
	assert_int_equal(trawl_image_add_elf(img, "/nonexistent.elf", 0, &err), TRAWL_ERR_IO);
	assert_int_equal(trawl_image_add_spec(img, "x.elf@zz", &err), TRAWL_ERR_USAGE);
	assert_non_null(strstr(err.message, "bad load offset 'zz'"));
	/* a negative offset is refused as such (it wrapped to 2^64 - 16 and
	 * failed later as "program header 0 is out of bounds") */
	assert_int_equal(trawl_image_add_spec(img, "x.elf@-16", &err), TRAWL_ERR_USAGE);
	assert_non_null(strstr(err.message, "cannot be negative"));
	/* a file whose name holds '@' is the image itself when it exists */
	char at_path[64];
	snprintf(at_path, sizeof at_path, "%s@2", path);
	assert_int_equal(rename(path, at_path), 0);
	assert_int_equal(trawl_image_add_spec(img, at_path, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "not an ELF"));
	trawl_image_destroy(img);
	unlink(at_path);
}

/* C++ names are shown demangled, as binutils' nm -C shows them, and found
 * by either spelling; a name the demangler refuses stays as it is. The ELF
 * (tests/fuzz/corpus/image/cxx-names.elf) has functions with these
 * assembler names. */
static void demangled_names(void **state)
{
	(void)state;
	const char *src = getenv("TRAWL_SRC");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/image/cxx-names.elf", src ? src : ".");
	struct trawl_image *img;
	struct trawl_error err;
	assert_int_equal(trawl_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_image_add_elf(img, path, 0, &err), TRAWL_OK);
	static const struct {
		uint64_t addr;
		const char *shown, *raw;
	} want[] = {
		{ 0x40010c, "Lexer::next()", "_ZN5Lexer4nextEv" },
		{ 0x400110, "Parser::add(unsigned int&)", "_ZN6Parser3addERj" },
		{ 0x400114, "std::vector<int, std::allocator<int> >::push_back(int const&)",
		  "_ZNSt6vectorIiSaIiEE9push_backERKi" },
		{ 0x400118, "_ZZZZZN3fooE", "_ZZZZZN3fooE" },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct trawl_symbol *s = trawl_image_symbol_at(img, want[i].addr);
		assert_non_null(s);
		assert_int_equal(s->addr, want[i].addr);
		assert_string_equal(s->name, want[i].shown);
		assert_string_equal(s->raw, want[i].raw);
		assert_ptr_equal(trawl_image_symbol_named(img, want[i].shown), s);
		assert_ptr_equal(trawl_image_symbol_named(img, want[i].raw), s);
	}
	char buf[128];
	assert_string_equal(trawl_image_describe(img, 0x400112, buf, sizeof buf),
			    "Parser::add(unsigned int&)+0x2");
	trawl_image_destroy(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symbols_of_quicksort),
		cmocka_unit_test(load_offset),
		cmocka_unit_test(bad_images),
		cmocka_unit_test(demangled_names),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
