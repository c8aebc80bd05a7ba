/* Loading a library at first use (see lazy.h). */
#include "core/lazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void *open_lib(struct lazy_lib *l)
{
	void *h = NULL;
	if (l->path && *l->path)
		h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		snprintf(l->why, sizeof l->why, "%s", dlerror());
	return h;
}

enum trawl_status lazy_lib_load(struct lazy_lib *l, struct trawl_error *err)
{
	if (l->state == 0) {
		void *h = open_lib(l);
		l->state = h ? 1 : -1;
		l->handle = h;
		for (size_t i = 0; h && l->names[i]; i++) {
			l->slots[i] = dlsym(h, l->names[i]);
			if (!l->slots[i]) {
				snprintf(l->why, sizeof l->why, "%s lacks %s", l->soname, l->names[i]);
				l->state = -1;
			}
		}
	}
	if (l->state < 0)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "cannot load %s (%s): %s",
				       l->label, l->soname, l->why);
	return TRAWL_OK;
}
