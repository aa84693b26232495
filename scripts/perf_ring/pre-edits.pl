#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# pre-edits.pl TREE
#
# Turns a pristine Linux 6.12.y tree into the "pre-series" (PRE) kernel:
# upstream's backward ring buffer support (merged in 4.7) is taken out so
# that the perf_ring series has something to add.
#
#   - attr.write_backward becomes a reserved bit at the same position, and
#     perf_copy_attr() rejects it (EINVAL), like the other reserved bits;
#   - PERF_EVENT_IOC_PAUSE_OUTPUT goes away (the ioctl falls to -ENOTTY);
#   - the paused state, the default overflow handler selection, the
#     SET_OUTPUT direction check and the forward/backward output entry
#     points go away; the output path is forward only;
#   - a NULL overflow_handler means "write a sample" again, and
#     is_default_overflow_handler() tests for NULL (arm, arm64 and s390
#     use it).
#
# Every edit has a name and must match exactly once, otherwise the script
# dies naming the edit and the file. Nothing is written until every edit
# applied and the result passed its checks, so a failed run leaves the tree
# as it was, and a second run on an edited tree fails on the first edit.
#
# The script carries no upstream code: blocks are found by a short anchor
# regex and removed by matching braces.

use strict;
use warnings;

my $tree = shift @ARGV;
die "usage: $0 TREE\n" unless defined $tree && !@ARGV;
die "pre-edits: $tree is not a kernel tree\n"
	unless -f "$tree/Makefile" && -d "$tree/kernel/events";

my %text;	# file => contents, edited in memory
my %orig;	# file => contents as read
my @order;	# files in the order first touched

sub src {
	my ($file) = @_;
	unless (exists $text{$file}) {
		open(my $fh, '<', "$tree/$file") or die "pre-edits: $file: $!\n";
		local $/;
		$text{$file} = <$fh>;
		$orig{$file} = $text{$file};
		close($fh);
		push @order, $file;
	}
	return \$text{$file};
}

# Find the only match of $re in $file; return [start, end] offsets.
sub match_once {
	my ($name, $file, $re) = @_;
	my $t = src($file);
	my @m;

	while ($$t =~ /$re/mg) {
		push @m, [ $-[0], $+[0] ];
	}
	die sprintf("pre-edits: edit '%s' in %s: expected exactly one match, found %d\n",
		    $name, $file, scalar @m) unless @m == 1;
	return @{ $m[0] };
}

sub applied {
	my ($name, $file) = @_;
	print "pre-edits: applied $name ($file)\n";
}

# Offset of the start of the line holding offset $pos.
sub line_start {
	my ($t, $pos) = @_;
	my $i = rindex($$t, "\n", $pos - 1);
	return $i + 1;
}

# Offset just past the newline ending the line holding offset $pos.
sub line_end {
	my ($t, $pos) = @_;
	my $i = index($$t, "\n", $pos);
	return $i < 0 ? length($$t) : $i + 1;
}

# From $pos, find the first '{' and return the offset just past its
# matching '}'. With $chain, "} else ... {" keeps the block going.
# Comments, strings and character literals are skipped.
sub brace_end {
	my ($name, $file, $t, $pos, $chain) = @_;
	my $depth = 0;
	my $seen = 0;
	my $len = length($$t);

	for (my $i = $pos; $i < $len; $i++) {
		my $c = substr($$t, $i, 1);

		if ($c eq '/' && substr($$t, $i, 2) eq '/*') {
			my $e = index($$t, '*/', $i + 2);
			die "pre-edits: edit '$name' in $file: open comment\n" if $e < 0;
			$i = $e + 1;
		} elsif ($c eq '/' && substr($$t, $i, 2) eq '//') {
			$i = index($$t, "\n", $i);
		} elsif ($c eq '"' || $c eq "'") {
			my $j = $i + 1;
			$j += (substr($$t, $j, 1) eq '\\') ? 2 : 1
				while $j < $len && substr($$t, $j, 1) ne $c;
			$i = $j;
		} elsif ($c eq '{') {
			$depth++;
			$seen = 1;
		} elsif ($c eq '}') {
			die "pre-edits: edit '$name' in $file: unbalanced '}'\n"
				unless $depth;
			next if --$depth;
			next if $chain && substr($$t, $i + 1) =~ /\A\s*else\b/;
			return $i + 1;
		}
		die "pre-edits: edit '$name' in $file: no block after anchor\n"
			if $c eq ';' && !$seen;
	}
	die "pre-edits: edit '$name' in $file: no closing '}'\n";
}

# Replace the text matched by $re (once) with $repl.
sub replace {
	my ($name, $file, $re, $repl) = @_;
	my ($s, $e) = match_once($name, $file, $re);
	my $t = src($file);

	# A code $repl gets the first capture group and returns the new text.
	if (ref $repl eq 'CODE') {
		substr($$t, $s, $e - $s) =~ $re or die;
		$repl = $repl->($1);
	}
	substr($$t, $s, $e - $s) = $repl;
	applied($name, $file);
}

# Remove a whole-line construct found by $re (once):
#   stmt    => 1: it ends at the first ';' (declarations, one-line ifs);
#   default:      it ends at the '}' matching its first '{';
#   chain   => 1: follow "} else {" chains;
#   inline  => 1: start at the match, end at the '}' (same line kept);
#   comment => 1: also remove a comment block right above it;
#   body    => 1: keep the anchor, replace from '{' to '}' with $o{repl};
#   repl    => replacement text for the removed lines.
# Removing lines never leaves two blank lines, or a blank line right
# after '{' or right before '}'.
sub remove {
	my ($name, $file, $re, %o) = @_;
	my ($ms, $me) = match_once($name, $file, $re);
	my $t = src($file);
	my ($s, $e);

	if ($o{body}) {
		$s = index($$t, '{', $me);
		$e = brace_end($name, $file, $t, $s, 0);
		substr($$t, $s, $e - $s) = $o{repl};
		applied($name, $file);
		return;
	}

	if ($o{stmt}) {
		my $semi = index($$t, ';', $ms);
		die "pre-edits: edit '$name' in $file: no ';'\n" if $semi < 0;
		$e = $semi + 1;
	} else {
		$e = brace_end($name, $file, $t, $ms, $o{chain});
	}

	if ($o{inline}) {
		$s = $ms;
	} else {
		$s = line_start($t, $ms);
		$e = line_end($t, $e - 1);
		if ($o{comment}) {
			my $before = substr($$t, 0, $s);
			die "pre-edits: edit '$name' in $file: no comment above\n"
				unless $before =~ m{(^[ \t]*/\*(?:(?!\*/).)*\*/[ \t]*\n)\z}ms;
			$s -= length($1);
		}
	}

	substr($$t, $s, $e - $s) = $o{repl} // '';

	# Tidy the blank lines at the seam.
	unless ($o{inline} || defined $o{repl}) {
		my $prev = substr($$t, 0, $s);
		my $next = substr($$t, $s);
		if ($next =~ /\A\n/ &&
		    ($prev =~ /(?:\n\n|\{\n)\z/ || $next =~ /\A\n[ \t]*\}/)) {
			substr($$t, $s, 1) = '';
		} elsif ($prev =~ /\n\n\z/ && $next =~ /\A[ \t]*\}/) {
			substr($$t, $s - 1, 1) = '';
		}
	}
	applied($name, $file);
}

my $uapi = 'include/uapi/linux/perf_event.h';
my $hdr  = 'include/linux/perf_event.h';
my $core = 'kernel/events/core.c';
my $rb   = 'kernel/events/ring_buffer.c';
my $int  = 'kernel/events/internal.h';

# --- UAPI: the attribute bit goes back to reserved, the ioctl goes away.
replace('uapi-attr-reserved-bit', $uapi,
	qr/^(\t+)write_backward :  1,.*$/m,
	sub { "$_[0]__reserved_wb  :  1, /* reserved: backward writing */" });
replace('uapi-ioctl-pause-output', $uapi,
	qr/^#define PERF_EVENT_IOC_PAUSE_OUTPUT\s.*\n/m, '');

# --- core.c
replace('copy-attr-reject-reserved-bit', $core,
	qr/(\tif \(attr->__reserved_1 \|\| attr->__reserved_2 \|\| attr->__reserved_3)\)$/m,
	sub { "$_[0] ||\n\t    attr->__reserved_wb)" });
remove('ioctl-pause-output', $core,
	qr/^\tcase PERF_EVENT_IOC_PAUSE_OUTPUT: \{$/m);
remove('output-forward-handler', $core,
	qr/^void\nperf_event_output_forward\(/m);
remove('output-backward-handler', $core,
	qr/^void\nperf_event_output_backward\(/m);
remove('alloc-default-handler', $core,
	qr/ else if \(is_write_backward\(event\)\)\s*\{$/m,
	chain => 1, inline => 1);
# Before the default handler, NULL meant "write a sample".
replace('overflow-call-null-handler', $core,
	qr/^\tREAD_ONCE\(event->overflow_handler\)\(event, data, regs\);\n/m,
	"\tif (event->overflow_handler)\n" .
	"\t\tevent->overflow_handler(event, data, regs);\n" .
	"\telse\n" .
	"\t\tperf_event_output(event, data, regs);\n");
remove('set-output-direction-check', $core,
	qr/^\tif \(is_write_backward\(output_event\) != is_write_backward\(event\)\)$/m,
	stmt => 1, comment => 1);

# --- internal.h
replace('rb-paused-field', $int,
	qr/^\tint\s+paused;.*\n/m, '');
remove('rb-toggle-paused', $int,
	qr/^static inline void rb_toggle_paused\(/m);

# --- ring_buffer.c
remove('rb-has-space-helper', $rb,
	qr/^static __always_inline bool\nring_buffer_has_space\(/m);
replace('begin-direction-param', $rb,
	qr/^(__perf_output_begin\([^)]*unsigned int size),\s*bool backward\)/m,
	sub { "$_[0])" });
# The paused flag took the place of this test: a buffer without data pages
# has nowhere to write.
remove('begin-paused-test', $rb,
	qr/^\tif \(unlikely\(rb->paused\)\) \{$/m,
	repl => "\tif (unlikely(!rb->nr_pages))\n\t\tgoto out;\n");
replace('begin-space-check', $rb,
	qr/if \(unlikely\(!ring_buffer_has_space\(head, tail,\s*perf_data_size\(rb\),\s*size, backward\)\)\)/m,
	"if (unlikely(CIRC_SPACE(head, tail,\n" .
	"\t\t\t\t\t\tperf_data_size(rb)) < size))");
replace('begin-advance-head', $rb,
	qr/if \(!backward\)\n\t+head \+= size;\n\t+else\n\t+head -= size;/m,
	'head += size;');
remove('begin-backward-head', $rb,
	qr/^\tif \(backward\) \{$/m);
remove('begin-forward-entry', $rb,
	qr/^int perf_output_begin_forward\(/m);
remove('begin-backward-entry', $rb,
	qr/^int perf_output_begin_backward\(/m);
replace('begin-call-forward-only', $rb,
	qr/return __perf_output_begin\(handle, data, event, size,\s*unlikely\(is_write_backward\(event\)\)\);/m,
	'return __perf_output_begin(handle, data, event, size);');
remove('rb-init-paused', $rb,
	qr/^\tif \(!rb->nr_pages\)\n\t\trb->paused = 1;$/m,
	stmt => 1, comment => 1);

# --- include/linux/perf_event.h
remove('decl-output-forward', $hdr,
	qr/^extern void perf_event_output_forward\(/m, stmt => 1);
remove('decl-output-backward', $hdr,
	qr/^extern void perf_event_output_backward\(/m, stmt => 1);
remove('default-handler-is-null', $hdr,
	qr/^is_default_overflow_handler\(struct perf_event \*event\)\n/m,
	body => 1,
	repl => "{\n\treturn !event->overflow_handler;\n}");
remove('is-write-backward', $hdr,
	qr/^static inline bool is_write_backward\(/m);
remove('decl-begin-forward', $hdr,
	qr/^extern int perf_output_begin_forward\(/m, stmt => 1);
remove('decl-begin-backward', $hdr,
	qr/^extern int perf_output_begin_backward\(/m, stmt => 1);

# --- Checks on the result, before anything is written.
my @fail;

for my $f ($core, $rb, $int, $hdr) {
	my $t = src($f);
	for my $re (qr/write_backward/, qr/\bpaused\b/, qr/PAUSE_OUTPUT/,
		    qr/_backward\(/, qr/_forward\(/, qr/ring_buffer_has_space/,
		    qr/\bbool backward\b/, qr/\bbackward\)/) {
		while ($$t =~ /$re/g) {
			my $ln = 1 + (() = substr($$t, 0, $-[0]) =~ /\n/g);
			push @fail, "$f:$ln: still matches $re";
		}
	}
}
{
	my $t = src($uapi);
	push @fail, "$uapi: still has write_backward"
		if $$t =~ /\bwrite_backward\b/;
	push @fail, "$uapi: still has PERF_EVENT_IOC_PAUSE_OUTPUT"
		if $$t =~ /PAUSE_OUTPUT/;

	# struct perf_event_attr: the flag bitfield must still be 64 bits,
	# and the reserved bit must sit where write_backward was (bit 27).
	if ($$t =~ /^\t__u64\t+disabled\s*:\s*1,.*?;/ms) {
		my $bits = 0;
		my $pos;
		my $flags = $&;
		while ($flags =~ /(\w+)\s*:\s*(\d+)\s*[,;]/g) {
			$pos = $bits if $1 eq '__reserved_wb';
			$bits += $2;
		}
		push @fail, "$uapi: attr flag bits add up to $bits, not 64"
			unless $bits == 64;
		push @fail, "$uapi: reserved bit at " . ($pos // 'none') .
			", not 27" unless defined $pos && $pos == 27;
	} else {
		push @fail, "$uapi: cannot find the perf_event_attr flags";
	}
}
for my $f (@order) {
	my $t = src($f);
	my $o = () = $$t =~ /\{/g;
	my $c = () = $$t =~ /\}/g;
	push @fail, "$f: $o '{' but $c '}'" unless $o == $c;
	my $was = () = $orig{$f} =~ /\n\n\n/g;
	my $now = () = $$t =~ /\n\n\n/g;
	push @fail, "$f: new double blank line" if $now > $was;
}
{
	my $t = src($core);
	push @fail, "$core: perf_copy_attr() does not reject __reserved_wb"
		unless $$t =~ /attr->__reserved_wb\)/;
	my $t2 = src($hdr);
	push @fail, "$hdr: is_default_overflow_handler() does not test NULL"
		unless $$t2 =~ /is_default_overflow_handler\(struct perf_event \*event\)\n\{\n\treturn !event->overflow_handler;/;
}

if (@fail) {
	print STDERR "pre-edits: check failed: $_\n" for @fail;
	die "pre-edits: nothing written\n";
}

for my $f (@order) {
	open(my $fh, '>', "$tree/$f") or die "pre-edits: $f: $!\n";
	print $fh $text{$f};
	close($fh) or die "pre-edits: $f: $!\n";
}
printf "pre-edits: %d files edited, checks passed\n", scalar @order;
