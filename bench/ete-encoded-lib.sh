# Shared by bench-ete-encoded.sh and bench-ete-perf.sh (source it): the
# encoder-made ETE input, one snapshot per program from long runs of
# several example programs, about ETE_BENCH_ENC_MB megabytes in all
# (default 105, so that the densities' spread still gives 100), with
# timestamps and cycle counts on, as a perf session would configure them.
ex=$TRAWL_BUILD/examples
ete_enc_mb=${ETE_BENCH_ENC_MB:-105}
# program, its arguments, its share of the bytes (percent) and its density
# in bytes per instruction with these options (measured; -n comes from it)
ete_enc_runs="exceptions 100000 52 0.19
recurse 24 40 0.149
sort 5000000 8 0.06"

# 0 when the examples and the emulator are there to make the input
ete_enc_usable() {
	[ -x "$ex/exceptions" ] && "$TRAWL" emulate --help >/dev/null 2>&1
}

# ete_enc_make DIR PROG ARG SHARE DENS: DIR/PROG becomes the program's
# snapshot; sets ete_enc_bytes and ete_enc_insns and prints an input line
ete_enc_make() {
	d="$1/$2"
	n=$(awk -v m="$ete_enc_mb" -v s="$4" -v x="$5" 'BEGIN { printf "%d", m * 1e6 * s / 100 / x }')
	/usr/bin/time -f "%e" -o "$1/gen.time" "$TRAWL" emulate -n "$n" --ete "$d" --timestamps \
		--cycle-counts "$ex/$2" -- "$3" >/dev/null 2>"$1/gen.log" </dev/null
	ete_enc_bytes=$(stat -c %s "$d/trace.bin")
	ete_enc_insns=$(sed -n 's/.*: \([0-9]*\) instructions, .*/\1/p' "$1/gen.log")
	echo "input: $2 $3: $ete_enc_insns instructions, $ete_enc_bytes bytes of ETE (made in $(cat "$1/gen.time") s)"
}
