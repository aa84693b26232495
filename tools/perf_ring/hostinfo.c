// SPDX-License-Identifier: GPL-2.0
/*
 * What the header features say about the machine, read from it:
 * /proc/cpuinfo, /proc/meminfo, the CPU topology and the PMUs in sysfs;
 * and where tracefs is mounted.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostinfo.h"

static char *cpuinfo_field(const char *cpuinfo, const char *key)
{
	const char *p = cpuinfo;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t' || p[kl] == ':')) {
			const char *c = strchr(p, ':');
			const char *e;

			if (!c)
				return NULL;
			c++;
			while (*c == ' ')
				c++;
			e = strchr(c, '\n');
			if (!e)
				e = c + strlen(c);
			return strndup(c, e - c);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void feat_cpu(struct pbuf *b, bool desc)
{
	char *ci = NULL, *s = NULL;
	char buf[256];

	if (read_text_file("/proc/cpuinfo", &ci, NULL))
		ci = NULL;
	if (desc) {
		s = ci ? cpuinfo_field(ci, "model name") : NULL;
		pbuf_pstr(b, s ? s : "unknown");
	} else {
		char *v = ci ? cpuinfo_field(ci, "vendor_id") : NULL;
		char *f = ci ? cpuinfo_field(ci, "cpu family") : NULL;
		char *m = ci ? cpuinfo_field(ci, "model") : NULL;
		char *st = ci ? cpuinfo_field(ci, "stepping") : NULL;

		snprintf(buf, sizeof(buf), "%s,%s,%s,%s", v ? v : "unknown",
			 f ? f : "0", m ? m : "0", st ? st : "0");
		pbuf_pstr(b, buf);
		free(v); free(f); free(m); free(st);
	}
	free(s);
	free(ci);
}

static u64 total_mem_kb(void)
{
	char *mi;
	unsigned long long kb = 0;

	if (read_text_file("/proc/meminfo", &mi, NULL))
		return 0;
	if (sscanf(mi, "MemTotal: %llu kB", &kb) != 1)
		kb = 0;
	free(mi);
	return kb;
}

/* "0-3\n" style sysfs list of a CPU, without the newline; NULL if absent. */
static char *cpu_file(int cpu, const char *name, const char *alt)
{
	char path[128], *s = NULL;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	if (read_text_file(path, &s, NULL) && alt) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, alt);
		if (read_text_file(path, &s, NULL))
			s = NULL;
	}
	if (s)
		s[strcspn(s, "\n")] = 0;
	return s;
}

/* Distinct lists in order of first appearance, as perf writes them. */
static void topo_lists(struct pbuf *b, int nr, const char *name, const char *alt)
{
	char **seen = calloc(nr > 0 ? nr : 1, sizeof(*seen));
	int n = 0;

	if (!seen) {
		b->err = -ENOMEM;
		return;
	}
	for (int c = 0; c < nr; c++) {
		char *s = cpu_file(c, name, alt);
		bool dup = false;

		if (!s)
			continue;
		for (int i = 0; i < n; i++)
			if (!strcmp(seen[i], s))
				dup = true;
		if (dup)
			free(s);
		else
			seen[n++] = s;
	}
	pbuf_u32(b, n);
	for (int i = 0; i < n; i++) {
		pbuf_pstr(b, seen[i]);
		free(seen[i]);
	}
	free(seen);
}

static u32 cpu_id(int cpu, const char *name)
{
	char *s = cpu_file(cpu, name, NULL);
	u32 v = s ? (u32)atoi(s) : (u32)-1;

	free(s);
	return v;
}

static void feat_topology(struct pbuf *b)
{
	int nr = sysconf(_SC_NPROCESSORS_CONF);

	topo_lists(b, nr, "package_cpus_list", "core_siblings_list");
	topo_lists(b, nr, "core_cpus_list", "thread_siblings_list");
	for (int c = 0; c < nr; c++) {
		pbuf_u32(b, cpu_id(c, "core_id"));
		pbuf_u32(b, cpu_id(c, "physical_package_id"));
	}
	topo_lists(b, nr, "die_cpus_list", NULL);
	for (int c = 0; c < nr; c++) {
		u32 d = cpu_id(c, "die_id");

		pbuf_u32(b, d == (u32)-1 ? 0 : d);
	}
}

static void feat_pmu_mappings(struct pbuf *b)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	struct pbuf body = { 0 };
	u32 n = 0;

	while (d && (de = readdir(d))) {
		char path[300], *s;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
		if (read_text_file(path, &s, NULL))
			continue;
		pbuf_u32(&body, atoi(s));
		pbuf_pstr(&body, de->d_name);
		free(s);
		n++;
	}
	if (d)
		closedir(d);
	pbuf_u32(b, n);
	pbuf_put(b, body.p, body.len);
	pbuf_free(&body);
}

/*
 * cpu/online now, malloc'd, or NULL.  A sysfs attribute is at most a page.
 */
static char *read_online(void)
{
	char buf[4096];

	if (read_small_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0)
		return NULL;
	return strdup(buf);
}

/* What was read of the host. */
static void drop(struct hostinfo *h)
{
	pbuf_free(&h->cpudesc);
	pbuf_free(&h->cpuid);
	pbuf_free(&h->topology);
	pbuf_free(&h->pmus);
	free(h->online);
	h->online = NULL;
	h->valid = false;
}

void hostinfo_cpus_seen(struct hostinfo *h, const char *online)
{
	h->watched = online != NULL;
	if (online && (!h->online || strcmp(online, h->online)))
		h->cpus_changed = true;
}

int hostinfo_refresh(struct hostinfo *h)
{
	char *online;

	if (h->valid && h->watched && !h->cpus_changed)
		return 0;
	h->cpus_changed = false;
	online = read_online();
	if (h->valid && (online && h->online ? !strcmp(online, h->online) : online == h->online)) {
		free(online);
		return 0;
	}
	drop(h);
	h->online = online;
	uname(&h->u);
	h->nr_conf = sysconf(_SC_NPROCESSORS_CONF);
	h->nr_online = sysconf(_SC_NPROCESSORS_ONLN);
	h->mem_kb = total_mem_kb();
	feat_cpu(&h->cpudesc, true);
	feat_cpu(&h->cpuid, false);
	feat_topology(&h->topology);
	feat_pmu_mappings(&h->pmus);
	if (h->cpudesc.err || h->cpuid.err || h->topology.err || h->pmus.err) {
		drop(h);
		return -ENOMEM;
	}
	h->valid = true;
	return 0;
}

void hostinfo_free(struct hostinfo *h)
{
	drop(h);
}

const char *tracefs_path(void)
{
	static const char *const cand[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};

	for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
		char p[256];

		snprintf(p, sizeof(p), "%s/events/header_page", cand[i]);
		if (access(p, R_OK) == 0)
			return cand[i];
	}
	return NULL;
}
