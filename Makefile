# SPDX-License-Identifier: GPL-2.0
#
# perf_ring: the top-level make targets. README says what each one does.
#
#   make run                     the main job (a flight-recorder demo)
#   make check                   every test, as CI runs it
#   make deps                    install missing Debian packages
#   make kernel KERNEL=pre|post|upstream
#   make qemu-check KERNEL=pre|post|upstream
#   make kselftest TARGETS=perf_ring / kselftest-user / kselftest-asan / kselftest-llvm
#   make series / series-check / series-sizes / series-disasm   the series
#   make tools / tools-test / tools-e2e / tools-asan / tools-privileges / tools-security
#   make bench / qemu-bench      benchmarks (QUICK=1 for a short run)
#   make ab A=... B=... RUN='cmd' [N=10] [CONFIG=frag] [AB_BIN=path] [PER=n]
#                                A/B of two kernels in instructions, with a
#                                profile diff (ab-test: its input checks)
#   make soak [SOAK_SECONDS=600]   soak-host, then soak-guest
#   make soak-host [SOAK_SECONDS=600]   the soak on the host
#   make soak-guest KERNEL=post [SOAK_SECONDS=600]   the soak in the guest,
#                                with CPU 1 going offline and back
#   make fuzz [FUZZ_SECONDS=600]
#   make install [PREFIX=/usr/local]  perf-ring and its manual pages
#   make deb                     the Debian package into build/deb/ (lintian)
#   make deb-check               the package on a booted Debian 12 in QEMU

KERNEL ?= post
TARGETS ?= perf_ring
# DEBUG=1: the debug kernel (kernel/configs/perf_ring-debug.config);
# DEBUG=kcsan: the KCSAN kernel (kernel/configs/perf_ring-kcsan.config).
# QUICK=1: the short benchmark run.
# SERIES_PREFIX=N: make qemu-bench measures PRE plus the first N patches
# against POST (bench/results/qemu-bench-pN.md).
# PARANOID: the perf_event_paranoid levels of kselftest-user and
# tools-privileges (default "2 1 -1").
# ARCHES="arm64 s390 arm": make series-check also builds, at each step, the
# users of is_default_overflow_handler() for those architectures (cross
# compilers from make deps ARCHES=...).
# NR_CPUS=N: the kernel flavour with CONFIG_NR_CPUS=N (tree and images
# <KERNEL>-cpusN); make qemu-bench PART=scale builds NR_CPUS=64 itself.
export DEBUG QUICK PARANOID SERIES_PREFIX CONTROL FAULTS ARCHES NR_CPUS
# FAULTS=1 reads the faulted runs' files with perf: the initramfs has it.
ifeq ($(FAULTS),1)
export GUEST_PERF := 1
endif
S := scripts/perf_ring

# Quiet by default, like kbuild; V=1 shows the commands.
ifneq ($(V),1)
Q := @
MAKEFLAGS += --no-print-directory
endif

.PHONY: all deps bench-scale soak-scale base kernel initramfs qemu-check kselftest kselftest-user \
	kselftest-asan kselftest-llvm tools tools-static tools-test tools-e2e tools-asan \
	tools-privileges tools-security series series-check series-sizes series-disasm \
	check run bench qemu-bench soak soak-host soak-guest fuzz fuzz-smoke clean help install \
	ab ab-test deb deb-check

all: tools

# the comment block at the top, whole
help:
	$(Q)sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile

deps:
	$(Q)$(S)/deps.sh

base: deps
	$(Q)$(S)/base.sh build/linux-base

kernel: deps
	$(Q)$(S)/build-kernel.sh $(KERNEL)

initramfs: kernel tools-static
	$(Q)$(S)/initramfs.sh $(KERNEL)

qemu-check: initramfs
	$(Q)$(S)/qemu-check.sh $(KERNEL)

kselftest: base
	$(Q)$(S)/kselftest.sh $(TARGETS)

# As nobody at each perf_event_paranoid level in PARANOID.
kselftest-user: base
	$(Q)$(S)/kselftest.sh --user nobody $(TARGETS)

# Built with LLVM=1 (clang) into build/kselftest-llvm, run as root.
kselftest-llvm: base
	$(Q)$(S)/kselftest.sh --llvm $(TARGETS)

# Built with ASan and UBSan into build/kselftest-asan, run as root.
kselftest-asan: base
	$(Q)$(S)/kselftest.sh --sanitize $(TARGETS)

# The recorder (tools/perf_ring builds into build/tools/perf_ring).
tools: deps
	$(Q)if [ -f tools/perf_ring/Makefile ]; then $(MAKE) -C tools/perf_ring; fi

# ARCH=i386 also builds the recorder -m32 (build/tools/perf_ring/static-i386),
# for the i386 guest.
tools-static: deps
	$(Q)if [ -f tools/perf_ring/Makefile ]; then $(MAKE) -C tools/perf_ring static; fi
	$(Q)if [ "$(ARCH)" = i386 ]; then $(MAKE) -C tools/perf_ring \
		O=$(CURDIR)/build/tools/perf_ring/static-i386 LDFLAGS=-static CC="gcc -m32" all; fi

tools-test: deps
	$(Q)$(MAKE) -C tools/perf_ring test

tools-e2e: deps
	$(Q)$(MAKE) -C tools/perf_ring e2e

tools-asan: deps
	$(Q)$(MAKE) -C tools/perf_ring asan-test

tools-privileges: deps
	$(Q)$(MAKE) -C tools/perf_ring privileges

tools-security: deps
	$(Q)$(MAKE) -C tools/perf_ring security

# perf-ring and man pages perf-ring-record(1), perf-ring-report(1) under
# PREFIX (default /usr/local; DESTDIR is honoured)
install: deps
	$(Q)$(MAKE) -C tools/perf_ring install

# DEB=1: deps.sh adds what packaging needs (debhelper, lintian; mmdebstrap)
deb deb-check: export DEB := 1
deb: deps
	$(Q)$(S)/deb.sh

deb-check: deb
	$(Q)$(S)/deb-check.sh

series: deps
	$(Q)$(S)/series.sh $(WORKTREE)

# Object sizes along the series, x86_64 defconfig and the guest config:
# bench/results/series-sizes.md and series-begin-forward.diff.
series-sizes: deps
	$(Q)$(S)/mktree.sh pre
	$(Q)$(S)/series-sizes.sh

# The disassembly of the sample path (perf_output_begin_forward/_backward and
# the helpers they call) in the built POST and UPSTREAM guest kernels:
# bench/results/series-begin-forward.diff. No build; run after
# "make kernel KERNEL=post" and "make kernel KERNEL=upstream".
series-disasm:
	$(Q)python3 $(S)/series_disasm.py

# CROSS_ONLY=1 with ARCHES: only the per-architecture rows (and git am,
# checkpatch), from the PRE tree unbuilt; no x86 build, no POST boot.
series-check: deps
ifeq ($(CROSS_ONLY),1)
	$(Q)$(S)/mktree.sh pre
	$(Q)$(S)/series-check.sh build/kernel/pre
else
	$(Q)$(S)/build-kernel.sh pre
	$(Q)$(S)/series-check.sh build/kernel/pre
	$(Q)$(MAKE) qemu-check KERNEL=post
endif

bench: deps tools
	$(Q)$(S)/bench.sh

# the scale benchmarks on the host, in instructions (callgrind): about
# 11 min (README)
bench-scale: deps tools
	$(Q)cd $(S) && nice python3 bench_scale_sideband.py && nice python3 bench_scale_threads.py && \
		nice python3 bench_scale_zstd.py && nice python3 bench_scale_dsos.py

# the duration dimension: two recordings of SECONDS (default 3600) each,
# wall clock on the host; not part of make check.  CONCURRENT=1 runs both
# at once; MMAP=PAGES gives every recording -m PAGES.
soak-scale: deps tools
	$(Q)cd $(S) && nice python3 soak_scale.py $(or $(SECONDS),3600) $(if $(CONCURRENT),--concurrent) --tool $(or $(TOOL),both) \
		$(if $(RUN),--run $(RUN)) $(if $(OUT),--out $(OUT)) $(if $(MMAP),--mmap-pages $(MMAP))

qemu-bench: deps
	$(Q)$(S)/qemu-bench.sh

# make ab: two kernels, A and B, compared in instructions under QEMU -icount
# (Documentation/benchmarks/perf_ring_ab.rst). The variables reach ab.sh
# through the environment; ab.sh clears them before it builds anything.
$(foreach v,A B RUN N CONFIG AB_BIN PER NAME,$(eval ab: export $(v) := $$($(v))))
ab: deps tools-static
	$(Q)$(S)/ab.sh

# make ab's input checks, no kernel build (seconds)
ab-test:
	$(Q)$(S)/ab-test.sh

# Reliability: the flight-recorder soak with everything on (call chains,
# -z, every trigger kind, a control client), on the host and then in the
# QEMU guest, system wide, with CPU 1 going offline and back; and the
# perf.data fuzzer.
SOAK_SECONDS ?= 600
soak: soak-host soak-guest

soak-host: deps tools
	$(Q)$(S)/soak.sh $(SOAK_SECONDS)

# The same soak in the QEMU guest, system wide, with CPU hotplug.
soak-guest: initramfs
	$(Q)$(S)/soak-guest.sh $(KERNEL) $(SOAK_SECONDS)

fuzz: deps
	$(Q)$(MAKE) -C tools/perf_ring fuzz $(if $(FUZZ_SECONDS),FUZZ_SECONDS=$(FUZZ_SECONDS))

fuzz-smoke: deps
	$(Q)$(MAKE) -C tools/perf_ring fuzz-smoke

check: deps
	$(Q)$(S)/check.sh

run: deps tools
	$(Q)$(S)/run.sh

clean:
	rm -rf build
