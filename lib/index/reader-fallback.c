/* TEMPORARY: weak stand-ins for the reader API (reader.h) so the index and
 * its commands link before the Tarmac reader lands on this branch. They
 * only report that no reader is built in. Delete this file when merging
 * the branch that adds lib/core/reader.c. */
#include "trawl/reader.h"

#define WEAK __attribute__((weak))

WEAK enum trawl_status trawl_reader_open(struct trawl_reader **out, const char *path,
					 const struct trawl_reader_options *opt,
					 struct trawl_error *err)
{
	(void)out;
	(void)opt;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
			       "'%s': no trace reader in this build yet", path);
}

WEAK enum trawl_status trawl_reader_next(struct trawl_reader *r, struct trawl_event_batch *b,
					 struct trawl_error *err)
{
	(void)r;
	(void)b;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "no trace reader in this build yet");
}

WEAK struct trawl_input *trawl_reader_input(struct trawl_reader *r)
{
	(void)r;
	return NULL;
}

WEAK void trawl_reader_close(struct trawl_reader *r)
{
	(void)r;
}
