// SPDX-License-Identifier: GPL-2.0
/*
 * rate_loop RATE N: call close(-1) N times at RATE calls per second
 * (RATE 0: as fast as the CPU goes), for the event-rate dimension of the
 * scale benchmark (make qemu-bench PART=rate).
 *
 * Pacing: time runs in ticks of TICK_NS on CLOCK_MONOTONIC.  At each tick
 * the loop makes the calls that are due by then (RATE x the time since
 * the start, less the calls made) and sleeps to the next tick's absolute
 * time with clock_nanosleep(TIMER_ABSTIME), so a late wake-up is caught up
 * at the next tick and the mean rate holds.  Under QEMU -icount the clock
 * is the instruction count, so the rate is exact in guest time; a loop
 * that cannot keep up never sleeps and runs at the kernel's limit.
 *
 * One line on stderr at the end:
 *   "rate_loop rate=R calls=N ns=T ticks=K late=L"
 * T is the time from the first call to the last, K the sleeps, L the
 * ticks whose calls were not done before the next tick was due.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS 1000000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse(const char *s, long long *v)
{
	char *end;

	*v = strtoll(s, &end, 10);
	return *end || end == s || *v < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	long long rate, n, done = 0, ticks = 0, late = 0, t0, t;

	if (argc != 3 || parse(argv[1], &rate) || parse(argv[2], &n)) {
		fprintf(stderr, "usage: rate_loop RATE N (RATE calls/s, 0: unpaced)\n");
		return 1;
	}
	t0 = now_ns();
	if (!rate) {
		for (; done < n; done++)
			close(-1);
	}
	while (done < n) {
		long long due, next;
		struct timespec ts;

		t = now_ns() - t0;
		/* calls due by now; __int128 keeps RATE x ns from overflowing */
		due = (long long)((__int128)rate * t / 1000000000LL) + 1;
		if (due > n)
			due = n;
		for (; done < due; done++)
			close(-1);
		next = (t / TICK_NS + 1) * TICK_NS;
		if (now_ns() - t0 >= next + TICK_NS)
			late++;
		ts.tv_sec = (t0 + next) / 1000000000LL;
		ts.tv_nsec = (t0 + next) % 1000000000LL;
		if (done < n) {
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			ticks++;
		}
	}
	t = now_ns() - t0;
	fprintf(stderr, "rate_loop rate=%lld calls=%lld ns=%lld ticks=%lld late=%lld\n",
		rate, n, t, ticks, late);
	return 0;
}
