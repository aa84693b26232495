// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "tracing.h"

struct named { const char *name; u32 type; u64 config; };

static const struct named sym_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

bool hw_pmu_present(void)
{
	static const char *const pmus[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
		"/sys/bus/event_source/devices/armv8_pmuv3_0",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pmus); i++)
		if (access(pmus[i], F_OK) == 0)
			return true;
	return false;
}

static int add_event(struct ev_list *l, const char *name, u32 type, u64 config,
		     char *err, size_t errlen)
{
	struct pf_event *e;

	for (int i = 0; i < l->nr; i++)
		if (l->ev[i].attr.type == type && l->ev[i].attr.config == config)
			return 0;	/* listed twice: once is enough */
	if (l->nr >= MAX_EVENTS) {
		snprintf(err, errlen, "%s: too many events (max %d)", name, MAX_EVENTS);
		return -E2BIG;
	}
	e = &l->ev[l->nr++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = type;
	e->attr.config = config;
	return 0;
}

static int read_tp_id(const char *tfs, const char *sys, const char *name, u64 *id)
{
	char path[512], *s;
	int err;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, sys, name);
	err = read_text_file(path, &s, NULL);
	if (err)
		return err;
	*id = strtoull(s, NULL, 10);
	free(s);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the subdirectories of dir that match pattern. */
static int list_dir(const char *dir, const char *pattern, char ***out, int *nout)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int n = 0, cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (fnmatch(pattern, de->d_name, 0))
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nout = n;
	return 0;
}

static void free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Call fn for every tracepoint in tracefs whose system and name match the
 * globs, in sorted order, until fn returns non-zero (which is returned).
 * -errno if the events directory cannot be listed.
 */
static int tp_walk(const char *tfs, const char *sys_glob, const char *name_glob,
		   int (*fn)(void *arg, const char *sys, const char *name, u64 id),
		   void *arg)
{
	char path[512], **systems = NULL;
	int nsys = 0, ret;

	snprintf(path, sizeof(path), "%s/events", tfs);
	ret = list_dir(path, sys_glob, &systems, &nsys);
	for (int i = 0; i < nsys && !ret; i++) {
		char **evn = NULL;
		int nev = 0;

		snprintf(path, sizeof(path), "%s/events/%s", tfs, systems[i]);
		if (list_dir(path, name_glob, &evn, &nev))
			continue;
		for (int j = 0; j < nev && !ret; j++) {
			u64 id;

			if (!read_tp_id(tfs, systems[i], evn[j], &id))
				ret = fn(arg, systems[i], evn[j], id);
		}
		free_list(evn, nev);
	}
	free_list(systems, nsys);
	return ret;
}

static void set_tp(struct pf_event *e, const char *sys, const char *name)
{
	snprintf(e->tp_sys, sizeof(e->tp_sys), "%s", sys);
	snprintf(e->tp_name, sizeof(e->tp_name), "%s", name);
}

struct tp_add {
	struct ev_list *l;
	char *err;
	size_t errlen;
	int found;
	bool add_failed;	/* ret is add_event()'s, err says why */
};

static int tp_add_one(void *arg, const char *sys, const char *name, u64 id)
{
	struct tp_add *t = arg;
	char full[400];
	int ret;

	snprintf(full, sizeof(full), "%s:%s", sys, name);
	ret = add_event(t->l, full, PERF_TYPE_TRACEPOINT, id, t->err, t->errlen);
	if (!ret) {
		set_tp(&t->l->ev[t->l->nr - 1], sys, name);
		t->found++;
	}
	t->add_failed = ret != 0;
	return ret;
}

static int add_tracepoints(struct ev_list *l, const char *tok, char *err, size_t errlen)
{
	const char *tfs = tracefs_path();
	const char *colon = strchr(tok, ':');
	struct tp_add t = { .l = l, .err = err, .errlen = errlen };
	char sys[128], name[256];
	int ret;

	if (!tfs && access("/sys/kernel/tracing/events/header_page", R_OK) &&
	    errno == EACCES) {
		snprintf(err, errlen, "%s: cannot read tracefs (/sys/kernel/tracing: %s): "
			 "finding a tracepoint needs root, or read access to tracefs",
			 tok, strerror(EACCES));
		return -EACCES;
	}
	if (!tfs) {
		snprintf(err, errlen, "%s: tracefs is not mounted "
			 "(mount -t tracefs nodev /sys/kernel/tracing)", tok);
		return -ENOENT;
	}
	if ((size_t)(colon - tok) >= sizeof(sys) || strlen(colon + 1) >= sizeof(name)) {
		snprintf(err, errlen, "%s: event name too long", tok);
		return -EINVAL;
	}
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - tok), tok);
	snprintf(name, sizeof(name), "%s", colon + 1);
	ret = tp_walk(tfs, sys, name, tp_add_one, &t);
	if (ret < 0 && !t.add_failed) {
		snprintf(err, errlen, "%s: cannot list %s/events: %s", tok, tfs, strerror(-ret));
		return ret;
	}
	if (!ret && !t.found) {
		snprintf(err, errlen, "unknown event '%s': no such tracepoint in %s/events",
			 tok, tfs);
		ret = -ENOENT;
	}
	return ret;
}

static int add_one(struct ev_list *l, const char *tok, char *err, size_t errlen)
{
	if (strchr(tok, ':'))
		return add_tracepoints(l, tok, err, errlen);
	for (size_t i = 0; i < ARRAY_SIZE(sym_events); i++) {
		const struct named *n = &sym_events[i];

		if (strcmp(n->name, tok))
			continue;
		if (n->type == PERF_TYPE_HARDWARE && !hw_pmu_present()) {
			snprintf(err, errlen, "%s: no hardware PMU on this machine; try cpu-clock", tok);
			return -ENODEV;
		}
		return add_event(l, tok, n->type, n->config, err, errlen);
	}
	snprintf(err, errlen, "unknown event '%s' (try a tracepoint such as "
		 "'raw_syscalls:*', or cpu-clock, task-clock, page-faults, "
		 "context-switches, dummy)", tok);
	return -EINVAL;
}

int events_parse(const char *spec, struct ev_list *l, char *err, size_t errlen)
{
	char *dup = strdup(spec), *save = NULL, *tok;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	if (!*spec) {
		snprintf(err, errlen, "empty event list");
		ret = -EINVAL;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = add_one(l, tok, err, errlen);
	free(dup);
	return ret;
}

void events_open_error(const struct pf_event *e, int errnum, char *buf, size_t len)
{
	if (e->attr.type == PERF_TYPE_HARDWARE &&
	    (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)) {
		snprintf(buf, len, "%s: no hardware PMU on this machine; try cpu-clock", e->name);
	} else if (errnum == EACCES || errnum == EPERM) {
		snprintf(buf, len, "%s: %s (check /proc/sys/kernel/perf_event_paranoid, "
			 "or run as root)", e->name, strerror(errnum));
	} else if (errnum == EINVAL && e->attr.write_backward) {
		snprintf(buf, len, "%s: the kernel rejected write_backward or PERF_FORMAT_LOST "
			 "(%s); --overwrite needs backward ring buffers (Linux 4.7) and lost "
			 "counts (6.0)", e->name, strerror(errnum));
	} else if (errnum == EMFILE) {
		snprintf(buf, len, "%s: too many open files (raise ulimit -n)", e->name);
	} else {
		snprintf(buf, len, "%s: perf_event_open: %s", e->name, strerror(errnum));
	}
}

/*
 * Name an event from its attribute alone (a file whose event descriptions
 * were never written): the symbolic names above, tracepoints by their id
 * in tracefs.  The tracefs lookup is only right on the machine, and the
 * boot, that recorded the file.
 */
static int tp_by_id(void *arg, const char *sys, const char *name, u64 id)
{
	struct pf_event *e = arg;

	if (id != e->attr.config)
		return 0;
	snprintf(e->name, sizeof(e->name), "%s:%s", sys, name);
	set_tp(e, sys, name);
	return 1;
}

int events_name_attr(const struct perf_event_attr *a, struct pf_event *e)
{
	const char *tfs;

	memset(e, 0, sizeof(*e));
	e->attr = *a;
	if (a->type != PERF_TYPE_TRACEPOINT) {
		for (size_t i = 0; i < ARRAY_SIZE(sym_events); i++) {
			if (sym_events[i].type == a->type && sym_events[i].config == a->config) {
				snprintf(e->name, sizeof(e->name), "%s", sym_events[i].name);
				return 0;
			}
		}
		snprintf(e->name, sizeof(e->name), "type%u/config%#llx", a->type,
			 (unsigned long long)a->config);
		return -ENOENT;
	}
	snprintf(e->name, sizeof(e->name), "tracepoint%llu", (unsigned long long)a->config);
	tfs = tracefs_path();
	return tfs && tp_walk(tfs, "*", "*", tp_by_id, e) == 1 ? 0 : -ENOENT;
}
