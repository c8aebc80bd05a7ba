/* The command table, one line per subcommand: TRAWL_COMMAND(name, function,
 * one-line summary). Each function lives in cmd-NAME.c and parses its own
 * options; `trawl help NAME` runs it with --help. Keep the list sorted. */
TRAWL_COMMAND("browse", cmd_browse, "browse a trace in time on the terminal (registers, memory, jumps)")
TRAWL_COMMAND("cat", cmd_cat, "print the events of a trace, one per line (text or JSON)")
TRAWL_COMMAND("changes", cmd_changes, "registers and memory that differ between two lines")
TRAWL_COMMAND("emulate", cmd_emulate, "run a static AArch64 program and write its Tarmac trace")
TRAWL_COMMAND("index", cmd_index, "build the time-travel index of a trace")
TRAWL_COMMAND("info", cmd_info, "describe the index of a trace")
TRAWL_COMMAND("last-write", cmd_last_write, "the line that last wrote a register or memory range")
TRAWL_COMMAND("mem", cmd_mem, "memory at a line of a trace (hexdump, ?? = unknown)")
TRAWL_COMMAND("next-write", cmd_next_write, "the line that next writes a register or memory range")
TRAWL_COMMAND("pc", cmd_pc, "every visit of an instruction address")
TRAWL_COMMAND("regs", cmd_regs, "registers at a line (or time) of a trace")
TRAWL_COMMAND("stats", cmd_stats, "count lines, events, instructions and distinct PCs of a trace")
TRAWL_COMMAND("version", cmd_version, "print the version of trawl")
