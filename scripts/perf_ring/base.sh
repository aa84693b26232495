#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# base.sh DEST: unpack the pinned base kernel (Debian linux-source-6.12,
# 6.12.118) into DEST and check what came out.
#
# KERNEL_SRC=DIR uses another 6.12.y tree instead (copied, never modified in
# place), with a warning: the PRE edits and the series are only known to
# apply to the pinned release.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dest=${1:?usage: base.sh DEST}
[ -e "$dest/Makefile" ] && exit 0

mkdir -p "$(dirname "$dest")"
tmp="$dest.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"

if [ -n "${KERNEL_SRC:-}" ]; then
	[ -f "$KERNEL_SRC/Makefile" ] || pr_die "KERNEL_SRC=$KERNEL_SRC is not a kernel tree"
	v=$(pr_kernel_version "$KERNEL_SRC")
	case "$v" in
	6.12.*) ;;
	*) pr_die "KERNEL_SRC=$KERNEL_SRC is Linux $v; perf_ring needs a 6.12.y tree" ;;
	esac
	[ "$v" = "$PR_BASE_KVERSION" ] ||
		pr_log "warning: KERNEL_SRC is Linux $v, not the pinned $PR_BASE_KVERSION; the PRE edits and the series may not apply"
	pr_log "copying base from KERNEL_SRC ($v)"
	rsync -a --exclude=.git "$KERNEL_SRC/" "$tmp/"
else
	[ -f "$PR_BASE_TARBALL" ] || pr_die "$PR_BASE_TARBALL is missing; run 'make deps'"
	sum=$(sha256sum "$PR_BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$PR_BASE_SHA256" ] ||
		pr_die "$PR_BASE_TARBALL has sha256 $sum, not the pinned $PR_BASE_SHA256 ($PR_BASE_PKG $PR_BASE_PKG_VERSION); refusing another base (set KERNEL_SRC= to use your own 6.12.y tree)"
	pr_log "unpacking $PR_BASE_PKG $PR_BASE_PKG_VERSION into ${dest#"$PR_ROOT"/}"
	tar -C "$tmp" --strip-components=1 -xf "$PR_BASE_TARBALL"
	v=$(pr_kernel_version "$tmp")
	[ "$v" = "$PR_BASE_KVERSION" ] ||
		pr_die "the base tarball holds Linux $v, not $PR_BASE_KVERSION; refusing another base"
fi
mv "$tmp" "$dest"
