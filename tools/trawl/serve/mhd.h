/* The libmicrohttpd functions trawl serve calls, resolved with dlopen when
 * the command starts (core/lazy.h): trawl is not linked against the
 * library, so every other command starts without loading it. */
#ifndef TRAWL_SERVE_MHD_H
#define TRAWL_SERVE_MHD_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "trawl/status.h"

struct serve_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_get_connection_values) *get_connection_values;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

extern struct serve_mhd mhd;

/* Load the library (once); TRAWL_ERR_UNSUPPORTED saying why when it cannot. */
enum trawl_status serve_mhd_load(struct trawl_error *err);

#endif
