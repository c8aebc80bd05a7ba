/* Fuzz the seek file reader (lib/text): the input is a seek file for one
 * of two small traces this harness writes at start (first byte: even =
 * gzip, odd = zstd, with tiny deflate blocks and many frames so there are
 * many restart points). Unless bit 1 of that byte is set, the input's
 * identity of the trace is replaced by the current one and its size field
 * and checksums repaired, so mutated points and blobs reach the bounds
 * checks and the decoders instead of being rebuilt at once. Whatever the
 * input, opening and reading must not crash, and every read that succeeds
 * must give the trace's own text: a mismatch aborts.
 * FUZZ_SEEK_SEEDS=DIR writes the two valid seek files there (the seeds). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "trawl/text.h"

static char dir[] = "/tmp/trawl-fuzz-seek-XXXXXX";
static char *plain;
static size_t plain_len;
static uint8_t *good[2];       /* the valid seek files of this run */
static size_t good_len[2];
static const char *const names[2] = { "t.gz", "t.zst" };

static void make_plain(void)
{
	plain = malloc(40000);
	for (uint32_t i = 0, x = 12345; plain_len < 20000; i++) {
		x = x * 1103515245u + 12345u;
		plain_len += (size_t)sprintf(plain + plain_len, "%u clk IT (%u) %08x %08x ADD x%u\n",
					     i, i, 0x80000 + (x >> 20) * 4, x, (x >> 8) % 31);
	}
}

static void write_traces(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/t.gz", dir);
	FILE *f = fopen(path, "wb");
	z_stream s;
	memset(&s, 0, sizeof s);
	deflateInit2(&s, 6, Z_DEFLATED, 31, 1, Z_DEFAULT_STRATEGY);
	static unsigned char out[80000];
	s.next_in = (unsigned char *)plain;
	s.avail_in = (uInt)plain_len;
	s.next_out = out;
	s.avail_out = sizeof out;
	deflate(&s, Z_FINISH);
	fwrite(out, 1, sizeof out - s.avail_out, f);
	deflateEnd(&s);
	fclose(f);
	snprintf(path, sizeof path, "%s/t.zst", dir);
	f = fopen(path, "wb");
	for (size_t at = 0, k = 0; at < plain_len; k++) {
		size_t n = k % 4 == 3 ? 3000 : 150;
		n = n > plain_len - at ? plain_len - at : n;
		size_t z = ZSTD_compress(out, sizeof out, plain + at, n, 1);
		fwrite(out, 1, z, f);
		at += n;
	}
	fclose(f);
}

static struct trawl_text *open_text(int which, struct trawl_error *err)
{
	char path[256], seek[256];
	snprintf(path, sizeof path, "%s/%s", dir, names[which]);
	snprintf(seek, sizeof seek, "%s/%s.seek", dir, names[which]);
	struct trawl_text_options o = { .seek_path = seek, .span = 4096 };
	struct trawl_text *t = NULL;
	return trawl_text_open(&t, path, &o, err) == TRAWL_OK ? t : NULL;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		abort();
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(*n);
	if (fread(p, 1, *n, f) != *n)
		abort();
	fclose(f);
	return p;
}

static void cleanup(void)
{
	char path[256];
	for (int w = 0; w < 2; w++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[w]);
		unlink(path);
		snprintf(path, sizeof path, "%s/%s.seek", dir, names[w]);
		unlink(path);
	}
	rmdir(dir);
}

static void setup(void)
{
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	make_plain();
	write_traces();
	const char *seeds = getenv("FUZZ_SEEK_SEEDS");
	for (int w = 0; w < 2; w++) {
		struct trawl_error err;
		struct trawl_text *t = open_text(w, &err);
		if (!t)
			abort();
		trawl_text_close(t);
		char seek[256];
		snprintf(seek, sizeof seek, "%s/%s.seek", dir, names[w]);
		good[w] = slurp(seek, &good_len[w]);
		if (seeds) {
			char out[512];
			snprintf(out, sizeof out, "%s/%s.seek", seeds, names[w]);
			FILE *f = fopen(out, "wb");
			fputc(w, f);
			fwrite(good[w], 1, good_len[w], f);
			fclose(f);
		}
	}
}

static void st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* This run's identity, the size field and both checksums. */
static void repair(uint8_t *p, size_t n, int w)
{
	if (n < 256)
		return;
	memcpy(p + 24, good[w] + 24, 56);
	st64(p + 16, n);
	uint64_t toff = 0;
	for (int i = 7; i >= 0; i--)
		toff = toff << 8 | p[96 + i];
	if (toff >= 256 && toff <= n)
		st64(p + 104, XXH3_64bits(p + toff, n - toff));
	st64(p + 248, XXH3_64bits(p, 248));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!plain)
		setup();
	if (size < 1)
		return 0;
	int w = data[0] & 1;
	size_t n = size - 1;
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, data + 1, n);
	if (!(data[0] & 2))
		repair(p, n, w);
	char seek[256];
	snprintf(seek, sizeof seek, "%s/%s.seek", dir, names[w]);
	FILE *f = fopen(seek, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
	free(p);
	struct trawl_error err;
	struct trawl_text *t = open_text(w, &err);
	if (!t)
		return 0;
	uint32_t x = (uint32_t)size * 2654435761u;
	for (int i = 0; i < 24; i++) {
		x = x * 1103515245u + 12345u;
		uint64_t off = i < 8 ? (uint64_t)i * plain_len / 8 : x % (plain_len + 4);
		size_t len = 1 + (x >> 8) % 2000, got;
		const char *q;
		if (trawl_text_get(t, off, len, &q, &got, &err) != TRAWL_OK)
			continue;
		size_t want = off >= plain_len ? 0 : (len < plain_len - off ? len : plain_len - off);
		if (got != want || (want && memcmp(q, plain + off, want) != 0))
			abort(); /* wrong text handed out */
	}
	trawl_text_close(t);
	return 0;
}
