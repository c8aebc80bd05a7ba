#!/bin/sh
# /proc/self/maps read by the program lists the program's own memory (its
# segments, heap, mappings, stack), as Linux and QEMU show it, not the
# emulator's: it was trawl's own file, so glibc's pthread_getattr_np on
# the main thread (which looks for its stack there) failed with ENOENT
# where QEMU gives 0, and the program saw trawl's and Unicorn's mappings.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "$cc not installed"
cat >"$_tmp/m.c" <<'EOC'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
int main(void)
{
	pthread_attr_t a;
	void *addr;
	size_t sz;
	int r = pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &sz);
	int local;
	char *l = (char *)&local;
	printf("getattr %d, local inside the stack %d\n", r, l >= (char *)addr && l < (char *)addr + sz);
	char *m = mmap(0, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int host = 0, stack = 0, mapped = 0, code = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			return 2;
		host += strstr(line, "trawl") != NULL || strstr(line, "unicorn") != NULL;
		stack += strstr(line, "[stack]") != NULL && (unsigned long)l >= lo && (unsigned long)l < hi;
		mapped += (unsigned long)m >= lo && (unsigned long)m + 3 * 4096 <= hi && perms[0] == 'r' && perms[1] == '-';
		code += (unsigned long)main >= lo && (unsigned long)main < hi && perms[2] == 'x';
	}
	printf("host lines %d, stack %d, the mapping %d, main's code %d\n", host, stack, mapped, code);
	return 0;
}
EOC
$cc -static -O1 -pthread -o "$_tmp/m" "$_tmp/m.c" || skip "cannot build the test program"
printf 'getattr 0, local inside the stack 1\nhost lines 0, stack 1, the mapping 1, main'"'"'s code 1\n' >"$_tmp/want"
"$TRAWL" emulate "$_tmp/m" -o /dev/null >"$_tmp/t.out" 2>"$_tmp/t.err"
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(cat "$_tmp/t.err")"
diff -u "$_tmp/want" "$_tmp/t.out" || fail "/proc/self/maps is not the program's"
if command -v qemu-aarch64 >/dev/null; then
	qemu-aarch64 "$_tmp/m" >"$_tmp/q.out" 2>&1
	diff -u "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's"
fi
finish
