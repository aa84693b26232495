#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh (make deb-check): the package of make deb on a booted
# Debian 12 system.  A minimal rootfs (deb-rootfs.sh, cached in
# build/deb-check/rootfs.tar) gets the .deb and deb-check-guest.sh, run by
# a oneshot unit; it becomes an ext4 image (mkfs.ext4 -d, no loop mount)
# that QEMU boots (TCG, 2 vCPUs) with the rootfs's own Debian kernel and
# initrd, systemd as init, console on serial.  The guest prints TAP and
# powers off; a second boot of the same disk checks that the service comes
# back.  The console
# log is build/deb-check/console.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

W=$PR_BUILD/deb-check
start=$(date +%s)
deb=$(ls "$PR_BUILD"/deb/perf-ring_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || pr_die "no build/deb/perf-ring_*.deb: make deb first"
[ "$(id -u)" = 0 ] || pr_die "deb-check needs root (mmdebstrap, the image's owners)"

mkdir -p "$W"
[ -f "$W/rootfs.tar" ] || "$PR_ROOT/scripts/perf_ring/deb-rootfs.sh" "$W/rootfs.tar"

root=$W/root
rm -rf "$root" "$W/disk.img"
mkdir -p "$root"
pr_log "unpacking the rootfs"
tar --numeric-owner -xpf "$W/rootfs.tar" -C "$root"
mkdir -p "$root/usr/local/share/deb-check"
cp "$deb" "$root/usr/local/share/deb-check/"
install -m 0755 "$PR_ROOT/scripts/perf_ring/deb-check-guest.sh" "$root/usr/local/sbin/deb-check-guest"
cat >"$root/etc/systemd/system/deb-check.service" <<'UNIT'
[Unit]
Description=make deb-check: the steps in the guest
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/deb-check-guest
[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf ../deb-check.service "$root/etc/systemd/system/multi-user.target.wants/deb-check.service"
# No login on the serial console: the steps print their TAP there, and the
# getty that systemd starts for the kernel's console hangs up every other
# writer to ttyS0 when it starts (vhangup), which cut a run's output short
# whenever the getty came up after deb-check.service had started.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)
initrd=$(ls "$root"/boot/initrd.img-* | sort -V | tail -1)
cp "$kernel" "$W/vmlinuz"
cp "$initrd" "$W/initrd.img"
pr_log "making the ext4 image from the rootfs (mkfs.ext4 -d)"
mkfs.ext4 -q -F -L root -d "$root" "$W/disk.img" 4G
rm -rf "$root"

pr_log "booting $(basename "$kernel") in QEMU (TCG, 2 vCPUs), twice: about 15 min"
: >"$W/console.log"
for boot in 1 2; do
	echo "=== deb-check.sh: boot $boot ===" >>"$W/console.log"
	timeout "${DEB_CHECK_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 2048 \
		-nographic -no-user-config -nodefaults -serial stdio -monitor none -no-reboot \
		-kernel "$W/vmlinuz" -initrd "$W/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0,115200 systemd.show_status=1 panic=-1" \
		-drive file="$W/disk.img",if=virtio,format=raw \
		</dev/null 2>&1 | tee -a "$W/console.log" |
		grep --line-buffered -aE '^(not )?ok |^1\.\.|^# deb-check' || true
	pr_log "boot $boot ended after $(( $(date +%s) - start )) s"
done
secs=$(( $(date +%s) - start ))
pr_log "console log: $W/console.log; make deb-check took ${secs} s"
tr -d '\r' <"$W/console.log" | grep -q '^# deb-check: PASS' || pr_die "deb-check failed (see $W/console.log)"
! tr -d '\r' <"$W/console.log" | grep -q '^not ok' || pr_die "deb-check: a step failed"
pr_log "deb-check: PASS"
