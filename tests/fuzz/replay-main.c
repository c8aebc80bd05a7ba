/* Replays every file of a fuzz corpus folder through a harness, so the
 * inputs libFuzzer found stay regression tests in ordinary builds. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), f) : 0;
	fclose(f);
	if (!buf)
		return 0;
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	int count = 0;
	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d) {
			count += replay(argv[i]);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			count += replay(path);
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", count);
	return 0;
}
