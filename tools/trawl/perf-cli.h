/* perf.data in the CLI: program images from the MMAP records, and the
 * `trawl info` description of a recording. */
#ifndef TRAWL_PERF_CLI_H
#define TRAWL_PERF_CLI_H

#include "trawl/ete.h"
#include "trawl/kallsyms.h"
#include "trawl/perf.h"

/* Add every file-backed mapping's bytes to img at its mapped address
 * (file offset pgoff at start, as the mapping says). The file is found by
 * build id in bindir (DIR/<hex id>), under symfs (DIR/recorded path, then
 * DIR/base name), or at its recorded path. Kernel and anonymous mappings
 * are left out: their addresses decode as "no image". Returns how many
 * file-backed mappings were not found (each warned once under cmd). */
unsigned perf_cli_images(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			 const char *symfs, const char *bindir, const char *cmd);

/* Add vmlinux's loadable segments to img where the recording's kernel ran:
 * shifted by the run-time _text address (the kernel MMAP's pgoff, else
 * _text in ks) less vmlinux's own _text. Exit status (a vmlinux that
 * cannot be read is reported under cmd). */
int perf_cli_kernel_image(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			  const char *vmlinux, const struct trawl_kallsyms *ks, const char *cmd);

/* The build id the recording gives for a mapping's file, as hex, or "". */
void perf_cli_build_id(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
		       char *hex, size_t cap);

/* `trawl info FILE.data`: exit status. recs: list every record (file
 * offset, type number, name, size) instead of the summary. */
int perf_cli_info(const char *path, int json, int recs);

#endif
