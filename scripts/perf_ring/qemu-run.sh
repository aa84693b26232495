#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh KERNEL MODE LOG [TIMEOUT]: boot build/images/<KERNEL> in QEMU
# with perf_ring.mode=MODE (check, bench, ab or probe), stream the serial console
# to stdout and to LOG, and stop QEMU after TIMEOUT seconds at the latest.
#
# Accelerator: KVM when a short probe boot works here (KVM guests hung at
# boot on these machines), else TCG. The probe's answer is kept in
# build/kvm-probe. ACCEL=tcg|kvm forces one. Bench mode always uses TCG with
# -icount on one vCPU, so guest time counts instructions.
#
# The console shows messages up to KERN_WARNING (loglevel=5): WARN(),
# lockdep and KASAN reports must reach the log that tap-check.sh reads.
#
# Environment: QEMU_SMP (default 2), QEMU_MEM (default 1024M),
# QEMU_APPEND (extra kernel command line), QEMU_INITRD (another initrd than
# the image's initramfs.cpio.gz; make ab appends its own archive to it),
# GUEST_PERF=1 (boot the initramfs with perf in it, from initramfs.sh under
# the same variable), BENCH_SMP (bench mode's vCPUs, default 1).  Mode ab
# runs like bench: TCG, -icount, one vCPU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: qemu-run.sh KERNEL MODE LOG [TIMEOUT]}
mode=${2:?mode}
log=${3:?log}
tmo=${4:-900}
name=$kernel$(pr_flavour)
img=$PR_BUILD/images/$name
initrd=$img/initramfs.cpio.gz
[ "${GUEST_PERF:-}" = 1 ] && initrd=$img/initramfs-perf.cpio.gz
initrd=${QEMU_INITRD:-$initrd}
[ -f "$img/bzImage" ] && [ -f "$initrd" ] ||
	pr_die "$name: no bzImage or ${initrd##*/} in ${img#"$PR_ROOT"/}"

qemu_pid=
cleanup() {
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill -KILL "$qemu_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# boot ACCEL_ARGS... : run QEMU in the background, console into $log
boot() {
	qemu-system-x86_64 "$@" -m "${QEMU_MEM:-1024M}" \
		-kernel "$img/bzImage" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=5 panic=-1 oops=panic perf_ring.mode=$mode ${QEMU_APPEND:-}" \
		-display none -serial "file:$log" -monitor none -no-reboot \
		-nodefaults -device isa-debug-exit </dev/null &
	qemu_pid=$!
}

# wait_marker SECONDS: wait for PERF_RING_DONE or QEMU's exit, streaming
# the console; 0 when the guest finished in time.
wait_marker() {
	local end=$(( $(date +%s) + $1 )) shown=0 n
	while :; do
		if [ -f "$log" ]; then
			n=$(wc -l < "$log")
			if [ "$n" -gt "$shown" ]; then
				sed -n "$((shown + 1)),${n}p" "$log" | tr -d '\r'
				shown=$n
			fi
			grep -q PERF_RING_DONE "$log" && break
		fi
		kill -0 "$qemu_pid" 2>/dev/null || break
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 1
	done
	# Give poweroff a moment, then make sure QEMU is gone.
	for _ in 1 2 3 4 5; do kill -0 "$qemu_pid" 2>/dev/null && sleep 1; done
	cleanup
	sed -n "$((shown + 1)),\$p" "$log" | tr -d '\r'
	grep -q PERF_RING_DONE "$log"
}

kvm_works() {
	local probe=$PR_BUILD/kvm-probe
	if [ -f "$probe" ]; then [ "$(cat "$probe")" = yes ]; return; fi
	if [ ! -w /dev/kvm ]; then echo no > "$probe"; return 1; fi
	pr_log "probing KVM (a guest that hangs at boot is killed after 30 s)"
	local save_mode=$mode save_log=$log
	mode=probe log=$PR_BUILD/kvm-probe.log
	rm -f "$log"
	boot -enable-kvm -cpu host -smp 2
	if wait_marker 30 >/dev/null && grep -q PERF_RING_BOOTED "$log"; then
		echo yes > "$probe"
	else
		cleanup
		echo no > "$probe"
	fi
	mode=$save_mode log=$save_log
	[ "$(cat "$probe")" = yes ]
}

rm -f "$log"
if [ "$mode" = bench ] || [ "$mode" = ab ]; then
	# BENCH_SMP=N (make qemu-bench PART=scale): N vCPUs, which -icount
	# runs one at a time, round-robin, in one host thread.
	smp=${BENCH_SMP:-1}
	accel=(-accel tcg -icount shift=0,align=off,sleep=off -smp "$smp")
	# The guest's wall clock (the RTC, which seeds the random pool)
	# starts at the same moment on every boot, and runs on guest time:
	# two boots then run the same instructions.
	accel+=(-rtc base=2025-01-01T00:00:00,clock=vm)
	pr_log "$name: QEMU TCG with -icount shift=0,align=off,sleep=off, $smp vCPU(s)"
else
	case "${ACCEL:-auto}" in
	kvm) use_kvm=1 ;;
	tcg) use_kvm=0 ;;
	*) if kvm_works; then use_kvm=1; else use_kvm=0; fi ;;
	esac
	if [ "$use_kvm" = 1 ]; then
		accel=(-enable-kvm -cpu host -smp "${QEMU_SMP:-2}")
		pr_log "$name: QEMU with KVM, ${QEMU_SMP:-2} vCPUs"
	else
		accel=(-accel tcg,thread=multi -cpu max -smp "${QEMU_SMP:-2}")
		pr_log "$name: QEMU with TCG (software emulation), ${QEMU_SMP:-2} vCPUs"
	fi
fi

t0=$(date +%s)
boot "${accel[@]}"
if ! wait_marker "$tmo"; then
	cleanup
	pr_die "$name: the guest did not finish within ${tmo}s (timeout or crash); console in ${log#"$PR_ROOT"/}"
fi
pr_log "$name: guest finished in $(pr_elapsed "$t0")"
