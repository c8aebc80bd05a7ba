/* ocsd-speed: the OpenCSD baseline for bench-ete.sh, without text output.
 * Decodes a raw ETE buffer through OpenCSD's C API (libopencsd-dev) with
 * counting callbacks, in process CPU time, repeating it until SECONDS pass.
 *
 *   ocsd-speed BUFFER packets|decode SECONDS IDR0 IDR1 IDR2 IDR8 DEVARCH
 *              CONFIGR TRACEIDR [ADDR=FILE ...]
 * prints "MB/s packets/s instructions/s best-pass-MB/s median-pass-MB/s
 * packets-in-one-pass" (the last is what the packet sink saw in the last
 * pass, in packets mode; 0 without a sink or in decode mode; the fastest single pass over the buffer filters out time lost to other
 * tenants of a shared machine; the median pass is robust to a few
 * interrupted passes), measured as bench/ete-speed.c does for trawl.
 * Built by bench-ete.sh only when the OpenCSD headers are installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../pass-times.h"

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/ete/trc_pkt_types_ete.h>

static unsigned long long npkts, ninsns;
static int no_sink;

static ocsd_datapath_resp_t on_pkt(const void *ctx, const ocsd_datapath_op_t op,
				   const ocsd_trc_index_t idx, const void *pkt)
{
	(void)ctx; (void)idx; (void)pkt;
	if (op == OCSD_OP_DATA)
		npkts++;
	return OCSD_RESP_CONT;
}

static ocsd_datapath_resp_t on_elem(const void *ctx, const ocsd_trc_index_t idx, const uint8_t id,
				    const ocsd_generic_trace_elem *e)
{
	(void)ctx; (void)idx; (void)id;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE)
		ninsns += e->num_instr_range;
	npkts++;
	return OCSD_RESP_CONT;
}

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	*len = b ? fread(b, 1, (size_t)n, f) : 0;
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	if (argc < 11) {
		fprintf(stderr, "usage: ocsd-speed BUFFER packets|decode SECONDS IDR0 IDR1 IDR2 IDR8 DEVARCH CONFIGR TRACEIDR [ADDR=FILE...]\n");
		return 2;
	}
	size_t len;
	uint8_t *buf = load(argv[1], &len);
	if (!buf)
		return 1;
	int decode = !strcmp(argv[2], "decode");
	double limit = atof(argv[3]);
	ocsd_ete_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.reg_idr0 = (uint32_t)strtoul(argv[4], NULL, 0);
	cfg.reg_idr1 = (uint32_t)strtoul(argv[5], NULL, 0);
	cfg.reg_idr2 = (uint32_t)strtoul(argv[6], NULL, 0);
	cfg.reg_idr8 = (uint32_t)strtoul(argv[7], NULL, 0);
	cfg.reg_devarch = (uint32_t)strtoul(argv[8], NULL, 0);
	cfg.reg_configr = (uint32_t)strtoul(argv[9], NULL, 0);
	cfg.reg_traceidr = (uint32_t)strtoul(argv[10], NULL, 0);
	cfg.arch_ver = ARCH_AA64;
	cfg.core_prof = profile_CortexA;
	/* memory images stay loaded across repetitions */
	int nimg = argc - 11;
	uint8_t **img = calloc((size_t)(nimg + 1), sizeof *img);
	size_t *imglen = calloc((size_t)(nimg + 1), sizeof *imglen);
	unsigned long long *imgaddr = calloc((size_t)(nimg + 1), sizeof *imgaddr);
	for (int i = 0; i < nimg; i++) {
		char *eq = strchr(argv[11 + i], '=');
		if (!eq)
			return 2;
		imgaddr[i] = strtoull(argv[11 + i], NULL, 0);
		img[i] = load(eq + 1, &imglen[i]);
		if (!img[i])
			return 1;
	}
	unsigned long long bytes = 0;
	double t0 = pass_cpu_now(), t = t0;
	struct pass_times pt = { 0 };
	unsigned long long pass_pkts = 0;
	while (t - t0 < limit) {
		double tp = t;
		unsigned long long before = npkts;
		dcd_tree_handle_t h = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, OCSD_DFRMTR_FRAME_MEM_ALIGN);
		unsigned char csid = 0;
		if (h == C_API_INVALID_TREE_HANDLE ||
		    ocsd_dt_create_decoder(h, OCSD_BUILTIN_DCD_ETE,
					   decode ? OCSD_CREATE_FLG_FULL_DECODER : OCSD_CREATE_FLG_PACKET_PROC,
					   &cfg, &csid) != OCSD_OK) {
			fprintf(stderr, "ocsd-speed: cannot create the ETE decoder\n");
			return 1;
		}
		if (decode) {
			ocsd_dt_set_gen_elem_outfn(h, on_elem, NULL);
			for (int i = 0; i < nimg; i++)
				ocsd_dt_add_buffer_mem_acc(h, imgaddr[i], OCSD_MEM_SPACE_ANY, img[i],
							   (uint32_t)imglen[i]);
		} else {
			/* the C API of some releases cannot attach a packet sink to
			 * ETE (OCSD_ERR_NO_PROTOCOL): then the packet processor runs
			 * with no consumer, which is the cheapest it can be */
			if (ocsd_dt_attach_packet_callback(h, csid, OCSD_C_API_CB_PKT_SINK, (void *)on_pkt, NULL) != OCSD_OK)
				no_sink = 1;
		}
		size_t pos = 0;
		while (pos < len) {
			uint32_t used = 0;
			ocsd_datapath_resp_t r = ocsd_dt_process_data(h, OCSD_OP_DATA, pos,
								      (uint32_t)(len - pos), buf + pos, &used);
			if (OCSD_DATA_RESP_IS_FATAL(r) || used == 0)
				break;
			pos += used;
		}
		uint32_t used = 0;
		ocsd_dt_process_data(h, OCSD_OP_EOT, 0, 0, NULL, &used);
		ocsd_decode_stats_t *st = NULL;
		if (!decode && ocsd_dt_get_decode_stats(h, csid, &st) == OCSD_OK && st &&
		    st->channel_total != len) {
			fprintf(stderr, "ocsd-speed: processed %llu of %zu bytes\n",
				(unsigned long long)st->channel_total, len);
			return 1;
		}
		ocsd_destroy_dcd_tree(h);
		bytes += len;
		pass_pkts = decode ? 0 : npkts - before;
		t = pass_cpu_now();
		if (pass_add(&pt, t - tp))
			return 1;
	}
	double sec = t - t0, best, med;
	pass_summary(&pt, &best, &med);
	if (no_sink)
		fprintf(stderr, "ocsd-speed: no ETE packet sink in this OpenCSD: packets parsed without a consumer\n");
	printf("%.2f %.0f %.0f %.2f %.2f %llu\n", (double)bytes / sec / 1e6, (double)npkts / sec,
	       (double)ninsns / sec, (double)len / best / 1e6, (double)len / med / 1e6, pass_pkts);
	free(pt.t);
	return 0;
}
