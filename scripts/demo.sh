#!/bin/sh
# make demo: show trawl's main job on a real trace, step by step.
set -eu
build=${1:-build}
T="$PWD/$build/trawl"
echo "== trawl $("$T" --version)"
"$T" --help
# recorded software events: an instrumented program, its trace, two readers
if [ -x "$PWD/$build/rec/rec-demo/rec-demo" ]; then
	sh scripts/demo-rec.sh "$build"
fi
