// SPDX-License-Identifier: GPL-2.0
/*
 * dso_holder LIB...: dlopen() each shared library given, print "ready"
 * and sleep until killed: a process with that many DSOs mapped, for
 * scripts/perf_ring/bench_scale_dsos.py.  Paths may also come one a line
 * on stdin ("-").
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load(const char *path)
{
	if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
		fprintf(stderr, "dso_holder: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char line[4096];
	long n = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-")) {
			if (load(argv[i]))
				return 1;
			n++;
			continue;
		}
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			if (*line && load(line))
				return 1;
			n += *line != 0;
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
