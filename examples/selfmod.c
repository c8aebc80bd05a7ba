/* A program that rewrites its own code, for trawl emulate's decode cache:
 * a function of one instruction and a RET, in a page mapped writable and
 * executable, is called three times, its first instruction rewritten
 * before each call (mov w0, #7, then #14, then #21), so the same PC runs
 * three different instructions. A JIT or a patching loader does this.
 *
 *   selfmod        prints each call's result; exit status 0 when they add
 *                  up to 42
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

typedef int (*fn_t)(void);

/* MOVZ W0, #imm */
static uint32_t mov_w0(unsigned imm)
{
	return UINT32_C(0x52800000) | (imm << 5);
}

int main(void)
{
	uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	int sum = 0;
	for (unsigned round = 1; round <= 3; round++) {
		code[0] = mov_w0(7 * round);
		code[1] = UINT32_C(0xd65f03c0); /* ret */
		__builtin___clear_cache((char *)code, (char *)(code + 2));
		int r = ((fn_t)(uintptr_t)code)();
		printf("round %u: %d\n", round, r);
		sum += r;
	}
	return sum == 42 ? 0 : 1;
}
