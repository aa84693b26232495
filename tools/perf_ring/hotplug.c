// SPDX-License-Identifier: GPL-2.0
/* What CPU hotplug does to a recording, and saying so (hotplug.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "hotplug.h"

/*
 * The online mask from the descriptor kept open, its text in hp->online;
 * else as util.c reads it, and hp->online empty.
 */
static int read_mask(struct hotplug *hp, bool *online)
{
	ssize_t n = -1;

	if (hp->online_fd >= 0)
		n = pread(hp->online_fd, hp->online, sizeof(hp->online) - 1, 0);
	hp->online[n > 0 ? n : 0] = '\0';
	if (n > 0)
		return parse_cpu_list(hp->online, online, MAX_CPUS);
	return online_cpus(online, MAX_CPUS);
}

void hotplug_init(struct hotplug *hp, const struct hotplug_opts *o)
{
	bool online[MAX_CPUS] = { false };

	*hp = (struct hotplug){
		.uevent_fd = -1, .per_cpu = o->per_cpu, .backward = o->backward,
		.quiet = o->quiet, .sample_type = o->sample_type,
	};
	hp->online_fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	read_mask(hp, online);
}

void hotplug_listen(struct hotplug *hp)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	hp->uevent_fd = -1;
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return;
	}
	hp->uevent_fd = fd;
}

void hotplug_close(struct hotplug *hp)
{
	if (hp->uevent_fd >= 0)
		close(hp->uevent_fd);
	hp->uevent_fd = -1;
	if (hp->online_fd >= 0)
		close(hp->online_fd);
	hp->online_fd = -1;
	hp->online[0] = '\0';
}

static bool ours(const struct ring *rings, int nrings, int cpu)
{
	for (int i = 0; i < nrings; i++)
		if (rings[i].cpu == cpu)
			return true;
	return false;
}

/* Went offline: ns into the run, never 0 (0: did not). */
static void went_off(struct hotplug *hp, struct hp_cpu *st, u64 now)
{
	st->off = true;
	st->off_ns = now - hp->t0 ?: 1;
	st->cycles++;
}

/*
 * "offline@/devices/system/cpu/cpuN" and "online@...": what happened,
 * however short.  An offline that the mask check will not see any more
 * (the CPU is back already) is recorded here.  True for any CPU's: the
 * mask is then read at once.
 */
static bool read_uevents(struct hotplug *hp, const struct ring *rings, int nrings, u64 now)
{
	char buf[4096];
	bool seen = false;
	ssize_t n;

	while ((n = recv(hp->uevent_fd, buf, sizeof(buf) - 1, 0)) > 0) {
		const char *p;
		bool off;
		int cpu;

		buf[n] = '\0';
		off = !strncmp(buf, "offline@", 8);
		if (!off && strncmp(buf, "online@", 7))
			continue;
		p = strstr(buf, "/devices/system/cpu/cpu");
		if (!p || sscanf(p + 23, "%d", &cpu) != 1)
			continue;
		if (cpu < 0 || cpu >= MAX_CPUS)
			continue;
		seen = true;
		if (off && !hp->cpu[cpu].off && ours(rings, nrings, cpu))
			went_off(hp, &hp->cpu[cpu], now);
	}
	return seen;
}

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

void hotplug_check(struct hotplug *hp, const struct ring *rings, int nrings, bool force,
		   bool uevents)
{
	bool online[MAX_CPUS] = { false };
	u64 now = now_ns();
	double s = (now - hp->t0) / 1e9;
	bool due = force || now - hp->checked >= HOTPLUG_CHECK_NS;

	/* a uevent about a CPU: the mask now, to see the whole change */
	if (hp->uevent_fd >= 0 && (uevents || due) && read_uevents(hp, rings, nrings, now))
		due = true;
	if (hp->no_mask || !due)
		return;
	hp->checked = now;
	if (read_mask(hp, online)) {
		hp->no_mask = true;
		return;
	}
	for (int i = 0; i < nrings; i++) {
		int cpu = rings[i].cpu;
		struct hp_cpu *st;

		if (cpu < 0)
			continue;	/* --per-thread: a thread's buffer, on any CPU */
		st = &hp->cpu[cpu];
		if (!online[cpu] && !st->off) {
			went_off(hp, st, now);
			st->on_ns = 0;
			if (hp->backward && hp->per_cpu)
				st->last_time = ring_bwd_newest_time(&rings[i], hp->sample_type);
			if (!hp->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d went offline (%.1f s): %s ]\n",
					cpu, s, hp->per_cpu ?
					"the kernel stopped its events; what its buffer holds is kept" :
					"the recorded tasks run on the other CPUs");
		} else if (online[cpu] && st->off) {
			st->off = false;
			st->on_ns = now - hp->t0 ?: 1;
			if (hp->per_cpu && !st->back) {	/* the recorder opens them again */
				st->back = true;
				hp->nback++;
			}
			if (!hp->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d is back online (%.1f s): %s ]\n",
					cpu, s, hp->per_cpu ?
					"its events are opened again, into its buffer" :
					"the recorded tasks' events count there again");
		}
	}
}

const char *hotplug_online(const struct hotplug *hp)
{
	return hp->online[0] && !hp->no_mask ? hp->online : NULL;
}

int hotplug_next_back(struct hotplug *hp)
{
	for (int cpu = 0; hp->nback && cpu < MAX_CPUS; cpu++) {
		if (!hp->cpu[cpu].back)
			continue;
		hp->cpu[cpu].back = false;
		hp->nback--;
		return cpu;
	}
	return -1;
}

void hotplug_reopen_failed(struct hotplug *hp, int cpu, int err)
{
	hp->cpu[cpu].reopen_err = err;
}

/*
 * At the end: a CPU that went offline.  For -a/-C the recording has a hole
 * from then on (a warning, also with -q); the exit status stays 0, as the
 * file holds everything that was recorded.
 */
void hotplug_summary(const struct hotplug *hp, const struct ring *rings, int nrings,
		     const u64 *newest)
{
	for (int i = 0; i < nrings; i++) {
		char back[64] = " and was still offline at the end", last[80] = "";
		int cpu = rings[i].cpu;
		const struct hp_cpu *st = &hp->cpu[cpu < 0 ? 0 : cpu];
		/* streaming: the newest record read from its buffer */
		u64 last_time = st->last_time ?: (newest ? newest[i] : 0);

		if (cpu < 0 || !st->off_ns || (!hp->per_cpu && hp->quiet))
			continue;
		if (st->on_ns)
			snprintf(back, sizeof(back), ", came back at %.1f s", st->on_ns / 1e9);
		if (last_time)
			snprintf(last, sizeof(last), " (its last record is at %llu.%06llu)",
				 (unsigned long long)(last_time / 1000000000ULL),
				 (unsigned long long)(last_time % 1000000000ULL / 1000));
		if (hp->per_cpu && st->on_ns && !st->off && !st->reopen_err)
			fprintf(stderr, "perf-ring record: note: cpu %d went offline %d time%s (the "
				"last at %.1f s)%s; its events were opened again each time it came "
				"back, so the recording has nothing from cpu %d only while it was "
				"offline\n", cpu, st->cycles, st->cycles == 1 ? "" : "s",
				st->off_ns / 1e9, back, cpu);
		else if (hp->per_cpu && st->reopen_err)
			fprintf(stderr, "perf-ring record: warning: cpu %d went offline at %.1f s%s; "
				"its events could not be opened again (%s), so the recording has "
				"nothing from cpu %d after that%s\n", cpu, st->off_ns / 1e9, back,
				strerror(-st->reopen_err), cpu, last);
		else if (hp->per_cpu)
			fprintf(stderr, "perf-ring record: warning: cpu %d went offline at %.1f s%s; "
				"the recording has nothing from cpu %d after that%s\n",
				cpu, st->off_ns / 1e9, back, cpu, last);
		else
			fprintf(stderr, "perf-ring record: note: cpu %d went offline at %.1f s%s; "
				"the recorded tasks ran on the other CPUs meanwhile\n",
				cpu, st->off_ns / 1e9, back);
	}
}
