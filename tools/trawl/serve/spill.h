/* Arrays of fixed-size records kept on disk, so that trawl serve's memory
 * does not grow with a software-event trace (docs/serve.md, "Memory"):
 * appended through a small buffer to an unlinked temporary file (O_TMPFILE
 * in $TMPDIR or /tmp: nothing is left behind, whatever stops the server),
 * then mapped read-only. Passes over a whole array read it with pread (the
 * pages never enter the process); lookups touch a few pages of the map,
 * which spill_trim gives back. */
#ifndef TRAWL_SERVE_SPILL_H
#define TRAWL_SERVE_SPILL_H

#include <stddef.h>
#include <stdint.h>

struct spill {
	int fd;                     /* -1: not open */
	uint32_t rec;               /* bytes per record */
	uint64_t n;                 /* records (written and buffered) */
	unsigned char *buf;         /* records not written yet */
	size_t used;
	const unsigned char *map;   /* after spill_seal (NULL when empty) */
	size_t map_len;
};

/* 0, or -1 with errno set. */
int spill_open(struct spill *s, uint32_t rec);
int spill_add(struct spill *s, const void *r);
/* Sort the records (before spill_seal): in memory up to 64 MiB, else in
 * sorted runs merged into a new file. */
int spill_sort(struct spill *s, int (*cmp)(const void *, const void *));
/* Records [first, first + n) into out / from in (written ones only). */
int spill_read(const struct spill *s, uint64_t first, uint64_t n, void *out);
int spill_write(struct spill *s, uint64_t first, uint64_t n, const void *in);
/* Write what is buffered and map the file. */
int spill_seal(struct spill *s);
void spill_close(struct spill *s);
/* Give the mapped pages back (they stay in the page cache). */
void spill_trim(struct spill *s);

static inline const void *spill_at(const struct spill *s, uint64_t i)
{
	return s->map + i * s->rec;
}

#endif
