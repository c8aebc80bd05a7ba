#!/bin/sh
# mmap of a file with MAP_SHARED (issue #17): the emulator copies a file's
# bytes into guest memory, so a shared writable mapping would silently be a
# private one (stores never reach the file: the program read back '' where
# Linux and QEMU give 'shared-write', exit status 0). It stops the run with
# a message naming the call instead, exit 1. Read-only shared mappings work,
# and the access checks are Linux's: a writable shared mapping of a file
# opened read-only, or any mapping of a write-only one, is EACCES.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "$cc not installed"
cat >"$_tmp/m.c" <<'EOC'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int rw = open("f.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (rw < 0 || pwrite(rw, "abcdefgh", 8, 0) != 8 || ftruncate(rw, 4096))
		return 2;
	int ro = open("f.bin", O_RDONLY), wo = open("f.bin", O_WRONLY);
	char *p = mmap(0, 4096, PROT_READ, MAP_SHARED, ro, 0);
	printf("shared read-only: %.8s\n", p == MAP_FAILED ? "failed" : p);
	errno = 0;
	p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	printf("shared writable of a read-only fd: %s errno %d\n", p == MAP_FAILED ? "failed" : "mapped", errno);
	errno = 0;
	p = mmap(0, 4096, PROT_READ, MAP_PRIVATE, wo, 0);
	printf("private of a write-only fd: %s errno %d\n", p == MAP_FAILED ? "failed" : "mapped", errno);
	p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	printf("private writable of a read-only fd: %s\n", p == MAP_FAILED ? "failed" : "mapped");
	fflush(stdout);
	if (argc < 2)
		return 0;
	p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
	if (p == MAP_FAILED)
		return 3;
	memcpy(p, "shared-write", 12);
	munmap(p, 4096);
	char b[16] = { 0 };
	pread(rw, b, 12, 0);
	printf("read back '%s'\n", b);
	return 0;
}
EOC
$cc -static -O1 -o "$_tmp/m" "$_tmp/m.c" || skip "cannot build the test program"
mkdir -p "$_tmp/r" "$_tmp/q"
cat >"$_tmp/want" <<'EOW'
shared read-only: abcdefgh
shared writable of a read-only fd: failed errno 13
private of a write-only fd: failed errno 13
private writable of a read-only fd: mapped
EOW
(cd "$_tmp/r" && "$TRAWL" emulate --root . "$_tmp/m" -o /dev/null >"$_tmp/t.out" 2>"$_tmp/t.err")
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(head -c 300 "$_tmp/t.err")"
diff -u "$_tmp/want" "$_tmp/t.out" || fail "the access checks differ from Linux's"
if command -v qemu-aarch64 >/dev/null; then
	(cd "$_tmp/q" && qemu-aarch64 "$_tmp/m" >"$_tmp/q.out" 2>&1)
	diff -u "$_tmp/q.out" "$_tmp/t.out" || fail "output differs from QEMU's"
fi
# a shared writable mapping of a file opened for writing: a clear stop
(cd "$_tmp/r" && "$TRAWL" emulate --root . "$_tmp/m" -o "$_tmp/t.tarmac" -- w >"$_tmp/t.out" 2>"$_tmp/t.err")
rc=$?
[ $rc = 1 ] || fail "shared writable mapping: exit $rc, expected 1: $(head -c 300 "$_tmp/t.err")"
grep -q "read back" "$_tmp/t.out" && fail "the program went on: $(cat "$_tmp/t.out")"
grep -q "mmap of fd [0-9]* shared and writable (MAP_SHARED with PROT_WRITE) is not emulated" "$_tmp/t.err" ||
	fail "no message naming the call: $(cat "$_tmp/t.err")"
grep -q "at pc 0x[0-9a-f]*, after [0-9]* instructions" "$_tmp/t.err" || fail "no pc in the message: $(cat "$_tmp/t.err")"
finish
