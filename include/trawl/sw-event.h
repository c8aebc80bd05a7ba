/* A recorded software event and its class (name, typed fields): what the
 * CTF trace reader, the definitions compiler and the stream parser share.
 * Event id = subsys << 16 | event. */
#ifndef TRAWL_SW_EVENT_H
#define TRAWL_SW_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

#define TRAWL_SW_MAX_FIELDS 16

/* Field types (same numbers as enum trawl_rec_type in trawl/rec.h). */
enum trawl_sw_type {
	TRAWL_SW_U8 = 1, TRAWL_SW_U16, TRAWL_SW_U32, TRAWL_SW_U64,
	TRAWL_SW_S8, TRAWL_SW_S16, TRAWL_SW_S32, TRAWL_SW_S64,
};

/* "u32" -> TRAWL_SW_U32, 0 when unknown; and back. */
int trawl_sw_type_parse(const char *s, size_t len);
const char *trawl_sw_type_name(int type);
size_t trawl_sw_type_size(int type);

struct trawl_sw_class {
	uint32_t id;                 /* subsys << 16 | event */
	char name[96];               /* "subsys:event" */
	unsigned nfields;
	struct {
		char name[48];
		uint8_t type;        /* enum trawl_sw_type */
	} fields[TRAWL_SW_MAX_FIELDS];
};

struct trawl_sw_event {
	uint64_t time;               /* clock value, ns */
	uint32_t cpu, tid;
	uint32_t stream;             /* index into the trace's streams */
	uint64_t offset;             /* byte offset of the event in its stream file */
	const struct trawl_sw_class *cls; /* borrowed from the trace */
	uint64_t vals[TRAWL_SW_MAX_FIELDS]; /* signed types are sign-extended */
};

#endif
