#!/usr/bin/env bash
# The Debian package installs and works on a clean Debian 12 root, as a user would install it:
#   dpkg -i sprof_*.deb   (after its declared Depends, which apt fetches)
#   sprof --version
#   sprof record -s -- true
# The root is a minimal debootstrap of bookworm from the Debian mirror, made once and kept in
# $SPROF_DEB_TEST_CACHE (default /var/cache/sprof-tests); each run works on a fresh copy of it,
# inside its own mount namespace, so nothing of this machine's packages leaks in.
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
for file in ./usr/bin/sprof ./usr/share/man/man1/sprof.1 ./usr/lib/sprof/libsprof-heap.so \
            ./usr/include/sprof/markers.h ./usr/share/bash-completion/completions/sprof \
            ./usr/share/zsh/vendor-completions/_sprof; do
  grep -qF -- " $file" <<<"$contents" || { echo "FAIL: the package lacks $file"; exit 1; }
done

# 2. A pristine bookworm root, made once (a few minutes) and reused.
pristine=$cache/bookworm-minbase
if [ ! -f "$pristine/.complete" ]; then
  echo "making $pristine (debootstrap --variant=minbase bookworm $mirror)"
  rm -rf --one-file-system "$pristine"
  mkdir -p "$cache"
  debootstrap --variant=minbase bookworm "$pristine.tmp" "$mirror" >"$work/debootstrap.log" 2>&1 ||
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
command -v sprof >/dev/null && { echo "FAIL: sprof present before dpkg -i"; exit 1; }
dpkg -i "$deb"
sprof --version
cd /tmp
sprof record -s -- true
test -s /tmp/profile.json.gz
test -f /usr/share/bash-completion/completions/sprof
test -f /usr/share/zsh/vendor-completions/_sprof
test -f /usr/include/sprof/markers.h
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
grep -q '^inside: ok$' "$work/inside.log" || { echo "FAIL"; exit 1; }
echo "PASS: dpkg -i $(basename "$deb") in a clean Debian 12 root, then sprof --version and sprof record"
