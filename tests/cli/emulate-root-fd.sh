#!/bin/sh
# With --root DIR, a change through a descriptor opened outside DIR
# (fchmod, fchown, ftruncate of a host file opened read-only) is refused
# with EROFS and the host file is untouched. The warning said "Give --root
# DIR to let it write under DIR" although --root was given, which sent the
# user looking for a missing option; it names the cause instead.
. "$TRAWL_SRC/tests/cli-lib.sh"
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "$cc not installed"
cat >"$_tmp/f.c" <<'EOC'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY);
	errno = 0;
	printf("fchmod %d errno %d\n", fchmod(fd, 0600), errno);
	errno = 0;
	printf("fchown %d errno %d\n", fchown(fd, 1000, 1000), errno);
	return 0;
}
EOC
$cc -static -O1 -o "$_tmp/f" "$_tmp/f.c" || skip "cannot build the test program"
mkdir -p "$_tmp/root"
printf 'keep\n' >"$_tmp/host.txt"
chmod 644 "$_tmp/host.txt"
"$TRAWL" emulate --root "$_tmp/root" "$_tmp/f" -o /dev/null -- "$_tmp/host.txt" >"$_tmp/t.out" 2>"$_tmp/t.err"
rc=$?
[ $rc = 0 ] || fail "emulate exited $rc: $(cat "$_tmp/t.err")"
printf 'fchmod -1 errno 30\nfchown -1 errno 30\n' | diff -u - "$_tmp/t.out" || fail "not refused with EROFS"
[ "$(stat -c %a "$_tmp/host.txt")" = 644 ] || fail "the host file's mode changed"
grep -q "Give --root" "$_tmp/t.err" && fail "the warning asks for the --root that was given: $(cat "$_tmp/t.err")"
grep -q "changes to files not opened through --root were refused (EROFS), 2 times; the first: fchmod 'fd 3'" "$_tmp/t.err" ||
	fail "the warning does not name the cause: $(cat "$_tmp/t.err")"
finish
