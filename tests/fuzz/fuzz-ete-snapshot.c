/* The ETE trawl_reader backend on a snapshot directory, the multi-buffer
 * path: the input is the snapshot's files, separated by the 4 bytes
 * "\n%%\n", in this order: snapshot.ini, trace.ini, ETE_0.ini, ETE_1.ini,
 * cpu_0.ini, trace.bin, trace1.bin (a part left out: no such file). They
 * are written to a directory of this process (the loader opens files by
 * the names the ini files give, so the ini text decides what is read);
 * code.bin is a fixed 16-byte program (b.ne, nop, nop, ret) the cpu ini
 * can name as a dump. The snapshot is read whole, then again with
 * --ete-buffer ETB_1, and its identity's file list is walked (what an
 * index of it hashes). Checks what the events promise, as
 * fuzz-ete-reader does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/ete.h"
#include "trawl/reader.h"

static const uint8_t prog[16] = {
	0x61, 0x00, 0x00, 0x54, 0x1f, 0x20, 0x03, 0xd5,
	0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6,
};

static const char *const order[] = { "snapshot.ini", "trace.ini", "ETE_0.ini", "ETE_1.ini",
				     "cpu_0.ini", "trace.bin", "trace1.bin" };
#define NPARTS (sizeof order / sizeof *order)

static char dir[64];

static int put(const char *name, const uint8_t *data, size_t len)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = len ? fwrite(data, 1, len, f) : 0;
	return fclose(f) == 0 && w == len ? 0 : -1;
}

static void check(const struct trawl_event_batch *b, uint64_t *seq)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *e = &b->events[i];
		if (e->seq != (*seq)++ || e->line != e->seq + 1)
			abort();
		if (e->kind == TRAWL_EV_INSN && e->u.insn.width != 2 && e->u.insn.width != 4)
			abort();
		if (e->kind == TRAWL_EV_EXCEPTION && e->u.exc.name.len &&
		    (!e->u.exc.name.ptr || memchr(e->u.exc.name.ptr, 0, e->u.exc.name.len)))
			abort();
	}
}

static void read_all(const char *buffer)
{
	struct trawl_reader_options o = { .format = TRAWL_FORMAT_ETE, .ete_buffer = buffer,
					  .batch_events = 7 };
	struct trawl_reader *r;
	struct trawl_error err;
	if (trawl_reader_open(&r, dir, &o, &err) != TRAWL_OK)
		return;
	struct trawl_event_batch b;
	uint64_t seq = 0;
	while (trawl_reader_next(r, &b, &err) == TRAWL_OK && seq < 10000000)
		check(&b, &seq);
	trawl_reader_close(r);
}

static void count_file(void *ctx, const char *path)
{
	if (!path || !*path)
		abort();
	++*(size_t *)ctx;
}

/* The directory goes when the process ends (libFuzzer exits through exit). */
static void remove_dir(void)
{
	char path[128];
	for (size_t i = 0; i < NPARTS; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, order[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/code.bin", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/fuzz-ete-snapshot.XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = 0;
			return 0;
		}
		atexit(remove_dir);
		if (put("code.bin", prog, sizeof prog)) {
			dir[0] = 0;
			return 0;
		}
	}
	/* every part of the last input removed first: an absent part is no file */
	for (size_t i = 0; i < NPARTS; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", dir, order[i]);
		unlink(path);
	}
	const uint8_t *p = data, *end = data + size;
	for (size_t i = 0; i < NPARTS && p <= end; i++) {
		const uint8_t *sep = memmem(p, (size_t)(end - p), "\n%%\n", 4);
		const uint8_t *e = sep ? sep : end;
		if (put(order[i], p, (size_t)(e - p)))
			return 0;
		if (!sep)
			break;
		p = sep + 4;
	}
	read_all(NULL);
	read_all("ETB_1");
	size_t n = 0;
	trawl_ete_snapshot_files(dir, count_file, &n);
	return 0;
}
