/* The `trawl events` verbs over activities (cmd-events-act.c,
 * cmd-events-summary.c), for cmd-events.c's verb table. */
#ifndef TRAWL_EVENTS_ACT_H
#define TRAWL_EVENTS_ACT_H

int events_activities(int argc, char **argv);
int events_summary(int argc, char **argv);
/* The object `trawl events summary --json` prints, of the activities of
 * r->act and the statistics st (whose states it sorts), for trawl serve. */
struct events_run;
struct trawl_swstats;
struct trawl_json;
void events_summary_json(const struct events_run *r, struct trawl_swstats *st, struct trawl_json *j);
/* trawl export for a software-event trace (cmd-events-export.c). */
int events_export(int argc, char **argv);
/* Is path a CTF trace directory (holding metadata)? */
int events_is_trace(const char *path);

#endif
