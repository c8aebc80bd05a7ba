/* perf.data reader: header, attributes, the data section's records and the
 * build-id feature section (layouts: Linux tools/perf/Documentation/
 * perf.data-file-format.txt and include/uapi/linux/perf_event.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "trawl/file.h"
#include "trawl/perf.h"

#include "core/grow.h"
#include "ete/perf-int.h"

#define HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define warn trawl_perf__warn
#define FEAT_BUILD_ID 2
#define SAMPLE_TID 0x2u
#define SAMPLE_TIME 0x4u
#define SAMPLE_ID 0x40u
#define SAMPLE_CPU 0x80u
#define SAMPLE_STREAM_ID 0x200u
#define SAMPLE_IDENTIFIER 0x10000u
#define MISC_MMAP_BUILD_ID 0x4000u



/* Keep the first problem's text, count them all. */
void trawl_perf__warn(struct trawl_perf_file *f, const char *fmt, ...)
{
	if (!f->nwarnings++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(f->warning, sizeof f->warning, fmt, ap);
		va_end(ap);
	}
}

const char *trawl_perf_record_name(uint32_t type)
{
	switch (type) {
	case 1: return "MMAP";
	case 2: return "LOST";
	case 3: return "COMM";
	case 4: return "EXIT";
	case 5: return "THROTTLE";
	case 6: return "UNTHROTTLE";
	case 7: return "FORK";
	case 8: return "READ";
	case 9: return "SAMPLE";
	case 10: return "MMAP2";
	case 11: return "AUX";
	case 12: return "ITRACE_START";
	case 13: return "LOST_SAMPLES";
	case 14: return "SWITCH";
	case 15: return "SWITCH_CPU_WIDE";
	case 16: return "NAMESPACES";
	case 17: return "KSYMBOL";
	case 18: return "BPF_EVENT";
	case 19: return "CGROUP";
	case 20: return "TEXT_POKE";
	case 21: return "AUX_OUTPUT_HW_ID";
	case 64: return "HEADER_ATTR";
	case 65: return "HEADER_EVENT_TYPE";
	case 66: return "HEADER_TRACING_DATA";
	case 67: return "HEADER_BUILD_ID";
	case 68: return "FINISHED_ROUND";
	case 69: return "ID_INDEX";
	case 70: return "AUXTRACE_INFO";
	case 71: return "AUXTRACE";
	case 72: return "AUXTRACE_ERROR";
	case 73: return "THREAD_MAP";
	case 74: return "CPU_MAP";
	case 75: return "STAT_CONFIG";
	case 76: return "STAT";
	case 77: return "STAT_ROUND";
	case 78: return "EVENT_UPDATE";
	case 79: return "TIME_CONV";
	case 80: return "HEADER_FEATURE";
	case 81: return "COMPRESSED";
	case 82: return "FINISHED_INIT";
	case 83: return "COMPRESSED2";
	default: return "unknown";
	}
}

int trawl_perf_is_perf(const uint8_t *data, size_t len)
{
	return len >= 8 && !memcmp(data, "PERFILE2", 8);
}

/* Bytes of the sample-id trailer (attr.sample_id_all) that every kernel
 * record but SAMPLE ends with: a u64 for each of TID (pid, tid), TIME, ID,
 * STREAM_ID, CPU (cpu, res) and IDENTIFIER the first attribute's
 * sample_type asks for, in that order. User records (64 and up) have none. */
static size_t trailer_size(const struct trawl_perf_file *f, uint32_t type)
{
	uint64_t t = f->sample_type;
	if (!f->sample_id_all || type >= 64 || type == TRAWL_PERF_RECORD_SAMPLE)
		return 0;
	return 8u * (size_t)(!!(t & SAMPLE_TID) + !!(t & SAMPLE_TIME) + !!(t & SAMPLE_ID) +
			     !!(t & SAMPLE_STREAM_ID) + !!(t & SAMPLE_CPU) + !!(t & SAMPLE_IDENTIFIER));
}

/* The CPU in the trailer that starts at tr (-1: the trailer has none). */
static int32_t trailer_cpu(const struct trawl_perf_file *f, const uint8_t *tr)
{
	uint64_t t = f->sample_type;
	if (!f->sample_id_all || !(t & SAMPLE_CPU))
		return -1;
	size_t at = 8u * (size_t)(!!(t & SAMPLE_TID) + !!(t & SAMPLE_TIME) + !!(t & SAMPLE_ID) +
				  !!(t & SAMPLE_STREAM_ID));
	return (int32_t)bytes_rd32(tr + at);
}

/* The fixed part of each record trawl reads, header included (perf's
 * perf_event.h and perf.data-file-format.txt); 8 for the others, which
 * are skipped by their size. */
static size_t fixed_size(uint32_t type)
{
	switch (type) {
	case TRAWL_PERF_RECORD_MMAP: return 40;        /* pid tid addr len pgoff */
	case TRAWL_PERF_RECORD_MMAP2: return 72;       /* ... maj/min/ino or build id, prot flags */
	case TRAWL_PERF_RECORD_COMM: return 16;        /* pid tid */
	case TRAWL_PERF_RECORD_ITRACE_START: return 16;
	case TRAWL_PERF_RECORD_AUX_OUTPUT_HW_ID: return 16;
	case TRAWL_PERF_RECORD_AUX: return 32;         /* aux_offset aux_size flags */
	case TRAWL_PERF_RECORD_AUXTRACE: return 48;
	case TRAWL_PERF_RECORD_AUXTRACE_INFO: return 16;
	case TRAWL_PERF_RECORD_HEADER_ATTR: return 56;
	case TRAWL_PERF_RECORD_HEADER_BUILD_ID: return 36;
	case TRAWL_PERF_RECORD_HEADER_FEATURE: return 16;
	case TRAWL_PERF_RECORD_HEADER_TRACING_DATA: return 12;
	case 83: return 16;                            /* COMPRESSED2 */
	default: return 8;
	}
}

static void copy_str(char *dst, size_t cap, const uint8_t *src, size_t avail)
{
	size_t n = 0;
	while (n < avail && n + 1 < cap && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = 0;
}

#define PUSH(f, arr, n, cap)                                                   \
	(trawl_grow((void **)&(f)->arr, &(f)->cap, (f)->n + 1, sizeof *(f)->arr) \
		 ? memset(&(f)->arr[(f)->n], 0, sizeof *(f)->arr), &(f)->arr[(f)->n++] \
		 : NULL)

static int add_mmap(struct trawl_perf_file *f, const uint8_t *r, size_t size, uint16_t misc,
		    uint32_t type, uint64_t off)
{
	size_t fixed = fixed_size(type);
	if (size < fixed)
		return 0;
	struct trawl_perf_mmap *m = PUSH(f, mmaps, nmmaps, cap_mmaps);
	if (!m)
		return -1;
	m->offset = off;
	m->pid = bytes_rd32(r + 8);
	m->tid = bytes_rd32(r + 12);
	m->start = bytes_rd64(r + 16);
	m->len = bytes_rd64(r + 24);
	m->pgoff = bytes_rd64(r + 32);
	m->cpumode = misc & 7;
	if (type == TRAWL_PERF_RECORD_MMAP2) {
		if (misc & MISC_MMAP_BUILD_ID) {
			m->build_id_size = r[40] > 20 ? 20 : r[40];
			memcpy(m->build_id, r + 44, 20);
		}
		m->prot = bytes_rd32(r + 64);
		m->flags = bytes_rd32(r + 68);
	}
	copy_str(m->filename, sizeof m->filename, r + fixed, size - fixed);
	return 1;
}

static int add_aux(struct trawl_perf_file *f, const uint8_t *r, size_t size, uint64_t off,
		   int32_t cpu)
{
	if (size < 32)
		return 0;
	struct trawl_perf_aux *a = PUSH(f, aux, naux, cap_aux);
	if (!a)
		return -1;
	a->offset = off;
	a->aux_offset = bytes_rd64(r + 8);
	a->aux_size = bytes_rd64(r + 16);
	a->flags = bytes_rd64(r + 24);
	a->cpu = cpu;
	f->aux_overwrite |= (a->flags & TRAWL_PERF_AUX_OVERWRITE) != 0;
	return 1;
}

static int add_small(struct trawl_perf_file *f, const uint8_t *r, size_t size, uint32_t type,
		     uint64_t off, int32_t cpu)
{
	if (type == TRAWL_PERF_RECORD_COMM) {
		if (size < 16)
			return 0;
		struct trawl_perf_comm *c = PUSH(f, comms, ncomms, cap_comms);
		if (!c)
			return -1;
		c->offset = off;
		c->pid = bytes_rd32(r + 8);
		c->tid = bytes_rd32(r + 12);
		copy_str(c->comm, sizeof c->comm, r + 16, size - 16);
	} else if (type == TRAWL_PERF_RECORD_ITRACE_START) {
		if (size < 16)
			return 0;
		struct trawl_perf_itrace_start *s = PUSH(f, its, nits, cap_its);
		if (!s)
			return -1;
		s->offset = off;
		s->pid = bytes_rd32(r + 8);
		s->tid = bytes_rd32(r + 12);
		s->cpu = cpu;
	} else {
		if (size < 16)
			return 0;
		struct trawl_perf_hw_id *h = PUSH(f, hwids, nhwids, cap_hwids);
		if (!h)
			return -1;
		h->offset = off;
		h->hw_id = bytes_rd64(r + 8);
		h->cpu = cpu;
	}
	return 1;
}

/* AUXTRACE: 48 bytes of header, then `size` trace bytes that the record's
 * own size does not count. Returns the bytes consumed after the header. */
static int add_auxtrace(struct trawl_perf_file *f, const uint8_t *r, size_t size, size_t room,
			uint64_t off, uint64_t *extra)
{
	if (size < 48)
		return 0;
	if (f->in_z) { /* perf writes AUX data uncompressed: not expected here */
		warn(f, "%s: offset %llu: AUXTRACE inside compressed data: skipped", f->path,
		     (unsigned long long)off);
		*extra = 0;
		return 1;
	}
	struct trawl_perf_auxtrace *c = PUSH(f, chunks, nchunks, cap_chunks);
	if (!c)
		return -1;
	c->offset = off;
	c->size = bytes_rd64(r + 8);
	c->aux_offset = bytes_rd64(r + 16);
	c->reference = bytes_rd64(r + 24);
	c->idx = bytes_rd32(r + 32);
	c->tid = bytes_rd32(r + 36);
	c->cpu = (int32_t)bytes_rd32(r + 40);
	c->data = r + size;
	c->avail = room - size < c->size ? room - size : (size_t)c->size;
	*extra = c->size;
	return 1;
}

static int add_auxtrace_info(struct trawl_perf_file *f, const uint8_t *r, size_t size,
			     uint64_t off)
{
	if (size < 16)
		return 0;
	uint32_t kind = bytes_rd32(r + 8);
	if (kind != 3) { /* PERF_AUXTRACE_CS_ETM; Intel PT, SPE ... are not ours */
		warn(f, "%s: offset %llu: AUXTRACE_INFO of type %u is not CoreSight ETM", f->path,
		     (unsigned long long)off, kind);
		return 1;
	}
	size_t n = (size - 16) / 8;
	uint64_t *priv = malloc(n ? n * 8 : 8);
	if (!priv)
		return -1;
	memcpy(priv, r + 16, n * 8);
	struct trawl_error e;
	trawl_error_clear(&e);
	if (trawl_perf_etm_info_parse(f, priv, n, &e) != TRAWL_OK)
		warn(f, "%s: offset %llu: AUXTRACE_INFO: %s", f->path, (unsigned long long)off,
		     e.message);
	free(priv);
	return 1;
}

/* One build-id entry {header, pid, build_id[24], name} of rs bytes: the
 * feature section's, or a pipe-mode HEADER_BUILD_ID record. */
static int add_build_id(struct trawl_perf_file *f, const uint8_t *r, size_t rs)
{
	if (rs < 36)
		return 0;
	uint16_t misc = (uint16_t)(r[4] | r[5] << 8);
	struct trawl_perf_build_id *b = PUSH(f, bids, nbids, cap_bids);
	if (!b)
		return -1;
	b->pid = (int32_t)bytes_rd32(r + 8);
	memcpy(b->id, r + 12, 20);
	/* PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 of the id field is its size */
	b->size = (misc & 0x8000u) && r[32] <= 20 ? r[32] : 20;
	copy_str(b->filename, sizeof b->filename, r + 36, rs - 36);
	return 1;
}

/* HEADER_BUILD_ID feature: build-id entries back to back in [at, +size). */
static enum trawl_status read_build_ids(struct trawl_perf_file *f, const uint8_t *at,
					uint64_t size, uint64_t off)
{
	uint64_t pos = 0;
	while (pos + 36 <= size) {
		uint16_t rs = (uint16_t)(at[pos + 6] | at[pos + 7] << 8);
		if (rs < 36 || rs > size - pos) {
			warn(f, "%s: offset %llu: build-id entry of size %u is cut or impossible", f->path,
			     (unsigned long long)(off + pos), rs);
			return TRAWL_OK;
		}
		if (add_build_id(f, at + pos, rs) < 0)
			return TRAWL_ERR_NOMEM;
		pos += rs;
	}
	return TRAWL_OK;
}

/* Pipe mode's HEADER_ATTR {header, perf_event_attr (attr.size bytes), ids}:
 * the first one says which records carry a sample-id trailer. */
static int add_header_attr(struct trawl_perf_file *f, const uint8_t *r, size_t size)
{
	if (size < 8 + 48 || bytes_rd32(r + 12) < 48 || bytes_rd32(r + 12) > size - 8)
		return 0;
	if (!f->nattrs++) {
		f->attr_type = bytes_rd32(r + 8);
		f->attr_config = bytes_rd64(r + 16);
		f->sample_type = bytes_rd64(r + 32);
		f->sample_id_all = (bytes_rd64(r + 48) >> 18) & 1;
	}
	return 1;
}

/* Pipe mode's HEADER_FEATURE {header, u64 feature, its section}: the
 * feature is marked as present; build ids are read, the rest skipped. */
static int add_header_feature(struct trawl_perf_file *f, const uint8_t *r, size_t size,
			      uint64_t off)
{
	if (size < 16)
		return 0;
	uint64_t feat = bytes_rd64(r + 8);
	if (feat < 256)
		f->features[feat / 64] |= 1ull << (feat % 64);
	if (feat == FEAT_BUILD_ID && read_build_ids(f, r + 16, size - 16, off + 16) != TRAWL_OK)
		return -1;
	return 1;
}

/* One record of the data section. Returns 1 (used), 0 (too short for its
 * type: warned by the caller), -1 (out of memory). A kernel record's body
 * is what its sample-id trailer leaves: its strings end there, and a
 * record without room for both is too short (the trailer's CPU would be
 * read from the body). */
static int add_record(struct trawl_perf_file *f, const uint8_t *r, uint32_t type, uint16_t misc,
		      size_t size, size_t room, uint64_t off, uint64_t *extra)
{
	size_t tr = trailer_size(f, type);
	if (size < fixed_size(type) + tr)
		return 0;
	size_t body = size - tr;
	int32_t cpu = tr ? trailer_cpu(f, r + body) : -1;
	switch (type) {
	case TRAWL_PERF_RECORD_MMAP:
	case TRAWL_PERF_RECORD_MMAP2:
		return add_mmap(f, r, body, misc, type, off);
	case TRAWL_PERF_RECORD_COMM:
	case TRAWL_PERF_RECORD_ITRACE_START:
	case TRAWL_PERF_RECORD_AUX_OUTPUT_HW_ID:
		return add_small(f, r, body, type, off, cpu);
	case TRAWL_PERF_RECORD_AUX:
		return add_aux(f, r, body, off, cpu);
	case TRAWL_PERF_RECORD_AUXTRACE:
		return add_auxtrace(f, r, size, room, off, extra);
	case TRAWL_PERF_RECORD_AUXTRACE_INFO:
		return add_auxtrace_info(f, r, size, off);
	case TRAWL_PERF_RECORD_HEADER_ATTR:
		return add_header_attr(f, r, size);
	case TRAWL_PERF_RECORD_HEADER_BUILD_ID:
		return add_build_id(f, r, size);
	case TRAWL_PERF_RECORD_HEADER_FEATURE:
		return add_header_feature(f, r, size, off);
	case TRAWL_PERF_RECORD_HEADER_TRACING_DATA:
		/* {header, u32 size}, then the data (padded to 8), not counted */
		if (size < 12)
			return 0;
		*extra = (bytes_rd32(r + 8) + 7ull) & ~7ull;
		return 1;
	case TRAWL_PERF_RECORD_COMPRESSED:
		return trawl_perf__inflate(f, r + 8, size - 8, off);
	case 83: /* COMPRESSED2: a u64 data size, then the data (padded) */
		if (size < 16 || bytes_rd64(r + 8) > size - 16u)
			return 0;
		return trawl_perf__inflate(f, r + 16, (size_t)bytes_rd64(r + 8), off);
	default:
		if (!strcmp(trawl_perf_record_name(type), "unknown"))
			warn(f, "%s: offset %llu: unknown record type %u (size %zu) skipped", f->path,
			     (unsigned long long)off, type, size);
		return 1;
	}
}

/* Walk records in base[pos, end): the data section (zoff = 0: offsets are
 * file offsets) or decompressed bytes of the COMPRESSED record at file
 * offset zoff (records there are named by it). A record cut by `end` ends
 * the walk; inside compressed data that is normal (the rest comes with the
 * next COMPRESSED record), so *stop says where to go on from. */
enum trawl_status trawl_perf__walk(struct trawl_perf_file *f, const uint8_t *base, uint64_t pos,
				   uint64_t end, uint64_t zoff, uint64_t *stop,
				   struct trawl_error *err)
{
	const char *in = zoff ? " (in compressed data)" : "";
	while (pos <= end && end - pos >= 8) {
		const uint8_t *r = base + pos;
		uint64_t off = zoff ? zoff : pos;
		uint32_t type = bytes_rd32(r);
		uint16_t misc = (uint16_t)(r[4] | r[5] << 8), size = (uint16_t)(r[6] | r[7] << 8);
		if (size < 8 || (size > end - pos && !zoff)) {
			warn(f, "%s: offset %llu%s: %s record of size %u %s", f->path,
			     (unsigned long long)off, in, trawl_perf_record_name(type), size,
			     size < 8 ? "is impossible: the rest of the data is not read"
				      : "is cut by the end of the data");
			*stop = end;
			return TRAWL_OK;
		}
		if (size > end - pos)
			break;
		uint64_t extra = 0;
		/* listed before the records a COMPRESSED one holds */
		struct trawl_perf_rec *rl = PUSH(f, recs, nrecs, cap_recs);
		if (!rl)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading %s", f->path);
		size_t ri = f->nrecs - 1;
		rl->offset = off;
		rl->type = type;
		int rc = add_record(f, r, type, misc, size, (size_t)(end - pos), off, &extra);
		if (rc < 0)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading %s", f->path);
		if (rc == 0)
			warn(f, "%s: offset %llu%s: %s record of size %u is too short for its type "
			     "(%zu bytes%s at least): skipped", f->path, (unsigned long long)off, in,
			     trawl_perf_record_name(type), size, fixed_size(type) + trailer_size(f, type),
			     trailer_size(f, type) ? " with its sample-id trailer" : "");
		f->nrecords++;
		f->by_type[type & 127]++;
		f->recs[ri].size = (uint32_t)(size + extra);
		if (extra > end - pos - size) {
			warn(f, "%s: offset %llu: %s record announces %llu bytes, only %llu are in "
			     "the file", f->path, (unsigned long long)off, trawl_perf_record_name(type),
			     (unsigned long long)extra,
			     (unsigned long long)(end - pos - size));
			*stop = end;
			return TRAWL_OK;
		}
		pos += size + extra;
	}
	*stop = pos;
	return TRAWL_OK;
}

static enum trawl_status walk_data(struct trawl_perf_file *f, struct trawl_error *err)
{
	uint64_t pos = f->data_offset, end = f->data_offset + f->data_size, stop;
	if (pos > f->len) {
		warn(f, "%s: data section at offset %llu starts past the end of the file (%zu bytes)",
		     f->path, (unsigned long long)pos, f->len);
		return TRAWL_OK;
	}
	if (end > f->len || end < pos) {
		warn(f, "%s: data section [%llu, +%llu) goes past the end of the file (%zu bytes): "
		     "file cut short", f->path, (unsigned long long)f->data_offset,
		     (unsigned long long)f->data_size, f->len);
		end = f->len;
	}
	enum trawl_status st = trawl_perf__walk(f, f->mem, pos, end, 0, &stop, err);
	if (st == TRAWL_OK && stop != end)
		warn(f, "%s: offset %llu: %llu stray bytes at the end of the data section", f->path,
		     (unsigned long long)stop, (unsigned long long)(end - stop));
	if (st == TRAWL_OK && f->zlen)
		warn(f, "%s: %zu bytes of a record cut at the end of the compressed data", f->path,
		     f->zlen);
	return st;
}


/* Feature sections: one {offset, size} per set bit, in bit order, right
 * after the data section. Build ids are read, and simpleperf's own (bits
 * 128 and up) go to perf-simpleperf.c; the others are skipped by their
 * size. */
static enum trawl_status read_features(struct trawl_perf_file *f)
{
	uint64_t tab = f->data_offset + f->data_size;
	unsigned k = 0;
	for (unsigned bit = 0; bit < 256; bit++) {
		if (!(f->features[bit / 64] >> (bit % 64) & 1))
			continue;
		uint64_t at = tab + 16ull * k++;
		if (at < tab || at > f->len || f->len - at < 16) {
			warn(f, "%s: offset %llu: feature table cut short (feature %u)", f->path,
			     (unsigned long long)at, bit);
			return TRAWL_OK;
		}
		uint64_t off = bytes_rd64(f->mem + at), size = bytes_rd64(f->mem + at + 8);
		if (off > f->len || size > f->len - off) {
			warn(f, "%s: offset %llu: feature %u section [%llu, +%llu) is past the end%s",
			     f->path, (unsigned long long)at, bit, (unsigned long long)off,
			     (unsigned long long)size, off > f->len ? "" : ": what is there is read");
			if (off > f->len)
				continue;
			size = f->len - off; /* a cut file: read what is there */
		}
		if (bit == FEAT_BUILD_ID && read_build_ids(f, f->mem + off, size, off) != TRAWL_OK)
			return TRAWL_ERR_NOMEM;
		if (bit >= 128 && trawl_perf__simpleperf_feature(f, bit, off, size) != TRAWL_OK)
			return TRAWL_ERR_NOMEM;
	}
	return TRAWL_OK;
}

/* The first attribute says which records carry a sample-id trailer. */
static enum trawl_status read_header(struct trawl_perf_file *f, struct trawl_error *err)
{
	const uint8_t *h = f->mem;
	if (f->len >= 16 && trawl_perf_is_perf(h, f->len) && bytes_rd64(h + 8) == PIPE_HEADER_SIZE) {
		/* perf record -o -: records to the end, attributes and features
		 * among them (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID) */
		f->pipe = 1;
		f->data_offset = PIPE_HEADER_SIZE;
		f->data_size = f->len - PIPE_HEADER_SIZE;
		return TRAWL_OK;
	}
	if (!trawl_perf_is_perf(h, f->len))
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: not a perf.data file (no PERFILE2 "
				       "header%s)", f->path, f->len >= 8 && !memcmp(h, "PERFILE", 7)
				       ? "; old PERFFILE files are not supported" : "");
	/* a cut recording is named as one, not as a file of another kind */
	if (f->len < HEADER_SIZE) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "perf.data file cut short: "
						       "%zu bytes, less than its header",
						       f->len);
		trawl_error_at(err, f->path, 0, 0, f->len);
		return st;
	}
	uint64_t hsize = bytes_rd64(h + 8), attr_size = bytes_rd64(h + 16);
	uint64_t aoff = bytes_rd64(h + 24), asize = bytes_rd64(h + 32);
	f->data_offset = bytes_rd64(h + 40);
	f->data_size = bytes_rd64(h + 48);
	for (int i = 0; i < 4; i++)
		f->features[i] = bytes_rd64(h + 72 + 8 * i);
	if (hsize < HEADER_SIZE || attr_size < 16 + 48) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "perf.data header: bad "
						       "header size %llu or attribute size %llu",
						       (unsigned long long)hsize,
						       (unsigned long long)attr_size);
		trawl_error_at(err, f->path, 0, 0, 0);
		return st;
	}
	if (aoff > f->len || asize > f->len - aoff) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "perf.data header: the "
						       "attribute section [%llu, +%llu) goes past the "
						       "end of the file (%zu bytes): file cut short",
						       (unsigned long long)aoff,
						       (unsigned long long)asize, f->len);
		trawl_error_at(err, f->path, 0, 0, 0);
		return st;
	}
	f->nattrs = (uint32_t)(asize / attr_size);
	if (f->nattrs) {
		const uint8_t *a = f->mem + aoff;
		f->attr_type = bytes_rd32(a);
		f->attr_config = bytes_rd64(a + 8);
		f->sample_type = bytes_rd64(a + 24);
		f->sample_id_all = (bytes_rd64(a + 40) >> 18) & 1;
	}
	return TRAWL_OK;
}

/* Takes `data` (malloc'ed) whatever the outcome. */
static enum trawl_status open_owned(struct trawl_perf_file **out, uint8_t *data, size_t len,
				    const char *name, struct trawl_error *err)
{
	*out = NULL;
	struct trawl_perf_file *f = calloc(1, sizeof *f);
	if (!f) {
		free(data);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	f->mem = data;
	f->len = len;
	snprintf(f->path, sizeof f->path, "%s", name);
	enum trawl_status st = read_header(f, err);
	if (st == TRAWL_OK)
		st = walk_data(f, err);
	if (st == TRAWL_OK && !f->pipe && read_features(f) != TRAWL_OK)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (st != TRAWL_OK) {
		trawl_perf_close(f);
		return st;
	}
	*out = f;
	return TRAWL_OK;
}

enum trawl_status trawl_perf_open_mem(struct trawl_perf_file **out, const uint8_t *data,
				      size_t len, const char *name, struct trawl_error *err)
{
	uint8_t *copy = malloc(len ? len : 1);
	*out = NULL;
	if (!copy)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	memcpy(copy, data, len);
	return open_owned(out, copy, len, name, err);
}

enum trawl_status trawl_perf_open(struct trawl_perf_file **out, const char *path,
				  struct trawl_error *err)
{
	uint8_t *data;
	size_t len;
	*out = NULL;
	enum trawl_status st = trawl_file_read(path, &data, &len, err);
	if (st != TRAWL_OK)
		return st;
	return open_owned(out, data, len, path, err);
}

void trawl_perf_close(struct trawl_perf_file *f)
{
	if (!f)
		return;
	free(f->mem);
	free(f->etm);
	free(f->mmaps);
	free(f->comms);
	free(f->aux);
	free(f->chunks);
	free(f->its);
	free(f->hwids);
	free(f->bids);
	free(f->recs);
	trawl_perf__inflate_end(f);
	free(f);
}
