// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call tree for the call-chain tests:
 * main -> top -> mid -> leaf, each level burning its own share of the CPU
 * time: top 20%, mid 30%, leaf 50% (in loop iterations).  Built with and
 * without frame pointers.  Usage: cg-tree [SECONDS] (default 1), or
 * cg-tree -i N: N calls of top(), a fixed amount of work (the benchmark).
 *
 * Built with -DCG_FRONT it is the same program "rebuilt with a new
 * function in front": 4 KiB of new code before leaf moves every function
 * after it, so a recording of the old build names the wrong functions
 * unless perf finds the old binary by its build-id.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/* each level burns inline (not in burn()) so that the time is its own */
#define SPIN(n) do { for (unsigned long i = 0; i < (n); i++) sink += i; } while (0)

#ifdef CG_FRONT
__attribute__((noinline)) void front(void)
{
	__asm__ volatile(".fill 4096, 1, 0x90");
}
#endif

__attribute__((noinline)) void leaf(void)
{
	SPIN(50000);
}

__attribute__((noinline)) void mid(void)
{
	SPIN(30000);
	leaf();
}

__attribute__((noinline)) void top(void)
{
	SPIN(20000);
	mid();
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;

	burn(1);
	if (argc > 2 && !strcmp(argv[1], "-i")) {
		for (long n = atol(argv[2]); n > 0; n--)
			top();
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 100; k++)
			top();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
