/* Kernel symbols from a /proc/kallsyms copy ("ffff800008010000 T _text",
 * optionally "\t[module]" after the name), for naming kernel addresses in
 * a recording when no vmlinux is given, and for placing a vmlinux where a
 * KASLR kernel ran (the run-time address of _text).
 */
#ifndef TRAWL_KALLSYMS_H
#define TRAWL_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

struct trawl_kallsyms;

/* Parse the text (not NUL-terminated); `name` is used in messages. A line
 * that is not "HEX TYPE NAME" fails with its line number; so does a file
 * whose addresses are all zero (read without the right to see them:
 * kptr_restrict). */
enum trawl_status trawl_kallsyms_parse(struct trawl_kallsyms **out, const char *text, size_t len,
				       const char *name, struct trawl_error *err);
enum trawl_status trawl_kallsyms_load(struct trawl_kallsyms **out, const char *path,
				      struct trawl_error *err);
void trawl_kallsyms_free(struct trawl_kallsyms *k);

/* The symbol at or below addr (its name; *start its address), or NULL
 * below the first one. Module symbols count like the others. */
const char *trawl_kallsyms_at(const struct trawl_kallsyms *k, uint64_t addr, uint64_t *start);
/* The address of a symbol by name: 1 found, 0 not. */
int trawl_kallsyms_named(const struct trawl_kallsyms *k, const char *name, uint64_t *addr);
size_t trawl_kallsyms_count(const struct trawl_kallsyms *k);

#endif
