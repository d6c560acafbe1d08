#!/usr/bin/env bash
# setup.sh DEST: put ONNX Runtime and hugot's Rust tokenizer in DEST/lib, through the package
# registries only (no release downloads), so `go build -tags ORT` links and runs:
#
#   DEST/lib/libonnxruntime.so  ONNX Runtime, from the onnxruntime-node npm package (or, without
#                               npm, the onnxruntime wheel on PyPI); sha256-pinned per source.
#   DEST/lib/libtokenizers.a    github.com/daulet/tokenizers (the version go.mod requires), built
#                               with cargo from the Go module's own source. Its Cargo.toml pulls
#                               tiktoken-rs from a GitHub branch, unreachable here; we build it
#                               against tiktoken-rs 0.9.1 from crates.io instead, with the lock
#                               file next to this script (--locked: the same crates every time).
#
# It is idempotent: finished pieces are checked and kept. `make setup-ort` runs it.
set -euo pipefail

DEST=${1:?usage: setup.sh DEST}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
mkdir -p "$DEST/lib"
DEST=$(cd "$DEST" && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/asof
mkdir -p "$CACHE"

# ONNX Runtime 1.23.2: the C API github.com/yalue/onnxruntime_go v1.25.0 (hugot v0.6.1) expects.
ORT_VERSION=1.23.2
NPM_TGZ_SHA512=3814ec1b45bc75d05539e555572721a55052f3b03d615e6c6b6849ea5734db94fdecb7be278bfef8fc120b85c5b350bad925b235da1fd0c8782af9d982db786b
NPM_SO_SHA256=733854c3d7ce45256cc1c22cd4a30373247e1f7b7de8f40beab24211ef8e2a76
WHEEL_SO_SHA256=718c3fb0785d5ea06061b92c32ce4ad35be1bd4c71ae6192efe06f1ab21f0f8a
TIKTOKEN_RS=0.9.1

say() { printf 'setup-ort: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }
sha512() { sha512sum "$1" | cut -d' ' -f1; }

onnxruntime() {
  local so=$DEST/lib/libonnxruntime.so
  if [[ -f $so ]]; then
    local got; got=$(sha256 "$so")
    if [[ $got == "$NPM_SO_SHA256" || $got == "$WHEEL_SO_SHA256" ]]; then
      say "libonnxruntime.so $ORT_VERSION already in place (sha256 ${got:0:12}…)"
      return
    fi
    say "libonnxruntime.so has an unknown sha256 ${got:0:12}…; fetching again"
  fi
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  if command -v npm >/dev/null; then
    say "fetching onnxruntime-node@$ORT_VERSION with npm pack (~97 MB)"
    (cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
    local tgz=$tmp/onnxruntime-node-$ORT_VERSION.tgz
    [[ $(sha512 "$tgz") == "$NPM_TGZ_SHA512" ]] || die "onnxruntime-node-$ORT_VERSION.tgz: sha512 mismatch"
    tar -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
    [[ $(sha256 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1") == "$NPM_SO_SHA256" ]] || die "libonnxruntime.so.1 from npm: sha256 mismatch"
    install -m 0644 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$so"
  elif command -v pip >/dev/null || command -v pip3 >/dev/null; then
    say "fetching the onnxruntime==$ORT_VERSION wheel with pip download"
    "$(command -v pip || command -v pip3)" download --quiet --no-deps --only-binary=:all: \
      --python-version 3.11 --platform manylinux_2_28_x86_64 -d "$tmp" "onnxruntime==$ORT_VERSION"
    (cd "$tmp" && python3 -m zipfile -e onnxruntime-*.whl wheel)
    local lib=$tmp/wheel/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION
    [[ $(sha256 "$lib") == "$WHEEL_SO_SHA256" ]] || die "libonnxruntime.so from the wheel: sha256 mismatch"
    install -m 0644 "$lib" "$so"
  else
    die "neither npm nor pip is installed: cannot fetch ONNX Runtime"
  fi
  say "libonnxruntime.so $ORT_VERSION → $so"
}

tokenizers() {
  command -v cargo >/dev/null || die "cargo is not installed: cannot build libtokenizers.a"
  local version dir
  read -r version dir < <(cd "$ROOT" && go mod download -json github.com/daulet/tokenizers |
    python3 -c 'import json,sys; m=json.load(sys.stdin); print(m["Version"], m["Dir"])')
  local stamp="$version $(sha256 "$HERE/Cargo.lock") tiktoken-rs=$TIKTOKEN_RS"
  local lib=$DEST/lib/libtokenizers.a
  if [[ -f $lib && -f $lib.stamp && $(cat "$lib.stamp") == "$stamp" ]]; then
    say "libtokenizers.a $version already built"
    return
  fi
  local src=$CACHE/tokenizers-src-$version
  rm -rf "$src"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  sed -i "s|^tiktoken-rs = .*|tiktoken-rs = \"=$TIKTOKEN_RS\"|" "$src/Cargo.toml"
  grep -q "^tiktoken-rs = \"=$TIKTOKEN_RS\"" "$src/Cargo.toml" || die "could not patch $src/Cargo.toml"
  cp "$HERE/Cargo.lock" "$src/Cargo.lock"
  say "building libtokenizers.a $version with cargo (about 1.5 min on 2 cores the first time)"
  CARGO_TARGET_DIR=$CACHE/tokenizers-target cargo build --release --locked --quiet --manifest-path "$src/Cargo.toml"
  install -m 0644 "$CACHE/tokenizers-target/release/libtokenizers.a" "$lib"
  echo "$stamp" >"$lib.stamp"
  say "libtokenizers.a $version → $lib"
}

onnxruntime
tokenizers
