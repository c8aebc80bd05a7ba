/* Removing what killed builds left behind (see build.c). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "index/spool.h"

/* Temporary files PATH.tmpPID of builds whose process is gone (killed):
 * nothing else would ever remove them. */
void idx_remove_stale_tmp(const char *dir, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t bl = strlen(base);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name, *q;
		if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp", 4) != 0)
			continue;
		long pid = 0;
		for (q = n + bl + 4; *q >= '0' && *q <= '9' && pid < (1L << 30); q++)
			pid = pid * 10 + (*q - '0');
		if (*q || q == n + bl + 4 || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char full[4096];
		if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, n) < sizeof full)
			unlink(full);
	}
	closedir(d);
}
