/* A perf.data's program images (lib/ete/perf-images.c) for the CLI: the
 * library's notes printed under the command's name. */
#include "cli.h"
#include "perf-cli.h"

static void print_note(void *ctx, const struct trawl_error *w)
{
	cli_warn(ctx, "%s", w->message);
}

unsigned perf_cli_images(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			 const char *symfs, const char *bindir, const char *cmd)
{
	return trawl_perf_images_add(pf, img, symfs, bindir, print_note, (void *)cmd);
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
