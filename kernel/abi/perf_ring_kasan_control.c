// SPDX-License-Identifier: GPL-2.0
/*
 * perf_ring_kasan_control: the KASAN negative control. Built only for
 * "make qemu-check KERNEL=post DEBUG=1 CONTROL=1" (build-kernel.sh sets
 * PERF_RING_KASAN_CONTROL=m), never loaded otherwise.
 *
 * Its init writes one byte past the end of a kmalloc()ed buffer, a bug
 * that KASAN must report ("BUG: KASAN: slab-out-of-bounds"), which in turn
 * must make qemu-check fail. The size is not a multiple of KASAN's 8-byte
 * granule, so the byte is poisoned whatever the slab rounds the size to.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

/* A parameter, so that the compiler cannot see the index is out of range. */
static uint pr_kasan_len = 13;
module_param_named(len, pr_kasan_len, uint, 0444);
MODULE_PARM_DESC(len, "size of the buffer written one byte past its end");

static int __init pr_kasan_control_init(void)
{
	size_t len = pr_kasan_len;
	char *buf = kmalloc(len, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	pr_info("perf_ring_kasan_control: writing 1 byte past a %zu-byte buffer\n", len);
	buf[len] = 0x5a;
	kfree(buf);
	return 0;
}

static void __exit pr_kasan_control_exit(void)
{
}

module_init(pr_kasan_control_init);
module_exit(pr_kasan_control_exit);
MODULE_DESCRIPTION("perf_ring negative control: a planted out-of-bounds write for KASAN");
MODULE_LICENSE("GPL");
