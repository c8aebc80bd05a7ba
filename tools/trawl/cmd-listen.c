/* trawl listen: receive software events streamed by programs using
 * <trawl/rec.h> (TRAWL_REC_STREAM=host:port) and write one CTF trace.
 *
 * One poll loop; every connection has its own protocol parser (bounded
 * buffer), its own stream files OUT/stream-cN-S, and is acknowledged after
 * each batch of chunks has been written to those files. Event classes from
 * all programs go into one metadata file; two programs that define the
 * same event id differently are refused (the later connection is dropped).
 *
 * Protocol version 2 (docs/stream-protocol.md): every chunk is checksummed;
 * right after the hello the listener measures the client's clock against
 * its own with an NTP-style exchange and moves the connection's packet
 * times onto its own clock, recording the correction in the metadata. All
 * connections together hold at most --max-total bytes, and a connection
 * with no complete chunk for --idle-timeout seconds is dropped. Exit 1 when
 * any connection lost data (dropped, refused, timed out, cut off).
 */
#include <errno.h>
#include <stdarg.h>
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
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trawl/rec-ctf.h"
#include "trawl/sw-stream.h"

#define MAX_CONNS 64
#define MAX_STREAMS_PER_CONN 1024
#define MAX_CLASSES 65536          /* over all connections */
#define CLOCK_ROUNDS 8             /* probes per connection; the fastest round wins */

static const char listen_description[] =
	"Receives events from programs run with TRAWL_REC_STREAM=HOST:PORT and\n"
	"writes them as one CTF trace directory OUT (read it with 'trawl events'\n"
	"or babeltrace2). Chunks are acknowledged once written to OUT, so a\n"
	"program whose connection breaks keeps everything not acknowledged in its\n"
	"own trace directory.\n";

static const char listen_footer[] =
	"The port actually used is printed on stderr as 'listening on ADDR:PORT'.\n"
	"Each connection's clock is measured against the listener's and its times\n"
	"are moved onto the listener's clock, so programs on several machines line\n"
	"up. Exit status 1 when any connection lost data (a damaged chunk, a\n"
	"protocol error, a timeout, a refusal, a connection cut off mid-trace).\n";

struct conn_stream {
	uint32_t sid;
	int fd;
};

struct conn {
	int fd;
	unsigned id;
	char peer[64];               /* "ADDR:PORT" for messages */
	struct trawl_sp_parser *parser;
	struct conn_stream *streams;
	size_t nstreams;
	uint64_t last_seq, acked;
	uint64_t packets, events;
	uint64_t progress_ns;        /* last complete item (or the accept) */
	uint64_t recv_ns;            /* when the bytes being parsed arrived */
	/* clock exchange: round `round` is outstanding, sent at probe_t0 */
	uint32_t round;
	int clock_done;
	uint64_t probe_t0, best_rtt;
	int64_t best_offset;         /* client clock - listener clock, ns */
	int64_t delta;               /* added to every packet time */
	int failed;
};

struct listener {
	const char *out;
	struct trawl_ctf_meta meta;
	int meta_dirty, have_pid, quiet;
	struct conn *cur;
	struct conn *conns;
	uint64_t packets, events;
	uint64_t max_total;
	unsigned lost;               /* connections that lost data */
	uint8_t *scratch;            /* a packet being moved onto our clock */
	size_t scratch_cap;
	char *env;                   /* per-connection clock lines for the metadata */
	size_t env_len;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Everything the connections hold together (what --max-total bounds). */
static size_t total_mem(const struct listener *L)
{
	size_t t = L->scratch_cap + L->meta.cap * (sizeof(struct trawl_ctf_class) + sizeof(uint32_t));
	for (int i = 0; i < MAX_CONNS; i++)
		if (L->conns[i].fd >= 0 && L->conns[i].parser)
			t += trawl_sp_parser_buffered(L->conns[i].parser);
	return t;
}

/* A connection is dropped: say why, with its peer, and count it. */
static int conn_drop(struct listener *L, struct conn *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int conn_drop(struct listener *L, struct conn *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cli_warn("listen", "connection %u from %s: %s; dropping it (data after this point is lost)", c->id, c->peer, msg);
	if (!c->failed)
		L->lost++;
	c->failed = 1;
	return 1;
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

static void send_msg(struct conn *c, const char *magic, uint32_t arg, uint64_t value)
{
	uint8_t m[TRAWL_SP_MSG_SIZE];
	trawl_sp_message(m, magic, arg, value);
	/* tiny and rare: a full socket buffer means the client stopped reading */
	send(c->fd, m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void send_probe(struct conn *c)
{
	c->probe_t0 = now_ns();
	send_msg(c, "TPRB", c->round, CLOCK_ROUNDS);
}

/* Append the connection's clock correction to the metadata's env block. */
static void record_clock(struct listener *L, struct conn *c)
{
	char line[256];
	int n = snprintf(line, sizeof line,
			 "\tc%u_clock_offset_ns = %" PRId64 ";\n\tc%u_clock_uncertainty_ns = %" PRIu64 ";\n", c->id,
			 c->best_offset, c->id, c->best_rtt / 2);
	char *e = realloc(L->env, L->env_len + (size_t)n + 1);
	if (!e)
		return;
	memcpy(e + L->env_len, line, (size_t)n + 1);
	L->env = e;
	L->env_len += (size_t)n;
	L->meta.env_extra = L->env;
	L->meta_dirty = 1;
}

/* One answer to a probe (NTP: t0 sent, t1 received, t2 answered, t3 back):
 * offset = ((t1 - t0) + (t2 - t3)) / 2, good to within half the round trip;
 * the round with the shortest trip is kept. */
static int on_time(struct listener *L, struct conn *c, const struct trawl_sp_item *it)
{
	if (c->clock_done || it->round != c->round)
		return conn_drop(L, c, "byte %" PRIu64 ": time chunk that answers no probe", it->offset);
	uint64_t t0 = c->probe_t0, t3 = c->recv_ns;
	int64_t a = (int64_t)(it->t1 - t0), b = (int64_t)(it->t2 - t3);
	uint64_t rtt = (t3 - t0) - (it->t2 - it->t1);
	if ((int64_t)rtt < 0)
		rtt = 0; /* the client's clock ran faster than ours over the round */
	if (c->round == 0 || rtt < c->best_rtt) {
		c->best_rtt = rtt;
		c->best_offset = a / 2 + b / 2 + (a % 2 + b % 2) / 2;
	}
	if (++c->round < CLOCK_ROUNDS) {
		send_probe(c);
		return 0;
	}
	c->clock_done = 1;
	/* an offset the measurement cannot tell from 0 (same machine, same
	 * clock) is 0: the times stay exactly as recorded */
	uint64_t mag = c->best_offset < 0 ? (uint64_t)0 - (uint64_t)c->best_offset : (uint64_t)c->best_offset;
	if (mag <= c->best_rtt / 2)
		c->best_offset = 0;
	c->delta = -c->best_offset;
	record_clock(L, c);
	if (!L->quiet)
		fprintf(stderr, "trawl: listen: connection %u: clock offset %+" PRId64 " ns (+-%" PRIu64 " ns)\n", c->id,
			c->best_offset, c->best_rtt / 2);
	return 0;
}

static int on_class(struct listener *L, struct conn *c, const struct trawl_sp_item *it)
{
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
			same = old->fields[i].type == cc.fields[i].type && !strcmp(old->fields[i].name, cc.fields[i].name);
		if (!same)
			return conn_drop(L, c, "event id %u defined differently by another program", cc.id);
		return 0;
	}
	if (L->meta.nclasses >= MAX_CLASSES)
		return conn_drop(L, c, "more than %d event classes in all", MAX_CLASSES);
	if (L->meta.nclasses == L->meta.cap &&
	    total_mem(L) + L->meta.cap * (sizeof cc + sizeof(uint32_t)) > L->max_total)
		return conn_drop(L, c, "all connections together would hold more than --max-total %" PRIu64 " bytes",
				 L->max_total);
	if (trawl_ctf_meta_add(&L->meta, &cc) > 0)
		L->meta_dirty = 1;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int on_packet(struct listener *L, struct conn *c, const struct trawl_sp_item *it)
{
	const uint8_t *data = it->data;
	if (c->delta) {
		/* move the times onto our clock, in a copy (the parser's bytes
		 * are read-only) */
		if (it->len > L->scratch_cap) {
			if (total_mem(L) + it->len - L->scratch_cap > L->max_total)
				return conn_drop(L, c, "all connections together would hold more than --max-total %" PRIu64
						 " bytes", L->max_total);
			uint8_t *n = realloc(L->scratch, it->len);
			if (!n)
				return conn_drop(L, c, "out of memory");
			L->scratch = n;
			L->scratch_cap = it->len;
		}
		memcpy(L->scratch, it->data, it->len);
		struct trawl_error err;
		if (trawl_sp_packet_shift(c->parser, L->scratch, it->len, c->delta, &err) != TRAWL_OK)
			return conn_drop(L, c, "byte %" PRIu64 ": %s", it->offset, err.message);
		data = L->scratch;
	}
	int fd = stream_fd(L, c, it->stream);
	if (fd < 0 || write_all(fd, data, it->len) != 0)
		return conn_drop(L, c, "cannot write stream %u: %s", it->stream, strerror(errno));
	c->packets++;
	c->events += it->nevents;
	return 0;
}

static int item_cb(void *ctx, const struct trawl_sp_item *it)
{
	struct listener *L = ctx;
	struct conn *c = L->cur;
	int r = 0;
	c->progress_ns = now_ns();
	if (it->kind != TRAWL_SP_HELLO && it->kind != TRAWL_SP_TIME && !c->clock_done)
		return conn_drop(L, c, "byte %" PRIu64 ": chunk before the clock exchange finished", it->offset);
	switch (it->kind) {
	case TRAWL_SP_HELLO:
		if (!L->have_pid) {
			L->meta.pid = it->hello->pid;
			L->have_pid = 1;
			L->meta_dirty = 1;
		}
		if (!L->quiet)
			fprintf(stderr, "trawl: listen: connection %u from %s: pid %u, %u streams\n", c->id, c->peer,
				it->hello->pid, it->hello->nstreams);
		send_probe(c);
		break;
	case TRAWL_SP_TIME:
		r = on_time(L, c, it);
		break;
	case TRAWL_SP_CLASS:
		r = on_class(L, c, it);
		break;
	case TRAWL_SP_PACKET:
		r = on_packet(L, c, it);
		break;
	case TRAWL_SP_END:
	case TRAWL_SP_KEEPALIVE:
		break;
	}
	if (!r)
		c->last_seq = it->seq;
	return r;
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
	uint8_t a[TRAWL_SP_MSG_SIZE];
	trawl_sp_message(a, "TACK", 0, c->last_seq);
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

static void peer_name(int fd, char *out, size_t n)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	char a[INET_ADDRSTRLEN] = "?";
	if (getpeername(fd, (struct sockaddr *)&sa, &sl) == 0 && sa.sin_family == AF_INET)
		inet_ntop(AF_INET, &sa.sin_addr, a, sizeof a);
	snprintf(out, n, "%s:%u", a, sl == sizeof sa ? ntohs(sa.sin_port) : 0);
}

static void accept_one(struct listener *L, int lfd, unsigned *next_id, size_t max_mem)
{
	int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	char peer[64];
	peer_name(cfd, peer, sizeof peer);
	int slot = -1;
	for (int i = 0; i < MAX_CONNS && slot < 0; i++)
		if (L->conns[i].fd < 0)
			slot = i;
	struct trawl_error err;
	if (slot < 0) {
		cli_warn("listen", "refusing a connection from %s: already %d connections (idle ones are dropped after "
				   "--idle-timeout)", peer, MAX_CONNS);
		L->lost++;
		close(cfd);
		return;
	}
	struct conn *c = &L->conns[slot];
	memset(c, 0, sizeof *c);
	c->id = (*next_id)++;
	snprintf(c->peer, sizeof c->peer, "%s", peer);
	c->progress_ns = now_ns();
	if (trawl_sp_parser_create(&c->parser, max_mem, &err) != TRAWL_OK) {
		cli_warn("listen", "refusing a connection from %s: out of memory", peer);
		L->lost++;
		close(cfd);
		return;
	}
	c->fd = cfd;
}

/* Read what one connection sent; returns 1 when it is to be closed. */
static int read_conn(struct listener *L, struct conn *c, uint8_t *buf, size_t cap)
{
	ssize_t got = recv(c->fd, buf, cap, 0);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got > 0) {
		struct trawl_error err;
		trawl_error_clear(&err);
		c->recv_ns = now_ns();
		L->cur = c;
		/* this connection may grow into what the others leave free */
		size_t others = total_mem(L) - trawl_sp_parser_buffered(c->parser);
		trawl_sp_parser_set_limit(c->parser, L->max_total > others ? (size_t)(L->max_total - others) : 0);
		enum trawl_status st = trawl_sp_parser_feed(c->parser, buf, (size_t)got, item_cb, L, &err);
		if (st == TRAWL_ERR_LIMIT)
			conn_drop(L, c, "byte %" PRIu64 ": all connections together would hold more than --max-total %" PRIu64
				  " bytes", err.offset, L->max_total);
		else if (st != TRAWL_OK && !c->failed)
			conn_drop(L, c, "byte %" PRIu64 ": %s", err.offset, err.message);
		write_meta(L);
		if (c->failed)
			return 1;
		send_ack(c);
		return 0;
	}
	/* the client closed (or the connection broke) */
	if (!c->failed && trawl_sp_parser_pending(c->parser))
		conn_drop(L, c, "connection ended in the middle of a chunk (%zu bytes received of it)",
			  trawl_sp_parser_pending(c->parser));
	else if (!c->failed && !trawl_sp_parser_ended(c->parser))
		conn_drop(L, c, "connection ended without an end chunk (the program may have died)");
	return 1;
}

/* Drop connections that sent no complete chunk for too long; returns how
 * many ended. */
static uint64_t drop_idle(struct listener *L, uint64_t timeout_ns)
{
	uint64_t now = now_ns(), n = 0;
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &L->conns[i];
		if (c->fd < 0 || now - c->progress_ns < timeout_ns)
			continue;
		conn_drop(L, c, "no complete chunk for %" PRIu64 " s (%zu bytes of one pending)", timeout_ns / 1000000000u,
			  trawl_sp_parser_pending(c->parser));
		conn_close(L, c);
		n++;
	}
	return n;
}

/* The listener's own clock: CLOCK_MONOTONIC ns, whose value 0 is this
 * wall-clock time. Every connection's times are moved onto it. */
static void own_clock(struct trawl_ctf_meta *m)
{
	struct timespec rt, mo;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mo);
	int64_t off = ((int64_t)rt.tv_sec - (int64_t)mo.tv_sec) * 1000000000 + (rt.tv_nsec - mo.tv_nsec);
	m->clock_offset_s = off / 1000000000;
	m->clock_offset_ns = (uint32_t)(off % 1000000000);
}

static int serve(struct listener *L, int lfd, uint64_t count, size_t max_mem, uint64_t timeout_ns)
{
	static uint8_t buf[1 << 16];
	unsigned next_id = 0;
	uint64_t ended = 0;
	while (!stop_flag && (count == 0 || ended < count)) {
		struct pollfd pfd[MAX_CONNS + 1];
		int map[MAX_CONNS + 1], n = 0;
		pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		map[n++] = -1;
		for (int i = 0; i < MAX_CONNS; i++)
			if (L->conns[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = L->conns[i].fd, .events = POLLIN };
				map[n++] = i;
			}
		int r = poll(pfd, (nfds_t)n, 200);
		if (r < 0 && errno != EINTR) {
			cli_error("listen", "poll: %s", strerror(errno));
			return EXIT_BAD_INPUT;
		}
		ended += drop_idle(L, timeout_ns);
		if (r <= 0)
			continue;
		for (int k = 1; k < n; k++) {
			struct conn *c = &L->conns[map[k]];
			if (c->fd < 0 || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (read_conn(L, c, buf, sizeof buf)) {
				conn_close(L, c);
				ended++;
			}
		}
		if (pfd[0].revents & POLLIN)
			accept_one(L, lfd, &next_id, max_mem);
	}
	return EXIT_OK;
}

/* Parse, bind and serve until --count connections have ended or a signal
 * comes; connections still open then are dropped as cut off (their loss
 * counts in the exit status), and the metadata is written last, so the
 * trace directory always describes every stream file in it. */
int cmd_listen(int argc, char **argv)
{
	const char *out = NULL, *bind_addr = "127.0.0.1";
	uint64_t port = 6666, count = 0, max_mem = 8u << 20, max_total = 64u << 20, idle = 30;
	int quiet = 0, rc = EXIT_OK, lfd = -1;
	const struct cli_option opts[] = {
		CLI_STRING("output", 'o', "OUT", &out, "trace directory to write (created)"),
		CLI_U64("port", "N", &port, 65535, NULL, "TCP port (default 6666; 0 picks a free one)"),
		CLI_STRING("bind", 0, "ADDR", &bind_addr, "address to listen on (default 127.0.0.1)"),
		CLI_U64("count", "N", &count, 0, NULL,
			"exit after N connections have ended (default: run\n"
			"until SIGINT or SIGTERM)"),
		CLI_U64("max-mem", "BYTES", &max_mem, 1u << 30, NULL,
			"largest chunk accepted, and so the buffer each\n"
			"connection may hold (default 8388608, at least 4096)"),
		CLI_U64("max-total", "BYTES", &max_total, 1ull << 40, NULL,
			"memory all connections together may hold (default\n"
			"67108864, at least 65536); a connection that needs\n"
			"more is dropped"),
		CLI_U64("idle-timeout", "S", &idle, 86400, NULL,
			"drop a connection that sends no complete chunk for S\n"
			"seconds (default 30; recorders send keepalives)"),
		CLI_FLAG("quiet", 'q', &quiet, "no messages about connections"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "listen",
		.usage = "-o OUT [--port N] [--bind ADDR] [--count N] [--max-mem BYTES]\n"
			 "                    [--max-total BYTES] [--idle-timeout SECONDS]",
		.description = listen_description,
		.options = opts,
		.footer = listen_footer,
		.min_args = 0, .max_args = 0,
	};
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	if (max_mem < 4096)
		return cli_usage("listen", "--max-mem: at least 4096 bytes");
	if (max_total < 65536)
		return cli_usage("listen", "--max-total: at least 65536 bytes");
	if (idle < 1)
		return cli_usage("listen", "--idle-timeout: at least 1 second");
	if (!out)
		return cli_usage("listen", "no output directory (-o OUT)");
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
		return cli_usage("listen", "bad address '%s' (IPv4 expected)", bind_addr);
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		cli_error("listen", "cannot create '%s': %s", out, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	struct conn conns[MAX_CONNS];
	struct listener L = { .out = out, .quiet = quiet, .conns = conns, .max_total = max_total };
	for (int i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	trawl_ctf_meta_init(&L.meta);
	snprintf(L.meta.tracer, sizeof L.meta.tracer, "trawl-listen");
	snprintf(L.meta.procname, sizeof L.meta.procname, "trawl-listen");
	own_clock(&L.meta);
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
	rc = serve(&L, lfd, count, (size_t)max_mem, idle * 1000000000ull);
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0) {
			if (!conns[i].failed && !trawl_sp_parser_ended(conns[i].parser))
				conn_drop(&L, &conns[i], "still open when the listener stopped");
			conn_close(&L, &conns[i]);
		}
	L.meta_dirty = 1;
	write_meta(&L);
	if (!quiet)
		fprintf(stderr, "trawl: listen: wrote %s: %" PRIu64 " packets, %" PRIu64 " events\n", out, L.packets, L.events);
	if (L.lost) {
		cli_warn("listen", "%u connection%s lost data (see above)", L.lost, L.lost == 1 ? "" : "s");
		rc = EXIT_BAD_INPUT;
	}
out:
	if (lfd >= 0)
		close(lfd);
	trawl_ctf_meta_release(&L.meta);
	free(L.scratch);
	free(L.env);
	return rc;
}
