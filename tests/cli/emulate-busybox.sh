#!/bin/sh
# trawl emulate on a real program: Debian's static busybox for arm64 (a
# shell and core utilities in one binary, fetched by `make deps` into
# build-arm64/, see scripts/deps-arm64.sh). For each applet below, the
# standard output, standard error and exit status under trawl emulate must
# equal qemu-aarch64's, run on the same input files in the same environment.
# Everything runs in one process: pipes, command substitution and here-
# documents make busybox's shell fork, which trawl emulate does not do yet,
# so the shell case sticks to builtins (loops, functions, arithmetic, case,
# read, set, printf, test, cd).
. "$TRAWL_SRC/tests/cli-lib.sh"
bb=${TRAWL_ARM64_ROOT:-$TRAWL_SRC/build-arm64/root}/bin/busybox
[ -x "$bb" ] || skip "$bb missing (make deps fetches Debian's busybox-static:arm64)"
command -v qemu-aarch64 >/dev/null || skip "qemu-aarch64 not installed (qemu-user)"
command -v gzip >/dev/null || skip "gzip not installed"

cd "$_tmp" || exit 1
printf 'pear 3\napple 10\nfig 7\napple 10\nbanana 2\nkiwi 7\n' >in.txt
mkdir -p dir/sub
printf 'x\n' >dir/a
printf 'yy\nzz\n' >dir/b
touch -d '2020-01-02 03:04:05' dir/a dir/b dir/sub dir
gzip -9 -n -c in.txt >in.gz
n=0

# run NAME STDIN APPLET ARGS...: both emulators, then compare
run() {
	name=$1 input=$2
	shift 2
	n=$((n + 1))
	"$TRAWL" emulate -o "$_tmp/t.tarmac" "$bb" -- "$@" <"$input" >t.out 2>t.err
	trc=$?
	env -i PATH=/usr/bin:/bin LANG=C HOME=/ qemu-aarch64 "$bb" "$@" <"$input" >q.out 2>q.err
	qrc=$?
	[ $trc = $qrc ] || fail "$name: exit status $trc, qemu's $qrc; stderr: $(head -c 300 t.err)"
	cmp -s t.out q.out || fail "$name: stdout differs from qemu's: $(diff q.out t.out | head -10)"
	cmp -s t.err q.err || fail "$name: stderr differs from qemu's: $(diff q.err t.err | head -10)"
	[ -s t.out ] || [ -s t.err ] || [ $qrc != 0 ] || fail "$name: printed nothing, so compared nothing"
}

shell='for i in 1 2 3; do echo "loop $i"; done
f() { echo "f $1 $#"; return 3; }
f x y; echo "status $?"
x=$((6 * 7)); echo "x=$x"
case $x in 4*) echo forty-something;; *) echo other;; esac
while [ "$x" -gt 39 ]; do x=$((x - 1)); done; echo "down to $x"
set -- a "b c" d; echo "$# args: $2"
printf "%s-%03d|%x\n" pad 5 255
test -d dir && echo "dir is a directory"
[ -e nope ] || echo "nope is absent"
while read -r word count; do total=$((${total:-0} + count)); done; echo "total $total"
cd dir && echo "in ${PWD##*/}"; cd ..
v=hello; echo "${v%lo} ${#v} ${unset:-default} ${v#h}"
echo err >&2
exit 7'
run sh in.txt sh -c "$shell"
run sort in.txt sort
run sort-numeric in.txt sort -k2,2n -k1,1r
run sed in.txt sed -e 's/a/A/g' -e '2d' -e '/kiwi/s/$/!/'
run awk in.txt awk '{ n[$1] += $2 } END { for (k in n) s += n[k]; printf "%d %d %05.2f\n", s, NR, s / NR }'
run grep in.txt grep -n 'ap*le'
run grep-count in.txt grep -c -v e
run grep-none in.txt grep zzz
run tr in.txt tr 'a-z' 'A-Z'
run tr-delete in.txt tr -d '0-9\n'
run uniq in.txt uniq -c
run wc in.txt wc
run head in.txt head -n 2
run tail in.txt tail -n 2
run cut in.txt cut -d ' ' -f 2
run md5sum in.txt md5sum
run sha256sum /dev/null sha256sum in.txt dir/a
run sha1sum in.txt sha1sum
run gzip in.txt gzip -9 -n -c
run gunzip in.gz gunzip -c
run bzip2 in.txt bzip2 -c
run ls /dev/null ls dir
run ls-long /dev/null ls -lan --full-time dir
run cat in.txt cat dir/a - dir/b
run cat-missing /dev/null cat dir/a nosuch
run expr /dev/null expr 6 \* 7 + 1
run expr-false /dev/null expr 1 = 2
run printf /dev/null printf '%x %o %s %5.1f\n' 255 8 abc 2.25
run seq /dev/null seq 1 3 20
run basename /dev/null basename /a/b/c.txt .txt
run dirname /dev/null dirname /a/b/c.txt
run od in.txt od -A x -t x1z
run find /dev/null find dir
run stat /dev/null stat -c '%s %n' dir/a dir/b
run tac in.txt tac
run nl in.txt nl
run rev in.txt rev
run date /dev/null date -u -d @86400
run false /dev/null false
echo "$n cases compared with qemu-aarch64"
finish
