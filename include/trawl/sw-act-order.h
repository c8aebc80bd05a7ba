/* Activities in the order they begin (docs/analysis.md). The engine
 * (sw-activity.h) hands a record over when its activity ends; this buffer
 * holds records back while an activity that began earlier is still open,
 * and releases them sorted by begin, then cpu, then kind (span, state,
 * message), then the activity's index, then arrival. It holds at most
 * `bound` records: past it the earliest is released anyway, so an
 * activity open that long comes out late, and is counted (late). */
#ifndef TRAWL_SW_ACT_ORDER_H
#define TRAWL_SW_ACT_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-activity.h"

struct trawl_act_order;

enum trawl_status trawl_act_order_create(struct trawl_act_order **out, size_t bound, trawl_act_sink sink,
					 void *ctx);
/* Hold one record; kind is its activity's enum trawl_defs_act_kind. */
enum trawl_status trawl_act_order_put(struct trawl_act_order *o, const struct trawl_act_record *rec, unsigned kind);
/* Release every record beginning before `before` (trawl_act_oldest_open:
 * nothing still to come can begin earlier). */
void trawl_act_order_release(struct trawl_act_order *o, uint64_t before);
/* Release every record held (at the end of the trace). */
void trawl_act_order_flush(struct trawl_act_order *o);
/* Records released after one that sorts later (the bound was reached). */
uint64_t trawl_act_order_late(const struct trawl_act_order *o);
/* Is anything held that begins before `before`? (cheap: the earliest) */
int trawl_act_order_due(const struct trawl_act_order *o, uint64_t before);
void trawl_act_order_destroy(struct trawl_act_order *o);

#endif
