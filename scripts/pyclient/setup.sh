#!/usr/bin/env bash
# setup.sh DEST: a Python venv at DEST with the Temporal Python SDK (temporalio from PyPI, pinned
# in examples/python/requirements.txt), for the Python example client (examples/python/ask.py)
# and its test (cmd/asof TestExampleClientsWithModel). Any Python 3.9+ on PATH (python3) will
# do. It is idempotent: a stamp records which requirements file was installed, and a second run
# only checks it. `make setup-pyclient` runs it.
set -euo pipefail

DEST=${1:?usage: setup.sh DEST}
REQ=$(cd "$(dirname "$0")/../../examples/python" && pwd)/requirements.txt
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

say() { printf 'setup-pyclient: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

stamp="requirements.txt sha256 $(sha256sum "$REQ" | cut -d' ' -f1)"
if [[ -x $DEST/bin/python && -f $DEST/.asof-stamp && $(cat "$DEST/.asof-stamp") == "$stamp" ]]; then
  say "temporalio already installed in $DEST"
  exit 0
fi
py=$(command -v python3) || die "no python3 on PATH"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "$py is older than Python 3.9"
rm -f "$DEST/.asof-stamp"
if [[ ! -x $DEST/bin/python ]]; then
  say "creating a venv in $DEST (from $py)"
  "$py" -m venv "$DEST" || die "$py -m venv failed (on Debian: apt-get install python3-venv)"
fi
say "installing $REQ with pip"
"$DEST/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: -r "$REQ" ||
  die "pip install -r $REQ failed (PyPI unreachable, or no wheel for this platform)"
"$DEST/bin/python" -c 'import temporalio.client' || die "temporalio is installed but does not import"
echo "$stamp" >"$DEST/.asof-stamp"
say "temporalio → $DEST (run: $DEST/bin/python examples/python/ask.py --help)"
