/* Status strings and the error record. */
#include "trawl/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *trawl_status_str(enum trawl_status st)
{
	switch (st) {
	case TRAWL_OK: return "success";
	case TRAWL_END: return "end of data";
	case TRAWL_ERR_NOMEM: return "out of memory";
	case TRAWL_ERR_IO: return "input/output error";
	case TRAWL_ERR_FORMAT: return "bad input format";
	case TRAWL_ERR_CORRUPT: return "corrupt file";
	case TRAWL_ERR_NOT_FOUND: return "not found";
	case TRAWL_ERR_UNSUPPORTED: return "unsupported";
	case TRAWL_ERR_USAGE: return "invalid arguments";
	case TRAWL_ERR_LIMIT: return "limit exceeded";
	case TRAWL_ERR_INTERNAL: return "internal error";
	}
	return "unknown status";
}

void trawl_error_clear(struct trawl_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}

static void set_message(struct trawl_error *err, enum trawl_status st, const char *fmt,
			va_list ap)
{
	trawl_error_clear(err);
	err->status = st;
	vsnprintf(err->message, sizeof err->message, fmt, ap);
}

enum trawl_status trawl_error_set(struct trawl_error *err, enum trawl_status st,
				  const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		set_message(err, st, fmt, ap);
		va_end(ap);
	}
	return st;
}

enum trawl_status trawl_error_errno(struct trawl_error *err, int sys_errno,
				    const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		set_message(err, TRAWL_ERR_IO, fmt, ap);
		va_end(ap);
		err->sys_errno = sys_errno;
		size_t n = strlen(err->message);
		snprintf(err->message + n, sizeof err->message - n, ": %s", strerror(sys_errno));
	}
	return TRAWL_ERR_IO;
}

enum trawl_status trawl_error_corrupt_at(struct trawl_error *err, const char *src_file,
					 int src_line, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		set_message(err, TRAWL_ERR_CORRUPT, fmt, ap);
		va_end(ap);
		err->src_file = src_file;
		err->src_line = src_line;
	}
	return TRAWL_ERR_CORRUPT;
}

void trawl_error_at(struct trawl_error *err, const char *file, uint64_t line,
		    uint32_t column, uint64_t offset)
{
	if (!err)
		return;
	if (file)
		snprintf(err->file, sizeof err->file, "%s", file);
	err->line = line;
	err->column = column;
	err->offset = offset;
	err->has_offset = 1;
}

void trawl_error_excerpt(struct trawl_error *err, const char *text, size_t len)
{
	if (!err)
		return;
	size_t max = sizeof err->excerpt - 4;
	size_t n = len < max ? len : max;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		err->excerpt[i] = (c >= 0x20 && c < 0x7f) || c == '\t' ? (char)c : '?';
	}
	if (len > max)
		memcpy(err->excerpt + n, "...", 3), n += 3;
	err->excerpt[n] = 0;
}

void trawl_error_format(const struct trawl_error *err, char *buf, size_t size)
{
	trawl_error_format_ex(err, buf, size, 0);
}

void trawl_error_format_ex(const struct trawl_error *err, char *buf, size_t size,
			   int with_source)
{
	size_t n = 0;
	if (size == 0)
		return;
	buf[0] = 0;
	if (err->file[0])
		n += (size_t)snprintf(buf + n, size - n, "%s:", err->file);
	if (n < size && err->line) {
		n += (size_t)snprintf(buf + n, size - n, "%llu:", (unsigned long long)err->line);
		if (n < size && err->column)
			n += (size_t)snprintf(buf + n, size - n, "%u:", err->column);
	} else if (n < size && err->has_offset && err->file[0]) {
		n += (size_t)snprintf(buf + n, size - n, "offset %llu:",
				      (unsigned long long)err->offset);
	}
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "",
				      err->message[0] ? err->message : trawl_status_str(err->status));
	if (n < size && err->src_file && with_source)
		snprintf(buf + n, size - n, " (detected at %s:%d)", err->src_file, err->src_line);
}
