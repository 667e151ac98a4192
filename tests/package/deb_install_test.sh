#!/usr/bin/env bash
# The Debian package installs and works on a clean Debian 12 root, as a user would install it:
#   dpkg -i sprof_*.deb   (after its declared Depends, which apt fetches)
#   sprof --version
#   sprof record -s -- true
# and takes the place of glibc's own sprof (libc-devtools, man page in manpages) by diverting it
# to sprof.glibc, which `dpkg -r sprof` gives back.
# The root is a minimal debootstrap of bookworm from the Debian mirror with libc-devtools,
# manpages, man-db and the package's Depends, made once and kept in $SPROF_DEB_TEST_CACHE
# (default /var/cache/sprof-tests) under a name keyed by that package list; each run works on a
# fresh copy of it, inside its own mount namespace, so nothing of this machine's packages leaks
# in. First run ~95 s (debootstrap), later runs ~10 s (measured on a loaded 2-CPU machine).
#
# Usage: deb_install_test.sh BUILD_DIR
# Exit 77 (skipped, with the reason) without root, debootstrap or the mirror.
set -euo pipefail

build_dir=$1
cache=${SPROF_DEB_TEST_CACHE:-/var/cache/sprof-tests}
mirror=${SPROF_DEB_TEST_MIRROR:-http://deb.debian.org/debian}
skip() { echo "SKIPPED: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts)"
command -v debootstrap >/dev/null || skip "needs debootstrap (apt-get install debootstrap)"
command -v unshare >/dev/null || skip "needs unshare (util-linux)"

work=$(mktemp -d /var/tmp/sprof-deb-test.XXXXXX)
trap 'rm -rf --one-file-system "$work"' EXIT

# 1. The package, made from this build.
(cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" >cpack.log 2>&1) ||
  { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(ls "$work"/sprof_*.deb)
echo "package: $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libdw1 libelf1 libdebuginfod1 libcapstone4 libsimdjson14 zlib1g libstdc++6 libc6; do
  [[ ", $depends" == *", $lib "* || ", $depends" == *", $lib,"* || ", $depends" == *", $lib" ]] ||
    { echo "FAIL: Depends lacks $lib"; exit 1; }
done
contents=$(dpkg-deb -c "$deb")
for file in ./usr/bin/sprof ./usr/share/man/man1/sprof.1.gz ./usr/lib/sprof/libsprof-heap.so \
            ./usr/include/sprof/markers.h ./usr/share/bash-completion/completions/sprof \
            ./usr/share/zsh/vendor-completions/_sprof; do
  grep -qF -- " $file" <<<"$contents" || { echo "FAIL: the package lacks $file"; exit 1; }
done

# Listed whole before grep looks: with pipefail, `grep -q` leaving early would fail the pipe
# (tar killed by SIGPIPE) whenever it matched before tar finished, which a busy machine makes
# likely.
control_files=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)
grep -qx './preinst' <<<"$control_files" ||
  { echo "FAIL: the package has no preinst (glibc's sprof would collide)"; exit 1; }

# 2. A pristine bookworm root, made once (about 100 s) and reused; its name changes with what it
# must hold, so a changed list makes a new one.
include=libc-devtools,manpages,man-db,libdw1,libelf1,libdebuginfod1,libcapstone4,libsimdjson14
pristine=$cache/bookworm-minbase-$(printf '%s' "$include" | sha256sum | cut -c1-12)
if [ ! -f "$pristine/.complete" ]; then
  echo "making $pristine (debootstrap --variant=minbase --include=$include bookworm $mirror)"
  rm -rf --one-file-system "$pristine" "$pristine.tmp"
  mkdir -p "$cache"
  debootstrap --variant=minbase --include="$include" bookworm "$pristine.tmp" "$mirror" \
    >"$work/debootstrap.log" 2>&1 ||
    { tail -5 "$work/debootstrap.log"; rm -rf --one-file-system "$pristine.tmp";
      skip "debootstrap from $mirror failed (no network?)"; }
  cp /etc/resolv.conf "$pristine.tmp/etc/resolv.conf"
  chroot "$pristine.tmp" apt-get update -qq >"$work/update.log" 2>&1 ||
    { tail -5 "$work/update.log"; rm -rf --one-file-system "$pristine.tmp";
      skip "apt-get update from $mirror failed"; }
  touch "$pristine.tmp/.complete"
  mv "$pristine.tmp" "$pristine"
fi

# 3. A fresh copy; the .deb and the test inside it. Downloaded packages are kept between runs.
root=$work/root
cp -a "$pristine" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
mkdir -p "$cache/apt-archives/partial"
cat >"$root/tmp/inside.sh" <<'INSIDE'
set -eu
export DEBIAN_FRONTEND=noninteractive
deb=$(ls /tmp/sprof_*.deb)
# What the package declares it needs, without versions: apt fetches exactly that.
needs=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep .)
apt-get install -y -qq --no-install-recommends $needs >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
# glibc's sprof is there first, as on any machine with libc-devtools.
[ "$(dpkg -S /usr/bin/sprof)" = "libc-devtools: /usr/bin/sprof" ] || { echo "FAIL: no glibc sprof"; exit 1; }
glibc_man=$(man -w sprof)
echo "before: man -w sprof = $glibc_man"
dpkg -i "$deb"
sprof --version
# Ours on PATH and in man; glibc's renamed beside it.
[ "$(command -v sprof)" = /usr/bin/sprof ] || { echo "FAIL: sprof is $(command -v sprof)"; exit 1; }
man_page=$(man -w sprof)
echo "man -w sprof = $man_page"
zcat "$man_page" | grep -q 'Firefox Profiler' || { echo "FAIL: man sprof is not sprof's"; exit 1; }
test -x /usr/bin/sprof.glibc || { echo "FAIL: no /usr/bin/sprof.glibc"; exit 1; }
/usr/bin/sprof.glibc --version | grep -qi 'glibc' || { echo "FAIL: sprof.glibc is not glibc's"; exit 1; }
test -f /usr/share/man/man1/sprof.glibc.1.gz || { echo "FAIL: no sprof.glibc.1.gz"; exit 1; }
dpkg-divert --list | grep -q 'sprof.glibc by sprof' || { echo "FAIL: no diversion"; exit 1; }
echo "diverted: ok"
cd /tmp
sprof record -s -- true 2>&1  # its summary is on stderr
test -s /tmp/profile.json.gz
test -f /usr/share/bash-completion/completions/sprof
test -f /usr/share/zsh/vendor-completions/_sprof
test -f /usr/include/sprof/markers.h
# Removing sprof gives glibc's tool and page back under their names.
dpkg -r sprof >/tmp/remove.log 2>&1 || { cat /tmp/remove.log; exit 1; }
/usr/bin/sprof --version | grep -qi 'glibc' || { echo "FAIL: glibc's sprof not back"; exit 1; }
[ "$(man -w sprof)" = "$glibc_man" ] || { echo "FAIL: man -w sprof is $(man -w sprof)"; exit 1; }
test ! -e /usr/bin/sprof.glibc || { echo "FAIL: sprof.glibc left behind"; exit 1; }
dpkg-divert --list | grep -q sprof && { echo "FAIL: diversion left behind"; exit 1; }
echo "restored: ok"
echo "inside: ok"
INSIDE
unshare --mount --fork bash -euc '
  root=$1 archives=$2
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --bind "$archives" "$root/var/cache/apt/archives"
  chroot "$root" /bin/bash /tmp/inside.sh
' _ "$root" "$cache/apt-archives" | tee "$work/inside.log"
grep -q '^sprof [0-9]' "$work/inside.log" || { echo "FAIL: sprof --version"; exit 1; }
grep -q '^sprof: .* -> profile.json.gz' "$work/inside.log" || { echo "FAIL: no summary"; exit 1; }
grep -q '^diverted: ok$' "$work/inside.log" || { echo "FAIL: diversion"; exit 1; }
grep -q '^restored: ok$' "$work/inside.log" || { echo "FAIL: removal"; exit 1; }
grep -q '^inside: ok$' "$work/inside.log" || { echo "FAIL"; exit 1; }
echo "PASS: dpkg -i $(basename "$deb") in a clean Debian 12 root with glibc's sprof (diverted to sprof.glibc, restored by dpkg -r), then sprof --version, man sprof and sprof record"
