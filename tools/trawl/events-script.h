/* --script FILE for the events verbs: a Lua script's keep(e) as a filter
 * (events-script.c). Lua is loaded only when a script is given. */
#ifndef TRAWL_EVENTS_SCRIPT_H
#define TRAWL_EVENTS_SCRIPT_H

struct events_run;
int events_script_open(struct events_run *r);
/* Before the filter sees ev: the origin of e.time; on_event(e). Returns
 * 1 when the script failed (reading stops). */
struct trawl_sw_event;
int events_script_event(struct events_run *r, const struct trawl_sw_event *ev, int keep);
/* Reports the error that stopped the script, if any. */
void events_script_close(struct events_run *r);

#endif
