/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every task of the system in one pass: a BPF task iterator (iter/task,
 * Linux 5.8+) whose program writes tid, tgid, the parent's tgid, the task
 * flags and comm of each task into the iterator's seq_file, read back with
 * read().  The program is built here as raw BPF instructions; the offsets
 * of the task_struct fields it loads and the id of the iterator's attach
 * point come from the running kernel's BTF (/sys/kernel/btf/vmlinux) at
 * run time, so no compiler for BPF and no BPF object file are needed.
 *
 * Self-contained (libbpf and libc only): bench/synth_steps.c builds it
 * too, to time each step.
 */
#ifndef PERF_RING_SYNTH_ITER_H
#define PERF_RING_SYNTH_ITER_H

#include <stddef.h>
#include <stdint.h>

/* one task, as the program writes it */
struct synth_task {
	uint32_t tid, tgid;
	uint32_t ptgid;		/* tgid of real_parent; 0 for init and kthreadd */
	uint32_t flags;		/* task->flags (PF_KTHREAD) */
	uint32_t self;		/* the reader's own tgid, as the kernel numbers it */
	uint32_t pad;
	char comm[16];		/* task->comm, NUL-terminated */
};

#define SYNTH_PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/* what the program needs from the kernel's BTF */
struct synth_iter_btf {
	uint32_t attach_id;	/* FUNC bpf_iter_task */
	uint32_t off_pid, off_tgid, off_flags, off_comm, off_parent;	/* in task_struct */
};

/*
 * The steps, each on its own for the benchmark.  Each returns 0 or a
 * negative errno and then sets *why to what failed (a static string).
 */
int synth_iter_btf(struct synth_iter_btf *b, const char **why);
/* the same from BTF in memory: SIZE bytes, checked */
int synth_iter_btf_parse(const void *blob, size_t size, struct synth_iter_btf *b,
			 const char **why);
/* the program loaded and attached: a link fd, from which iterators are made */
int synth_iter_link(const struct synth_iter_btf *b, const char **why);
/* one full iteration of a new iterator of the link: *tasks is malloc()ed */
int synth_iter_read(int link_fd, struct synth_task **tasks, size_t *n, const char **why);

/* all three */
int synth_iter_tasks(struct synth_task **tasks, size_t *n, const char **why);

#endif
