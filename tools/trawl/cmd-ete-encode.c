/* trawl ete encode: any Tarmac trace (read by the shared reader) and its
 * program image in, the ETE snapshot a trace unit and TRBE would have
 * written out. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "ete-out.h"
#include "trace-open.h"
#include "trawl/reader.h"

int cmd_ete_encode(int argc, char **argv);

static const char *cmd = "ete encode";

/* The exception type an ETE Exception packet gives for a Tarmac
 * exception's name (the producers' names differ; unknown ones are traps). */
static uint32_t exc_type(const struct trawl_event_exception *x)
{
	char name[128];
	size_t n = x->name.len < sizeof name - 1 ? x->name.len : sizeof name - 1;
	memcpy(name, x->name.ptr, n);
	name[n] = 0;
	if (strcasestr(name, "FIQ"))
		return 15;
	if (strcasestr(name, "IRQ") || strcasestr(name, "interrupt"))
		return 14;
	if (strcasestr(name, "SVC") || strcasestr(name, "HVC") || strcasestr(name, "SMC") ||
	    strcasestr(name, "call"))
		return 2;
	if (strcasestr(name, "abort") || strcasestr(name, "fault"))
		return 12;
	return 3;
}

static void insn_of(const struct trawl_event *ev, const struct trawl_image *img,
		    struct trawl_ete_enc_insn *in)
{
	const struct trawl_event_insn *x = &ev->u.insn;
	memset(in, 0, sizeof *in);
	in->pc = x->pc;
	in->isa = x->iset ? x->iset : TRAWL_ISET_A64;
	in->size = x->width ? x->width : (in->isa == TRAWL_ISET_T32 ? 2 : 4);
	if (ev->flags & TRAWL_EVF_HAS_ENCODING) {
		in->enc = x->encoding;
		/* Tarmac writes a 32-bit T32 instruction first halfword high */
		if (in->isa == TRAWL_ISET_T32 && in->size == 4)
			in->enc = in->enc >> 16 | in->enc << 16;
	} else {
		uint8_t b[4] = { 0 };
		trawl_image_read(img, x->pc, b, in->size);
		in->enc = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	}
	in->el = x->el <= 3 ? x->el : 0;
	in->security = 1;
	if (x->mode.len >= 2 && x->mode.ptr[x->mode.len - 2] == '_' && x->mode.ptr[x->mode.len - 1] == 's')
		in->security = 0;
	in->time = ev->time;
	in->cycles = ev->time;
}

static int encode_batch(struct ete_out *eo, const struct trawl_event_batch *b,
			const struct trawl_image *img, struct trawl_error *err)
{
	struct trawl_ete_encoder *enc = ete_out_encoder(eo);
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *ev = &b->events[i];
		enum trawl_status st = TRAWL_OK;
		struct trawl_ete_enc_insn in;
		if (ev->kind == TRAWL_EV_INSN && !(ev->flags & TRAWL_EVF_FETCH_FAIL)) {
			insn_of(ev, img, &in);
			if (ev->flags & TRAWL_EVF_HAS_ENCODING)
				ete_out_code(eo, img, in.pc, in.enc, in.size);
			st = trawl_ete_encoder_insn(enc, &in, err);
		} else if (ev->kind == TRAWL_EV_EXCEPTION && !(ev->flags & TRAWL_EVF_DEBUG_ENTRY)) {
			st = (ev->flags & TRAWL_EVF_RESET)
				     ? trawl_ete_encoder_gap(enc, err)
				     : trawl_ete_encoder_exception(enc, exc_type(&ev->u.exc),
								   ev->u.exc.ret_addr, err);
		} else if (ev->kind == TRAWL_EV_GAP) {
			st = trawl_ete_encoder_gap(enc, err);
		}
		if (st != TRAWL_OK)
			return 0;
	}
	return 1;
}

/* Read the whole trace into the encoder, with progress on the way. */
static int encode_trace(struct trace_open *to, struct ete_out *eo, const struct trawl_image *img)
{
	struct trawl_reader *r;
	struct trawl_event_batch b;
	struct trawl_error err;
	struct cli_progress pr;
	int rc = trace_reader_open(to, &r);
	if (rc)
		return rc;
	trawl_error_clear(&err);
	cli_progress_start(&pr, "encoding", trawl_input_raw_size(trawl_reader_input(r)));
	enum trawl_status st;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		if (!encode_batch(eo, &b, img, &err)) {
			st = TRAWL_ERR_IO;
			break;
		}
		cli_progress_update(&pr, trace_progress(r));
	}
	cli_progress_finish(&pr);
	if (st != TRAWL_END)
		rc = cli_report(cmd, &err);
	else
		trace_report_skipped(to, r);
	trawl_reader_close(r);
	return rc;
}

/* The option table (the ETE output options are shared with emulate
 * --ete), then open, encode, write: long only because the table is. */
int cmd_ete_encode(int argc, char **argv)
{
	struct trace_open to;
	struct ete_out_opts eo;
	struct cli_image im = { cmd, NULL, 0 };
	struct trawl_error err;
	const char *dir = NULL;
	int quiet = 0, rc;
	memset(&to, 0, sizeof to);
	memset(&eo, 0, sizeof eo);
	trawl_error_clear(&err);
	to.cmd = cmd;
	if (trawl_image_create(&im.img, &err) != TRAWL_OK)
		return cli_report(cmd, &err);
	const struct cli_option opts[] = {
		CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &im,
			     "the program that ran (repeatable): its loaded segments\n"
			     "become the snapshot's memory dumps"),
		CLI_STRING("output", 'o', "DIR", &dir, "the snapshot directory to write (required)"),
		ETE_OUT_OPTIONS(&eo),
		CLI_FLAG("quiet", 'q', &quiet, "no summary line on standard error"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command spec = {
		.name = "ete encode",
		.usage = "[options] TRACE --image ELF -o DIR",
		.description =
			"Write the ETE trace a trace unit (and, with --trbe-size, its TRBE)\n"
			"would have produced for the instructions of a Tarmac trace: A-Sync and\n"
			"Trace Info every --sync-period bytes, atoms for branches, addresses\n"
			"for indirect branches, exceptions with their preferred return\n"
			"addresses, as a snapshot directory that `trawl ete` and OpenCSD's\n"
			"trc_pkt_lister decode. SVCs whose system call was not traced become\n"
			"an exception and a Trace On; see docs/ete.md, \"The encoder\".\n",
		.options = opts,
		.min_args = 1, .max_args = 1,
		.missing = "give a Tarmac trace",
	};
	int n = cli_parse(&spec, argc, argv, &rc);
	if (n < 0) {
		trawl_image_destroy(im.img);
		return rc;
	}
	to.path = argv[0];
	if (!dir) {
		trawl_image_destroy(im.img);
		return cli_usage(cmd, "missing -o DIR (the snapshot directory to write)");
	}
	if (!im.given)
		cli_warn(cmd, "no --image: the snapshot has no memory dumps, so decoders cannot "
			 "follow it");
	struct ete_out *out;
	rc = ete_out_open(cmd, &eo, &out);
	if (rc == 0) {
		rc = encode_trace(&to, out, im.img);
		if (rc == 0)
			rc = ete_out_close(cmd, out, dir, im.img, !quiet);
		else
			ete_out_abandon(out);
	}
	trawl_image_destroy(im.img);
	return rc;
}
