/* The command table, one line per subcommand: TRAWL_COMMAND(name, function,
 * one-line summary). Each function lives in cmd-NAME.c and parses its own
 * options; `trawl help NAME` runs it with --help. Keep the list sorted. */
TRAWL_COMMAND("defs", cmd_defs, "compile software event definitions to a C header, CTF and JSON")
TRAWL_COMMAND("events", cmd_events, "list, count or import recorded software events")
TRAWL_COMMAND("listen", cmd_listen, "receive streamed software events and write a trace")
TRAWL_COMMAND("version", cmd_version, "print the version of trawl")
