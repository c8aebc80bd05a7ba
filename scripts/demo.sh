#!/bin/sh
# make demo: show trawl's main job on a real trace, step by step.
set -eu
build=${1:-build}
T="$PWD/$build/trawl"
echo "== trawl $("$T" --version)"
"$T" --help
