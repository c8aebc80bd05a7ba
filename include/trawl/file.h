/* Reading a whole (small) file into memory: definitions, images, snapshot
 * metadata, ini files. Traces never go through here; they are streamed or
 * mapped by trawl_input (input.h). */
#ifndef TRAWL_FILE_H
#define TRAWL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* The one limit for a file read whole: larger files are refused with
 * TRAWL_ERR_LIMIT rather than exhausting memory. 2 GiB fits the largest
 * program image trawl loads; every other whole-file input is far smaller. */
#define TRAWL_FILE_READ_MAX ((size_t)1 << 31)

/* Read all of path (a regular file, a pipe or a character device such as
 * /dev/stdin) into a new buffer. *data is NUL-terminated one byte past *len,
 * so text parsers may treat it as a string; free it with free(). On failure
 * *data is NULL, *len 0, and err names the file. */
enum trawl_status trawl_file_read(const char *path, uint8_t **data, size_t *len,
				  struct trawl_error *err);
/* The same from a descriptor the caller opened (and closes), named path
 * in errors: for a caller that checked what the open file is first. */
enum trawl_status trawl_file_read_fd(int fd, const char *path, uint8_t **data, size_t *len,
				     struct trawl_error *err);

#endif
