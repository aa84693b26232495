#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series-sizes.sh: object sizes of kernel/events/ for PRE, after each patch
# in kernel/series, and for UPSTREAM, in two configurations:
#
#   defconfig  x86_64 "make defconfig": -O2, CPU mitigations (retpolines)
#              on, as a distribution kernel builds it;
#   tiny       tinyconfig plus kernel/configs/perf_ring.config (-Os), the
#              guest kernel that the QEMU figures come from.
#
# For each it builds only kernel/events/ (after "make prepare") in a clone
# of build/kernel/origin under build/sizes/<config>, applying the patches
# one at a time, and records "size" of ring_buffer.o and core.o, "nm -S" of
# the output functions, and how __perf_event_overflow() reaches the sample
# writer (a direct call or a retpoline thunk). It writes
# bench/results/series-sizes.md, and bench/results/series-begin-forward.diff:
# the disassembly of perf_output_begin_forward(), perf_output_begin_backward()
# and the helpers they call in the tiny POST and UPSTREAM builds
# (scripts/perf_ring/series_disasm.py).
#
# CONFIGS (default "defconfig tiny") selects the configurations; JOBS sets
# make's -j (default 2).
set -Eeuo pipefail
. "$(dirname "$0")/lib.sh"

configs=${CONFIGS:-defconfig tiny}
jobs=${JOBS:-2}
origin=$PR_BUILD/kernel/origin
series=$PR_ROOT/kernel/series
results=$PR_ROOT/bench/results
md=$results/series-sizes.md
funcs=(perf_output_begin perf_output_begin_forward perf_output_begin_backward
       perf_event_output perf_event_output_default perf_event_output_forward
       perf_event_output_backward __perf_event_overflow)

git -C "$origin" rev-parse -q --verify pre >/dev/null 2>&1 ||
	pr_die "build/kernel/origin has no \"pre\" tag: run \"make kernel KERNEL=pre\" first"
mapfile -t patches < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series")
[ "${#patches[@]}" -gt 0 ] || pr_die "kernel/series lists no patches"
# The position of the last patch that touches kernel code (POST's step).
last_k=0
for k in "${!patches[@]}"; do
	! grep -qE '^diff --git a/(kernel|include|arch)/' "$PR_ROOT/kernel/${patches[$k]}" ||
		last_k=$((k + 1))
done
t0=$(date +%s)
trap 'pr_log "series-sizes: error: a command failed at line $LINENO"' ERR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure CONFIG STEP: one row of the table, from the objects just built.
measure() {
	local cfg=$1 step=$2 rb=kernel/events/ring_buffer.o core=kernel/events/core.o
	local rbs cs nms f sz call
	rbs=$(size "$rb" | awk 'NR == 2 { print $1 " | " $2 " | " $3 }')
	cs=$(size "$core" | awk 'NR == 2 { print $1 " | " $2 " | " $3 }')
	nms=
	for f in "${funcs[@]}"; do
		sz=$(nm -S --defined-only "$rb" "$core" 2>/dev/null |
			awk -v f="$f" '$4 == f && !s { s = $2 } END { print s }')
		[ -z "$sz" ] || nms+="${nms:+, }${f#perf_} $((16#$sz))"
	done
	# The call of the overflow handler in __perf_event_overflow(): the
	# calls it makes, by target, among those that write a sample.
	call=$(objdump -dr --no-show-raw-insn "$core" 2>/dev/null |
		awk '/^[0-9a-f]+ <__perf_event_overflow>:/ { on = 1; next }
		     on && /^$/ { on = 0 }
		     on && /R_X86_64_(PLT32|PC32)/ && /(perf_event_output|__x86_indirect_thunk|__x86_indirect_call)/ {
			sub(/.*R_X86_64_[A-Z0-9]+[ \t]+/, ""); sub(/-0x[0-9a-f]+$/, "")
			if (!seen[$0]++) out = out (out ? ", " : "") $0
		     }
		     END { print (out ? out : "-") }')
	printf '| %s | %s | %s | %s | %s |\n' "$step" "$rbs" "$cs" "$call" "$nms" >> "$tmp/$cfg.rows"
}

# build_events STEP: make kernel/events/, with a progress line.
build_events() {
	local t
	t=$(date +%s)
	make -j"$jobs" kernel/events/ > "$tmp/make.log" 2>&1 || {
		tail -n 30 "$tmp/make.log" >&2
		pr_die "series-sizes: $cfg, $1: make kernel/events/ failed"
	}
	pr_log "series-sizes: $cfg, $1: built in $(pr_elapsed "$t")"
}

for cfg in $configs; do
	case "$cfg" in defconfig|tiny) ;; *) pr_die "CONFIGS: $cfg is not defconfig or tiny" ;; esac
	tree=$PR_BUILD/sizes/$cfg
	if [ ! -d "$tree/.git" ]; then
		pr_log "series-sizes: $cfg: cloning build/kernel/origin"
		rm -rf "$tree"
		mkdir -p "$(dirname "$tree")"
		git clone -q --no-checkout "$origin" "$tree"
	fi
	cd "$tree"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach tags/pre
	if [ ! -f .config ] || [ "$(cat .perf_ring-sizes 2>/dev/null)" != "$cfg" ]; then
		pr_log "series-sizes: $cfg: configuring and make prepare (a few minutes)"
		case "$cfg" in
		defconfig)
			make -s defconfig >/dev/null
			;;
		tiny)
			make -s tinyconfig >/dev/null
			cp "$PR_ROOT/kernel/configs/perf_ring.config" kernel/configs/
			make -s perf_ring.config >/dev/null
			rm kernel/configs/perf_ring.config
			;;
		esac
		echo "$cfg" > .perf_ring-sizes
	fi
	grep -qx '/.perf_ring-sizes' .git/info/exclude 2>/dev/null ||
		echo '/.perf_ring-sizes' >> .git/info/exclude
	make -s -j"$jobs" prepare > "$tmp/prepare.log" 2>&1 || {
		tail -n 30 "$tmp/prepare.log" >&2
		pr_die "series-sizes: $cfg: make prepare failed"
	}
	opt=$(grep -E '^CONFIG_CC_OPTIMIZE_FOR_(PERFORMANCE|SIZE)=y' .config | sed 's/^CONFIG_CC_OPTIMIZE_FOR_//; s/=y//')
	retp=$(grep -q '^CONFIG_MITIGATION_RETPOLINE=y' .config && echo on || echo off)
	printf '%s\n' "$opt, retpolines $retp, $(gcc --version | head -n 1)" > "$tmp/$cfg.desc"

	build_events PRE
	measure "$cfg" PRE
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		git -c "user.name=perf_ring project" -c user.email=perf_ring@lists.invalid \
			am -q --keep-cr "$PR_ROOT/kernel/$p" ||
			pr_die "series-sizes: $cfg: $p does not apply"
		# Steps are numbered as the changelogs are (i/N of the whole
		# series); the patches that touch no kernel code (the
		# selftests, MAINTAINERS) are applied but not measured, and the
		# last one that does is POST.
		grep -qE '^diff --git a/(kernel|include|arch)/' "$PR_ROOT/kernel/$p" || continue
		step="$i/${#patches[@]}"
		[ "$i" -ne "$last_k" ] || step="$step (POST)"
		build_events "$step"
		measure "$cfg" "$step"
		if [ "$cfg" = tiny ] && [ "$i" -eq "$last_k" ]; then
			cp kernel/events/ring_buffer.o "$tmp/post-rb.o"
		fi
	done
	git checkout -q -f --detach tags/base
	build_events UPSTREAM
	measure "$cfg" UPSTREAM
	[ "$cfg" != tiny ] || cp kernel/events/ring_buffer.o "$tmp/upstream-rb.o"
	cd "$PR_ROOT"
done

{
	echo "# Object sizes of kernel/events/ along the series"
	echo
	echo "Made by \`make series-sizes\` (scripts/perf_ring/series-sizes.sh) from"
	echo "kernel/series, on the pinned $PR_BASE_KVERSION base. Only kernel/events/ is"
	echo "built, after \`make prepare\`. Sizes are in bytes: \`size\` (text, data,"
	echo "bss) of the two objects and \`nm -S\` of the output functions."
	echo "\"overflow call\" is what __perf_event_overflow() calls to write a"
	echo "sample, from \`objdump -dr\` of core.o: the function itself"
	echo "(a direct call) or a retpoline thunk (an indirect call); \"-\" is"
	echo "neither, which without retpolines means a plain indirect call."
	for cfg in $configs; do
		echo
		case "$cfg" in
		defconfig) echo "## x86_64 defconfig ($(cat "$tmp/$cfg.desc"))" ;;
		tiny) echo "## tinyconfig + kernel/configs/perf_ring.config ($(cat "$tmp/$cfg.desc"))" ;;
		esac
		echo
		echo "| step | ring_buffer.o text | data | bss | core.o text | data | bss | overflow call | functions (nm -S) |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
		cat "$tmp/$cfg.rows"
	done
} > "$md"
pr_log "series-sizes: wrote ${md#"$PR_ROOT"/}"

# The sample path's code in the tiny POST and UPSTREAM builds, helpers
# included (scripts/perf_ring/series_disasm.py).
if [ -f "$tmp/post-rb.o" ] && [ -f "$tmp/upstream-rb.o" ]; then
	mkdir -p "$PR_BUILD/sizes/tiny-objects"
	cp "$tmp/post-rb.o" "$PR_BUILD/sizes/tiny-objects/post-ring_buffer.o"
	cp "$tmp/upstream-rb.o" "$PR_BUILD/sizes/tiny-objects/upstream-ring_buffer.o"
	python3 "$PR_ROOT/scripts/perf_ring/series_disasm.py" \
		"$PR_BUILD/sizes/tiny-objects/post-ring_buffer.o" \
		"$PR_BUILD/sizes/tiny-objects/upstream-ring_buffer.o"
fi
pr_log "series-sizes: done in $(pr_elapsed "$t0")"
