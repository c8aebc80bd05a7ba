#!/bin/sh
# /proc/self/fd/N in the program names its own descriptor N: readlink gave
# the host's descriptor N, trawl's own (the trace file it was writing, for
# one), and open() opened that file for the program to read. A descriptor
# the program has not open is ENOENT, as on Linux. Checked against QEMU.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "$cc not installed"
cat >"$_tmp/f.c" <<'EOC'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY);
	char p[64], b[512] = { 0 }, c[16] = { 0 };
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, b, sizeof b - 1);
	printf("readlink of its fd: %s\n", n > 0 && !strcmp(b, argv[1]) ? "the file opened" : b);
	int fd2 = open(p, O_RDONLY);
	printf("open of it reads: %.5s\n", fd2 >= 0 && read(fd2, c, 5) == 5 ? c : "nothing");
	errno = 0;
	printf("fd 40: %zd errno %d\n", readlink("/proc/self/fd/40", b, sizeof b), errno);
	errno = 0;
	printf("open fd 40: %d errno %d\n", open("/proc/self/fd/40", O_RDONLY), errno);
	return 0;
}
EOC
$cc -static -O1 -o "$_tmp/f" "$_tmp/f.c" || skip "cannot build the test program"
printf 'hello world\n' >"$_tmp/in.txt"
cat >"$_tmp/want" <<'EOW'
readlink of its fd: the file opened
open of it reads: hello
fd 40: -1 errno 2
open fd 40: -1 errno 2
EOW
"$TRAWL" emulate "$_tmp/f" -o "$_tmp/t.tarmac" -- "$_tmp/in.txt" >"$_tmp/t.out" 2>"$_tmp/t.err" </dev/null
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(cat "$_tmp/t.err")"
diff -u "$_tmp/want" "$_tmp/t.out" || fail "/proc/self/fd is not the program's"
if command -v qemu-aarch64 >/dev/null; then
	qemu-aarch64 "$_tmp/f" "$_tmp/in.txt" >"$_tmp/q.out" 2>&1 </dev/null
	diff -u "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's"
fi
finish
