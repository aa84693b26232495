#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# soak-guest.sh KERNEL [SECONDS]: the flight-recorder soak (soak.sh, default
# 600 s) inside the QEMU guest, with CPU hotplug: perf-ring records system
# wide while CPU 1 goes offline and comes back every few seconds
# (SOAK_HOTPLUG=1 in soak.sh), and every snapshot is checked in the guest
# by soak_check.py as on the host.
#
# The guest's initramfs is busybox only, so this adds a second archive to
# it (the kernel unpacks both): bash, Debian's python3 with the standard
# library modules soak_check.py imports, zstd, the shared libraries ldd
# lists for them, soak.sh, soak_check.py and lib.sh.  The console log is
# build/images/<KERNEL>/console-soak.log; the result is a TAP line (and
# tap-check.sh fails the run on a kernel splat).
#
# The snapshots go to the guest's tmpfs (half its memory) until the
# checker has read them: with 1536M, a 600 s run on a loaded host
# (2026-12-04, the checker 525 s behind) filled its 768 MB and perf-ring
# stopped on ENOSPC.  4096M leaves 2 GB for that backlog.
#
# Environment: QEMU_SMP, QEMU_MEM (default 4096M here), QEMU_TIMEOUT
# (default: 3 x SECONDS + 900), and soak.sh's SOAK_SIGNAL_MS,
# SOAK_HOTPLUG_EVERY, SOAK_HOTPLUG_OFF_MS and SOAK_PERF_EVERY (passed to
# the guest on its command line).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: soak-guest.sh pre|post|upstream [SECONDS]}
secs=${2:-600}
case $secs in ''|*[!0-9]*|0) pr_die "usage: soak-guest.sh KERNEL [SECONDS]" ;; esac
name=$kernel$(pr_flavour)
tree=$PR_BUILD/kernel/$kernel$(pr_tree_flavour)
img=$PR_BUILD/images/$name
base=$img/initramfs.cpio.gz
rec=$PR_BUILD/tools/perf_ring/static
work=$PR_BUILD/initramfs/$name-soak
log=$img/console-soak.log
[ -f "$base" ] || pr_die "$name: no ${base#"$PR_ROOT"/}; run 'make initramfs KERNEL=$kernel'"
[ -x "$rec/perf-ring" ] && [ -x "$rec/close-loop" ] ||
	pr_die "no static perf-ring and close-loop in ${rec#"$PR_ROOT"/}; run 'make tools-static'"
[ -x "$tree/usr/gen_init_cpio" ] || pr_die "$tree/usr/gen_init_cpio is missing (kernel tree not built?)"
python=/usr/bin/python3
for b in "$python" /usr/bin/zstd /bin/bash; do
	[ -x "$b" ] || pr_die "$b is missing (Debian: python3, zstd, bash)"
done

rm -rf "$work"
mkdir -p "$work"

# binfile HOSTPATH GUESTPATH: a binary and the libraries ldd lists for it
binfile() {
	echo "file $2 $(readlink -f "$1") 0755 0 0"
	ldd "$1" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]+ \(/ { print $1 }' |
	while read -r lib; do
		[ -f "$lib" ] || pr_die "ldd names $lib for $1, which is missing"
		echo "file $lib $(readlink -f "$lib") 0755 0 0"
	done
}

# The python modules soak_check.py loads (its --help imports all of
# them), and the codecs python looks up at start, into $work/pyfiles.
"$python" -c '
import runpy, sys
path, out = sys.argv[1], sys.argv[2]
sys.argv = [path, "--help"]
sys.stdout = open("/dev/null", "w")
try:
    runpy.run_path(path, run_name="__main__")
except SystemExit:
    pass
import encodings.ascii, encodings.latin_1, encodings.utf_8
with open(out, "w") as f:
    for m in list(sys.modules.values()):
        name = getattr(m, "__file__", None)
        if name and name.startswith(sys.prefix + "/lib/"):
            print(name, file=f)
' "$PR_ROOT/scripts/perf_ring/soak_check.py" "$work/pyfiles" ||
	pr_die "$python cannot load scripts/perf_ring/soak_check.py"

list=$work/soak.list
{
	binfile "$python" /usr/bin/python3
	binfile /usr/bin/zstd /usr/bin/zstd
	binfile /bin/bash /usr/bin/bash
	sort -u "$work/pyfiles" | while read -r f; do
		[ -f "$f" ] || continue
		echo "file $f $(readlink -f "$f") 0644 0 0"
	done
	# python looks for it at start, and warns when it is missing
	echo "dir /usr/lib/python3.11/lib-dynload 0755 0 0"
	echo "file /soak/bin/perf-ring $rec/perf-ring 0755 0 0"
	echo "file /soak/bin/close-loop $rec/close-loop 0755 0 0"
	for f in soak.sh soak_check.py lib.sh; do
		echo "file /soak/scripts/perf_ring/$f $PR_ROOT/scripts/perf_ring/$f 0755 0 0"
	done
} > "$list.files"
# Each parent directory first, from the top, once; then the files once.
{
	awk '{ print $2 }' "$list.files" | while read -r f; do
		dirname "$f"
	done | awk -F/ '{ p = ""; for (i = 2; i <= NF; i++) { p = p "/" $i; print "dir " p " 0755 0 0" } }'
	cat "$list.files"
} | awk '!seen[$2]++' | grep -vE '^dir /(usr|usr/bin|lib|bin|tmp) ' > "$list"

"$tree/usr/gen_init_cpio" "$list" | gzip -1 > "$work/soak.cpio.gz"
cat "$base" "$work/soak.cpio.gz" > "$img/initramfs-soak.cpio.gz"
pr_log "$name: guest soak initrd $(du -h "$img/initramfs-soak.cpio.gz" | cut -f1) (python3 $(grep -c '\.py ' "$list") modules, bash, zstd)"

append="${QEMU_APPEND:-} perf_ring.soak=$secs"
for v in SOAK_SIGNAL_MS SOAK_HOTPLUG_EVERY SOAK_HOTPLUG_OFF_MS SOAK_PERF_EVERY; do
	val=${!v:-}
	[ -z "$val" ] || append="$append perf_ring.$v=$val"
done
QEMU_APPEND=$append QEMU_INITRD=$img/initramfs-soak.cpio.gz QEMU_MEM=${QEMU_MEM:-4096M} \
	"$PR_ROOT/scripts/perf_ring/qemu-run.sh" "$kernel" soak "$log" \
	"${QEMU_TIMEOUT:-$((secs * 3 + 900))}"
"$PR_ROOT/scripts/perf_ring/tap-check.sh" "soak-guest $name" "$log"
