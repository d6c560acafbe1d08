#!/usr/bin/env bash
# setup-gpu.sh [--check] DEST: put ONNX Runtime 1.23.2 with its CUDA execution provider, and every
# CUDA 12 / cuDNN 9 user-space library that provider needs, in DEST/lib, from PyPI wheels only (no
# release downloads, no NVIDIA site), so a process on a Linux x86-64 machine with nothing but an
# NVIDIA driver can run ONNX Runtime on the GPU:
#
#   libonnxruntime.so (+ libonnxruntime.so.1, its SONAME), libonnxruntime_providers_shared.so,
#   libonnxruntime_providers_cuda.so
#                       the onnxruntime-gpu 1.23.2 wheel (cp312; the cp313 wheel has the same
#                       libonnxruntime and providers_shared, byte for byte, and a CUDA provider built
#                       separately: same size and dynamic section, another build ID). 1.23.2 is the C API that
#                       github.com/yalue/onnxruntime_go v1.25.0 (hugot v0.6.1) expects, as in setup.sh.
#                       The TensorRT provider is left out.
#   libcudart, libcublasLt, libcublas, libnvrtc (+ its builtins), libnvJitLink, libcurand, libcufft,
#   libcudnn + its sub-libraries (graph, engines_precompiled, engines_runtime_compiled, heuristic,
#   ops, cnn, adv)
#                       NVIDIA's *-cu12 wheels: the closure of `onnxruntime-gpu[cuda,cudnn]` (the
#                       wheel's Requires-Dist: cuda-nvrtc, cuda-runtime, cufft, curand ~=12/11/10,
#                       cudnn ~=9; cudnn requires cublas, cufft requires nvjitlink), pinned to the
#                       set PyTorch's cu128 wheels use (CUDA 12.8 update 1, cuDNN 9.10.2). The
#                       provider NEEDs cublasLt, cublas, curand, cufft, cudart and cudnn; cuDNN
#                       dlopens its sub-libraries, libnvrtc and libcublasLt; cuBLASLt dlopens
#                       libnvrtc; cuFFT dlopens libnvJitLink and libnvrtc; libnvrtc dlopens its
#                       builtins. libcuda.so.1 is the driver's and is not shipped; libz.so.1 (cuDNN)
#                       and libstdc++/glibc >= 2.27 come from the system.
#   preload.txt         those CUDA libraries, dependencies first: dlopen each by absolute path
#                       (RTLD_NOW|RTLD_GLOBAL; RTLD_LOCAL works too) before ONNX Runtime loads the
#                       CUDA provider. The provider has no RUNPATH, so without this (or
#                       LD_LIBRARY_PATH=DEST/lib set before the process starts) its dlopen fails
#                       with "libcublasLt.so.12: cannot open shared object file". The NVIDIA
#                       libraries themselves carry RUNPATH $ORIGIN, so what they dlopen later is
#                       found next to them. Python's onnxruntime.preload_dlls() does the same with
#                       cublasLt, cublas, nvrtc, curand, cufft, cudart, cudnn; this list is a
#                       superset of it.
#
# Every wheel is fetched with `pip download` into ${XDG_CACHE_HOME:-~/.cache}/asof/gpu-wheels
# (about 1.9 GiB, kept for reruns; delete it to reclaim the space) and checked against the sha256
# pinned below (the digests PyPI's index publishes); only the needed .so files are extracted
# (about 2.8 GiB in DEST/lib). It is idempotent: a stamp in DEST/lib records the pins and the file
# sizes, and a rerun that finds them in place does nothing. After an install (or with --check) it
# checks that every library resolves inside DEST/lib, preloads preload.txt with ctypes, and asks
# libonnxruntime.so for its version and providers; it says whether this machine has an NVIDIA
# driver (libcuda.so.1) and which CUDA version that driver supports. The driver must support CUDA
# 12.8 (r570 or newer, CUDA 13 drivers included) to run these libraries natively; r525.60.13+ runs
# them through CUDA's minor-version compatibility, except what JIT-compiles PTX.
set -euo pipefail

CHECK=
if [[ ${1:-} == --check ]]; then CHECK=1; shift; fi
DEST=${1:?usage: setup-gpu.sh [--check] DEST}
mkdir -p "$DEST/lib"
DEST=$(cd "$DEST" && pwd)
LIB=$DEST/lib
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/asof/gpu-wheels
STAMP=$LIB/.setup-gpu.stamp
ORT_VERSION=1.23.2

# Wheels: key, name==version, file name, sha256, size in bytes.
WHEELS="
ort      onnxruntime-gpu==1.23.2            onnxruntime_gpu-1.23.2-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl     4f2d1f720685d729b5258ec1b36dee1de381b8898189908c98cbeecdb2f2b5c2 300509596
cudart   nvidia-cuda-runtime-cu12==12.8.90  nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl adade8dcbd0edf427b7204d480d6066d33902cab2a4707dcfc48a2d0fd44ab90 954765
cublas   nvidia-cublas-cu12==12.8.4.1       nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl                         8ac4e771d5a348c551b2a426eda6193c19aa630236b418086020df5ba9667142 594346921
nvrtc    nvidia-cuda-nvrtc-cu12==12.8.93    nvidia_cuda_nvrtc_cu12-12.8.93-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl  a7756528852ef889772a84c6cd89d41dfa74667e24cca16bb31f8f061e3e9994 88040029
nvjitlink nvidia-nvjitlink-cu12==12.8.93    nvidia_nvjitlink_cu12-12.8.93-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl   81ff63371a7ebd6e6451970684f916be2eab07321b73c9d244dc2b4da7f73b88 39254836
curand   nvidia-curand-cu12==10.3.9.90      nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl                         b32331d4f4df5d6eefa0554c565b626c7216f87a06a4f56fab27c3b68a830ec9 63619976
cufft    nvidia-cufft-cu12==11.3.3.83       nvidia_cufft_cu12-11.3.3.83-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl     4d2dd21ec0b88cf61b62e6b43564355e5222e4a3fb394cac0db101f2dd0d4f74 193118695
cudnn    nvidia-cudnn-cu12==9.10.2.21       nvidia_cudnn_cu12-9.10.2.21-py3-none-manylinux_2_27_x86_64.whl                          949452be657fa16687d0930933f032835951ef0892b37d2d53824d1a84dc97a8 706758467
"

# Files: wheel key, member in the wheel, name in DEST/lib (its SONAME), preload (p: yes, -: no).
# The preloaded ones are listed in preload order: each one's NEEDED libraries come before it.
LIBS="
ort       onnxruntime/capi/libonnxruntime.so.$ORT_VERSION              libonnxruntime.so                      -
ort       onnxruntime/capi/libonnxruntime_providers_shared.so          libonnxruntime_providers_shared.so     -
ort       onnxruntime/capi/libonnxruntime_providers_cuda.so            libonnxruntime_providers_cuda.so       -
cudart    nvidia/cuda_runtime/lib/libcudart.so.12                      libcudart.so.12                        p
cublas    nvidia/cublas/lib/libcublasLt.so.12                          libcublasLt.so.12                      p
cublas    nvidia/cublas/lib/libcublas.so.12                            libcublas.so.12                        p
nvrtc     nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.8              libnvrtc-builtins.so.12.8              p
nvrtc     nvidia/cuda_nvrtc/lib/libnvrtc.so.12                         libnvrtc.so.12                         p
nvjitlink nvidia/nvjitlink/lib/libnvJitLink.so.12                      libnvJitLink.so.12                     p
curand    nvidia/curand/lib/libcurand.so.10                            libcurand.so.10                        p
cufft     nvidia/cufft/lib/libcufft.so.11                              libcufft.so.11                         p
cudnn     nvidia/cudnn/lib/libcudnn_graph.so.9                         libcudnn_graph.so.9                    p
cudnn     nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9           libcudnn_engines_precompiled.so.9      p
cudnn     nvidia/cudnn/lib/libcudnn_engines_runtime_compiled.so.9      libcudnn_engines_runtime_compiled.so.9 p
cudnn     nvidia/cudnn/lib/libcudnn_heuristic.so.9                     libcudnn_heuristic.so.9                p
cudnn     nvidia/cudnn/lib/libcudnn_ops.so.9                           libcudnn_ops.so.9                      p
cudnn     nvidia/cudnn/lib/libcudnn_cnn.so.9                           libcudnn_cnn.so.9                      p
cudnn     nvidia/cudnn/lib/libcudnn_adv.so.9                           libcudnn_adv.so.9                      p
cudnn     nvidia/cudnn/lib/libcudnn.so.9                               libcudnn.so.9                          p
"
# Symlinks: name -> target (a SONAME stored under another name).
LINKS="libonnxruntime.so.1 libonnxruntime.so"

say() { printf 'setup-ort-gpu: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }
mib() { echo "$(( ($1 + 524288) / 1048576 )) MiB"; }

# The stamp: the pins (wheels, files, links), then one "file NAME SIZE" line per installed file.
PINS=$(printf '%s\n%s\n%s\n' "$WHEELS" "$LIBS" "$LINKS" | sha256sum | cut -d' ' -f1)

up_to_date() {
  [[ -f $STAMP && -f $LIB/preload.txt ]] || return 1
  [[ $(head -n1 "$STAMP") == "pins $PINS" ]] || return 1
  local kind name size
  while read -r kind name size; do
    [[ $kind == file ]] || continue
    [[ -f $LIB/$name && $(stat -c %s "$LIB/$name") == "$size" ]] || return 1
  done <"$STAMP"
  local link target
  while read -r link target; do
    [[ -n $link ]] || continue
    [[ -L $LIB/$link && $(readlink "$LIB/$link") == "$target" ]] || return 1
  done <<<"$LINKS"
}

need_tools() {
  command -v python3 >/dev/null || die "python3 is not installed: it runs pip and unpacks the wheels"
  command -v sha256sum >/dev/null || die "sha256sum (coreutils) is not installed"
  python3 -m pip --version >/dev/null 2>&1 || die "pip is not installed for python3 (python3 -m pip): it fetches the wheels"
}

free_kib() { df -Pk "$1" | awk 'NR == 2 { print $4 }'; }

# fetch KEY: the verified wheel's path in $CACHE on stdout.
fetch() {
  local key=$1 k spec file want size
  while read -r k spec file want size; do [[ $k == "$key" ]] && break; done <<<"$WHEELS"
  [[ $k == "$key" ]] || die "no wheel pinned for $key"
  local whl=$CACHE/$file
  if [[ -f $whl ]]; then
    if [[ $(sha256 "$whl") == "$want" ]]; then
      say "$spec: cached ($(mib "$size"))"
      echo "$whl"; return
    fi
    say "$spec: the cached $file has a wrong sha256; fetching it again"
    rm -f "$whl"
  fi
  say "$spec: downloading $file ($(mib "$size"))"
  local tmp=$CACHE/.download-$key
  rm -rf "$tmp"; mkdir -p "$tmp"
  local quiet=(--quiet); [[ -t 2 ]] && quiet=()  # pip's progress bar on a terminal only
  python3 -m pip download "${quiet[@]}" --no-deps --only-binary=:all: --no-cache-dir --disable-pip-version-check \
    --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 \
    -d "$tmp" "$spec" >&2 || die "pip download $spec failed"
  [[ -f $tmp/$file ]] || die "pip download $spec did not give $file (it gave: $(ls "$tmp" | tr '\n' ' '))"
  local got; got=$(sha256 "$tmp/$file")
  [[ $got == "$want" ]] || die "$file: sha256 mismatch: got $got, pinned $want (left in $tmp for inspection)"
  mv "$tmp/$file" "$whl"
  rm -rf "$tmp"
  echo "$whl"
}

install_all() {
  need_tools
  mkdir -p "$CACHE"
  local need_cache=0 need_lib=$((2900 * 1024)) k spec file want size
  while read -r k spec file want size; do
    [[ -n $k && ! -f $CACHE/$file ]] && need_cache=$((need_cache + size / 1024))
  done <<<"$WHEELS"
  (( $(free_kib "$CACHE") > need_cache + 102400 )) ||
    die "not enough free space for the wheels in $CACHE: need about $((need_cache / 1024)) MiB"
  (( $(free_kib "$LIB") > need_lib )) ||
    die "not enough free space in $LIB: need about $((need_lib / 1024)) MiB"

  local -A whl
  for k in $(awk 'NF { print $1 }' <<<"$WHEELS"); do whl[$k]=$(fetch "$k"); done

  # Unpack into a staging folder beside the files, then rename each into place.
  local stage=$LIB/.partial
  rm -rf "$stage"; mkdir -p "$stage"
  local args=() member name p
  while read -r k member name p; do
    [[ -n $k ]] && args+=("${whl[$k]}" "$member" "$stage/$name")
  done <<<"$LIBS"
  say "extracting $(( ${#args[@]} / 3 )) libraries into $LIB"
  python3 - "${args[@]}" <<'PY' || die "extracting the libraries failed"
import shutil, sys, zipfile
a = sys.argv[1:]
for whl, member, out in zip(a[0::3], a[1::3], a[2::3]):
    with zipfile.ZipFile(whl) as z, z.open(member) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
PY
  chmod 0755 "$stage"/*

  # Drop what an earlier pin set installed and this one does not.
  if [[ -f $STAMP ]]; then
    local kind old rest
    while read -r kind old rest; do
      [[ $kind == file ]] || continue
      grep -q "[[:space:]]$old[[:space:]]" <<<"$LIBS" || { say "removing $old (no longer pinned)"; rm -f "$LIB/$old"; }
    done <"$STAMP"
  fi
  rm -f "$STAMP"
  {
    echo "pins $PINS"
    while read -r k member name p; do
      [[ -n $k ]] || continue
      echo "file $name $(stat -c %s "$stage/$name")"
      mv -f "$stage/$name" "$LIB/$name"
    done <<<"$LIBS"
  } >"$STAMP.new"
  rmdir "$stage"
  local link target
  while read -r link target; do
    [[ -n $link ]] && ln -sfn "$target" "$LIB/$link"
  done <<<"$LINKS"
  awk '$4 == "p" { print $3 }' <<<"$LIBS" >"$LIB/preload.txt"
  mv "$STAMP.new" "$STAMP"
}

check() {
  say "checking $LIB"
  local bad=0 f
  if command -v ldd >/dev/null; then
    # Every library resolves inside DEST/lib, or to a system library that is not CUDA's.
    while read -r f; do
      local out; out=$(LD_LIBRARY_PATH=$LIB ldd "$LIB/$f" 2>&1) || true
      if grep -q 'not found' <<<"$out"; then
        say "  $f: $(grep 'not found' <<<"$out" | tr -s ' \t\n' ' ')"; bad=1
      fi
      if grep -E '^\s*lib(cu|nv|onnx)' <<<"$out" | grep '=> /' | grep -v -q "=> $LIB/"; then
        say "  $f: a CUDA library resolves outside $LIB:"; grep -E '^\s*lib(cu|nv|onnx)' <<<"$out" | grep -v "=> $LIB/" >&2; bad=1
      fi
    done < <(awk 'NF { print $3 }' <<<"$LIBS")
    ((bad)) && die "unresolved libraries (above)"
    say "  ldd: every NEEDED library of the $(awk 'NF' <<<"$LIBS" | wc -l) files resolves (CUDA ones in $LIB); system ones used: $(
      for f in $(awk 'NF { print $3 }' <<<"$LIBS"); do LD_LIBRARY_PATH=$LIB ldd "$LIB/$f"; done |
        awk '$3 ~ /^\// && $3 !~ "^'"$LIB"'/" { print $1 }' | sort -u | tr '\n' ' ')"
  else
    say "  ldd is not installed: skipping the NEEDED check"
  fi
  python3 - "$LIB" "$ORT_VERSION" <<'PY' || die "the load check failed (above)"
import ctypes, os, sys, time
lib, want = sys.argv[1], sys.argv[2]
def say(m): print("setup-ort-gpu:   " + m, file=sys.stderr)
names = open(os.path.join(lib, "preload.txt")).read().split()
t = time.time()
for n in names:
    try:
        ctypes.CDLL(os.path.join(lib, n), mode=ctypes.RTLD_GLOBAL | os.RTLD_NOW)
    except OSError as e:
        say(f"preloading {n} failed: {e}")
        sys.exit(1)
say(f"preload.txt: {len(names)} libraries dlopened (RTLD_NOW|RTLD_GLOBAL) in order in {time.time() - t:.2f} s")
ort = ctypes.CDLL(os.path.join(lib, "libonnxruntime.so"), mode=os.RTLD_NOW)
class ApiBase(ctypes.Structure):
    _fields_ = [("GetApi", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32)),
                ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p))]
ort.OrtGetApiBase.restype = ctypes.POINTER(ApiBase)
base = ort.OrtGetApiBase().contents
version = base.GetVersionString().decode()
if version != want:
    say(f"libonnxruntime.so reports version {version}, not {want}"); sys.exit(1)
api = base.GetApi(23)  # ORT_API_VERSION of 1.23
if not api:
    say("GetApi(23) returned NULL"); sys.exit(1)
# OrtApi is a table of function pointers, append-only: GetAvailableProviders is entry 125 and
# ReleaseAvailableProviders 126 (offsetof in onnxruntime_c_api.h / 8).
table = ctypes.cast(api, ctypes.POINTER(ctypes.c_void_p))
get = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)), ctypes.POINTER(ctypes.c_int))(table[125])
rel = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int)(table[126])
out, n = ctypes.POINTER(ctypes.c_char_p)(), ctypes.c_int()
if get(ctypes.byref(out), ctypes.byref(n)):
    say("GetAvailableProviders failed"); sys.exit(1)
providers = [out[i].decode() for i in range(n.value)]
rel(out, n)
say(f"libonnxruntime.so: OrtGetApiBase reports {version}; providers: {', '.join(providers)}")
if "CUDAExecutionProvider" not in providers:
    say("CUDAExecutionProvider is missing"); sys.exit(1)
try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError:
    say("no libcuda.so.1 here (no NVIDIA driver): the files are complete, but a CUDA session on this "
        "machine fails with 'CUDA driver version is insufficient for CUDA runtime version'")
    sys.exit(0)
v = ctypes.c_int()
rc_init, rc = cuda.cuInit(0), cuda.cuDriverGetVersion(ctypes.byref(v))
drv = f"{v.value // 1000}.{v.value % 1000 // 10}" if rc == 0 else "unknown"
count = ctypes.c_int()
devs = count.value if rc_init == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 else 0
say(f"NVIDIA driver found: it supports CUDA {drv}; cuInit: {rc_init}; {devs} device(s)")
if rc == 0 and v.value < 12000:
    say("this driver is older than CUDA 12.0: the CUDA provider will not run here")
elif rc == 0 and v.value < 12080:
    say("this driver is older than CUDA 12.8: only CUDA's minor-version compatibility runs these libraries")
PY
}

if up_to_date; then
  say "ONNX Runtime $ORT_VERSION with CUDA already in $LIB ($(du -sh "$LIB" | cut -f1))"
  [[ -n $CHECK ]] && check
  exit 0
fi
t0=$SECONDS
install_all
check
say "ONNX Runtime $ORT_VERSION with CUDA → $LIB: $(du -sh "$LIB" | cut -f1) in $(( $(wc -l <"$STAMP") - 1 )) files, $(wc -l <"$LIB/preload.txt") to preload (preload.txt), in $((SECONDS - t0)) s"
