/* Stream protocol client: the recorder's side of `trawl listen`
 * (rec-proto.h has the wire table, docs/stream-protocol.md the prose).
 *
 * Packets are sent as they are produced and kept until the listener
 * acknowledges them, so that when the connection breaks the recorder can
 * put every unacknowledged packet into its local trace instead. Every
 * message carries a CRC-32; the listener's clock probes are answered with
 * this recorder's trace clock (rec_clock_now), so the listener can line the
 * streams of several machines up. */
#include "rec-int.h"
#include "trawl/rec-proto.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define UNACKED_LIMIT (64u << 20)

struct pending {
	struct pending *next;
	uint64_t seq;
	uint32_t sid;
	size_t len;
	uint8_t data[];
};

struct rec_stream {
	int fd;
	uint64_t seq;            /* last sequence number sent */
	uint64_t acked;
	struct pending *head, *tail;
	size_t pending_bytes;
	uint8_t msgbuf[TRAWL_PROTO_MSG_SIZE];
	size_t msglen;
	int broken;
	/* clock probe waiting for its answer */
	int probe_pending;
	uint32_t probe_round, probes_total, probes_answered;
	uint64_t probe_t1;
	uint64_t last_send_ns;   /* CLOCK_MONOTONIC of the last chunk sent */
};

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
static uint32_t get32(const uint8_t *p) { return (uint32_t)get64(p) & 0xffffffffu; }

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int send_all(struct rec_stream *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t w = send(s->fd, p, len, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			s->broken = 1;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* One whole listener message: an acknowledgement frees what it covers, a
 * clock probe is noted (with the time it arrived) for answer_probe. */
static int handle_msg(struct rec_stream *s, uint64_t arrived)
{
	const uint8_t *m = s->msgbuf;
	if (get32(m + 16) != rec_crc32(0, m, 16) || get32(m + 20) != 0)
		return -EPROTO;
	if (memcmp(m, TRAWL_PROTO_ACK_MAGIC, 4) == 0) {
		uint64_t a = get64(m + 8);
		if (a > s->acked && a <= s->seq)
			s->acked = a;
		while (s->head && s->head->seq <= s->acked) {
			struct pending *p = s->head;
			s->head = p->next;
			if (!s->head)
				s->tail = NULL;
			s->pending_bytes -= p->len;
			free(p);
		}
		return 0;
	}
	if (memcmp(m, TRAWL_PROTO_PROBE_MAGIC, 4) == 0 && !s->probe_pending) {
		s->probe_pending = 1;
		s->probe_round = get32(m + 4);
		s->probes_total = (uint32_t)get64(m + 8);
		s->probe_t1 = arrived;
		return 0;
	}
	return -EPROTO;
}

/* Read listener messages; wait up to timeout_ms for at least one byte when
 * timeout_ms > 0. */
static int read_acks(struct rec_stream *s, int timeout_ms)
{
	for (;;) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		int r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		ssize_t n = recv(s->fd, s->msgbuf + s->msglen, sizeof s->msgbuf - s->msglen, MSG_DONTWAIT);
		uint64_t arrived = rec_clock_now();
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			s->broken = 1;
			return -EPIPE;
		}
		if (n < 0)
			return 0;
		s->msglen += (size_t)n;
		if (s->msglen == sizeof s->msgbuf) {
			s->msglen = 0;
			if (handle_msg(s, arrived) != 0) {
				s->broken = 1;
				return -EPROTO;
			}
		}
		timeout_ms = 0;
	}
}

static int send_chunk(struct rec_stream *s, uint32_t type, uint32_t sid, const void *payload, size_t len);

/* Answer a clock probe: t1 when it arrived, t2 now, both trace clock. */
static int answer_probe(struct rec_stream *s)
{
	if (!s->probe_pending)
		return 0;
	uint8_t t[TRAWL_PROTO_TIME_SIZE] = { 0 };
	s->probe_pending = 0;
	s->probes_answered++;
	put32(t, s->probe_round);
	put64(t + 8, s->probe_t1);
	put64(t + 16, rec_clock_now());
	return send_chunk(s, TRAWL_PROTO_TIME, 0, t, sizeof t);
}

/* The listener measures the clock offset before anything else is sent:
 * answer its probes until the last round (bounded by timeout_ms). */
static int clock_exchange(struct rec_stream *s, unsigned timeout_ms)
{
	uint64_t t0 = mono_now();
	while (s->probes_total == 0 || s->probes_answered < s->probes_total) {
		uint64_t el = (mono_now() - t0) / 1000000u;
		if (el >= timeout_ms)
			return -ETIMEDOUT;
		int rc = read_acks(s, (int)(timeout_ms - el));
		if (rc == 0 && s->probe_pending)
			rc = answer_probe(s);
		if (rc)
			return rc;
	}
	return 0;
}

/* Connect, send the hello, then answer the listener's clock probes before any
 * packet goes out, so the listener can place every packet on its own clock.
 * Each address getaddrinfo gives is tried in turn; the send timeout keeps a
 * stalled listener from holding the flusher forever. A failure returns an
 * errno value and leaves nothing open. */
int rec_stream_open(struct rec_stream **out, const char *hostport, const struct trawl_ctf_meta *m,
		    uint32_t nstreams)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	*out = NULL;
	if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1])
		return -EINVAL;
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = 0;
	/* "[::1]:6666": an IPv6 address in brackets, which getaddrinfo does
	 * not take */
	size_t hl = strlen(host);
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = 0;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
		return -EHOSTUNREACH;
	int fd = -1, rc = -ECONNREFUSED;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return rc;
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct rec_stream *s = calloc(1, sizeof *s);
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->fd = fd;
	uint8_t h[TRAWL_PROTO_HELLO_SIZE] = { 0 };
	memcpy(h, TRAWL_PROTO_MAGIC, 8);
	put16(h + 8, TRAWL_PROTO_VERSION);
	put16(h + 10, TRAWL_PROTO_HELLO_SIZE);
	put32(h + 12, nstreams);
	put64(h + 16, 1000000000ull);
	put64(h + 24, (uint64_t)m->clock_offset_s);
	put32(h + 32, m->clock_offset_ns);
	put32(h + 36, m->pid);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	put32(h + 40, 1);
#endif
	put32(h + 44, rec_crc32(0, h, 44));
	if ((rc = send_all(s, h, sizeof h)) != 0 || (rc = clock_exchange(s, 2000)) != 0) {
		rec_stream_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int send_chunk(struct rec_stream *s, uint32_t type, uint32_t sid, const void *payload, size_t len)
{
	if (s->broken)
		return -EPIPE;
	if (len > UINT32_MAX)
		return -EINVAL;
	uint8_t h[TRAWL_PROTO_CHUNK_HEADER] = { 0 };
	put32(h, type);
	put32(h + 4, sid);
	put64(h + 8, ++s->seq);
	put32(h + 16, (uint32_t)len);
	put32(h + 20, rec_crc32(0, payload, len));
	put32(h + 28, rec_crc32(0, h, 28));
	int rc = send_all(s, h, sizeof h);
	if (rc == 0 && len)
		rc = send_all(s, payload, len);
	s->last_send_ns = mono_now();
	if (rc == 0)
		rc = read_acks(s, 0);
	if (rc == 0 && type != TRAWL_PROTO_TIME)
		rc = answer_probe(s);
	return rc;
}

int rec_stream_keepalive(struct rec_stream *s)
{
	if (s->broken)
		return -EPIPE;
	if (mono_now() - s->last_send_ns < TRAWL_PROTO_KEEPALIVE_MS * 1000000ull)
		return read_acks(s, 0);
	return send_chunk(s, TRAWL_PROTO_KEEPALIVE, 0, NULL, 0);
}

int rec_stream_class(struct rec_stream *s, const struct trawl_ctf_class *c)
{
	uint8_t buf[TRAWL_PROTO_CLASS_FIXED + TRAWL_REC_MAX_FIELDS * TRAWL_PROTO_CLASS_FIELD] = { 0 };
	unsigned n = c->nfields > TRAWL_REC_MAX_FIELDS ? TRAWL_REC_MAX_FIELDS : c->nfields;
	put32(buf, c->id);
	put32(buf + 4, n);
	memcpy(buf + 8, c->name, strnlen(c->name, 95));
	for (unsigned i = 0; i < n; i++) {
		uint8_t *f = buf + TRAWL_PROTO_CLASS_FIXED + i * TRAWL_PROTO_CLASS_FIELD;
		memcpy(f, c->fields[i].name, strnlen(c->fields[i].name, 47));
		f[48] = c->fields[i].type;
	}
	return send_chunk(s, TRAWL_PROTO_CLASS, 0, buf, TRAWL_PROTO_CLASS_FIXED + (size_t)n * TRAWL_PROTO_CLASS_FIELD);
}

int rec_stream_packet(struct rec_stream *s, uint32_t sid, const void *data, size_t len)
{
	if (s->broken)
		return -EPIPE;
	/* too much in flight: give the listener a moment to catch up */
	for (int i = 0; i < 20 && s->pending_bytes + len > UNACKED_LIMIT; i++)
		if (read_acks(s, 100) != 0)
			return -EPIPE;
	if (s->pending_bytes + len > UNACKED_LIMIT) {
		s->broken = 1;
		return -ETIMEDOUT;
	}
	struct pending *p = malloc(sizeof *p + len);
	if (!p)
		return -ENOMEM;
	p->next = NULL;
	p->seq = s->seq + 1;
	p->sid = sid;
	p->len = len;
	memcpy(p->data, data, len);
	if (s->tail)
		s->tail->next = p;
	else
		s->head = p;
	s->tail = p;
	s->pending_bytes += len;
	int rc = send_chunk(s, TRAWL_PROTO_PACKET, sid, data, len);
	if (rc) {
		/* the caller writes a packet it could not send to its file: left
		 * among the unacknowledged, the fallback wrote it there too, and
		 * the local trace had its events twice, out of time order */
		struct pending *prev = NULL;
		for (struct pending *q = s->head; q != p; q = q->next)
			prev = q;
		if (prev)
			prev->next = NULL;
		else
			s->head = NULL;
		s->tail = prev;
		s->pending_bytes -= len;
		free(p);
	}
	return rc;
}

int rec_stream_finish(struct rec_stream *s, unsigned timeout_ms)
{
	int rc = send_chunk(s, TRAWL_PROTO_END, 0, NULL, 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (rc == 0 && s->acked < s->seq) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (el >= (long)timeout_ms)
			return -ETIMEDOUT;
		rc = read_acks(s, (int)(timeout_ms - (unsigned)el));
	}
	return rc;
}

void rec_stream_unacked(struct rec_stream *s, void (*fn)(void *, uint32_t, const void *, size_t), void *ctx)
{
	for (struct pending *p = s->head; p; p = p->next)
		if (p->seq > s->acked)
			fn(ctx, p->sid, p->data, p->len);
}

void rec_stream_close(struct rec_stream *s)
{
	if (!s)
		return;
	while (s->head) {
		struct pending *p = s->head;
		s->head = p->next;
		free(p);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
