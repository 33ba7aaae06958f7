#!/usr/bin/env bash
# base-images.sh makes the two base images deploy's image test builds
# billsnap's image over, with no registry: Debian bookworm (minbase, as slim
# as debian:bookworm-slim) made by debootstrap, and a Go builder over it
# (gcc, g++, the C library's headers, git, CA certificates and the Go
# toolchain of `go` on PATH). Each is made only when podman lacks it; the
# Debian root file system is kept in $BILLSNAP_IMAGE_CACHE, else
# ~/.cache/billsnap/image-test. .ci/run runs it before the test; the test
# installs nothing and fails (CI) or skips naming this script when an image
# is missing. Needs podman and debootstrap (Debian packages), run as root.
set -euo pipefail

base=localhost/billsnap-test/bookworm
builder=localhost/billsnap-test/golang:$(go env GOVERSION | sed 's/^go//')-bookworm
mirror=http://deb.debian.org/debian
cache=${BILLSNAP_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/billsnap/image-test}
rootfs=$cache/bookworm-minbase-$(go env GOARCH)

mkdir -p "$cache"
if [ ! -d "$rootfs" ]; then
  rm -rf "$rootfs.partial"
  if ! debootstrap --variant=minbase bookworm "$rootfs.partial" "$mirror" >"$cache/debootstrap.log" 2>&1; then
    umount -l "$rootfs.partial/proc" 2>/dev/null || true
    tail -20 "$cache/debootstrap.log" >&2
    echo "base-images.sh: debootstrap of bookworm from $mirror failed (log: $cache/debootstrap.log)" >&2
    exit 1
  fi
  mv "$rootfs.partial" "$rootfs"
fi
if ! podman image exists "$base"; then
  tar -C "$rootfs" -c . | podman import - "$base" >/dev/null
fi
if ! podman image exists "$builder"; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  cat >"$dir/Containerfile" <<CONTAINERFILE
FROM $base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      gcc g++ libc6-dev git ca-certificates && rm -rf /var/lib/apt/lists/* \\
    && cp -a /goroot /usr/local/go
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONTAINERFILE
  podman build --isolation chroot --pull=never -v "$(go env GOROOT):/goroot:ro" -t "$builder" "$dir"
fi
echo "base images: $base, $builder"
