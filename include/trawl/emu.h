/* AArch64 emulation that writes Tarmac traces.
 *
 * trawl_emu runs a statically linked AArch64 Linux program (ELF) at EL0 on
 * the Unicorn engine, emulating the Linux system calls ordinary C programs
 * make, and writes a Tarmac trace of every instruction: IT/IS lines, the
 * registers each instruction writes, and every memory access. Capstone
 * provides the disassembly. Built only when libunicorn and libcapstone are
 * available (TRAWL_HAVE_UNICORN, TRAWL_HAVE_CAPSTONE); otherwise
 * trawl_emu_open returns TRAWL_ERR_UNSUPPORTED.
 */
#ifndef TRAWL_EMU_H
#define TRAWL_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* ---- trace output files ------------------------------------------------ */

struct trawl_outfile;

/* Create `path` ("-" = standard output). A name ending in .gz or .zst is
 * compressed on the fly (gzip level 1, zstd level 1). */
enum trawl_status trawl_outfile_open(struct trawl_outfile **out, const char *path,
				     struct trawl_error *err);
/* Copies data (it stays the caller's). */
enum trawl_status trawl_outfile_write(struct trawl_outfile *o, const void *data, size_t len,
				      struct trawl_error *err);
/* The same bytes as trawl_outfile_write(o, *buf, len), without a copy when
 * the file is a .zst compressed on threads: the outfile may then keep the
 * malloc'd buffer *buf (cap bytes, len of them used) and put another
 * malloc'd buffer of cap bytes in *buf (or compress it at once and leave
 * it). Either way the caller owns, fills and at the end frees whatever
 * *buf holds after the call; on an error *buf is unchanged. Errors of the threads (a failed write) come back from a
 * later call or from close, with the frames before the failed one written. */
enum trawl_status trawl_outfile_take(struct trawl_outfile *o, char **buf, size_t len, size_t cap,
				     struct trawl_error *err);
/* Compress a .zst file on `threads` threads beside the caller's (each block
 * handed over becomes an independent zstd frame, the frames in order); 0 =
 * one frame compressed in the calling thread. Before the first write; no
 * effect on other kinds. The default is trawl_outfile_default_threads(). */
int trawl_outfile_default_threads(void); /* CPUs online - 1, at most 8 */
enum trawl_status trawl_outfile_set_threads(struct trawl_outfile *o, int threads,
					    struct trawl_error *err);
/* Bytes accepted (compressed = 0) or written to the file (compressed = 1;
 * with compressor threads, known only when they are done, at close). */
uint64_t trawl_outfile_bytes(const struct trawl_outfile *o, int compressed);
/* Finish the compressed stream and close. With err == NULL the stream is
 * abandoned unfinished (used on the error path). */
enum trawl_status trawl_outfile_close(struct trawl_outfile *o, struct trawl_error *err);

/* ---- the emulator ------------------------------------------------------ */

enum trawl_emu_style {
	TRAWL_EMU_STYLE_FM = 0,    /* Fast Models: IT/IS, R, MR/MW lines */
	TRAWL_EMU_STYLE_LDST,      /* as FM, with LD/ST 16-byte diagram lines for memory */
	TRAWL_EMU_STYLE_NONE,      /* no trace at all (baseline for benchmarks) */
};

struct trawl_emu_options {
	int argc;                  /* guest argv (argv[0] = program name shown to it) */
	char **argv;
	char **envp;               /* NULL-terminated; NULL = a small fixed environment */
	uint64_t max_insns;        /* stop after this many instructions; 0 = no limit */
	enum trawl_emu_style style;
	int guest_stdout;          /* host fd behind the guest's fd 1 (default 1) */
	int guest_stderr;          /* host fd behind the guest's fd 2 (default 2) */
	int guest_stdin;           /* host fd behind the guest's fd 0 (default 0) */
	int verify_writes;         /* slow self-check: compare the whole register
	                              file before/after each instruction with the
	                              decoded write set; a difference is an error */
	size_t buffer_size;        /* output buffer bytes; 0 = 512 KiB (at least 256 KiB) */
	uint64_t stack_top;        /* end of the 8 MiB stack, page aligned; 0 = just
	                              below 2^48 (to put it where another emulator
	                              does, for comparing register values) */
	const char *root;          /* --root: the guest's changes to files go
	                              under this directory; NULL = refused (EROFS) */
	int mem_hooks;             /* take memory accesses from Unicorn's memory
	                              hooks (slower: the old path, to compare)
	                              instead of computing them from the decoded
	                              instructions */
	uint64_t quantum;          /* instructions a thread runs before the next
	                              one does; 0 = TRAWL_EMU_QUANTUM */
	int fixed_clock;           /* clock_gettime and futex timeouts on a clock
	                              of the run's own: a fixed start plus 1 ns
	                              per instruction, not the host's time (so
	                              that a program reading the time gives the
	                              same trace each run) */
	/* Called with each instruction as its trace line is written (PC and
	 * encoding and the index its line shows, in trace order; needs a style other than NONE; with no
	 * output file the text is dropped). NULL: none (`emulate --ete`). */
	void (*insn_fn)(void *ctx, uint64_t pc, uint32_t enc, uint64_t index);
	void *insn_ctx;
};

#define TRAWL_EMU_QUANTUM 10000

/* Why the run ended. */
enum trawl_emu_stop {
	TRAWL_EMU_EXITED = 0,      /* the program called exit/exit_group */
	TRAWL_EMU_LIMIT,           /* max_insns reached */
	TRAWL_EMU_FAULT,           /* unmapped access, undefined instruction,
	                              unsupported system call ... (see error) */
};

struct trawl_emu_result {
	enum trawl_emu_stop stop;
	int exit_code;             /* the program's exit status when EXITED */
	uint64_t insns;            /* instructions executed and traced */
	uint64_t fault_pc;         /* FAULT: the instruction that failed */
	uint64_t fault_addr;       /* FAULT: the address it touched (0 if none) */
	int signal;                /* FAULT: the signal that killed the program
	                              (SIGSEGV, SIGILL, SIGTRAP with no handler),
	                              exit_code = 128 + it; 0 for trawl's own stop */
	uint64_t trace_bytes;      /* uncompressed trace bytes written */
	uint64_t mem_hooks_from;   /* memory hooks reported the accesses from the
	                              instruction with this index on (1: all,
	                              0: none, every access was computed) */
	uint64_t mem_unmodelled;   /* instructions the decoder does not model
	                              that ran with the hooks on */
	uint64_t refused_writes;   /* changes to files refused (no root) */
	char refused_first[320];   /* the first: "unlinkat 'a.txt'" */
};

struct trawl_emu;

/* Load `elf_path` (a static AArch64 executable) and prepare a run with the
 * given options (copied; the strings must stay valid until close). Bad
 * ELF files fail with TRAWL_ERR_FORMAT and a message saying why. */
enum trawl_status trawl_emu_open(struct trawl_emu **out, const char *elf_path,
				 const struct trawl_emu_options *opt, struct trawl_error *err);

/* Run to the end, writing the trace to `out` (may be NULL with STYLE_NONE).
 * Returns TRAWL_OK when the program exited or the limit was reached (see
 * res->stop). A guest fault returns TRAWL_ERR_FORMAT with res->stop =
 * TRAWL_EMU_FAULT, the PC and address in res and in the message; the trace
 * written so far is complete up to the last finished instruction. A fault
 * Linux would kill the program for (no handler, or its signal blocked or
 * ignored) also sets res->signal and res->exit_code = 128 + the signal. */
enum trawl_status trawl_emu_run(struct trawl_emu *e, struct trawl_outfile *out,
				struct trawl_emu_result *res, struct trawl_error *err);

void trawl_emu_close(struct trawl_emu *e);

#endif
