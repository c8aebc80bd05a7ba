/* trawl browse: a terminal browser over the time-travel index (tui/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index-cli.h"
#ifdef TRAWL_HAVE_NCURSES
#include "tui/browser.h"
#endif

/* The command line, the same with and without ncurses (so --help works). */
struct browse_args {
	struct index_cli c;
	struct cli_image image;
	const char *at, *mem, *bench_keys, *bench_out;
};

static int browse_parse(struct browse_args *a, int argc, char **argv, int *rc)
{
	const struct cli_option opts[] = {
		CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &a->image,
			     "symbols for the status line and for expressions\n"
			     "(repeatable; OFFSET is added to the ELF's addresses)"),
		CLI_STRING("at", 0, "LINE", &a->at, "start at this line (default: the first event)"),
		CLI_STRING("mem", 0, "EXPR", &a->mem,
			   "start with the memory pane at EXPR (evaluated at the\n"
			   "start line: numbers, registers, symbols, + and -)"),
		CLI_STRING("bench-keys", 0, "KEYS", &a->bench_keys,
			   "play KEYS (newline = Enter), time each redraw, write\n"
			   "the times to --bench-out (default: stderr) and quit"),
		CLI_STRING("bench-out", 0, "FILE", &a->bench_out, "where --bench-keys writes its times"),
		INDEX_OPTIONS(&a->c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "browse",
		.usage = "[options] TRACE",
		.description =
			"Browse a trace in time on the terminal: the trace text around the current\n"
			"event, the registers of its CPU, memory at an address expression, and an\n"
			"optional FP/SIMD or SVE pane. Step, jump to lines, times and PC visits,\n"
			"search the text, fold calls, and jump to the event that last (or next)\n"
			"wrote a register or memory byte. Press h or F1 in the browser for every\n"
			"key; q quits. The index is built first when it is missing or stale.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	return index_cli_parse(&a->c, &cmd, argc, argv, rc);
}

#ifdef TRAWL_HAVE_NCURSES
/* Everything that can fail with a message (options, index, --at, --mem) is
 * checked before curses takes the terminal, so errors are printed on a
 * normal screen and the exit status follows the usual rule. A trace whose
 * text cannot be read still browses, with the text pane empty and a message
 * saying why; a source without text (an ETE snapshot) shows each event as
 * the index has it (pane-trace.c). */
int cmd_browse(int argc, char **argv)
{
	double t_start = term_now_ms();
	struct browse_args a;
	struct trawl_error err;
	struct browse_options o;
	struct browser b;
	int rc = 0, have_nav = 0;
	memset(&a, 0, sizeof a);
	memset(&o, 0, sizeof o);
	memset(&b, 0, sizeof b);
	a.c.to.cmd = a.image.cmd = "browse";
	if (trawl_image_create(&a.image.img, &err))
		return cli_report("browse", &err);
	if (browse_parse(&a, argc, argv, &rc) < 0)
		goto out;
	const char *at = a.at, *mem = a.mem;
	o.bench_keys = a.bench_keys;
	o.bench_out = a.bench_out ? a.bench_out : "-";
	if (a.image.given)
		b.img = a.image.img;
	if ((rc = index_cli_open(&a.c)))
		goto out;
	b.ix = a.c.ix;
	b.mem_img = index_cli_image(&a.c);
	b.text = index_cli_text(&a.c);
	if (!trawl_index_event_count(a.c.ix)) {
		cli_error("browse", "%s: the trace has no events", a.c.to.path);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	nav_init(&b);
	have_nav = 1;
	if (at) {
		uint64_t ev;
		if ((rc = index_cli_line(&a.c, at, &ev)))
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
	struct trawl_index_info info;
	trawl_index_get_info(a.c.ix, &info);
	if (!b.text && !info.no_text)
		nav_msg(&b, 1, "the trace text cannot be read: text pane empty");
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
	index_cli_close(&a.c);
	trawl_image_destroy(a.image.img);
	return rc;
}
#else
int cmd_browse(int argc, char **argv)
{
	struct browse_args a;
	struct trawl_error err;
	int rc;
	memset(&a, 0, sizeof a);
	a.c.to.cmd = a.image.cmd = "browse";
	if (trawl_image_create(&a.image.img, &err))
		return cli_report("browse", &err);
	int n = browse_parse(&a, argc, argv, &rc);
	trawl_image_destroy(a.image.img);
	if (n < 0)
		return rc;
	cli_error("browse", "this trawl was built without ncurses (install libncurses-dev)");
	return EXIT_BAD_INPUT;
}
#endif
