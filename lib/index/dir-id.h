/* Identity of a trace directory and of a definitions file (dir-id.c). */
#ifndef TRAWL_INDEX_DIR_ID_H
#define TRAWL_INDEX_DIR_ID_H

#include <sys/stat.h>

#include "trawl/index.h"
#include "trawl/reader.h"

/* Its regular files' sizes summed, their latest times, the directory's
 * inode and device. */
enum trawl_status idx_dir_stat(const char *dir, const struct stat *dsb, struct trawl_trace_id *id,
			       struct trawl_error *err);
/* A hash over the files' names, sizes and bytes, in name order. */
enum trawl_status idx_dir_hash(const char *dir, struct trawl_trace_id *id, struct trawl_error *err);
/* id->defs_hash: XXH3-64 of the definitions file at path (has_defs set). */
void idx_defs_hash(const char *path, struct trawl_trace_id *id);
/* The ETE reader's options and the files they name (registers, TRBE
 * pointers, images), hashed for id->reader_hash (never 0). */
uint64_t idx_ete_options_hash(const struct trawl_reader_options *o);
/* A perf.data: the mapped files it resolves to and the perf options
 * (--symfs, --binary-dir, --vmlinux, --kallsyms, with the files' bytes)
 * mixed into id->reader_hash; other traces unchanged. */
enum trawl_status idx_perf_hash(const char *trace_path, const struct trawl_reader_options *o,
				struct trawl_trace_id *id, struct trawl_error *err);

#endif
