/* trawl defs: compile event definitions (.tdef) into a C header, a CTF
 * metadata fragment and a JSON description. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "trawl/sw-defs.h"

static int write_text(const char *cmd, const char *dir, const char *base, const char *ext, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s%s", dir, base, ext);
	FILE *f = fopen(path, "w");
	if (!f) {
		cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	if (fclose(f) != 0 || bad) {
		cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

/* The whole file is parsed and checked before anything is written, so a bad
 * definitions file leaves DIR as it was (--check stops there). All three
 * outputs are generated in memory first, then written, so out of memory
 * cannot leave a header without its matching CTF and JSON. */
int cmd_defs(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	int check = 0, rc = EXIT_OK;
	const struct cli_option opts[] = {
		CLI_STRING("output", 'o', "DIR", &out, "where to write (created if missing)"),
		CLI_FLAG("check", 0, &check, "only check the file"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "defs",
		.usage = "FILE.tdef -o DIR",
		.description =
			"Compiles software event definitions into DIR/NAME.h (constants and one\n"
			"inline emit function per event, for programs using <trawl/rec.h>),\n"
			"DIR/NAME.ctf (CTF 1.8 event declarations) and DIR/NAME.json (read by\n"
			"'trawl events import-bf --defs'). NAME is FILE without its extension.\n"
			"\n"
			"  subsystem net \"networking\" {\n"
			"      event RX \"packet received\" (u32 len \"bytes\"),\n"
			"      event TX \"packet sent\" (u32 len, u16 port, s64 delay),\n"
			"  };\n"
			"\n"
			"Subsystems and events are numbered from 0 in order. Field types: u8 u16\n"
			"u32 u64 s8 s16 s32 s64 (at most 16 fields). Errors name the line and column.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no definitions file given",
	};
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	in = argv[0];
	if (!out && !check)
		return cli_usage("defs", "no output directory (-o DIR)");
	struct trawl_error err;
	trawl_error_clear(&err);
	uint8_t *text = NULL;
	size_t len = 0;
	struct trawl_defs *d = NULL;
	char *h = NULL, *c = NULL, *j = NULL;
	if (trawl_file_read(in, &text, &len, &err) ||
	    trawl_defs_parse(&d, (const char *)text, len, in, &err)) {
		rc = cli_report("defs", &err);
		goto out;
	}
	if (check)
		goto out;
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		cli_error("defs", "cannot create '%s': %s", out, strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	char base[256], tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", in);
	snprintf(base, sizeof base, "%s", basename(tmp));
	snprintf(tmp, sizeof tmp, "%s", in);
	char *dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = 0;
	char src[300];
	snprintf(src, sizeof src, "%s", basename(tmp));
	h = trawl_defs_to_header(d, base, src);
	c = trawl_defs_to_ctf(d);
	j = trawl_defs_to_json(d);
	if (!h || !c || !j) {
		cli_error("defs", "out of memory");
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if ((rc = write_text("defs", out, base, ".h", h)) || (rc = write_text("defs", out, base, ".ctf", c)) ||
	    (rc = write_text("defs", out, base, ".json", j)))
		goto out;
out:
	free(h);
	free(c);
	free(j);
	trawl_defs_destroy(d);
	free(text);
	return rc;
}
