# Hand-built ETE snapshots for the CLI tests (sourced by ete-snap-lib.sh and
# ete-reader.sh).

# mksnap DIR TRACEHEX CODEHEX TRCIDR8: snapshot with one ETE source (trace
# ID 0x10, TRCIDR0 0x28000ea1, no return stack; cycle counting when $cci
# is 1) and the program at 0x1000
mksnap() {
	mkdir -p "$1"
	printf '%s' "$2" | xxd -r -p >"$1/trace.bin"
	printf '%s' "$3" | xxd -r -p >"$1/code.bin"
	printf '[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\ndevice1=ETE_0.ini\n\n[trace]\nmetadata=trace.ini\n' >"$1/snapshot.ini"
	printf '[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\nfile=trace.bin\nformat=source_data\n\n[source_buffers]\nETE_0=ETB_0\n\n[core_trace_sources]\ncpu_0=ETE_0\n' >"$1/trace.ini"
	if [ "${etm4:-}" = 1 ]; then # an ETMv4.3 (Cortex-A57-like) source instead
		printf '[device]\nname=ETE_0\nclass=trace_source\ntype=ETM4.1\n\n[regs]\nTRCCONFIGR=0x1\nTRCTRACEIDR=0x10\nTRCIDR0=0x08000ca1\nTRCIDR1=0x4100f403\nTRCIDR2=0x00000088\nTRCIDR8=%s\n' "$4"
	else
		printf '[device]\nname=ETE_0\nclass=trace_source\ntype=ETE\n\n[regs]\nTRCCONFIGR=%s\nTRCTRACEIDR=0x10\nTRCDEVARCH=0x47705a13\nTRCIDR0=0x28000ea1\nTRCIDR1=0x4100fff0\nTRCIDR2=0x00000088\nTRCIDR8=%s\n' "$([ "${cci:-}" = 1 ] && echo 0x11 || echo 0x1)" "$4"
	fi >"$1/ETE_0.ini"
	printf '[device]\nname=cpu_0\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=0x0\n\n[dump1]\nfile=code.bin\naddress=0x00001000\nlength=0x%x\n' \
		"$(stat -c %s "$1/code.bin")" >"$1/cpu_0.ini"
}

# mksnap_second DIR TRACEHEX CORE [ORDER]: add to mksnap's snapshot a second
# ETE source ETE_1 (trace ID 0x11, tracing core CORE: cpu_0 or cpu_1) whose
# buffer ETB_1 (trace1.bin) holds TRACEHEX; trace.ini lists the buffers in
# ORDER (default buffer0,buffer1)
mksnap_second() {
	printf '%s' "$2" | xxd -r -p >"$1/trace1.bin"
	sed 's/ETE_0/ETE_1/; s/TRCTRACEIDR=0x10/TRCTRACEIDR=0x11/' "$1/ETE_0.ini" >"$1/ETE_1.ini"
	sed -i 's/^device1=ETE_0.ini$/&\ndevice2=ETE_1.ini/' "$1/snapshot.ini"
	printf '[trace_buffers]\nbuffers=%s\n\n' "${4:-buffer0,buffer1}" >"$1/trace.ini"
	printf '[buffer0]\nname=ETB_0\nfile=trace.bin\nformat=source_data\n\n' >>"$1/trace.ini"
	printf '[buffer1]\nname=ETB_1\nfile=trace1.bin\nformat=source_data\n\n' >>"$1/trace.ini"
	printf '[source_buffers]\nETE_0=ETB_0\nETE_1=ETB_1\n\n' >>"$1/trace.ini"
	printf '[core_trace_sources]\ncpu_0=ETE_0\n%s=ETE_1\n' "$3" >>"$1/trace.ini"
}
