/* --script: not built yet (Lua scripting, issue #14 item 3). */
#include "events-run.h"
#include "events-script.h"

int events_script_open(struct events_run *r)
{
	return cli_usage(r->cmd, "--script is not supported yet");
}

void events_script_close(struct events_run *r)
{
	(void)r;
}
