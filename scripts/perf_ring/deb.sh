#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh: the Debian package, perf-ring_VERSION_ARCH.deb, into build/deb/,
# built by dpkg-buildpackage from debian/, then checked by lintian (its
# output in build/deb/lintian.txt; an error fails).
#
# dpkg-buildpackage writes into the parent of the source tree, so the
# sources it needs (debian/, tools/perf_ring/, Documentation/admin-guide/,
# as the working tree has them) are copied into build/deb/src first.  The
# version is git describe's (tools/perf_ring: make print-version), with
# "-" turned into "+" as a native package's version must.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$PR_BUILD/deb
start=$(date +%s)
ver=$(make -s -C "$PR_ROOT/tools/perf_ring" print-version)
debver=$(echo "${ver#v}" | tr - +)

rm -rf "$out"
mkdir -p "$out/src"
(cd "$PR_ROOT" && { git ls-files -co --exclude-standard -- debian tools/perf_ring Documentation/admin-guide 2>/dev/null ||
	find debian tools/perf_ring Documentation/admin-guide -type f; } |
	while read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -xf - -C "$out/src"
sed -i "1s/^perf-ring ([^)]*)/perf-ring ($debver)/" "$out/src/debian/changelog"

pr_log "dpkg-buildpackage perf-ring $debver (PERF_RING_VERSION=$ver)"
(cd "$out/src" && PERF_RING_VERSION=$ver dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
	tail -30 "$out/build.log" >&2
	pr_die "dpkg-buildpackage failed: $out/build.log"
}
deb=$(ls "$out"/perf-ring_*.deb)
pr_log "built $deb"

lintian --info --display-info --fail-on error "$out"/perf-ring_*.changes >"$out/lintian.txt" 2>&1 &&
	rc=0 || rc=$?
cat "$out/lintian.txt"
[ "$rc" = 0 ] || pr_die "lintian reports errors (exit $rc): $out/lintian.txt"
pr_log "lintian: no error ($(grep -c '^W:' "$out/lintian.txt" || true) warnings); make deb took $(( $(date +%s) - start )) s"
