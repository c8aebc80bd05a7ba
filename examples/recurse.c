/* Recursion for an interesting call tree: a naive Fibonacci, a binary tree
 * built, walked and freed recursively, and the Ackermann function.
 *   recurse [DEPTH]   (default 12; Fibonacci of DEPTH, tree of DEPTH levels) */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *left, *right;
	long value;
};

static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static struct node *build(int depth, long value)
{
	struct node *n = malloc(sizeof *n);
	if (!n)
		exit(3);
	n->value = value;
	n->left = depth > 0 ? build(depth - 1, 2 * value) : NULL;
	n->right = depth > 0 ? build(depth - 1, 2 * value + 1) : NULL;
	return n;
}

static long walk(const struct node *n, int level)
{
	if (!n)
		return 0;
	return n->value * level + walk(n->left, level + 1) + walk(n->right, level + 1);
}

static void destroy(struct node *n)
{
	if (!n)
		return;
	destroy(n->left);
	destroy(n->right);
	free(n);
}

static unsigned long ackermann(unsigned long m, unsigned long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 12;
	if (depth < 0 || depth > 40)
		depth = 12;
	struct node *tree = build(depth, 1);
	long w = walk(tree, 1);
	destroy(tree);
	printf("fib(%d) = %ld, tree walk %ld, ackermann(2,3) = %lu\n", depth, fib(depth), w,
	       ackermann(2, 3));
	return 0;
}
