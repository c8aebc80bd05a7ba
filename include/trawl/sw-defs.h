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

/* ---- activities (docs/analysis.md): events grouped into units with a
 * duration, declared after or among the subsystems:
 *
 *   activity packet "RX to TX" span { begin net:RX; end net:TX, net:DROP; key thread; };
 *   activity hold span { begin lock:ACQUIRE; end lock:RELEASE; key waiter; };
 *   activity phase state { set app:START, app:STOP; idle app:STOP; };
 *   activity ipc message { send ipc:SEND; recv ipc:RECV; key seq; };
 *
 * span: begin..end matched per key (thread, cpu or a field both events
 * have), innermost first, so spans nest; state: a per-core state set by
 * events (`value FIELD`: the state is that field, `idle N`; else the state
 * is which set event it was, `idle EVENT`); message: a send matched with
 * the oldest unmatched receive of the same key (FIFO). Event names are
 * checked against the file's own events when it defines any. */

enum trawl_defs_act_kind { TRAWL_DEFS_SPAN = 1, TRAWL_DEFS_STATE, TRAWL_DEFS_MESSAGE };
enum trawl_defs_act_key { TRAWL_DEFS_KEY_THREAD = 1, TRAWL_DEFS_KEY_CPU, TRAWL_DEFS_KEY_FIELD };

#define TRAWL_DEFS_ACT_MAX_REFS 8

/* An event named by an activity, and where it was named. */
struct trawl_defs_act_ref {
	char name[96];               /* "subsys:event" */
	uint64_t line;
	uint32_t column;
};

struct trawl_defs_activity {
	char name[48];
	char *desc;                  /* may be NULL */
	int kind;                    /* enum trawl_defs_act_kind */
	int key;                     /* enum trawl_defs_act_key (span, message) */
	char field[48];              /* key FIELD, or the state's value FIELD ("" none) */
	/* span: begin/end; message: send/recv; state: set (begin only) */
	unsigned nbegin, nend;
	struct trawl_defs_act_ref begin[TRAWL_DEFS_ACT_MAX_REFS], end[TRAWL_DEFS_ACT_MAX_REFS];
	int has_idle;                /* state: 1 idle is the number idle, 2 the event idle_ref */
	uint64_t idle;
	struct trawl_defs_act_ref idle_ref;
	uint64_t line;               /* where the activity was declared */
	uint32_t column;
};

struct trawl_defs {
	struct trawl_defs_subsys *subsys;
	size_t nsubsys;
	struct trawl_defs_activity *activities;
	size_t nactivities;
	char file[256];              /* the file parsed, for errors found later */
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
/* The same class in the recorder's CTF writer's form (trawl/rec-ctf.h),
 * for writing metadata with it. */
struct trawl_ctf_class;
void trawl_sw_class_to_ctf(const struct trawl_sw_class *s, struct trawl_ctf_class *c);

#endif
