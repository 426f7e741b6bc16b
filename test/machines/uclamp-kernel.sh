#!/usr/bin/env bash
# Builds a small x86-64 kernel with utilization clamping (CONFIG_UCLAMP_TASK),
# which no Debian kernel enables, from Debian's linux-source package: the
# kernel's tinyconfig plus the fragment uclamp.config (the console, the
# virtio/9p share the machine tool boots with, cgroups, BPF, uclamp). The
# result is cached as $CACHE/uclamp/<version>/vmlinux, where the machine tool's
# "uclamp" shape finds it; a second run only prints that path.
#
#   test/machines/uclamp-kernel.sh            # build (or find) the kernel
#   JOBS=8 test/machines/uclamp-kernel.sh     # with more make jobs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src_pkg=${SRC_PKG:-linux-source-6.12}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/corepin/machines/uclamp
jobs=${JOBS:-$(nproc)}
fragment=$here/uclamp.config

mkdir -p "$cache"
version=$(apt-cache policy "$src_pkg" | awk '/Candidate:/ {print $2}')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  echo "uclamp-kernel: apt knows no $src_pkg (run apt-get update)" >&2; exit 1
fi
out=$cache/$version
# The cache key includes the fragment, so editing it rebuilds.
key=$(sha256sum "$fragment" | cut -c1-12)
if [ -s "$out/vmlinux" ] && [ "$(cat "$out/fragment.sha" 2>/dev/null)" = "$key" ]; then
  echo "$out/vmlinux"; exit 0
fi

need=()
for p in "$src_pkg" gcc make flex bison bc libelf-dev libssl-dev xz-utils; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "uclamp-kernel: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

tarball=$(dpkg -L "$src_pkg" | grep -E '\.tar\.xz$' | head -1)
work=$cache/build
start=$(date +%s)
if [ ! -f "$work/.unpacked-$version" ]; then
  rm -rf "$work"; mkdir -p "$work"
  tar -C "$work" -xJf "$tarball"
  touch "$work/.unpacked-$version"
fi
tree=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -1)
cd "$tree"
make -s tinyconfig
scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
make -s olddefconfig
# merge_config drops what Kconfig refuses; say which wanted option did not land.
missing=0
while IFS= read -r line; do
  case $line in CONFIG_*=y) grep -qx "$line" .config || { echo "uclamp-kernel: $line did not survive olddefconfig" >&2; missing=1; };; esac
done < "$fragment"
[ $missing -eq 0 ] || exit 1
nice -n 10 make -s -j"$jobs" vmlinux
end=$(date +%s)
mkdir -p "$out"
cp vmlinux "$out/vmlinux"
cp .config "$out/config"
echo "$key" > "$out/fragment.sha"
echo "$((end - start))" > "$out/build-seconds"
echo "uclamp-kernel: built $version in $((end - start)) s with $jobs jobs" >&2
echo "$out/vmlinux"
