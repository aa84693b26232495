#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check-guest.sh: the steps of make deb-check inside the booted Debian
# 12 guest, run by deb-check.service (a oneshot after multi-user.target),
# printing TAP on the serial console.  The first boot installs the package
# and checks the service, then powers off; the host boots the same disk
# again (a cold reboot: a warm one stalled in TCG here), and the second
# boot checks that the service came back, prints the plan and powers off.
set -u
exec >/dev/ttyS0 2>&1

st=/var/lib/deb-check
# the package beside this script's prefix (deb-check.sh puts it there), and
# the outputs of this boot in a directory of its own
share=$(dirname "$(dirname "$(readlink -f "$0")")")/share/deb-check
T=$(mktemp -d)
mkdir -p "$st"
N=$(cat "$st/n" 2>/dev/null || echo 0)
FAIL=$(cat "$st/fail" 2>/dev/null || echo 0)
save() { echo "$N" >"$st/n"; echo "$FAIL" >"$st/fail"; }
ok()  { N=$((N + 1)); echo "ok $N - $1"; save; }
nok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift
	for l in "$@"; do printf '#   %s\n' "$l"; done; save; }
step() { echo "# --- $* ---"; }
CTL=/run/perf-ring/ctl,/run/perf-ring/ack
SNAPDIR=/var/lib/perf-ring

# wait_fifo SECONDS: the service made its control fifo and answers a ping
wait_ready() {
	for _ in $(seq "$1"); do
		[ -p /run/perf-ring/ctl ] && perf-ring ctl -t 5 $CTL ping >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

if [ ! -e "$st/boot1" ]; then
	echo "# deb-check: first boot, $(uname -r), $(nproc) CPUs, $(systemctl --version | head -1)"
	touch "$st/boot1"

	step "1. apt install ./perf-ring_*.deb"
	deb=$(ls "$share"/perf-ring_*.deb)
	if apt-get install -y "$deb" >$T/apt.log 2>&1 && dpkg -s perf-ring >/dev/null; then
		ok "apt install $(basename "$deb")"
	else
		nok "apt install $(basename "$deb")" "$(tail -5 $T/apt.log)"
	fi
	getent group perf-ring >/dev/null && ok "postinst created the perf-ring group: $(getent group perf-ring)" ||
		nok "postinst created the perf-ring group"
	en=$(systemctl is-enabled perf-ring-flight 2>&1)
	[ "$en" = disabled ] && ok "perf-ring-flight.service is installed disabled" ||
		nok "perf-ring-flight.service is installed disabled" "is-enabled: $en"
	v=$(perf ring --version 2>&1)
	[[ $v == "perf-ring version"* ]] && ok "perf ring --version (perf $(perf --version | awk '{print $3}'), exec path $(perf --exec-path)): $v" ||
		nok "perf ring runs perf-ring" "$v"
	man -w perf-ring-ctl >/dev/null 2>&1 && ok "man perf-ring-ctl is installed" || nok "man perf-ring-ctl"

	step "2. systemctl enable --now perf-ring-flight"
	systemctl enable --now perf-ring-flight 2>&1 | sed 's/^/# /'
	if wait_ready 120; then
		ok "the service is active and answers on $CTL"
	else
		nok "the service is active and answers" "$(systemctl status --no-pager perf-ring-flight 2>&1 | tail -15)"
	fi
	echo "# $(stat -c '%A %U:%G %n' /run/perf-ring /run/perf-ring/ctl /run/perf-ring/ack $SNAPDIR | tr '\n' ';')"
	m=$(stat -c '%a %U %G' /run/perf-ring /run/perf-ring/ctl /run/perf-ring/ack | tr '\n' ' ')
	[ "$m" = "750 root perf-ring 660 root perf-ring 660 root perf-ring " ] &&
		ok "/run/perf-ring is 0750 and its fifos 0660, root:perf-ring" ||
		nok "/run/perf-ring and its fifos: root and the perf-ring group only" "$m"

	step "3. a workload, and a snapshot by a user in the perf-ring group"
	useradd -m -G perf-ring ringop || echo "# useradd ringop failed"
	useradd -m outsider || echo "# useradd outsider failed"
	( end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do find /usr/share -name '*.gz' >/dev/null; done ) &
	wl=$!
	sleep 3
	snap=$(runuser -u ringop -- perf-ring ctl -t 120 $CTL snapshot 2>&1)
	rc=$?
	wait $wl
	echo "# ringop: perf-ring ctl $CTL snapshot -> $snap"
	if [ $rc = 0 ] && [ -f "$snap" ] && [[ $snap == $SNAPDIR/flight.data.* ]]; then
		ok "ringop (in perf-ring) took a snapshot: $snap, $(stat -c %s "$snap") bytes"
	else
		nok "ringop took a snapshot" "exit $rc: $snap"
	fi
	s=$(runuser -u ringop -- perf-ring ctl $CTL status 2>&1)
	echo "# ringop: perf-ring ctl $CTL status -> $s"
	[[ " $s" == *" snapshots=1 "*"last_trigger=control "* ]] && ok "status: 1 snapshot, last trigger control" ||
		nok "status answers" "$s"

	step "4. the snapshot decodes with the guest's perf; perf ring report"
	perf script -i "$snap" >$T/script.out 2>$T/script.err
	rc=$?
	n=$(wc -l <$T/script.out)
	nf=$(grep -c ' find ' $T/script.out)
	if [ $rc = 0 ] && [ "$n" -gt 0 ] && [ "$nf" -gt 0 ] && ! grep -qiE 'error|invalid|unexpected' $T/script.err; then
		ok "perf script: $n samples, $nf of the workload's find"
	else
		nok "perf script decodes the snapshot" "exit $rc, $n samples, $nf find: $(head -3 $T/script.err)"
	fi
	head -3 $T/script.out | sed 's/^/#   /'
	nk=$(grep -c '(\[kernel.kallsyms\])' $T/script.out)
	nku=$(grep -c '\[unknown\] (\[kernel.kallsyms\])' $T/script.out)
	[ "$nk" -gt 0 ] && [ "$nku" -lt $((nk / 10 + 1)) ] &&
		ok "kernel samples resolve under the service's capabilities: $nk in the kernel, $nku unresolved" ||
		nok "kernel samples resolve" "$nk in the kernel, $nku [unknown]"
	perf report -i "$snap" --stdio --sort comm,dso 2>$T/report.err | grep -v '^#' | grep -v '^$' | head -5 | sed 's/^/#   /'
	perf report -i "$snap" --stdio >/dev/null 2>$T/report.err && ok "perf report --stdio reads it" ||
		nok "perf report reads it" "$(head -3 $T/report.err)"
	if perf ring report -i "$snap" >$T/pr.out 2>&1 && grep -q 'SAMPLE events' $T/pr.out; then
		ok "perf ring report -i: $(grep -m1 'SAMPLE events' $T/pr.out | tr -s ' ')"
	else
		nok "perf ring report" "$(head -3 $T/pr.out)"
	fi

	step "5. a user outside the group is refused"
	before=$(ls $SNAPDIR/flight.data.* 2>/dev/null | wc -l)
	out=$(runuser -u outsider -- perf-ring ctl -t 5 $CTL snapshot 2>&1)
	rc=$?
	echo "# outsider: perf-ring ctl $CTL snapshot -> exit $rc: $out"
	sleep 1
	nfiles=$(ls $SNAPDIR/flight.data.* 2>/dev/null | wc -l)
	[ $rc != 0 ] && [[ $out == *"Permission denied"* ]] && [ "$nfiles" = "$before" ] &&
		ok "outsider (not in perf-ring) is refused, no snapshot taken" ||
		nok "outsider is refused" "exit $rc: $out; $nfiles files"
	out=$(runuser -u outsider -- ls $SNAPDIR 2>&1)
	[[ $out == *"Permission denied"* ]] && ok "outsider cannot list $SNAPDIR" || nok "outsider cannot list $SNAPDIR" "$out"

	r=$(systemctl reload perf-ring-flight 2>&1)
	[ $? != 0 ] && ok "systemctl reload is refused (no in-place reload; restart applies flight.conf): $r" ||
		nok "systemctl reload is refused as documented" "$r"

	step "6. systemctl stop leaves no partial file"
	before=$(ls $SNAPDIR/flight.data.* 2>/dev/null | wc -l)
	systemctl stop perf-ring-flight
	echo "# $(journalctl -u perf-ring-flight --no-pager -o cat | grep -m2 'perf-ring record' | tr '\n' ' ')"
	ls -la $SNAPDIR | sed 's/^/#   /'
	partial=$(find $SNAPDIR -name '*.partial' | wc -l)
	nfiles=$(ls $SNAPDIR/flight.data.* | wc -l)
	last=$(ls $SNAPDIR/flight.data.* | tail -1)
	if [ "$partial" = 0 ] && [ "$nfiles" = $((before + 1)) ] && perf script -i "$last" >/dev/null 2>&1; then
		ok "stop: a last snapshot, complete ($(basename "$last") decodes), no .partial"
	else
		nok "stop leaves no partial file" "$partial partial, $nfiles files, $before before"
	fi
	st_rc=$(systemctl show -p Result --value perf-ring-flight)
	[ "$st_rc" = success ] && ok "the stop is a success for systemd" || nok "stop result" "$st_rc"

	step "systemd-analyze security perf-ring-flight.service"
	systemd-analyze security --no-pager perf-ring-flight.service 2>&1 | sed 's/^/#   /'

	step "7. power off; the host boots the same disk again"
	sync
	systemctl poweroff
	exit 0
fi

echo "# deb-check: second boot, $(uname -r)"
step "7. the reboot brought the service back"
if wait_ready 180 && [ "$(systemctl is-active perf-ring-flight)" = active ]; then
	s=$(runuser -u ringop -- perf-ring ctl $CTL status 2>&1)
	ok "after the reboot perf-ring-flight is active and answers ringop: $s"
else
	nok "after the reboot the service is back" "$(systemctl status --no-pager perf-ring-flight 2>&1 | tail -10)"
fi
echo "1..$N"
[ "$FAIL" = 0 ] && echo "# deb-check: PASS" || echo "# deb-check: FAIL ($FAIL of $N)"
sync
systemctl poweroff
