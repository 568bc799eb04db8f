#!/bin/sh
# build-kernel.sh [--force | --print | --config]: builds minivmm's guest
# kernel from Debian's linux-source-6.1 with tools/kernel/minivmm.config
# applied on top of `make ARCH=x86_64 tinyconfig`, into a cache outside
# git ($MINIVMM_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/minivmm):
#
#   $CACHE/kernel/VERSION-HASH/   one finished build, never changed again
#       vmlinux     ELF with the PVH entry note (minivmm --kernel)
#       bzImage     LZ4-compressed, Linux boot protocol
#       config      the final .config;  System.map;  build.log
#   $CACHE/kernel/src/VERSION/    the extracted source, kept clean
#   $CACHE/kernel/obj/VERSION/    the object tree (make O=), reused
#
# VERSION is the source package's version, HASH the first 12 hex digits of
# the fragment's SHA-256: a finished build is reused until either changes.
# Every option of the fragment must land in the final .config, or the
# build stops with the list.  Progress goes to stderr, one line per stage;
# on success the build directory is the only line on stdout.
#
#   --force   rebuild from a clean object tree even if the build exists
#   --print   print the build directory if it exists (exit 0), else exit 1
#   --config  stop after making and checking the .config; print its path
#
# Missing packages are installed when run as root; otherwise the exact
# apt-get command is printed.  Exit status: 0 done, 1 failure, 2 bad usage.
set -eu

PKG=linux-source-6.1
TARBALL=/usr/src/$PKG.tar.xz
DEPS="$PKG make gcc libc6-dev bc bison flex libelf-dev libssl-dev xz-utils lz4"
KMAKE="ARCH=x86_64 KBUILD_BUILD_USER=minivmm KBUILD_BUILD_HOST=minivmm"

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/kernel/minivmm.config
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
t0=$(date +%s)

die() { echo "build-kernel: $*" >&2; exit 1; }
usage() {
	echo "usage: build-kernel.sh [--force | --print | --config]" >&2
	exit 2
}
# stage MESSAGE: one progress line with the seconds since the start.
stage() { printf 'build-kernel: [%4ds] %s\n' $(($(date +%s) - t0)) "$*" >&2; }

mode=build
force=
case $# in
0) ;;
1)	case $1 in
	--force) force=1 ;;
	--print) mode=print ;;
	--config) mode=config ;;
	-h|--help)
		sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"
		exit 0 ;;
	*) usage ;;
	esac ;;
*) usage ;;
esac
[ -f "$frag" ] || die "$frag: missing"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q "install ok installed"
}

# Installs (root) or names (otherwise) the packages the build needs.
need_packages() {
	command -v dpkg-query >/dev/null ||
		die "not a Debian system: install $PKG's source and $DEPS by hand"
	missing=
	for p in $DEPS; do
		installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "build-kernel: missing packages; install them with:" >&2
		echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
	stage "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2 ||
		die "apt-get install$missing failed"
}

# The key: without the source package there is no version to look up.
version=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) || version=
if [ -z "$version" ] || ! installed "$PKG"; then
	[ "$mode" = print ] && exit 1
	need_packages
	version=$(dpkg-query -W -f='${Version}' "$PKG")
fi
hash=$(sha256sum "$frag" | cut -c1-12)
kdir=$cache/kernel
out=$kdir/$version-$hash
src=$kdir/src/$version
obj=$kdir/obj/$version

is_built() {
	[ -s "$out/vmlinux" ] && [ -s "$out/bzImage" ] && [ -s "$out/config" ]
}

if [ "$mode" = print ]; then
	is_built || exit 1
	echo "$out"
	exit 0
fi
if [ "$mode" = build ] && [ -z "$force" ] && is_built; then
	echo "$out"
	exit 0
fi
need_packages
[ -f "$TARBALL" ] || die "$TARBALL: missing although $PKG is installed"

mkdir -p "$kdir"
# One build at a time per cache: the object tree is shared.
if command -v flock >/dev/null; then
	exec 9>"$kdir/.lock"
	flock -n 9 || {
		stage "waiting for another build-kernel.sh in $kdir"
		flock 9
	}
	if [ "$mode" = build ] && [ -z "$force" ] && is_built; then
		echo "$out"
		exit 0
	fi
fi

mkpid=
tmp=
cleanup() {
	[ -n "$mkpid" ] && kill "$mkpid" 2>/dev/null
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# --- source ------------------------------------------------------------
if [ ! -f "$src/.minivmm-extracted" ]; then
	# Other versions' trees are large and never used again.
	rm -rf "$kdir/src" "$kdir/obj"
	mkdir -p "$kdir/src"
	stage "extracting $TARBALL ($PKG $version)"
	tmp=$kdir/src/.extract.$$
	mkdir "$tmp"
	tar -xJf "$TARBALL" -C "$tmp" --strip-components=1 ||
		die "cannot extract $TARBALL"
	touch "$tmp/.minivmm-extracted"
	mv "$tmp" "$src"
	tmp=
fi
[ -n "$force" ] && rm -rf "$obj"
mkdir -p "$obj"
log=$obj/build.log
: >"$log"

# kmake TARGET...: make in the object tree, output to the log.
kmake() {
	# shellcheck disable=SC2086
	make -C "$src" O="$obj" $KMAKE "$@" >>"$log" 2>&1
}

# show_log WHAT: the failure and the log's tail.
show_log() {
	echo "build-kernel: $1 failed; last lines of $log:" >&2
	tail -n 40 "$log" | sed 's/^/  /' >&2
	exit 1
}

# --- configuration -----------------------------------------------------
# The fragment's option lines (CONFIG_X=V or "# CONFIG_X is not set").
options=$obj/fragment.options
sed -n -e 's/[[:space:]]*$//' \
	-e '/^CONFIG_[A-Za-z0-9_]*=/p' \
	-e '/^# CONFIG_[A-Za-z0-9_]* is not set$/p' "$frag" >"$options"
[ -s "$options" ] || die "$frag: no options"

# apply: the fragment's options replace the same symbols' lines.
apply() {
	sed -n -e 's/^CONFIG_\([A-Za-z0-9_]*\)=.*/\1/p' \
		-e 's/^# CONFIG_\([A-Za-z0-9_]*\) is not set$/\1/p' "$options" |
		sed 's/.*/\/^CONFIG_&=\/d;\/^# CONFIG_& is not set$\/d/' \
			>"$obj/fragment.sed"
	sed -f "$obj/fragment.sed" "$obj/.config" >"$obj/.config.new"
	cat "$options" >>"$obj/.config.new"
	mv "$obj/.config.new" "$obj/.config"
}

stage "configuring: tinyconfig + $(wc -l <"$options") options from ${frag##*/}"
kmake tinyconfig || show_log "make tinyconfig"
# A new option's children can appear only once it is set: repeat until
# a pass changes nothing.
pass=0
while :; do
	pass=$((pass + 1))
	cp "$obj/.config" "$obj/.config.prev"
	apply
	kmake olddefconfig || show_log "make olddefconfig"
	cmp -s "$obj/.config" "$obj/.config.prev" && break
	[ $pass -lt 6 ] || die "the .config still changes after $pass passes"
done

# Every option must have landed; a "not set" one may also be absent.
bad=
while IFS= read -r line; do
	case $line in
	CONFIG_*)
		grep -qxF -- "$line" "$obj/.config" && continue
		sym=${line%%=*}
		;;
	*)
		sym=${line#\# }
		sym=${sym%% *}
		grep -q "^$sym=" "$obj/.config" || continue
		;;
	esac
	got=$(grep -E "^($sym=|# $sym is not set)" "$obj/.config" || true)
	bad="$bad
  wanted: $line
     got: ${got:-(absent: dependencies not met)}"
done <"$options"
[ -z "$bad" ] || die "options of ${frag##*/} that did not land:$bad"

if [ "$mode" = config ]; then
	stage "configured: all $(wc -l <"$options") options landed"
	echo "$obj/.config"
	exit 0
fi

# --- build -------------------------------------------------------------
jobs=$(nproc 2>/dev/null || echo 1)
stage "building vmlinux and bzImage (make -j$jobs, log: $log)"
# Not through kmake: $! must be make itself, for cleanup's kill.
# shellcheck disable=SC2086
make -C "$src" O="$obj" $KMAKE -j"$jobs" vmlinux bzImage >>"$log" 2>&1 &
mkpid=$!
# A line a minute while it builds: how many files have been compiled.
last=$(date +%s)
while kill -0 "$mkpid" 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	if [ $((now - last)) -ge 60 ]; then
		last=$now
		stage "building: $(grep -c '^  CC ' "$log" || true) files compiled"
	fi
done
rc=0
wait "$mkpid" || rc=$?
mkpid=
[ "$rc" = 0 ] || show_log "make vmlinux bzImage (status $rc)"

# --- install -----------------------------------------------------------
# Into a new directory, then renamed: a half-written build never looks
# complete.
tmp=$kdir/.install.$$
rm -rf "$tmp"
mkdir "$tmp"
cp "$obj/vmlinux" "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$tmp/"
cp "$obj/.config" "$tmp/config"
cp "$log" "$tmp/build.log"
rm -rf "$out"
mv "$tmp" "$out"
tmp=
size() { echo "$(($(wc -c <"$1") / 1024)) KiB"; }
stage "done: vmlinux $(size "$out/vmlinux"), bzImage $(size "$out/bzImage")"
echo "$out"
