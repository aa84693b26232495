// SPDX-License-Identifier: GPL-2.0
/*
 * watch-loop N: write the global 'watched' N times, for breakpoint tests
 * (mem:ADDR:w).  watch-loop --addr prints its address; the binary is
 * linked without PIE, so the address is the same in every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long watched;

int main(int argc, char **argv)
{
	char *end;
	long long n;

	if (argc == 2 && !strcmp(argv[1], "--addr")) {
		printf("%p\n", (void *)&watched);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: watch-loop N | --addr\n");
		return 1;
	}
	n = strtoll(argv[1], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "watch-loop: bad count '%s'\n", argv[1]);
		return 1;
	}
	for (long long i = 0; i < n; i++)
		watched = i;
	return 0;
}
