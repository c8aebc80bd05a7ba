/* --script FILE for the events verbs: a Lua script's keep(e) as a filter
 * (events-script.c). Lua is loaded only when a script is given. */
#ifndef TRAWL_EVENTS_SCRIPT_H
#define TRAWL_EVENTS_SCRIPT_H

struct events_run;
int events_script_open(struct events_run *r);
void events_script_close(struct events_run *r);

#endif
