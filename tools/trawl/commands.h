/* The command table, one line per subcommand: TRAWL_COMMAND(name, function,
 * one-line summary). Each function lives in cmd-NAME.c and parses its own
 * options; `trawl help NAME` runs it with --help. Keep the list sorted. */
TRAWL_COMMAND("ete", cmd_ete, "decode ETE/ETMv4 trace: packets, instruction flow, Tarmac")
TRAWL_COMMAND("version", cmd_version, "print the version of trawl")
