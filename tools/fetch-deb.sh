#!/bin/sh
# fetch-deb.sh META DIR: downloads into DIR the versioned package Debian's
# metapackage META depends on (linux-image-amd64: linux-image-6.1.0-N-amd64)
# and prints the .deb's path.  DIR is the caller's (it removes it).  The
# only network access is `apt-get download`.
#
# Exit status: 0 done; 77 apt cannot give the package (callers skip,
# saying why: the line on stderr); 1 anything else.
set -eu

die() { echo "fetch-deb: $1" >&2; exit "${2:-1}"; }

[ $# -eq 2 ] || die "usage: fetch-deb.sh META DIR"
meta=$1 dir=$2
command -v apt-get >/dev/null || die "apt-get is not available" 77
command -v dpkg-deb >/dev/null || die "dpkg-deb is not available" 77
# apt drops privileges to _apt for downloads; the directory is ours.
chmod 755 "$dir"

# The metapackage only depends on the versioned kernel package.
pkg=$(apt-cache depends "$meta" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
[ -n "$pkg" ] || die "apt knows no $meta (run apt-get update?)" 77
(cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>"$dir/apt.err") || {
	sed 's/^/  /' "$dir/apt.err" >&2
	die "apt-get download $pkg failed" 77
}
ls "$dir"/*.deb
