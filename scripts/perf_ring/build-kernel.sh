#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh pre|post|upstream: configure and build one kernel in place
# in build/kernel/<KERNEL>, then copy the bzImage and the Kbuild ABI module
# to build/images/<KERNEL>/.
#
# The config is "make tinyconfig" plus kernel/configs/perf_ring.config merged
# by the kernel's own "make perf_ring.config", and PR_CONFIG_EXTRA=FILE, one
# more fragment from anywhere (make ab CONFIG=). The tree is built in place
# (srctree is "."), so dependency files hold relative paths and a copied tree
# rebuilds only what changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: build-kernel.sh pre|post|upstream}
"$PR_ROOT/scripts/perf_ring/mktree.sh" "$kernel"

name=$kernel$(pr_flavour)
tname=$kernel$(pr_tree_flavour)
tree=$PR_BUILD/kernel/$tname
out=$PR_BUILD/images/$name
frags=(perf_ring.config)
case $(pr_flavour) in
-debug*) frags+=(perf_ring-debug.config) ;;
-kcsan*) frags+=(perf_ring-kcsan.config) ;;
esac
# ARCH=i386: the same kernel for 32-bit x86 (perf_ring-i386.config comes
# last, and turns CONFIG_64BIT off).
case "${ARCH:-}" in
""|x86_64|x86) ;;
i386) frags+=(perf_ring-i386.config) ;;
*) pr_die "ARCH=$ARCH: use i386, or leave ARCH unset for x86_64" ;;
esac
# The KASAN negative control is a module with a planted out-of-bounds
# write (kernel/abi/perf_ring_kasan_control.c), built for CONTROL=1 only.
kasan_control=
[ "$(pr_flavour)" != -debug-control ] || kasan_control=m
fragpaths=()
for f in "${frags[@]}"; do fragpaths+=("$PR_ROOT/kernel/configs/$f"); done
# NR_CPUS=N (a flavour of its own, "-cpusN"): one more fragment, made here.
# It also stops the tick on idle CPUs (NO_HZ_IDLE, as distribution kernels
# do): with the periodic tick, every idle vCPU of a 64-CPU guest takes HZ
# interrupts a second, and under -icount (make qemu-bench PART=scale) they
# are counted with the recorder's work, in proportion to CPUs x run time.
if [ -n "${NR_CPUS:-}" ]; then
	case "$NR_CPUS" in
	[2-9]|[1-9][0-9]|[1-4][0-9][0-9]|50[0-9]|51[0-2]) ;;
	*) pr_die "NR_CPUS=$NR_CPUS: give a number of CPUs from 2 to 512" ;;
	esac
	mkdir -p "$PR_BUILD/kernel"
	cpus_frag=$PR_BUILD/kernel/perf_ring-cpus$NR_CPUS.config
	printf 'CONFIG_NR_CPUS=%s\nCONFIG_NO_HZ_IDLE=y\n' "$NR_CPUS" > "$cpus_frag"
	frags+=(perf_ring-cpus.config)
	fragpaths+=("$cpus_frag")
fi
if [ -n "${PR_CONFIG_EXTRA:-}" ]; then
	[ -f "$PR_CONFIG_EXTRA" ] || pr_die "PR_CONFIG_EXTRA=$PR_CONFIG_EXTRA: no such file"
	frags+=(perf_ring-extra.config)
	fragpaths+=("$(realpath "$PR_CONFIG_EXTRA")")
fi
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
cd "$tree"

# The tree's name is part of the stamp: a copied tree keeps its sibling's
# .config, whose LOCALVERSION names the sibling.
cfg_sum=$( (echo "$tname"; cat "${fragpaths[@]}") | sha256sum | cut -d' ' -f1)
if [ ! -f .config ] || [ "$(cat .perf_ring-config 2>/dev/null)" != "$cfg_sum" ]; then
	pr_log "$name: configuring (tinyconfig + ${frags[*]})"
	make -s tinyconfig >/dev/null
	for i in "${!frags[@]}"; do
		cp "${fragpaths[$i]}" "kernel/configs/${frags[$i]}"
		make -s "${frags[$i]}" >/dev/null
		rm "kernel/configs/${frags[$i]}"
	done
	# Every option of the fragments must have survived the merge, unless
	# a later fragment sets it otherwise.
	for i in "${!frags[@]}"; do
		p=${fragpaths[$i]}
		while IFS= read -r line; do
			case "$line" in CONFIG_*=*) ;; *) continue ;; esac
			opt=${line%%=*}
			for g in "${fragpaths[@]:$((i + 1))}"; do
				! grep -qE "^(# )?$opt[= ]" "$g" || continue 2
			done
			grep -qx "$line" .config ||
				pr_die "$name: $line from ${p#"$PR_ROOT"/} is not in the final .config (a dependency is missing)"
		done < "$p"
	done
	# uname -r names the kernel: 6.12.118-pre, -post, -upstream.
	scripts/config --set-str LOCALVERSION "-$tname"
	make -s olddefconfig >/dev/null
	echo "$cfg_sum" > .perf_ring-config
fi
# LOCALVERSION= (set but empty) keeps setlocalversion from adding "+".
export LOCALVERSION=

# Build with a progress line every 20 s instead of thousands of CC lines.
log=$out/build.log
t0=$(date +%s)
pr_log "$name: building bzImage and modules with -j$jobs (log: ${log#"$PR_ROOT"/})"
make -j"$jobs" bzImage modules >"$log" 2>&1 &
mk=$!
trap 'kill $mk 2>/dev/null || true' EXIT INT TERM
while kill -0 $mk 2>/dev/null; do
	for _ in $(seq 20); do kill -0 $mk 2>/dev/null && sleep 1; done
	kill -0 $mk 2>/dev/null &&
		pr_log "$name: $(grep -c '^  CC' "$log" || true) objects compiled, $(pr_elapsed "$t0")"
done
if ! wait $mk; then
	grep -E 'error|Error' "$log" | head -n 20 >&2 || true
	pr_die "$name: kernel build failed, see ${log#"$PR_ROOT"/}"
fi
trap - EXIT INT TERM
cp arch/x86/boot/bzImage "$out/bzImage"
cc_n=$(grep -c '^  CC' "$log" || true)

# The Kbuild file at the top of perf_ring builds the ABI check module
# against this tree. Kbuild writes its objects next to the sources, so
# build it from a copy under build/.
abi=$PR_BUILD/abi/$name
mkdir -p "$abi"
rsync -a --delete --include='/Kbuild' --include='/kernel/' --include='/kernel/abi/***' \
	--exclude='*' "$PR_ROOT/" "$abi/"
make -s -j"$jobs" M="$abi" PERF_RING_KASAN_CONTROL=$kasan_control modules >>"$log" 2>&1 ||
	pr_die "$name: the Kbuild ABI module failed to build, see ${log#"$PR_ROOT"/}"
cp "$abi/kernel/abi/perf_ring_abi.ko" "$out/"
rm -f "$out/perf_ring_kasan_control.ko"
[ -z "$kasan_control" ] || cp "$abi/kernel/abi/perf_ring_kasan_control.ko" "$out/"
echo "$(make -s kernelrelease)" > "$out/release"
pr_log "$name: $(cat "$out/release") built in $(pr_elapsed "$t0") ($cc_n objects compiled)"
