/* trawl last-write: the line that last wrote a register or memory range. */
#include "write-query.h"

int cmd_last_write(int argc, char **argv)
{
	return write_query_run(argc, argv, "last-write", -1);
}
