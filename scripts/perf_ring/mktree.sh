#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mktree.sh pre|post|upstream: make or refresh build/kernel/<KERNEL>, the
# source tree that "make kernel KERNEL=..." builds in place.
#
# build/kernel/origin is a git repository with two commits: "base" (the
# pinned 6.12.118 tree, tag "base") and "pre-series baseline" (the base after
# scripts/perf_ring/pre-edits.pl, tag "pre"). Each kernel tree is a copy of
# it checked out at its own commit:
#
#   upstream  tag "base"
#   pre       tag "pre"
#   post      tag "pre" plus the series in kernel/ (git am)
#   post-pN   tag "pre" plus the first N patches of the series, a step of
#             the series to measure on its own (N from 1 to the count)
#   origin    no tree: only the two commits of build/kernel/origin
#             (post-headers.sh reads PRE's uapi files from it)
#   post-nolost  post with PERF_FORMAT_LOST taken out as before Linux 6.0
#             (PERF_FORMAT_MAX back to 1U << 4, so perf_copy_attr() answers
#             EINVAL to it): perf-ring's fallback on a kernel that needs it
#             (make qemu-check KERNEL=post-nolost; never part of the series)
#
# A new tree is copied (cp -a, which keeps timestamps) from a sibling that is
# already built when there is one, so that the first build of the second
# kernel only recompiles what the two commits differ in.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: mktree.sh pre|post|upstream|post-pN|origin}
prefix=
case "$kernel" in
pre|post|upstream|post-nolost|origin) ;;
post-p[1-9]|post-p[1-9][0-9]) prefix=${kernel#post-p} ;;
ab-*)	# make ab's trees: ab.sh copies and checks them out itself.
	[ -d "$PR_BUILD/kernel/$kernel/.git" ] ||
		pr_die "KERNEL=$kernel: no such tree; make ab (scripts/perf_ring/ab.sh) makes the ab-* trees"
	exit 0 ;;
*) pr_die "KERNEL=$kernel: use pre, post, upstream, post-pN (the first N patches) or post-nolost" ;;
esac
# DEBUG=1 (or DEBUG=kcsan) builds the same source in its own tree,
# build/kernel/<KERNEL>-debug (-kcsan).
name=$kernel$(pr_tree_flavour)

kdir=$PR_BUILD/kernel
origin=$kdir/origin
edits=$PR_ROOT/scripts/perf_ring/pre-edits.pl
git_id=(-c "user.name=perf_ring project" -c "user.email=perf_ring@lists.invalid")
# Fixed dates make the two origin commits the same on every machine.
export GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z"
if [ ! -d "$origin/.git" ]; then
	t0=$(date +%s)
	rm -rf "$origin"
	"$PR_ROOT/scripts/perf_ring/base.sh" "$origin"
	pr_log "origin: committing the base ($(pr_kernel_version "$origin"))"
	(
		cd "$origin"
		git init -q -b perf_ring .
		# No automatic gc: after the base commit (a loose object for
		# each file of the tree) git would start one in the
		# background, which packs them while cp -a copies .git into a
		# kernel tree (objects vanish under the copy). The trees
		# inherit this config.
		git config gc.auto 0
		echo '/.perf_ring-*' >> .git/info/exclude
		# -f: Debian's .gitignore ignores everything at the top level.
		git add -f -A .
		git "${git_id[@]}" commit -q -m "base" -m "Linux $(pr_kernel_version .) from $PR_BASE_PKG $PR_BASE_PKG_VERSION."
		git tag base
	)
	pr_log "origin: base committed in $(pr_elapsed "$t0")"
fi

# The PRE commit, made when a kernel first needs it, and made again (with
# every kernel tree thrown away) when pre-edits.pl changes.
if [ "$kernel" != upstream ]; then
	edits_sum=$(sha256sum "$edits" | cut -d' ' -f1)
	if git -C "$origin" rev-parse -q --verify pre >/dev/null &&
	   [ "$(cat "$origin/.perf_ring-pre-edits" 2>/dev/null)" != "$edits_sum" ]; then
		pr_log "pre-edits.pl changed since the PRE commit was made: starting the kernel trees over"
		# Every flavour and step: -debug, -kcsan, -i386, post-pN.
		for t in "${kdir:?}"/pre "$kdir"/pre-* "$kdir"/post "$kdir"/post-* \
			 "$kdir"/upstream "$kdir"/upstream-*; do
			rm -rf "$t"
		done
		git -C "$origin" checkout -q -f tags/base
		git -C "$origin" tag -d pre >/dev/null
	fi
	if ! git -C "$origin" rev-parse -q --verify pre >/dev/null; then
		pr_log "origin: taking upstream's backward ring buffer out (pre-edits.pl)"
		(
			cd "$origin"
			git checkout -q -f tags/base
			"$edits" .
			git add -u .
			git "${git_id[@]}" commit -q -m "pre-series baseline" \
				-m "Upstream's write_backward, PAUSE_OUTPUT and onward/backward output handlers taken out by scripts/perf_ring/pre-edits.pl."
			git tag pre
			git checkout -q tags/base
			echo "$edits_sum" > .perf_ring-pre-edits
		) || pr_die "origin: pre-edits.pl failed; the PRE commit was not made"
	fi
fi

[ "$kernel" != origin ] || exit 0
tree=$kdir/$name
if [ ! -d "$tree/.git" ]; then
	src=$origin
	# A control tree and its flavour's tree differ in a few files only;
	# post-pN and post-nolost are closest to post.
	for s in ${kernel%%-*} pre post upstream; do
		for f in "$(pr_flavour)" "$(CONTROL='' pr_flavour)" "$(CONTROL=1 pr_flavour)" \
			 "$(NR_CPUS='' pr_flavour)"; do
			if [ -f "$kdir/$s$f/vmlinux" ]; then src=$kdir/$s$f; break 2; fi
		done
	done
	pr_log "$name: copying the tree from ${src#"$kdir"/}"
	rm -rf "$tree"
	cp -a "$src" "$tree"
	rm -f "$tree/.perf_ring-series"
	# cp gives every file a new inode: refresh git's stat cache so that
	# the checkout below rewrites only files whose content differs.
	git -C "$tree" update-index -q --refresh >/dev/null || true
fi

# The origin's tags (a tree copied before PRE existed lacks "pre").
git -C "$tree" fetch -q -f "$origin" 'refs/tags/*:refs/tags/*'

want=
# CONTROL=1: the flavour's planted bug goes on top of the series (a
# negative control, never part of it; kernel/controls/README).
control=
if [ "${CONTROL:-}" = 1 ]; then
	case $(pr_flavour) in
	-kcsan-control) control=controls/kcsan-paused-race.patch ;;
	esac
	[ -z "$control" ] || [ "$kernel" = post ] ||
		pr_die "CONTROL=1: the KCSAN control is a patch on POST; use KERNEL=post"
fi
case "$kernel" in
upstream) target=tags/base ;;
pre) target=tags/pre ;;
post|post-p*|post-nolost)
	target=tags/pre
	want=$( (echo "prefix=$prefix"; [ "$kernel" != post-nolost ] || echo nolost; cd "$PR_ROOT/kernel" && cat series $(grep -v '^#' series 2>/dev/null) $control) 2>/dev/null | sha256sum | cut -d' ' -f1)
	if [ -n "$prefix" ]; then
		total=$(grep -cv -e '^#' -e '^[[:space:]]*$' "$PR_ROOT/kernel/series" || true)
		[ "$prefix" -le "$total" ] ||
			pr_die "KERNEL=$kernel: kernel/series has only $total patches"
	fi
	;;
esac

cd "$tree"
if [ -z "$want" ]; then
	if [ "$(git rev-parse HEAD)" != "$(git rev-parse "$target^{commit}")" ]; then
		git checkout -q "$target"
	fi
	exit 0
fi

# post: pre plus the series. Re-apply only when the series changed.
[ "$(cat .perf_ring-series 2>/dev/null)" = "$want" ] && exit 0
git am --abort >/dev/null 2>&1 || true
git checkout -q "$target"
n=0
if [ -f "$PR_ROOT/kernel/series" ]; then
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -z "$prefix" ] || [ "$n" -lt "$prefix" ] || break
		git "${git_id[@]}" am -q --committer-date-is-author-date "$PR_ROOT/kernel/$p" ||
			pr_die "$name: kernel/$p does not apply on PRE (git am in ${tree#"$PR_ROOT"/})"
		n=$((n + 1))
	done < "$PR_ROOT/kernel/series"
fi
if [ -n "$control" ]; then
	git "${git_id[@]}" am -q --committer-date-is-author-date "$PR_ROOT/kernel/$control" ||
		pr_die "$name: kernel/$control does not apply on POST (git am in ${tree#"$PR_ROOT"/})"
	pr_log "$name: negative control kernel/$control applied on top"
fi
if [ "$kernel" = post-nolost ]; then
	uapi=include/uapi/linux/perf_event.h
	perl -0pi -e 's/(PERF_FORMAT_MAX = 1U << )5,/${1}4,/ or die "no PERF_FORMAT_MAX = 1U << 5\n"' "$uapi" ||
		pr_die "$name: $uapi: the edit that takes PERF_FORMAT_LOST out does not apply"
	git add -f "$uapi"
	git "${git_id[@]}" commit -q -m "perf_ring test: no PERF_FORMAT_LOST (as before Linux 6.0)" \
		-m "PERF_FORMAT_MAX back to 1U << 4: perf_copy_attr() refuses read_format with PERF_FORMAT_LOST (EINVAL). A test kernel for perf-ring's fallback, never part of the series."
	pr_log "$name: PERF_FORMAT_LOST taken out ($uapi)"
fi
echo "$want" > .perf_ring-series
pr_log "$name: PRE plus $n patch(es) from kernel/series"
