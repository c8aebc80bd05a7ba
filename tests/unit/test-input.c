/* Input layer: every path hands out the same bytes in whole-line chunks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "trawl/input.h"

/* Make n lines of varied length. */
static char *make_text(size_t nlines, size_t *len)
{
	size_t cap = nlines * 80 + 1, n = 0;
	char *s = malloc(cap);
	for (size_t i = 0; i < nlines; i++)
		n += (size_t)snprintf(s + n, cap - n, "%zu clk IT (%zu) %08zx line %.*s\n", i, i,
				      i * 4, (int)(i % 37), "abcdefghijklmnopqrstuvwxyz0123456789...");
	*len = n;
	return s;
}

static char *gzip_bytes(const char *src, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, len) + 64;
	char *dst = malloc(cap);
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)dst;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return dst;
}

/* Read everything through the input, checking the chunk contract, and
 * return the concatenation. */
static char *drain(struct trawl_input *in, size_t *len, size_t *nchunks)
{
	size_t cap = 1 << 20, n = 0;
	char *all = malloc(cap);
	struct trawl_chunk c;
	struct trawl_error err;
	enum trawl_status st;
	*nchunks = 0;
	while ((st = trawl_input_next(in, &c, &err)) == TRAWL_OK) {
		assert_int_equal(c.offset, n);
		if (!c.last && c.len)
			assert_int_equal(c.data[c.len - 1], '\n');
		if (n + c.len > cap) {
			cap = (n + c.len) * 2;
			all = realloc(all, cap);
		}
		memcpy(all + n, c.data, c.len);
		n += c.len;
		(*nchunks)++;
		if (c.last)
			break;
	}
	assert_true(st == TRAWL_OK || st == TRAWL_END);
	assert_int_equal(trawl_input_next(in, &c, &err), TRAWL_END);
	*len = n;
	return all;
}

static void memory_is_one_chunk(void **state)
{
	size_t len, got, chunks;
	char *text = make_text(1000, &len);
	struct trawl_input *in;
	assert_int_equal(trawl_input_open_memory(&in, text, len, "mem", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_input_compression(in), TRAWL_COMPRESSION_NONE);
	char *all = drain(in, &got, &chunks);
	assert_int_equal(got, len);
	assert_memory_equal(all, text, len);
	assert_int_equal(chunks, 1);
	trawl_input_close(in);
	free(all);
	free(text);
}

static void streamed_file_splits_on_lines(void **state)
{
	size_t len, got, chunks;
	char *text = make_text(20000, &len);
	char path[] = "/tmp/trawl-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	struct trawl_input_options opt = { .chunk_size = 4096, .no_mmap = 1 };
	struct trawl_input *in;
	assert_int_equal(trawl_input_open(&in, path, &opt, NULL), TRAWL_OK);
	char *all = drain(in, &got, &chunks);
	assert_int_equal(got, len);
	assert_memory_equal(all, text, len);
	assert_true(chunks > 100);
	assert_int_equal(trawl_input_raw_size(in), len);
	trawl_input_close(in);
	unlink(path);
	free(all);
	free(text);
}

static void gzip_and_zstd_are_transparent(void **state)
{
	size_t len, got, chunks, zlen;
	char *text = make_text(50000, &len);
	struct trawl_input_options opt = { .chunk_size = 8192 };

	char *gz = gzip_bytes(text, len, &zlen);
	struct trawl_input *in;
	assert_int_equal(trawl_input_open_memory(&in, gz, zlen, "t.gz", &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_input_compression(in), TRAWL_COMPRESSION_GZIP);
	char *all = drain(in, &got, &chunks);
	assert_int_equal(got, len);
	assert_memory_equal(all, text, len);
	trawl_input_close(in);
	free(all);

	size_t cap = ZSTD_compressBound(len);
	char *zs = malloc(cap);
	size_t zslen = ZSTD_compress(zs, cap, text, len, 3);
	assert_false(ZSTD_isError(zslen));
	assert_int_equal(trawl_input_open_memory(&in, zs, zslen, "t.zst", &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_input_compression(in), TRAWL_COMPRESSION_ZSTD);
	all = drain(in, &got, &chunks);
	assert_int_equal(got, len);
	assert_memory_equal(all, text, len);
	trawl_input_close(in);
	free(all);
	free(zs);
	free(gz);
	free(text);
}

/* A .gz/.zst cut off mid-stream (a trace still being written): the text
 * decoded before the cut is handed out, a prefix of the original, and
 * trawl_input_cut says what stopped (it was an error with no text). */
static void check_cut(const void *data, size_t len, const char *name, const char *text,
		      size_t textlen)
{
	struct trawl_input *in;
	assert_int_equal(trawl_input_open_memory(&in, data, len, name, NULL, NULL), TRAWL_OK);
	size_t got, chunks;
	char *all = drain(in, &got, &chunks);
	assert_true(got > 0 && got < textlen);
	assert_memory_equal(all, text, got);
	const struct trawl_error *cut = trawl_input_cut(in);
	assert_non_null(cut);
	assert_non_null(strstr(cut->message, "truncated"));
	trawl_input_close(in);
	free(all);
}

static void truncated_compressed_input_is_read_to_the_cut(void **state)
{
	(void)state;
	size_t len, zlen;
	char *text = make_text(50000, &len);
	char *gz = gzip_bytes(text, len, &zlen);
	check_cut(gz, zlen / 2, "t.gz", text, len);
	size_t cap = ZSTD_compressBound(len);
	char *zs = malloc(cap);
	size_t zslen = ZSTD_compress(zs, cap, text, len, 3);
	check_cut(zs, zslen - 10, "t.zst", text, len);
	free(zs);
	free(gz);
	free(text);
}

static void overlong_line_is_limited(void **state)
{
	size_t len = 1 << 20;
	char *text = malloc(len);
	memset(text, 'a', len);
	struct trawl_input_options opt = { .chunk_size = 4096, .max_line = 65536, .no_mmap = 1 };
	char *gz;
	size_t zlen;
	gz = gzip_bytes(text, len, &zlen);
	struct trawl_input *in;
	struct trawl_error err;
	struct trawl_chunk c;
	assert_int_equal(trawl_input_open_memory(&in, gz, zlen, "long.gz", &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_input_next(in, &c, &err), TRAWL_ERR_LIMIT);
	assert_non_null(strstr(err.message, "line longer"));
	trawl_input_close(in);
	free(gz);
	free(text);
}

static void empty_and_missing(void **state)
{
	struct trawl_input *in;
	struct trawl_error err;
	struct trawl_chunk c;
	assert_int_equal(trawl_input_open_memory(&in, "", 0, "empty", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_input_next(in, &c, &err), TRAWL_OK);
	assert_int_equal(c.len, 0);
	assert_int_equal(trawl_input_next(in, &c, &err), TRAWL_END);
	trawl_input_close(in);
	assert_int_equal(trawl_input_open(&in, "/nonexistent/x", NULL, &err), TRAWL_ERR_IO);
	assert_non_null(strstr(err.message, "cannot open '/nonexistent/x'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_is_one_chunk),
		cmocka_unit_test(streamed_file_splits_on_lines),
		cmocka_unit_test(gzip_and_zstd_are_transparent),
		cmocka_unit_test(truncated_compressed_input_is_read_to_the_cut),
		cmocka_unit_test(overlong_line_is_limited),
		cmocka_unit_test(empty_and_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
