/* Reading a whole file: regular files, pipes, empty files, and the errors
 * (missing, a directory) naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trawl/file.h"

static char dir[] = "/tmp/trawl-test-file-XXXXXX";

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void regular_and_empty(void **state)
{
	(void)state;
	char path[128];
	uint8_t *data;
	size_t len;
	/* bigger than the first buffer guess of a pipe, with NULs inside */
	size_t n = 300000;
	uint8_t *want = malloc(n);
	for (size_t i = 0; i < n; i++)
		want[i] = (uint8_t)(i * 7 + (i >> 9));
	snprintf(path, sizeof path, "%s/big", dir);
	write_file(path, want, n);
	assert_int_equal(trawl_file_read(path, &data, &len, NULL), TRAWL_OK);
	assert_int_equal(len, n);
	assert_memory_equal(data, want, n);
	assert_int_equal(data[len], 0); /* terminated for text parsers */
	free(data);
	snprintf(path, sizeof path, "%s/empty", dir);
	write_file(path, "", 0);
	assert_int_equal(trawl_file_read(path, &data, &len, NULL), TRAWL_OK);
	assert_int_equal(len, 0);
	assert_non_null(data);
	assert_int_equal(data[0], 0);
	free(data);
	free(want);
}

static void pipe_is_read_to_the_end(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		char line[64];
		for (int i = 0; i < 20000; i++) {
			int k = snprintf(line, sizeof line, "line %d\n", i);
			if (write(fds[1], line, (size_t)k) != k)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
	uint8_t *data;
	size_t len;
	assert_int_equal(trawl_file_read(path, &data, &len, NULL), TRAWL_OK);
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	/* hand count: 10 one-digit, 90 two-digit, ... up to 19999 */
	size_t want = 0;
	for (int i = 0; i < 20000; i++)
		want += 6 + (i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : 5);
	assert_int_equal(len, want);
	assert_memory_equal(data + len - 11, "line 19999\n", 11);
	free(data);
}

static void errors_name_the_file(void **state)
{
	(void)state;
	char path[128];
	uint8_t *data = (uint8_t *)1;
	size_t len = 99;
	struct trawl_error err;
	snprintf(path, sizeof path, "%s/missing", dir);
	assert_int_equal(trawl_file_read(path, &data, &len, &err), TRAWL_ERR_IO);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err.message, path));
	assert_int_equal(trawl_file_read(dir, &data, &len, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "directory"));
	assert_null(data);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regular_and_empty),
		cmocka_unit_test(pipe_is_read_to_the_end),
		cmocka_unit_test(errors_name_the_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
