# SPDX-License-Identifier: GPL-2.0
# Shared settings for the perf_ring scripts. Sourced, not run.

PR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PR_BUILD=${PR_BUILD:-$PR_ROOT/build}

# The pinned base: Debian's linux-source-6.12 package.
PR_BASE_PKG=linux-source-6.12
PR_BASE_PKG_VERSION=6.12.118-1~deb12u1
PR_BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
PR_BASE_SHA256=c93391b6a4884e6428ffbfbb8ce6340229ad28dc421e9f19bc081740b1ab34b2
PR_BASE_KVERSION=6.12.118

pr_log() { printf '[perf_ring] %s\n' "$*" >&2; }
pr_die() { printf '[perf_ring] error: %s\n' "$*" >&2; exit 1; }

# pr_kernel_version TREE: "6.12.118" from the tree's Makefile
pr_kernel_version() {
	awk -F' = ' '/^VERSION =/{v=$2} /^PATCHLEVEL =/{p=$2} /^SUBLEVEL =/{s=$2}
		END { if (v != "") printf "%s.%s.%s\n", v, p, s }' "$1/Makefile"
}

# pr_elapsed START: seconds since START (from date +%s) as "1m02s"
# The kernel flavour DEBUG selects, as a tree-name suffix: "" (none),
# "-debug" (DEBUG=1: KASAN, lockdep, UBSAN...) or "-kcsan" (DEBUG=kcsan;
# KCSAN excludes KASAN, so it is a flavour of its own).
#
# CONTROL=1 with DEBUG adds "-control": the negative controls' own tree,
# with a planted bug the checker must report (kernel/controls/README).
pr_flavour() {
	case "${DEBUG:-}" in
	"") ;;
	kcsan) printf %s -kcsan ;;
	*) printf %s -debug ;;
	esac
	[ -z "${DEBUG:-}" ] || [ "${CONTROL:-}" != 1 ] || printf %s -control
	# ARCH=i386: the 32-bit x86 build of that kernel, "-i386" after the rest.
	[ "${ARCH:-}" != i386 ] || printf %s -i386
	# NR_CPUS=N: the same kernel with CONFIG_NR_CPUS=N instead of the
	# fragment's 4 (make qemu-bench PART=scale boots up to 64 vCPUs).
	[ -z "${NR_CPUS:-}" ] || printf %s "-cpus$NR_CPUS"
	echo
}

# pr_tree_flavour: the flavour of the kernel tree. The KASAN control is a
# module only: post-debug-control has its own images, built from the
# post-debug tree.
pr_tree_flavour() {
	local f
	f=$(pr_flavour)
	echo "${f/-debug-control/-debug}"
}

pr_elapsed() {
	local d=$(( $(date +%s) - $1 ))
	printf '%dm%02ds' $((d / 60)) $((d % 60))
}
