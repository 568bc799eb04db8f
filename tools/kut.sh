#!/bin/bash
# Builds kvm-unit-tests out of tree and prints the folder with its x86
# .flat files and unittests.cfg.  Nothing of the suite is ever copied into
# minivmm's tree: it comes from
#   KUT_DIR      a kvm-unit-tests tree (built here if it has no x86/*.flat)
#   KUT_TARBALL  a release tarball, unpacked and built under $BUILD/kut
#   otherwise    ../shared/third_party/kvm-unit-tests-*.tar.gz next to the
#                main checkout (where CI keeps it), or beside the local
#                checkout this one was cloned from
# Errors are one line on stderr, status 2.  The build takes seconds to two
# minutes (./configure && make -j2, no EFI).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

die() {
	echo "tools/kut.sh: $*" >&2
	exit 2
}

build_tree() {
	local dir=$1
	if ! ls "$dir"/x86/*.flat >/dev/null 2>&1; then
		(cd "$dir" && ./configure && make -j2) >"$dir.build.log" 2>&1 ||
			die "building kvm-unit-tests in $dir failed (see $dir.build.log)"
	fi
	echo "$(cd "$dir" && pwd)/x86"
}

if [ -n "${KUT_DIR:-}" ]; then
	[ -f "$KUT_DIR/x86/unittests.cfg" ] ||
		die "KUT_DIR '$KUT_DIR' is not a kvm-unit-tests tree"
	build_tree "$KUT_DIR"
	exit 0
fi

# ../shared/third_party beside the main checkout (a worktree's too), or
# beside the checkout a local clone was made from (a fresh clone in /tmp).
third_party() {
	local main origin
	main=$(cd "$(git rev-parse --git-common-dir 2>/dev/null || echo .git)/.." \
		2>/dev/null && pwd)
	origin=$(git config --get remote.origin.url 2>/dev/null || true)
	case $origin in /*) ;; *) origin= ;; esac
	for d in "$main" ${origin:+"$origin"}; do
		ls "$d"/../shared/third_party/kvm-unit-tests-*.tar.gz 2>/dev/null |
			head -n 1
	done | head -n 1
}

tarball=${KUT_TARBALL:-}
[ -n "$tarball" ] || tarball=$(third_party)
[ -n "$tarball" ] && [ -f "$tarball" ] ||
	die "no kvm-unit-tests: set KUT_DIR or KUT_TARBALL (none in ../shared/third_party)"

dest="$BUILD/kut/$(basename "$tarball" .tar.gz)"
if [ ! -f "$dest/x86/unittests.cfg" ]; then
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar xzf "$tarball" -C "$dest.tmp" --strip-components=1 ||
		die "cannot unpack $tarball"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
fi
build_tree "$dest"
