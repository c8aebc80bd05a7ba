/* Reading trawl's CTF 1.8 traces (written by rec/, `trawl listen`,
 * `trawl events import-bf`).
 *
 * The metadata is parsed in ctf-metadata.c, which holds its declarations
 * to the fixed binary layout read here:
 *
 *   packet preamble (64 bytes, host byte order = metadata byte_order)
 *   offset size field
 *   0      4    magic 0xC1FC1FC1
 *   4      4    stream class id (0)
 *   8      8    timestamp_begin (ns)
 *   16     8    timestamp_end (ns)
 *   24     8    content_size, bits (multiple of 8, >= 512)
 *   32     8    packet_size, bits (>= content_size)
 *   40     8    packet_seq_num
 *   48     8    events_discarded (cumulative)
 *   56     4    cpu_id
 *   60     4    thread_id
 *   event: 0 4 id, 4 8 timestamp (ns), 12.. fields at natural size
 *
 * Every size read from a stream is checked against the bytes present, and
 * what a packet header promises is held to: a stream id the metadata
 * declares, timestamp_begin <= every event's time <= timestamp_end,
 * events_discarded never going down; damage stops the stream at the last
 * whole event and is reported with the file and byte offset. A jump in
 * packet_seq_num is packets lost: said the same way, but the stream is
 * read on (0 again starts a new count: the recorder appends a second
 * recording to the same files).
 */
#include "core/bytes.h"
#include "trawl/file.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"

#include "events/ctf-int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/stat.h>


#define CTF_MAGIC 0xC1FC1FC1u
#define PREAMBLE 64
#define EV_HEADER 12

static const struct {
	const char *short_name, *ctf_name;
	unsigned size;
} type_tab[] = {
	[TRAWL_SW_U8] = { "u8", "uint8_t", 1 },    [TRAWL_SW_U16] = { "u16", "uint16_t", 2 },
	[TRAWL_SW_U32] = { "u32", "uint32_t", 4 }, [TRAWL_SW_U64] = { "u64", "uint64_t", 8 },
	[TRAWL_SW_S8] = { "s8", "int8_t", 1 },     [TRAWL_SW_S16] = { "s16", "int16_t", 2 },
	[TRAWL_SW_S32] = { "s32", "int32_t", 4 },  [TRAWL_SW_S64] = { "s64", "int64_t", 8 },
};
#define NTYPES ((int)(sizeof type_tab / sizeof type_tab[0]))

int trawl_sw_type_parse(const char *s, size_t len)
{
	for (int t = 1; t < NTYPES; t++)
		if (strlen(type_tab[t].short_name) == len && memcmp(type_tab[t].short_name, s, len) == 0)
			return t;
	return 0;
}

const char *trawl_sw_type_name(int type)
{
	return type > 0 && type < NTYPES ? type_tab[type].short_name : "?";
}

size_t trawl_sw_type_size(int type)
{
	return type > 0 && type < NTYPES ? type_tab[type].size : 0;
}

/* ---- streams ---- */


static size_t find_class_slow(const struct trawl_swtrace *t, uint32_t id)
{
	size_t lo = 0, hi = t->nclasses;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->classes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nclasses && t->classes[lo].id == id ? lo : SIZE_MAX;
}

/* The class index of an id, through a direct-mapped cache (a trace has
 * few classes, and the binary search was a hot spot); SIZE_MAX: none.
 * Ids are subsys << 16 | event: a multiplicative hash mixes both halves
 * (folding them with xor sent lock:ACQUIRE = 0x10000 and net:TX = 1 to
 * one slot, so the two evicted each other at every event). */
static size_t find_class(struct trawl_swtrace *t, uint32_t id)
{
	unsigned h = (unsigned)((id * 0x9e3779b1u) >> 24) & (CLASS_CACHE - 1);
	if (t->cache[h].idx && t->cache[h].id == id)
		return t->cache[h].idx - 1;
	size_t i = find_class_slow(t, id);
	if (i != SIZE_MAX && i < UINT32_MAX) {
		t->cache[h].id = id;
		t->cache[h].idx = (uint32_t)i + 1;
		t->cache[h].need = t->dec[i].need;
	}
	return i;
}

/* (Re)compile each class's layout; the classes change only while the
 * trace opens (buffer files may add some), so this runs once or twice. */
static int decoders_build(struct trawl_swtrace *t)
{
	struct class_dec *d = t->nclasses ? calloc(t->nclasses, sizeof *d) : NULL;
	if (t->nclasses && !d)
		return -1;
	for (size_t k = 0; k < t->nclasses; k++) {
		const struct trawl_sw_class *c = &t->classes[k];
		d[k].need = EV_HEADER;
		d[k].all_u32 = 1;
		for (unsigned i = 0; i < c->nfields && i < TRAWL_SW_MAX_FIELDS; i++) {
			size_t sz = trawl_sw_type_size(c->fields[i].type);
			d[k].all_u32 &= sz == 4 && c->fields[i].type < TRAWL_SW_S8;
			d[k].size[i] = (uint8_t)sz;
			d[k].sext[i] = (uint8_t)(c->fields[i].type >= TRAWL_SW_S8 && sz && sz < 8 ? 64 - 8 * sz : 0);
			d[k].need += (uint32_t)sz;
		}
	}
	free(t->dec);
	t->dec = d;
	t->dec_of = t->classes;
	t->dec_n = t->nclasses;
	memset(t->cache, 0, sizeof t->cache);
	return 0;
}

static uint64_t rd_field(const uint8_t *q, unsigned sz)
{
	switch (sz) {
	case 1: return q[0];
	case 2: { uint16_t v; memcpy(&v, q, 2); return v; }
	case 4: return bytes_rd32(q);
	case 8: return bytes_rd64(q);
	default: return 0;
	}
}

static void stream_damage(struct trawl_swtrace *t, struct stream *s, uint64_t off, const char *what)
{
	s->done = 1;
	s->have = 0;
	struct trawl_error e;
	trawl_error_clear(&e);
	/* said here, as a missing packet (stream_note) reads on */
	trawl_error_set(&e, TRAWL_ERR_CORRUPT, "%s: the rest of this stream is not read", what);
	trawl_error_at(&e, s->name, 0, 0, off);
	swtrace_note_damage(t, &e);
}

static void stream_damagef(struct trawl_swtrace *t, struct stream *s, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void stream_damagef(struct trawl_swtrace *t, struct stream *s, uint64_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	stream_damage(t, s, off, msg);
}

/* Loss the stream reads on past (a missing packet): kept as the damage
 * the read ends with, so the exit status says it, but the stream goes on. */
static void stream_note(struct trawl_swtrace *t, const struct stream *s, uint64_t off, const char *what)
{
	struct trawl_error e;
	trawl_error_clear(&e);
	trawl_error_set(&e, TRAWL_ERR_CORRUPT, "%s", what);
	trawl_error_at(&e, s->name, 0, 0, off);
	swtrace_note_damage(t, &e);
}

/* Does the metadata declare this stream id? */
static int stream_id_known(const struct trawl_swtrace *t, uint32_t id)
{
	for (size_t i = 0; i < t->nsids; i++)
		if (t->sids[i] == id)
			return 1;
	return t->sids_any;
}

/* The damage at s->off, or, in a packet the end of the file cut, that cut
 * (the reason an event there is short). */
static void stream_short(struct trawl_swtrace *t, struct stream *s, const char *what)
{
	if (!s->cut_packet)
		return stream_damage(t, s, s->off, what);
	char msg[200];
	snprintf(msg, sizeof msg,
		 "truncated packet: the file ends %zu bytes into the packet at offset %zu (of %zu bytes); "
		 "its events before this offset were read",
		 s->size - (s->cut_packet - 1), s->cut_packet - 1, s->cut_size);
	stream_damage(t, s, s->off, msg);
}

/* Load the next event of stream s into s->ev (s->have), crossing packet
 * boundaries: its header, checked whole; the fields wait for next(). */
static void stream_advance(struct trawl_swtrace *t, struct stream *s, size_t idx)
{
	s->have = 0;
	while (!s->done) {
		if (s->off >= s->content_end) {
			if (s->cut_packet)
				return stream_short(t, s, "truncated packet");
			s->off = s->packet_end;
			if (s->off >= s->size) {
				s->done = 1;
				return;
			}
			if (s->size - s->off < PREAMBLE)
				return stream_damage(t, s, s->off, "truncated packet header");
			const uint8_t *p = s->data + s->off;
			if (bytes_rd32(p) != CTF_MAGIC)
				return stream_damage(t, s, s->off, "bad packet magic");
			if (!stream_id_known(t, bytes_rd32(p + 4)))
				return stream_damagef(t, s, s->off, "packet of stream id %" PRIu32 ", which the metadata does not declare",
						      bytes_rd32(p + 4));
			uint64_t content = bytes_rd64(p + 24), total = bytes_rd64(p + 32);
			if (content % 8 || total % 8 || content < PREAMBLE * 8 || total < content)
				return stream_damage(t, s, s->off, "bad packet sizes");
			uint64_t t0 = bytes_rd64(p + 8), t1 = bytes_rd64(p + 16);
			if (t0 > t1)
				return stream_damagef(t, s, s->off, "packet timestamp_begin %" PRIu64 " is after its timestamp_end %" PRIu64,
						      t0, t1);
			uint64_t seq = bytes_rd64(p + 40), disc = bytes_rd64(p + 48);
			/* packet_seq_num 0 again: a recording appended to the file
			 * (the recorder appends), whose count starts again at 0 */
			if (s->seq_known && seq == 0)
				s->discarded = 0;
			if (disc < s->discarded)
				return stream_damagef(t, s, s->off,
						      "events_discarded goes down from %" PRIu64 " to %" PRIu64 " (it counts up over a stream)",
						      s->discarded, disc);
			/* a packet missing in between: loss, said, and reading goes on */
			if (s->seq_known && seq > s->seq && seq - s->seq > 1) {
				char msg[200];
				snprintf(msg, sizeof msg,
					 "packet_seq_num jumps from %" PRIu64 " to %" PRIu64 ": %" PRIu64
					 " packet(s) missing before this one, their events lost",
					 s->seq, seq, seq - s->seq - 1);
				stream_note(t, s, s->off, msg);
			}
			s->seq = seq;
			s->seq_known = 1;
			s->pkt_begin = t0;
			s->pkt_end = t1;
			/* cut by the end of the file (a crash, a copy cut short):
			 * its whole events are kept, as for damage inside one */
			s->cut_packet = total / 8 > s->size - s->off ? s->off + 1 : 0;
			s->cut_size = (size_t)(total / 8);
			t->info.lost += disc - s->discarded;
			s->discarded = disc;
			s->cpu = bytes_rd32(p + 56);
			s->tid = bytes_rd32(p + 60);
			s->content_end = content / 8 > s->size - s->off ? s->size : s->off + (size_t)(content / 8);
			s->packet_end = s->cut_packet ? s->size : s->off + (size_t)(total / 8);
			s->off += PREAMBLE;
			continue;
		}
		if (s->content_end - s->off < EV_HEADER)
			return stream_short(t, s, "truncated event header");
		const uint8_t *p = s->data + s->off;
		size_t ci = find_class(t, bytes_rd32(p));
		if (ci == SIZE_MAX)
			return stream_damage(t, s, s->off, "event id not in the metadata");
		const struct trawl_sw_class *c = &t->classes[ci];
		const struct class_dec *d = &t->dec[ci];
		size_t need = d->need;
		if (s->content_end - s->off < need)
			return stream_short(t, s, "truncated event");
		struct trawl_sw_event *ev = &s->ev;
		uint64_t time = bytes_rd64(p + 4);
		if (time < ev->time) /* ev: the stream's event before; the merge needs order */
			return stream_damage(t, s, s->off, "time goes back (earlier than the event before it in this stream)");
		/* (a flipped high bit makes a time days away from its neighbours) */
		if (time > s->pkt_end)
			return stream_damagef(t, s, s->off, "event time %" PRIu64 " is after its packet's timestamp_end %" PRIu64,
					      time, s->pkt_end);
		if (time < s->pkt_begin)
			return stream_damagef(t, s, s->off, "event time %" PRIu64 " is before its packet's timestamp_begin %" PRIu64,
					      time, s->pkt_begin);
		ev->time = time;
		ev->cpu = s->cpu;
		ev->tid = s->tid;
		ev->stream = (uint32_t)idx;
		ev->offset = s->off;
		ev->cls = c;
		s->cls_idx = ci; /* the fields are decoded when the event is taken */
		s->off += need;
		s->have = 1;
		return;
	}
}

void swtrace_note_damage(struct trawl_swtrace *t, const struct trawl_error *e)
{
	if (t->damaged)
		return;
	t->damaged = 1;
	t->damage = *e;
}

static enum trawl_status finish_open(struct trawl_swtrace *t, const char *meta, size_t meta_len,
				     struct trawl_error *err)
{
	struct stream_ids ids = { .n = 0 };
	enum trawl_status st = ctf_metadata_parse(meta, meta_len, &t->classes, &t->nclasses, &t->info, &ids, err);
	if (st)
		return st;
	/* no stream block at all: trawl's fixed layout has stream 0 */
	if (!ids.n && !ids.any)
		ctf_stream_ids_add(&ids, 0);
	memcpy(t->sids, ids.v, sizeof t->sids);
	t->nsids = ids.n;
	t->sids_any = ids.any;
	if (t->nrings && (st = ring_trace_apply(t)) != TRAWL_OK)
		return trawl_error_set(err, st, "out of memory recovering buffer files");
	if (decoders_build(t))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < t->nstreams; i++)
		stream_advance(t, &t->streams[i], i);
	return TRAWL_OK;
}

enum trawl_status trawl_swtrace_open_mem(struct trawl_swtrace **out, const char *meta, size_t meta_len,
					 const uint8_t *const *streams, const size_t *lens, size_t nstreams,
					 struct trawl_error *err)
{
	*out = NULL;
	struct trawl_swtrace *t = calloc(1, sizeof *t);
	if (!t || (nstreams && !(t->streams = calloc(nstreams, sizeof *t->streams)))) {
		free(t);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	t->nstreams = nstreams;
	for (size_t i = 0; i < nstreams; i++) {
		snprintf(t->streams[i].name, sizeof t->streams[i].name, "stream-%zu", i);
		t->streams[i].data = streams[i];
		t->streams[i].size = lens[i];
	}
	enum trawl_status st = finish_open(t, meta, meta_len, err);
	if (st) {
		trawl_swtrace_close(t);
		return st;
	}
	*out = t;
	return TRAWL_OK;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *l, const char *s)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, ncap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = ncap;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* The stream files of a trace directory, and the recorder's buffer files
 * a program left in it (crash recovery, ring-trace.c), each sorted. */
static enum trawl_status list_dir(const char *dir, struct names *streams, struct names *rings, struct trawl_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return trawl_error_errno(err, errno, "cannot open '%s'", dir);
	struct dirent *de;
	int bad = 0;
	while (!bad && (de = readdir(d))) {
		if (ring_trace_is_ring(de->d_name))
			bad = names_add(rings, de->d_name);
		else if (de->d_name[0] != '.' && strcmp(de->d_name, "metadata") != 0)
			bad = names_add(streams, de->d_name);
	}
	closedir(d);
	if (bad)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (streams->n)
		qsort(streams->v, streams->n, sizeof *streams->v, name_cmp);
	if (rings->n)
		qsort(rings->v, rings->n, sizeof *rings->v, name_cmp);
	return TRAWL_OK;
}

#define RELEASE_STEP ((size_t)8 << 20)

/* The file an error names (cut to fit, as trawl_error_at would). */
static void error_file(struct trawl_error *e, const char *path)
{
	if (!e)
		return;
	size_t n = strlen(path);
	if (n >= sizeof e->file)
		n = sizeof e->file - 1;
	memcpy(e->file, path, n);
	e->file[n] = 0;
}

/* What a directory entry that is no regular file is, for the message. */
static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A stream file of some size is mapped rather than read, and the pages
 * behind the reading position are handed back every 8 MiB (the file
 * stays in the page cache), so memory does not grow with the trace. A
 * small file, or one that cannot be mapped, is read whole. An entry that
 * is no regular file (FIFO, device, directory; a symlink is followed) is
 * not read: *kind says what it is. It is never opened blocking (a FIFO
 * would wait for a writer), and the type is checked again on the open
 * descriptor, as the entry may change in between. */
static enum trawl_status stream_load(struct stream *s, const char *path, const char **kind, struct trawl_error *err)
{
	struct stat sb;
	*kind = NULL;
	if (stat(path, &sb) == 0) {
		if (!S_ISREG(sb.st_mode)) {
			*kind = file_kind(sb.st_mode);
			return TRAWL_OK;
		}
	} else if (errno == ENOENT && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		*kind = "a symlink to nothing";
		return TRAWL_OK;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		enum trawl_status st = trawl_error_errno(err, errno, "cannot open '%s'", path);
		error_file(err, path);
		return st;
	}
	if (fstat(fd, &sb) != 0) {
		enum trawl_status st = trawl_error_errno(err, errno, "cannot read '%s'", path);
		close(fd);
		error_file(err, path);
		return st;
	}
	if (!S_ISREG(sb.st_mode)) {
		*kind = file_kind(sb.st_mode);
		close(fd);
		return TRAWL_OK;
	}
	if ((uint64_t)sb.st_size >= RELEASE_STEP) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			close(fd);
			madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
			s->data = m;
			s->mapped = m;
			s->map_len = s->size = (size_t)sb.st_size;
			return TRAWL_OK;
		}
	}
	uint8_t *buf = NULL;
	size_t len = 0;
	enum trawl_status st = trawl_file_read_fd(fd, path, &buf, &len, err);
	close(fd);
	if (st) {
		error_file(err, path);
		return st;
	}
	s->data = buf;
	s->owned = buf;
	s->size = len;
	return TRAWL_OK;
}

static void stream_release(struct stream *s)
{
	if (!s->mapped || s->data != s->mapped) {
		s->release_at = SIZE_MAX; /* read whole, or replaced by a recovered copy */
		return;
	}
	if (s->off < s->released + RELEASE_STEP) {
		s->release_at = s->released + RELEASE_STEP; /* not before: not at every event until then */
		return;
	}
	size_t upto = (s->off - RELEASE_STEP / 2) & ~(size_t)0xfffff; /* a MiB boundary, behind the reader */
	if (upto > s->released) {
		madvise((uint8_t *)s->mapped + s->released, upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
	s->release_at = s->released + RELEASE_STEP;
}

/* Everything is read up front (metadata, each stream file whole, each ring)
 * so next() never meets an I/O error halfway through a listing. Rings are
 * taken under a shared lock (a live recorder holds it exclusively: counted,
 * left alone); streams is sized for both, as a ring without a stream file
 * becomes one. An error naming no file is put at the metadata. */
enum trawl_status trawl_swtrace_open(struct trawl_swtrace **out, const char *dir, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	char path[4096];
	uint8_t *meta = NULL;
	size_t meta_len = 0;
	struct names names = { 0 }, rings = { 0 };
	struct trawl_swtrace *t = NULL;
	*out = NULL;
	/* a trace is a directory (CTF): say so plainly for anything else */
	struct stat sb;
	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT,
				     "not a CTF trace directory (a folder holding 'metadata' and stream files)");
		if (err)
			snprintf(err->file, sizeof err->file, "%s", dir);
		goto out;
	}
	snprintf(path, sizeof path, "%s/metadata", dir);
	/* (a FIFO would block the read) */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "the metadata is %s, not a regular file", file_kind(sb.st_mode));
		goto out;
	}
	st = trawl_file_read(path, &meta, &meta_len, err);
	if (st || (st = list_dir(dir, &names, &rings, err)) != TRAWL_OK)
		goto out;
	/* a ring without a stream file yet becomes a stream of its own */
	size_t cap = names.n + rings.n;
	t = calloc(1, sizeof *t);
	if (!t || (cap && !(t->streams = calloc(cap, sizeof *t->streams)))) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	t->streams_cap = cap;
	for (size_t i = 0; i < rings.n && st == TRAWL_OK; i++)
		st = ring_trace_add(t, dir, rings.v[i], err);
	/* an entry that is no regular file is damage naming it, the others
	 * are read; one damage is kept, so its message names the rest */
	struct trawl_error skip;
	size_t nskip = 0;
	trawl_error_clear(&skip);
	for (size_t i = 0; i < names.n && st == TRAWL_OK; i++) {
		struct stream *s = &t->streams[t->nstreams];
		const char *kind;
		snprintf(path, sizeof path, "%s/%s", dir, names.v[i]);
		if ((st = stream_load(s, path, &kind, err)))
			break;
		if (kind) {
			size_t n = strlen(skip.message);
			if (!nskip++) {
				trawl_error_set(&skip, TRAWL_ERR_CORRUPT, "%s, not a stream file: not read", kind);
				error_file(&skip, path);
			} else {
				snprintf(skip.message + n, sizeof skip.message - n, "%s %s (%s)", nskip == 2 ? "; nor" : ",",
					 names.v[i], kind);
			}
			continue;
		}
		snprintf(s->name, sizeof s->name, "%s", path);
		t->nstreams++;
	}
	if (nskip)
		swtrace_note_damage(t, &skip);
	if (st == TRAWL_OK)
		st = finish_open(t, (const char *)meta, meta_len, err);
	if (st == TRAWL_OK && err)
		err->file[0] = 0;
out:
	if (st && err && !err->file[0] && st != TRAWL_ERR_NOMEM) {
		snprintf(path, sizeof path, "%s/metadata", dir);
		trawl_error_at(err, path, err->line, err->column, err->offset);
	}
	names_free(&names);
	names_free(&rings);
	free(meta);
	if (st) {
		trawl_swtrace_close(t);
		return st;
	}
	*out = t;
	return TRAWL_OK;
}

/* The stream with the earliest next event (the first of equals), and the
 * bounds within which it stays so while only it advances. */
static struct stream *merge_pick(struct trawl_swtrace *t)
{
	struct stream *best = NULL;
	size_t bi = 0;
	for (size_t i = 0; i < t->nstreams; i++) {
		struct stream *s = &t->streams[i];
		if (s->have && (!best || s->ev.time < best->ev.time)) {
			best = s;
			bi = i;
		}
	}
	uint64_t lo = UINT64_MAX, hi = UINT64_MAX;
	for (size_t i = 0; best && i < t->nstreams; i++) {
		const struct stream *s = &t->streams[i];
		if (i == bi || !s->have)
			continue;
		uint64_t *m = i < bi ? &lo : &hi;
		if (s->ev.time < *m)
			*m = s->ev.time;
	}
	t->run = bi;
	t->run_lo = lo;
	t->run_hi = hi;
	t->in_run = best != NULL;
	return best;
}

/* stream_advance for the common case, inlined: the next event is in the
 * same packet and its class in the cache. cpu, tid and stream stay as the
 * previous event of the stream left them (they change only with the
 * packet, which takes the slow path). 0: take the slow path. */
__attribute__((always_inline)) static inline int stream_advance_fast(struct trawl_swtrace *t, struct stream *s)
{
	if (s->off >= s->content_end || s->content_end - s->off < EV_HEADER)
		return 0;
	const uint8_t *p = s->data + s->off;
	uint32_t id = bytes_rd32(p);
	unsigned h = (unsigned)((id * 0x9e3779b1u) >> 24) & (CLASS_CACHE - 1);
	if (!t->cache[h].idx || t->cache[h].id != id)
		return 0;
	size_t ci = t->cache[h].idx - 1;
	uint32_t need = t->cache[h].need;
	uint64_t time = bytes_rd64(p + 4);
	if (s->content_end - s->off < need || time < s->ev.time || time > s->pkt_end) /* the slow path says why */
		return 0;
	s->ev.time = time;
	s->ev.offset = s->off;
	s->ev.cls = &t->classes[ci];
	s->cls_idx = ci;
	s->off += need;
	return 1;
}

/* The fields of the event at q, by its class's compiled layout; classes
 * whose fields are all 32-bit unsigned (most of a recorder's) skip the
 * per-field size switch. */
__attribute__((always_inline)) static inline void decode_fields(const struct class_dec *d, unsigned n, const uint8_t *q, uint64_t *vals)
{
	if (d->all_u32) {
		for (unsigned i = 0; i < n; i++)
			vals[i] = bytes_rd32(q + 4 * i);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = rd_field(q, d->size[i]); /* little-endian host (checked against the metadata) */
		if (d->sext[i])
			v = (uint64_t)((int64_t)(v << d->sext[i]) >> d->sext[i]);
		vals[i] = v;
		q += d->size[i];
	}
}

/* The decoders follow the classes (buffer files may add some while the
 * trace opens); -1 when they could not be rebuilt, said as damage. */
static int decoders_check(struct trawl_swtrace *t)
{
	if ((t->dec_of == t->classes && t->dec_n == t->nclasses) || !decoders_build(t))
		return 0;
	struct trawl_error e;
	trawl_error_clear(&e);
	trawl_error_set(&e, TRAWL_ERR_NOMEM, "out of memory decoding the trace's events");
	swtrace_note_damage(t, &e); /* reported as damage: the rest is not read */
	return -1;
}

/* Hand out the event `best` (t->run's stream) holds and load its next. */
__attribute__((always_inline)) static inline void take(struct trawl_swtrace *t, struct stream *best, struct trawl_sw_event *ev)
{
	/* straight from the stream into the caller's event, field by field:
	 * a wide copy (memcpy) of what stream_advance_fast has just stored
	 * field by field cannot be forwarded from the stores and stalls
	 * (half the reader's time) */
	const struct trawl_sw_event *h = &best->ev;
	ev->time = h->time;
	ev->cpu = h->cpu;
	ev->tid = h->tid;
	ev->stream = h->stream;
	ev->offset = h->offset;
	ev->cls = h->cls;
	decode_fields(&t->dec[best->cls_idx], h->cls->nfields, best->data + h->offset + EV_HEADER, ev->vals);
	if (!stream_advance_fast(t, best))
		stream_advance(t, best, t->run);
	if (best->off >= best->release_at)
		stream_release(best);
}

/* Does the current run's stream still hold the earliest event? */
static inline struct stream *run_stream(struct trawl_swtrace *t)
{
	if (!t->in_run)
		return NULL;
	struct stream *s = &t->streams[t->run];
	return s->have && s->ev.time < t->run_lo && s->ev.time <= t->run_hi ? s : NULL;
}

enum trawl_status trawl_swtrace_next(struct trawl_swtrace *t, struct trawl_sw_event *ev)
{
	if (decoders_check(t))
		return TRAWL_ERR_NOMEM;
	struct stream *best = run_stream(t);
	if (!best && !(best = merge_pick(t)))
		return TRAWL_END;
	take(t, best, ev);
	return TRAWL_OK;
}

/* Up to max events of stream s (t->run's) while they come before every
 * other stream's: take() and stream_advance_fast with the stream's
 * position, the lookahead event's header and the packet's cpu and thread
 * in locals, so the loop keeps them in registers rather than storing and
 * reloading the stream at every event; they go back to the stream when
 * the run ends or an event needs the slow path (a new packet, a class
 * not cached, damage), which reads and writes the stream itself. */
static size_t take_run(struct trawl_swtrace *t, struct stream *s, struct trawl_sw_event *evs, size_t max,
		       size_t *misses, uint32_t *missed)
{
	/* time < lo && time <= hi, as one test: time < lim */
	const uint64_t lim = t->run_hi < t->run_lo ? t->run_hi + 1 : t->run_lo;
	const uint32_t guess = t->guess;
	size_t n = 0;
	for (;;) {
		const uint8_t *data = s->data;
		size_t off = s->off, end = s->content_end, rel = s->release_at, ci = s->cls_idx;
		uint64_t time = s->ev.time, at = s->ev.offset, pend = s->pkt_end;
		const struct trawl_sw_class *cls = s->ev.cls;
		const uint32_t cpu = s->ev.cpu, tid = s->ev.tid, sid = s->ev.stream;
		for (;;) {
			struct trawl_sw_event *ev = &evs[n++];
			ev->time = time;
			ev->cpu = cpu;
			ev->tid = tid;
			ev->stream = sid;
			ev->offset = at;
			ev->cls = cls;
			decode_fields(&t->dec[ci], cls->nfields, data + at + EV_HEADER, ev->vals);
			if (off >= end || end - off < EV_HEADER)
				break;
			const uint8_t *p = data + off;
			uint32_t id = bytes_rd32(p);
			unsigned h = (unsigned)((id * 0x9e3779b1u) >> 24) & (CLASS_CACHE - 1);
			uint64_t next = bytes_rd64(p + 4);
			if (!t->cache[h].idx || t->cache[h].id != id || end - off < t->cache[h].need || next < time ||
			    next > pend)
				break; /* (going back, out of the packet: the slow path says so) */
			time = next;
			at = off;
			ci = t->cache[h].idx - 1;
			cls = &t->classes[ci];
			/* the next offset from a constant when the bet holds, a
			 * branch the cpu predicts, rather than from the size just
			 * loaded: each event's offset waited for the load of its
			 * id, the hash and the load of the size before (the
			 * reader's bound); the barrier keeps the compiler from
			 * making it from the loaded size, which it knows equal */
			size_t bet = off + guess;
			__asm__ volatile("" : "+r"(bet));
			uint32_t need = t->cache[h].need;
			if (__builtin_expect(need == guess, 1)) {
				off = bet;
			} else {
				off += need;
				++*misses;
				*missed = need;
			}
			if (off >= rel || n >= max || time >= lim) {
				s->off = off;
				s->ev.time = time;
				s->ev.offset = at;
				s->ev.cls = cls;
				s->cls_idx = ci;
				if (off >= rel)
					stream_release(s);
				if (n >= max || time >= lim)
					return n;
				rel = s->release_at;
			}
		}
		/* the slow path, as take() has it, checking against the last taken */
		s->off = off;
		s->ev.time = time;
		stream_advance(t, s, t->run);
		if (s->off >= s->release_at)
			stream_release(s);
		if (n >= max || !s->have || s->ev.time >= lim)
			return n;
	}
}

/* The same events as trawl_swtrace_next, many a call: while one stream's
 * events come before every other stream's (a run, the common case: a
 * thread records many events between two of another's), they are taken
 * in a tight loop with no merge step between them. */
size_t trawl_swtrace_next_batch(struct trawl_swtrace *t, struct trawl_sw_event *evs, size_t max)
{
	size_t n = 0, misses = 0;
	uint32_t missed = 0;
	if (!max || decoders_check(t))
		return 0;
	while (n < max) {
		struct stream *best = run_stream(t);
		if (!best && !(best = merge_pick(t)))
			break;
		n += take_run(t, best, evs + n, max - n, &misses, &missed);
	}
	/* lost more bets than it won: bet on a size that lost */
	if (2 * misses > n)
		t->guess = missed;
	return n;
}

const struct trawl_error *trawl_swtrace_damage(const struct trawl_swtrace *t)
{
	return t->damaged ? &t->damage : NULL;
}

void trawl_swtrace_info(const struct trawl_swtrace *t, struct trawl_swtrace_info *info)
{
	*info = t->info;
	info->nstreams = t->nstreams;
	info->nclasses = t->nclasses;
	info->classes = t->classes;
}

void trawl_swtrace_close(struct trawl_swtrace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nstreams; i++) {
		free(t->streams[i].owned);
		if (t->streams[i].mapped)
			munmap(t->streams[i].mapped, t->streams[i].map_len);
	}
	free(t->streams);
	free(t->classes);
	free(t->dec);
	ring_trace_free(t);
	free(t);
}
