/* trawl listen: receive software events streamed by programs using
 * <trawl/rec.h> (TRAWL_REC_STREAM=host:port) and write one CTF trace.
 *
 * One poll loop; every connection has its own protocol parser (bounded
 * buffer), its own stream files OUT/stream-cN-S, and is acknowledged after
 * each batch of chunks has been written to those files. Event classes from
 * all programs go into one metadata file; two programs that define the
 * same event id differently are refused (the later connection is dropped).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trawl/rec-ctf.h"
#include "trawl/swevents.h"

#define MAX_CONNS 64
#define MAX_STREAMS_PER_CONN 1024
#define MAX_CLASSES 65536          /* over all connections */

static const char listen_help[] =
	"usage: trawl listen -o OUT [--port N] [--bind ADDR] [--count N] [--max-mem BYTES]\n"
	"\n"
	"Receives events from programs run with TRAWL_REC_STREAM=HOST:PORT and\n"
	"writes them as one CTF trace directory OUT (read it with 'trawl events'\n"
	"or babeltrace2). Chunks are acknowledged once written to OUT, so a\n"
	"program whose connection breaks keeps everything not acknowledged in its\n"
	"own trace directory.\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT   trace directory to write (created)\n"
	"  --port N           TCP port (default 6666; 0 picks a free one)\n"
	"  --bind ADDR        address to listen on (default 127.0.0.1)\n"
	"  --count N          exit after N connections have ended (default: run\n"
	"                     until SIGINT or SIGTERM)\n"
	"  --max-mem BYTES    largest chunk accepted, and so the buffer each\n"
	"                     connection may hold (default 8388608)\n"
	"  -q, --quiet        no messages about connections\n"
	"\n"
	"The port actually used is printed on stderr as 'listening on ADDR:PORT'.\n";

struct conn_stream {
	uint32_t sid;
	int fd;
};

struct conn {
	int fd;
	unsigned id;
	struct trawl_sp_parser *parser;
	struct conn_stream *streams;
	size_t nstreams;
	uint64_t last_seq, acked;
	uint64_t packets, events;
	int failed;
};

struct listener {
	const char *out;
	struct trawl_ctf_meta meta;
	int meta_dirty, have_clock, quiet;
	struct conn *cur;
	uint64_t packets, events;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int stream_fd(struct listener *L, struct conn *c, uint32_t sid)
{
	for (size_t i = 0; i < c->nstreams; i++)
		if (c->streams[i].sid == sid)
			return c->streams[i].fd;
	if (c->nstreams >= MAX_STREAMS_PER_CONN)
		return -1;
	void *n = realloc(c->streams, (c->nstreams + 1) * sizeof *c->streams);
	if (!n)
		return -1;
	c->streams = n;
	char path[4096];
	snprintf(path, sizeof path, "%s/stream-c%u-%u", L->out, c->id, sid);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	c->streams[c->nstreams].sid = sid;
	c->streams[c->nstreams].fd = fd;
	c->nstreams++;
	return fd;
}

static int item_cb(void *ctx, const struct trawl_sp_item *it)
{
	struct listener *L = ctx;
	struct conn *c = L->cur;
	switch (it->kind) {
	case TRAWL_SP_HELLO:
		if (!L->have_clock) {
			L->meta.clock_offset_s = it->hello->clock_offset_s;
			L->meta.clock_offset_ns = it->hello->clock_offset_ns;
			L->meta.pid = it->hello->pid;
			L->have_clock = 1;
			L->meta_dirty = 1;
		}
		if (!L->quiet)
			fprintf(stderr, "trawl: listen: connection %u: pid %u, %u streams\n", c->id, it->hello->pid,
				it->hello->nstreams);
		break;
	case TRAWL_SP_CLASS: {
		struct trawl_ctf_class cc;
		memset(&cc, 0, sizeof cc);
		cc.id = it->cls->id;
		snprintf(cc.name, sizeof cc.name, "%s", it->cls->name);
		cc.nfields = it->cls->nfields;
		for (unsigned i = 0; i < cc.nfields; i++) {
			memcpy(cc.fields[i].name, it->cls->fields[i].name, sizeof cc.fields[i].name);
			cc.fields[i].type = it->cls->fields[i].type;
		}
		const struct trawl_ctf_class *old = trawl_ctf_meta_find(&L->meta, cc.id);
		if (old) {
			int same = old->nfields == cc.nfields && !strcmp(old->name, cc.name);
			for (unsigned i = 0; same && i < cc.nfields; i++)
				same = old->fields[i].type == cc.fields[i].type &&
				       !strcmp(old->fields[i].name, cc.fields[i].name);
			if (!same) {
				cli_warn("listen", "connection %u: event id %u defined differently by another program; dropping it",
					 c->id, cc.id);
				c->failed = 1;
				return 1;
			}
		} else if (L->meta.nclasses >= MAX_CLASSES) {
			cli_warn("listen", "connection %u: more than %d event classes in all; dropping it", c->id, MAX_CLASSES);
			c->failed = 1;
			return 1;
		} else if (trawl_ctf_meta_add(&L->meta, &cc) > 0) {
			L->meta_dirty = 1;
		}
		break;
	}
	case TRAWL_SP_PACKET: {
		int fd = stream_fd(L, c, it->stream);
		const uint8_t *p = it->data;
		size_t n = it->len;
		while (fd >= 0 && n) {
			ssize_t w = write(fd, p, n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			n -= (size_t)w;
		}
		if (fd < 0 || n) {
			cli_warn("listen", "connection %u: cannot write stream %u: %s", c->id, it->stream, strerror(errno));
			c->failed = 1;
			return 1;
		}
		c->packets++;
		c->events += it->nevents;
		break;
	}
	case TRAWL_SP_END:
		break;
	}
	c->last_seq = it->seq;
	return 0;
}

static void write_meta(struct listener *L)
{
	if (!L->meta_dirty)
		return;
	int r = trawl_ctf_meta_write(&L->meta, L->out);
	if (r)
		cli_warn("listen", "cannot write %s/metadata: %s", L->out, strerror(-r));
	else
		L->meta_dirty = 0;
}

static void send_ack(struct conn *c)
{
	if (c->last_seq == c->acked)
		return;
	uint8_t a[TRAWL_SP_ACK_SIZE] = { 'T', 'A', 'C', 'K' };
	for (int i = 0; i < 8; i++)
		a[8 + i] = (uint8_t)(c->last_seq >> (8 * i));
	if (send(c->fd, a, sizeof a, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof a)
		c->acked = c->last_seq;
}

static void conn_close(struct listener *L, struct conn *c)
{
	if (!L->quiet)
		fprintf(stderr, "trawl: listen: connection %u closed: %" PRIu64 " packets, %" PRIu64 " events%s\n", c->id,
			c->packets, c->events, c->failed ? " (dropped)" : "");
	L->packets += c->packets;
	L->events += c->events;
	for (size_t i = 0; i < c->nstreams; i++)
		close(c->streams[i].fd);
	free(c->streams);
	trawl_sp_parser_destroy(c->parser);
	close(c->fd);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

int cmd_listen(int argc, char **argv)
{
	const char *out = NULL, *bind_addr = "127.0.0.1";
	uint64_t port = 6666, count = 0, max_mem = 8u << 20;
	int quiet = 0, rc = EXIT_OK, lfd = -1;
	if (cli_wants_help(argc, argv)) {
		fputs(listen_help, stdout);
		return EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			if (!cli_parse_u64(argv[++i], &port) || port > 65535)
				return cli_usage("listen", "bad port '%s'", argv[i]);
		} else if (!strcmp(argv[i], "--bind") && i + 1 < argc)
			bind_addr = argv[++i];
		else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			if (!cli_parse_u64(argv[++i], &count))
				return cli_usage("listen", "bad count '%s'", argv[i]);
		} else if (!strcmp(argv[i], "--max-mem") && i + 1 < argc) {
			if (!cli_parse_u64(argv[++i], &max_mem) || max_mem < 4096 || max_mem > (1u << 30))
				return cli_usage("listen", "bad --max-mem '%s' (4096 .. 1073741824)", argv[i]);
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = 1;
		else
			return cli_usage("listen", "unexpected argument '%s'", argv[i]);
	}
	if (!out)
		return cli_usage("listen", "no output directory (-o OUT)");
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
		return cli_usage("listen", "bad address '%s' (IPv4 expected)", bind_addr);
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		cli_error("listen", "cannot create '%s': %s", out, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	struct listener L = { .out = out, .quiet = quiet };
	struct conn conns[MAX_CONNS];
	unsigned next_id = 0;
	uint64_t ended = 0;
	for (int i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	trawl_ctf_meta_init(&L.meta);
	snprintf(L.meta.tracer, sizeof L.meta.tracer, "trawl-listen");
	snprintf(L.meta.procname, sizeof L.meta.procname, "trawl-listen");
	L.meta_dirty = 1;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 16) != 0) {
		cli_error("listen", "cannot listen on %s:%u: %s", bind_addr, (unsigned)port, strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	socklen_t sl = sizeof sa;
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	fprintf(stderr, "trawl: listen: listening on %s:%u\n", bind_addr, ntohs(sa.sin_port));
	write_meta(&L);
	struct sigaction act = { .sa_handler = on_signal };
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	static uint8_t buf[1 << 16];
	while (!stop_flag && (count == 0 || ended < count)) {
		struct pollfd pfd[MAX_CONNS + 1];
		int map[MAX_CONNS + 1], n = 0;
		pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		map[n++] = -1;
		for (int i = 0; i < MAX_CONNS; i++)
			if (conns[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
				map[n++] = i;
			}
		int r = poll(pfd, (nfds_t)n, 500);
		if (r < 0 && errno != EINTR) {
			cli_error("listen", "poll: %s", strerror(errno));
			rc = EXIT_BAD_INPUT;
			break;
		}
		if (r <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			int slot = -1;
			for (int i = 0; cfd >= 0 && i < MAX_CONNS && slot < 0; i++)
				if (conns[i].fd < 0)
					slot = i;
			struct trawl_error err;
			if (cfd >= 0 && slot < 0) {
				cli_warn("listen", "too many connections; refusing one");
				close(cfd);
			} else if (cfd >= 0) {
				struct conn *c = &conns[slot];
				memset(c, 0, sizeof *c);
				c->fd = cfd;
				c->id = next_id++;
				if (trawl_sp_parser_create(&c->parser, (size_t)max_mem, &err) != TRAWL_OK) {
					close(cfd);
					c->fd = -1;
				}
			}
		}
		for (int k = 1; k < n; k++) {
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			struct conn *c = &conns[map[k]];
			ssize_t got = recv(c->fd, buf, sizeof buf, 0);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			int closing = got <= 0;
			if (got > 0) {
				struct trawl_error err;
				trawl_error_clear(&err);
				L.cur = c;
				if (trawl_sp_parser_feed(c->parser, buf, (size_t)got, item_cb, &L, &err) != TRAWL_OK) {
					char msg[512];
					trawl_error_format(&err, msg, sizeof msg);
					cli_warn("listen", "connection %u: byte %" PRIu64 ": %s; dropping it", c->id, err.offset,
						 err.message);
					c->failed = 1;
				}
				write_meta(&L);
				if (c->failed)
					closing = 1;
				else
					send_ack(c);
			}
			if (closing) {
				if (!c->failed && !trawl_sp_parser_ended(c->parser) && !quiet)
					fprintf(stderr, "trawl: listen: connection %u ended without an end chunk\n", c->id);
				conn_close(&L, c);
				ended++;
			}
		}
	}
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0)
			conn_close(&L, &conns[i]);
	L.meta_dirty = 1;
	write_meta(&L);
	if (!quiet)
		fprintf(stderr, "trawl: listen: wrote %s: %" PRIu64 " packets, %" PRIu64 " events\n", out, L.packets, L.events);
out:
	if (lfd >= 0)
		close(lfd);
	trawl_ctf_meta_release(&L.meta);
	return rc;
}
