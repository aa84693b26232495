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
	clang libclang-rt-14-dev llvm lld
	gcc-multilib python3-ply python3-git strace
)
# make deb, make deb-check: the packaging tools, and what builds the guest
[ "${DEB:-}" != 1 ] || pkgs+=(debhelper dpkg-dev fakeroot lintian mmdebstrap e2fsprogs
	libbpf-dev libelf-dev zlib1g-dev)

# installed PKG: the package is installed, for this machine's architecture
# when it has one (an i386 copy beside it must not hide a missing one).
native=$(dpkg --print-architecture)
installed() {
	local st
	st=$(dpkg-query -W -f='${Status}' "$1:$native" 2>/dev/null ||
	     dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)
	[ "$st" = "install ok installed" ]
}

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
have_base=$(dpkg-query -W -f='${Version}' "$PR_BASE_PKG" 2>/dev/null || true)
[ "$have_base" = "$PR_BASE_PKG_VERSION" ] ||
	missing+=("$PR_BASE_PKG=$PR_BASE_PKG_VERSION")

# ARCH=i386: the i386 guest needs busybox-static built for i386, which
# cannot be installed beside the host's: it is unpacked under
# build/deps/i386 from Debian's i386 package.
bb32=$PR_BUILD/deps/i386/bin/busybox
if [ "${ARCH:-}" = i386 ] && [ ! -x "$bb32" ]; then
	[ "$(id -u)" -eq 0 ] || pr_die "ARCH=i386 needs busybox-static:i386; run 'make deps ARCH=i386' as root"
	pr_log "fetching busybox-static:i386 into ${bb32%/bin/busybox}"
	if ! dpkg --print-foreign-architectures | grep -qx i386; then
		dpkg --add-architecture i386
		apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
	fi
	d=$(mktemp -d)
	chmod 755 "$d"	# apt's download user writes there
	(cd "$d" && apt-get download -qq busybox-static:i386 >/dev/null) ||
		pr_die "apt-get download busybox-static:i386 failed"
	mkdir -p "$PR_BUILD/deps/i386"
	dpkg-deb -x "$d"/busybox-static_*_i386.deb "$PR_BUILD/deps/i386"
	rm -rf "$d"
	[ -x "$bb32" ] || pr_die "busybox-static:i386 has no bin/busybox"
fi
# ... and the recorder built -m32 static needs the i386 libraries (libbpf
# and, for its static archive, libelf and zlib).
if [ "${ARCH:-}" = i386 ]; then
	for p in libzstd-dev:i386 liburing-dev:i386 libbpf-dev:i386 libelf-dev:i386 zlib1g-dev:i386; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] ||
			missing+=("$p")
	done
fi

# ARCHES="arm64 s390 arm" (make series-check): Debian's cross compilers
# for the per-architecture builds of the users of
# is_default_overflow_handler(). Their binutils are installed as packages.
# Their gcc is not: every gcc-12-<triplet> package conflicts with
# gcc-multilib, which the -m32 builds need, and installing one removes the
# other. So gcc-12-<triplet> and cpp-12-<triplet> are unpacked under
# build/deps/cross (gcc finds cc1 relative to itself), and
# build/deps/cross/bin/<triplet>-* are the links series-check.sh uses as
# CROSS_COMPILE: gcc from there, the rest from the binutils package.
declare -A triplet=([arm64]=aarch64-linux-gnu [s390]=s390x-linux-gnu [arm]=arm-linux-gnueabihf)
cross=()
for a in ${ARCHES:-}; do
	t=${triplet[$a]:-}
	[ -n "$t" ] || pr_die "ARCHES: $a is not one of arm64, s390, arm"
	installed "binutils-$t" || missing+=("binutils-$t")
	[ -x "$PR_BUILD/deps/cross/bin/$t-gcc" ] || cross+=("$t")
done
[ ${#missing[@]} -eq 0 ] && [ ${#cross[@]} -eq 0 ] && exit 0

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || pr_die "missing packages (${missing[*]}); run 'make deps' as root"
	pr_log "installing: ${missing[*]}"
	# A new machine has no package lists yet; refresh them once per run.
	# Another apt (a second make deps, unattended upgrades) may hold the
	# dpkg lock: wait for it, up to 10 minutes, rather than fail.
	lock=(-o DPkg::Lock::Timeout=600)
	if ! { apt-get "${lock[@]}" update -qq &&
	       apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
		cat "$log" >&2
		pr_die "apt-get install failed for: ${missing[*]}"
	fi
	pr_log "installed ${#missing[@]} package(s)"
fi

# The cross gcc, unpacked (see ARCHES above). A tree whose links are all
# in place is complete: they are made last.
for t in "${cross[@]}"; do
	pr_log "fetching gcc-12-$t and cpp-12-$t into build/deps/cross"
	d=$(mktemp -d)
	chmod 755 "$d"	# apt's download user writes there
	(cd "$d" && apt-get download -qq "gcc-12-$t" "cpp-12-$t" >"$log" 2>&1) || {
		cat "$log" >&2
		rm -rf "$d"
		pr_die "apt-get download gcc-12-$t cpp-12-$t failed"
	}
	x=$PR_BUILD/deps/cross
	mkdir -p "$x/bin"
	for deb in "$d"/*.deb; do
		dpkg-deb -x "$deb" "$x" || { rm -rf "$d"; pr_die "dpkg-deb -x $deb failed"; }
	done
	rm -rf "$d"
	[ -x "$x/usr/bin/$t-gcc-12" ] || pr_die "gcc-12-$t has no usr/bin/$t-gcc-12"
	# gcc runs as and ld from <prefix>/<triplet>/bin, relative to itself:
	# the binutils package's directory.
	ln -sfn "/usr/$t" "$x/usr/$t"
	for b in /usr/bin/"$t"-*; do
		ln -sf "$b" "$x/bin/${b##*/}"
	done
	ln -sf "../usr/bin/$t-cpp-12" "$x/bin/$t-cpp"
	echo 'int f(int x) { return x * 3; }' > "$d.c"
	if ! "$x/usr/bin/$t-gcc-12" -c "$d.c" -o "$d.o" 2>"$log" ||
	   ! "/usr/bin/$t-readelf" -h "$d.o" >>"$log" 2>&1 ||
	   grep -q 'Machine:.*X86-64' "$log"; then
		cat "$log" >&2
		rm -f "$d.c" "$d.o"
		pr_die "the unpacked $t-gcc-12 does not compile for $t"
	fi
	rm -f "$d.c" "$d.o"
	ln -sf "../usr/bin/$t-gcc-12" "$x/bin/$t-gcc"
done
