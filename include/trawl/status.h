/* Status codes and error details shared by every part of libtrawl.
 *
 * Every fallible function returns enum trawl_status. When the caller passes a
 * struct trawl_error, the function fills it with a message and, for bad
 * input, where the problem was found. The library never prints or exits.
 */
#ifndef TRAWL_STATUS_H
#define TRAWL_STATUS_H

#include <stddef.h>
#include <stdint.h>

enum trawl_status {
	TRAWL_OK = 0,
	TRAWL_END = 1,            /* no more data: not an error */
	TRAWL_ERR_NOMEM = -1,
	TRAWL_ERR_IO = -2,        /* the operating system refused (errno kept) */
	TRAWL_ERR_FORMAT = -3,    /* input is not what was expected */
	TRAWL_ERR_CORRUPT = -4,   /* a file of ours is damaged */
	TRAWL_ERR_NOT_FOUND = -5,
	TRAWL_ERR_UNSUPPORTED = -6,
	TRAWL_ERR_USAGE = -7,     /* the caller passed invalid arguments */
	TRAWL_ERR_LIMIT = -8,     /* a configured limit was reached */
	TRAWL_ERR_INTERNAL = -9,
};

/* Where a problem in some input was found. Fields that do not apply are 0
 * (lines and columns count from 1, so 0 means "unknown"). */
struct trawl_error {
	enum trawl_status status;
	int sys_errno;           /* errno for TRAWL_ERR_IO, else 0 */
	char message[1024];      /* room for two full paths and a reason (256 cut a
	                          * perf.data note naming two paths and two build ids) */
	char file[256];          /* input file name, "" if none */
	uint64_t line;
	uint32_t column;
	uint64_t offset;         /* byte offset in the (decompressed) input */
	int has_offset;
	char excerpt[128];       /* the offending line, shortened, may be "" */
	const char *src_file;    /* source location that detected it (CORRUPT) */
	int src_line;
};

/* Short fixed description of a status ("out of memory", ...). */
const char *trawl_status_str(enum trawl_status st);

/* Reset an error record to "no error". err may be NULL. */
void trawl_error_clear(struct trawl_error *err);

/* Record an error; returns st so callers can write `return trawl_error_set(...)`.
 * err may be NULL, in which case only st is returned. */
enum trawl_status trawl_error_set(struct trawl_error *err, enum trawl_status st,
				  const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Same as trawl_error_set, also capturing errno as an I/O failure. */
enum trawl_status trawl_error_errno(struct trawl_error *err, int sys_errno,
				    const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Attach a position in an input to an error already set. line/column 0 = unknown. */
void trawl_error_at(struct trawl_error *err, const char *file, uint64_t line,
		    uint32_t column, uint64_t offset);

/* Attach the text of the offending line (shortened to fit). */
void trawl_error_excerpt(struct trawl_error *err, const char *text, size_t len);

/* Format "file:line:col: message" (whatever parts are known) into buf. */
void trawl_error_format(const struct trawl_error *err, char *buf, size_t size);
/* The same, followed by " (detected at SOURCE:LINE)" when with_source is
 * set and the error records where in our code it was detected (trawl
 * --debug); users are not shown our source paths otherwise. */
void trawl_error_format_ex(const struct trawl_error *err, char *buf, size_t size,
			   int with_source);

/* Mark the code location that noticed corruption (SQLite's CORRUPT_BKPT idea):
 * returns TRAWL_ERR_CORRUPT after recording message and source location. */
#define TRAWL_CORRUPT(err, ...)                                                 \
	trawl_error_corrupt_at((err), __FILE__, __LINE__, __VA_ARGS__)
enum trawl_status trawl_error_corrupt_at(struct trawl_error *err, const char *src_file,
					 int src_line, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

#endif
