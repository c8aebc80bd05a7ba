/* Snapshot writer: the directory layout snapshot.c reads (and OpenCSD's
 * snapshot reader, trc_pkt_lister -ss_dir), for the encoder's output.
 *
 *   snapshot.ini  [snapshot] version, [device_list] cpu_0.ini ETE_0.ini,
 *                 [trace] metadata=trace.ini
 *   trace.ini     [trace_buffers] buffers=buffer0; [buffer0] name=ETB_0,
 *                 file=trace.bin, format=source_data, and for a TRBE buffer
 *                 its state (trbe_base, trbe_limit, trbe_ptr, trbe_wrapped,
 *                 and TRBBASER_EL1 ... TRBTRG_EL1, trbe_mode, trbe_external,
 *                 trbe_nvm); [source_buffers] ETE_0=ETB_0;
 *                 [core_trace_sources] cpu_0=ETE_0
 *   ETE_0.ini     class=trace_source type=ETE, [regs] TRCIDR0.. TRCCONFIGR,
 *                 TRCTRACEIDR, TRCDEVARCH
 *   cpu_0.ini     class=core type=ARM-AA64, [dumpN] file, address, length
 *   trace.bin     the buffer: for a TRBE that wrapped its memory [base,
 *                 limit), oldest byte at trbe_ptr; else the bytes written
 *   mem_N.bin     one file per memory dump
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trawl/ete-encode.h"

/* pad: zero bytes after the data (see write_core_ini) */
static enum trawl_status write_file(const char *dir, const char *name, const void *data,
				    size_t len, size_t pad, struct trawl_error *err)
{
	static const uint8_t zeros[8];
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return trawl_error_errno(err, errno, "cannot create '%s'", path);
	int ok = (!len || fwrite(data, 1, len, f) == len) && (!pad || fwrite(zeros, 1, pad, f) == pad);
	ok &= fclose(f) == 0;
	if (!ok)
		return trawl_error_errno(err, errno, "cannot write '%s'", path);
	return TRAWL_OK;
}

static enum trawl_status write_text(const char *dir, const char *name, const char *text,
				    struct trawl_error *err)
{
	return write_file(dir, name, text, strlen(text), 0, err);
}

static const char *mode_name(uint64_t limitr)
{
	switch ((limitr >> 1) & 3) {
	case 0: return "fill";
	case 1: return "wrap";
	case 3: return "circular";
	default: return "reserved";
	}
}

static enum trawl_status write_trace_ini(const char *dir, const struct trawl_ete_snapshot_spec *s,
					 struct trawl_error *err)
{
	char t[2048];
	int n = snprintf(t, sizeof t,
			 "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\nfile=trace.bin\n"
			 "format=source_data\n");
	const struct trawl_ete_trbe_regs *r = s->trbe;
	if (r) {
		uint64_t base = r->baser & ~0xfffull, limit = r->limitr & ~0xfffull;
		n += snprintf(t + n, sizeof t - (size_t)n,
			      "; TRBE state: with trbe_wrapped=1 the file is the buffer memory\n"
			      "; [trbe_base, trbe_limit), oldest byte at trbe_ptr; else [trbe_base, trbe_ptr)\n"
			      "trbe_base=0x%" PRIx64 "\ntrbe_limit=0x%" PRIx64 "\ntrbe_ptr=0x%" PRIx64
			      "\ntrbe_wrapped=%d\ntrbe_mode=%s\ntrbe_external=%d\ntrbe_nvm=%d\n"
			      "TRBBASER_EL1=0x%" PRIx64 "\nTRBLIMITR_EL1=0x%" PRIx64 "\nTRBPTR_EL1=0x%" PRIx64
			      "\nTRBSR_EL1=0x%" PRIx64 "\nTRBMAR_EL1=0x%" PRIx64 "\nTRBTRG_EL1=0x%" PRIx64 "\n",
			      base, limit, r->ptr, s->wrapped, mode_name(r->limitr), r->external,
			      (int)((r->limitr >> 5) & 1), r->baser, r->limitr, r->ptr, r->sr, r->mar,
			      r->trg);
	}
	snprintf(t + n, sizeof t - (size_t)n,
		 "\n[source_buffers]\nETE_0=ETB_0\n\n[core_trace_sources]\ncpu_0=ETE_0\n");
	return write_text(dir, "trace.ini", t, err);
}

static enum trawl_status write_source_ini(const char *dir, const struct trawl_ete_config *c,
					  struct trawl_error *err)
{
	char t[1024];
	snprintf(t, sizeof t,
		 "[device]\nname=ETE_0\nclass=trace_source\ntype=ETE\n\n[regs]\n"
		 "TRCCONFIGR=0x%x\nTRCTRACEIDR=0x%x\nTRCDEVARCH=0x%x\nTRCIDR0=0x%x\nTRCIDR1=0x%x\n"
		 "TRCIDR2=0x%x\nTRCIDR8=0x%x\n",
		 c->configr, c->trace_id, c->devarch, c->idr0, c->idr1, c->idr2, c->idr8);
	return write_text(dir, "ETE_0.ini", t, err);
}

/* Dumps are padded with zeros to a multiple of 4 bytes: OpenCSD 1.3.3
 * refuses a memory file of another size ("Failed to create memory
 * accessor"), and a loaded segment's page goes on with zeros anyway. */
static size_t dump_pad(size_t len)
{
	return (4 - (len & 3)) & 3;
}

static enum trawl_status write_core_ini(const char *dir, const struct trawl_ete_snapshot_spec *s,
					struct trawl_error *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/cpu_0.ini", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return trawl_error_errno(err, errno, "cannot create '%s'", path);
	fprintf(f, "[device]\nname=cpu_0\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=0x0\n");
	for (size_t i = 0; i < s->ndumps; i++)
		fprintf(f, "\n[dump%zu]\nfile=mem_%zu.bin\naddress=0x%016" PRIx64 "\nlength=0x%zx\n",
			i + 1, i + 1, s->dumps[i].addr, s->dumps[i].len + dump_pad(s->dumps[i].len));
	if (fclose(f) != 0)
		return trawl_error_errno(err, errno, "cannot write '%s'", path);
	for (size_t i = 0; i < s->ndumps; i++) {
		char name[64];
		snprintf(name, sizeof name, "mem_%zu.bin", i + 1);
		enum trawl_status st = write_file(dir, name, s->dumps[i].data, s->dumps[i].len,
						  dump_pad(s->dumps[i].len), err);
		if (st != TRAWL_OK)
			return st;
	}
	return TRAWL_OK;
}

enum trawl_status trawl_ete_snapshot_write(const char *dir, const struct trawl_ete_snapshot_spec *s,
					   struct trawl_error *err)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return trawl_error_errno(err, errno, "cannot create '%s'", dir);
	enum trawl_status st = write_text(dir, "snapshot.ini",
					  "[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\n"
					  "device1=ETE_0.ini\n\n[trace]\nmetadata=trace.ini\n", err);
	/* a TRBE buffer that never wrapped holds [base, ptr): only that is
	 * trace (OpenCSD would read the rest as packets) */
	size_t len = s->len;
	if (s->trbe && !s->wrapped && s->trbe->ptr - (s->trbe->baser & ~0xfffull) < len)
		len = (size_t)(s->trbe->ptr - (s->trbe->baser & ~0xfffull));
	if (st == TRAWL_OK)
		st = write_file(dir, "trace.bin", s->buffer, len, 0, err);
	if (st == TRAWL_OK)
		st = write_trace_ini(dir, s, err);
	if (st == TRAWL_OK)
		st = write_source_ini(dir, s->cfg, err);
	if (st == TRAWL_OK)
		st = write_core_ini(dir, s, err);
	return st;
}
