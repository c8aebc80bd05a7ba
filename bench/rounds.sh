# Sourced by bench scripts. bench_rounds TAG RESULTS NAME=CMD...: ${RUNS:-5}
# rounds, each running every command once in turn, so a slow minute (other
# tenants of the machine slow single runs by up to 1.7x) costs every command
# alike; then per command one line "NAME best-wall-s cpu-s-of-that-run
# peak-rss-KiB" appended to RESULTS. Needs $out (a scratch folder); TAG
# names the script in errors.
bench_rounds() {
	tag=$1 results=$2
	shift 2
	: >"$out/$tag-runs.txt"
	for i in $(seq "${RUNS:-5}"); do
		for spec in "$@"; do
			# shellcheck disable=SC2086 # the command is split into words
			/usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" ${spec#*=} >/dev/null 2>"$out/err.txt" ||
				{ echo "$tag: '${spec#*=}' failed: $(head -3 "$out/err.txt")"; return 1; }
			awk -v name="${spec%%=*}" '{ print name, $1, $2 + $3, $4 }' "$out/time.txt" >>"$out/$tag-runs.txt"
		done
	done
	awk '!($1 in best) { order[++k] = $1 }
	     !($1 in best) || $2 < best[$1] { best[$1] = $2; cpu[$1] = $3 }
	     $4 > rss[$1] { rss[$1] = $4 }
	     END { for (i = 1; i <= k; i++) print order[i], best[order[i]], cpu[order[i]], rss[order[i]] }' \
		"$out/$tag-runs.txt" >>"$results"
}
