/* Speed of the identity hash and of the block checks, beside a plain read
 * of the same bytes (all from the page cache): MB/s of
 *   read     read() of the trace in 1 MiB pieces, nothing else
 *   hash     trawl_trace_id_hash (XXH3-64 of every byte; what the first
 *            use after cp -a / touch / chmod costs)
 *   verify   trawl_index_verify of the index (every block checksum and
 *            section checksum: what trawl index and info --verify cost)
 * Each is run 3 times; the best time is printed.
 * Usage: bench-hash-speed TRACE INDEX */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trawl/index.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int plain_read(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	static char buf[1 << 20];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		;
	close(fd);
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s TRACE INDEX\n", argv[0]);
		return 2;
	}
	struct stat st, si;
	if (stat(argv[1], &st) || stat(argv[2], &si))
		return 1;
	double best[3] = { 1e9, 1e9, 1e9 };
	struct trawl_error err;
	for (int rep = 0; rep < 3; rep++) {
		double t = now_s();
		if (plain_read(argv[1]))
			return 1;
		if (now_s() - t < best[0])
			best[0] = now_s() - t;
		struct trawl_trace_id id;
		t = now_s();
		if (trawl_trace_id_get(argv[1], &id, &err) || trawl_trace_id_hash(argv[1], &id, &err)) {
			fprintf(stderr, "%s\n", err.message);
			return 1;
		}
		if (now_s() - t < best[1])
			best[1] = now_s() - t;
		struct trawl_index *ix;
		if (trawl_index_open(&ix, argv[2], NULL, &err)) {
			fprintf(stderr, "%s\n", err.message);
			return 1;
		}
		t = now_s();
		if (trawl_index_verify(ix, &err)) {
			fprintf(stderr, "%s\n", err.message);
			return 1;
		}
		if (now_s() - t < best[2])
			best[2] = now_s() - t;
		trawl_index_close(ix);
	}
	double mb = (double)st.st_size / 1e6, imb = (double)si.st_size / 1e6;
	printf("read %.0f\nhash %.0f\nverify %.0f\nread_s %.3f\nhash_s %.3f\nverify_s %.3f\n",
	       mb / best[0], mb / best[1], imb / best[2], best[0], best[1], best[2]);
	return 0;
}
