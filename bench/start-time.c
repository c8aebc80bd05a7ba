/* Start-up time of whole processes: runs several commands in turn (A B C A
 * B C ...) N times each, output to /dev/null, and prints each one's median
 * and 10th/90th percentile wall time, so that the commands share the
 * machine's slow and fast moments alike.
 *
 *   bench-start-time N CMD_A... -- CMD_B... [-- CMD_C...]
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double run(char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	double t0 = now();
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		fprintf(stderr, "cannot run %s\n", argv[0]);
		exit(1);
	}
	int st;
	waitpid(pid, &st, 0);
	double t = now() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "%s failed (status %d)\n", argv[0], st);
		exit(1);
	}
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-start-time N CMD... [-- CMD...]...\n");
		return 2;
	}
	int n = atoi(argv[1]), ncmd = 0;
	char **cmds[8];
	cmds[ncmd++] = argv + 2;
	for (int i = 2; i < argc && ncmd < 8; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = NULL;
			cmds[ncmd++] = argv + i + 1;
		}
	}
	double *t = calloc((size_t)(n * ncmd), sizeof *t);
	for (int c = 0; c < ncmd; c++)
		run(cmds[c]); /* warm the page cache */
	for (int r = 0; r < n; r++)
		for (int c = 0; c < ncmd; c++)
			t[c * n + r] = run(cmds[c]);
	for (int c = 0; c < ncmd; c++) {
		qsort(t + c * n, (size_t)n, sizeof *t, cmp);
		printf("%d %.3f %.3f %.3f\n", c, t[c * n + n / 2] * 1e3, t[c * n + n / 10] * 1e3,
		       t[c * n + (n * 9) / 10] * 1e3);
	}
	free(t);
	return 0;
}
