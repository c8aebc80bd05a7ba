/* trawl next-write: the line that next writes a register or memory range. */
#include "write-query.h"

int cmd_next_write(int argc, char **argv)
{
	return write_query_run(argc, argv, "next-write", 1);
}
