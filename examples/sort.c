/* Sorts N pseudo-random numbers (default 1000) with a recursive quicksort
 * that hands small ranges to insertion sort, then checks the order and prints
 * a checksum. The size argument makes traces of any length: roughly
 * 250 * N instructions for large N.
 *   sort [N] */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)rng_state;
}

static void insertion_sort(unsigned *a, long lo, long hi)
{
	for (long i = lo + 1; i <= hi; i++) {
		unsigned v = a[i];
		long j = i - 1;
		while (j >= lo && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static void quick_sort(unsigned *a, long lo, long hi)
{
	while (hi - lo > 16) {
		unsigned pivot = a[lo + (hi - lo) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				unsigned t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		/* recurse into the smaller half, loop on the larger */
		if (j - lo < hi - i) {
			quick_sort(a, lo, j);
			lo = i;
		} else {
			quick_sort(a, i, hi);
			hi = j;
		}
	}
	insertion_sort(a, lo, hi);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	if (n < 1)
		n = 1;
	unsigned *a = malloc((size_t)n * sizeof *a);
	if (!a) {
		fprintf(stderr, "sort: out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++)
		a[i] = rng() % 1000000u;
	quick_sort(a, 0, n - 1);
	unsigned long long sum = 0;
	for (long i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i]) {
			fprintf(stderr, "sort: not sorted at %ld\n", i);
			return 1;
		}
		sum = sum * 31 + a[i];
	}
	printf("sorted %ld numbers, min %u max %u checksum %016llx\n", n, a[0], a[n - 1], sum);
	free(a);
	return 0;
}
