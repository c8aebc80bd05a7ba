/* trawl events connect: the client of a Bfscope-style server (Barrelfish's
 * trace service; docs/sw-events.md, "Receiving from Bfscope"). Every
 * complete dump is kept; at the end (SIGINT, SIGTERM or the server
 * closing) they are written as one CTF trace, as import-bf writes a dump. */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "core/grow.h"
#include "events-cli.h"
#include "options.h"
#include "trawl/bf-dump.h"
#include "trawl/number.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* The dumps received so far, one after another (each keeps its own
 * header lines, so core offsets still apply to the events after them). */
struct dumps {
	char *text;
	size_t len, cap;
	int quiet;
};

static int keep_dump(void *ctx, const char *text, size_t len)
{
	struct dumps *d = ctx;
	if (!trawl_grow((void **)&d->text, &d->cap, d->len + len + 1, 1))
		return 1;
	memcpy(d->text + d->len, text, len);
	d->len += len;
	/* a dump whose last line has no newline must not run into the next */
	if (len && text[len - 1] != '\n')
		d->text[d->len++] = '\n';
	if (!d->quiet)
		fprintf(stderr, "trawl: events connect: dump of %zu bytes (%zu in all)\n", len, d->len);
	return 0;
}

/* "host:port", "[v6]:port"; an exit status. */
static int dial(const char *hostport, int *fd_out)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	size_t hl = colon ? (size_t)(colon - hostport) : 0;
	if (!colon || !hl || hl >= sizeof host || !colon[1])
		return cli_usage("events", "connect: give HOST:PORT, not '%s'", hostport);
	/* getaddrinfo takes 99999 and connects to 34463 (the low 16 bits); a
	 * leading 0 would be octal to trawl_u64_parse, decimal to it */
	uint64_t port;
	if (colon[1] >= '0' && colon[1] <= '9' &&
	    (colon[1] == '0' || !trawl_u64_parse(colon + 1, &port) || port > 65535))
		return cli_usage("events", "connect: bad port '%s' in '%s' (1 to 65535)",
				 colon + 1, hostport);
	memcpy(host, hostport, hl);
	host[hl] = 0;
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = 0;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int gr = getaddrinfo(host, colon + 1, &hints, &ai);
	if (gr != 0) {
		cli_error("events", "connect: %s: %s", hostport, gai_strerror(gr));
		return EXIT_BAD_INPUT;
	}
	int fd = -1, e = ECONNREFUSED;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		cli_error("events", "connect: cannot connect to %s: %s", hostport, strerror(e));
		return EXIT_BAD_INPUT;
	}
	*fd_out = fd;
	return EXIT_OK;
}

/* Receive until a signal or the end of the connection. recv is not
 * restarted after a signal (no SA_RESTART), so SIGINT ends the wait. An
 * exit status: 0 when the stream ended between dumps. */
static int receive(int fd, const char *hostport, struct trawl_bfscope *p, struct dumps *d)
{
	static uint8_t buf[65536];
	struct trawl_error err;
	trawl_error_clear(&err);
	while (!stop_flag) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_error("events", "connect: %s: %s", hostport, strerror(errno));
			return EXIT_BAD_INPUT;
		}
		if (n == 0)
			break;
		if (trawl_bfscope_feed(p, buf, (size_t)n, keep_dump, d, &err) != TRAWL_OK) {
			if (err.status == TRAWL_ERR_LIMIT)
				trawl_error_set(&err, TRAWL_ERR_NOMEM, "out of memory keeping the dumps");
			snprintf(err.file, sizeof err.file, "%s", hostport);
			return cli_report("events", &err);
		}
	}
	size_t declared, pending = trawl_bfscope_pending(p, &declared);
	if (pending) {
		if (declared)
			cli_error("events", "connect: %s: the last dump is incomplete (%zu of %zu bytes), not kept",
				  hostport, pending - TRAWL_BFSCOPE_HEADER, declared);
		else
			cli_error("events", "connect: %s: the connection ended inside a length field (%zu of 8 bytes)",
				  hostport, pending);
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

int events_connect(int argc, char **argv)
{
	const char *defs = NULL, *out = NULL;
	uint64_t freq = 1000000000u;
	int bf = 0, quiet = 0, prc;
	const struct cli_option opts[] = {
		CLI_FLAG("bf", 0, &bf, "the server speaks Bfscope (the only protocol so far;\nrequired)"),
		CLI_STRING("defs", 0, "DEFS", &defs, "event names: the .json of 'trawl defs', or a .tdef file"),
		CLI_STRING("output", 'o', "OUT", &out, "the CTF trace directory to write (new or empty)"),
		CLI_U64("freq", "HZ", &freq, 0, NULL, "timestamps are ticks of HZ (default 1000000000: ns)"),
		CLI_FLAG("quiet", 'q', &quiet, "do not report each dump on stderr"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events connect",
		.usage = "HOST:PORT --bf --defs DEFS -o OUT [--freq HZ]",
		.description =
			"Connects to a Bfscope server (Barrelfish's trace service, port 6666;\n"
			"through an ssh tunnel: ssh -L 6666:localhost:6666 HOST) and receives the\n"
			"dump it sends at each flush, until SIGINT/SIGTERM or the server closes.\n"
			"Every complete dump is written to OUT as one CTF trace (as import-bf);\n"
			"an incomplete last dump is reported and the exit status is 1.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "connect needs HOST:PORT",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	if (!bf)
		return cli_usage("events", "connect: give --bf (the server speaks Bfscope)");
	if (!out)
		return cli_usage("events", "connect needs -o OUT");
	if (freq == 0)
		return cli_usage("events", "--freq must be at least 1");
	int fd = -1, rc;
	if ((rc = dial(argv[0], &fd)))
		return rc;
	struct sigaction act = { .sa_handler = on_signal };
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	struct trawl_bfscope *p;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_bfscope_create(&p, &err) != TRAWL_OK) {
		close(fd);
		return cli_report("events", &err);
	}
	struct dumps d = { .quiet = quiet };
	rc = receive(fd, argv[0], p, &d);
	close(fd);
	int wrc = events_bf_write(d.text ? d.text : "", d.len, argv[0], defs, out, freq);
	if (!quiet || wrc)
		fprintf(stderr, "trawl: events connect: %" PRIu64 " complete dump(s)%s\n", trawl_bfscope_dumps(p),
			wrc ? "" : " written");
	trawl_bfscope_destroy(p);
	free(d.text);
	return rc ? rc : wrc;
}
