#!/bin/sh
# Runs each libFuzzer harness in BUILD for a share of SECONDS, starting from
# the saved corpus (tests/fuzz/corpus/NAME) and never writing into it.
set -u
build=$1 seconds=$2
n=$(ls "$build"/fuzz-* 2>/dev/null | grep -c .)
[ "$n" -gt 0 ] || { echo "no fuzzers built"; exit 0; }
each=$((seconds / n)); [ "$each" -ge 5 ] || each=5
status=0
for f in "$build"/fuzz-*; do
	[ -x "$f" ] || continue
	name=$(basename "$f" | sed 's/^fuzz-//')
	work=$(mktemp -d)
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/" 2>/dev/null
	echo "fuzz $name: ${each}s"
	if ! "$f" -max_total_time="$each" -max_len=65536 -rss_limit_mb=2048 \
		-artifact_prefix="$build/crash-$name-" "$work" >"$build/fuzz-$name.log" 2>&1; then
		echo "fuzz $name FAILED: see $build/fuzz-$name.log"
		tail -30 "$build/fuzz-$name.log"
		status=1
	fi
	rm -rf "$work"
done
exit $status
