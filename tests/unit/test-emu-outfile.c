/* Trace output files, the .zst ones compressed on threads: whatever is
 * handed over (taken blocks, copied writes, empty blocks, in any mix) comes
 * back byte for byte through zstd's own decoder, one frame per taken block;
 * no text still gives a valid file; a full disk is reported by take or
 * close as a write error; abandoning with blocks in flight frees them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trawl/emu.h"

static char path[256];

static void set_path(const char *ext)
{
	snprintf(path, sizeof path, "/tmp/trawl-test-outfile-%d%s", (int)getpid(), ext);
}

/* Tarmac-like lines from a seed: compressible, but not one repeated line. */
static size_t fill(char *p, size_t cap, uint64_t *seed)
{
	size_t n = 0;
	while (n + 64 <= cap) {
		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		n += (size_t)snprintf(p + n, 64, "%llu clk IT (%u) %08llx e2%06x O EL0t_n : add x%u\n",
				      (unsigned long long)(*seed >> 40), (unsigned)(*seed & 0xff),
				      (unsigned long long)(0x400000 + ((*seed >> 20) & 0xfff) * 4),
				      (unsigned)((*seed >> 8) & 0xffffff), (unsigned)(*seed >> 59));
	}
	return n;
}

static uint8_t *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(name, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* The file through zstd's decoder, frame after frame, compared with want;
 * returns the number of frames. */
static unsigned check_zst(const char *want, size_t wlen)
{
	size_t zlen;
	uint8_t *z = slurp(path, &zlen);
	unsigned frames = 0;
	size_t at = 0, got = 0;
	char *out = malloc(wlen + 1);
	assert_non_null(out);
	while (at < zlen) {
		size_t fsz = ZSTD_findFrameCompressedSize(z + at, zlen - at);
		assert_false(ZSTD_isError(fsz));
		size_t n = ZSTD_decompress(out + got, wlen + 1 - got, z + at, fsz);
		assert_false(ZSTD_isError(n));
		got += n;
		at += fsz;
		frames++;
	}
	assert_int_equal(got, wlen);
	assert_memory_equal(out, want, wlen);
	free(out);
	free(z);
	return frames;
}

/* take (and write) on 1-3 threads and in the calling thread */
static void round_trip(void **state)
{
	(void)state;
	set_path(".zst");
	const size_t cap = 256 << 10, total_cap = 40 * cap;
	char *want = malloc(total_cap);
	assert_non_null(want);
	for (int threads = 0; threads <= 3; threads++) {
		struct trawl_outfile *o;
		struct trawl_error err;
		uint64_t seed = 42;
		size_t wlen = 0;
		assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
		assert_int_equal(trawl_outfile_set_threads(o, threads, &err), TRAWL_OK);
		char *buf = malloc(cap);
		assert_non_null(buf);
		unsigned takes = 0;
		for (int i = 0; i < 30; i++) {
			/* full blocks, a short one, an empty one */
			size_t n = i % 7 == 3 ? fill(buf, 100, &seed) : i % 7 == 5 ? 0 : fill(buf, cap, &seed);
			memcpy(want + wlen, buf, n);
			wlen += n;
			char *before = buf;
			assert_int_equal(trawl_outfile_take(o, &buf, n, cap, &err), TRAWL_OK);
			assert_non_null(buf);
			if (threads == 0)
				assert_ptr_equal(buf, before);
			takes++;
		}
		assert_int_equal(trawl_outfile_bytes(o, 0), wlen);
		assert_int_equal(trawl_outfile_close(o, &err), TRAWL_OK);
		free(buf);
		unsigned frames = check_zst(want, wlen);
		assert_int_equal(frames, threads ? takes : 1);
		/* copied writes, also mixed with takes */
		assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
		assert_int_equal(trawl_outfile_set_threads(o, threads, &err), TRAWL_OK);
		buf = malloc(cap);
		assert_non_null(buf);
		wlen = 0;
		for (int i = 0; i < 12; i++) {
			size_t n = fill(buf, i & 1 ? cap : 5000, &seed);
			memcpy(want + wlen, buf, n);
			wlen += n;
			if (i % 3 == 2)
				assert_int_equal(trawl_outfile_take(o, &buf, n, cap, &err), TRAWL_OK);
			else
				assert_int_equal(trawl_outfile_write(o, buf, n, &err), TRAWL_OK);
		}
		assert_int_equal(trawl_outfile_close(o, &err), TRAWL_OK);
		free(buf);
		check_zst(want, wlen);
	}
	free(want);
	unlink(path);
}

/* no text: still one (empty) frame, not an empty file */
static void empty(void **state)
{
	(void)state;
	set_path(".zst");
	for (int threads = 0; threads <= 2; threads++) {
		struct trawl_outfile *o;
		struct trawl_error err;
		assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
		assert_int_equal(trawl_outfile_set_threads(o, threads, &err), TRAWL_OK);
		assert_int_equal(trawl_outfile_close(o, &err), TRAWL_OK);
		assert_int_equal(check_zst("", 0), 1);
	}
	unlink(path);
}

/* every write fails with ENOSPC: an error from take or from close */
static void full_disk(void **state)
{
	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	set_path(".zst");
	unlink(path);
	assert_int_equal(symlink("/dev/full", path), 0);
	const size_t cap = 256 << 10;
	for (int threads = 0; threads <= 2; threads++) {
		struct trawl_outfile *o;
		struct trawl_error err;
		uint64_t seed = 7;
		assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
		assert_int_equal(trawl_outfile_set_threads(o, threads, &err), TRAWL_OK);
		char *buf = malloc(cap);
		assert_non_null(buf);
		enum trawl_status st = TRAWL_OK;
		for (int i = 0; i < 200 && st == TRAWL_OK; i++)
			st = trawl_outfile_take(o, &buf, fill(buf, cap, &seed), cap, &err);
		if (st == TRAWL_OK) /* every block is still in the pool */
			st = trawl_outfile_close(o, &err);
		else
			assert_int_equal(trawl_outfile_close(o, NULL), TRAWL_OK);
		assert_int_equal(st, TRAWL_ERR_IO);
		assert_int_equal(err.sys_errno, ENOSPC);
		assert_non_null(strstr(err.message, "cannot write"));
		free(buf);
	}
	unlink(path);
}

/* closed without finishing, blocks still in flight (ASan: nothing leaks) */
static void abandon(void **state)
{
	(void)state;
	set_path(".zst");
	const size_t cap = 512 << 10;
	struct trawl_outfile *o;
	struct trawl_error err;
	uint64_t seed = 9;
	assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
	assert_int_equal(trawl_outfile_set_threads(o, 2, &err), TRAWL_OK);
	char *buf = malloc(cap);
	assert_non_null(buf);
	for (int i = 0; i < 8; i++)
		assert_int_equal(trawl_outfile_take(o, &buf, fill(buf, cap, &seed), cap, &err), TRAWL_OK);
	assert_int_equal(trawl_outfile_write(o, buf, 1000, &err), TRAWL_OK);
	assert_int_equal(trawl_outfile_close(o, NULL), TRAWL_OK);
	free(buf);
	/* threads cannot change once text was given */
	assert_int_equal(trawl_outfile_open(&o, path, &err), TRAWL_OK);
	assert_int_equal(trawl_outfile_write(o, "x\n", 2, &err), TRAWL_OK);
	assert_int_equal(trawl_outfile_set_threads(o, 1, &err), TRAWL_ERR_USAGE);
	assert_int_equal(trawl_outfile_close(o, &err), TRAWL_OK);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(empty),
		cmocka_unit_test(full_disk),
		cmocka_unit_test(abandon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
