/* What the two definitions readers (.tdef in defs.c, JSON in defs-json.c)
 * share, so both refuse the same names. */
#ifndef TRAWL_EVENTS_DEFS_INT_H
#define TRAWL_EVENTS_DEFS_INT_H

/* A C, C++ or CTF keyword, which would break the generated header or the
 * trace's metadata as a name. */
int defs_name_reserved(const char *s);

#endif
