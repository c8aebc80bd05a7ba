/* For harnesses whose library entry point takes a path: the input as an
 * in-memory file. Returns its descriptor (close it when done) with its
 * /proc path in path, or -1. */
#ifndef TRAWL_FUZZ_MEMFD_H
#define TRAWL_FUZZ_MEMFD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfd(const char *name, const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create(name, 0);
	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
