/* The cs_etm AUXTRACE_INFO payload (Linux tools/perf/util/cs-etm.h): a
 * header {version, pmu type << 32 | cpu count, snapshot mode}, then one
 * block per CPU: magic, cpu, (version >= 1) the parameter count, then the
 * parameters. Their order: ETMv4 TRCCONFIGR, TRCTRACEIDR, TRCIDR0, 1, 2,
 * 8, TRCAUTHSTATUS[, TS_SOURCE]; ETE the same with TRCDEVARCH before
 * TS_SOURCE; ETMv3/PTM ETMCR, ETMTRACEIDR, ETMCCER, ETMIDR. */
#include <string.h>

#include "trawl/perf.h"

#include "core/grow.h"

/* version 0 blocks have no count: the parameters of that time */
static uint32_t v0_params(uint64_t magic)
{
	return magic == TRAWL_PERF_ETMV3_MAGIC ? 4 : magic == TRAWL_PERF_ETE_MAGIC ? 8 : 7;
}

/* The decoder configuration of an ETMv4/ETE block. */
static void block_config(struct trawl_perf_etm_cpu *c)
{
	struct trawl_ete_config *cfg = &c->cfg;
	memset(cfg, 0, sizeof *cfg);
	if (c->magic == TRAWL_PERF_ETMV3_MAGIC || c->nparams < 6)
		return;
	cfg->configr = (uint32_t)c->params[0];
	cfg->trace_id = (uint8_t)(c->params[1] & 0x7f);
	cfg->idr0 = (uint32_t)c->params[2];
	cfg->idr1 = (uint32_t)c->params[3];
	cfg->idr2 = (uint32_t)c->params[4];
	cfg->idr8 = (uint32_t)c->params[5];
	if (c->magic == TRAWL_PERF_ETE_MAGIC) {
		/* a block too short for TRCDEVARCH still is ETE: ETE 1.0's value */
		cfg->devarch = c->nparams > 7 ? (uint32_t)c->params[7] : 0x47705a13;
	}
	c->cfg_ok = trawl_ete_config_derive(cfg, NULL) == TRAWL_OK;
}

enum trawl_status trawl_perf_etm_info_parse(struct trawl_perf_file *f, const uint64_t *priv,
					    size_t n, struct trawl_error *err)
{
	if (n < 3)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "cs_etm header cut short (%zu words)", n);
	f->etm_version = priv[0];
	if (priv[0] > 2)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "cs_etm header version %llu (0-2 are known)",
				       (unsigned long long)priv[0]);
	f->etm_pmu_type = priv[1] >> 32;
	f->etm_snapshot = priv[2];
	f->have_etm_info = 1;
	uint32_t ncpus = (uint32_t)priv[1];
	size_t pos = 3, cap = 0;
	for (uint32_t i = 0; i < ncpus; i++) {
		if (pos + 2 > n || (f->etm_version && pos + 3 > n))
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "cs_etm block %u of %u cut short",
					       i, ncpus);
		uint64_t magic = priv[pos];
		if (magic != TRAWL_PERF_ETMV3_MAGIC && magic != TRAWL_PERF_ETMV4_MAGIC &&
		    magic != TRAWL_PERF_ETE_MAGIC)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "cs_etm block %u: unknown magic "
					       "0x%016llx", i, (unsigned long long)magic);
		uint64_t np = f->etm_version ? priv[pos + 2] : v0_params(magic);
		size_t first = pos + (f->etm_version ? 3 : 2);
		if (np > n - first)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "cs_etm block %u: %llu parameters, "
					       "only %zu words left", i, (unsigned long long)np,
					       n - first);
		if (!trawl_grow((void **)&f->etm, &cap, f->netm + 1, sizeof *f->etm))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		struct trawl_perf_etm_cpu *c = &f->etm[f->netm++];
		memset(c, 0, sizeof *c);
		c->magic = magic;
		c->cpu = (uint32_t)priv[pos + 1];
		c->nparams = (uint32_t)np;
		for (size_t k = 0; k < np && k < 16; k++)
			c->params[k] = priv[first + k];
		block_config(c);
		pos = first + (size_t)np;
	}
	return TRAWL_OK;
}

const struct trawl_perf_etm_cpu *trawl_perf_etm_for_cpu(const struct trawl_perf_file *f,
							int32_t cpu)
{
	for (size_t i = 0; i < f->netm; i++)
		if ((int32_t)f->etm[i].cpu == cpu)
			return &f->etm[i];
	return NULL;
}

int trawl_perf_trace_id(const struct trawl_perf_file *f, int32_t cpu)
{
	for (size_t i = f->nhwids; i-- > 0;)
		if (f->hwids[i].cpu == cpu)
			return (int)(f->hwids[i].hw_id & 0x7f);
	const struct trawl_perf_etm_cpu *c = trawl_perf_etm_for_cpu(f, cpu);
	if (!c || c->nparams < 2)
		return -1;
	return (int)(c->params[1] & 0x7f);
}

int trawl_perf_aux_raw(const struct trawl_perf_file *f, int32_t cpu)
{
	for (size_t i = 0; i < f->naux; i++)
		if (f->aux[i].cpu == cpu || f->aux[i].cpu < 0)
			return (f->aux[i].flags & TRAWL_PERF_AUX_FORMAT_MASK) == TRAWL_PERF_AUX_CS_RAW;
	return -1;
}
