// SPDX-License-Identifier: GPL-2.0
/* What CPU hotplug does to a recording, and saying so (hotplug.h). */
#include <stdio.h>

#include "hotplug.h"

/*
 * A CPU that goes offline takes the events of its own context along
 * (perf_event_exit_cpu -> __perf_event_exit_context): -a and -C events are
 * scheduled out and detached, left OFF, neither in error nor hung up, so
 * poll() and read() do not tell.  They stay off when the CPU comes back.
 * The per-CPU events of a command or of -p live in the tasks' contexts:
 * they are not touched, and count again once a task runs on the CPU.
 * Either way the buffer stays mapped and what it holds is read as usual.
 * So the online mask is read, at most every 100 ms, to say what happened.
 */
#define HOTPLUG_CHECK_NS 100000000ULL

void hotplug_check(struct hotplug *hp, struct ring *rings, int nrings, bool force)
{
	bool online[MAX_CPUS] = { false };
	u64 now = now_ns();
	double s = (now - hp->t0) / 1e9;

	if (hp->no_mask || (!force && now - hp->checked < HOTPLUG_CHECK_NS))
		return;
	hp->checked = now;
	if (online_cpus(online, MAX_CPUS)) {
		hp->no_mask = true;
		return;
	}
	for (int i = 0; i < nrings; i++) {
		struct ring *st = &rings[i];
		int cpu = st->cpu;

		if (!online[cpu] && !st->off) {
			st->off = true;
			st->off_ns = now - hp->t0 ?: 1;
			st->on_ns = 0;
			if (hp->backward && hp->per_cpu)
				st->last_time = ring_bwd_newest_time(st, hp->sample_type);
			if (!hp->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d went offline (%.1f s): %s ]\n",
					cpu, s, hp->per_cpu ?
					"the kernel stopped its events; what its buffer holds is kept" :
					"the recorded tasks run on the other CPUs");
		} else if (online[cpu] && st->off) {
			st->off = false;
			st->on_ns = now - hp->t0 ?: 1;
			if (!hp->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d is back online (%.1f s): %s ]\n",
					cpu, s, hp->per_cpu ?
					"its events stay off, the kernel does not restart them" :
					"the recorded tasks' events count there again");
		}
	}
}

/*
 * At the end: a CPU that went offline.  For -a/-C the recording has a hole
 * from then on (a warning, also with -q); the exit status stays 0, as the
 * file holds everything that was recorded.
 */
void hotplug_summary(const struct hotplug *hp, const struct ring *rings, int nrings)
{
	for (int i = 0; i < nrings; i++) {
		char back[64] = " and was still offline at the end", last[80] = "";
		const struct ring *st = &rings[i];
		int cpu = st->cpu;

		if (!st->off_ns || (!hp->per_cpu && hp->quiet))
			continue;
		if (st->on_ns)
			snprintf(back, sizeof(back), ", came back at %.1f s", st->on_ns / 1e9);
		if (st->last_time)
			snprintf(last, sizeof(last), " (its last record is at %llu.%06llu)",
				 (unsigned long long)(st->last_time / 1000000000ULL),
				 (unsigned long long)(st->last_time % 1000000000ULL / 1000));
		if (hp->per_cpu)
			fprintf(stderr, "perf-ring record: warning: cpu %d went offline at %.1f s%s; "
				"its events stayed off from then on, so the recording has nothing "
				"from cpu %d after that%s\n",
				cpu, st->off_ns / 1e9, back, cpu, last);
		else
			fprintf(stderr, "perf-ring record: note: cpu %d went offline at %.1f s%s; "
				"the recorded tasks ran on the other CPUs meanwhile\n",
				cpu, st->off_ns / 1e9, back);
	}
}
