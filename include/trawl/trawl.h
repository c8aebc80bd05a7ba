/* libtrawl: everything in one include. */
#ifndef TRAWL_H
#define TRAWL_H

#include "trawl/status.h"
#include "trawl/reg.h"
#include "trawl/event.h"
#include "trawl/input.h"
#include "trawl/file.h"
#include "trawl/json.h"
#include "trawl/reader.h"
#include "trawl/image.h"
#include "trawl/calls.h"
#include "trawl/vcd.h"
#include "trawl/stuck.h"
#include "trawl/index.h"
#include "trawl/tarmac.h"
#include "trawl/ete.h"
#include "trawl/emu.h"
#include "trawl/expr.h"
#include "trawl/callhop.h"
#include "trawl/swevents.h"

#define TRAWL_VERSION "0.1.0"

#endif
