/* perf.data in the CLI: the library's program images with their notes
 * printed, and the `trawl info` description of a recording. */
#ifndef TRAWL_PERF_CLI_H
#define TRAWL_PERF_CLI_H

#include "trawl/ete.h"
#include "trawl/kallsyms.h"
#include "trawl/image.h"
#include "trawl/perf.h"

/* Program images for a perf.data (lib/ete/perf-images.c), the notes
 * printed under cmd; *clashes as trawl_perf_images_add says. Kernel: the
 * exit status (a vmlinux that cannot be read is reported). */
unsigned perf_cli_images(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			 const char *symfs, const char *bindir, const char *cmd, unsigned *clashes);
int perf_cli_kernel_image(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			  const char *vmlinux, const struct trawl_kallsyms *ks, const char *cmd);

/* 1 when the file at path starts with the PERFILE2 magic. */
int perf_cli_is_perf(const char *path);

/* autofdo: each ELF the perf.data at path mapped as code (found as the
 * reader finds it: opt's --symfs, --binary-dir) added to img where the
 * mapping put it, so addresses are relative to the binary; *added set
 * when one was. The first damage of a recording (its mapping records
 * may be lost) goes into damage (size n; the message names the file)
 * when that is still empty; damage may be NULL. Exit status. */
int perf_cli_symbol_images(const char *path, const struct trawl_reader_options *opt,
			   struct trawl_image *img, const char *cmd, int *added, char *damage,
			   size_t n);

/* `trawl info FILE.data`: exit status. recs: list every record (file
 * offset, type number, name, size) instead of the summary. */
int perf_cli_info(const char *path, int json, int recs);

#endif
