#!/bin/sh
# compare-calls.sh REF NEW: run two trawl binaries over the same traces and
# require byte-identical output (stdout and stderr) from every call command:
# calltree (with --debug=calls), profile (plain, --json, --csv), flamegraph,
# callinfo, export --perfetto, and --use-index runs. For checking that a
# change to the call detector (lib/analysis/calls.c, branch.c, regval.c)
# changes no decision: REF is the binary built before the change. Not a
# test (it needs the old binary); not run by `make bench` either.
#
# Traces: the Tarmac corpus ($TRAWL_CORPUS or ../shared/corpus, with the
# matching ELF when there is one), the examples emulated by `trawl emulate`
# (recurse, sort, checksum, simd, faults) and any extra TRACE[:ELF] given
# in $COMPARE_EXTRA (space-separated).
set -u
ref=${1:?usage: compare-calls.sh REF NEW}
new=${2:?usage: compare-calls.sh REF NEW}
build=${TRAWL_BUILD:-build}
corpus=${TRAWL_CORPUS:-../shared/corpus}
out=${COMPARE_OUT:-bench/out/compare-calls}
mkdir -p "$out/ref" "$out/new" "$out/traces"
export TRAWL_NO_PROGRESS=1

# traces as TRACE:ELF (ELF may be empty)
set --
c=$corpus/tarmac
for t in "$c"/*.tarmac "$c"/calltests/*.tarmac; do
	[ -f "$t" ] || continue
	e=${t%.tarmac}.elf
	case $t in *calculator*) e=$c/calculator-aarch64.elf ;; esac
	[ -f "$e" ] || e=
	set -- "$@" "$t:$e"
done
for p in recurse:8 sort:300 checksum:2000 simd: faults:; do
	name=${p%%:*} arg=${p#*:}
	exe=$build/examples/$name
	[ -x "$exe" ] || continue
	t=$out/traces/$name.tarmac
	if [ ! -s "$t" ]; then
		"$new" emulate "$exe" -n 300000 -o "$t" -- $arg >/dev/null 2>&1 || true
	fi
	[ -s "$t" ] && set -- "$@" "$t:$exe"
done
for x in ${COMPARE_EXTRA:-}; do
	set -- "$@" "$x"
done

fails=0 runs=0
# check NAME ARGS...: run both binaries, compare stdout+stderr and status
check() {
	name=$1; shift
	runs=$((runs + 1))
	"$ref" "$@" >"$out/ref/$name.out" 2>"$out/ref/$name.err"; rs=$?
	"$new" "$@" >"$out/new/$name.out" 2>"$out/new/$name.err"; ns=$?
	if [ $rs -ne $ns ] || ! cmp -s "$out/ref/$name.out" "$out/new/$name.out" ||
	   ! cmp -s "$out/ref/$name.err" "$out/new/$name.err"; then
		echo "DIFFERS: $name: trawl $*"
		fails=$((fails + 1))
	fi
}

for te in "$@"; do
	t=${te%%:*} e=${te#*:}
	b=$(basename "$t" .tarmac)
	img=
	[ -n "$e" ] && img="--image $e"
	# --use-index writes an index beside the trace: use a copy per binary
	for w in ref new; do cp "$t" "$out/$w/$b.tarmac"; done
	check "$b.calltree" calltree $img --debug=calls "$t"
	check "$b.profile" profile $img "$t"
	check "$b.profile-json" profile $img --json "$t"
	check "$b.profile-csv" profile $img --csv --sort=self "$t"
	check "$b.flamegraph" flamegraph $img "$t"
	check "$b.perfetto" export --perfetto $img --timestamps "$t"
	check "$b.parse-all" calltree $img --parse-all "$t"
	# callinfo on the three functions with the most calls
	funcs=$("$new" profile $img --csv --sort=calls "$t" 2>/dev/null |
		awk -F, 'NR > 1 && NR <= 4 { print $1 }')
	[ -n "$funcs" ] && check "$b.callinfo" callinfo $img "$t" $funcs
	runs=$((runs + 1))
	"$ref" calltree $img --use-index --debug=calls "$out/ref/$b.tarmac" >"$out/ref/$b.index.out" 2>"$out/ref/$b.index.err"
	"$new" calltree $img --use-index --debug=calls "$out/new/$b.tarmac" >"$out/new/$b.index.out" 2>"$out/new/$b.index.err"
	sed -i "s#$out/ref/#X/#g; s#$out/new/#X/#g" "$out/ref/$b.index.err" "$out/new/$b.index.err"
	if ! cmp -s "$out/ref/$b.index.out" "$out/new/$b.index.out" ||
	   ! cmp -s "$out/ref/$b.index.err" "$out/new/$b.index.err"; then
		echo "DIFFERS: $b.index: calltree --use-index $t"
		fails=$((fails + 1))
	fi
done
echo "compare-calls: $runs runs over $# traces, $fails differ"
[ $fails -eq 0 ]
