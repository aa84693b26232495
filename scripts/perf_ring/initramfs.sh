#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh pre|post|upstream: build build/images/<KERNEL>/initramfs.cpio.gz
# for the guest: busybox-static, the perf_ring selftests built static against
# that kernel's own uapi headers, the Kbuild ABI module, the recorder (static)
# when it is built, and scripts/perf_ring/guest-init.sh as /init.
#
# The archive is written by the kernel's own usr/gen_init_cpio from a list,
# so /dev/console and the other nodes need no root.
#
# GUEST_PERF=1 writes initramfs-perf.cpio.gz instead, with the host's perf
# binary and every shared library ldd lists for it added (qemu-run.sh boots
# it under the same variable), so ordinary guest runs stay small.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: initramfs.sh pre|post|upstream}
name=$kernel$(pr_flavour)
tree=$PR_BUILD/kernel/$kernel$(pr_tree_flavour)
img=$PR_BUILD/images/$name
work=$PR_BUILD/initramfs/$name
[ -f "$img/bzImage" ] || pr_die "no kernel image for $kernel; run 'make kernel KERNEL=$kernel'"
[ -x "$tree/usr/gen_init_cpio" ] || pr_die "$tree/usr/gen_init_cpio is missing (kernel tree not built?)"
# ARCH=i386: a 32-bit guest; its programs are built -m32 and its busybox
# is Debian's i386 one (make deps ARCH=i386).
busybox=/bin/busybox
cc=gcc
if [ "${ARCH:-}" = i386 ]; then
	busybox=$PR_BUILD/deps/i386/bin/busybox
	cc="gcc -m32"
fi
[ -x "$busybox" ] || pr_die "$busybox is missing; run 'make deps${ARCH:+ ARCH=$ARCH}'"
file -L "$busybox" | grep -q 'statically linked' || pr_die "$busybox is not static (install busybox-static)"

rm -rf "$work"
mkdir -p "$work/selftests"

# The selftests, from that kernel's tree, with its own headers; a tree
# whose uapi has no write_backward (PRE) gives POST's installed headers
# instead (post-headers.sh): the tests find out at run time what the
# kernel lacks, and skip.
make -s -C "$tree" headers >/dev/null
khdr="-isystem $tree/usr/include"
if ! grep -q 'write_backward' "$tree/usr/include/linux/perf_event.h"; then
	khdr="-isystem $("$PR_ROOT/scripts/perf_ring/post-headers.sh")"
	pr_log "$kernel: the selftests build against POST's uapi headers"
fi
st=$tree/tools/testing/selftests/perf_ring
rsync -a --delete "$PR_ROOT/tools/testing/selftests/perf_ring/" "$st/"
if [ -f "$st/Makefile" ]; then
	make -s -C "$st" OUTPUT="$work/selftests" CC="$cc" LDFLAGS=-static \
		KHDR_INCLUDES="$khdr" >/dev/null ||
		pr_die "$kernel: the selftests failed to build static"
fi

# The series' last patch puts the same tests in the kernel's own layout,
# beside upstream's perf_events tests: build and install that directory
# the kselftest way (make -C tools/testing/selftests TARGETS=perf_events
# install); the guest runs it with the installed run_kselftest.sh, which
# is what "make run_tests" runs. PRE and UPSTREAM have upstream's tests
# only.
if [ -f "$tree/tools/testing/selftests/perf_events/Makefile" ]; then
	make -s -C "$tree/tools/testing/selftests" TARGETS=perf_events CC="$cc" LDFLAGS=-static \
		INSTALL_PATH="$work/kselftest" install >"$work/kselftest.log" 2>&1 ||
		{ tail -n 20 "$work/kselftest.log" >&2; pr_die "$kernel: tools/testing/selftests TARGETS=perf_events failed to build"; }
fi

# The debug kernel under TCG runs upstream's
# sigtrap_threads.signal_stress_with_disable (15,000 breakpoint signals
# while the event is toggled) in about 34 s, past the kselftest harness's
# fixed 30 s per test. The debug guest runs a copy of the program with
# that one test's limit raised to 300 s (a named edit of the tree's
# source), in place of the installed one.
case $(pr_flavour) in
-debug*)
	long=$work/sigtrap-long
	mkdir -p "$long/perf_events"
	src=$tree/tools/testing/selftests/perf_events/sigtrap_threads.c
	sed 's/^TEST_F(sigtrap_threads, signal_stress_with_disable)$/TEST_F_TIMEOUT(sigtrap_threads, signal_stress_with_disable, 300)/' \
		"$src" > "$long/perf_events/sigtrap_threads.c"
	grep -q 'TEST_F_TIMEOUT(sigtrap_threads, signal_stress_with_disable, 300)' \
		"$long/perf_events/sigtrap_threads.c" ||
		pr_die "$src: no TEST_F(sigtrap_threads, signal_stress_with_disable) to give a longer limit"
	cp "$tree/tools/testing/selftests/kselftest_harness.h" "$tree/tools/testing/selftests/kselftest.h" "$long/"
	# perf_events/Makefile's flags: no optimisation, as the test's
	# breakpoint counts the accesses to ctx.iterate_on as written
	(cd "$long" && $cc -Wl,-no-as-needed -Wall -U_FORTIFY_SOURCE -static -pthread \
		-isystem "$tree/usr/include" -isystem "$tree/tools/include/uapi" \
		-o "$work/sigtrap_threads-long" perf_events/sigtrap_threads.c) ||
		pr_die "the sigtrap_threads copy with a longer limit failed to build"
	;;
esac

$cc -Wall -Wextra -Werror -O2 -static -isystem "$tree/usr/include" \
	-o "$work/ring_cost" "$PR_ROOT/bench/ring_cost.c" ||
	pr_die "bench/ring_cost.c failed to build"
gcc -Wall -Wextra -Werror -O2 -static -isystem "$tree/usr/include" \
	-o "$work/rec_run" "$PR_ROOT/bench/rec_run.c" ||
	pr_die "bench/rec_run.c failed to build"
gcc -Wall -Wextra -Werror -O2 -static -o "$work/rate_loop" "$PR_ROOT/bench/rate_loop.c" ||
	pr_die "bench/rate_loop.c failed to build"
gcc -Wall -Wextra -Werror -O2 -static -o "$work/cpu_loop" "$PR_ROOT/bench/cpu_loop.c" ||
	pr_die "bench/cpu_loop.c failed to build"
gcc -Wall -Wextra -Werror -O2 -static -pthread -o "$work/thread_holder" \
	"$PR_ROOT/bench/thread_holder.c" || pr_die "bench/thread_holder.c failed to build"

# guest_perf: cpio list lines for perf as /usr/bin/perf and the shared
# libraries ldd finds for it, at their host paths. Where /usr/bin/perf is
# a wrapper script, the binary is perf_X.Y of the version it reports.
guest_perf() {
	local bin lib d ver
	bin=$(readlink -f "$(command -v perf)") || pr_die "GUEST_PERF=1: no perf here (install linux-perf)"
	if ! file -L "$bin" | grep -q ELF; then
		ver=$(perf --version | awk '{ print $3 }' | cut -d. -f1,2)
		bin=$(readlink -f "/usr/bin/perf_$ver") ||
			pr_die "GUEST_PERF=1: /usr/bin/perf is a wrapper and /usr/bin/perf_$ver is missing"
	fi
	echo "file /usr/bin/perf $bin 0755 0 0"
	ldd "$bin" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]+ \(/ { print $1 }' | sort -u |
	while read -r lib; do
		[ -f "$lib" ] || pr_die "GUEST_PERF=1: ldd names $lib, which is missing"
		# Each parent directory first, from the top.
		d=$(dirname "$lib")
		echo "$d" | awk -F/ '{ p = ""; for (i = 2; i <= NF; i++) { p = p "/" $i; print "dir " p " 0755 0 0" } }'
		echo "file $lib $(readlink -f "$lib") 0755 0 0"
	done | awk '!seen[$0]++ && !/^dir \/(lib|usr|usr\/bin) /'
}

# The pause/resume stress the KCSAN negative control needs (every flavour
# runs it; kernel/controls/README), -m32 for the i386 guest like the rest.
$cc -Wall -Wextra -Werror -O2 -static -pthread -isystem "$tree/usr/include" \
	-o "$work/pause_stress" "$PR_ROOT/kernel/controls/pause_stress.c" ||
	pr_die "kernel/controls/pause_stress.c failed to build"

# Fault injection into a command from its first instruction, not its
# exec (guest-faults.sh, FAULTS=1).
$cc -Wall -Wextra -Werror -O2 -static -o "$work/fail-after-exec" \
	"$PR_ROOT/scripts/perf_ring/fail-after-exec.c" ||
	pr_die "scripts/perf_ring/fail-after-exec.c failed to build"

list=$work/cpio.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	for d in bin sbin usr usr/bin proc sys tmp lib lib/modules selftests selftests/perf_ring bench etc; do
		echo "dir /$d 0755 0 0"
	done
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $PR_ROOT/scripts/perf_ring/guest-init.sh 0755 0 0"
	echo "file /lib/modules/perf_ring_abi.ko $img/perf_ring_abi.ko 0644 0 0"
	echo "file /usr/bin/pause_stress $work/pause_stress 0755 0 0"
	echo "file /usr/bin/perf-ring-guest-faults $PR_ROOT/scripts/perf_ring/guest-faults.sh 0755 0 0"
	echo "file /usr/bin/perf-ring-guest-nolost $PR_ROOT/scripts/perf_ring/guest-nolost.sh 0755 0 0"
	echo "file /lib/perf-ring-guest-lib.sh $PR_ROOT/scripts/perf_ring/guest-lib.sh 0644 0 0"
	echo "file /usr/bin/fail-after-exec $work/fail-after-exec 0755 0 0"
	[ ! -f "$work/sigtrap_threads-long" ] ||
		echo "file /usr/bin/sigtrap_threads-long $work/sigtrap_threads-long 0755 0 0"
	# CONTROL=1 on the debug flavour: the module with the planted bug.
	[ ! -f "$img/perf_ring_kasan_control.ko" ] ||
		echo "file /lib/modules/perf_ring_kasan_control.ko $img/perf_ring_kasan_control.ko 0644 0 0"
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$work/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$work/group"
	echo "file /etc/passwd $work/passwd 0644 0 0"
	echo "file /etc/group $work/group 0644 0 0"
	: > "$work/selftests/list"
	for f in "$work"/selftests/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		b=$(basename "$f")
		echo "$b" >> "$work/selftests/list"
		echo "file /selftests/perf_ring/$b $f 0755 0 0"
	done
	echo "file /selftests/perf_ring/list $work/selftests/list 0644 0 0"
	[ -f "$st/settings" ] && echo "file /selftests/perf_ring/settings $st/settings 0644 0 0"
	if [ -d "$work/kselftest" ]; then
		(cd "$work/kselftest" && find . -mindepth 1 | sort) | while read -r f; do
			f=${f#./}
			if [ -d "$work/kselftest/$f" ]; then
				echo "dir /kselftest/$f 0755 0 0"
			else
				echo "file /kselftest/$f $work/kselftest/$f $(stat -c %a "$work/kselftest/$f") 0 0"
			fi
		done | sed '1i dir /kselftest 0755 0 0'
	fi
	# The recorder and its guest test, once tools/perf_ring builds them.
	rec=$PR_BUILD/tools/perf_ring/static
	# A 64-bit recorder cannot run on the i386 guest.
	[ "${ARCH:-}" != i386 ] || rec=$PR_BUILD/tools/perf_ring/static-i386
	if [ -x "$rec/perf-ring" ] && [ -x "$rec/close-loop" ]; then
		echo "file /usr/bin/perf-ring $rec/perf-ring 0755 0 0"
		echo "file /usr/bin/close-loop $rec/close-loop 0755 0 0"
		echo "file /usr/bin/perf-ring-guest-test $PR_ROOT/scripts/perf_ring/guest-recorder-test.sh 0755 0 0"
	fi
	# The icount benchmark (make qemu-bench).
	echo "file /bench/ring_cost $work/ring_cost 0755 0 0"
	echo "file /bench/rec_run $work/rec_run 0755 0 0"
	echo "file /bench/cpu_loop $work/cpu_loop 0755 0 0"
	echo "file /bench/thread_holder $work/thread_holder 0755 0 0"
	echo "file /bench/guest-bench.sh $PR_ROOT/scripts/perf_ring/guest-bench.sh 0755 0 0"
	echo "file /bench/rate_loop $work/rate_loop 0755 0 0"
	echo "file /bench/guest-rate.sh $PR_ROOT/scripts/perf_ring/guest-rate.sh 0755 0 0"
	if [ "${GUEST_PERF:-}" = 1 ]; then guest_perf; fi
} > "$list"

cpio=initramfs.cpio.gz
[ "${GUEST_PERF:-}" = 1 ] && cpio=initramfs-perf.cpio.gz
"$tree/usr/gen_init_cpio" "$list" | gzip -1 > "$img/$cpio.tmp"
mv "$img/$cpio.tmp" "$img/$cpio"
pr_log "$name: $cpio with $(wc -l < "$work/selftests/list") selftest(s), $(du -h "$img/$cpio" | cut -f1)"
