#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the perf_ring guest. Mounts what the selftests need, then, by
# perf_ring.mode= on the kernel command line:
#   probe  prints the boot marker and powers off (the KVM probe);
#   check  loads the ABI module, runs every selftest and prints TAP;
#   bench  runs the icount benchmark (bench/guest-bench.sh);
#   ab     runs make ab's RUN (/ab/ab-guest.sh, from the initrd ab.sh adds);
#   soak   runs the soak with CPU hotplug (/soak, from the initrd
#          soak-guest.sh adds) and prints its result as TAP.
# Everything goes to the serial console, which the host reads.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
echo 0 > /proc/sys/kernel/kptr_restrict 2>/dev/null

mode=check
# The guest's own tmpfs, mounted above.
scratch=/tmp
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	perf_ring.mode=*) mode=${arg#perf_ring.mode=} ;;
	perf_ring.scale=*) export PERF_EVENTS_SCALE=${arg#perf_ring.scale=} ;;
	perf_ring.pause_stress=*) pause_stress=${arg#perf_ring.pause_stress=} ;;
	perf_ring.faults=*) faults=${arg#perf_ring.faults=} ;;
	perf_ring.nolost=*) nolost=${arg#perf_ring.nolost=} ;;
	perf_ring.soak=*) soak=${arg#perf_ring.soak=} ;;
	perf_ring.SOAK_*=*) arg=${arg#perf_ring.}; export "$arg" ;;
	esac
done

echo "PERF_RING_BOOTED $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

# ok, notok (the TAP lines, numbered in n) and the other scripts' helpers
. /lib/perf-ring-guest-lib.sh

run_check() {
	tests=$(cat /selftests/perf_ring/list 2>/dev/null)
	plan=1
	for t in $tests; do plan=$((plan + 1)); done
	[ -x /usr/bin/perf-ring-guest-test ] && plan=$((plan + 1))
	[ -x /kselftest/run_kselftest.sh ] && plan=$((plan + 1))
	[ -x /usr/bin/pause_stress ] && plan=$((plan + 1))
	[ -f /lib/modules/perf_ring_kasan_control.ko ] && plan=$((plan + 1))

	echo "TAP version 13"
	echo "1..$plan"
	echo "# uname -r: $(uname -r)"
	if insmod /lib/modules/perf_ring_abi.ko; then
		ok "perf_ring_abi: struct perf_event_attr layout"
		rmmod perf_ring_abi
	else
		notok "perf_ring_abi: struct perf_event_attr layout"
	fi
	for t in $tests; do
		echo "# selftests: perf_ring: $t"
		rm -f "$scratch/rc"
		( cd /selftests/perf_ring && { timeout -s KILL 600 "./$t" 2>&1; echo $? > "$scratch/rc"; } ) |
			sed 's/^/# /'
		rc=$(cat "$scratch/rc" 2>/dev/null || echo 255)
		case "$rc" in
		0) ok "selftests: perf_ring: $t" ;;
		4) ok "selftests: perf_ring: $t # SKIP" ;;
		*) notok "selftests: perf_ring: $t # exit=$rc" ;;
		esac
	done
	# The same tests from the kernel tree's perf_events directory (the
	# series' last patch), run by the kselftest runner.
	if [ -x /kselftest/run_kselftest.sh ]; then
		# Upstream's remove_on_exec opens PERF_COUNT_HW_INSTRUCTIONS and
		# fails (it does not skip) without a hardware PMU, which QEMU's
		# TCG does not emulate: leave it out there, and say so.
		set --
		for t in $(cat /kselftest/kselftest-list.txt); do
			if [ "$t" = perf_events:remove_on_exec ] &&
			   [ ! -d /sys/bus/event_source/devices/cpu ]; then
				echo "# $t: not run: no hardware PMU (no /sys/bus/event_source/devices/cpu)"
				continue
			fi
			# The debug kernel: initramfs.sh's copy with a longer
			# limit for signal_stress_with_disable runs instead.
			if [ "$t" = perf_events:sigtrap_threads ] && [ -x /usr/bin/sigtrap_threads-long ]; then
				long=1
				continue
			fi
			set -- "$@" -t "$t"
		done
		( cd /kselftest && ./run_kselftest.sh --per-test-log "$@" 2>&1 ) > "$scratch/kselftest.log"
		if [ -n "${long:-}" ]; then
			echo "# perf_events:sigtrap_threads, signal_stress_with_disable limited to 300 s, not 30 s (debug kernel):"
			k=$(($(grep -cE '^(not )?ok [0-9]' "$scratch/kselftest.log") + 1))
			res="ok"
			/usr/bin/sigtrap_threads-long > "$scratch/sigtrap_threads" 2>&1 || res="not ok"
			echo "$res $k selftests: perf_events: sigtrap_threads (300 s limit)" >> "$scratch/kselftest.log"
		fi
		# --per-test-log: each test's output in /tmp/<test>
		for t in $(cat /kselftest/kselftest-list.txt 2>/dev/null); do
			f=/tmp/${t#*:}
			[ -f "$f" ] || continue
			echo "# $t:"
			sed 's/^/# /' "$f"
		done
		sed 's/^/# /' "$scratch/kselftest.log"
		if grep -q '^ok ' "$scratch/kselftest.log" &&
		   ! grep -q 'not ok' "$scratch/kselftest.log"; then
			ok "kselftest: perf_events (run_kselftest.sh)"
		else
			notok "kselftest: perf_events (run_kselftest.sh)"
		fi
	fi
	if [ -x /usr/bin/pause_stress ]; then
		rm -f "$scratch/rc"
		# On a KCSAN kernel, watch 1 access in 500 instead of 4000
		# while it runs: the race it offers must not go unseen.
		kp=/sys/module/kcsan/parameters/skip_watch
		skip=$(cat $kp 2>/dev/null)
		[ -z "$skip" ] || echo 500 > $kp
		{ /usr/bin/pause_stress "${pause_stress:-2}" 2>&1; echo $? > "$scratch/rc"; } | sed 's/^/# /'
		[ -z "$skip" ] || echo "$skip" > $kp
		case "$(cat "$scratch/rc" 2>/dev/null)" in
		0) ok "pause_stress: PAUSE_OUTPUT toggled while another CPU writes" ;;
		4) ok "pause_stress: PAUSE_OUTPUT toggled while another CPU writes # SKIP" ;;
		*) notok "pause_stress: PAUSE_OUTPUT toggled while another CPU writes" ;;
		esac
	fi
	# The KASAN negative control: loading it must produce a KASAN report,
	# which the host's tap-check.sh turns into a failure.
	if [ -f /lib/modules/perf_ring_kasan_control.ko ]; then
		insmod /lib/modules/perf_ring_kasan_control.ko && rmmod perf_ring_kasan_control
		ok "perf_ring_kasan_control loaded (KASAN must have reported its write)"
	fi
	if [ -x /usr/bin/perf-ring-guest-test ]; then
		rm -f "$scratch/rc"
		# The test's status, not sed's: a pipeline's is its last command's.
		{ /usr/bin/perf-ring-guest-test 2>&1; echo $? > "$scratch/rc"; } | sed 's/^/# /'
		if [ "$(cat "$scratch/rc" 2>/dev/null)" = 0 ]; then
			ok "perf-ring: record and report in the guest"
		else
			notok "perf-ring: record and report in the guest"
		fi
	fi
}

case "$mode" in
probe) ;;
check)
	# FAULTS=1: the fault-injection run instead of the plain one.
	# KERNEL=post-nolost: the recorder's fallback, not the selftests.
	if [ "${faults:-0}" = 1 ] && [ -x /usr/bin/perf-ring-guest-faults ]; then
		/usr/bin/perf-ring-guest-faults
	elif [ "${nolost:-0}" = 1 ] && [ -x /usr/bin/perf-ring-guest-nolost ]; then
		/usr/bin/perf-ring-guest-nolost
	else
		run_check
	fi
	;;
bench) sh /bench/guest-bench.sh ;;
ab) sh /ab/ab-guest.sh ;;
soak)
	echo "TAP version 13"
	echo "1..1"
	if [ -x /usr/bin/bash ] && [ -f /soak/scripts/perf_ring/soak.sh ]; then
		# soak.sh's work directory goes to the guest's tmpfs
		{ SOAK_HOTPLUG=1 SOAK_BIN=/soak/bin PR_BUILD=$scratch \
			bash /soak/scripts/perf_ring/soak.sh "${soak:-600}" 2>&1
		  echo $? > "$scratch/rc"; } | sed 's/^/# /'
		if [ "$(cat "$scratch/rc" 2>/dev/null)" = 0 ]; then
			ok "soak with cpu hotplug, ${soak:-600} s"
		else
			notok "soak with cpu hotplug, ${soak:-600} s"
		fi
	else
		notok "soak with cpu hotplug # no /soak in the initrd (scripts/perf_ring/soak-guest.sh adds it)"
	fi
	;;
*) echo "perf_ring: unknown perf_ring.mode=$mode" ;;
esac
echo "PERF_RING_DONE"
poweroff -f
