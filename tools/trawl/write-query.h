/* The write queries, last-write (dir -1) and next-write (dir 1): the two
 * commands differ only in direction and help text. */
#ifndef TRAWL_WRITE_QUERY_H
#define TRAWL_WRITE_QUERY_H

#include "index-cli.h"

/* What a write query asks about: memory [addr, addr+len) or a register
 * by name (name is borrowed). */
struct write_target {
	int is_mem;
	uint64_t addr, len;
	const char *name;
};
/* "ADDR[:LEN]" or a register name; -1 for a bad LEN. */
int write_target_parse(const char *target, struct write_target *t);
/* The last write at or before event ev (dir < 0) or the next one after it:
 * what trawl last-write/next-write answer (also the web view's). The core
 * of a register is cpu when have_cpu, else that of ev. TRAWL_ERR_FORMAT
 * when the name is no register of the trace, TRAWL_ERR_NOT_FOUND when
 * there is no such write. */
enum trawl_status write_query_find(struct index_cli *c, uint64_t ev, const struct write_target *t,
				   int have_cpu, uint16_t cpu, int dir, uint64_t *found,
				   struct trawl_error *err);

int write_query_run(int argc, char **argv, const char *name, int dir);

#endif
