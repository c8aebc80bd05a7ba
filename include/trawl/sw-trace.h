/* Reading the CTF traces the recorder (rec/), `trawl listen` and `trawl
 * events import-bf` write: a directory with `metadata` (CTF 1.8 TSDL text)
 * and one binary stream file per thread, in the fixed layout of
 * docs/recorder.md (64-byte packet preamble, 12-byte event header u32 id +
 * u64 ns, fields at natural size), plus the buffer files a program that
 * crashed left (.ring-N). */
#ifndef TRAWL_SW_TRACE_H
#define TRAWL_SW_TRACE_H

/* The version of the events this reader makes of a trace's bytes, for
 * index identity as TRAWL_READER_VERSION is for text traces. */
#define TRAWL_SW_READER_VERSION 2u /* 2: packet headers held against their events */

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-event.h"

struct trawl_swtrace;

/* Open a trace directory (metadata + stream files). */
enum trawl_status trawl_swtrace_open(struct trawl_swtrace **out, const char *dir, struct trawl_error *err);
/* Same from memory (for tests and fuzzing): metadata text and stream
 * buffers, borrowed until close. */
enum trawl_status trawl_swtrace_open_mem(struct trawl_swtrace **out, const char *meta, size_t meta_len,
					 const uint8_t *const *streams, const size_t *lens, size_t nstreams,
					 struct trawl_error *err);

/* Next event of all streams merged by time. TRAWL_END when every stream is
 * exhausted. Damage in a stream (truncated or corrupt packet) stops that
 * stream only; the first damage is kept for trawl_swtrace_damage(). */
enum trawl_status trawl_swtrace_next(struct trawl_swtrace *t, struct trawl_sw_event *ev);
/* The next events, up to max of them, into evs: the same events, in the
 * same order, as that many calls of trawl_swtrace_next, for less per
 * event. The count given; 0 at the end (or when out of memory, which is
 * then the trace's damage). */
size_t trawl_swtrace_next_batch(struct trawl_swtrace *t, struct trawl_sw_event *evs, size_t max);

/* The first damage met so far (file and byte offset filled), or NULL. */
const struct trawl_error *trawl_swtrace_damage(const struct trawl_swtrace *t);

struct trawl_swtrace_info {
	int64_t clock_offset_s;      /* clock value 0 in wall-clock time */
	uint32_t clock_offset_ns;
	size_t nstreams;
	size_t nclasses;
	const struct trawl_sw_class *classes;
	uint64_t lost;               /* events_discarded summed over streams (read so far) */
	char procname[64];
	uint32_t pid;
	/* buffer files (.ring-N) a program left when it did not stop cleanly
	 * (crash, SIGKILL, _exit): their events are read along with the
	 * streams (docs/recorder.md, "What survives a crash") */
	uint64_t recovered;          /* events taken from them */
	uint32_t rings;              /* buffer files read */
	uint32_t live_rings;         /* buffer files of a program still recording (left alone) */
	uint32_t signal;             /* fatal signal the recorder's handler saw (0: none seen) */
};
void trawl_swtrace_info(const struct trawl_swtrace *t, struct trawl_swtrace_info *info);
void trawl_swtrace_close(struct trawl_swtrace *t);

/* Make what trawl_swtrace_open recovered part of the trace on disk: each
 * stream file is cut to what the recorder's journal vouches for and the
 * recovered packets appended, classes made up for undefined events are
 * appended to the metadata, and the buffer files are removed (a damaged
 * one is renamed .ring-N.damaged). Call before reading any event. The
 * trace then reads the same, and babeltrace2 reads it too. */
enum trawl_status trawl_swtrace_recover(struct trawl_swtrace *t, const char *dir, struct trawl_error *err);

/* Parse the metadata text alone into classes (malloc'd array). */
enum trawl_status trawl_swtrace_parse_metadata(const char *text, size_t len, struct trawl_sw_class **classes,
					      size_t *nclasses, struct trawl_swtrace_info *info,
					      struct trawl_error *err);

#endif
