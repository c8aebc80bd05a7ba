/* The command table, one line per subcommand: TRAWL_COMMAND(name, function,
 * one-line summary). Each function lives in cmd-NAME.c and parses its own
 * options; `trawl help NAME` runs it with --help. Keep the list sorted. */
TRAWL_COMMAND("cat", cmd_cat, "print the events of a trace, one per line (text or JSON)")
TRAWL_COMMAND("stats", cmd_stats, "count lines, events, instructions and distinct PCs of a trace")
TRAWL_COMMAND("version", cmd_version, "print the version of trawl")
