/* trawl browse: a terminal browser over the time-travel index (tui/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index-cli.h"
#ifdef TRAWL_HAVE_NCURSES
#include "tui/browser.h"
#endif

static const char usage[] =
	"usage: trawl browse [options] TRACE\n"
	"\n"
	"Browse a trace in time on the terminal: the trace text around the current\n"
	"event, the registers of its CPU, memory at an address expression, and an\n"
	"optional FP/SIMD or SVE pane. Step, jump to lines, times and PC visits,\n"
	"search the text, fold calls, and jump to the event that last (or next)\n"
	"wrote a register or memory byte. Press h or F1 in the browser for every\n"
	"key; q quits. The index is built first when it is missing or stale.\n"
	"\n"
	"Options:\n"
	"  --image ELF[@OFFSET]  symbols for the status line and for expressions\n"
	"                    (repeatable; OFFSET is added to the ELF's addresses)\n"
	"  --at LINE         start at this line (default: the first event)\n"
	"  --mem EXPR        start with the memory pane at EXPR (evaluated at the\n"
	"                    start line: numbers, registers, symbols, + and -)\n"
	"  --bench-keys KEYS play KEYS (newline = Enter), time each redraw, write\n"
	"                    the times to --bench-out (default: stderr) and quit\n"
	"  --bench-out FILE  where --bench-keys writes its times\n"
	INDEX_OPTIONS_HELP
	TRACE_OPTIONS_HELP;

#ifdef TRAWL_HAVE_NCURSES
int cmd_browse(int argc, char **argv)
{
	double t_start = term_now_ms();
	struct index_cli c;
	struct trawl_image *img = NULL;
	struct trawl_error err;
	struct browse_options o;
	struct browser b;
	const char *at = NULL, *mem = NULL;
	int bad, rc = 0, have_nav = 0;
	memset(&c, 0, sizeof c);
	memset(&o, 0, sizeof o);
	memset(&b, 0, sizeof b);
	c.to.cmd = "browse";
	o.bench_out = "-";
	if (cli_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (trawl_image_create(&img, &err))
		return cli_report("browse", &err);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (index_cli_option(&c, argc, argv, &i, &bad)) {
			if (bad) {
				rc = cli_usage("browse", "%s needs an argument", a);
				goto out;
			}
		} else if (!strcmp(a, "--image") || !strcmp(a, "--at") || !strcmp(a, "--mem") ||
			   !strcmp(a, "--bench-keys") || !strcmp(a, "--bench-out")) {
			if (i + 1 >= argc) {
				rc = cli_usage("browse", "%s needs an argument", a);
				goto out;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--image")) {
				if (trawl_image_add_spec(img, v, &err)) {
					rc = cli_report("browse", &err);
					goto out;
				}
				b.img = img;
			} else if (!strcmp(a, "--at")) {
				at = v;
			} else if (!strcmp(a, "--mem")) {
				mem = v;
			} else if (!strcmp(a, "--bench-keys")) {
				o.bench_keys = v;
			} else {
				o.bench_out = v;
			}
		} else if (a[0] == '-' && a[1]) {
			rc = cli_usage("browse", "unknown option '%s'", a);
			goto out;
		} else if (!c.to.path) {
			c.to.path = a;
		} else {
			rc = cli_usage("browse", "unexpected argument '%s'", a);
			goto out;
		}
	}
	if (!c.to.path) {
		rc = cli_usage("browse", "no trace given");
		goto out;
	}
	if ((rc = index_cli_open(&c)))
		goto out;
	b.ix = c.ix;
	b.map = c.map;
	b.map_len = c.map_len;
	if (!trawl_index_event_count(c.ix)) {
		cli_error("browse", "%s: the trace has no events", c.to.path);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	nav_init(&b);
	have_nav = 1;
	if (at) {
		uint64_t ev;
		if ((rc = index_cli_line(&c, at, &ev)))
			goto out;
		nav_goto(&b, ev);
	}
	if (mem) {
		uint64_t addr;
		if (!nav_eval(&b, mem, &addr)) {
			rc = cli_usage("browse", "--mem '%s': %s", mem, b.msg);
			goto out;
		}
		snprintf(b.mem_expr, sizeof b.mem_expr, "%s", mem);
		b.mem_value = addr;
		b.mem_addr = addr & ~(uint64_t)15;
		b.sel_addr = addr;
		b.mem_set = 1;
		b.target = FOCUS_MEM;
	}
	if (!c.map)
		nav_msg(&b, 1, "trace text not mapped (compressed or a pipe): text pane empty");
	o.start_ms = t_start;
	rc = browser_run(&b, &o);
	if (rc < 0) {
		cli_error("browse", "needs a terminal (stdin and stdout) that curses knows (TERM=%s)",
			  getenv("TERM") ? getenv("TERM") : "");
		rc = EXIT_BAD_INPUT;
	} else if (browser_interrupted) {
		rc = 130;
	}
out:
	if (have_nav)
		nav_release(&b);
	index_cli_close(&c);
	trawl_image_destroy(img);
	return rc;
}
#else
int cmd_browse(int argc, char **argv)
{
	if (cli_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	cli_error("browse", "this trawl was built without ncurses (install libncurses-dev)");
	return EXIT_BAD_INPUT;
}
#endif
