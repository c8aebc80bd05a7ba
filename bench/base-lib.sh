# Shared by the benches that run the previous binary beside this one
# (source it with $src set): bench_base OUT TARGETS... sets $base to the
# trawl of $TRAWL_BENCH_BASE, either a binary (a path to an executable) or
# a git revision (default: where this branch left main), compiled once per
# commit and list of cmake TARGETS into OUT/base-build; empty when it
# cannot be had (the bench then runs without a baseline and says so).
bench_base() {
	bo=$1
	shift
	base_ref=${TRAWL_BENCH_BASE:-$(git -C "$src" merge-base HEAD main 2>/dev/null || echo main)}
	if [ -f "$base_ref" ] && [ -x "$base_ref" ]; then
		base=$base_ref
		return
	fi
	base_commit=$(git -C "$src" rev-parse "$base_ref" 2>/dev/null) || base_commit=
	base_key="$base_commit $*"
	base="$bo/base-build/trawl"
	if [ -n "$base_commit" ] && [ "$(cat "$bo/base-build/commit" 2>/dev/null)" != "$base_key" ]; then
		rm -rf "$bo/base-src" "$bo/base-build"
		mkdir -p "$bo/base-src" "$bo/base-build"
		git -C "$src" archive "$base_commit" | tar -x -C "$bo/base-src" &&
			cmake -S "$bo/base-src" -B "$bo/base-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
			cmake --build "$bo/base-build" --target "$@" -j2 >/dev/null 2>&1 && [ -x "$base" ] &&
			echo "$base_key" >"$bo/base-build/commit" || echo "baseline $base_ref did not build"
	fi
	[ -x "$base" ] || base=
}
