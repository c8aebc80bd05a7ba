/* Recorder internals shared between rec.c (buffers, flushing) and
 * stream.c (the TCP client of the stream protocol). */
#ifndef TRAWL_REC_INT_H
#define TRAWL_REC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/rec-ctf.h"
#include "trawl/rec-ring.h"

struct rec_stream;

/* CRC-32 as zlib's crc32(crc, data, len): start with crc = 0. */
uint32_t rec_crc32(uint32_t crc, const void *data, size_t len);
/* The trace clock now (ns, the clock packets are stamped with). */
uint64_t rec_clock_now(void);

/* Connect to host:port, send the hello and answer the listener's clock
 * probes (docs/stream-protocol.md). */
int rec_stream_open(struct rec_stream **out, const char *hostport, const struct trawl_ctf_meta *clock,
		    uint32_t nstreams);
/* Describe an event class; then packets may use it. */
int rec_stream_class(struct rec_stream *s, const struct trawl_ctf_class *c);
/* Send one CTF packet of stream sid. A copy is kept until acknowledged.
 * A negative return means the connection is gone. */
int rec_stream_packet(struct rec_stream *s, uint32_t sid, const void *data, size_t len);
/* Send a keepalive chunk when nothing was sent for a while, so that the
 * listener's idle timeout does not drop a quiet program; read acks. */
int rec_stream_keepalive(struct rec_stream *s);
/* Send END and wait (bounded) for everything to be acknowledged. */
int rec_stream_finish(struct rec_stream *s, unsigned timeout_ms);
/* Packets sent but never acknowledged, oldest first (for the fallback). */
void rec_stream_unacked(struct rec_stream *s, void (*fn)(void *ctx, uint32_t sid, const void *data, size_t len),
			void *ctx);
void rec_stream_close(struct rec_stream *s);

/* A thread's buffer (ring.c): the layout of rec-ring.h, either mapped
 * shared from DIR/.ring-N (survives the process) or anonymous memory
 * (streaming, or when the file cannot be made). Every page is written
 * once here, so the fast path never faults. */
struct rec_ring {
	uint8_t *base;
	size_t size;
	int fd;                      /* -1: anonymous */
	char path[1100];
	struct trawl_ring_head *head;
	struct trawl_ring_sub *subs;
	uint8_t *data;
};

/* dir NULL: anonymous memory. `tmpl` gives the head's identity and clock
 * fields; sizes are filled in. The file is locked (flock) while mapped so
 * that readers can tell a live ring from one a dead process left. */
int rec_ring_create(struct rec_ring *r, const char *dir, uint32_t sid, uint32_t nsub, size_t sub_size,
		    const struct trawl_ring_head *tmpl);
/* Unmap; remove the file too when `remove` (everything is in stream-N). */
void rec_ring_release(struct rec_ring *r, int remove);
/* Remove the file but keep the memory (a thread may still be storing). */
void rec_ring_unlink(struct rec_ring *r);
/* In a forked child: drop the parent's lock and mapping without touching the file. */
void rec_ring_forget(struct rec_ring *r);
/* Journal entry before a packet is written (pending) and after (committed). */
void rec_ring_pending(struct rec_ring *r, const struct trawl_ring_cursor *c);
void rec_ring_commit(struct rec_ring *r);

/* rec.c, for crash.c: flush from a fatal-signal handler (0 when done). */
int rec_crash_flush(int sig);
/* crash.c: catch fatal signals whose action is the default; undo. */
void rec_crash_install(void);
void rec_crash_uninstall(void);

#endif
