/* Fuzz harness for the emulator's load/store decoder (lib/emu/memop.c):
 * every 4 input bytes are an encoding; whatever it is, the decode must
 * describe accesses the emulator can hold (EMU_MAX_MEM pieces per
 * instruction, registers 0-31, sizes it formats). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/memop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off + 4 <= size; off += 4) {
		uint32_t enc;
		memcpy(&enc, data + off, 4);
		struct emu_memop m;
		emu_memop_decode(enc, &m);
		if (m.cls > EMU_MEM_VEC || m.mode > EMU_ADDR_LIT || m.base > 31 || m.rm > 31 ||
		    m.rt > 31 || m.rt2 > 31 || m.status > 32)
			abort();
		if (m.cls == EMU_MEM_GPR &&
		    (m.nregs < 1 || m.nregs > 2 || (m.size != 1 && m.size != 2 && m.size != 4 && m.size != 8)))
			abort();
		if (m.cls == EMU_MEM_VEC && (m.size == 0 || m.size > 64))
			abort();
		if (m.mode == EMU_ADDR_REG && m.shift > 4)
			abort();
		/* not in the load/store space: no access at all */
		if ((enc & 0x0a000000) != 0x08000000 && m.cls != EMU_MEM_NONE)
			abort();
	}
	return 0;
}
