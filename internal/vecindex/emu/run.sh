#!/usr/bin/env bash
# Runs vecindex's assembly kernels on emulated Intel CPUs with AVX-512 (Bochs, through the
# bochscpu-python wheel from PyPI), then Dot/DotInt8/DotsInt8 whole at every kernel level,
# then the kernels again broken on purpose, which must fail. Usage: internal/vecindex/emu/run.sh (from the repository root).
set -euo pipefail
cd "$(dirname "$0")"
venv=../../../.asof/bochs-venv
if ! "$venv/bin/python" -c 'import bochscpu' 2>/dev/null && ! LD_PRELOAD="$venv/glibc238_shim.so" "$venv/bin/python" -c 'import bochscpu' 2>/dev/null; then
	if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q bochscpu-python==0.4.0; }; then
		echo "SKIP: bochscpu-python (PyPI) could not be installed; the AVX-512 kernels were not checked under emulation" >&2
		exit 0
	fi
fi
preload=
if ! "$venv/bin/python" -c 'import bochscpu' 2>/dev/null; then
	cc -shared -fPIC -O2 -o "$venv/glibc238_shim.so" glibc238_shim.c
	preload="$venv/glibc238_shim.so"
fi
bin=$(mktemp -d)/vecindex.test
go test -c -o "$bin" ..
# nanobind reports leaked objects at exit; that is the binding's, not ours.
filter() { grep -v -E 'leaked|nanobind' || true; }
echo "== the kernels on emulated CPUs (every line must say ok, or #UD where the model lacks the feature)"
LD_PRELOAD=$preload "$venv/bin/python" bochs_kernels.py "$bin" skylake_x icelake_u sapphire_rapids haswell 2> >(filter >&2) | filter
echo "== Dot, DotInt8 and DotsInt8 (the Go code and the kernels) at every level, by the register ABI"
for model in haswell skylake_x icelake_u sapphire_rapids; do
	LD_PRELOAD=$preload "$venv/bin/python" go_level.py "$bin" $model 2> >(filter >&2) | filter
done
echo "== the kernels again, the AVX-512 ones and the AVX2 block kernels broken on purpose (each must say WRONG)"
out=$(LD_PRELOAD=$preload "$venv/bin/python" bochs_kernels.py --mutate "$bin" skylake_x icelake_u 2>/dev/null | filter) || true
echo "$out"
if echo "$out" | grep -E 'AVX512|VNNI|aboveAVX2|scaleAVX2' | grep -v -q -E 'WRONG|#UD'; then
	echo "a broken kernel passed: the checks cannot fail" >&2
	exit 1
fi
