/* A perf.data's program images (lib/ete/perf-images.c) for the CLI: the
 * library's notes printed under the command's name. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "perf-cli.h"
#include "trawl/image.h"

static void print_note(void *ctx, const struct trawl_error *w)
{
	cli_warn(ctx, "%s", w->message);
}

unsigned perf_cli_images(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			 const char *symfs, const char *bindir, const char *cmd, unsigned *clashes)
{
	return trawl_perf_images_add(pf, img, symfs, bindir, print_note, (void *)cmd, clashes);
}

int perf_cli_kernel_image(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			  const char *vmlinux, const struct trawl_kallsyms *ks, const char *cmd)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_perf_kernel_image_add(pf, img, vmlinux, ks, print_note, (void *)cmd, &err))
		return cli_report(cmd, &err);
	return EXIT_OK;
}

int perf_cli_symbol_images(const char *path, const struct trawl_reader_options *opt,
			   struct trawl_image *img, const char *cmd, int *added, char *damage,
			   size_t n)
{
	struct trawl_perf_file *pf = NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_perf_open(&pf, path, &err) != TRAWL_OK)
		return cli_report(cmd, &err);
	const char *symfs = opt->perf_symfs, *bindir = opt->perf_binary_dir;
	int rc = EXIT_OK;
	if (pf->nwarnings && damage && n && !damage[0])
		snprintf(damage, n, "%s (%u problem%s in the recording)", pf->warning,
			 pf->nwarnings, pf->nwarnings == 1 ? "" : "s");
	for (size_t i = 0; i < pf->nmmaps; i++) {
		const struct trawl_perf_mmap *m = &pf->mmaps[i];
		char file[4096];
		uint64_t bias;
		/* code only (MMAP2 says; MMAP records do not) */
		if (!trawl_perf_mmap_has_file(m) || (m->prot && !(m->prot & 4)) ||
		    !trawl_perf_find_file(pf, m, symfs, bindir, file, sizeof file))
			continue;
		if (trawl_perf_mapping_bias(m, file, &bias, &err) != TRAWL_OK) {
			char buf[512];
			trawl_error_format(&err, buf, sizeof buf);
			cli_warn(cmd, "%s: %s: its ranges are not written", path, buf);
			trawl_error_clear(&err);
			continue;
		}
		/* once per file and place, also across the perf.data files of one
		 * command (the mappings of each segment, recordings of one
		 * program): a second copy wrote a second block of the same counts */
		size_t nmod, k = 0;
		const struct trawl_image_module *mod = trawl_image_modules(img, &nmod);
		while (k < nmod && (strcmp(mod[k].path, file) || mod[k].offset != bias))
			k++;
		if (k < nmod)
			continue;
		if (trawl_image_add_elf(img, file, bias, &err) != TRAWL_OK) {
			rc = cli_report(cmd, &err);
			break;
		}
		*added = 1;
	}
	trawl_perf_close(pf);
	return rc;
}

int perf_cli_is_perf(const char *path)
{
	uint8_t magic[8];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
	if (f)
		fclose(f);
	return trawl_perf_is_perf(magic, n);
}
