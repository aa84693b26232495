#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what perf_ring needs from Debian's archive, and nothing when it is
# all there already: this runs before every make target, so it must be quiet
# and quick when there is nothing to do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio rsync xz-utils
	qemu-system-x86 busybox-static libzstd-dev liburing-dev libbpf-dev zstd sparse
	linux-perf gnuplot-nox util-linux procps kmod python3 python3-docutils man-db
	clang libclang-rt-14-dev
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
have_base=$(dpkg-query -W -f='${Version}' "$PR_BASE_PKG" 2>/dev/null || true)
[ "$have_base" = "$PR_BASE_PKG_VERSION" ] ||
	missing+=("$PR_BASE_PKG=$PR_BASE_PKG_VERSION")

[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || pr_die "missing packages (${missing[*]}); run 'make deps' as root"
pr_log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A new machine has no package lists yet; refresh them once per run.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -qq &&
       apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	pr_die "apt-get install failed for: ${missing[*]}"
fi
pr_log "installed ${#missing[@]} package(s)"
