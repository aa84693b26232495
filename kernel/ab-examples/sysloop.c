// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop SYSCALL N: make one cheap system call N times and nothing else,
 * for make ab's AB_BIN (a static helper put into the guest's /usr/bin):
 *
 *   gcc -O2 -static -o build/ab-examples/sysloop kernel/ab-examples/sysloop.c
 *   make ab ... AB_BIN=build/ab-examples/sysloop RUN='sysloop close 100000'
 *
 * SYSCALL is close (close(-1): EBADF after the descriptor lookup) or
 * getppid (no lookup at all, the control). Calls go through syscall(2) so
 * that no libc wrapper adds work of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long nr;
	long long n;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: sysloop close|getppid N\n");
		return 2;
	}
	if (!strcmp(argv[1], "close")) {
		nr = SYS_close;
	} else if (!strcmp(argv[1], "getppid")) {
		nr = SYS_getppid;
	} else {
		fprintf(stderr, "sysloop: unknown system call '%s' (close or getppid)\n", argv[1]);
		return 2;
	}
	n = strtoll(argv[2], &end, 10);
	if (!*argv[2] || *end || n < 0) {
		fprintf(stderr, "sysloop: bad count '%s'\n", argv[2]);
		return 2;
	}
	for (long long i = 0; i < n; i++)
		syscall(nr, -1);
	return 0;
}
