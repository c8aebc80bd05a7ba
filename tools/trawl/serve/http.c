/* The HTTP side of trawl serve: who may ask (the token, the Host header),
 * what may be asked (the page's files and /api/), and the answers'
 * headers. libmicrohttpd parses HTTP; nothing here does. */
#if defined(TRAWL_HAVE_MHD)
#include "serve/http.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "serve/mhd.h"
#include "serve/spill.h"

/* The page may load only its own files and talk only to its own server;
 * nothing is cached and no Referer carries the token elsewhere. */
static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
			  "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
			  "base-uri 'none'; form-action 'none'";

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type,
			    void *data, size_t size, int copy, const char *cookie)
{
	struct MHD_Response *res = mhd.create_response_from_buffer(
		size, data, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_MUST_FREE);
	if (!res)
		return MHD_NO;
	mhd.add_response_header(res, "Content-Type", type);
	mhd.add_response_header(res, "Cache-Control", "no-store");
	mhd.add_response_header(res, "X-Content-Type-Options", "nosniff");
	mhd.add_response_header(res, "Referrer-Policy", "no-referrer");
	mhd.add_response_header(res, "Content-Security-Policy", csp);
	if (cookie)
		mhd.add_response_header(res, "Set-Cookie", cookie);
	enum MHD_Result r = mhd.queue_response(conn, status, res);
	mhd.destroy_response(res);
	return r;
}

static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned status, const char *why)
{
	char buf[256];
	int n = snprintf(buf, sizeof buf, "%s\n", why);
	return respond(conn, status, "text/plain; charset=utf-8", buf, (size_t)n, 1, NULL);
}

/* Same time whatever the first differing byte (the token is a secret). */
static int same_secret(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (!a || strlen(a) != n)
		return 0;
	unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* The token comes as ?token= or as the cookie the page got with it. */
static int allowed(const struct serve *s, struct MHD_Connection *conn, int *from_query)
{
	const char *q = mhd.lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	const char *c = mhd.lookup_connection_value(conn, MHD_COOKIE_KIND, "trawl_token");
	*from_query = same_secret(q, s->token);
	return *from_query || same_secret(c, s->token);
}

/* A page of another site that a DNS name resolving to 127.0.0.1 lets talk
 * to this server (DNS rebinding) sends its own name as Host. */
static int host_ok(const struct serve *s, struct MHD_Connection *conn)
{
	const char *h = mhd.lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	for (unsigned i = 0; h && i < sizeof s->host / sizeof *s->host; i++)
		if (s->host[i][0] && !strcmp(h, s->host[i]))
			return 1;
	return 0;
}

struct args {
	struct serve_req *r;
	char why[160];
	int bad;
};

static enum MHD_Result take_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct args *a = cls;
	(void)kind;
	if (!a->bad && serve_req_set(a->r, key, value, value ? strlen(value) : 0, a->why,
				     sizeof a->why))
		a->bad = 1;
	return MHD_YES;
}

static enum MHD_Result api(struct serve *s, struct MHD_Connection *conn, const char *url)
{
	struct serve_req r;
	struct args a = { &r, "", 0 };
	serve_req_init(&r);
	mhd.get_connection_values(conn, MHD_GET_ARGUMENT_KIND, take_arg, &a);
	if (a.bad)
		return refuse(conn, 400, a.why);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return refuse(conn, 500, "out of memory");
	uint64_t read_errors = spill_read_errors();
	int status = serve_api(s, url, &r, f);
	fputc('\n', f);
	if (fclose(f) || !buf) {
		free(buf);
		return refuse(conn, 500, "out of memory");
	}
	/* a failed read of the server's temporary files gave zeros somewhere
	 * in that answer: refuse it rather than show them */
	if (spill_read_errors() != read_errors) {
		char why[200];
		snprintf(why, sizeof why, "reading the server's temporary files (TMPDIR) failed: %s",
			 spill_read_error());
		free(buf);
		/* an answer lost: said on the terminal, and the exit status 1 */
		cli_error("serve", "%s: %s", url, why);
		cli_mark_lossy();
		return refuse(conn, 500, why);
	}
	return respond(conn, (unsigned)status, "application/json", buf, len, 0, NULL);
}

enum MHD_Result serve_http_answer(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct serve *s = cls;
	int from_query;
	(void)version;
	(void)upload_data;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return refuse(conn, 405, "only GET");
	if (*upload_data_size)
		return refuse(conn, 400, "no request body expected");
	if (!host_ok(s, conn))
		return refuse(conn, 403, "refused: unexpected Host header");
	if (!allowed(s, conn, &from_query))
		return refuse(conn, 403, "refused: the URL's token is missing or wrong");
	if (!strncmp(url, "/api/", 5))
		return api(s, conn, url);
	const char *path = strcmp(url, "/") ? url : "/index.html";
	for (unsigned i = 0; i < serve_nfiles; i++) {
		if (strcmp(path, serve_files[i].path))
			continue;
		/* the page's later requests carry the token as a cookie */
		char cookie[128];
		snprintf(cookie, sizeof cookie, "trawl_token=%s; Path=/; HttpOnly; SameSite=Strict",
			 s->token);
		return respond(conn, 200, serve_files[i].type, (void *)serve_files[i].data,
			    serve_files[i].size, 1, from_query ? cookie : NULL);
	}
	return refuse(conn, 404, "no such file");
}
#endif
