#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ab.sh: make ab. Is a kernel change measurable? Builds two kernels A and B,
# boots each twice in QEMU TCG with -icount shift=0,align=off,sleep=off on one
# vCPU, times RUN (a shell command) N times per boot in instructions, records
# one more RUN with perf-ring (cpu-clock sampling), and writes a report with
# a verdict and a profile diff: build/ab/<NAME>/report.md.
#
# Environment (make ab passes its variables through):
#   A, B      each one of
#               pre | post | upstream     the three perf_ring kernels
#               DIR of *.patch files, or DIR with a "series" file, or a
#               series FILE, or one .patch FILE: applied on the base
#               (upstream, tag "base" of build/kernel/origin)
#               a kernel source tree of 6.12.y (KERNEL_SRC-style)
#   RUN       the command, run by "sh -c" in the guest
#   N         runs timed per boot (default 10)
#   CONFIG    a config fragment merged into both kernels' guest config
#   AB_BIN    a static binary put into the guest's /usr/bin
#   PER       divide the figures by PER as well (e.g. the calls RUN makes)
#   NAME      the report's name (default: A-vs-B from the two labels)
#   AB_PERIODS cpu-clock sampling periods in instructions, one cpu-clock
#             event each, recorded together (default 8 periods from 10007
#             to 17011: one fixed period samples a loop at a handful of
#             places only; the kernel makes any period below 10 us 10 us)
#   AB_REPS   runs of RUN in the recording (default 5): more samples
#   AB_CHECK_ONLY=1  check the input and print the plan, build nothing
#
# Everything the user gives is checked before any build: the kernel names,
# every patch (applied, in order, to a scratch index of the base), the
# tree's version, the fragment, AB_BIN.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Read the inputs, then clear them: A, B, N, RUN and CONFIG are also names
# a kernel build or QEMU might read from the environment.
spec_a=${A:-} spec_b=${B:-} run=${RUN:-} n=${N:-10} frag=${CONFIG:-}
bin=${AB_BIN:-} per=${PER:-} name=${NAME:-} periods=${AB_PERIODS:-10007 11003 12007 13001 14009 15013 16007 17011}
reps=${AB_REPS:-5}
check_only=${AB_CHECK_ONLY:-}
unset A B N RUN CONFIG NAME PER
export DEBUG=

usage="usage: make ab A=KERNEL B=KERNEL RUN='command' [N=10] [CONFIG=fragment] [AB_BIN=path] [PER=count]
KERNEL: pre, post, upstream, a directory of patches, a series file, a .patch file, or a 6.12.y kernel tree"
[ -n "$spec_a" ] && [ -n "$spec_b" ] || pr_die "A= and B= are both needed
$usage"
[ -n "$run" ] || pr_die "RUN= is needed: the command to time in the guest
$usage"
case "$n" in ''|*[!0-9]*|0) pr_die "N=$n: give a number of runs, 1 or more" ;; esac
for p in $periods; do
	case "$p" in ''|*[!0-9]*|0) pr_die "AB_PERIODS=$periods: give periods in instructions" ;; esac
	[ "$p" -ge 10000 ] || pr_die "AB_PERIODS: $p: the kernel makes cpu-clock periods below 10000 ns (= instructions here) 10000"
done
[ -n "$periods" ] || pr_die "AB_PERIODS is empty"
case "$reps" in ''|*[!0-9]*|0) pr_die "AB_REPS=$reps: give a number of runs to record, 1 or more" ;; esac
case "$per" in '') ;; *[!0-9]*|0*) pr_die "PER=$per: give a positive count" ;; esac

if [ -n "$frag" ]; then
	[ -f "$frag" ] || pr_die "CONFIG=$frag: no such file"
	grep -q '^CONFIG_[A-Za-z0-9_]*=' "$frag" ||
		pr_die "CONFIG=$frag: not a config fragment (no CONFIG_...= line)"
	bad=$(grep -v -e '^CONFIG_[A-Za-z0-9_]*=' -e '^# CONFIG_[A-Za-z0-9_]* is not set' -e '^#' -e '^[[:space:]]*$' "$frag" | head -n1 || true)
	[ -z "$bad" ] || pr_die "CONFIG=$frag: not a config fragment line: $bad"
	frag=$(realpath "$frag")
fi
if [ -n "$bin" ]; then
	[ -f "$bin" ] && [ -x "$bin" ] || pr_die "AB_BIN=$bin: no such executable"
	file -L "$bin" | grep -q 'statically linked' ||
		pr_die "AB_BIN=$bin: not statically linked (the guest has no shared libraries)"
	bin=$(realpath "$bin")
fi

kdir=$PR_BUILD/kernel
origin=$kdir/origin
git_id=(-c "user.name=perf_ring project" -c "user.email=perf_ring@lists.invalid")
export GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# need_origin TAG: the origin repository with TAG (base or pre). Making it
# unpacks the base (and runs pre-edits.pl for "pre"); it builds nothing.
need_origin() {
	git -C "$origin" rev-parse -q --verify "refs/tags/$1" >/dev/null 2>&1 && return
	pr_log "ab: making build/kernel/origin (tag $1) to check the input against"
	if [ "$1" = base ]; then "$PR_ROOT/scripts/perf_ring/mktree.sh" upstream >/dev/null
	else "$PR_ROOT/scripts/perf_ring/mktree.sh" pre >/dev/null; fi
	git -C "$origin" rev-parse -q --verify "refs/tags/$1" >/dev/null ||
		pr_die "ab: build/kernel/origin has no tag $1"
}

# slug TEXT: a tree-name-safe label
slug() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '-' | sed 's/^-*//; s/-*$//' | cut -c1-40; }

# patch_list SPEC: the patches SPEC names, one absolute path a line, in order
patch_list() {
	local s=$1 dir p
	if [ -d "$s" ]; then
		if [ -f "$s/series" ]; then patch_list "$s/series"; return; fi
		ls "$s"/*.patch >/dev/null 2>&1 || pr_die "$s: a directory with no *.patch files and no series file"
		for p in "$s"/*.patch; do realpath "$p"; done
		return
	fi
	if grep -q -e '^diff ' -e '^--- ' "$s"; then realpath "$s"; return; fi
	# a series file: patch names relative to it, '#' comments
	dir=$(dirname "$(realpath "$s")")
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$dir/$p" ] || pr_die "$s names $p, which is not in $dir"
		realpath "$dir/$p"
	done < "$s"
}

# apply_check LABEL BASE_TAG PATCH_LIST: apply the patches in order to a
# scratch index of BASE_TAG (no work tree is touched), and keep the result
# as refs/ab/LABEL in the origin. Dies naming the first patch that fails.
apply_check() {
	local label=$1 tag=$2 list=$3 p tree commit k=0
	local idx=$scratch/index-$label
	need_origin "$tag"
	GIT_INDEX_FILE=$idx git -C "$origin" read-tree "refs/tags/$tag"
	while read -r p; do
		k=$((k + 1))
		if ! GIT_INDEX_FILE=$idx git -C "$origin" apply --cached "$p" 2>"$scratch/err"; then
			sed 's/^/    /' "$scratch/err" >&2
			pr_die "$label: patch $k, ${p#"$PR_ROOT"/}, does not apply on $tag (6.12.118$( [ "$tag" = pre ] && echo ' PRE'))"
		fi
	done < "$list"
	tree=$(GIT_INDEX_FILE=$idx git -C "$origin" write-tree)
	commit=$(git "${git_id[@]}" -C "$origin" commit-tree "$tree" -p "refs/tags/$tag" -m "make ab: $label")
	git -C "$origin" update-ref "refs/ab/$label" "$commit"
	echo "$k"
}

# tree_commit LABEL SRC: SRC's files as a commit on the base, refs/ab/LABEL.
tree_commit() {
	local label=$1 src=$2 tree commit idx
	idx=$scratch/index-$label
	need_origin base
	if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
		# A git work tree: its tracked and untracked files, not what
		# its .gitignore leaves out (objects of an in-place build).
		git -C "$src" ls-files -z -c -o --exclude-standard |
			GIT_INDEX_FILE=$idx git --git-dir="$origin/.git" --work-tree="$src" \
				update-index --add --remove -z --stdin
	else
		for f in .config vmlinux; do
			[ ! -e "$src/$f" ] || pr_die "$src: has $f, a build in place, and no git to tell sources from objects; give a clean tree (make mrproper) or a git work tree"
		done
		GIT_INDEX_FILE=$idx git --git-dir="$origin/.git" --work-tree="$src" add -f -A .
	fi
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$origin/.git" write-tree)
	commit=$(git "${git_id[@]}" -C "$origin" commit-tree "$tree" -p refs/tags/base -m "make ab: $label from a kernel tree")
	git -C "$origin" update-ref "refs/ab/$label" "$commit"
}

fsum=none
[ -z "$frag" ] || fsum=$(sha256sum "$frag" | cut -c1-12)
fslug=
[ -z "$frag" ] || fslug=-$(slug "$(basename "$frag" .config)")

# resolve SIDE SPEC: sets label_SIDE (for people), tree_SIDE (the tree and
# image name under build/) and what_SIDE (one line for the report).
resolve() {
	local side=$1 s=$2 label tree what v list cnt
	case "$s" in
	pre|post|upstream)
		label=$s
		if [ -z "$frag" ]; then
			tree=$s
		else
			tree=ab-$s$fslug
			case "$s" in
			upstream) need_origin base; git -C "$origin" update-ref "refs/ab/$tree" refs/tags/base ;;
			pre) need_origin pre; git -C "$origin" update-ref "refs/ab/$tree" refs/tags/pre ;;
			post)
				list=$scratch/list-$side
				patch_list "$PR_ROOT/kernel/series" > "$list"
				apply_check "$tree" pre "$list" >/dev/null ;;
			esac
		fi
		case "$s" in
		upstream) what="UPSTREAM (the base, $PR_BASE_KVERSION as shipped)" ;;
		*) what="$(echo "$s" | tr a-z A-Z) (a perf_ring kernel)" ;;
		esac
		;;
	*)
		[ -e "$s" ] || pr_die "$side=$s: unknown kernel: not pre, post or upstream, and no such file or directory"
		local given=$s
		s=$(realpath "$s")
		if [ -d "$s" ] && [ -f "$s/Makefile" ] && [ -f "$s/Kconfig" ]; then
			v=$(pr_kernel_version "$s")
			case "$v" in
			6.12.*) ;;
			*) pr_die "$side=$given: a Linux ${v:-(unknown version)} tree; make ab builds 6.12.y only (the base is $PR_BASE_KVERSION)" ;;
			esac
			[ "$v" = "$PR_BASE_KVERSION" ] ||
				pr_log "warning: $side=$given is Linux $v, not $PR_BASE_KVERSION: the incremental build recompiles what differs"
			label=$(slug "$(basename "$s")")
			tree=ab-$label$fslug
			tree_commit "$tree" "$s"
			what="the kernel tree ${s#"$PR_ROOT"/} (Linux $v)"
		else
			list=$scratch/list-$side
			patch_list "$s" > "$list"
			[ -s "$list" ] || pr_die "$side=$s: names no patches"
			label=$(slug "$(basename "$s" .patch)")
			[ "$label" != series ] || label=$(slug "$(basename "$(dirname "$s")")")
			tree=ab-$label$fslug
			cnt=$(apply_check "$tree" base "$list")
			what="6.12.118 plus $cnt patch(es) from ${s#"$PR_ROOT"/}"
		fi
		;;
	esac
	[ -z "$frag" ] || what="$what, with ${frag#"$PR_ROOT"/}"
	printf -v "label_$side" '%s' "$label"
	printf -v "tree_$side" '%s' "$tree"
	printf -v "what_$side" '%s' "$what"
}

# resolve sets these (printf -v).
label_A='' tree_A='' what_A='' label_B='' tree_B='' what_B=''
resolve A "$spec_a"
resolve B "$spec_b"
[ "$label_A" != "$label_B" ] || { label_A=$label_A-A; label_B=$label_B-B; }
name=${name:-$label_A-vs-$label_B$fslug}
name=$(slug "$name")
out=$PR_BUILD/ab/$name
pr_log "ab: A = $what_A (tree build/kernel/$tree_A)"
pr_log "ab: B = $what_B (tree build/kernel/$tree_B)"
pr_log "ab: RUN = $run, $n runs per boot, 2 boots per kernel; report in ${out#"$PR_ROOT"/}/report.md"
[ -z "$check_only" ] || { pr_log "ab: input checked (AB_CHECK_ONLY): nothing built"; exit 0; }

# ---- build -----------------------------------------------------------

# prepare_tree TREE: build/kernel/TREE (an ab-* tree) checked out at
# refs/ab/TREE, copied from a built tree with the same config when there is
# one so that only what differs is compiled.
prepare_tree() {
	local t=$1 dir=$kdir/$1 src='' c
	if [ ! -d "$dir/.git" ]; then
		for c in "$kdir"/ab-*; do
			[ -f "$c/vmlinux" ] && [ "$(cat "$c/.perf_ring-ab-config" 2>/dev/null)" = "$fsum" ] &&
				{ src=$c; break; }
		done
		if [ -z "$src" ]; then
			for c in upstream pre post; do
				[ -f "$kdir/$c/vmlinux" ] && { src=$kdir/$c; break; }
			done
		fi
		src=${src:-$origin}
		pr_log "ab: $t: copying the tree from ${src#"$kdir"/}"
		rm -rf "$dir"
		cp -a "$src" "$dir"
		rm -f "$dir/.perf_ring-series" "$dir/.perf_ring-ab-config"
		git -C "$dir" update-index -q --refresh >/dev/null || true
	fi
	git -C "$dir" fetch -q -f "$origin" 'refs/tags/*:refs/tags/*' 'refs/ab/*:refs/ab/*'
	if [ "$(git -C "$dir" rev-parse HEAD)" != "$(git -C "$dir" rev-parse "refs/ab/$t")" ]; then
		git -C "$dir" checkout -q -f "refs/ab/$t" ||
			pr_die "ab: $t: checkout of refs/ab/$t failed"
	fi
	echo "$fsum" > "$dir/.perf_ring-ab-config"
}

t_all=$(date +%s)
for side in A B; do
	t=tree_$side
	t=${!t}
	case "$t" in ab-*) prepare_tree "$t" ;; esac
	t0=$(date +%s)
	PR_CONFIG_EXTRA=$frag "$PR_ROOT/scripts/perf_ring/build-kernel.sh" "$t"
	# The image's initramfs (selftests built static: minutes), again only
	# when something it is made of is newer.
	i=$PR_BUILD/images/$t/initramfs.cpio.gz
	if [ ! -f "$i" ] || [ -n "$(find "$PR_BUILD/images/$t/bzImage" "$PR_BUILD/tools/perf_ring/static" \
		"$PR_ROOT/scripts/perf_ring/initramfs.sh" "$PR_ROOT/scripts/perf_ring/guest-init.sh" \
		"$PR_ROOT/scripts/perf_ring/guest-bench.sh" "$PR_ROOT/scripts/perf_ring/guest-lib.sh" \
		"$PR_ROOT/bench" \
		"$PR_ROOT/tools/testing/selftests/perf_ring" -newer "$i" 2>/dev/null | head -n1)" ]; then
		"$PR_ROOT/scripts/perf_ring/initramfs.sh" "$t"
	fi
	pr_log "ab: $side ($t) built in $(pr_elapsed "$t0")"
done

# ---- the guest's archive ------------------------------------------------

mkdir -p "$out"
rm -f "$out"/*.log
gcc -Wall -Wextra -Werror -O2 -static -o "$out/ab-timer" "$PR_ROOT/scripts/perf_ring/ab-timer.c" ||
	pr_die "ab: scripts/perf_ring/ab-timer.c failed to build"
printf '%s\n' "$run" > "$out/run"
printf 'AB_N=%s\nAB_PERIODS="%s"\nAB_REPS=%s\n' "$n" "$periods" "$reps" > "$out/conf"
{
	echo "dir /ab 0755 0 0"
	echo "file /ab/ab-guest.sh $PR_ROOT/scripts/perf_ring/ab-guest.sh 0755 0 0"
	echo "file /ab/ab-timer $out/ab-timer 0755 0 0"
	echo "file /ab/run $out/run 0644 0 0"
	echo "file /ab/conf $out/conf 0644 0 0"
	[ -z "$bin" ] || echo "file /usr/bin/$(basename "$bin") $bin 0755 0 0"
} > "$out/ab.list"

# ---- the boots ----------------------------------------------------------

for side in A B; do
	t=tree_$side
	t=${!t}
	img=$PR_BUILD/images/$t
	"$kdir/$t/usr/gen_init_cpio" "$out/ab.list" | gzip -1 > "$out/ab.cpio.gz"
	# The kernel unpacks concatenated archives in order: the image's own
	# initramfs, then /ab on top of it.
	cat "$img/initramfs.cpio.gz" "$out/ab.cpio.gz" > "$out/$side.initrd"
	for boot in 1 2; do
		log=$out/$side-$boot.log
		t0=$(date +%s)
		pr_log "ab: $side ($t), boot $boot of 2: $n runs of RUN, then one under perf-ring"
		QEMU_INITRD=$out/$side.initrd \
			"$PR_ROOT/scripts/perf_ring/qemu-run.sh" "$t" ab "$log" "${AB_TIMEOUT:-3600}" >/dev/null
		if grep -q AB_RUN_FAILED "$log"; then
			{
				st=$(grep -a -e '^AB_WARM ' -e '^AB_EMPTY ' -e '^AB_RUN ' "$log" | tail -n1 | sed -n 's/.* rc=\([0-9]*\) .*/\1/p')
				echo "RUN failed in the guest ($side, $t, boot $boot): exit status ${st:-unknown}"
				echo "its output:"
				grep -a '^AB_OUT ' "$log" | tr -d '\r' | sed 's/^AB_OUT /  /'
			} >&2
			pr_die "ab: RUN failed in the guest; console in ${log#"$PR_ROOT"/}"
		fi
		grep -q '^AB_PERF_END' "$log" ||
			pr_die "ab: $side boot $boot did not finish (no AB_PERF_END); console in ${log#"$PR_ROOT"/}"
		rm -rf "${out:?}/$side-$boot"
		mkdir -p "$out/$side-$boot"
		tr -d '\r' < "$log" | sed -n '/^AB_PERF_BEGIN/,/^AB_PERF_END/p' | sed '1d;$d' |
			base64 -d | tar -C "$out/$side-$boot" -xzf - ||
			pr_die "ab: $side boot $boot: the recording did not come through the console intact"
		pr_log "ab: $side boot $boot done in $(pr_elapsed "$t0")"
	done
done

# ---- the report ---------------------------------------------------------

# perf diff finds each kernel's kallsyms (from the guests) and the guest's
# binaries (all copied from here) by build-id, in one build-id cache that
# "perf --buildid-dir" points at.
rm -rf "$out/debug"
mkdir -p "$out/debug"
for side in A B; do cp -a "$out/$side-1/ab-cache/." "$out/debug/"; done
rec=$PR_BUILD/tools/perf_ring/static
for f in /bin/busybox "$rec/perf-ring" "$rec/close-loop" "$out/ab-timer" ${bin:+"$bin"}; do
	perf --buildid-dir "$out/debug" buildid-cache -a "$f" >/dev/null 2>&1 ||
		pr_log "ab: warning: perf buildid-cache -a $f failed; its symbols will not resolve"
done
python3 "$PR_ROOT/scripts/perf_ring/ab-report.py" --out "$out" \
	--name "$name" --run "$run" --n "$n" --periods "$periods" --reps "$reps" ${per:+--per "$per"} \
	--a-label "$label_A" --a-what "$what_A" --a-tree "$tree_A" \
	--b-label "$label_B" --b-what "$what_B" --b-tree "$tree_B" \
	--command "${AB_PERIODS:+AB_PERIODS='$periods' }${AB_REPS:+AB_REPS=$reps }make ab A=$spec_a B=$spec_b RUN='$run' N=$n${frag:+ CONFIG=${frag#"$PR_ROOT"/}}${bin:+ AB_BIN=${bin#"$PR_ROOT"/}}${per:+ PER=$per}" \
	--build "$PR_BUILD"
pr_log "ab: done in $(pr_elapsed "$t_all"); report in ${out#"$PR_ROOT"/}/report.md"
