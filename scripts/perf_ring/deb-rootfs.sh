#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-rootfs.sh OUT.tar: a minimal Debian 12 (bookworm) system for
# make deb-check, built with mmdebstrap: systemd as init, Debian's kernel
# (linux-image-amd64, with its initrd), linux-perf, and the libraries the
# perf-ring package depends on, so that "apt install ./perf-ring_*.deb"
# needs no network in the guest.
#
# The package source is the one apt uses on this machine: the bookworm
# entries of /etc/apt/sources.list and /etc/apt/sources.list.d/, read at
# run time; no host is named here.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: deb-rootfs.sh OUT.tar}
case $out in *.tar) ;; *) pr_die "deb-rootfs.sh: OUT must end in .tar" ;; esac
command -v mmdebstrap >/dev/null || pr_die "mmdebstrap is missing (make deps DEB=1)"

# The bookworm stanzas of the host's apt sources, in deb822 form.
src=$(mktemp)
trap 'rm -f "$src"' EXIT
{
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /(^|\n)Suites:[^\n]*[ \t]bookworm([ \t\n-]|$)/ { print }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $0 !~ /^#/ {
			for (i = 2; i <= NF; i++) if ($i !~ /^\[/) break
			if ($(i + 1) ~ /^bookworm(-updates|-security)?$/) print }' "$f"
	done
} >"$src"
[ -s "$src" ] || pr_die "no bookworm entry in /etc/apt/sources.list{,.d/}"

pkgs=systemd,systemd-sysv,udev,dbus,linux-image-amd64,linux-perf,initramfs-tools,kmod
pkgs+=,adduser,procps,util-linux,bash-completion,man-db
# what perf-ring links against (debian/control's shlibs)
pkgs+=,libzstd1,liburing2,libbpf1,libelf1,zlib1g

mkdir -p "$(dirname "$out")"
pr_log "building the Debian 12 rootfs $out (mmdebstrap, a few minutes)"
# A Debian kernel's initrd loads the modules of the boot disk; virtio_blk
# is among initramfs-tools' MODULES=most.
mmdebstrap --variant=minbase --include="$pkgs" \
	--customize-hook='echo deb-check >"$1/etc/hostname"' \
	--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root' \
	bookworm "${out%.tar}.tmp.tar" "$src"
mv "${out%.tar}.tmp.tar" "$out"
pr_log "rootfs: $(du -h "$out" | cut -f1)"
