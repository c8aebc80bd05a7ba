/* The recorder (rec/): what it writes is read back with the trace reader
 * and compared with what the test emitted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trawl/rec.h"
#include "trawl/rec-proto.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"
#include "trawl/sw-stream.h"

static char dir_buf[256];

static const char *fresh_dir(const char *tag)
{
	char cmd[400];
	snprintf(dir_buf, sizeof dir_buf, "/tmp/trawl-test-rec-%d-%s", (int)getpid(), tag);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir_buf);
	if (system(cmd) != 0)
		fail();
	return dir_buf;
}

static void remove_dir(const char *d)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	if (system(cmd) != 0)
		fail();
}

/* Everything in a trace, in time order. */
struct readback {
	struct trawl_sw_event *ev;
	size_t n;
	uint64_t lost;
};

static void read_trace(const char *dir, struct readback *rb)
{
	struct trawl_swtrace *t;
	struct trawl_error err;
	assert_int_equal(trawl_swtrace_open(&t, dir, &err), TRAWL_OK);
	size_t cap = 1024;
	rb->ev = malloc(cap * sizeof *rb->ev);
	rb->n = 0;
	struct trawl_sw_event ev;
	while (trawl_swtrace_next(t, &ev) == TRAWL_OK) {
		if (rb->n == cap)
			rb->ev = realloc(rb->ev, (cap *= 2) * sizeof *rb->ev);
		rb->ev[rb->n++] = ev;
	}
	assert_null(trawl_swtrace_damage(t));
	struct trawl_swtrace_info info;
	trawl_swtrace_info(t, &info);
	rb->lost = info.lost;
	/* class pointers die with the trace: keep ids only */
	for (size_t i = 0; i < rb->n; i++)
		rb->ev[i].offset = rb->ev[i].cls->id;
	trawl_swtrace_close(t);
}

static void config(struct trawl_rec_config *c, const char *dir)
{
	trawl_rec_config_init(c);
	c->out_dir = dir;
	c->flush_ms = 0;
}

/* Discard mode with a buffer far too small and nobody reading fast enough:
 * what is kept is in order, and kept + lost = emitted, exactly. */
static void test_discard_counts_every_loss(void **state)
{
	(void)state;
	const char *d = fresh_dir("discard");
	struct trawl_rec_config c;
	config(&c, d);
	c.buffer_bytes = 1024; /* 4 sub-buffers of 256 bytes = 64 events */
	c.subbuffers = 4;
	assert_int_equal(trawl_rec_start(&c), 0);
	for (uint32_t i = 0; i < 5000; i++)
		TRAWL_REC(7, 1, i);
	assert_int_equal(trawl_rec_stop(), 0);
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	assert_int_equal(st.recorded + st.lost, 5000);
	assert_true(st.lost > 0);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, st.recorded);
	assert_int_equal(rb.lost, st.lost);
	/* discard keeps the oldest: event 0 is there */
	assert_int_equal(rb.ev[0].vals[0], 0);
	for (size_t i = 1; i < rb.n; i++)
		assert_true(rb.ev[i].vals[0] > rb.ev[i - 1].vals[0]);
	free(rb.ev);
	remove_dir(d);
}

/* Overwrite mode: the newest events survive, losses are counted. */
static void test_overwrite_keeps_newest(void **state)
{
	(void)state;
	const char *d = fresh_dir("overwrite");
	struct trawl_rec_config c;
	config(&c, d);
	c.mode = TRAWL_REC_OVERWRITE;
	c.buffer_bytes = 1024;
	c.subbuffers = 4;
	assert_int_equal(trawl_rec_start(&c), 0);
	for (uint32_t i = 0; i < 5000; i++)
		TRAWL_REC(7, 2, i);
	assert_int_equal(trawl_rec_stop(), 0);
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	assert_int_equal(st.recorded + st.lost, 5000);
	assert_true(st.lost > 0);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, st.recorded);
	assert_int_equal(rb.lost, st.lost);
	assert_int_equal(rb.ev[rb.n - 1].vals[0], 4999);
	for (size_t i = 1; i < rb.n; i++)
		assert_true(rb.ev[i].vals[0] > rb.ev[i - 1].vals[0]);
	free(rb.ev);
	remove_dir(d);
}

static void test_subsystem_switches(void **state)
{
	(void)state;
	const char *d = fresh_dir("switch");
	struct trawl_rec_config c;
	config(&c, d);
	c.enable = "3,5-6";
	assert_int_equal(trawl_rec_start(&c), 0);
	for (uint16_t s = 0; s < 10; s++)
		TRAWL_REC(s, 0, s);
	assert_int_equal(trawl_rec_enable(5, 0), 0);
	assert_int_equal(trawl_rec_enable(9, 1), 0);
	for (uint16_t s = 0; s < 10; s++)
		TRAWL_REC(s, 1, s);
	assert_int_equal(trawl_rec_stop(), 0);
	struct readback rb;
	read_trace(d, &rb);
	/* 3, 5, 6 then 3, 6, 9 */
	static const uint32_t want[][2] = { { 3, 0 }, { 5, 0 }, { 6, 0 }, { 3, 1 }, { 6, 1 }, { 9, 1 } };
	assert_int_equal(rb.n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(rb.ev[i].offset, want[i][0] << 16 | want[i][1]);
	free(rb.ev);
	remove_dir(d);
}

/* Start on (4, 1, arg 7), stop on (4, 2): only the events in between, both
 * triggers included. */
static void test_triggers(void **state)
{
	(void)state;
	const char *d = fresh_dir("trig");
	struct trawl_rec_config c;
	config(&c, d);
	c.start = (struct trawl_rec_trigger){ .set = 1, .subsys = 4, .event = 1, .match_arg = 1, .arg = 7 };
	c.stop = (struct trawl_rec_trigger){ .set = 1, .subsys = 4, .event = 2 };
	assert_int_equal(trawl_rec_start(&c), 0);
	TRAWL_REC(1, 0, 100);   /* before: dropped */
	TRAWL_REC(4, 1, 6);     /* wrong argument: no start */
	TRAWL_REC(1, 0, 101);
	TRAWL_REC(4, 1, 7);     /* start */
	TRAWL_REC(1, 0, 102);
	TRAWL_REC(4, 3, 103);   /* same subsystem as the stop trigger, not it */
	TRAWL_REC(4, 2, 104);   /* stop */
	TRAWL_REC(1, 0, 105);
	TRAWL_REC(4, 1, 7);     /* no restart */
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	assert_true(st.triggered);
	assert_true(st.stopped);
	assert_int_equal(trawl_rec_stop(), 0);
	struct readback rb;
	read_trace(d, &rb);
	static const uint32_t want[][2] = { { 4 << 16 | 1, 7 }, { 1 << 16, 102 }, { 4 << 16 | 3, 103 }, { 4 << 16 | 2, 104 } };
	assert_int_equal(rb.n, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(rb.ev[i].offset, want[i][0]);
		assert_int_equal(rb.ev[i].vals[0], want[i][1]);
	}
	free(rb.ev);
	remove_dir(d);
}

static void test_duration_stops(void **state)
{
	(void)state;
	const char *d = fresh_dir("dur");
	struct trawl_rec_config c;
	config(&c, d);
	c.duration_ms = 30;
	assert_int_equal(trawl_rec_start(&c), 0);
	TRAWL_REC(2, 0, 1);
	struct timespec ts = { 0, 200 * 1000000L };
	nanosleep(&ts, NULL);
	TRAWL_REC(2, 0, 2);
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	assert_true(st.stopped);
	assert_int_equal(trawl_rec_stop(), 0);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, 1);
	assert_int_equal(rb.ev[0].vals[0], 1);
	free(rb.ev);
	remove_dir(d);
}

static const struct trawl_rec_field typed_fields[] = {
	{ "a", TRAWL_REC_S8 }, { "b", TRAWL_REC_U16 }, { "c", TRAWL_REC_S64 }, { "d", TRAWL_REC_U64 }, { "e", TRAWL_REC_S32 },
};
static const struct trawl_rec_event_def typed_defs[] = {
	{ 11, 3, "io", "WRITE", 5, typed_fields },
	{ 11, 4, "io", "FLUSH", 0, NULL },
};

/* Typed fields keep their declared width and sign; names come from the
 * definitions; undefined events get made-up names. */
static void test_typed_fields(void **state)
{
	(void)state;
	const char *d = fresh_dir("typed");
	assert_int_equal(trawl_rec_define(typed_defs, 2), 0);
	struct trawl_rec_config c;
	config(&c, d);
	assert_int_equal(trawl_rec_start(&c), 0);
	uint64_t v[5] = { (uint64_t)-1, 0x12345, (uint64_t)INT64_MIN, UINT64_MAX, (uint64_t)-123456 };
	trawl_rec_emit_fields(11, 3, v, 5);
	TRAWL_REC(11, 4, 99);
	TRAWL_REC(12, 9, 5);
	assert_int_equal(trawl_rec_stop(), 0);
	struct trawl_swtrace *t;
	struct trawl_error err;
	assert_int_equal(trawl_swtrace_open(&t, d, &err), TRAWL_OK);
	struct trawl_sw_event ev;
	assert_int_equal(trawl_swtrace_next(t, &ev), TRAWL_OK);
	assert_string_equal(ev.cls->name, "io:WRITE");
	assert_int_equal(ev.cls->nfields, 5);
	assert_string_equal(ev.cls->fields[2].name, "c");
	assert_int_equal((int64_t)ev.vals[0], -1);
	assert_int_equal(ev.vals[1], 0x2345); /* u16 keeps 16 bits */
	assert_int_equal((int64_t)ev.vals[2], INT64_MIN);
	assert_int_equal(ev.vals[3], UINT64_MAX);
	assert_int_equal((int64_t)ev.vals[4], -123456);
	assert_int_equal(trawl_swtrace_next(t, &ev), TRAWL_OK);
	assert_string_equal(ev.cls->name, "io:FLUSH");
	assert_string_equal(ev.cls->fields[0].name, "arg");
	assert_int_equal(ev.vals[0], 99);
	assert_int_equal(trawl_swtrace_next(t, &ev), TRAWL_OK);
	assert_string_equal(ev.cls->name, "subsys12:event9");
	assert_int_equal(ev.vals[0], 5);
	assert_int_equal(trawl_swtrace_next(t, &ev), TRAWL_END);
	trawl_swtrace_close(t);
	remove_dir(d);
}

/* Timestamps: the cycle counter converted to CLOCK_MONOTONIC ns must fall
 * between clock readings taken around the emits. */
static void test_timestamps_calibrated(void **state)
{
	(void)state;
	const char *d = fresh_dir("time");
	struct trawl_rec_config c;
	config(&c, d);
	assert_int_equal(trawl_rec_start(&c), 0);
	struct timespec a, b, pause = { 0, 50 * 1000000L };
	uint64_t before[3], after[3];
	for (int i = 0; i < 3; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		TRAWL_REC(1, 1, (uint32_t)i);
		clock_gettime(CLOCK_MONOTONIC, &b);
		before[i] = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
		after[i] = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
		nanosleep(&pause, NULL);
	}
	assert_int_equal(trawl_rec_stop(), 0);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, 3);
	for (int i = 0; i < 3; i++) {
		/* calibration error allowance: 0.1% of the elapsed time + 20 us */
		uint64_t slack = 20000 + (after[i] - before[0]) / 1000;
		if (rb.ev[i].time + slack < before[i] || rb.ev[i].time > after[i] + slack)
			fail_msg("event %d at %llu, outside [%llu, %llu] +- %llu", i, (unsigned long long)rb.ev[i].time,
				 (unsigned long long)before[i], (unsigned long long)after[i], (unsigned long long)slack);
	}
	free(rb.ev);
	remove_dir(d);
}

struct worker_arg {
	uint16_t subsys;
	uint32_t n;
};

static void *worker(void *p)
{
	struct worker_arg *w = p;
	for (uint32_t i = 0; i < w->n; i++)
		TRAWL_REC(w->subsys, 0, i);
	return NULL;
}

/* Several threads, buffers large enough: nothing lost, each thread's
 * events complete and in order, each thread its own stream. */
static void test_threads_no_loss(void **state)
{
	(void)state;
	const char *d = fresh_dir("threads");
	struct trawl_rec_config c;
	config(&c, d);
	c.buffer_bytes = 8u << 20;
	c.flush_ms = 5;
	assert_int_equal(trawl_rec_start(&c), 0);
	pthread_t th[4];
	struct worker_arg wa[4];
	for (int i = 0; i < 4; i++) {
		wa[i] = (struct worker_arg){ (uint16_t)(20 + i), 200000 };
		pthread_create(&th[i], NULL, worker, &wa[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(trawl_rec_stop(), 0);
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.recorded, 800000);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, 800000);
	uint32_t next[4] = { 0 };
	uint32_t stream_of[4] = { UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX };
	for (size_t i = 0; i < rb.n; i++) {
		unsigned w = (unsigned)(rb.ev[i].offset >> 16) - 20;
		assert_true(w < 4);
		assert_int_equal(rb.ev[i].vals[0], next[w]);
		next[w]++;
		if (stream_of[w] == UINT32_MAX)
			stream_of[w] = rb.ev[i].stream;
		assert_int_equal(rb.ev[i].stream, stream_of[w]);
		if (i)
			assert_true(rb.ev[i].time >= rb.ev[i - 1].time);
	}
	for (int w = 0; w < 4; w++)
		assert_int_equal(next[w], 200000);
	free(rb.ev);
	remove_dir(d);
}

/* trawl_rec_flush writes what was emitted a moment ago, including the
 * sub-buffer still being written, while recording goes on. */
static void test_flush_on_demand(void **state)
{
	(void)state;
	const char *d = fresh_dir("flush");
	struct trawl_rec_config c;
	config(&c, d);
	assert_int_equal(trawl_rec_start(&c), 0);
	for (uint32_t i = 0; i < 10; i++)
		TRAWL_REC(8, 0, i);
	assert_int_equal(trawl_rec_flush(), 0);
	struct readback rb;
	read_trace(d, &rb);
	assert_int_equal(rb.n, 10);
	assert_int_equal(rb.ev[9].vals[0], 9);
	free(rb.ev);
	for (uint32_t i = 10; i < 15; i++)
		TRAWL_REC(8, 0, i);
	assert_int_equal(trawl_rec_stop(), 0);
	read_trace(d, &rb);
	assert_int_equal(rb.n, 15);
	for (size_t i = 0; i < 15; i++)
		assert_int_equal(rb.ev[i].vals[0], i);
	free(rb.ev);
	remove_dir(d);
}

static void test_env_config(void **state)
{
	(void)state;
	struct trawl_rec_config c;
	trawl_rec_config_init(&c);
	setenv("TRAWL_REC_MODE", "overwrite", 1);
	setenv("TRAWL_REC_BUFFER", "64k", 1);
	setenv("TRAWL_REC_SUBBUF", "16", 1);
	setenv("TRAWL_REC_START", "3:4:0x10", 1);
	setenv("TRAWL_REC_STOP", "3:5", 1);
	setenv("TRAWL_REC_DURATION", "250", 1);
	setenv("TRAWL_REC_ENABLE", "1,2", 1);
	assert_int_equal(trawl_rec_config_env(&c), 0);
	assert_int_equal(c.mode, TRAWL_REC_OVERWRITE);
	assert_int_equal(c.buffer_bytes, 65536);
	assert_int_equal(c.subbuffers, 16);
	assert_true(c.start.set && c.start.match_arg);
	assert_int_equal(c.start.subsys, 3);
	assert_int_equal(c.start.event, 4);
	assert_int_equal(c.start.arg, 16);
	assert_true(c.stop.set && !c.stop.match_arg);
	assert_int_equal(c.duration_ms, 250);
	assert_string_equal(c.enable, "1,2");
	setenv("TRAWL_REC_MODE", "sometimes", 1);
	assert_int_equal(trawl_rec_config_env(&c), -EINVAL);
	setenv("TRAWL_REC_MODE", "discard", 1);
	setenv("TRAWL_REC_START", "3", 1);
	assert_int_equal(trawl_rec_config_env(&c), -EINVAL);
	const char *vars[] = { "TRAWL_REC_MODE", "TRAWL_REC_BUFFER", "TRAWL_REC_SUBBUF", "TRAWL_REC_START",
			       "TRAWL_REC_STOP", "TRAWL_REC_DURATION", "TRAWL_REC_ENABLE" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
	/* bad enable list refused at start */
	trawl_rec_config_init(&c);
	c.enable = "4-2";
	assert_int_equal(trawl_rec_start(&c), -EINVAL);
}

/* The reader's copy of the wire constants matches the recorder's. */
static void test_protocol_constants_agree(void **state)
{
	(void)state;
	assert_int_equal(TRAWL_PROTO_HELLO_SIZE, TRAWL_SP_HELLO_SIZE);
	assert_int_equal(TRAWL_PROTO_CHUNK_HEADER, TRAWL_SP_CHUNK_HEADER);
	assert_int_equal(TRAWL_PROTO_MSG_SIZE, TRAWL_SP_MSG_SIZE);
	assert_int_equal(TRAWL_PROTO_TIME_SIZE, TRAWL_SP_TIME_SIZE);
	assert_int_equal(TRAWL_PROTO_VERSION, TRAWL_SP_VERSION);
	assert_int_equal(TRAWL_PROTO_CLASS, TRAWL_SP_CLASS);
	assert_int_equal(TRAWL_PROTO_PACKET, TRAWL_SP_PACKET);
	assert_int_equal(TRAWL_PROTO_END, TRAWL_SP_END);
	assert_int_equal(TRAWL_PROTO_TIME, TRAWL_SP_TIME);
	assert_int_equal(TRAWL_PROTO_KEEPALIVE, TRAWL_SP_KEEPALIVE);
	assert_int_equal(TRAWL_REC_S64, TRAWL_SW_S64);
	assert_int_equal(TRAWL_REC_MAX_FIELDS, TRAWL_SW_MAX_FIELDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discard_counts_every_loss),
		cmocka_unit_test(test_overwrite_keeps_newest),
		cmocka_unit_test(test_subsystem_switches),
		cmocka_unit_test(test_triggers),
		cmocka_unit_test(test_duration_stops),
		cmocka_unit_test(test_typed_fields),
		cmocka_unit_test(test_timestamps_calibrated),
		cmocka_unit_test(test_threads_no_loss),
		cmocka_unit_test(test_flush_on_demand),
		cmocka_unit_test(test_env_config),
		cmocka_unit_test(test_protocol_constants_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
