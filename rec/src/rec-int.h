/* Recorder internals shared between rec.c (buffers, flushing) and
 * stream.c (the TCP client of the stream protocol). */
#ifndef TRAWL_REC_INT_H
#define TRAWL_REC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/rec-ctf.h"

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

#endif
