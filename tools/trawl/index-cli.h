/* Shared by the index commands (index, regs, mem, last-write, next-write,
 * pc, changes, info): option parsing, opening (and building) the index
 * with a progress bar, line/event mapping and printing helpers. */
#ifndef TRAWL_INDEX_CLI_H
#define TRAWL_INDEX_CLI_H

#include <stdio.h>

#include "trace-open.h"
#include "trawl/index.h"
#include "trawl/text.h"

/* The options of every index command: entries of its option table (c is a
 * struct index_cli *), the reader options included. */
#define INDEX_OPTIONS(c)                                                             \
	CLI_STRING("index", 0, "FILE", &(c)->index_path,                             \
		   "the index to use (default: TRACE.trawlidx, or\n"                \
		   "$XDG_CACHE_HOME/trawl/ when that folder is read-only);\n"       \
		   "built when missing or stale"),                                   \
	CLI_FLAG("json", 0, &(c)->json, "machine-readable output"),                  \
	CLI_CHOICE("kind", "KIND", &(c)->kind, index_cli_kinds,                      \
		   "the kind of index to use: full (default for a new one) or\n"     \
		   "compact (about a tenth of the size, slower queries);\n"          \
		   "one of another kind is rebuilt"),                                \
	CLI_FLAG("memory-index", 0, &(c)->memory,                                    \
		 "build the index in memory for this command only (no\n"             \
		 "file is read or written; also done, with a warning, when\n"        \
		 "no folder for one can be written)"),                              \
	CLI_FLAG("no-index", 0, &(c)->no_index,                                      \
		 "regs and last-write: read the trace up to LINE only,\n"            \
		 "using no index file (other commands need the whole trace)"),       \
	TRACE_OPTIONS(&(c)->to)

/* Names of the index kinds for --kind, in trawl_index_kind_list order. */
extern const char *const index_cli_kinds[];

struct index_cli {
	struct trace_open to;
	const char *index_path;
	int json;
	int kind;               /* --kind: index in index_cli_kinds, or -1 */
	int memory;             /* --memory-index */
	int no_index;           /* --no-index */
	/* set by a command that can answer from the trace up to a line (a
	 * prefix): with --no-index only that much is read, in memory */
	uint64_t until_line;
	struct trawl_index *ix;
	/* the trace text (plain, gzip or zstd), opened at its first use */
	struct trawl_text *text;
	int text_tried;
	int failed; /* an event could not be printed (reported already) */
	/* told of the build's progress besides the terminal's bar (the web
	 * view shows it on its page); may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	struct cli_progress *bar;
	/* a decoded source's program image (index_cli_image), opened at its
	 * first use through a reader of the trace */
	struct trawl_reader *img_reader;
	int img_tried;
};

/* Parse the command line against cmd (whose table holds INDEX_OPTIONS(c))
 * with cli_parse; the first argument is the trace (c->to.path). Returns the
 * number of arguments (argv[0] the trace, argv[1..] the command's own), or
 * -1 when the command must return *rc. */
int index_cli_parse(struct index_cli *c, const struct cli_command *cmd, int argc, char **argv,
		    int *rc);
/* The build options the command line asked for (reader, kind). */
void index_cli_build_options(struct index_cli *c, struct trawl_index_build_options *opt);

/* Open (building if needed) the index of c->to.path. Returns 0 or an exit
 * code after printing the error. */
int index_cli_open(struct index_cli *c);
/* Returns EXIT_BAD_INPUT when an event could not be printed, else 0. */
int index_cli_close(struct index_cli *c);

/* Exit code of an index command that met a damaged index for the first
 * time: main() runs the command once more, and that run's index_cli_open
 * rebuilds the index first. */
#define INDEX_CLI_RETRY 99

/* Report a query error: a damaged index (the first time) becomes a note
 * and INDEX_CLI_RETRY; anything else goes to cli_report. */
int index_cli_report(struct index_cli *c, const struct trawl_error *err);
/* Close, turning rc into INDEX_CLI_RETRY (or an error) when any query on
 * the index met damage, even one whose status the command did not need. */
int index_cli_end(struct index_cli *c, int rc);

/* --at LINE -> event; prints the error and returns an exit code, or 0. */
/* The reader's warnings (a cut last line, writes on loads ...) printed as
 * the command's, as index_cli_open does when it builds the index. */
void index_cli_warnings(struct index_cli *c, struct trawl_reader_options *o);
int index_cli_line(struct index_cli *c, const char *arg, uint64_t *ev);
/* --cpu N names a core the trace has (0 .. highest core seen); otherwise
 * a usage error (exit 2) naming the cores it does have. */
int index_cli_check_cpu(struct index_cli *c, uint64_t cpu);

/* The trace's text, opened (its seek file built, with a progress bar, for
 * a compressed trace) the first time; NULL after saying why it cannot be
 * read (the command then exits 1). */
struct trawl_text *index_cli_text(struct index_cli *c);

/* For a compressed trace, open its text (building the seek file) and give
 * the seek file's size and path ("(in memory)" when kept there); 0 for a
 * plain trace or one whose text cannot be read. */
uint64_t index_cli_seek_size(struct index_cli *c, const char **path);

/* A source without text (ETE, perf.data): event e as `trawl cat` writes
 * it, from what the index keeps (no mode or disassembly); its length. */
size_t index_event_synth(const struct trawl_index *ix, const struct trawl_index_event *e, char *buf,
			 size_t size);

/* A decoded source (ETE snapshot or buffer, perf.data): the program image
 * it was decoded with (snapshot dumps, --ete-image files, mapped files),
 * opened the first time; NULL for a trace that records its memory, or when
 * the image cannot be opened (the index build reported why). */
const struct trawl_ete_image *index_cli_image(struct index_cli *c);

/* trawl_index_mem_at, with the bytes the trace shows none of taken from
 * index_cli_image where it holds them: a decoded trace records no data
 * accesses, and its code is what the image says (what it decoded with).
 * *from_image (may be NULL) is set to the number of such bytes. */
enum trawl_status index_cli_mem_at(struct index_cli *c, uint64_t ev, uint64_t addr, size_t len,
				   uint8_t *val, uint8_t *known, size_t *from_image,
				   struct trawl_error *err);

/* The first line of an event's text in the trace ("" when it cannot be
 * read, or the source has none); *s stays valid until the next text call. */
void index_cli_event_text(struct index_cli *c, uint64_t ev, const char **s, size_t *len);

/* Print the event as "line L (event N): TEXT" or as a JSON object. An
 * event the index cannot give is printed as null (JSON) and makes the
 * command exit non-zero: damage through index_cli_end (rebuild, second
 * run), other errors reported here and by index_cli_close. */
void index_cli_print_event(struct index_cli *c, FILE *f, uint64_t ev);

/* "after line L (event N): TEXT", or "after lines L-M ..." for an event
 * of several lines (an instruction and its effect lines): the state shown
 * is the one after all of them, whichever of them --at named. */
void index_cli_print_after(struct index_cli *c, FILE *f, uint64_t ev);

/* Register value as hex, most significant byte first, "??" for unknown. */
void print_reg_hex(FILE *f, const uint8_t *v, const uint8_t *k, uint32_t n);

/* Parse a register name as the trace would write it at event ev (lr is r14
 * on an AArch32 instruction): storage register, byte range. Returns 1 on
 * success. */
int index_cli_reg(struct index_cli *c, const char *name, uint64_t ev, uint32_t *reg,
		  uint32_t *off, uint32_t *size);

/* Every register trawl regs prints for one core's register file, in its
 * order, at the width it prints (a32: the event is AArch32): name, bytes
 * (least significant first), known flags (one per byte), width in bytes. */
typedef void (*index_cli_reg_fn)(void *ctx, const char *name, const uint8_t *v,
				 const uint8_t *k, uint32_t n);
void index_cli_regs_each(struct index_cli *c, const struct trawl_index_regs *regs, int a32,
			 index_cli_reg_fn fn, void *ctx);

#endif
