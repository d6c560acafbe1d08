"""Run vecindex's assembly kernels on an emulated AVX-512 CPU (Bochs, through bochscpu-python).

The machine that builds asof may have no AVX-512, and QEMU's TCG does not implement it. This
script takes the kernels' machine code out of a Go binary that links them (`go test -c`),
places it at its own address in an emulated x86-64 CPU of a chosen Bochs model, calls each
kernel by Go's ABI0 (arguments on the stack, a return address that stops the run) on many
inputs, and compares each result with a reference computed here: integer-exact for int8, and
within a rounding bound of the float64 sum for float32.

Usage: python bochs_kernels.py [--mutate] TEST_BINARY [MODEL ...]

--mutate breaks the AVX-512 kernels and the AVX2 block kernels on purpose before running them
(the int8 ones negate every query byte instead of those under the row's sign mask; the float
one skips part of its 16-float tail; aboveAVX2 counts a tie as above; scaleAVX2 misreads its
scales): every one of them must then FAIL, which shows that the checks can fail.

MODEL is a Bochs CPU model: skylake_x (AVX-512 F/BW/VL/DQ, no VNNI), icelake_u, tigerlake,
sapphire_rapids (VNNI), haswell (AVX2 only). Exit status 0 when every check passed.
"""

import ctypes
import glob
import math
import os
import random
import struct
import subprocess
import sys

import bochscpu
import bochscpu.cpu
import bochscpu.memory

# bochscpu's enum for cpu.model, as built in bochscpu-python 0.4.0 (checked with CPUID leaf 7:
# see MODEL_FEATURES).
MODELS = {"haswell": 24, "skylake_x": 26, "cannonlake": 27, "icelake_u": 28, "tigerlake": 29, "sapphire_rapids": 30}
# The kernels each model must run; it must refuse (#UD) the others. A model that runs a
# kernel it lacks the features for would show that the emulator does not check them.
AVX2_KERNELS = {"dotAVX2", "dotsAVX2", "dotInt8AVX2", "dotsInt8AVX2", "readAVX2", "aboveAVX2", "scaleAVX2"}
BW_KERNELS = AVX2_KERNELS | {"dotAVX512", "dotsAVX512", "dotInt8AVX512", "dotsInt8AVX512", "readAVX512"}
VNNI_KERNELS = BW_KERNELS | {"dotInt8VNNI", "dotsInt8VNNI"}
EXPECT = {"haswell": AVX2_KERNELS, "skylake_x": BW_KERNELS, "cannonlake": BW_KERNELS,
          "icelake_u": VNNI_KERNELS, "tigerlake": VNNI_KERNELS, "sapphire_rapids": VNNI_KERNELS}
PKG = "github.com/asofrag/asof/internal/vecindex."

PAGE = 4096
CODE_BASE = None  # the code runs at its own virtual address
DATA = 0x10000000  # data pages
DATA_PAGES = 64
STACK = 0x7F000000
RET = 0x20000000  # a page of HLT: returning there ends the call (#GP at CPL 3)


def set_model(idx):
    """Select Bochs's CPU model before the first Session (bochscpu has no API for it)."""
    so = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(bochscpu.__file__), "_bochscpu*.so"))[0])
    get = so._ZN13bx_real_sim_c14get_param_enumEPKcP10bx_param_c
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    p = get(None, b"cpu.model", None)
    assert p, "no cpu.model parameter"
    rng = so._ZN14bx_param_num_c9set_rangeEmm
    rng.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64]
    rng(p, 0, 64)
    st = so._ZN14bx_param_num_c3setEl
    st.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    st(p, idx)


def symbols(binary):
    out = subprocess.run(["go", "tool", "nm", "-size", binary], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3].startswith(PKG):
            syms[f[3][len(PKG):].removesuffix(".abi0")] = (int(f[0], 16), int(f[1]))
    return syms


def read_vaddr(binary, addr, size):
    """The bytes at virtual address addr in an ELF64 file (from its program headers)."""
    with open(binary, "rb") as f:
        elf = f.read()
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ptype, _, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize)
        if ptype == 1 and vaddr <= addr and addr + size <= vaddr + filesz:
            return elf[off + addr - vaddr: off + addr - vaddr + size]
    raise ValueError(f"{addr:#x} not in a loaded segment")


class Machine:
    """One emulated CPU with code, data, stack and return pages mapped."""

    def __init__(self, code):  # code: {vaddr: bytes}
        self.sess = bochscpu.Session()
        self.sess.missing_page_handler = self._missing
        pt = self.pt = bochscpu.memory.PageMapLevel4Table()  # owns the page-table pages: keep it
        gpa = [0x1000000]
        self.hvas = []

        def page(va, writable):
            hva = bochscpu.memory.allocate_host_page()
            self.hvas.append(hva)
            bochscpu.memory.page_insert(gpa[0], hva)
            pt.insert(va, gpa[0], 1 if writable else 0)
            gpa[0] += PAGE

        code_pages = sorted({(va + i) & ~(PAGE - 1) for va, b in code.items() for i in range(0, len(b) + 1)})
        for va in code_pages:
            page(va, False)
        for i in range(DATA_PAGES):
            page(DATA + i * PAGE, True)
        page(STACK, True)
        page(RET, False)
        self.pml4 = 0x100000
        for hva, g in pt.commit(self.pml4):
            bochscpu.memory.page_insert(g, hva)
        for va, b in code.items():
            self.write(va, b)
        self.write(RET, b"\xf4" * 16)
        self.exc = None
        self.hook = bochscpu.Hook()
        self.hook.exception = self._exception

    def _missing(self, gpa):
        raise RuntimeError(f"missing page {gpa:#x}")

    def _exception(self, sess, cpu, vector, err):
        self.exc = (vector, err, sess.cpu.rip)
        sess.stop()

    def write(self, va, data):
        assert bochscpu.memory.virt_write(self.pml4, va, list(data))

    def read(self, va, n):
        return bytes(bochscpu.memory.virt_read(self.pml4, va, n))

    def call(self, fn, args, nret):
        """Calls fn (ABI0) with 8-byte args; returns the nret bytes after them, or raises."""
        sp = STACK + PAGE - 256
        self.write(sp, struct.pack("<Q", RET) + b"".join(struct.pack("<q", a) for a in args) + b"\0" * 8)
        st = bochscpu.State()
        bochscpu.cpu.set_long_mode(st)
        st.cr4 = st.cr4 | (1 << 9) | (1 << 10) | (1 << 18)  # OSFXSR, OSXMMEXCPT, OSXSAVE
        st.xcr0 = 0xE7  # x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
        st.mxcsr = 0x1F80
        st.cr3 = self.pml4
        st.rsp = sp
        st.rip = fn
        cs = bochscpu.Segment()
        cs.present, cs.selector, cs.base, cs.limit, cs.attr = True, 0x33, 0, 0xFFFFFFFF, 0x22FB
        ds = bochscpu.Segment()
        ds.present, ds.selector, ds.base, ds.limit, ds.attr = True, 0x2B, 0, 0xFFFFFFFF, 0xCF3
        st.cs = cs
        st.ds = st.ss = st.es = st.fs = st.gs = ds
        self.sess.cpu.state = st
        self.exc = None
        self.sess.run([self.hook])
        if self.exc is None or self.exc[0] != 13 or self.exc[2] not in (RET, RET + 1):
            raise KernelFault(self.exc)
        if self.sess.cpu.rsp != sp + 8:
            raise KernelFault(f"stack pointer {self.sess.cpu.rsp:#x} after return, want {sp + 8:#x}")
        return self.read(sp + 8 + 8 * len(args), nret)


class KernelFault(Exception):
    pass


def dot_bound(a, b):
    exact = math.fsum(x * y for x, y in zip(a, b))
    s = sum(abs(x * y) for x, y in zip(a, b))
    n = len(a)
    return exact, 2 * n * 2.0 ** -24 * s + n * 2.0 ** -149


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float_cases(rnd):
    for n in list(range(16, 257, 16)) + [384, 512, 768, 1024]:
        for off in (0, 1, 3, 7, 15):
            yield f"random n={n} off={off}", n, off, [f32(rnd.uniform(-1, 1)) for _ in range(n)], [f32(rnd.uniform(-1, 1)) for _ in range(n)]
    n = 384
    big = [f32(10.0 ** (i % 31 - 15) * (1 - 2 * (i % 2))) for i in range(n)]
    tiny = [f32(10.0 ** (-(i % 20) - 5)) for i in range(n)]
    yield "extreme big x tiny", n, 0, big, tiny
    yield "extreme big x big", n, 5, big, big
    yield "zeros", 64, 0, [0.0] * 64, [f32(rnd.uniform(-1, 1)) for _ in range(64)]
    yield "ones 1024", 1024, 2, [1.0] * 1024, [1.0] * 1024
    # One nonzero product per position: a kernel that skips or repeats a lane misses it.
    for p in (0, 15, 16, 63, 64, 200, 383):
        a = [0.0] * n
        a[p] = 3.0
        yield f"single lane {p}", n, 1, a, [f32(i + 1.0) for i in range(n)]


def int8_vals(rnd, n, kind):
    if kind == "random":
        return [rnd.randint(-127, 127) for _ in range(n)]
    if kind == "+127":
        return [127] * n
    if kind == "-127":
        return [-127] * n
    if kind == "alt":
        return [127 if i % 2 else -127 for i in range(n)]
    if kind == "sparse":  # zeros (sign 0) among ±127
        return [0 if i % 3 else (127 if i % 2 else -127) for i in range(n)]
    raise ValueError(kind)


KINDS = ("random", "+127", "-127", "alt", "sparse")


# The mutations --mutate applies: (kernels, bytes, replacement).
MUTATIONS = [
    # VPSUBB Z3, Z14, K1, Z3 -> without K1: negates every query byte.
    (("dotInt8AVX512", "dotsInt8AVX512", "dotInt8VNNI", "dotsInt8VNNI"), bytes.fromhex("62f10d49f8db"), bytes.fromhex("62f10d48f8db")),
    # SHRQ $4, DX -> SHRQ $5, DX: half the 16-float tail steps.
    (("dotAVX512", "dotsAVX512"), bytes.fromhex("48c1ea04"), bytes.fromhex("48c1ea05")),
    # SHRQ $8, CX -> SHRQ $9, CX: half the 256-byte steps.
    (("readAVX512",), bytes.fromhex("48c1e908"), bytes.fromhex("48c1e909")),
    # VCMPPS $0x11 (LT_OQ: thr < score) -> $0x12 (LE_OQ): a tie counts as above.
    (("aboveAVX2",), bytes.fromhex("c584c20611"), bytes.fromhex("c584c20612")),
    # ADDQ $32, DI -> ADDQ $28, DI: every step after the first reads the scales one float early.
    (("scaleAVX2",), bytes.fromhex("4883c720"), bytes.fromhex("4883c71c")),
]
MUTATED = {k for kernels, _, _ in MUTATIONS for k in kernels}


def run(binary, model, log, mutate=False):
    syms = symbols(binary)
    names = ["dotAVX2", "dotsAVX2", "readAVX2", "readAVX512", "dotAVX512", "dotsAVX512", "dotInt8AVX2", "dotsInt8AVX2", "dotInt8AVX512", "dotsInt8AVX512", "dotInt8VNNI", "dotsInt8VNNI", "aboveAVX2", "scaleAVX2"]
    code = {}
    for name in names:
        addr, size = syms[name]
        code[addr] = read_vaddr(binary, addr, size)
        if mutate:
            for kernels, old, new in MUTATIONS:
                if name in kernels:
                    assert code[addr].count(old) == 1, f"{name}: mutation site not found"
                    code[addr] = code[addr].replace(old, new)
    set_model(MODELS[model])
    m = Machine(code)
    rnd = random.Random(16)
    fails, checks = 0, 0
    a_va, b_va, out_va = DATA, DATA + 16 * PAGE, DATA + 32 * PAGE

    def put_f32(va, xs):
        m.write(va, struct.pack(f"<{len(xs)}f", *xs))

    def put_i8(va, xs):
        m.write(va, struct.pack(f"<{len(xs)}b", *xs))

    results = {}
    for name in names:
        ok, n_checks, fault = 0, 0, None
        try:
            if name in ("dotAVX2", "dotAVX512"):
                step = 32 if name == "dotAVX2" else 16
                for label, n, off, a, b in float_cases(rnd):
                    if n % step:
                        continue
                    put_f32(a_va + 4 * off, a)
                    put_f32(b_va + 4 * off, b)
                    got, = struct.unpack("<f", m.call(syms[name][0], [a_va + 4 * off, b_va + 4 * off, n], 4))
                    exact, bound = dot_bound(a, b)
                    n_checks += 1
                    if abs(got - exact) <= bound:
                        ok += 1
                    else:
                        log(f"  FAIL {name} {label}: {got!r}, exact {exact!r}, bound {bound!r}")
            elif name in ("dotsAVX2", "dotsAVX512"):  # each row bit for bit as dotAVX2 / dotAVX512 (checked above)
                one, step = ("dotAVX2", 32) if name == "dotsAVX2" else ("dotAVX512", 16)
                # dotsAVX512 runs with and without its prefetch (ahead 4096 points past the
                # mapped pages: a hint, which must not fault)
                aheads = (0, 4096) if name == "dotsAVX512" else (None,)
                for dim, rows, off, ahead in ((d, r, o, a) for d in (32, 64, 80, 100, 384, 400, 416) for r in (1, 2, 3, 7, 30) for o in (0, 1, 3) for a in aheads):
                    n = dim & ~(step - 1)
                    if rows * dim > 15000:
                        continue
                    q = [f32(rnd.uniform(-1, 1)) for _ in range(dim)]
                    a = [f32(rnd.uniform(-1, 1)) for _ in range(rows * dim)]
                    put_f32(a_va + 4 * off, q)
                    put_f32(b_va + 4 * off, a)
                    m.write(out_va, b"\xa5" * 4 * (rows + 1))
                    m.call(syms[name][0], [a_va + 4 * off, b_va + 4 * off, dim, n, rows] + ([] if ahead is None else [ahead]) + [out_va], 0)
                    got = m.read(out_va, 4 * (rows + 1))
                    want = b"".join(m.call(syms[one][0], [a_va + 4 * off, b_va + 4 * (off + r * dim), n], 4) for r in range(rows))
                    # and each within the rounding bound of its exact dot, so a kernel
                    # broken the same way as the one it is compared with still fails
                    vals = struct.unpack(f"<{rows}f", got[:4 * rows])
                    near = all(abs(v - e) <= bd for v, (e, bd) in zip(vals, (dot_bound(q[:n], a[r * dim:r * dim + n]) for r in range(rows))))
                    n_checks += 1
                    if got == want + b"\xa5" * 4 and near:
                        ok += 1
                    else:
                        log(f"  FAIL {name} dim={dim} rows={rows} off={off}: {got[:8].hex()}..., want {want[:8].hex()}...")
            elif name == "aboveAVX2":  # bit j set where scores[j] > thr, as Go's > (NaN never)
                special = [-0.0, 0.0, math.inf, -math.inf, math.nan]
                for trial in range(300):
                    scores = [rnd.randint(-4, 4) / 2 for _ in range(64)]
                    for j in range(64):
                        if rnd.randrange(8) == 0:
                            scores[j] = rnd.choice(special)
                    thr = rnd.randint(-4, 4) / 2 if trial % 10 else rnd.choice(special[:-1])  # a kept score: never NaN
                    off = trial % 8
                    put_f32(a_va + 4 * off, scores)
                    thr_bits, = struct.unpack("<I", struct.pack("<f", thr))
                    got, = struct.unpack("<Q", m.call(syms[name][0], [a_va + 4 * off, thr_bits], 8))
                    want = sum(1 << j for j, x in enumerate(scores) if x > thr)
                    n_checks += 1
                    if got == want:
                        ok += 1
                    else:
                        log(f"  FAIL {name} trial={trial} thr={thr}: {got:#018x}, want {want:#018x}")
            elif name == "scaleAVX2":  # out[j] = f32(scales[j] * f32(dots[j])), bit for bit Go's
                edges = [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 24 + 1, -(2 ** 24 + 3), 2 ** 25 + 2]
                for trial in range(200):
                    n = 8 * (1 + trial % 8)
                    dots = [rnd.randint(-2 ** 31, 2 ** 31 - 1) if rnd.randrange(3) else rnd.randint(-99999, 99999) for _ in range(n)]
                    for j in range(n):
                        if rnd.randrange(10) == 0:
                            dots[j] = rnd.choice(edges)
                    scales = [f32(rnd.uniform(0, 1e-3)) if rnd.randrange(10) else f32(rnd.choice([0.0, 1.0, 1e-40])) for _ in range(n)]
                    off = trial % 4
                    m.write(a_va + 4 * off, struct.pack(f"<{n}i", *dots))
                    put_f32(b_va + 4 * off, scales)
                    m.write(out_va, b"\xa5" * 4 * (n + 1))
                    m.call(syms[name][0], [a_va + 4 * off, b_va + 4 * off, n, out_va], 0)
                    got = m.read(out_va, 4 * (n + 1))
                    want = struct.pack(f"<{n}f", *(f32(s * f32(float(d))) for d, s in zip(dots, scales))) + b"\xa5" * 4
                    n_checks += 1
                    if got == want:
                        ok += 1
                    else:
                        log(f"  FAIL {name} n={n} off={off}: {got[:8].hex()}..., want {want[:8].hex()}...")
            elif name.startswith("read"):  # XOR of the little-endian 64-bit words
                for n in (256, 512, 768, 4096, 256 * 40):
                    for off in (0, 1, 7):
                        data = bytes(rnd.getrandbits(8) for _ in range(n))
                        m.write(a_va + off, data)
                        got, = struct.unpack("<Q", m.call(syms[name][0], [a_va + off, n], 8))
                        want = 0
                        for (w,) in struct.iter_unpack("<Q", data):
                            want ^= w
                        n_checks += 1
                        if got == want:
                            ok += 1
                        else:
                            log(f"  FAIL {name} n={n} off={off}: {got:#x}, want {want:#x}")
            elif name.startswith("dotInt8"):
                step = 32 if name.endswith("AVX2") else 64
                for n in range(step, 1025, step):
                    for off in (0, 1, 17, 63) if n <= 448 or n == 1024 else (5,):
                        for ka in KINDS:
                            for kq in ("random", "+127", "-127", "alt"):
                                a, q = int8_vals(rnd, n, ka), int8_vals(rnd, n, kq)
                                put_i8(a_va + off, a)
                                put_i8(b_va + off, q)
                                got, = struct.unpack("<i", m.call(syms[name][0], [a_va + off, b_va + off, n], 4))
                                want = sum(x * y for x, y in zip(a, q))
                                n_checks += 1
                                if got == want:
                                    ok += 1
                                else:
                                    log(f"  FAIL {name} n={n} off={off} a={ka} q={kq}: {got}, want {want}")
            else:  # dotsInt8*
                step = 32 if name.endswith("AVX2") else 64
                for dim in (step, 2 * step, 384, 448, 1024):
                    if dim % step:
                        continue
                    for rows in (1, 2, 3, 7, 64):
                        if rows * dim > 15 * PAGE:
                            continue
                        for off in (0, 3, 33):
                            for ka in KINDS:
                                a = int8_vals(rnd, rows * dim, ka)
                                q = int8_vals(rnd, dim, "random" if ka != "alt" else "-127")
                                put_i8(a_va + off, a)
                                put_i8(b_va + off, q)
                                m.write(out_va, b"\xa5" * 4 * (rows + 1))
                                m.call(syms[name][0], [a_va + off, b_va + off, dim, rows, out_va], 0)
                                got = struct.unpack(f"<{rows + 1}i", m.read(out_va, 4 * (rows + 1)))
                                want = [sum(x * y for x, y in zip(a[r * dim:(r + 1) * dim], q)) for r in range(rows)]
                                n_checks += 1
                                if list(got[:rows]) == want and got[rows] == struct.unpack("<i", b"\xa5" * 4)[0]:
                                    ok += 1
                                else:
                                    log(f"  FAIL {name} dim={dim} rows={rows} off={off} a={ka}: {got[:4]}..., want {want[:4]}...")
        except KernelFault as e:
            fault = e.args[0]
        results[name] = (ok, n_checks, fault)
        checks += n_checks
        fails += n_checks - ok
    return results, fails


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    args = sys.argv[1:]
    mutate = args[0] == "--mutate"
    if mutate:
        args = args[1:]
    binary = args[0]
    models = args[1:] or ["skylake_x", "icelake_u", "sapphire_rapids", "haswell"]
    if len(models) > 1:  # one model per process: Bochs's model is fixed at its first Session
        rc = 0
        for model in models:
            rc |= subprocess.run([sys.executable, __file__] + (["--mutate"] if mutate else []) + [binary, model]).returncode
        return rc
    model = models[0]
    results, fails = run(binary, model, lambda s: None if mutate else print(s), mutate)
    bad = 0
    for name, (ok, n, fault) in results.items():
        vec = fault[0] if isinstance(fault, tuple) else None
        if fault is None:
            status = "ok" if ok == n else "WRONG"
            if name not in EXPECT[model]:
                status += " (but this model lacks its features: the emulator did not refuse it)"
            bad += ok != n or name not in EXPECT[model]
        elif vec == 6:
            status = "refused by the CPU (#UD)"
            if name in EXPECT[model]:
                status += " (but this model has its features)"
                bad += 1
        else:
            status = f"FAULT {fault}"
            bad += 1
        print(f"{model:16s} {name:16s} {ok:5d}/{n:<5d} {status}")
    return 1 if bad else 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    os._exit(rc)  # skip the interpreter's teardown: bochscpu's objects crash it (SIGSEGV)
