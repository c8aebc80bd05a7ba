/* Recorder buffer files (.ring-N) as trawl events recovers them: input =
 * the file. One class is defined (t:SEQ), so both the defined and the
 * made-up class paths run; the clock bound is off (no boot id). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events/ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_sw_class *seq = calloc(1, sizeof *seq);
	if (!seq)
		return 0;
	seq->id = 1u << 16;
	strcpy(seq->name, "t:SEQ");
	seq->nfields = 1;
	strcpy(seq->fields[0].name, "seq");
	seq->fields[0].type = TRAWL_SW_U32;
	struct ring_classes cs = { .v = seq, .n = 1 };
	/* a stream file long enough for any journal, and one that is empty */
	for (int pass = 0; pass < 2; pass++) {
		struct ring_stream st = { .size = pass ? 0 : 1u << 20, .last_ts = 12345 };
		struct ring_out out;
		struct trawl_error err;
		ring_recover(data, size, "ring", &st, &cs, NULL, &out, &err);
		ring_out_release(&out);
	}
	free(cs.v);
	free(cs.made);
	return 0;
}
