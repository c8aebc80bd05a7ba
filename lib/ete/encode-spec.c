/* ETE encoder: speculation as a trace unit may show it (--speculate).
 * Emulated runs never speculate, so the encoder makes some up, always
 * resolving it the way the run went, to exercise the decoders' rules:
 *   - a mispredict: the wrong atom, then a Mispredict packet (0x30), which
 *     flips the newest uncommitted atom back;
 *   - a cancel: one to three atoms that never happened, then Cancel
 *     format 1 (0x2E) with their count, which drops the newest ones;
 *   - commits: a Commit packet (0x2D) for everything uncommitted once a
 *     depth picked at random is reached, and before each sync point and
 *     the end (so Trace Info needs no SPEC section); the depth may exceed
 *     MaxSpec by one, which the decoders must resolve by committing the
 *     oldest element themselves (TRCIDR8 rule).
 * Injected elements never go beyond MaxSpec uncommitted, so the ones the
 * mispredict and cancel refer to are still speculative when they come.
 * A fixed-seed generator: the same run gives the same bytes.
 */
#include "ete/encode-int.h"

static uint32_t spec_rand(struct trawl_ete_encoder *e)
{
	uint64_t x = e->spec_seed;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	e->spec_seed = x;
	return (uint32_t)(x >> 32);
}

/* a header and a count in a continuation field (Commit, Cancel F1) */
static void put_count(struct trawl_ete_encoder *e, uint8_t header, uint64_t n)
{
	uint8_t b[16] = { header };
	enc_put(e, b, 1 + enc_cont_field(b + 1, n));
}

void enc_spec_commit(struct trawl_ete_encoder *e)
{
	e->spec_run = 0;
	if (!e->o.speculate || !e->spec)
		return;
	enc_atoms_flush(e);
	put_count(e, 0x2D, e->spec);
	e->spec = 0;
	e->spec_run = 0;
	e->stats.commits++;
}

/* A P0 element (atom or exception) was added: account for it, commit
 * when the chosen depth is reached (MaxSpec + 1 left to the decoder). */
void enc_spec_p0(struct trawl_ete_encoder *e)
{
	uint32_t max = e->o.speculate;
	if (!max)
		return;
	e->spec++;
	e->spec_run++;
	if (e->spec > max) { /* the decoder commits the oldest */
		e->spec = max;
		e->stats.implicit_commits++;
	}
	if (e->spec_run >= e->spec_depth) {
		enc_spec_commit(e);
		e->spec_depth = 1 + spec_rand(e) % (max + 1);
	}
}

/* Before an atom: maybe give the wrong one first (then the Mispredict),
 * or atoms that never happened (then their cancel). Returns the atom to
 * add (the wrong one when a mispredict follows it). */
int enc_spec_atom(struct trawl_ete_encoder *e, int taken, int *mispredict)
{
	uint32_t max = e->o.speculate, r;
	*mispredict = 0;
	if (!max || e->spec + 1 > max)
		return taken;
	r = spec_rand(e) % 16;
	if (r == 0) {
		*mispredict = 1;
		return !taken;
	}
	if (r == 1 && e->spec + 2 <= max) {
		uint32_t k = 1 + spec_rand(e) % 3;
		if (e->spec + k + 1 > max)
			k = max - e->spec - 1;
		if (k) {
			for (uint32_t i = 0; i < k; i++)
				enc_atom_raw(e, spec_rand(e) & 1);
			enc_atoms_flush(e);
			put_count(e, 0x2E, k);
			e->stats.cancels++;
		}
	}
	return taken;
}

void enc_spec_mispredict(struct trawl_ete_encoder *e)
{
	static const uint8_t m = 0x30;
	enc_atoms_flush(e);
	enc_put(e, &m, 1);
	e->stats.mispredicts++;
}
