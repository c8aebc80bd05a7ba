/* Reading a whole file: one implementation with one limit, so that every
 * whole-file input (definitions, ELF images, snapshot metadata, ini files)
 * fails the same way on the same sizes. */
#include "trawl/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read until end of file, growing the buffer geometrically. The size from
 * fstat is only a first guess: pipes report 0 and a file can grow while it
 * is read. The buffer may grow to one byte past the limit, which tells a
 * file of exactly the limit from a larger one. */
static enum trawl_status read_fd(int fd, const char *path, size_t guess, uint8_t **out,
				 size_t *len, struct trawl_error *err)
{
	const size_t most = TRAWL_FILE_READ_MAX + 1;
	size_t cap = guess ? guess : 65536, n = 0;
	uint8_t *buf = NULL;
	for (;;) {
		if (!buf || n == cap) {
			if (buf)
				cap = cap > most / 2 ? most : cap * 2;
			uint8_t *b = realloc(buf, cap + 1);
			if (!b) {
				free(buf);
				return trawl_error_set(err, TRAWL_ERR_NOMEM,
						       "out of memory reading '%s'", path);
			}
			buf = b;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return trawl_error_errno(err, e, "cannot read '%s'", path);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > TRAWL_FILE_READ_MAX) {
			free(buf);
			return trawl_error_set(err, TRAWL_ERR_LIMIT,
					       "'%s' is larger than 2 GiB, the limit for a file read whole",
					       path);
		}
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return TRAWL_OK;
}

enum trawl_status trawl_file_read_fd(int fd, const char *path, uint8_t **data, size_t *len,
				     struct trawl_error *err)
{
	*data = NULL;
	*len = 0;
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		return trawl_error_errno(err, errno, "cannot stat '%s'", path);
	if (S_ISDIR(sb.st_mode))
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is a directory, not a file",
				       path);
	size_t guess = 0;
	if (S_ISREG(sb.st_mode)) {
		if ((uint64_t)sb.st_size > TRAWL_FILE_READ_MAX)
			return trawl_error_set(err, TRAWL_ERR_LIMIT,
					       "'%s' is larger than 2 GiB, the limit for a file read whole",
					       path);
		guess = (size_t)sb.st_size + 1; /* +1: end of file seen without a regrow */
	}
	return read_fd(fd, path, guess, data, len, err);
}

enum trawl_status trawl_file_read(const char *path, uint8_t **data, size_t *len,
				  struct trawl_error *err)
{
	*data = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	enum trawl_status st = trawl_file_read_fd(fd, path, data, len, err);
	close(fd);
	return st;
}
