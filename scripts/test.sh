#!/bin/sh
# Runs every test: CTest in the plain and the ASan/UBSan builds, then each
# libFuzzer harness for a bounded time when clang is available. Ends with one
# summary line "N passed, N failed".
set -u
build=$1 asan=$2 fuzz=$3
passed=0 failed=0

run_ctest() {
	dir=$1
	echo "== ctest in $dir"
	log=$(mktemp)
	ctest --test-dir "$dir" --output-on-failure -j "${JOBS:-2}" 2>&1 | tee "$log"
	p=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$log" | tail -1)
	rm -f "$log"
	if [ -z "$p" ]; then failed=$((failed + 1)); return; fi
	set -- $p
	passed=$((passed + $1 - $2)); failed=$((failed + $2))
}

run_ctest "$build"
TRAWL_ASAN=1 run_ctest "$asan"

if [ -z "$(ls tests/fuzz/fuzz-*.c 2>/dev/null)" ]; then
	echo "== fuzzing skipped: no harnesses"
elif command -v clang >/dev/null 2>&1; then
	echo "== fuzzing (bounded)"
	if make -s build-fuzz FUZZ_BUILD="$fuzz" >/dev/null 2>&1 || make build-fuzz FUZZ_BUILD="$fuzz"; then
		if sh scripts/fuzz.sh "$fuzz" "${FUZZ_SECONDS:-30}"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	else
		echo "fuzz build failed"; failed=$((failed + 1))
	fi
else
	echo "== fuzzing skipped: clang not found"
fi

echo "test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
