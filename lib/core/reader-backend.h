/* What a format reader provides to the dispatcher in reader.c. Adding a
 * format (ETE, recorded software events ...) means one more backend and one
 * line in reader.c's table; detection stays in one place. */
#ifndef TRAWL_READER_BACKEND_H
#define TRAWL_READER_BACKEND_H

#include "trawl/reader.h"

struct trawl_reader_backend {
	enum trawl_format format;
	const char *name;
	/* How sure the backend is that the start of an input is its format:
	 * 0 = not this format; larger = more confident. `data` is the first
	 * chunk of the (decompressed) input, possibly empty. */
	int (*probe)(const char *data, size_t len);
	/* Start reading. `first` is the chunk the dispatcher already read for
	 * detection (NULL when the input was empty); `in` stays owned by the
	 * dispatcher. */
	enum trawl_status (*open)(void **state, struct trawl_input *in,
				  const struct trawl_chunk *first,
				  const struct trawl_reader_options *opt, struct trawl_error *err);
	enum trawl_status (*next)(void *state, struct trawl_event_batch *batch,
				  struct trawl_error *err);
	const struct trawl_reader_stats *(*stats)(const void *state);
	void (*close)(void *state);
	/* Formats whose trace is a directory (CTF): open it by path; NULL
	 * for the others. The dispatcher gives such a reader an empty input
	 * named after the directory. */
	enum trawl_status (*open_dir)(void **state, const char *path,
				      const struct trawl_reader_options *opt, struct trawl_error *err);
	/* Directory formats: how sure the backend is that the directory at
	 * path is its format (as probe); NULL: the backend takes any
	 * directory it is asked to open. */
	int (*probe_dir)(const char *path);
	/* Decoding backends (ETE): the program image the trace is decoded
	 * with; NULL (or a NULL hook) for traces that record their memory. */
	const struct trawl_ete_image *(*image)(const void *state);
};

extern const struct trawl_reader_backend trawl_tarmac_backend;
extern const struct trawl_reader_backend trawl_ctf_backend;
extern const struct trawl_reader_backend trawl_bfdump_backend;
extern const struct trawl_reader_backend trawl_ete_backend;

#endif
