#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# post-headers.sh: POST's installed uapi headers, without building a
# kernel, in build/post-headers/include; prints that path. The selftests
# build against them on the host and on PRE, as a kselftest builds against
# its tree's "make headers_install" (KHDR_INCLUDES).
#
# POST's uapi is the base's, except for the uapi files that pre-edits.pl
# or the series touch. The base's headers are installed with "make -C
# build/linux-base headers"; each of those files is then taken from the
# PRE commit of build/kernel/origin (mktree.sh origin), the series' hunks
# for it are applied (git apply --include: only the uapi hunks), and it is
# installed over the base's copy with the kernel's own
# scripts/headers_install.sh, as "make headers_install" installs it.
# Made again when the series or pre-edits.pl change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

base=$PR_BUILD/linux-base
origin=$PR_BUILD/kernel/origin
dest=$PR_BUILD/post-headers
S=$PR_ROOT/scripts/perf_ring

mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$PR_ROOT/kernel/series" |
	sed "s|^|$PR_ROOT/kernel/|")
want=$(cat "$S/pre-edits.pl" "${patches[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$want" ]; then
	echo "$dest/include"
	exit 0
fi

"$S/base.sh" "$base"
[ -d "$base/usr/include/linux" ] || make -s -C "$base" headers >/dev/null
"$S/mktree.sh" origin

uapi_re='^(include/uapi/|arch/x86/include/uapi/)'
files=$( { git -C "$origin" diff --name-only tags/base tags/pre;
	   sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${patches[@]}"; } |
	 grep -E "$uapi_re" | sort -u)
[ -n "$files" ] || pr_die "post-headers: neither pre-edits.pl nor the series touch a uapi file"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in $files; do
	mkdir -p "$tmp/src/$(dirname "$f")"
	git -C "$origin" show "tags/pre:$f" > "$tmp/src/$f" 2>/dev/null ||
		: > "$tmp/src/$f"	# a file the series adds
done
(cd "$tmp/src" && git apply --include='include/uapi/*' \
	--include='arch/x86/include/uapi/*' --exclude='*' "${patches[@]}") ||
	pr_die "post-headers: the series' uapi hunks do not apply on PRE's uapi files"

rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
cp -a "$base/usr/include" "$dest.tmp/include"
for f in $files; do
	case $f in
	include/uapi/*) out=${f#include/uapi/} ;;
	arch/x86/include/uapi/*) out=${f#arch/x86/include/uapi/} ;;
	esac
	mkdir -p "$dest.tmp/include/$(dirname "$out")"
	(cd "$base" && scripts/headers_install.sh "$tmp/src/$f" "$dest.tmp/include/$out") ||
		pr_die "post-headers: scripts/headers_install.sh $f failed"
	pr_log "post-headers: $out from PRE plus the series' uapi hunks"
done
echo "$want" > "$dest.tmp/.stamp"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "$dest/include"
