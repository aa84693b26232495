// SPDX-License-Identifier: GPL-2.0
/*
 * -e in perf's syntax (tools/perf/util/parse-events.y), parsed by hand:
 *
 *   events  := item (',' item)*
 *   item    := '{' event (',' event)* '}' [':' mods] | event
 *   event   := sym [':' mods] | sym '/' terms '/' [[':'] mods]
 *            | sys ':' name [':' mods] | sys ':' name '/' terms '/' [[':'] mods]
 *            | pmu '/' terms '/' [[':'] mods]
 *            | 'mem:' addr ['/' len] [':' rwx] [':' mods]
 *   terms   := [term (',' term)*],  term := key ['=' value]
 *
 * Commas inside pmu/terms/ do not separate events.  Modifiers set the
 * exclude bits as perf does: the first of u, k, h excludes every level
 * and each one lets its own level back in.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/hw_breakpoint.h>

#include "events.h"
#include "hostinfo.h"

#define SYSFS_DEVICES "/sys/bus/event_source/devices"

static const char *sysfs_root = SYSFS_DEVICES;
static const char *tracefs_root;	/* NULL: tracefs_path() */

void events_set_roots(const char *sysfs_devices, const char *tracefs)
{
	sysfs_root = sysfs_devices ? sysfs_devices : SYSFS_DEVICES;
	tracefs_root = tracefs;
}

static const char *tfs_path(void)
{
	return tracefs_root ? tracefs_root : tracefs_path();
}

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

static const struct named *lookup_sym(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sym_events); i++)
		if (!strcmp(sym_events[i].name, name))
			return &sym_events[i];
	return NULL;
}

bool hw_pmu_present(void)
{
	static const char *const pmus[] = { "cpu", "cpu_core", "armv8_pmuv3_0" };
	char path[512];

	for (size_t i = 0; i < ARRAY_SIZE(pmus); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_root, pmus[i]);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
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


/* One events_parse() call. */
struct ps {
	struct ev_list *l;
	char *err;
	size_t errlen;
	int spec;
	bool in_group;
};

static int __attribute__((format(printf, 3, 4)))
fail(struct ps *p, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static bool same_event(const struct pf_event *a, const struct pf_event *b)
{
	return !memcmp(&a->attr, &b->attr, sizeof(a->attr)) &&
	       a->term_period == b->term_period && a->term_freq == b->term_freq;
}

/* Add e (a prototype, zeroed where unused); an event named twice is kept once. */
static int add_event(struct ps *p, const struct pf_event *proto)
{
	struct ev_list *l = p->l;
	struct pf_event *n, e = *proto;

	e.attr.size = sizeof(e.attr);
	e.group_leader = -1;
	if (!p->in_group) {
		for (int i = 0; i < l->nr; i++) {
			if (l->ev[i].group_leader < 0 && same_event(&l->ev[i], &e)) {
				l->spec[i] = p->spec;	/* first_spec stays */
				return 0;
			}
		}
	}
	if (l->nr >= MAX_EVENTS)
		return fail(p, -E2BIG, "%s: too many events (max %d)", e.name, MAX_EVENTS);
	n = &l->ev[l->nr];
	*n = e;
	l->first_spec[l->nr] = p->spec;
	l->spec[l->nr++] = p->spec;
	return 0;
}

static const char *kind(u32 type)
{
	switch (type) {
	case PERF_TYPE_SOFTWARE: return "a software event";
	case PERF_TYPE_TRACEPOINT: return "a tracepoint";
	case PERF_TYPE_BREAKPOINT: return "a breakpoint";
	default: return NULL;
	}
}

#define MODS_HELP "u (user), k (kernel), h (hypervisor), p/pp/ppp (precise), G (guest), H (host), I (not idle)"

/*
 * Modifiers, as perf's get_event_modifier(): starting from the exclude
 * bits already set (a group's modifiers come after its members' own).
 */
static int apply_mods(struct ps *p, struct perf_event_attr *a, const char *mods,
		      const char *what)
{
	int eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	int eG = a->exclude_guest, eH = a->exclude_host, eI = a->exclude_idle;
	int exclude = eu | ek | eh, exclude_GH = eG | eH, precise = a->precise_ip;

	if (!mods)
		return 0;
	if (!*mods)
		return fail(p, -EINVAL, "%s: empty modifier after ':' (modifiers: " MODS_HELP ")",
			    what);
	for (const char *c = mods; *c; c++) {
		switch (*c) {
		case 'u':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			eu = 0;
			break;
		case 'k':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			ek = 0;
			break;
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			eh = 0;
			break;
		case 'G':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eG = 0;
			break;
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eH = 0;
			break;
		case 'I':
			eI = 1;
			break;
		case 'p':
			precise++;
			break;
		case 'P': case 'S': case 'D': case 'e': case 'W': case 'b':
			return fail(p, -EOPNOTSUPP, "%s: modifier '%c' (%s) is not supported by "
				    "perf-ring (modifiers: " MODS_HELP ")", what, *c,
				    *c == 'P' ? "maximum precision" : *c == 'S' ? "sample read" :
				    *c == 'D' ? "pinned" : *c == 'e' ? "exclusive" :
				    *c == 'W' ? "weak group" : "BPF counter");
		default:
			return fail(p, -EINVAL, "%s: unknown modifier '%c' in ':%s' (modifiers: "
				    MODS_HELP ")", what, *c, mods);
		}
	}
	if (precise > 3)
		return fail(p, -EINVAL, "%s: precise_ip goes up to 3 (:ppp), ':%s' asks for %d",
			    what, mods, precise);
	if (precise && kind(a->type))
		return fail(p, -EOPNOTSUPP, "%s: precise sampling (:p) is a feature of "
			    "hardware PMU events (PEBS, IBS); this is %s, which has no "
			    "precise mode", what, kind(a->type));
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_guest = eG;
	a->exclude_host = eH;
	a->exclude_idle = eI;
	a->precise_ip = precise;
	return 0;
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* "config:0-7,32-35" from a PMU's format/ directory into attr. */
static int apply_format(struct ps *p, struct perf_event_attr *a, const char *fmt,
			const char *key, u64 v, const char *what)
{
	const char *colon = strchr(fmt, ':'), *s;
	__u64 *dst;
	u64 val = v;
	int bits = 0;

	if (!colon)
		return fail(p, -EINVAL, "%s: cannot read the format of '%s' ('%s')", what, key, fmt);
	if (!strncmp(fmt, "config:", 7))
		dst = &a->config;
	else if (!strncmp(fmt, "config1:", 8))
		dst = &a->config1;
	else if (!strncmp(fmt, "config2:", 8))
		dst = &a->config2;
	else
		return fail(p, -EINVAL, "%s: term '%s' sets '%.*s', which perf-ring does not know",
			    what, key, (int)(colon - fmt), fmt);
	for (int pass = 0; pass < 2; pass++) {
		s = colon + 1;
		while (*s && *s != '\n') {
			char *end;
			unsigned long lo = strtoul(s, &end, 10), hi = lo;

			if (end == s)
				return fail(p, -EINVAL, "%s: cannot read the format of '%s' ('%s')",
					    what, key, fmt);
			if (*end == '-')
				hi = strtoul(end + 1, &end, 10);
			if (hi < lo || hi > 63)
				return fail(p, -EINVAL, "%s: cannot read the format of '%s' ('%s')",
					    what, key, fmt);
			for (unsigned long b = lo; b <= hi; b++) {
				if (pass == 0) {
					bits++;
				} else {
					*dst &= ~(1ULL << b);
					*dst |= (val & 1) << b;
					val >>= 1;
				}
			}
			s = *end == ',' ? end + 1 : end;
		}
		if (pass == 0 && bits < 64 && v >> bits)
			return fail(p, -ERANGE, "%s: term '%s=%#llx' does not fit its %d bits (%.*s)",
				    what, key, (unsigned long long)v, bits,
				    (int)strcspn(fmt, "\n"), fmt);
	}
	return 0;
}

static const char *const builtin_terms = "config, config1, config2, period, freq, name";

/* The format/ entries of a PMU, ", "-separated, into buf. */
static void format_names(const char *pmu, char *buf, size_t len)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	size_t n = 0;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/%s/format", sysfs_root, pmu);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && n + 1 < len) {
		if (de->d_name[0] == '.')
			continue;
		n += snprintf(buf + n, len - n, ", %s", de->d_name);
	}
	closedir(d);
}

/*
 * Terms between the slashes into e.  pmu is NULL for a symbolic event or
 * a tracepoint, which take period, freq and name only.
 */
static int apply_terms(struct ps *p, const char *pmu, const char *terms,
		       struct pf_event *e, const char *what)
{
	char *dup = strdup(terms), *save = NULL, *t;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	for (t = strtok_r(dup, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		char *val = strchr(t, '='), path[512], *fmt;
		u64 v = 1;

		if (val)
			*val++ = 0;
		if (!strcmp(t, "name")) {
			size_t n;

			if (!val || !*val) {
				ret = fail(p, -EINVAL, "%s: term 'name' needs a value (name=NAME)", what);
				break;
			}
			n = strlen(val);
			if (n >= 2 && (val[0] == '\'' || val[0] == '"') && val[n - 1] == val[0]) {
				val[n - 1] = 0;
				val++;
			}
			snprintf(e->name, sizeof(e->name), "%s", val);
			continue;
		}
		if (val && parse_u64(val, &v)) {
			ret = fail(p, -EINVAL, "%s: term '%s': '%s' is not a number", what, t, val);
			break;
		}
		if (!strcmp(t, "period") || !strcmp(t, "freq")) {
			if (!val || !v) {
				ret = fail(p, -EINVAL, "%s: term '%s' needs a positive value (%s=N)",
					   what, t, t);
				break;
			}
			*(t[0] == 'p' ? &e->term_period : &e->term_freq) = v;
			continue;
		}
		if (!strcmp(t, "config") || !strcmp(t, "config1") || !strcmp(t, "config2")) {
			if (!pmu) {
				ret = fail(p, -EINVAL, "%s: term '%s' is for the PMU form "
					   "(software/config=N/, tracepoint/config=ID/); "
					   "this event takes period, freq and name", what, t);
				break;
			}
			*(t[6] == 0 ? &e->attr.config : t[6] == '1' ? &e->attr.config1 :
			  &e->attr.config2) = v;
			continue;
		}
		if (pmu) {
			snprintf(path, sizeof(path), "%s/%s/format/%s", sysfs_root, pmu, t);
			if (!strchr(t, '/') && t[0] != '.' && !read_text_file(path, &fmt, NULL)) {
				ret = apply_format(p, &e->attr, fmt, t, v, what);
				free(fmt);
				continue;
			}
		}
		if (pmu) {
			char fmts[512];

			format_names(pmu, fmts, sizeof(fmts));
			ret = fail(p, -EINVAL, "%s: unknown term '%s' for PMU '%s' (terms: %s%s)",
				   what, t, pmu, builtin_terms, fmts);
		} else {
			ret = fail(p, -EINVAL, "%s: unknown term '%s' (terms: period, freq, name)",
				   what, t);
		}
	}
	free(dup);
	if (!ret && e->term_period && e->term_freq)
		ret = fail(p, -EINVAL, "%s: give period= or freq=, not both", what);
	return ret;
}

struct tp_add {
	struct ps *p;
	const struct pf_event *proto;
	const char *mods;
	bool named;		/* a name= term */
	int found;
	int ret;
};

static int tp_add_one(void *arg, const char *sys, const char *name, u64 id)
{
	struct tp_add *t = arg;
	struct pf_event e = *t->proto;

	e.attr.type = PERF_TYPE_TRACEPOINT;
	e.attr.config = id;
	set_tp(&e, sys, name);
	if (!t->named)
		snprintf(e.name, sizeof(e.name), "%s:%s%s%s", sys, name, t->mods ? ":" : "",
			 t->mods ? t->mods : "");
	t->ret = apply_mods(t->p, &e.attr, t->mods, e.name);
	if (!t->ret)
		t->ret = add_event(t->p, &e);
	if (!t->ret)
		t->found++;
	return t->ret;
}

static int add_tracepoints(struct ps *p, const char *tok, const char *sysname,
			   const char *terms, const char *mods)
{
	const char *tfs = tfs_path();
	const char *colon = strchr(sysname, ':');
	struct pf_event proto;
	struct tp_add t = { .p = p, .proto = &proto, .mods = mods };
	char sys[128], name[256];
	int ret;

	if (!tfs && !tracefs_root && access("/sys/kernel/tracing/events/header_page", R_OK) &&
	    errno == EACCES)
		return fail(p, -EACCES, "%s: cannot read tracefs (/sys/kernel/tracing: %s): "
			    "finding a tracepoint needs root, or read access to tracefs",
			    tok, strerror(EACCES));
	if (!tfs)
		return fail(p, -ENOENT, "%s: tracefs is not mounted "
			    "(mount -t tracefs nodev /sys/kernel/tracing)", tok);
	if ((size_t)(colon - sysname) >= sizeof(sys) || strlen(colon + 1) >= sizeof(name))
		return fail(p, -EINVAL, "%s: event name too long", tok);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - sysname), sysname);
	snprintf(name, sizeof(name), "%s", colon + 1);
	if (!sys[0] || !name[0])
		return fail(p, -EINVAL, "%s: a tracepoint is SYSTEM:NAME", tok);
	memset(&proto, 0, sizeof(proto));
	if (terms) {
		ret = apply_terms(p, NULL, terms, &proto, tok);
		if (ret)
			return ret;
		t.named = proto.name[0];
	}
	ret = tp_walk(tfs, sys, name, tp_add_one, &t);
	if (t.ret)
		return t.ret;
	if (ret < 0)
		return fail(p, ret, "%s: cannot list %s/events: %s", tok, tfs, strerror(-ret));
	if (!t.found) {
		char **v = NULL;
		int n = 0;
		char path[512];

		snprintf(path, sizeof(path), "%s/events", tfs);
		list_dir(path, sys, &v, &n);
		free_list(v, n);
		if (!n && !strchr(name, '*') && strspn(name, "ukhpPGHSDIWeb") == strlen(name))
			return fail(p, -ENOENT, "unknown event '%s': '%s' is not an event perf-ring "
				    "knows, nor a tracepoint system in %s/events", tok, sys, tfs);
		return fail(p, -ENOENT, "unknown event '%s': no such tracepoint in %s/events",
			    tok, tfs);
	}
	return 0;
}

static int tp_by_id(void *arg, const char *sys, const char *name, u64 id)
{
	struct pf_event *e = arg;

	if (id != e->attr.config)
		return 0;
	set_tp(e, sys, name);
	return 1;
}

/* PMU names under sysfs, ", "-separated, for a message. */
static void pmu_names(char *buf, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(sysfs_root);
	char **v = NULL;
	int n = 0;
	size_t o = 0;

	buf[0] = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (int i = 0; i < n && o + 1 < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? ", " : "", v[i]);
	free_list(v, n);
}

static int add_pmu_event(struct ps *p, const char *tok, const char *pmu,
			 const char *terms, const char *mods)
{
	struct pf_event e;
	char path[512], *s, names[512];
	u64 type;
	int ret;

	memset(&e, 0, sizeof(e));
	snprintf(path, sizeof(path), "%s/%s/type", sysfs_root, pmu);
	if (strchr(pmu, '/') || pmu[0] == '.' || read_text_file(path, &s, NULL)) {
		pmu_names(names, sizeof(names));
		return fail(p, -ENOENT, "%s: no PMU named '%s' (in %s: %s)", tok, pmu,
			    sysfs_root, names[0] ? names : "none");
	}
	s[strcspn(s, "\n")] = 0;
	ret = parse_u64(s, &type);
	free(s);
	if (ret || type > 0xffffffffULL)
		return fail(p, -EINVAL, "%s: cannot read %s", tok, path);
	e.attr.type = type;
	ret = apply_terms(p, pmu, terms, &e, tok);
	if (ret)
		return ret;
	if (type == PERF_TYPE_TRACEPOINT) {
		const char *tfs = tfs_path();

		if (!tfs)
			return fail(p, -ENOENT, "%s: tracefs is not mounted, so the tracepoint's "
				    "format cannot be found", tok);
		if (tp_walk(tfs, "*", "*", tp_by_id, &e) != 1)
			return fail(p, -ENOENT, "%s: no tracepoint has id %llu (config=) in %s/events",
				    tok, (unsigned long long)e.attr.config, tfs);
	}
	if (!e.name[0])
		snprintf(e.name, sizeof(e.name), "%s", tok);
	ret = apply_mods(p, &e.attr, mods, tok);
	return ret ? ret : add_event(p, &e);
}

static int add_symbolic(struct ps *p, const char *tok, const struct named *n,
			const char *terms, const char *mods)
{
	struct pf_event e;
	int ret;

	if (n->type == PERF_TYPE_HARDWARE && !hw_pmu_present())
		return fail(p, -ENODEV, "%s: no hardware PMU on this machine; try cpu-clock", tok);
	memset(&e, 0, sizeof(e));
	e.attr.type = n->type;
	e.attr.config = n->config;
	if (terms) {
		ret = apply_terms(p, NULL, terms, &e, tok);
		if (ret)
			return ret;
	}
	if (!e.name[0])
		snprintf(e.name, sizeof(e.name), "%s", tok);
	ret = apply_mods(p, &e.attr, mods, tok);
	return ret ? ret : add_event(p, &e);
}

/* mem:ADDR[/LEN][:rwx][:mods], as perf's event_legacy_mem. */
static int add_breakpoint(struct ps *p, const char *tok)
{
	const char *s = tok + 4, *mods = NULL;
	struct pf_event e;
	char *end;
	u64 addr, len = 0;
	u32 type = 0;
	int ret;

	errno = 0;
	addr = strtoull(s, &end, 0);
	if (end == s || errno || *s == '-')
		return fail(p, -EINVAL, "%s: expected an address after 'mem:' (mem:0x1000)", tok);
	if (*end == '/') {
		s = end + 1;
		errno = 0;
		len = strtoull(s, &end, 0);
		if (end == s || errno || *s == '-')
			return fail(p, -EINVAL, "%s: expected a length after '/' (mem:ADDR/8)", tok);
		if (len != 1 && len != 2 && len != 4 && len != 8)
			return fail(p, -EINVAL, "%s: length %llu: a breakpoint watches 1, 2, 4 or 8 "
				    "bytes", tok, (unsigned long long)len);
	}
	if (*end == ':') {
		const char *part = end + 1;
		size_t n = strcspn(part, ":");

		if (n && strspn(part, "rwx") >= n) {
			for (size_t i = 0; i < n; i++) {
				u32 bit = part[i] == 'r' ? HW_BREAKPOINT_R :
					  part[i] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;

				if (type & bit)
					return fail(p, -EINVAL, "%s: '%c' given twice in the access "
						    "type", tok, part[i]);
				type |= bit;
			}
			if (part[n] == ':')
				mods = part + n + 1;
			if (mods && strchr(mods, ':'))
				return fail(p, -EINVAL, "%s: after the address come the access "
					    "type (r, w, x) and then the modifiers, each after one "
					    "':'", tok);
		} else {
			mods = part;
			if (part[n])
				return fail(p, -EINVAL, "%s: after the address come the access type "
					    "(r, w, x) and then the modifiers, each after one ':'",
					    tok);
		}
	} else if (*end) {
		return fail(p, -EINVAL, "%s: unexpected '%s' after the address "
			    "(mem:ADDR[/LEN][:rwx][:MODIFIERS])", tok, end);
	}
	if (!type)
		type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X)
		return fail(p, -EINVAL, "%s: a breakpoint is on execution (x) or on data (r, w, "
			    "rw), not both", tok);
#if defined(__x86_64__) || defined(__i386__)
	if (type == HW_BREAKPOINT_R)
		return fail(p, -EINVAL, "%s: x86 has no read-only breakpoints; use :rw (read or "
			    "write) or :w", tok);
	if (type == HW_BREAKPOINT_X && len && len != sizeof(long))
		return fail(p, -EINVAL, "%s: an execute breakpoint on x86 takes the length %zu "
			    "(or none)", tok, sizeof(long));
#endif
	if (!len)
		len = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	if (type != HW_BREAKPOINT_X && addr % len)
		return fail(p, -EINVAL, "%s: address %#llx is not aligned to the length %llu",
			    tok, (unsigned long long)addr, (unsigned long long)len);
	memset(&e, 0, sizeof(e));
	e.attr.type = PERF_TYPE_BREAKPOINT;
	e.attr.bp_addr = addr;
	e.attr.bp_len = len;
	e.attr.bp_type = type;
	snprintf(e.name, sizeof(e.name), "%s", tok);
	ret = apply_mods(p, &e.attr, mods, tok);
	return ret ? ret : add_event(p, &e);
}

static int add_token(struct ps *p, const char *tok)
{
	const char *slash = strchr(tok, '/'), *colon;
	const struct named *n;
	char head[256];
	int ret;

	if (!strncmp(tok, "mem:", 4))
		return add_breakpoint(p, tok);
	if (slash) {
		const char *close = strchr(slash + 1, '/'), *mods;
		char *terms;

		if (!close)
			return fail(p, -EINVAL, "%s: the terms have no closing '/' "
				    "(PMU/term=value,.../)", tok);
		if ((size_t)(slash - tok) >= sizeof(head))
			return fail(p, -EINVAL, "%s: event name too long", tok);
		snprintf(head, sizeof(head), "%.*s", (int)(slash - tok), tok);
		mods = close[1] ? close + 1 + (close[1] == ':') : NULL;
		if (mods && strpbrk(mods, "/:"))
			return fail(p, -EINVAL, "%s: unexpected '%s' after the terms", tok, close + 1);
		terms = strndup(slash + 1, close - slash - 1);
		if (!terms)
			return -ENOMEM;
		if (strchr(head, ':'))
			ret = add_tracepoints(p, tok, head, terms, mods);
		else if ((n = lookup_sym(head)))
			ret = add_symbolic(p, tok, n, terms, mods);
		else
			ret = add_pmu_event(p, tok, head, terms, mods);
		free(terms);
		return ret;
	}
	colon = strchr(tok, ':');
	if (!colon) {
		n = lookup_sym(tok);
		if (n)
			return add_symbolic(p, tok, n, NULL, NULL);
		return fail(p, -EINVAL, "unknown event '%s' (try a tracepoint such as "
			    "'raw_syscalls:*', or cpu-clock, task-clock, page-faults, "
			    "context-switches, dummy)", tok);
	}
	if ((size_t)(colon - tok) >= sizeof(head))
		return fail(p, -EINVAL, "%s: event name too long", tok);
	snprintf(head, sizeof(head), "%.*s", (int)(colon - tok), tok);
	n = lookup_sym(head);
	if (n) {
		if (strchr(colon + 1, ':'))
			return fail(p, -EINVAL, "%s: one list of modifiers after the name "
				    "(%s:MODIFIERS)", tok, head);
		return add_symbolic(p, tok, n, NULL, colon + 1);
	}
	/* sys:name[:mods] */
	{
		const char *mods = strchr(colon + 1, ':');
		char sysname[400];

		if (!mods)
			return add_tracepoints(p, tok, tok, NULL, NULL);
		if (strchr(mods + 1, ':'))
			return fail(p, -EINVAL, "%s: too many ':' (SYSTEM:NAME:MODIFIERS)", tok);
		if ((size_t)(mods - tok) >= sizeof(sysname))
			return fail(p, -EINVAL, "%s: event name too long", tok);
		snprintf(sysname, sizeof(sysname), "%.*s", (int)(mods - tok), tok);
		return add_tracepoints(p, tok, sysname, NULL, mods + 1);
	}
}

/* The length of the event at s: up to ',', '{' or '}' outside /terms/. */
static size_t token_len(const char *s)
{
	bool mem = !strncmp(s, "mem:", 4), in_terms = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '/' && !mem)
			in_terms = !in_terms;
		else if (!in_terms && strchr(",{}", s[i]))
			break;
	}
	return i;
}

static int parse_one(struct ps *p, const char **sp)
{
	size_t n = token_len(*sp);
	char *tok;
	int ret;

	if (!n)
		return fail(p, -EINVAL, "empty event name at '%s'", *sp);
	tok = strndup(*sp, n);
	if (!tok)
		return -ENOMEM;
	ret = add_token(p, tok);
	free(tok);
	*sp += n;
	return ret;
}

static int parse_group(struct ps *p, const char **sp)
{
	const char *start = *sp, *s = *sp + 1;
	struct ev_list *l = p->l;
	int first = l->nr, ret;

	p->in_group = true;
	for (;;) {
		if (*s == '{')
			return fail(p, -EINVAL, "%s: groups do not nest", start);
		if (*s == '}' && l->nr == first)
			return fail(p, -EINVAL, "%s: empty group", start);
		ret = parse_one(p, &s);
		if (ret)
			return ret;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '}')
			break;
		if (*s == '{')
			return fail(p, -EINVAL, "%s: groups do not nest", start);
		return fail(p, -EINVAL, "%s: the group has no closing '}'", start);
	}
	p->in_group = false;
	s++;
	if (*s == ':') {
		size_t n = strcspn(s + 1, ",{}");
		char *mods = strndup(s + 1, n), what[300];

		if (!mods)
			return -ENOMEM;
		snprintf(what, sizeof(what), "%.*s", (int)(s + 1 + n - start), start);
		for (int i = first; i < l->nr && !ret; i++)
			ret = apply_mods(p, &l->ev[i].attr, mods, what);
		free(mods);
		if (ret)
			return ret;
		s += 1 + n;
	} else if (*s && *s != ',') {
		return fail(p, -EINVAL, "%.*s: unexpected '%c' after the group",
			    (int)(s + 1 - start), start, *s);
	}
	for (int i = first; i < l->nr; i++)
		l->ev[i].group_leader = first;
	l->ev[first].nr_members = l->nr - first;
	*sp = s;
	return 0;
}

int events_parse(const char *spec, struct ev_list *l, char *err, size_t errlen)
{
	struct ps p = { .l = l, .err = err, .errlen = errlen, .spec = ++l->nr_specs };
	const char *s = spec;
	int ret;

	if (!*s)
		return fail(&p, -EINVAL, "empty event list");
	while (*s) {
		ret = *s == '{' ? parse_group(&p, &s) : parse_one(&p, &s);
		if (ret)
			return ret;
		if (*s == '}')
			return fail(&p, -EINVAL, "%s: '}' without a '{'", spec);
		if (*s == '{')
			return fail(&p, -EINVAL, "%s: a group starts an event: {a,b},c", spec);
		if (*s == ',' && !*++s)
			return fail(&p, -EINVAL, "%s: empty event name after the last ','", spec);
	}
	return 0;
}

/* The fields of a tracepoint, from its format file, ' '-separated and ' '-ended. */
static char *tp_fields(const struct pf_event *e)
{
	const char *tfs = tfs_path();
	char path[512], *fmt, *out, *s;
	size_t n = 0;

	if (!tfs)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs, e->tp_sys, e->tp_name);
	if (read_text_file(path, &fmt, NULL))
		return NULL;
	out = malloc(strlen(fmt) + 64);
	if (!out) {
		free(fmt);
		return NULL;
	}
	/* the kernel's generic fields */
	n = sprintf(out, " CPU cpu COMM comm STACKTRACE stacktrace ");
	for (s = strstr(fmt, "field:"); s; s = strstr(s, "field:")) {
		char *semi = strchr(s, ';'), *b, *e2;

		s += 6;
		if (!semi)
			break;
		e2 = semi;
		b = memchr(s, '[', semi - s);
		if (b)
			e2 = b;
		while (e2 > s && e2[-1] == ' ')
			e2--;
		b = e2;
		while (b > s && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		n += sprintf(out + n, "%.*s ", (int)(e2 - b), b);
		s = semi;
	}
	free(fmt);
	return out;
}

/*
 * The RAW part of a sample of e (the u32 size and the data, 8-aligned), at
 * most: exact for a tracepoint whose fields all have a fixed size,
 * PERF_MAX_TRACE_SIZE (8192) when one has a dynamic size (__data_loc,
 * __rel_loc) or the format cannot be read, 0 when e has no RAW.
 */
u32 events_raw_max(const struct pf_event *e)
{
	const char *tfs = tfs_path();
	char path[512], *fmt, *s;
	u64 end = 0;

	if (e->attr.type != PERF_TYPE_TRACEPOINT)
		return 0;
	if (!tfs)
		return 8192;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs, e->tp_sys, e->tp_name);
	if (read_text_file(path, &fmt, NULL))
		return 8192;
	for (s = strstr(fmt, "field:"); s; s = strstr(s + 1, "field:")) {
		char *nl = strchr(s, '\n'), *o = strstr(s, "offset:"), *z = strstr(s, "size:");
		unsigned long off, size;

		if (!nl || !o || !z || o > nl || z > nl ||
		    sscanf(o, "offset:%lu", &off) != 1 || sscanf(z, "size:%lu", &size) != 1 ||
		    memmem(s, nl - s, "__data_loc", 10) || memmem(s, nl - s, "__rel_loc", 9)) {
			end = 8192;
			break;
		}
		if (off + size > end)
			end = off + size;
	}
	free(fmt);
	end = ALIGN_UP(end + 4, 8);
	return end > 8192 ? 8192 : (u32)end;
}

static bool has_field(const char *fields, const char *name, size_t len)
{
	char want[130];

	if (len > 120)
		return false;
	snprintf(want, sizeof(want), " %.*s ", (int)len, name);
	return strstr(fields, want);
}

/* Field names, quotes and parentheses of a filter; the rest is the kernel's. */
static int check_filter(struct ps *p, const struct pf_event *e, const char *f)
{
	char *fields = tp_fields(e);
	int depth = 0;

	for (const char *s = f; *s;) {
		if (*s == '"' || *s == '\'') {
			const char *q = strchr(s + 1, *s);

			if (!q) {
				free(fields);
				return fail(p, -EINVAL, "--filter '%s': unterminated string %s", f, s);
			}
			s = q + 1;
		} else if (isalpha((unsigned char)*s) || *s == '_') {
			const char *b = s, *o;

			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			for (o = s; *o == ' ' || *o == '\t'; o++)
				;
			if (fields && strchr("=!<>&~", *o) && *o && !(o[0] == '&' && o[1] == '&') &&
			    !(o[0] == '!' && o[1] != '=') && !has_field(fields, b, s - b)) {
				char *list = fields + strlen(" CPU cpu COMM comm STACKTRACE stacktrace ");
				int ret;

				list[strlen(list) - 1] = 0;
				ret = fail(p, -EINVAL, "--filter '%s': %s has no field '%.*s' (its "
					   "fields: %s)", f, e->name, (int)(s - b), b, list);
				free(fields);
				return ret;
			}
		} else if (isdigit((unsigned char)*s)) {
			while (isalnum((unsigned char)*s))	/* 12, 0x3c */
				s++;
		} else {
			if (*s == '(')
				depth++;
			if (*s == ')' && --depth < 0)
				break;
			s++;
		}
	}
	free(fields);
	if (depth)
		return fail(p, -EINVAL, "--filter '%s': unbalanced parentheses", f);
	return 0;
}

int events_add_filter(struct ev_list *l, const char *filter, char *err, size_t errlen)
{
	struct ps p = { .l = l, .err = err, .errlen = errlen };
	int n = 0, ret;

	if (!l->nr_specs)
		return fail(&p, -EINVAL, "--filter '%s' must follow a -e that names tracepoints",
			    filter);
	if (!*filter)
		return fail(&p, -EINVAL, "--filter: empty filter");
	for (int i = 0; i < l->nr; i++) {
		if (l->spec[i] != l->nr_specs)
			continue;
		if (l->ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			return fail(&p, -EINVAL, "--filter '%s': %s is not a tracepoint; a filter "
				    "applies to the tracepoints of the -e before it", filter,
				    l->ev[i].name);
		ret = check_filter(&p, &l->ev[i], filter);
		if (ret)
			return ret;
		n++;
	}
	if (!n)
		return fail(&p, -EINVAL, "--filter '%s' must follow a -e that names tracepoints",
			    filter);
	/*
	 * An event an earlier -e named too was kept once (add_event()); perf
	 * would record it twice, once without this filter.  So do that.
	 */
	for (int i = 0, nr = l->nr; i < nr; i++) {
		if (l->spec[i] != l->nr_specs || l->first_spec[i] == l->nr_specs)
			continue;
		if (l->nr >= MAX_EVENTS)
			return fail(&p, -E2BIG, "%s: too many events (max %d)", l->ev[i].name,
				    MAX_EVENTS);
		l->ev[l->nr] = l->ev[i];
		l->ev[l->nr].filter = NULL;	/* the earlier -e's filter stays with it */
		l->spec[l->nr] = l->first_spec[l->nr] = l->nr_specs;
		l->spec[i] = l->first_spec[i];
		l->nr++;
	}
	for (int i = 0; i < l->nr; i++) {
		struct pf_event *e = &l->ev[i];
		char *nf;

		if (l->spec[i] != l->nr_specs)
			continue;
		if (e->filter) {
			if (asprintf(&nf, "(%s) && (%s)", e->filter, filter) < 0)
				return -ENOMEM;
			free(e->filter);
		} else {
			nf = strdup(filter);
			if (!nf)
				return -ENOMEM;
		}
		e->filter = nf;
	}
	return 0;
}

void events_free(struct ev_list *l)
{
	for (int i = 0; i < l->nr; i++)
		free(l->ev[i].filter);
	memset(l, 0, sizeof(*l));
}

int events_leader(const struct pf_event *evs, int i)
{
	int g = evs[i].group_leader;

	return g >= 0 && g != i ? g : -1;
}

static bool group_leader(const struct pf_event *evs, int i)
{
	return evs[i].group_leader == i && evs[i].nr_members > 1;
}

int events_nr_groups(const struct pf_event *evs, int nr)
{
	int n = 0;

	for (int i = 0; i < nr; i++)
		n += group_leader(evs, i);
	return n;
}

/* u32 nr_groups, then per group: name (perf string), u32 leader index, u32 members */
void events_group_desc(const struct pf_event *evs, int nr, struct pbuf *b)
{
	pbuf_u32(b, events_nr_groups(evs, nr));
	for (int i = 0; i < nr; i++) {
		if (!group_leader(evs, i))
			continue;
		pbuf_pstr(b, "{anon_group}");	/* perf's name for a group without one */
		pbuf_u32(b, i);
		pbuf_u32(b, evs[i].nr_members);
	}
}

int events_apply_filter(int fd, const struct pf_event *e, char *err, size_t errlen)
{
	int en;

	if (!e->filter)
		return 0;
	if (!ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter))
		return 0;
	en = errno;
	snprintf(err, errlen, "%s: --filter '%s': %s%s", e->name, e->filter, strerror(en),
		 en == EINVAL ? " (the kernel's filter parser refused it: check the operators, "
		 "and the values against the field types in the tracepoint's format file)" : "");
	return -en;
}

void events_finish_attr(struct pf_event *e, bool user_period)
{
	struct perf_event_attr *a = &e->attr;

	if (e->term_period) {
		/* as for -c: PERF_SAMPLE_PERIOD would make every hit a sample */
		a->freq = 0;
		a->sample_period = e->term_period;
		a->sample_type &= ~(u64)PERF_SAMPLE_PERIOD;
	} else if (e->term_freq) {
		a->freq = 1;
		a->sample_freq = e->term_freq;
	} else if (a->type == PERF_TYPE_BREAKPOINT && !user_period) {
		a->freq = 0;
		a->sample_period = 1;	/* as perf: every hit */
	}
}

int events_unapplied(const struct ev_list *l, unsigned int applied, bool user_period,
		     char *err, size_t errlen)
{
	for (int i = 0; i < l->nr; i++) {
		const struct pf_event *e = &l->ev[i];
		const char *what = NULL;

		if (!(applied & EV_OPENER_GROUPS) && e->group_leader >= 0 &&
		    l->ev[e->group_leader].nr_members > 1)
			what = "groups ({a,b})";
		else if (!(applied & EV_OPENER_FILTERS) && e->filter)
			what = "tracepoint filters (--filter)";
		else if (!(applied & EV_OPENER_TERMS) && (e->term_period || e->term_freq))
			what = "the period= and freq= terms";
		if (!what && !(applied & EV_OPENER_TERMS) && e->attr.type == PERF_TYPE_BREAKPOINT &&
		    !user_period) {
			snprintf(err, errlen, "%s: a breakpoint samples every hit, but this perf-ring "
				 "does not set that period when it opens the events yet; give -c 1",
				 e->name);
			return -EOPNOTSUPP;
		}
		if (what) {
			snprintf(err, errlen, "%s: %s are parsed, but this perf-ring does not "
				 "apply them when it opens the events yet", e->name, what);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

void events_open_error(const struct pf_event *e, int errnum, char *buf, size_t len)
{
	if (e->attr.type == PERF_TYPE_HARDWARE &&
	    (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)) {
		snprintf(buf, len, "%s: no hardware PMU on this machine; try cpu-clock", e->name);
	} else if (errnum == EACCES || errnum == EPERM) {
		snprintf(buf, len, "%s: %s (check /proc/sys/kernel/perf_event_paranoid, "
			 "or run as root)", e->name, strerror(errnum));
	} else if (e->attr.type == PERF_TYPE_BREAKPOINT && errnum == ENOSPC) {
		snprintf(buf, len, "%s: %s: no free hardware breakpoint (the CPU has a few debug "
			 "registers, 4 on x86, shared with debuggers and other events)",
			 e->name, strerror(errnum));
	} else if (e->attr.type == PERF_TYPE_BREAKPOINT && errnum == EINVAL) {
		snprintf(buf, len, "%s: the kernel refused the breakpoint (%s): the CPU cannot "
			 "watch this address, length and access type together", e->name,
			 strerror(errnum));
	} else if (e->attr.precise_ip && (errnum == EOPNOTSUPP || errnum == EINVAL)) {
		snprintf(buf, len, "%s: perf_event_open: %s: the PMU refused precise_ip=%u; "
			 "try fewer p's", e->name, strerror(errnum), e->attr.precise_ip);
	} else if (errnum == EINVAL && e->attr.write_backward) {
		snprintf(buf, len, "%s: the kernel rejected write_backward (%s); --overwrite "
			 "needs backward ring buffers (Linux 4.7)", e->name, strerror(errnum));
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
int events_name_attr(const struct perf_event_attr *a, struct pf_event *e)
{
	const char *tfs;

	memset(e, 0, sizeof(*e));
	e->attr = *a;
	e->group_leader = -1;
	if (a->type == PERF_TYPE_BREAKPOINT) {
		snprintf(e->name, sizeof(e->name), "mem:%#llx/%llu:%s%s%s",
			 (unsigned long long)a->bp_addr, (unsigned long long)a->bp_len,
			 a->bp_type & HW_BREAKPOINT_R ? "r" : "",
			 a->bp_type & HW_BREAKPOINT_W ? "w" : "",
			 a->bp_type & HW_BREAKPOINT_X ? "x" : "");
		return 0;
	}
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
	tfs = tfs_path();
	if (tfs && tp_walk(tfs, "*", "*", tp_by_id, e) == 1) {
		snprintf(e->name, sizeof(e->name), "%s:%s", e->tp_sys, e->tp_name);
		return 0;
	}
	return -ENOENT;
}

/* events_name_attrs(): the tracepoints to name, sorted by id */
struct tp_names {
	struct pf_event *evs;
	int *idx;
	int n;
};

static struct pf_event *tp_sort_evs;

static int cmp_tp_config(const void *a, const void *b)
{
	u64 x = tp_sort_evs[*(const int *)a].attr.config;
	u64 y = tp_sort_evs[*(const int *)b].attr.config;

	return (x > y) - (x < y);
}

static int tp_name_all(void *arg, const char *sys, const char *name, u64 id)
{
	struct tp_names *t = arg;
	int lo = 0, hi = t->n;

	/* the first event with this id, then every one after it */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->evs[t->idx[mid]].attr.config < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->evs[t->idx[lo]].attr.config == id; lo++) {
		struct pf_event *e = &t->evs[t->idx[lo]];

		set_tp(e, sys, name);
		snprintf(e->name, sizeof(e->name), "%s:%s", sys, name);
	}
	return 0;
}

int events_name_attrs(struct pf_event *evs, int n, int *res)
{
	struct tp_names t = { evs, NULL, 0 };
	const char *tfs = tfs_path();

	t.idx = malloc((n > 0 ? n : 1) * sizeof(*t.idx));
	if (!t.idx)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a = evs[i].attr;

		if (a.type != PERF_TYPE_TRACEPOINT) {
			res[i] = events_name_attr(&a, &evs[i]);
			continue;
		}
		memset(&evs[i], 0, sizeof(evs[i]));
		evs[i].attr = a;
		evs[i].group_leader = -1;
		snprintf(evs[i].name, sizeof(evs[i].name), "tracepoint%llu",
			 (unsigned long long)a.config);
		t.idx[t.n++] = i;
	}
	if (t.n && tfs) {
		tp_sort_evs = evs;
		qsort(t.idx, t.n, sizeof(*t.idx), cmp_tp_config);
		tp_walk(tfs, "*", "*", tp_name_all, &t);
	}
	for (int k = 0; k < t.n; k++)
		res[t.idx[k]] = evs[t.idx[k]].tp_sys[0] ? 0 : -ENOENT;
	free(t.idx);
	return 0;
}
