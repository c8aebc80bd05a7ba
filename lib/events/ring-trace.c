/* Buffer files (.ring-N) in a trace directory: reading them with the
 * trace (each one's missing events appended to its stream in memory) and
 * writing the recovery into the trace (trawl_swtrace_recover). */
#include "core/bytes.h"
#include "events/ctf-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ring_trace_is_ring(const char *name)
{
	if (strncmp(name, ".ring-", 6) != 0 || !name[6])
		return 0;
	for (const char *p = name + 6; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static enum trawl_status read_fd(int fd, const char *path, uint8_t **out, size_t *len, struct trawl_error *err)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		return trawl_error_errno(err, errno, "cannot read '%s'", path);
	size_t n = (size_t)sb.st_size, got = 0;
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading '%s'", path);
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* shorter than it was: read what is there */
		got += (size_t)r;
	}
	*out = b;
	*len = got;
	return TRAWL_OK;
}

enum trawl_status ring_trace_add(struct trawl_swtrace *t, const char *dir, const char *name, struct trawl_error *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* never blocked by a FIFO of that name: opened without waiting, and
	 * anything but a regular file is said and left out */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		struct trawl_error e;
		trawl_error_clear(&e);
		trawl_error_set(&e, TRAWL_ERR_CORRUPT, "not a regular file, so not a buffer file: not read");
		trawl_error_at(&e, path, 0, 0, 0);
		swtrace_note_damage(t, &e);
		return TRAWL_OK;
	}
	/* the recorder holds an exclusive lock while the program lives */
	if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
		close(fd);
		if (errno != EWOULDBLOCK)
			return trawl_error_errno(err, errno, "cannot lock '%s'", path);
		t->info.live_rings++;
		return TRAWL_OK;
	}
	struct ring_file *v = realloc(t->rings, (t->nrings + 1) * sizeof *v);
	if (!v) {
		close(fd);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	t->rings = v;
	struct ring_file *r = &v[t->nrings];
	memset(r, 0, sizeof *r);
	snprintf(r->path, sizeof r->path, "%s", path);
	enum trawl_status st = read_fd(fd, path, &r->buf, &r->len, err);
	close(fd);
	if (st == TRAWL_OK)
		t->nrings++;
	return st;
}


/* timestamp_end of the last whole packet (0: none). */
static uint64_t stream_last_ts(const struct stream *s)
{
	uint64_t last = 0;
	for (size_t off = 0; s->size - off >= 64;) {
		const uint8_t *p = s->data + off;
		uint64_t total = bytes_rd64(p + 32) / 8;
		if (total < 64 || total > s->size - off)
			break;
		last = bytes_rd64(p + 16);
		off += (size_t)total;
	}
	return last;
}

/* The stream a ring belongs to (stream-N for .ring-N), made when missing. */
static struct stream *ring_stream_of(struct trawl_swtrace *t, const struct ring_file *r, size_t *idx)
{
	const char *base = strrchr(r->path, '/');
	base = base ? base + 1 : r->path;
	char want[64];
	snprintf(want, sizeof want, "stream-%s", base + 6);
	for (size_t i = 0; i < t->nstreams; i++) {
		const char *b = strrchr(t->streams[i].name, '/');
		if (strcmp(b ? b + 1 : t->streams[i].name, want) == 0)
			return &t->streams[*idx = i];
	}
	if (t->nstreams >= t->streams_cap)
		return NULL;
	struct stream *s = &t->streams[*idx = t->nstreams++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%.*s%s", (int)(base - r->path), r->path, want);
	return s;
}

static void read_boot_id(char *out, size_t n)
{
	memset(out, 0, n);
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t r = read(fd, out, n - 1);
	close(fd);
	out[r > 0 ? strcspn(out, "\n") : 0] = 0;
}

/* One ring into its stream: the stream keeps what the journal vouches
 * for, then the recovered packets. */
static enum trawl_status apply_one(struct trawl_swtrace *t, struct ring_file *r, struct ring_classes *cs,
				   const struct ring_now *now)
{
	size_t idx;
	struct stream *s = ring_stream_of(t, r, &idx);
	if (!s)
		return TRAWL_ERR_NOMEM;
	struct ring_stream rs = { .size = s->size, .last_ts = stream_last_ts(s) };
	struct ring_out out;
	struct trawl_error e;
	trawl_error_clear(&e);
	enum trawl_status st = ring_recover(r->buf, r->len, r->path, &rs, cs, now, &out, &e);
	if (st == TRAWL_ERR_NOMEM) {
		ring_out_release(&out);
		return st;
	}
	if (st != TRAWL_OK) {
		swtrace_note_damage(t, &e);
		r->damaged = 1;
	}
	uint64_t keep = out.have_keep ? out.keep : s->size;
	uint8_t *nb = realloc(s->owned, (size_t)keep + out.len + 1);
	if (!nb) {
		ring_out_release(&out);
		return TRAWL_ERR_NOMEM;
	}
	if (!s->owned && s->size)
		memcpy(nb, s->data, (size_t)keep);
	if (out.len)
		memcpy(nb + keep, out.data, out.len);
	s->owned = nb;
	s->data = nb;
	s->size = (size_t)keep + out.len;
	r->stream = idx;
	r->keep = keep;
	r->recovered = 1;
	t->info.recovered += out.events;
	t->info.rings++;
	if (out.signal)
		t->info.signal = out.signal;
	ring_out_release(&out);
	return TRAWL_OK;
}

enum trawl_status ring_trace_apply(struct trawl_swtrace *t)
{
	char boot[40];
	struct timespec ts;
	read_boot_id(boot, sizeof boot);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct ring_now now = { boot, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec };
	struct ring_classes cs = { .v = t->classes, .n = t->nclasses };
	enum trawl_status st = TRAWL_OK;
	for (size_t i = 0; i < t->nrings && st == TRAWL_OK; i++)
		st = apply_one(t, &t->rings[i], &cs, &now);
	t->classes = cs.v;
	t->nclasses = cs.n;
	t->made = cs.made;
	t->nmade = cs.nmade;
	return st;
}

void ring_trace_free(struct trawl_swtrace *t)
{
	for (size_t i = 0; i < t->nrings; i++)
		free(t->rings[i].buf);
	free(t->rings);
	free(t->made);
	t->rings = NULL;
	t->made = NULL;
	t->nrings = t->nmade = 0;
}

/* Classes made up for recovered events, appended to the metadata (TSDL
 * allows event blocks anywhere after the stream block). */
static enum trawl_status append_classes(struct trawl_swtrace *t, const char *dir, struct trawl_error *err)
{
	if (!t->nmade)
		return TRAWL_OK;
	char path[4096];
	snprintf(path, sizeof path, "%s/metadata", dir);
	FILE *f = fopen(path, "a");
	if (!f)
		return trawl_error_errno(err, errno, "cannot write '%s'", path);
	for (size_t i = 0; i < t->nmade; i++) {
		const struct trawl_sw_class *c = NULL;
		for (size_t k = 0; k < t->nclasses && !c; k++)
			if (t->classes[k].id == t->made[i])
				c = &t->classes[k];
		if (!c)
			continue;
		fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n", c->name,
			c->id);
		for (unsigned k = 0; k < c->nfields; k++)
			fprintf(f, "\t\t%s %s;\n", c->fields[k].type == TRAWL_SW_U32 ? "uint32_t" : "uint64_t",
				c->fields[k].name);
		fprintf(f, "\t};\n};\n");
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		return trawl_error_errno(err, errno, "cannot write '%s'", path);
	}
	fclose(f);
	return TRAWL_OK;
}

/* stream-N: what the journal vouches for, then the recovered packets. */
static enum trawl_status write_stream(const struct stream *s, uint64_t keep, struct trawl_error *err)
{
	int fd = open(s->name, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot write '%s'", s->name);
	int bad = ftruncate(fd, (off_t)keep) != 0;
	for (size_t off = (size_t)keep; !bad && off < s->size;) {
		ssize_t w = pwrite(fd, s->data + off, s->size - off, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			bad = 1;
		else
			off += (size_t)w;
	}
	if (bad || fsync(fd) != 0) {
		int e = errno;
		close(fd);
		return trawl_error_errno(err, e, "cannot write '%s'", s->name);
	}
	close(fd);
	return TRAWL_OK;
}

enum trawl_status trawl_swtrace_recover(struct trawl_swtrace *t, const char *dir, struct trawl_error *err)
{
	/* names first: a stream must never hold an event the metadata lacks */
	enum trawl_status st = append_classes(t, dir, err);
	for (size_t i = 0; st == TRAWL_OK && i < t->nrings; i++) {
		struct ring_file *r = &t->rings[i];
		if (!r->recovered)
			continue;
		st = write_stream(&t->streams[r->stream], r->keep, err);
		if (st)
			break;
		if (r->damaged) {
			char to[4200];
			snprintf(to, sizeof to, "%s.damaged", r->path);
			if (rename(r->path, to) != 0)
				st = trawl_error_errno(err, errno, "cannot rename '%s'", r->path);
		} else if (unlink(r->path) != 0) {
			st = trawl_error_errno(err, errno, "cannot remove '%s'", r->path);
		}
	}
	return st;
}
