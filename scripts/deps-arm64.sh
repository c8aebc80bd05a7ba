#!/bin/sh
# Fetch Debian's arm64 packages that the emulator tests run as real programs
# (deps/debian-arm64-packages.txt) and unpack them into build-arm64/ (ignored
# by git like every build*/ folder). The machine's package setup is not
# touched: apt reads arm64 package lists into a private folder
# (build-arm64/apt), dpkg's architectures and /var/lib/apt/lists stay as
# they were, and nothing is installed. Failing to fetch is not fatal: the
# tests that need the programs skip with a message.
#   sh scripts/deps-arm64.sh [DIR]     (default DIR: build-arm64 in the source)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/build-arm64}
list="$here/deps/debian-arm64-packages.txt"
pkgs=$(grep -v '^#' "$list")
stamp="$dir/fetched"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
	exit 0
fi
warn() { echo "trawl: deps: $* (the tests that run Debian's arm64 programs will skip)" >&2; exit 0; }
command -v apt-get >/dev/null || warn "apt-get not found"
command -v dpkg-deb >/dev/null || warn "dpkg-deb not found"
apt="$dir/apt"
rm -rf "$apt" "$dir/root"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$dir/root" || warn "cannot create $dir"
# the downloads are written by apt's unprivileged user when run as root
chmod 0755 "$dir" "$apt" "$apt/debs" 2>/dev/null
chown _apt "$apt/debs" "$apt/lists/partial" 2>/dev/null
set -- -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" \
	-o Debug::NoLocking=1
apt-get "$@" update >"$apt/update.log" 2>&1 ||
	warn "apt-get update for arm64 failed: $(tail -2 "$apt/update.log")"
for p in $pkgs; do
	(cd "$apt/debs" && apt-get "$@" download "$p:arm64") >"$apt/download.log" 2>&1 ||
		warn "apt-get download $p:arm64 failed: $(tail -2 "$apt/download.log")"
done
for deb in "$apt"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root" || warn "dpkg-deb -x $deb failed"
done
# the lists are large and only needed for this download
rm -rf "$apt/lists" "$apt/cache"
echo "$pkgs" >"$stamp"
echo "trawl: deps: unpacked arm64 packages into $dir/root:" $pkgs >&2
