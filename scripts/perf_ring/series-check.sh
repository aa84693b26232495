#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh PRE_TREE [WORKDIR]: check that the series in kernel/
# bisects. PRE_TREE is a PRE kernel git tree ("pre-series baseline" at
# HEAD), ideally already built; it is not modified. It is copied to WORKDIR
# (default build/series-check) with cp -a, which keeps objects and
# timestamps, so each step rebuilds only what the patch touched. Then for
# the baseline and for each patch in kernel/series, in order:
#
#   git am      the patch applies;
#   build       make bzImage succeeds with no compiler warning;
#   checkpatch  scripts/checkpatch.pl --strict reports nothing;
#   sparse      make C=2 kernel/events/ adds no warning to the baseline's.
#
# A patch that changes only tools/testing/selftests/ (and MAINTAINERS)
# cannot change the kernel build: instead of build and sparse, the selftest
# directories it touches are built against the tree's "make headers"
# (KHDR_INCLUDES), with no compiler warning ("selftests" rows).
#
# ARCHES="arm64 s390 arm" adds, for the baseline and each patch, a build of
# the objects that use is_default_overflow_handler() (arm64's and arm's
# hw_breakpoint.o, s390's perf_cpum_sf.o) and of kernel/events/ for each of
# those architectures, with Debian's cross compilers (make deps ARCHES=...
# unpacks them under build/deps/cross)
# and a minimal config (allnoconfig plus PERF_EVENTS; arm adds MMU and
# ARCH_MULTI_V7, for CPU_V7 and so HAVE_HW_BREAKPOINT, which a no-MMU
# allnoconfig lacks): "build ARCH" rows, which fail on a build error or
# on a compiler warning the baseline did not have. Each architecture builds
# in its own git worktree of the series tree, under .series-check/.
#
# CROSS_ONLY=1 (with ARCHES) gives only the git am, checkpatch and "build
# ARCH" rows: no x86 build, sparse or selftests. The PRE tree need not be
# built then, and WORKDIR (default build/series-check-cross) is a shared
# clone of it rather than a copy: the cross builds use only tracked files.
#
# BUILD_EACH=0 (what make check uses, to stay within its time) builds and
# runs sparse on the baseline and on the last patch that changes the kernel
# only: every patch still gets git am and checkpatch, and every selftests
# patch its selftests build. Each skipped step says so in its row; make
# series-check (BUILD_EACH=1, the default) builds every step.
#
# POST_TREE=DIR POST_LOG=FILE (with BUILD_EACH=0; make check, right after
# it built POST): the last kernel patch is not built a second time. Its
# build row is POST's: the files the series changed up to that patch
# (outside the selftests and MAINTAINERS) must be the POST tree's, byte
# for byte and no others, and POST's build log must show objects compiled
# and no compiler warning; its sparse row is make C=2 in the POST tree. A
# log that compiled nothing (POST was already built) cannot show that:
# the patch is then built here, as without POST_TREE.
#
# It prints a line per check and a summary, and exits non-zero if any check
# failed. Booting POST with the selftests is the QEMU pipeline's job.
# JOBS sets make's -j (default 2).
set -uo pipefail
export LC_ALL=C

root=$(cd "$(dirname "$0")/../.." && pwd)
log() { printf '[perf_ring] series-check: %s\n' "$*" >&2; }
die() { printf '[perf_ring] series-check: error: %s\n' "$*" >&2; exit 2; }
elapsed() { local d=$(( $(date +%s) - $1 )); printf '%dm%02ds' $((d / 60)) $((d % 60)); }

pre=${1:?usage: series-check.sh PRE_TREE [WORKDIR]}
cross_only=${CROSS_ONLY:-}
case "$cross_only" in ""|0) cross_only= ;; 1) ;; *) die "CROSS_ONLY=$cross_only: use 1 or leave it unset" ;; esac
[ -z "$cross_only" ] || [ -n "${ARCHES:-}" ] || die "CROSS_ONLY=1 needs ARCHES"
work=${2:-$root/build/series-check${cross_only:+-cross}}
jobs=${JOBS:-2}
build_each=${BUILD_EACH:-1}
case "$build_each" in 0|1) ;; *) die "BUILD_EACH=$build_each: use 1 (every step) or 0 (the last kernel step)" ;; esac
post_tree=${POST_TREE:-}
post_log=${POST_LOG:-}
if [ -n "$post_tree" ]; then
	[ "$build_each" = 0 ] && [ -z "$cross_only" ] || die "POST_TREE is for BUILD_EACH=0, without CROSS_ONLY"
	[ -f "$post_tree/vmlinux" ] || die "POST_TREE=$post_tree: not a built kernel tree"
	[ -f "$post_log" ] || die "POST_LOG=$post_log: no such file (POST's build log)"
	post_tree=$(cd "$post_tree" && pwd)
	post_log=$(cd "$(dirname "$post_log")" && pwd)/$(basename "$post_log")
fi
series=$root/kernel/series
frag=$root/kernel/configs/perf_ring.config

[ -d "$pre/kernel/events" ] || die "$pre: not a kernel tree"
[ "$(git -C "$pre" log -1 --format=%s 2>/dev/null)" = "pre-series baseline" ] ||
	die "$pre: HEAD is not the \"pre-series baseline\" commit"
[ -f "$series" ] || die "kernel/series is missing"
mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
[ "${#patches[@]}" -gt 0 ] || die "kernel/series lists no patches"
for p in "${patches[@]}"; do
	[ -f "$root/kernel/$p" ] || die "kernel/series names $p, which is not in kernel/"
done

# kernel_patch P: P changes a file outside tools/testing/selftests/ and MAINTAINERS.
kernel_patch() {
	grep '^diff --git a/' "$root/kernel/$1" |
		grep -qvE '^diff --git a/(tools/testing/selftests/|MAINTAINERS )'
}
last_kernel=0
for i in "${!patches[@]}"; do
	! kernel_patch "${patches[$i]}" || last_kernel=$((i + 1))
done

# The patch of the series that updates MAINTAINERS, if one does.
maint_patch=$(cd "$root/kernel" && grep -l '^diff --git a/MAINTAINERS ' "${patches[@]}" | head -n 1 || true)

case "$work" in /*) ;; *) work=$PWD/$work ;; esac
t0=$(date +%s)
rm -rf "$work"
mkdir -p "$(dirname "$work")"
if [ -n "$cross_only" ]; then
	log "cloning ${pre} to ${work#"$root"/} (git clone --shared)"
	git -C "$pre" update-index -q --refresh >/dev/null
	git -C "$pre" diff-index --quiet HEAD -- || die "$pre has uncommitted changes"
	git -c advice.detachedHead=false clone -q --shared "$pre" "$work" || die "clone failed"
	cd "$work" || die "$work"
else
	log "copying ${pre} to ${work#"$root"/} (cp -a)"
	cp -a "$pre" "$work" || die "copy failed"
	cd "$work" || die "$work"
	# cp -a gave every file a new inode and ctime: refresh the index's
	# stat data without touching the files ("git reset --hard" would
	# rewrite them all, with new mtimes, and make the build start over).
	git update-index -q --refresh >/dev/null
	git diff-index --quiet HEAD -- || die "$pre has uncommitted changes"
fi
logs=$work/.series-check
mkdir -p "$logs"
echo '/.series-check/' >> "$(git rev-parse --git-dir)/info/exclude"

failed=0
mk=
trap '[ -z "$mk" ] || kill "$mk" 2>/dev/null; exit 130' INT TERM
declare -a summary
result() {	# result STEP CHECK ok|FAIL [detail]
	local line
	line=$(printf '%-44s %-10s %s' "$1" "$2" "$3${4:+ ($4)}")
	summary+=("$line")
	log "$line"
	case $3 in ok|skipped) ;; *) failed=1 ;; esac
}

# build TAG STEP: make bzImage; no compiler warning allowed after the
# baseline. TAG names the log files, STEP is what is printed.
build() {
	local tag=$1 step=$2 blog=$logs/build-$1.log t
	t=$(date +%s)
	# A progress line every 30 s: a full build takes minutes.
	make -j"$jobs" bzImage >"$blog" 2>&1 &
	mk=$!
	local n=0 rc=0
	while kill -0 "$mk" 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		[ $((n % 30)) -ne 0 ] || ! kill -0 "$mk" 2>/dev/null ||
			log "$step: building, $(grep -c '^  CC' "$blog") objects compiled, $(elapsed "$t")"
	done
	wait "$mk" || rc=$?
	mk=
	if [ "$rc" -ne 0 ]; then
		grep -E 'error|Error' "$blog" | head -n 20 >&2
		result "$step" build FAIL "see ${blog#"$root"/}"
		return 1
	fi
	local nw
	nw=$(grep -c 'warning:' "$blog")
	if [ "$tag" != baseline ] && [ "$nw" -gt 0 ]; then
		grep 'warning:' "$blog" >&2
		result "$step" build FAIL "$nw compiler warnings"
		return 0
	fi
	result "$step" build ok "$(elapsed "$t"), $(grep -c '^  CC' "$blog") objects compiled, $(size kernel/events/ring_buffer.o kernel/events/core.o | awk 'NR>1 {sub(".*/", "", $6); printf "%s%s text %s data %s", (NR>2 ? ", " : ""), $6, $1, $2}')"
}

# post_build STEP: the build row of the last kernel patch from POST's
# build, when POST_TREE is given and its log shows a build (return 2 when
# it does not: the caller builds here instead).
post_build() {
	local step=$1 ours theirs f n nw
	n=$(grep -c '^  CC' "$post_log")
	[ "$n" -gt 0 ] || return 2
	ours=$(git diff --name-only tags/pre HEAD -- . ':!tools/testing/selftests' ':!MAINTAINERS')
	theirs=$(git -C "$post_tree" diff --name-only tags/pre HEAD -- . ':!tools/testing/selftests' ':!MAINTAINERS')
	git -C "$post_tree" update-index -q --refresh >/dev/null
	if [ "$ours" != "$theirs" ] || ! git -C "$post_tree" diff-index --quiet HEAD --; then
		result "$step" build FAIL "POST_TREE changes other files than the series up to here (or has uncommitted changes)"
		return 1
	fi
	for f in $ours; do
		cmp -s "$f" "$post_tree/$f" ||
			{ result "$step" build FAIL "$f differs from POST_TREE's"; return 1; }
	done
	nw=$(grep -c 'warning:' "$post_log")
	if [ "$nw" -gt 0 ]; then
		grep 'warning:' "$post_log" >&2
		result "$step" build FAIL "$nw compiler warnings in POST's build"
		return 0
	fi
	result "$step" build ok "POST's build: the same $(wc -w <<<"$ours") files; ${post_log#"$root"/}: $n objects compiled, no warning"
}

# sparse TAG STEP: sparse warnings in kernel/events/. A warning is known
# by its file, its message and the text of the source line it points at,
# not by its line number, so that code moved by a patch does not make it
# new. The same line reported twice (sparse reports a warning in an
# __always_inline function once per caller) is one warning.
sparse() {
	local tag=$1 step=$2 slog=$logs/sparse-$1.log
	make -j"$jobs" C=2 kernel/events/ >"$slog" 2>&1 || {
		result "$step" sparse FAIL "make C=2 failed, see ${slog#"$root"/}"
		return
	}
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$slog" | sort -u |
	while IFS=: read -r f l _ msg; do
		printf '%s:%s | %s\n' "$f" "$msg" \
			"$(sed -n "${l}p" "$f" 2>/dev/null | tr -s ' \t' ' ')"
	done | sort -u > "$logs/sparse-$tag.txt"
	if [ "$tag" = baseline ]; then
		result "$step" sparse ok "$(wc -l < "$logs/sparse-$tag.txt") warnings in the baseline"
		return
	fi
	local new
	new=$(comm -13 "$logs/sparse-baseline.txt" "$logs/sparse-$tag.txt")
	if [ -n "$new" ]; then
		printf '%s\n' "$new" >&2
		result "$step" sparse FAIL "$(printf '%s\n' "$new" | wc -l) new warnings"
	else
		result "$step" sparse ok
	fi
}

# cross TAG STEP: the is_default_overflow_handler() users and kernel/events/
# for each of $ARCHES, at the series tree's HEAD.
# The cross gcc is the one make deps ARCHES=... unpacked (deps.sh says why).
xbin=${PR_BUILD:-$root/build}/deps/cross/bin
declare -A xcc=([arm64]=$xbin/aarch64-linux-gnu- [s390]=$xbin/s390x-linux-gnu- [arm]=$xbin/arm-linux-gnueabihf-)
declare -A xobj=([arm64]=arch/arm64/kernel/hw_breakpoint.o [s390]=arch/s390/kernel/perf_cpum_sf.o
		 [arm]=arch/arm/kernel/hw_breakpoint.o)
cross() {
	local tag=$1 step=$2 a xt xlog t head nw
	head=$(git rev-parse HEAD)
	for a in ${ARCHES:-}; do
		xt=$logs/cross-$a
		xlog=$logs/cross-$a-$tag.log
		t=$(date +%s)
		if [ ! -d "$xt" ]; then
			log "$step: $a: worktree and minimal config (allnoconfig + PERF_EVENTS), make prepare"
			git worktree add -q --detach "$xt" "$head" || { result "$step" "build $a" FAIL "git worktree add"; continue; }
			if ! (cd "$xt" &&
			      make ARCH="$a" CROSS_COMPILE="${xcc[$a]}" allnoconfig &&
			      scripts/config -e PERF_EVENTS &&
			      { [ "$a" != arm ] || scripts/config -e MMU -e ARCH_MULTI_V7; } &&
			      make ARCH="$a" CROSS_COMPILE="${xcc[$a]}" olddefconfig &&
			      grep -qx 'CONFIG_PERF_EVENTS=y' .config &&
			      { [ "$a" = s390 ] || grep -qx 'CONFIG_HAVE_HW_BREAKPOINT=y' .config; } &&
			      make -j"$jobs" ARCH="$a" CROSS_COMPILE="${xcc[$a]}" prepare) \
			     >"$logs/cross-$a-config.log" 2>&1; then
				result "$step" "build $a" FAIL "config or prepare, see ${logs#"$root"/}/cross-$a-config.log"
				continue
			fi
		else
			git -C "$xt" checkout -q --detach "$head" ||
				{ result "$step" "build $a" FAIL "checkout"; continue; }
		fi
		if ! make -C "$xt" -j"$jobs" ARCH="$a" CROSS_COMPILE="${xcc[$a]}" \
			"${xobj[$a]}" kernel/events/ >"$xlog" 2>&1; then
			grep -E 'error|Error' "$xlog" | head -n 20 >&2
			result "$step" "build $a" FAIL "see ${xlog#"$root"/}"
			continue
		fi
		grep 'warning:' "$xlog" | sed 's/:[0-9]*:[0-9]*:/:/' | sort -u > "$logs/cross-$a-$tag.warn"
		if [ "$tag" != baseline ]; then
			nw=$(comm -13 "$logs/cross-$a-baseline.warn" "$logs/cross-$a-$tag.warn" | wc -l)
			if [ "$nw" -gt 0 ]; then
				comm -13 "$logs/cross-$a-baseline.warn" "$logs/cross-$a-$tag.warn" >&2
				result "$step" "build $a" FAIL "$nw new compiler warnings"
				continue
			fi
		fi
		result "$step" "build $a" ok "$(elapsed "$t"), $(grep -c '^  CC' "$xlog") objects compiled: ${xobj[$a]##*/} and kernel/events/"
	done
}

# selftests TAG STEP: the selftest directories the patch touches, built
# with the tree's "make headers" as KHDR_INCLUDES; no compiler warning.
selftests() {
	local tag=$1 step=$2 slog=$logs/selftests-$1.log t d dirs
	t=$(date +%s)
	dirs=$(sed -n 's|^diff --git a/tools/testing/selftests/\([^/]*\)/.*|\1|p' "$root/kernel/${patches[$((tag - 1))]}" | sort -u)
	if [ -z "$dirs" ]; then
		result "$step" selftests ok "no selftest changed; no kernel file changed"
		return
	fi
	if ! make -s headers >"$slog" 2>&1; then
		result "$step" selftests FAIL "make headers, see ${slog#"$root"/}"
		return
	fi
	for d in $dirs; do
		rm -rf "$logs/selftests-out/$d"
		mkdir -p "$logs/selftests-out/$d"
		if ! make -C "tools/testing/selftests/$d" OUTPUT="$logs/selftests-out/$d" \
			KHDR_INCLUDES="-isystem $PWD/usr/include" >>"$slog" 2>&1; then
			result "$step" selftests FAIL "$d does not build, see ${slog#"$root"/}"
			return
		fi
	done
	if grep -q 'warning:' "$slog"; then
		grep 'warning:' "$slog" >&2
		result "$step" selftests FAIL "compiler warnings"
		return
	fi
	result "$step" selftests ok "$(elapsed "$t"), built: $dirs (no kernel file changed)"
}

# The baseline: configure if the copy was never built, then build it.
if [ -n "$cross_only" ]; then
	log "baseline: CROSS_ONLY=1, the cross builds only"
elif [ ! -f .config ]; then
	log "baseline: configuring (tinyconfig + perf_ring.config)"
	cp "$frag" kernel/configs/perf_ring.config
	{ make -s tinyconfig && make -s perf_ring.config; } >"$logs/config.log" 2>&1 ||
		die "configuration failed, see ${logs#"$root"/}/config.log"
	rm kernel/configs/perf_ring.config
	log "baseline: not built yet, a full build takes several minutes"
fi
if [ -z "$cross_only" ]; then
	log "baseline: building"
	build baseline baseline || die "the PRE tree does not build"
	sparse baseline baseline
fi
cross baseline baseline

i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	step="[$i/${#patches[@]}] ${p%.patch}"
	step=${step:0:44}
	if git -c user.name="perf_ring project" -c user.email=perf_ring@lists.invalid \
		am -q --keep-cr "$root/kernel/$p" >"$logs/am-$i.log" 2>&1; then
		result "$step" "git am" ok
	else
		cat "$logs/am-$i.log" >&2
		git am --abort >/dev/null 2>&1
		result "$step" "git am" FAIL
		break
	fi
	# Any output fails, a broken SPDX check (scripts/spdxcheck.py) too,
	# except warnings accepted by name: the tip tree's "Originally-by:"
	# tag, which checkpatch calls a non-standard signature; the 4.7
	# commits the changelogs name, which a tree made from a release
	# tarball has no history to look up; and "does MAINTAINERS need
	# updating?" on the selftests patches, when a patch of the series
	# updates MAINTAINERS on its own. That check wants Debian's python3
	# with python3-ply and python3-git, whatever python3 comes first in
	# PATH.
	PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --quiet --terse --show-types \
		"$root/kernel/$p" >"$logs/checkpatch-$i.log" 2>&1
	ok_re=': WARNING:(BAD_SIGN_OFF: Non-standard signature: Originally-by:|UNKNOWN_COMMIT_ID: Unknown commit id .[0-9a-f]{12}., maybe rebased or not pulled\?'
	if [ -n "$maint_patch" ] && ! grep -q '^diff --git a/' <(grep '^diff --git a/' "$root/kernel/$p" |
		grep -v '^diff --git a/tools/testing/selftests/'); then
		ok_re="$ok_re|FILE_PATH_CHANGES: added, moved or deleted file\\(s\\), does MAINTAINERS need updating\\?"
	fi
	ok_re="$ok_re)\$"
	accepted=$(grep -cE "$ok_re" "$logs/checkpatch-$i.log" || true)
	other=$(grep -vE "$ok_re" "$logs/checkpatch-$i.log" | grep -v '^total: ' || true)
	total=$(grep '^total: ' "$logs/checkpatch-$i.log" || true)
	if [ -z "$other" ] && { [ -z "$total" ] ||
	   grep -qE "^total: 0 errors, $accepted warnings, 0 checks, " <<< "$total"; }; then
		result "$step" checkpatch ok "$([ "$accepted" -eq 0 ] || echo "$accepted warnings accepted by name")"
	else
		cat "$logs/checkpatch-$i.log" >&2
		result "$step" checkpatch FAIL
	fi
	# A patch that changes only selftests (and MAINTAINERS) cannot change
	# the kernel build: build the selftest directories it touches, the
	# kselftest way, against this tree's installed uapi headers, instead
	# of make bzImage and sparse.
	if ! kernel_patch "$p"; then
		[ -n "$cross_only" ] || selftests "$i" "$step"
		continue
	fi
	if [ -z "$cross_only" ] && [ "$build_each" = 0 ] && [ "$i" -lt "$last_kernel" ]; then
		result "$step" build skipped "BUILD_EACH=0: built with the later patches; make series-check builds each step"
	elif [ -n "$post_tree" ]; then
		post_build "$step"
		case $? in
		0)	pushd "$post_tree" >/dev/null || die "$post_tree"
			sparse "$i" "$step"
			popd >/dev/null || die "$work" ;;
		1)	break ;;
		*)	log "$step: POST's build log compiled nothing: building here"
			build "$i" "$step" || break
			sparse "$i" "$step" ;;
		esac
	elif [ -z "$cross_only" ]; then
		build "$i" "$step" || break
		sparse "$i" "$step"
	fi
	cross "$i" "$step"
done

echo
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
	log "FAILED after $(elapsed "$t0"); logs in ${logs#"$root"/}"
	exit 1
fi
if [ -n "$cross_only" ]; then
	log "all ${#patches[@]} patches apply and pass checkpatch --strict; the baseline and each kernel step build for $ARCHES ($(elapsed "$t0"))"
elif [ "$build_each" = 0 ]; then
	log "all ${#patches[@]} patches apply and pass checkpatch --strict; the baseline and the series up to patch $last_kernel build and pass sparse, the selftests patches build their selftests${ARCHES:+, and each kernel step builds for $ARCHES} (BUILD_EACH=0: make series-check builds each step; $(elapsed "$t0"))"
else
	log "all ${#patches[@]} patches apply, build, pass checkpatch --strict and sparse${ARCHES:+, and build for $ARCHES} ($(elapsed "$t0"))"
fi
