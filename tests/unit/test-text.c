/* Random access to trace text (trawl_text_*) against the plain bytes: the
 * same text compressed here with zlib and libzstd in every shape the seek
 * file handles (one gzip member, many members with an empty one, gzip at
 * level 1 and 9; one zstd frame, many small frames, a skippable frame, a
 * frame without a content size, frames too big to be restart points) must
 * read back byte for byte at random offsets, with small spans so there are
 * many restart points. Then the seek file is damaged (every region: header,
 * windows, copied frames, table; flipped bytes and truncation): each read
 * still gives the right text (the damage is found and the file built
 * again) or an error, never other text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "trawl/text.h"

static char dir[] = "/tmp/trawl-test-text-XXXXXX";
static char *plain;
static size_t plain_len;
static int notes;

static void count_note(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	notes++;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Tarmac-like lines with enough variety that deflate makes many blocks. */
static void make_plain(void)
{
	size_t cap = 700000;
	plain = malloc(cap + 200);
	plain_len = 0;
	for (uint64_t i = 0; plain_len < cap; i++) {
		uint64_t r = next();
		plain_len += (size_t)sprintf(plain + plain_len,
					     "%llu clk IT (%llu) %08llx %08llx O EL1h_ns : ADD x%u,x%u,#%u\r\n",
					     (unsigned long long)i * 3, (unsigned long long)i,
					     (unsigned long long)(0x80000 + (r & 0xffff) * 4),
					     (unsigned long long)(r >> 32), (unsigned)(r % 31),
					     (unsigned)(r >> 8) % 31, (unsigned)(r >> 16) % 4096);
		if (r % 5 == 0)
			plain_len += (size_t)sprintf(plain + plain_len, "%llu clk R X%u %016llx\n",
						     (unsigned long long)i * 3,
						     (unsigned)(r % 31), (unsigned long long)r);
	}
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* memlevel 1 makes deflate blocks of about a hundred symbols: many
 * restart points, at every bit position */
static void append_gzip(FILE *f, const char *p, size_t n, int level, int memlevel)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	assert_int_equal(deflateInit2(&s, level, Z_DEFLATED, 31, memlevel, Z_DEFAULT_STRATEGY),
			 Z_OK);
	size_t cap = deflateBound(&s, n);
	unsigned char *out = malloc(cap);
	s.next_in = (unsigned char *)p;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
	fwrite(out, 1, cap - s.avail_out, f);
	deflateEnd(&s);
	free(out);
}

static void append_zstd(FILE *f, const char *p, size_t n, int sized)
{
	size_t cap = ZSTD_compressBound(n);
	char *out = malloc(cap);
	size_t k;
	if (sized) {
		k = ZSTD_compress(out, cap, p, n, 3);
	} else {
		/* streaming without a pledged size: no content size in the frame */
		ZSTD_CCtx *c = ZSTD_createCCtx();
		ZSTD_inBuffer in = { p, n, 0 };
		ZSTD_outBuffer o = { out, cap, 0 };
		assert_int_equal(ZSTD_compressStream2(c, &o, &in, ZSTD_e_end), 0);
		k = o.pos;
		ZSTD_freeCCtx(c);
	}
	assert_false(ZSTD_isError(k));
	fwrite(out, 1, k, f);
	free(out);
}

/* The compressed copies: name -> file. */
static void make_copies(void)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/one.gz", dir);
	f = fopen(path, "wb");
	append_gzip(f, plain, plain_len, 6, 8);
	fclose(f);
	snprintf(path, sizeof path, "%s/fast.gz", dir);
	f = fopen(path, "wb");
	append_gzip(f, plain, plain_len, 1, 1);
	fclose(f);
	snprintf(path, sizeof path, "%s/members.gz", dir);
	f = fopen(path, "wb");
	for (size_t at = 0, k = 0; at < plain_len; k++) {
		size_t n = k == 3 ? 0 : 1000 + next() % 40000;
		n = n > plain_len - at ? plain_len - at : n;
		append_gzip(f, plain + at, n, k % 2 ? 9 : 6, 8);
		at += n;
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/one.zst", dir);
	f = fopen(path, "wb");
	append_zstd(f, plain, plain_len, 1);
	fclose(f);
	snprintf(path, sizeof path, "%s/frames.zst", dir);
	f = fopen(path, "wb");
	static const unsigned char skip[12] = { 0x52, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4 };
	for (size_t at = 0, k = 0; at < plain_len; k++) {
		/* mostly small frames, some bigger than two spans, one unsized */
		size_t n = k % 7 == 6 ? 20000 + next() % 30000 : 100 + next() % 3000;
		n = n > plain_len - at ? plain_len - at : n;
		if (k == 5)
			fwrite(skip, 1, sizeof skip, f);
		append_zstd(f, plain + at, n, k != 9);
		at += n;
	}
	fclose(f);
}

static const char *const copies[] = { "one.gz", "fast.gz", "members.gz", "one.zst",
				      "frames.zst" };

static struct trawl_text *open_text(const char *name, uint32_t span)
{
	char path[256], seek[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(seek, sizeof seek, "%s/%s.seek", dir, name);
	struct trawl_text_options o = { .seek_path = seek, .span = span, .note = count_note };
	struct trawl_text *t = NULL;
	struct trawl_error err;
	enum trawl_status st = trawl_text_open(&t, path, &o, &err);
	if (st)
		fail_msg("%s: %s", name, err.message);
	return t;
}

/* n random reads: the right bytes, or (when allow_err) an error. */
static int check_reads(struct trawl_text *t, int n, int allow_err)
{
	int errors = 0;
	for (int i = 0; i < n; i++) {
		uint64_t off = next() % (plain_len + 10);
		size_t len = (size_t)(next() % (i % 10 == 0 ? 20000 : 300)) + 1;
		const char *p;
		size_t got;
		struct trawl_error err;
		if (trawl_text_get(t, off, len, &p, &got, &err) != TRAWL_OK) {
			if (!allow_err)
				fail_msg("read %llu+%zu: %s", (unsigned long long)off, len, err.message);
			errors++;
			continue;
		}
		size_t want = off >= plain_len ? 0 : (len < plain_len - off ? len : plain_len - off);
		assert_int_equal(got, want);
		if (want && memcmp(p, plain + off, want) != 0)
			fail_msg("read %llu+%zu: other text", (unsigned long long)off, len);
	}
	return errors;
}

static void plain_and_compressed_agree(void **state)
{
	(void)state;
	struct trawl_text *t = open_text("plain", 0);
	assert_int_equal(trawl_text_compression(t), TRAWL_COMPRESSION_NONE);
	assert_int_equal(trawl_text_size(t), plain_len);
	check_reads(t, 500, 0);
	trawl_text_close(t);
	for (size_t c = 0; c < sizeof copies / sizeof *copies; c++) {
		notes = 0;
		t = open_text(copies[c], 4096);
		assert_int_equal(trawl_text_size(t), plain_len);
		assert_true(trawl_text_seek_size(t) > 256);
		check_reads(t, 3000, 0);
		/* a line at a random line start, without its \r\n */
		for (int i = 0; i < 200; i++) {
			uint64_t off = next() % plain_len;
			while (off && plain[off - 1] != '\n')
				off--;
			const char *p;
			size_t n;
			assert_int_equal(trawl_text_line(t, off, 1 << 20, &p, &n, NULL), TRAWL_OK);
			const char *nl = memchr(plain + off, '\n', plain_len - off);
			size_t want = (size_t)(nl - (plain + off));
			if (want && plain[off + want - 1] == '\r')
				want--;
			assert_int_equal(n, want);
			assert_memory_equal(p, plain + off, n);
		}
		trawl_text_close(t);
		assert_int_equal(notes, 0);
		/* the second open uses the file as it is */
		t = open_text(copies[c], 4096);
		check_reads(t, 200, 0);
		trawl_text_close(t);
		assert_int_equal(notes, 0);
	}
}

static void default_span_too(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof copies / sizeof *copies; c++) {
		char seek[256];
		snprintf(seek, sizeof seek, "%s/%s.seek", dir, copies[c]);
		unlink(seek);
		struct trawl_text *t = open_text(copies[c], 0);
		check_reads(t, 300, 0);
		trawl_text_close(t);
		unlink(seek); /* the damage test wants many points */
	}
}

/* Damage one byte (or cut the file) of a freshly built seek file, then
 * read: always the right text. Returns 1 when the damage was noticed. */
static int damage_once(const char *name, uint64_t at, int cut)
{
	char seek[256];
	snprintf(seek, sizeof seek, "%s/%s.seek", dir, name);
	struct trawl_text *t = open_text(name, 4096); /* (re)builds it if needed */
	trawl_text_close(t);
	FILE *f = fopen(seek, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	at %= (uint64_t)size;
	if (cut) {
		assert_int_equal(ftruncate(fileno(f), (off_t)at), 0);
	} else {
		fseek(f, (long)at, SEEK_SET);
		int ch = fgetc(f);
		fseek(f, (long)at, SEEK_SET);
		fputc(ch ^ (1 << (next() % 8)), f);
	}
	fclose(f);
	notes = 0;
	t = open_text(name, 4096);
	/* every span once, in order, then random reads */
	for (uint64_t off = 0; off < plain_len; off += 4096) {
		const char *p;
		size_t got;
		assert_int_equal(trawl_text_get(t, off, 100, &p, &got, NULL), TRAWL_OK);
		assert_memory_equal(p, plain + off, got);
	}
	check_reads(t, 50, 0);
	trawl_text_close(t);
	return notes > 0;
}

static void damage_is_found(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof copies / sizeof *copies; c++) {
		int noticed = 0, tries = 20;
		for (int i = 0; i < tries; i++)
			noticed += damage_once(copies[c], next(), 0);
		for (int i = 0; i < 4; i++)
			assert_true(damage_once(copies[c], next(), 1));
		/* only the zero padding between blobs goes unnoticed, and it
		 * changes no text */
		if (noticed < tries * 8 / 10)
			fail_msg("%s: only %d of %d flips noticed", copies[c], noticed, tries);
	}
}

static void not_a_seek_file(void **state)
{
	(void)state;
	char path[256], seek[256];
	snprintf(path, sizeof path, "%s/one.gz", dir);
	snprintf(seek, sizeof seek, "%s/precious", dir);
	write_file(seek, "my notes\n", 9);
	struct trawl_text_options o = { .seek_path = seek };
	struct trawl_text *t;
	struct trawl_error err;
	assert_int_equal(trawl_text_open(&t, path, &o, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "not a seek file"));
	struct stat sb;
	assert_int_equal(stat(seek, &sb), 0);
	assert_int_equal(sb.st_size, 9);
}

static void changed_trace_rebuilds(void **state)
{
	(void)state;
	char path[256];
	struct trawl_text *t = open_text("one.gz", 4096);
	trawl_text_close(t);
	/* the same name now holds other text (the first half) */
	snprintf(path, sizeof path, "%s/one.gz", dir);
	FILE *f = fopen(path, "wb");
	size_t half = plain_len / 2;
	append_gzip(f, plain, half, 6, 8);
	fclose(f);
	notes = 0;
	t = open_text("one.gz", 4096);
	assert_int_equal(notes, 1);
	assert_int_equal(trawl_text_size(t), half);
	trawl_text_close(t);
	f = fopen(path, "wb");
	append_gzip(f, plain, plain_len, 6, 8);
	fclose(f);
}

/* A trace cut off while it was compressed (the writer had not finished):
 * its text is what decodes before the cut, the plain text's prefix, at
 * every offset; corrupt data is refused, naming the file. */
static void bad_compressed_data(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof path, "%s/cut.gz", dir);
	FILE *f = fopen(path, "wb");
	append_gzip(f, plain, plain_len, 6, 8);
	long n = ftell(f);
	fflush(f); /* else fclose writes the buffered tail after the cut */
	assert_int_equal(ftruncate(fileno(f), n / 2), 0);
	fclose(f);
	struct trawl_text *t;
	struct trawl_error err;
	assert_int_equal(trawl_text_open(&t, path, NULL, &err), TRAWL_OK);
	uint64_t size = trawl_text_size(t);
	assert_true(size > plain_len / 4 && size < plain_len);
	for (uint64_t off = 0; off < size; off += size / 7 + 1) {
		size_t len = size - off < 5000 ? (size_t)(size - off) : 5000;
		const char *p;
		size_t got;
		assert_int_equal(trawl_text_get(t, off, len, &p, &got, &err), TRAWL_OK);
		assert_int_equal(got, len);
		assert_memory_equal(p, plain + off, len);
	}
	trawl_text_close(t);

	snprintf(path, sizeof path, "%s/bad.gz", dir);
	f = fopen(path, "wb");
	append_gzip(f, plain, plain_len, 6, 8);
	n = ftell(f);
	fclose(f);
	/* a run of bytes in the middle of the deflate data */
	f = fopen(path, "r+b");
	fseek(f, n / 2, SEEK_SET);
	fwrite("\xff\xff\xff\xff\xff\xff\xff\xff", 1, 8, f);
	fclose(f);
	assert_int_equal(trawl_text_open(&t, path, NULL, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "bad.gz"));
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	make_plain();
	char path[256];
	snprintf(path, sizeof path, "%s/plain", dir);
	write_file(path, plain, plain_len);
	make_copies();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_and_compressed_agree),
		cmocka_unit_test(default_span_too),
		cmocka_unit_test(damage_is_found),
		cmocka_unit_test(not_a_seek_file),
		cmocka_unit_test(changed_trace_rebuilds),
		cmocka_unit_test(bad_compressed_data),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "%s %s", getenv("KEEP") ? "echo" : "rm -rf", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
