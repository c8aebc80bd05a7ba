/* The request handler trawl serve gives libmicrohttpd (http.c). */
#ifndef TRAWL_SERVE_HTTP_H
#define TRAWL_SERVE_HTTP_H

#include "serve/mhd.h"
#include "serve/serve.h"

enum MHD_Result serve_http_answer(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls);

#endif
