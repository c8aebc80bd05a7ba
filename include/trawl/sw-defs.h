/* Software event definitions: parsing .tdef files (and their JSON form)
 * and generating the C header, CTF declarations and JSON from them. */
#ifndef TRAWL_SW_DEFS_H
#define TRAWL_SW_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-event.h"

/* ---- event definitions (.tdef files and their JSON form) ----
 *
 *   # comment, // comment, block comments
 *   subsystem net "networking" {
 *       event RX "packet received" (u32 len "bytes"),
 *       event TX "packet sent" (u32 len, u16 port, s64 delay_ns),
 *       event IRQ,
 *   };
 *
 * Subsystems and events are numbered in order from 0. Field types: u8 u16
 * u32 u64 s8 s16 s32 s64. */

#define TRAWL_DEFS_MAX_SUBSYS 0x8000
#define TRAWL_DEFS_MAX_EVENTS 0x10000

struct trawl_defs_field {
	char name[48];
	int type;                    /* enum trawl_sw_type */
	char *desc;                  /* may be NULL */
};

struct trawl_defs_event {
	char name[48];
	uint16_t id;
	char *desc;
	unsigned nfields;
	struct trawl_defs_field fields[TRAWL_SW_MAX_FIELDS];
};

struct trawl_defs_subsys {
	char name[48];
	uint16_t id;
	char *desc;
	struct trawl_defs_event *events;
	size_t nevents;
};

struct trawl_defs {
	struct trawl_defs_subsys *subsys;
	size_t nsubsys;
};

/* Parse .tdef text; errors carry file, line and column. */
enum trawl_status trawl_defs_parse(struct trawl_defs **out, const char *text, size_t len, const char *file,
				   struct trawl_error *err);
/* Read a definitions file: .tdef text when its name ends so, else the
 * JSON of trawl_defs_to_json. */
enum trawl_status trawl_defs_load(struct trawl_defs **out, const char *path, struct trawl_error *err);
/* Parse the JSON written by trawl_defs_to_json. */
enum trawl_status trawl_defs_parse_json(struct trawl_defs **out, const char *text, size_t len, const char *file,
					struct trawl_error *err);
/* Does this event go through the 16-byte fast path (no fields, or one
 * unsigned field of at most 32 bits)? */
int trawl_defs_event_fast(const struct trawl_defs_event *e);
/* Generated texts (malloc'd, NULL when out of memory). `base` names the
 * header guard and the registration function ("net" for net.tdef). */
char *trawl_defs_to_header(const struct trawl_defs *d, const char *base, const char *source);
char *trawl_defs_to_ctf(const struct trawl_defs *d);
char *trawl_defs_to_json(const struct trawl_defs *d);
/* The class (id, name, fields) the recorder writes for an event. */
void trawl_defs_class(const struct trawl_defs_subsys *s, const struct trawl_defs_event *e,
		      struct trawl_sw_class *c);
void trawl_defs_destroy(struct trawl_defs *d);

#endif
