// SPDX-License-Identifier: GPL-2.0
/*
 * perf_ring_abi: check that struct perf_event_attr keeps one layout across
 * the perf_ring kernels.
 *
 * PRE turns write_backward back into a reserved bit and POST brings it back.
 * Neither may move another field or flag, or binaries built against one
 * kernel would misbehave on the other. The sizes and offsets are checked
 * when the module is built; the bit positions of the flags next to
 * write_backward can only be observed at run time, so module_init checks
 * them and refuses to load when one moved.
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/stddef.h>
#include <linux/string.h>

/* The flags word follows read_format; every bit of it is ABI. */
#define PR_FLAGS_OFFSET		40

static u64 pr_flags(const struct perf_event_attr *attr)
{
	u64 flags;

	memcpy(&flags, (const u8 *)attr + PR_FLAGS_OFFSET, sizeof(flags));
	return flags;
}

static int __init pr_check_bit(const char *name, const struct perf_event_attr *attr,
			       unsigned int bit)
{
	u64 got = pr_flags(attr);

	if (got != BIT_ULL(bit)) {
		pr_err("perf_ring_abi: %s is 0x%llx in the flags word, expected bit %u\n",
		       name, got, bit);
		return -EINVAL;
	}
	return 0;
}

static int __init perf_ring_abi_init(void)
{
	struct perf_event_attr attr;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct perf_event_attr) != PERF_ATTR_SIZE_VER8);
	BUILD_BUG_ON(offsetof(struct perf_event_attr, read_format) + 8 != PR_FLAGS_OFFSET);
	BUILD_BUG_ON(offsetof(struct perf_event_attr, wakeup_events) != PR_FLAGS_OFFSET + 8);
	BUILD_BUG_ON(offsetof(struct perf_event_attr, bp_type) != 52);
	BUILD_BUG_ON(offsetof(struct perf_event_attr, config3) != 128);

	/* write_backward is bit 27, between context_switch and namespaces. */
	memset(&attr, 0, sizeof(attr));
	attr.context_switch = 1;
	err |= pr_check_bit("context_switch", &attr, 26);
	memset(&attr, 0, sizeof(attr));
	attr.namespaces = 1;
	err |= pr_check_bit("namespaces", &attr, 28);
	memset(&attr, 0, sizeof(attr));
	attr.sigtrap = 1;
	err |= pr_check_bit("sigtrap", &attr, 37);
	if (err)
		return -EINVAL;

	pr_info("perf_ring_abi: ok: perf_event_attr is %zu bytes, flags at %d, bit 27 between context_switch and namespaces\n",
		sizeof(attr), PR_FLAGS_OFFSET);
	return 0;
}

static void __exit perf_ring_abi_exit(void)
{
}

module_init(perf_ring_abi_init);
module_exit(perf_ring_abi_exit);
MODULE_DESCRIPTION("perf_ring: check the perf_event_attr layout");
MODULE_LICENSE("GPL");
