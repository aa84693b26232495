# SPDX-License-Identifier: GPL-2.0
#
# JIT-compiled BPF code has names (sourced by e2e.sh): the kernel's KSYMBOL
# and BPF_EVENT records for a program loaded while recording, and the
# recorder's own for one loaded before.  bpf-spin spends its time in a
# program called perf_ring_spin.

BS=${BPF_SPIN:-}
# bpf_share NAME FILE: the share perf report gives the program's symbol
bpf_share() {
	perf report --stdio -i "$2" --sort sym 2>/dev/null |
		awk -v s="bpf_prog_$1_perf_ring_spin" '$NF == s { sub("%", "", $1); print int($1); exit }'
}

if [ -z "$BS" ] || ! "$BS" 0 1 >bpf.tag 2>bpf.err; then
	skip "BPF programs get names" "bpf-spin cannot load a program: $(head -1 bpf.err 2>/dev/null)"
else
	tag=$(cat bpf.tag)
	# loaded while recording: the kernel says so
	"$PR" record -q -e cpu-clock -o bpf-new.data -- "$BS" 0 500 >/dev/null 2>bpf.err
	share=$(bpf_share "$tag" bpf-new.data)
	if [ "${share:-0}" -ge 50 ]; then
		ok "a BPF program loaded while recording: ${share}% of the samples name it (bpf_prog_${tag}_perf_ring_spin)"
	else
		nok "a BPF program loaded while recording is named" "share '${share}': $(perf report --stdio -i bpf-new.data --sort sym 2>&1 | grep -v '^#' | head -3)"
	fi
	# loaded before: the recorder lists it (streaming, and a snapshot)
	for mode in "" --overwrite; do
		"$BS" 600 700 >/dev/null 2>bpf.err &
		spin=$!
		sleep 0.3
		"$PR" record -q $mode -e cpu-clock -p $spin -o bpf-old.data 2>bpf.err
		wait $spin
		share=$(bpf_share "$tag" bpf-old.data)
		if [ "${share:-0}" -ge 50 ]; then
			ok "a BPF program loaded before recording ${mode:-(streaming)}: ${share}% of the samples name it"
		else
			nok "a BPF program loaded before recording ${mode:-(streaming)} is named" \
				"share '${share}': $(head -2 bpf.err) $(perf report --stdio -i bpf-old.data --sort sym 2>&1 | grep -v '^#' | head -3)"
		fi
	done
fi
rm -f bpf-*.data bpf.tag bpf.err
