/* trawl mem: a hexdump of memory as it was after a line of the trace. */
#include <stdlib.h>
#include <string.h>

#include "index-cli.h"

#define MAX_LEN (16u << 20)

static const char mem_description[] =
	"Prints LEN bytes (default 64) of memory from ADDR as they were after the\n"
	"event containing LINE. Bytes the trace never showed are printed as ??;\n"
	"a value read from memory nobody wrote is known from the start of the\n"
	"trace (or from the semihosting call that last filled it). A decoded\n"
	"trace (ETE snapshot or buffer, perf.data) records no data accesses: its\n"
	"memory is what the program image holds (snapshot dumps, --ete-image\n"
	"files, mapped files), ?? elsewhere.\n";

/* The range is capped (16 MiB) because every byte is printed; the write
 * queries, whose cost follows the number of writes, take any length. The
 * hexdump rows are aligned to 16 bytes so that two dumps line up. */
int cmd_mem(int argc, char **argv)
{
	struct index_cli c;
	const char *at = NULL;
	memset(&c, 0, sizeof c);
	c.to.cmd = "mem";
	const struct cli_option opts[] = {
		CLI_STRING("at", 0, "LINE", &at, "a line of the trace (1-based)"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "mem",
		.usage = "[options] TRACE --at LINE ADDR [LEN]",
		.description = mem_description,
		.options = opts,
		.min_args = 2, .max_args = 3, .missing = "give a trace and an address",
	};
	int rc, npos = index_cli_parse(&c, &cmd, argc, argv, &rc) - 1;
	if (npos < 0)
		return rc;
	const char *pos[2] = { argv[1], npos > 1 ? argv[2] : NULL };
	if (!at)
		return cli_usage("mem", "--at LINE is required");
	uint64_t addr, len = 64;
	if (!cli_parse_u64(pos[0], &addr))
		return cli_usage("mem", "bad address '%s'", pos[0]);
	if (npos > 1 && (!cli_parse_u64(pos[1], &len) || len == 0 || len > MAX_LEN))
		return cli_usage("mem", "bad length '%s' (1 to %u bytes)", pos[1], MAX_LEN);
	/* the last byte may be 2^64-1: addr + len itself may be 0 */
	uint64_t last = addr + (len - 1);
	if (last < addr)
		return cli_usage("mem", "the range wraps around the address space");
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	uint64_t ev;
	uint8_t *val = NULL, *known = NULL;
	if ((rc = index_cli_line(&c, at, &ev)))
		goto out;
	val = malloc(len);
	known = malloc((len + 7) / 8);
	struct trawl_error err;
	if (!val || !known) {
		rc = cli_report("mem", &(struct trawl_error){ .status = TRAWL_ERR_NOMEM,
							     .message = "out of memory" });
		goto out;
	}
	size_t from_image = 0;
	if (index_cli_mem_at(&c, ev, addr, len, val, known, &from_image, &err)) {
		rc = index_cli_report(&c, &err);
		goto out;
	}
#define KNOWN(i) ((known[(i) / 8] >> ((i) % 8)) & 1)
	if (c.json) {
		printf("{\"event\":%llu,\"address\":\"0x%llx\",\"from_image\":%zu,\"bytes\":\"",
		       (unsigned long long)ev, (unsigned long long)addr, from_image);
		for (uint64_t i = 0; i < len; i++) {
			if (KNOWN(i))
				printf("%02x", val[i]);
			else
				fputs("??", stdout);
		}
		printf("\"}\n");
		goto out;
	}
	printf("memory ");
	index_cli_print_after(&c, stdout, ev);
	putchar('\n');
	if (from_image)
		printf("(%zu byte%s from the program image: the trace records no data accesses)\n",
		       from_image, from_image == 1 ? "" : "s");
	/* rows of 16 aligned to 16-byte addresses */
	for (uint64_t row = addr & ~(uint64_t)15, end = last & ~(uint64_t)15;; row += 16) {
		printf("%016llx:", (unsigned long long)row);
		char ascii[17];
		for (unsigned k = 0; k < 16; k++) {
			uint64_t a = row + k;
			ascii[k] = ' ';
			if (k == 8)
				putchar(' ');
			if (a < addr || a > last) {
				fputs("   ", stdout);
				continue;
			}
			uint64_t i = a - addr;
			if (KNOWN(i)) {
				printf(" %02x", val[i]);
				ascii[k] = val[i] >= 0x20 && val[i] < 0x7f ? (char)val[i] : '.';
			} else {
				fputs(" ??", stdout);
				ascii[k] = '?';
			}
		}
		ascii[16] = 0;
		printf("  |%s|\n", ascii);
		if (row == end)
			break; /* row + 16 may wrap to 0 */
	}
#undef KNOWN
out:
	free(val);
	free(known);
	return index_cli_end(&c, rc);
}
