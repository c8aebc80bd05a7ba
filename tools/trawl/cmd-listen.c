#include "cli.h"
int cmd_listen(int argc, char **argv) { (void)argc; (void)argv; return 0; }
