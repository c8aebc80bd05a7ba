/* The parameters of a trawl serve API request (the query string, split
 * into key=value pairs by libmicrohttpd), checked and typed in one place
 * before any handler sees them. Fuzzed by tests/fuzz/fuzz-serve-params.c. */
#ifndef TRAWL_SERVE_PARAMS_H
#define TRAWL_SERVE_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* Bits of serve_req.have: which parameters the request gave. */
enum {
	SP_TRACE = 1u << 0, SP_LINE = 1u << 1, SP_FROM = 1u << 2, SP_TO = 1u << 3,
	SP_COUNT = 1u << 4, SP_COLS = 1u << 5, SP_MAX = 1u << 6, SP_ADDR = 1u << 7,
	SP_LEN = 1u << 8, SP_CPU = 1u << 9, SP_DIR = 1u << 10, SP_REG = 1u << 11,
	SP_TEXT = 1u << 12, SP_OP = 1u << 13, SP_Q = 1u << 14, SP_MARK = 1u << 15,
	SP_FILTER = 1u << 16,       /* any of the software-event filters below */
};

/* The filters of a software-event view, as `trawl events` takes them
 * (cpus=, threads=, subsys=, events=, where=) and acts= (activities shown). */
enum { SF_CPUS, SF_THREADS, SF_SUBSYS, SF_EVENTS, SF_WHERE, SF_ACTS, SF_N };
extern const char *const serve_filter_keys[SF_N];

#define SERVE_TEXT_MAX 256      /* search text, go-to query */
#define SERVE_REG_MAX 64        /* a register name */
#define SERVE_COUNT_MAX 2000    /* lines per request */
#define SERVE_COLS_MAX 8192     /* timeline columns */
#define SERVE_ITEMS_MAX 20000   /* timeline items a request may ask for */
#define SERVE_MEM_MAX 4096      /* memory bytes per request */

enum serve_op { SERVE_OP_OVER = 1, SERVE_OP_BACK, SERVE_OP_OUT };

struct serve_req {
	uint32_t have;
	uint32_t trace;
	uint64_t line, from, to, count, cols, max, addr, len;
	uint16_t cpu;
	int dir;                /* +1 next / -1 last (dir=next|last) */
	int op;                 /* enum serve_op */
	char reg[SERVE_REG_MAX];
	char text[SERVE_TEXT_MAX];  /* text= and q= */
	char mark[SERVE_TEXT_MAX];  /* a function whose calls the timeline marks */
	char filter[SF_N][SERVE_TEXT_MAX]; /* each "" when not given */
	uint32_t filter_have;       /* 1 << SF_*: given */
};

void serve_req_init(struct serve_req *r);

/* Take one parameter. Returns 0, or -1 with why[] saying what is wrong
 * (an unknown key, a number that does not parse or is out of range, a
 * string too long or with a NUL). value may be NULL (a key without '='). */
int serve_req_set(struct serve_req *r, const char *key, const char *value, size_t value_len,
		  char *why, size_t why_size);

/* Check that what a handler needs is there: need is SP_* bits. Returns 0
 * or -1 with why[] naming the first missing parameter. */
int serve_req_need(const struct serve_req *r, uint32_t need, char *why, size_t why_size);

#endif
