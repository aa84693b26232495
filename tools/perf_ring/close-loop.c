// SPDX-License-Identifier: GPL-2.0
/*
 * close-loop N [BASE]: call close() N times.  Without BASE every call is
 * close(-1); with BASE call i is close(BASE + i), so that the raw_syscalls
 * records carry sequence numbers (use a BASE above any open descriptor).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long long n, base = -1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: close-loop N [BASE]\n");
		return 1;
	}
	n = strtoll(argv[1], &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "close-loop: bad count '%s'\n", argv[1]);
		return 1;
	}
	if (argc == 3) {
		base = strtoll(argv[2], &end, 10);
		if (*end || base < 0 || base > 0x7fffffffLL - n) {
			fprintf(stderr, "close-loop: bad base '%s'\n", argv[2]);
			return 1;
		}
	}
	for (long long i = 0; i < n; i++)
		close(base < 0 ? -1 : (int)(base + i));
	return 0;
}
