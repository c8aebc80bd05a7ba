/* The command table, one line per subcommand: TRAWL_COMMAND(name, function,
 * one-line summary). Each function lives in cmd-NAME.c and parses its own
 * options; `trawl help NAME` runs it with --help. Keep the list sorted. */
TRAWL_COMMAND("callinfo", cmd_callinfo, "list every call to some functions, with time, line and caller")
TRAWL_COMMAND("calltree", cmd_calltree, "print the call hierarchy of a trace with lines, times and instruction counts")
TRAWL_COMMAND("cat", cmd_cat, "print the events of a trace, one per line (text or JSON)")
TRAWL_COMMAND("emulate", cmd_emulate, "run a static AArch64 program and write its Tarmac trace")
TRAWL_COMMAND("export", cmd_export, "export the call structure as Chrome Trace Event JSON for Perfetto")
TRAWL_COMMAND("flamegraph", cmd_flamegraph, "folded call stacks, or an interactive SVG flame graph")
TRAWL_COMMAND("profile", cmd_profile, "calls, inclusive and exclusive instructions and time per function")
TRAWL_COMMAND("stats", cmd_stats, "count lines, events, instructions and distinct PCs of a trace")
TRAWL_COMMAND("truncate", cmd_truncate, "copy a trace up to where execution got stuck in a loop")
TRAWL_COMMAND("vcd", cmd_vcd, "write a trace as a VCD waveform: PC, registers, function, memory accesses")
TRAWL_COMMAND("version", cmd_version, "print the version of trawl")
