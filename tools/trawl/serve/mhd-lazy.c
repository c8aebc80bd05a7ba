/* Loading libmicrohttpd at the start of trawl serve (see mhd.h). */
#if defined(TRAWL_HAVE_MHD)
#include "serve/mhd.h"

#include "core/lazy.h"

#ifndef TRAWL_MHD_PATH
#define TRAWL_MHD_PATH NULL
#endif

/* The order of names[] and of the fields of struct serve_mhd must agree. */
static const char *const names[] = {
	"MHD_start_daemon", "MHD_stop_daemon", "MHD_get_daemon_info",
	"MHD_lookup_connection_value", "MHD_get_connection_values",
	"MHD_create_response_from_buffer", "MHD_add_response_header", "MHD_queue_response",
	"MHD_destroy_response", NULL,
};

struct serve_mhd mhd;

static struct lazy_lib lib = {
	.label = "libmicrohttpd (the web server)",
	.path = TRAWL_MHD_PATH,
	.soname = "libmicrohttpd.so.12",
	.names = names,
	.slots = (void **)&mhd,
};

enum trawl_status serve_mhd_load(struct trawl_error *err)
{
	return lazy_lib_load(&lib, err);
}
#endif
