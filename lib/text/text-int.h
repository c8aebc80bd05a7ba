/* The text object (include/trawl/text.h), shared by text.c (reading) and
 * text-seek.c (finding, checking and building the seek file). */
#ifndef TRAWL_TEXT_INT_H
#define TRAWL_TEXT_INT_H

#include "text/seek.h"
#include "trawl/text.h"

#define TEXT_CACHE 2

struct text_span {
	uint64_t idx, tick;
	char *buf;
	size_t len, cap;
	int valid;
};

struct trawl_text {
	char *path;
	struct trawl_text_options opt;
	enum trawl_compression comp;
	int fd;
	const uint8_t *map;         /* the trace file: the text itself when plain */
	uint64_t size;
	/* compressed: the seek file, mapped */
	char *seek_path;
	int in_memory;              /* nowhere to write it: an unlinked memfd */
	int rebuilt;                /* built again after damage, in this process */
	int seek_fd;
	uint8_t *seek_map;
	uint64_t seek_size;
	struct seek_table tab;
	struct text_span cache[TEXT_CACHE];
	uint64_t tick;
	char *scratch;
	size_t scratch_cap;
};

/* Find a matching seek file or build one. */
enum trawl_status text_seek_open(struct trawl_text *t, struct trawl_error *err);
/* Build it again (after damage was met reading it); why goes to the note. */
enum trawl_status text_seek_rebuild(struct trawl_text *t, const char *why,
				    struct trawl_error *err);
void text_seek_release(struct trawl_text *t);

#endif
