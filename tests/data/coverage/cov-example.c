/* The program tests/cli/coverage.sh measures: built with -g -O0 for trawl
 * and with --coverage for gcov, the oracle. Some lines never run (the
 * never_called function, the "big" branch), some conditions go both ways.
 *   cov-example [N]   (default 10) */
#include <stdio.h>
#include <stdlib.h>

static int classify(int x)
{
	if (x < 0)
		return -1;
	else if (x == 0)
		return 0;
	return 1;
}

static int never_called(int x)
{
	int y = x * 3;
	return y + 1;
}

static long sum_to(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int pos = 0, neg = 0;
	for (int i = -3; i < n; i++) {
		if (classify(i) > 0)
			pos++;
		else
			neg++;
	}
	if (n > 1000) {
		printf("big %d\n", never_called(n));
		n = 1000;
	}
	printf("%d %d %ld\n", pos, neg, sum_to(n));
	return 0;
}
