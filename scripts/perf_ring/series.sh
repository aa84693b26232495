#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series.sh [WORKTREE]: regenerate kernel/NNNN-*.patch, the cover letter
# (kernel/0000-cover-letter.patch) and kernel/series from the commits of a
# kernel git tree after its "pre-series baseline" commit. WORKTREE defaults
# to build/kernel/post.
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
n=$(git -C "$wt" rev-list --count "$base..HEAD")
[ "$n" -gt 0 ] || die "$wt: no commits after \"pre-series baseline\""
[ -z "$(git -C "$wt" rev-list --merges "$base..HEAD")" ] || die "$wt: merges in the series"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The cover letter's From line is the committer's identity: make it the
# project's, as in the patches, whoever runs this.
git -C "$wt" -c "user.name=perf_ring project" -c user.email=perf_ring@lists.invalid \
	-c core.abbrev=12 -c diff.noprefix=false -c diff.renames=true \
	-c format.signOff=false -c format.numbered=auto \
	format-patch -q --cover-letter --no-signature --zero-commit \
	--no-thread --no-base --encode-email-headers \
	-o "$tmp" "$base..HEAD"

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
