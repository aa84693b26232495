// SPDX-License-Identifier: GPL-2.0
/* memmem() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "synth-iter.h"

/*
 * The kernel's BTF, read in place.  libbpf's parser (btf__load_vmlinux_btf,
 * btf__new) indexes and checks all of its ~125,000 types, which costs more
 * than the whole synthesis it is for (bench/results/synth-steps.md).  Here
 * one pass walks the types only as far as the two names needed (on 6.18,
 * bpf_iter_task is about half-way), recording where each STRIDE-th type
 * starts; a later lookup by id walks on from there, or further on if the
 * id lies beyond what was walked.
 */
struct btf_view {
	const unsigned char *types;
	const char *strs;
	uint32_t types_len, strs_len;
	uint32_t *off;		/* off[k]: where type id k * STRIDE + 1 starts in types */
	uint32_t n;		/* types walked: ids 1..n */
	uint32_t pos;		/* where type n + 1 starts */
	const char *bad;	/* why the walk stopped before the end, or NULL */
	uint32_t task_name, func_name;	/* string offsets of the two names */
	uint32_t task_id, func_id;	/* their types, once walked past */
	uint32_t looked;	/* members looked into by btf_member(), against MEMBERS_MAX */
};

/*
 * Anonymous members nest, and a malformed BTF could make a struct its own
 * member: the depth is capped, and so is the work, far above what
 * task_struct needs (a few hundred members, five names).
 */
#define MEMBERS_MAX (1u << 16)

/*
 * Types differ in size, so an id is found by walking from the last
 * indexed one before it: an index of every type would be a megabyte,
 * written once and read a few times.
 */
#define STRIDE 64

/*
 * A type's size in bytes is size_fixed[kind], struct btf_type included,
 * plus vlen * size_per[kind].  A kind this code does not know has a
 * fixed part no BTF section can hold, which ends a walk past the end.
 */
#define KIND_UNKNOWN (1ULL << 40)
#define FIXED(extra) (sizeof(struct btf_type) + (extra))

static const uint64_t size_fixed[32] = {
	[BTF_KIND_UNKN] = KIND_UNKNOWN,
	[BTF_KIND_INT] = FIXED(4),
	[BTF_KIND_PTR] = FIXED(0),
	[BTF_KIND_ARRAY] = FIXED(sizeof(struct btf_array)),
	[BTF_KIND_STRUCT] = FIXED(0),
	[BTF_KIND_UNION] = FIXED(0),
	[BTF_KIND_ENUM] = FIXED(0),
	[BTF_KIND_FWD] = FIXED(0),
	[BTF_KIND_TYPEDEF] = FIXED(0),
	[BTF_KIND_VOLATILE] = FIXED(0),
	[BTF_KIND_CONST] = FIXED(0),
	[BTF_KIND_RESTRICT] = FIXED(0),
	[BTF_KIND_FUNC] = FIXED(0),
	[BTF_KIND_FUNC_PROTO] = FIXED(0),
	[BTF_KIND_VAR] = FIXED(4),
	[BTF_KIND_DATASEC] = FIXED(0),
	[BTF_KIND_FLOAT] = FIXED(0),
	[BTF_KIND_DECL_TAG] = FIXED(4),
	[BTF_KIND_TYPE_TAG] = FIXED(0),
	[BTF_KIND_ENUM64] = FIXED(0),
	/* kinds after those: the uapi header of the build may know more */
	[BTF_KIND_ENUM64 + 1 ... 31] = KIND_UNKNOWN,
};

static const uint32_t size_per[32] = {
	[BTF_KIND_STRUCT] = sizeof(struct btf_member),
	[BTF_KIND_UNION] = sizeof(struct btf_member),
	[BTF_KIND_ENUM] = sizeof(struct btf_enum),
	[BTF_KIND_FUNC_PROTO] = sizeof(struct btf_param),
	[BTF_KIND_DATASEC] = sizeof(struct btf_var_secinfo),
	[BTF_KIND_ENUM64] = sizeof(struct btf_enum64),
};

static inline uint64_t btf_size(uint32_t info)
{
	uint32_t kind = BTF_INFO_KIND(info);

	return size_fixed[kind] + (uint64_t)BTF_INFO_VLEN(info) * size_per[kind];
}

/*
 * Walk on until type WANT is walked (FIND false), or until both names
 * are found (FIND true), or to the end of the types.  The first walk is
 * the one that finds; one that goes further on, for a type after those,
 * has no names to look for.  The loop is the whole cost of a scan,
 * about 60,000 types on 6.18, so it does per type only the size, one
 * bounds compare and, when finding, the two names; a bad type (unknown,
 * or past the end) ends it past the end and is told apart after it.
 */
static __attribute__((always_inline)) inline void
btf_walk_on(struct btf_view *v, uint32_t want, const bool find)
{
	const unsigned char *types = v->types;
	/* the last offset at which a struct btf_type fits */
	const uint64_t last = v->types_len - (uint64_t)sizeof(struct btf_type);
	const uint32_t task_name = v->task_name, func_name = v->func_name;
	uint32_t *off = v->off, n = v->n;
	uint64_t pos = v->pos, at = pos;

	if (v->types_len < sizeof(struct btf_type))
		return;
	while ((find || n < want) && pos <= last) {
		const struct btf_type *t = (const void *)(types + pos);
		uint32_t name = t->name_off;

		at = pos;
		pos += btf_size(t->info);
		if (n % STRIDE == 0)
			off[n / STRIDE] = at;
		n++;
		if (!find || (name != task_name && name != func_name))
			continue;
		/* the first with members: a later one of the name could be a module's */
		if (name == task_name && BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT &&
		    !v->task_id && BTF_INFO_VLEN(t->info))
			v->task_id = n;
		else if (name == func_name && BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
			 !v->func_id)
			v->func_id = n;
		if (v->task_id && v->func_id)
			break;
	}
	if (pos > v->types_len) {
		/* the last type read is not a type: not walked, and no walk goes on */
		const struct btf_type *t = (const void *)(types + at);

		v->bad = size_fixed[BTF_INFO_KIND(t->info)] == KIND_UNKNOWN ?
			 "the kernel's BTF has a type kind this perf-ring does not know" :
			 "the kernel's BTF is truncated";
		n--;
		pos = at;
		v->types_len = at;
		if (v->task_id > n)
			v->task_id = 0;
		if (v->func_id > n)
			v->func_id = 0;
	}
	v->pos = pos;
	v->n = n;
}

static void btf_find(struct btf_view *v)
{
	btf_walk_on(v, 0, true);
}

static void btf_walk(struct btf_view *v, uint32_t want)
{
	btf_walk_on(v, want, false);
}

static const struct btf_type *bt(struct btf_view *v, uint32_t id)
{
	const unsigned char *p;

	if (!id)
		return NULL;
	if (id > v->n)
		btf_walk(v, id);
	if (id > v->n)
		return NULL;
	p = v->types + v->off[(id - 1) / STRIDE];
	/* walked before: known kinds, within the section */
	for (uint32_t k = (id - 1) / STRIDE * STRIDE + 1; k < id; k++)
		p += btf_size(((const struct btf_type *)p)->info);
	return (const struct btf_type *)p;
}

static const char *bname(const struct btf_view *v, uint32_t name_off)
{
	return name_off < v->strs_len ? v->strs + name_off : "";
}

/* the offset of string S in the string section, or 0 (the empty string) */
static uint32_t str_off(const struct btf_view *v, const char *s)
{
	size_t len = strlen(s) + 1;
	const char *p = v->strs, *end = v->strs + v->strs_len;

	/* a match that starts a string: after a NUL */
	while ((p = memmem(p, end - p, s, len))) {
		if (p > v->strs && p[-1] == 0)
			return p - v->strs;
		p++;
	}
	return 0;
}

/* the type behind typedefs and qualifiers */
static const struct btf_type *btf_skip(struct btf_view *v, uint32_t id)
{
	const struct btf_type *t = bt(v, id);

	for (int depth = 0; t && depth < 32; depth++) {
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = bt(v, t->type);
			continue;
		}
		return t;
	}
	return NULL;
}

/*
 * The byte offset of member NAME of struct or union ST, looking into its
 * anonymous structs and unions; its type in *type.  -1 if absent or a
 * bit field.
 */
static long btf_member(struct btf_view *v, const struct btf_type *st, const char *name,
		       const struct btf_type **type, int depth)
{
	const struct btf_member *m = (const struct btf_member *)(st + 1);
	bool kflag = BTF_INFO_KFLAG(st->info);

	if (depth > 8)
		return -1;
	for (unsigned int i = 0; i < BTF_INFO_VLEN(st->info); i++, m++) {
		if (++v->looked > MEMBERS_MAX)
			return -1;
		uint32_t bits = kflag ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		const struct btf_type *mt;
		long sub;

		/* names first: only the one asked for and anonymous members are looked up */
		if (m->name_off && strcmp(bname(v, m->name_off), name))
			continue;
		mt = btf_skip(v, m->type);
		if (!mt)
			continue;
		if (m->name_off) {
			if ((kflag && BTF_MEMBER_BITFIELD_SIZE(m->offset)) || bits % 8)
				return -1;
			*type = mt;
			return bits / 8;
		}
		if (BTF_INFO_KIND(mt->info) != BTF_KIND_STRUCT &&
		    BTF_INFO_KIND(mt->info) != BTF_KIND_UNION)
			continue;
		sub = btf_member(v, mt, name, type, depth + 1);
		if (sub >= 0)
			return bits / 8 + sub;
	}
	return -1;
}

/* the offset of an int member of SIZE bytes, or -1 */
static long int_member(struct btf_view *v, const struct btf_type *st, const char *name,
		       uint32_t size)
{
	const struct btf_type *t;
	long off = btf_member(v, st, name, &t, 0);

	if (off < 0 || BTF_INFO_KIND(t->info) != BTF_KIND_INT || t->size != size)
		return -1;
	return off;
}

static int btf_fields(struct btf_view *v, uint32_t task_id, uint32_t func_id,
		      struct synth_iter_btf *b, const char **why)
{
	const struct btf_type *task = bt(v, task_id), *t, *e;
	long pid, tgid, flags, comm, parent;

	if (!func_id) {
		*why = "the kernel's BTF has no bpf_iter_task (task iterators: Linux 5.8+)";
		return -ENOENT;
	}
	if (!task) {
		*why = "the kernel's BTF has no struct task_struct";
		return -ENOENT;
	}
	pid = int_member(v, task, "pid", 4);
	tgid = int_member(v, task, "tgid", 4);
	flags = int_member(v, task, "flags", 4);
	comm = btf_member(v, task, "comm", &t, 0);
	if (comm >= 0) {
		const struct btf_array *a = (const struct btf_array *)(t + 1);

		/* char comm[TASK_COMM_LEN], 16 or more */
		e = BTF_INFO_KIND(t->info) == BTF_KIND_ARRAY ? btf_skip(v, a->type) : NULL;
		if (!e || BTF_INFO_KIND(e->info) != BTF_KIND_INT || e->size != 1 || a->nelems < 16)
			comm = -1;
	}
	parent = btf_member(v, task, "real_parent", &t, 0);
	if (parent >= 0 && BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
		parent = -1;
	/* offsets of BPF loads are 16-bit */
	if (pid < 0 || tgid < 0 || flags < 0 || comm < 0 || parent < 0 ||
	    pid > 32767 || tgid > 32767 || flags > 32767 || comm + 8 > 32767 || parent > 32767) {
		*why = "task_struct in the kernel's BTF has no usable pid, tgid, flags, comm or "
		       "real_parent";
		return -ENOENT;
	}
	b->attach_id = func_id;
	b->off_pid = pid;
	b->off_tgid = tgid;
	b->off_flags = flags;
	b->off_comm = comm;
	b->off_parent = parent;
	return 0;
}

int synth_iter_btf_parse(const void *blob, size_t size, struct synth_iter_btf *b,
			 const char **why)
{
	const unsigned char *data = blob;
	const struct btf_header *h = blob;
	struct btf_view v = { 0 };
	uint32_t cap;
	int err;

	/* the types are read in place as struct btf_type: 4-byte aligned */
	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size ||
	    ((uintptr_t)data + h->hdr_len + h->type_off) % 4 ||
	    h->type_len < sizeof(struct btf_type)) {
		*why = "/sys/kernel/btf/vmlinux: not BTF, or truncated";
		return -EINVAL;
	}
	v.types = data + h->hdr_len + h->type_off;
	v.types_len = h->type_len;
	v.strs = (const char *)data + h->hdr_len + h->str_off;
	v.strs_len = h->str_len;
	/* names are read as C strings: the last one must end in the section */
	if (!v.strs_len || v.strs[v.strs_len - 1]) {
		*why = "/sys/kernel/btf/vmlinux: its strings do not end in a NUL";
		return -EINVAL;
	}
	/*
	 * Names are stored once each: find the two in the string section
	 * (one sequential search each), then compare offsets, not strings,
	 * in the walk over the types.  Offset 0 is the empty string, the
	 * name of every anonymous type.
	 */
	v.task_name = str_off(&v, "task_struct");
	v.func_name = str_off(&v, "bpf_iter_task");
	if (!v.func_name) {
		*why = "the kernel's BTF has no bpf_iter_task (task iterators: Linux 5.8+)";
		return -ENOENT;
	}
	if (!v.task_name) {
		*why = "the kernel's BTF has no struct task_struct";
		return -ENOENT;
	}
	/* a type takes at least 12 bytes */
	cap = v.types_len / sizeof(struct btf_type) / STRIDE + 2;
	v.off = malloc(cap * sizeof(*v.off));
	if (!v.off) {
		*why = "out of memory";
		return -ENOMEM;
	}
	btf_find(&v);
	if ((!v.task_id || !v.func_id) && v.bad) {
		free(v.off);
		*why = v.bad;
		return -EINVAL;
	}
	err = btf_fields(&v, v.task_id, v.func_id, b, why);
	/* a member's type beyond where the walk had to stop */
	if (err && v.bad) {
		*why = v.bad;
		err = -EINVAL;
	}
	free(v.off);
	return err;
}

int synth_iter_btf(struct synth_iter_btf *b, const char **why)
{
	static const char path[] = "/sys/kernel/btf/vmlinux";
	struct stat st;
	unsigned char *data;
	size_t len = 0;
	int err, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*why = "no /sys/kernel/btf/vmlinux (a kernel without CONFIG_DEBUG_INFO_BTF)";
		return -errno;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		*why = "/sys/kernel/btf/vmlinux: fstat";
		return err;
	}
	if (st.st_size <= 0) {
		close(fd);
		*why = "/sys/kernel/btf/vmlinux: no size";
		return -EINVAL;
	}
	/*
	 * Recent kernels map it (read-only, private); older ones need
	 * reads, which sysfs serves a page at a time.
	 */
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data != MAP_FAILED) {
		close(fd);
		err = synth_iter_btf_parse(data, st.st_size, b, why);
		munmap(data, st.st_size);
		return err;
	}
	data = malloc(st.st_size);
	while (data && len < (size_t)st.st_size) {
		ssize_t n = read(fd, data + len, st.st_size - len);

		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (!data) {
		*why = "out of memory";
		return -ENOMEM;
	}
	err = synth_iter_btf_parse(data, len, b, why);
	free(data);
	return err;
}

/* the few instruction forms the program uses */
static struct bpf_insn ldx(int size, int dst, int src, int off)
{
	return (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | size, .dst_reg = dst,
				  .src_reg = src, .off = off };
}

static struct bpf_insn stx(int size, int dst, int src, int off)
{
	return (struct bpf_insn){ .code = BPF_STX | BPF_MEM | size, .dst_reg = dst,
				  .src_reg = src, .off = off };
}

static struct bpf_insn st0(int size, int dst, int off)
{
	return (struct bpf_insn){ .code = BPF_ST | BPF_MEM | size, .dst_reg = dst, .off = off };
}

static struct bpf_insn alu(int op, int dst, int src, int imm)
{
	return (struct bpf_insn){ .code = BPF_ALU64 | op | (src >= 0 ? BPF_X : BPF_K),
				  .dst_reg = dst, .src_reg = src >= 0 ? src : 0, .imm = imm };
}

static struct bpf_insn jeq0(int dst, int skip)
{
	return (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = dst, .off = skip };
}

static struct bpf_insn call(int fn)
{
	return (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = fn };
}

#define REC ((int)sizeof(struct synth_task))
#define AT(field) (-REC + (int)offsetof(struct synth_task, field))

int synth_iter_link(const struct synth_iter_btf *b, const char **why)
{
	/*
	 * r1 is struct bpf_iter__task *: meta at 0, task at 8 (the layout
	 * DEFINE_BPF_ITER_FUNC gives every iterator context); meta->seq at 0
	 * (struct bpf_iter_meta).  task is NULL on the last call.  The
	 * record is built on the stack and written with bpf_seq_write().
	 */
	struct bpf_insn p[] = {
		ldx(BPF_DW, BPF_REG_6, BPF_REG_1, 0),		/* meta */
		ldx(BPF_DW, BPF_REG_7, BPF_REG_1, 8),		/* task */
		jeq0(BPF_REG_7, 0),				/* to the exit, set below */
		ldx(BPF_DW, BPF_REG_6, BPF_REG_6, 0),		/* meta->seq */
		ldx(BPF_W, BPF_REG_0, BPF_REG_7, b->off_pid),
		stx(BPF_W, BPF_REG_10, BPF_REG_0, AT(tid)),
		ldx(BPF_W, BPF_REG_0, BPF_REG_7, b->off_tgid),
		stx(BPF_W, BPF_REG_10, BPF_REG_0, AT(tgid)),
		st0(BPF_W, BPF_REG_10, AT(ptgid)),
		ldx(BPF_W, BPF_REG_0, BPF_REG_7, b->off_flags),
		stx(BPF_W, BPF_REG_10, BPF_REG_0, AT(flags)),
		call(BPF_FUNC_get_current_pid_tgid),
		alu(BPF_RSH, BPF_REG_0, -1, 32),
		stx(BPF_W, BPF_REG_10, BPF_REG_0, AT(self)),
		st0(BPF_W, BPF_REG_10, AT(pad)),
		ldx(BPF_DW, BPF_REG_0, BPF_REG_7, b->off_comm),
		stx(BPF_DW, BPF_REG_10, BPF_REG_0, AT(comm)),
		ldx(BPF_DW, BPF_REG_0, BPF_REG_7, b->off_comm + 8),
		stx(BPF_DW, BPF_REG_10, BPF_REG_0, AT(comm) + 8),
		ldx(BPF_DW, BPF_REG_0, BPF_REG_7, b->off_parent),
		jeq0(BPF_REG_0, 2),
		ldx(BPF_W, BPF_REG_0, BPF_REG_0, b->off_tgid),
		stx(BPF_W, BPF_REG_10, BPF_REG_0, AT(ptgid)),
		alu(BPF_MOV, BPF_REG_1, BPF_REG_6, 0),
		alu(BPF_MOV, BPF_REG_2, BPF_REG_10, 0),
		alu(BPF_ADD, BPF_REG_2, -1, -REC),
		alu(BPF_MOV, BPF_REG_3, -1, REC),
		call(BPF_FUNC_seq_write),
		alu(BPF_MOV, BPF_REG_0, -1, 0),			/* the exit */
		(struct bpf_insn){ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = BPF_TRACE_ITER,
		    .attach_btf_id = b->attach_id);
	int n = sizeof(p) / sizeof(p[0]), prog, link;

	p[2].off = n - 2 - 3;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "perf_ring_tasks", "GPL", p, n, &lo);
	if (prog < 0) {
		*why = prog == -EPERM ? "loading the BPF program: no CAP_BPF and CAP_PERFMON" :
					"the kernel rejected the BPF task iterator program";
		return prog;
	}
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	close(prog);		/* the link holds it */
	if (link < 0)
		*why = "attaching the BPF task iterator";
	return link;
}

int synth_iter_read(int link_fd, struct synth_task **tasks, size_t *n, const char **why)
{
	size_t cap = 64 << 10, len = 0;
	char *buf = malloc(cap);
	int fd = bpf_iter_create(link_fd);
	int err = 0;

	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		*why = fd < 0 ? "creating the BPF task iterator" : "out of memory";
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				err = -ENOMEM;
				*why = "out of memory";
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			*why = "reading the BPF task iterator";
			goto out;
		}
		if (!r)
			break;
		len += r;
	}
	if (len % REC) {
		err = -EIO;
		*why = "the BPF task iterator gave a partial record";
		goto out;
	}
	/*
	 * The program sees the kernel's own numbering: in a pid namespace
	 * other than the initial one, tids differ from those of /proc.
	 */
	if (len && ((struct synth_task *)buf)->self != (uint32_t)getpid()) {
		err = -EXDEV;
		*why = "in a pid namespace (the iterator gives the initial namespace's numbers)";
		goto out;
	}
	*tasks = (struct synth_task *)buf;
	*n = len / REC;
	buf = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

int synth_iter_tasks(struct synth_task **tasks, size_t *n, const char **why)
{
	struct synth_iter_btf b;
	int link, err = synth_iter_btf(&b, why);

	if (err)
		return err;
	link = synth_iter_link(&b, why);
	if (link < 0)
		return link;
	err = synth_iter_read(link, tasks, n, why);
	close(link);
	return err;
}
