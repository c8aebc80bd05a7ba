/* Shared CLI helpers: consistent messages, exit codes and progress. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int lossy;

void cli_mark_lossy(void)
{
	lossy = 1;
}

int cli_lossy(void)
{
	return lossy;
}

static void vmessage(const char *kind, const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "trawl: ");
	if (cmd && *cmd)
		fprintf(stderr, "%s: ", cmd);
	if (kind)
		fprintf(stderr, "%s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Per thread: trawl serve's worker reports through cli_report too. */
static _Thread_local char last_error[1024];

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(NULL, cmd, fmt, ap);
	va_end(ap);
	/* what trawl serve's page shows of a failed trace */
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
}

/* Per thread too: the warnings trawl serve's page repeats for a trace
 * that was built (a cut trace answers, but not all of it is there). */
static _Thread_local char warnings[1024];

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", cmd, fmt, ap);
	va_end(ap);
	size_t used = strlen(warnings);
	if (used + 4 >= sizeof warnings)
		return;
	if (used) {
		memcpy(warnings + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	int n = vsnprintf(warnings + used, sizeof warnings - used, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n >= sizeof warnings - used)
		memcpy(warnings + sizeof warnings - 4, "...", 4);
}

const char *cli_warnings(void)
{
	return warnings;
}

int cli_warned(const char *msg)
{
	size_t n = strlen(msg);
	for (const char *p = warnings; n && (p = strstr(p, msg)); p++)
		if ((p == warnings || (p - warnings >= 2 && !memcmp(p - 2, "; ", 2))) &&
		    (p[n] == 0 || !strncmp(p + n, "; ", 2)))
			return 1;
	return 0;
}

void cli_warnings_clear(void)
{
	warnings[0] = 0;
}

int cli_debug;


const char *cli_last_error(void)
{
	return last_error;
}

int cli_report(const char *cmd, const struct trawl_error *err)
{
	char buf[1024];
	trawl_error_format_ex(err, buf, sizeof buf, cli_debug);
	snprintf(last_error, sizeof last_error, "%s", buf);
	cli_error(cmd, "%s", buf);
	if (err->excerpt[0]) {
		fprintf(stderr, "  | %s\n", err->excerpt);
		if (err->column && err->column <= strlen(err->excerpt))
			fprintf(stderr, "  | %*s^\n", (int)err->column - 1, "");
	}
	switch (err->status) {
	case TRAWL_ERR_USAGE:
		return EXIT_USAGE;
	default:
		return EXIT_BAD_INPUT;
	}
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(NULL, cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'trawl %s --help' for more information.\n", cmd);
	return EXIT_USAGE;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	return trawl_u64_parse(s, out);
}

double cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(struct cli_progress *p, const char *label, uint64_t total)
{
	memset(p, 0, sizeof *p);
	p->label = label;
	p->total = total;
	p->start = p->last = cli_now();
	p->active = isatty(2) && getenv("TRAWL_NO_PROGRESS") == NULL;
}

void cli_progress_update(struct cli_progress *p, uint64_t done)
{
	if (!p->active)
		return;
	double now = cli_now();
	if (now - p->start < 0.5 || now - p->last < 0.1)
		return;
	p->last = now;
	p->shown = 1;
	double mb = (double)done / 1e6, rate = mb / (now - p->start);
	if (p->total) {
		double f = (double)done / (double)p->total;
		if (f > 1)
			f = 1;
		int w = 30, k = (int)(f * w);
		fprintf(stderr, "\r%s [%.*s%*s] %5.1f%% %.0f MB/s ", p->label, k,
			"##############################", w - k, "", f * 100, rate);
	} else {
		fprintf(stderr, "\r%s %.0f MB %.0f MB/s ", p->label, mb, rate);
	}
	fflush(stderr);
}

void cli_progress_finish(struct cli_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}

int cli_image_option(void *ctx, const struct cli_option *opt, const char *value)
{
	struct cli_image *im = ctx;
	struct trawl_error err;
	(void)opt;
	trawl_error_clear(&err);
	if (trawl_image_add_spec(im->img, value, &err) != TRAWL_OK)
		return cli_report(im->cmd, &err);
	im->given = 1;
	return 0;
}

int cli_output_to(const char *cmd, const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return 0;
	fflush(stdout);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		cli_error(cmd, "cannot create '%s': %s", path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (dup2(fd, 1) < 0) {
		cli_error(cmd, "cannot write to '%s': %s", path, strerror(errno));
		close(fd);
		return EXIT_BAD_INPUT;
	}
	close(fd);
	return 0;
}
