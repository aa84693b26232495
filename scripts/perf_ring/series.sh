#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series.sh [WORKTREE]: regenerate kernel/NNNN-*.patch, the cover letter
# (kernel/0000-cover-letter.patch) and kernel/series from the commits of a
# kernel git tree after its "pre-series baseline" commit. WORKTREE defaults
# to build/kernel/post.
#
# The last patches add the selftests to tools/testing/selftests/perf_events/
# from their one source, tools/testing/selftests/perf_ring/, one commit per
# line of kernel/selftests/series: "MSG FILE...", MSG being the changelog
# (kernel/selftests/MSG) and FILE the sources it adds (a .c file other than
# rb_lib.c is a test program), or MAINTAINERS (the perf events entry takes
# in the directory). The first commit also brings the lines of the source
# Makefile between the "ring tests" markers as a hunk of
# perf_events/Makefile, and the config merged into that of perf_events/;
# each commit's RB_PROGS and .gitignore list the programs added so far.
# The settings' timeout must not exceed the directory's. Those commits are
# made here, in a scratch object directory (the tree is not changed); a
# tree that has them already at HEAD (made by git am of kernel/series) has
# them made again from the source.
#
# kernel/series lists the patches in the order "git am" applies them; the
# cover letter is not in it.
#
# The output depends only on the commits (their author, author date,
# message and content): --zero-commit and --no-signature keep hashes and
# the git version out, the cover letter takes its date from the last
# patch, and its subject and text are carried over from the existing cover
# letter (only the shortlog and diffstat below them are regenerated).
# Running it on a tree made by "git am" of the same patches reproduces them
# byte for byte.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
log() { printf '[perf_ring] series: %s\n' "$*" >&2; }
die() { printf '[perf_ring] series: error: %s\n' "$*" >&2; exit 1; }

wt=${1:-$root/build/kernel/post}
out=$root/kernel
[ -d "$wt" ] || die "$wt: no such tree (build POST first, or name a tree)"
git -C "$wt" rev-parse --git-dir >/dev/null 2>&1 || die "$wt: not a git tree"
[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
	die "$wt: uncommitted changes; commit them first"

base=$(git -C "$wt" log --format='%H%x09%s' | awk -F'\t' '$2 == "pre-series baseline" { print $1; exit }')
[ -n "$base" ] || die "$wt: no \"pre-series baseline\" commit"
stlist=$out/selftests/series
[ -f "$stlist" ] || die "kernel/selftests/series is missing"
mapfile -t stlines < <(grep -v -e '^#' -e '^[[:space:]]*$' "$stlist")
[ "${#stlines[@]}" -gt 0 ] || die "kernel/selftests/series lists no commit"
# The selftests commits' subjects: a tree made by git am has them on top.
subjects=$(for l in "${stlines[@]}"; do
	m=${l%% *}
	[ -f "$out/selftests/$m" ] || die "kernel/selftests/$m is missing"
	head -n 1 "$out/selftests/$m"
done)
top=$(git -C "$wt" rev-parse HEAD)
while grep -qxF -- "$(git -C "$wt" log -1 --format=%s "$top")" <<< "$subjects"; do
	top=$(git -C "$wt" rev-parse "$top~1")
done
n=$(git -C "$wt" rev-list --count "$base..$top")
[ "$n" -gt 0 ] || die "$wt: no commits after \"pre-series baseline\""
[ -z "$(git -C "$wt" rev-list --merges "$base..$top")" ] || die "$wt: merges in the series"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=$root/tools/testing/selftests/perf_ring
kd=tools/testing/selftests/perf_events
objs=$(git -C "$wt" rev-parse --path-format=absolute --git-path objects)
export GIT_OBJECT_DIRECTORY=$tmp/objects GIT_ALTERNATE_OBJECT_DIRECTORIES=$objs
mkdir -p "$tmp/objects" "$tmp/st"
for f in Makefile config settings .gitignore; do
	git -C "$wt" show "$top:$kd/$f" > "$tmp/st/$f.orig" 2>/dev/null ||
		die "$wt: $kd/$f is not in the tree"
done
# markers N: the lines inside the Nth "ring tests" block of our Makefile
markers() {
	awk -v want="$1" '/^# ring tests: begin$/ { n++; on = (n == want); next }
		/^# ring tests: end$/ { on = 0; next } on' "$src/Makefile"
}
[ -n "$(markers 1)" ] && [ -n "$(markers 2)" ] ||
	die "${src#"$root"/}/Makefile: two \"# ring tests: begin/end\" blocks expected"
grep -q '^RB_PROGS := ' "$src/Makefile" || die "${src#"$root"/}/Makefile has no \"RB_PROGS := \" line"
grep -qx 'include ../lib.mk' "$tmp/st/Makefile.orig" || die "$kd/Makefile has no \"include ../lib.mk\""
# The flags above the markers must be the directory's own.
for l in $(awk '/^# ring tests: begin$/ { exit } /^(CFLAGS|LDFLAGS) /' "$src/Makefile" | tr ' ' '\001'); do
	grep -qxF -- "$(tr '\001' ' ' <<< "$l")" "$tmp/st/Makefile.orig" ||
		die "${src#"$root"/}/Makefile: \"$(tr '\001' ' ' <<< "$l")\" is not in $kd/Makefile"
done
t_src=$(sed -n 's/^timeout=//p' "$src/settings")
t_k=$(sed -n 's/^timeout=//p' "$tmp/st/settings.orig")
[ -n "$t_src" ] && [ -n "$t_k" ] || die "no timeout= in a settings file"
[ "$t_src" -le "$t_k" ] || die "${src#"$root"/}/settings: timeout=$t_src is above the directory's $t_k"

export GIT_INDEX_FILE=$tmp/index
add() {	# add FILE PATH_IN_TREE
	local b
	b=$(git -C "$wt" hash-object -w --no-filters "$1") &&
	git -C "$wt" update-index --add --cacheinfo "100644,$b,$2" || die "cannot add $2"
}
adate=$(git -C "$wt" log -1 --format=%ad --date=raw "$top")
export GIT_AUTHOR_NAME="perf_ring project" GIT_AUTHOR_EMAIL=perf_ring@lists.invalid \
	GIT_AUTHOR_DATE="$adate" GIT_COMMITTER_NAME="perf_ring project" \
	GIT_COMMITTER_EMAIL=perf_ring@lists.invalid GIT_COMMITTER_DATE="$adate"
parent=$top
progs=()
first=1
seen=" "
for l in "${stlines[@]}"; do
	read -r m files <<< "$l"
	[ -n "$files" ] || die "kernel/selftests/series: \"$m\" names no file"
	git -C "$wt" read-tree "$parent"
	for f in $files; do
		if [ "$f" = MAINTAINERS ]; then
			# The perf events entry takes in the directory (no
			# entry names it yet).
			git -C "$wt" show "$parent:MAINTAINERS" > "$tmp/MAINTAINERS" || die "$wt: no MAINTAINERS"
			grep -qxF "F:	$kd/" "$tmp/MAINTAINERS" && die "MAINTAINERS names $kd/ already"
			awk -v add="F:	$kd/" '
				/^PERFORMANCE EVENTS SUBSYSTEM$/ { sec = 1 }
				sec && /^$/ { sec = 0 }
				{ print }
				sec && $0 == "F:	tools/perf/" { print add; done = 1 }
				END { exit !done }' "$tmp/MAINTAINERS" > "$tmp/MAINTAINERS.new" ||
				die "MAINTAINERS: no \"F:	tools/perf/\" line in PERFORMANCE EVENTS SUBSYSTEM"
			add "$tmp/MAINTAINERS.new" MAINTAINERS
			continue
		fi
		[ -f "$src/$f" ] || die "kernel/selftests/series: ${src#"$root"/}/$f does not exist"
		case "$seen" in *" $f "*) die "kernel/selftests/series: $f is named twice" ;; esac
		seen="$seen$f "
		! git -C "$wt" cat-file -e "$top:$kd/$f" 2>/dev/null ||
			die "$kd/$f is in the tree already: rename ${src#"$root"/}/$f"
		add "$src/$f" "$kd/$f"
		case "$f" in rb_lib.c) ;; *.c) progs+=("${f%.c}") ;; esac
	done
	if [ "${#progs[@]}" -gt 0 ]; then
		# The Makefile hunk, with the programs so far.
		markers 1 | sed "s/^RB_PROGS := .*/RB_PROGS := ${progs[*]}/" > "$tmp/m1"
		markers 2 > "$tmp/m2"
		awk -v m1="$tmp/m1" -v m2="$tmp/m2" '
			$0 == "include ../lib.mk" {
				while ((getline l < m1) > 0) print l
				print; print ""
				while ((getline l < m2) > 0) print l
				next
			} { print }' "$tmp/st/Makefile.orig" > "$tmp/st/Makefile"
		cp "$tmp/st/.gitignore.orig" "$tmp/st/.gitignore"
		for p in "${progs[@]}"; do
			grep -qxF -- "$p" "$tmp/st/.gitignore" || printf '%s\n' "$p" >> "$tmp/st/.gitignore"
		done
		add "$tmp/st/Makefile" "$kd/Makefile"
		add "$tmp/st/.gitignore" "$kd/.gitignore"
	fi
	if [ -n "$first" ]; then
		cp "$tmp/st/config.orig" "$tmp/st/config"
		grep -v '^#' "$src/config" | while IFS= read -r c; do
			grep -qxF -- "$c" "$tmp/st/config" || printf '%s\n' "$c" >> "$tmp/st/config"
		done
		add "$tmp/st/config" "$kd/config"
		first=
	fi
	tree=$(git -C "$wt" write-tree)
	parent=$(git -C "$wt" commit-tree "$tree" -p "$parent" < "$out/selftests/$m") ||
		die "cannot make the commit of kernel/selftests/$m"
	n=$((n + 1))
done
unset GIT_INDEX_FILE
for f in "$src"/*.c "$src"/*.h; do
	case "$seen" in *" $(basename "$f") "*) ;; *) die "${f#"$root"/} is in no commit of kernel/selftests/series" ;; esac
done
st_commit=$parent
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE

# The cover letter's From line is the committer's identity: make it the
# project's, as in the patches, whoever runs this.
git -C "$wt" -c "user.name=perf_ring project" -c user.email=perf_ring@lists.invalid \
	-c core.abbrev=12 -c diff.noprefix=false -c diff.renames=true \
	-c format.signOff=false -c format.numbered=auto \
	format-patch -q --cover-letter --no-signature --zero-commit \
	--no-thread --no-base --encode-email-headers \
	-o "$tmp" "$base..$st_commit"

cover=$tmp/0000-cover-letter.patch
[ -f "$cover" ] || die "format-patch made no cover letter"

# The cover letter's date: that of the last patch, not "now".
last=$(ls "$tmp"/[0-9][0-9][0-9][0-9]-*.patch | grep -v /0000- | tail -n 1)
date_line=$(grep -m1 '^Date: ' "$last")
sed -i "s/^Date: .*/$date_line/" "$cover"

# Carry over the subject and text of the existing cover letter.
old=$out/0000-cover-letter.patch
if [ -f "$old" ]; then
	perl -e '
		my ($old, $new) = @ARGV;
		local $/;
		open(my $o, "<", $old) or die "$old: $!";
		my $o_txt = <$o>;
		open(my $n, "<", $new) or die "$new: $!";
		my $n_txt = <$n>;
		# Subject: "[PATCH 0/N] text", possibly folded.
		my ($subj) = $o_txt =~ /^Subject: \[PATCH [^\]]*\] (.*?)\n(?![ \t])/ms;
		$subj =~ s/\n[ \t]+/ /g if defined $subj;
		# Text: from the end of the headers to the shortlog line.
		my ($blurb) = $o_txt =~ /\n\n(.*?\n)\n(?=\S[^\n]* \(\d+\):\n)/s;
		die "cannot find the subject or text of the old cover letter\n"
			unless defined $subj && defined $blurb;
		$n_txt =~ s/^(Subject: \[PATCH [^\]]*\] )\*\*\* SUBJECT HERE \*\*\*$/$1$subj/m
			or die "no subject placeholder\n";
		$n_txt =~ s/\*\*\* BLURB HERE \*\*\*\n/$blurb/
			or die "no blurb placeholder\n";
		open($n, ">", $new) or die "$new: $!";
		print $n $n_txt;
	' "$old" "$cover" || die "could not carry over the cover letter text from ${old#"$root"/}"
else
	log "no kernel/0000-cover-letter.patch yet: the new one has git's placeholders"
fi

rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp"/*.patch "$out"/
(cd "$tmp" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter.patch$') > "$out/series"
log "wrote $n patches, the cover letter and kernel/series from ${wt#"$root"/}"
