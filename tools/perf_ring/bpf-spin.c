// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-spin: a test workload that spends its time in JIT-compiled BPF code.
 *
 *   bpf-spin WAIT_MS RUN_MS
 *
 * Loads a socket filter of a few thousand straight-line instructions named
 * "perf_ring_spin", waits WAIT_MS, then runs it in the kernel
 * (BPF_PROG_TEST_RUN) for RUN_MS, and prints the program's tag.  Loaded
 * after a recording starts, the kernel reports it (PERF_RECORD_KSYMBOL);
 * loaded before, the recorder must synthesize it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#define NINSN 4000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	static struct bpf_insn insn[NINSN];
	struct bpf_prog_info info;
	u_int32_t ilen = sizeof(info);
	LIBBPF_OPTS(bpf_prog_load_opts, lo);
	char pkt[64] = { 0 };
	double until;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: bpf-spin WAIT_MS RUN_MS\n");
		return 2;
	}
	/* r0 = 0; r0 += 1 ...; exit */
	insn[0] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 };
	for (int i = 1; i < NINSN - 1; i++)
		insn[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
					     .dst_reg = BPF_REG_0, .imm = 1 };
	insn[NINSN - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "perf_ring_spin", "GPL",
			   insn, NINSN, &lo);
	if (fd < 0) {
		fprintf(stderr, "bpf-spin: cannot load the program: %s\n", strerror(-fd));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0) {
		for (int i = 0; i < BPF_TAG_SIZE; i++)
			printf("%02x", info.tag[i]);
		printf("\n");
		fflush(stdout);
	}
	usleep(atoi(argv[1]) * 1000);
	until = now_ms() + atoi(argv[2]);
	while (now_ms() < until) {
		LIBBPF_OPTS(bpf_test_run_opts, ro, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1000);
		int err = bpf_prog_test_run_opts(fd, &ro);

		if (err) {
			fprintf(stderr, "bpf-spin: cannot run the program: %s\n", strerror(-err));
			return 1;
		}
	}
	return 0;
}
