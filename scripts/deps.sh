#!/bin/sh
# Install the Debian packages trawl needs (deps/debian-packages.txt) that are
# missing. As root it runs apt-get; otherwise it prints the command and fails.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
list="$here/deps/debian-packages.txt"
missing=""
for p in $(grep -v '^#' "$list"); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	sh "$here/scripts/deps-arm64.sh"
	exit 0
fi
echo "trawl: missing Debian packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
	sh "$here/scripts/deps-arm64.sh"
else
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
