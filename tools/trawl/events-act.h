/* The `trawl events` verbs over activities (cmd-events-act.c,
 * cmd-events-summary.c), for cmd-events.c's verb table. */
#ifndef TRAWL_EVENTS_ACT_H
#define TRAWL_EVENTS_ACT_H

int events_activities(int argc, char **argv);
int events_summary(int argc, char **argv);

#endif
