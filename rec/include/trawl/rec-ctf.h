/* CTF 1.8 writing shared by the recorder, `trawl listen` and
 * `trawl events import-bf`: the metadata text and the packet encoder.
 *
 * The layout is fixed (docs/recorder.md has the table): every stream file is
 * a sequence of packets; a packet is a 64-byte preamble then events; an
 * event is a 12-byte header (u32 id, u64 time in ns) then its fields, each
 * at its natural size, byte-aligned, in the host byte order (declared in the
 * metadata). Event ids are subsystem << 16 | event.
 *
 *   offset size packet preamble
 *   0      4    magic 0xC1FC1FC1
 *   4      4    stream class id (always 0)
 *   8      8    timestamp_begin (ns)
 *   16     8    timestamp_end (ns)
 *   24     8    content_size (bits)
 *   32     8    packet_size (bits, == content_size)
 *   40     8    packet_seq_num
 *   48     8    events_discarded (cumulative for the stream)
 *   56     4    cpu_id
 *   60     4    thread_id
 */
#ifndef TRAWL_REC_CTF_H
#define TRAWL_REC_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/rec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRAWL_CTF_MAGIC 0xC1FC1FC1u
#define TRAWL_CTF_PREAMBLE 64
#define TRAWL_CTF_EVENT_HEADER 12
#define TRAWL_CTF_NAME_MAX 96

struct trawl_ctf_class {
	uint32_t id;                       /* subsys << 16 | event */
	char name[TRAWL_CTF_NAME_MAX];     /* "subsys:event" */
	unsigned nfields;
	struct {
		char name[48];
		uint8_t type;              /* enum trawl_rec_type */
	} fields[TRAWL_REC_MAX_FIELDS];
};

/* Everything the metadata file says. */
struct trawl_ctf_meta {
	struct trawl_ctf_class *classes;   /* in the order they were added */
	uint32_t *order;                   /* indices into classes, sorted by id */
	size_t nclasses, cap;
	int64_t clock_offset_s;            /* clock value 0 = this many s + ns after the epoch */
	uint32_t clock_offset_ns;
	uint32_t pid;
	char procname[64];
	char tracer[32];                   /* env tracer_name */
	const char *env_extra;             /* more "\tkey = value;\n" lines for env, or NULL */
};

/* Size in bytes of one field of this type (0 for an unknown type). */
size_t trawl_ctf_type_size(unsigned type);
/* TSDL type name ("uint32_t"), NULL when unknown. */
const char *trawl_ctf_type_name(unsigned type);

void trawl_ctf_meta_init(struct trawl_ctf_meta *m);
void trawl_ctf_meta_release(struct trawl_ctf_meta *m);
/* Add a class unless one with the same id exists (returns 1 when added). */
int trawl_ctf_meta_add(struct trawl_ctf_meta *m, const struct trawl_ctf_class *c);
const struct trawl_ctf_class *trawl_ctf_meta_find(const struct trawl_ctf_meta *m, uint32_t id);
/* Render the metadata text into a malloc'd string. */
char *trawl_ctf_meta_text(const struct trawl_ctf_meta *m);
/* One class's TSDL event block, as the metadata has it (malloc'd). */
char *trawl_ctf_event_text(const struct trawl_ctf_class *c);
/* Write DIR/metadata (via a temporary file and rename). */
int trawl_ctf_meta_write(const struct trawl_ctf_meta *m, const char *dir);

/* A packet being built in a growable buffer. */
struct trawl_ctf_packet {
	uint8_t *buf;
	size_t len, cap;
	uint64_t ts_begin, ts_end;
	uint32_t nevents;
};

void trawl_ctf_packet_begin(struct trawl_ctf_packet *p);
/* Make room for `more` bytes after len (for encoders that write directly). */
int trawl_ctf_packet_reserve(struct trawl_ctf_packet *p, size_t more);
/* Append one event; vals has c->nfields values (NULL when none). */
int trawl_ctf_packet_event(struct trawl_ctf_packet *p, const struct trawl_ctf_class *c,
			   uint64_t ts, const uint64_t *vals);
/* Fill the preamble; the packet is then buf[0..len). */
void trawl_ctf_packet_finish(struct trawl_ctf_packet *p, uint64_t seq, uint64_t discarded,
			     uint32_t cpu, uint32_t tid);
void trawl_ctf_packet_release(struct trawl_ctf_packet *p);

#ifdef __cplusplus
}
#endif

#endif
