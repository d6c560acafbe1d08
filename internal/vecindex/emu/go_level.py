"""Run vecindex's exported Dot, DotInt8 and DotsInt8, and the block scorer dots that Search
uses (Go code and kernels together), on an emulated CPU, at each kernel level, by calling them
with Go's register ABI (ABIInternal).

bochs_kernels.py checks the assembly kernels alone; this checks the Go code around them at the
AVX-512 levels too: the n &^ 15 and n &^ 63 splits, the Go tails, and the VNNI/BW choice. The
binary's segments are mapped lazily from the file. The kernel level is set by writing the
useAVX2/useAVX512/useVNNI flags in the emulated memory. The goroutine (R14) and the TLS slot
(FS:-8) point at a fake g whose stack guard is 0, so the stack check passes and nothing else of
the runtime runs.

Usage: python go_level.py TEST_BINARY MODEL
"""

import math
import os
import random
import struct
import subprocess
import sys

import bochscpu
import bochscpu.cpu
import bochscpu.memory

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bochs_kernels as bk  # noqa: E402

PAGE = bk.PAGE
G = 0x30000000  # fake g (16(R14) = stack guard = 0); FS base = G + 64, so FS:-8 = G + 56 holds G
DATA, STACK, RET = bk.DATA, bk.STACK, bk.RET
LEVELS = {"generic": (0, 0, 0), "avx2": (1, 0, 0), "avx512": (1, 1, 0), "avx512vnni": (1, 1, 1)}


def all_symbols(binary):
    out = subprocess.run(["go", "tool", "nm", "-size", binary], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = int(f[0], 16)
    return syms


def segments(binary):
    with open(binary, "rb") as f:
        elf = f.read()
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    segs = []
    for i in range(phnum):
        ptype, flags, off, vaddr, _, filesz, memsz, _ = struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize)
        if ptype == 1:
            segs.append((vaddr, memsz, elf[off:off + filesz], bool(flags & 1)))
    return segs


class GoMachine:
    def __init__(self, binary):
        self.segs = segments(binary)
        self.sess = bochscpu.Session()
        self.sess.missing_page_handler = self._missing
        self.pt = bochscpu.memory.PageMapLevel4Table()
        self.hvas = []
        for vaddr, memsz, _, x in self.segs:
            for va in range(vaddr & ~(PAGE - 1), vaddr + memsz, PAGE):
                self.pt.insert(va, va, 0 if x else 1)  # GPA = GVA; backed on first touch
        self.eager = set()
        for va in [DATA + i * PAGE for i in range(bk.DATA_PAGES)] + [STACK, RET, G]:
            self.pt.insert(va, va, 1 if va != RET else 0)
            self._back(va)
        self.pml4 = 0x100000
        for hva, g in self.pt.commit(self.pml4):
            bochscpu.memory.page_insert(g, hva)
        self.write(RET, b"\xf4" * 16)
        self.write(G, b"\0" * 56 + struct.pack("<Q", G))
        self.hook = bochscpu.Hook()
        self.hook.exception = self._exception

    def _back(self, gpa):
        hva = bochscpu.memory.allocate_host_page()
        self.hvas.append(hva)
        bochscpu.memory.page_insert(gpa, hva)
        return hva

    def _missing(self, gpa):
        page = gpa & ~(PAGE - 1)
        for vaddr, memsz, data, _ in self.segs:
            if vaddr <= page < vaddr + memsz:
                self._back(page)
                lo = page - vaddr
                chunk = data[max(lo, 0):max(lo, 0) + PAGE] if lo < len(data) else b""
                if lo < 0:  # the segment starts inside the page
                    chunk = data[:PAGE + lo]
                    bochscpu.memory.phy_write(vaddr, list(chunk))
                elif chunk:
                    bochscpu.memory.phy_write(page, list(chunk))
                return
        raise RuntimeError(f"missing page {gpa:#x} outside the binary")

    def _exception(self, sess, cpu, vector, err):
        self.exc = (vector, err, sess.cpu.rip)
        sess.stop()

    def write(self, va, data):
        assert bochscpu.memory.virt_write(self.pml4, va, list(data))

    def read(self, va, n):
        return bytes(bochscpu.memory.virt_read(self.pml4, va, n))

    def call(self, fn, regs, stack_args=b""):
        """Calls fn (ABIInternal) with integer registers regs and stack-assigned args."""
        sp = STACK + PAGE // 2
        self.write(sp, struct.pack("<Q", RET) + stack_args + b"\0" * 256)  # + spill space
        st = bochscpu.State()
        bochscpu.cpu.set_long_mode(st)
        st.cr4 = st.cr4 | (1 << 9) | (1 << 10) | (1 << 18)
        st.xcr0 = 0xE7
        st.mxcsr = 0x1F80
        st.cr3 = self.pml4
        st.rsp = sp
        st.rip = fn
        st.r14 = G
        for r, v in regs.items():
            setattr(st, r, v)
        cs = bochscpu.Segment()
        cs.present, cs.selector, cs.base, cs.limit, cs.attr = True, 0x33, 0, 0xFFFFFFFF, 0x22FB
        ds = bochscpu.Segment()
        ds.present, ds.selector, ds.base, ds.limit, ds.attr = True, 0x2B, 0, 0xFFFFFFFF, 0xCF3
        fs = bochscpu.Segment()
        fs.present, fs.selector, fs.base, fs.limit, fs.attr = True, 0x2B, G + 64, 0xFFFFFFFF, 0xCF3
        st.cs = cs
        st.ds = st.ss = st.es = st.gs = ds
        st.fs = fs
        self.sess.cpu.state = st
        self.exc = None
        self.sess.run([self.hook])
        if self.exc is None or self.exc[0] != 13 or self.exc[2] not in (RET, RET + 1):
            raise bk.KernelFault(self.exc)
        return self.sess.cpu.state


def main():
    binary, model = sys.argv[1], sys.argv[2]
    syms = all_symbols(binary)
    pkg = bk.PKG
    bk.set_model(bk.MODELS[model])
    m = GoMachine(binary)
    flags = [syms[pkg + n] for n in ("useAVX2", "useAVX512", "useVNNI")]
    dot, dot8, dots8 = syms[pkg + "Dot"], syms[pkg + "DotInt8"], syms[pkg + "DotsInt8"]
    dotsf = syms[pkg + "dots"]
    rnd = random.Random(17)
    a_va, b_va, out_va = DATA, DATA + 16 * PAGE, DATA + 32 * PAGE
    levels = ["generic", "avx2"] + (["avx512"] if "dotAVX512" in bk.EXPECT[model] else []) + (["avx512vnni"] if "dotInt8VNNI" in bk.EXPECT[model] else [])
    bad = 0
    for level in levels:
        for va, v in zip(flags, LEVELS[level]):
            m.write(va, bytes([v]))
        ok = n = 0
        # Dot: every length 0..200, then around 256..1024, at offsets 0, 1, 3.
        for length in list(range(0, 201)) + [255, 256, 257, 383, 384, 385, 767, 768, 769, 1023, 1024, 1025]:
            for off in (0, 1, 3):
                a = [bk.f32(rnd.uniform(-1, 1)) for _ in range(length)]
                b = [bk.f32(rnd.uniform(-1, 1)) for _ in range(length)]
                m.write(a_va + 4 * off, struct.pack(f"<{length}f", *a))
                m.write(b_va + 4 * off, struct.pack(f"<{length}f", *b))
                st = m.call(dot, {"rax": a_va + 4 * off, "rbx": length, "rcx": length, "rdi": b_va + 4 * off, "rsi": length, "r8": length})
                got, = struct.unpack("<f", struct.pack("<I", st.zmm[0].q[0] & 0xFFFFFFFF))
                exact, bound = bk.dot_bound(a, b)
                n += 1
                if abs(got - exact) <= bound:
                    ok += 1
                else:
                    print(f"  FAIL Dot {level} n={length} off={off}: {got!r}, exact {exact!r}")
        # DotInt8: lengths 0..200 and around 384/1024, offsets 0, 5.
        for length in list(range(0, 201)) + [383, 384, 385, 1023, 1024, 1025]:
            for off in (0, 5):
                a = [rnd.randint(-127, 127) for _ in range(length)]
                q = [rnd.choice((-127, 127, rnd.randint(-127, 127))) for _ in range(length)]
                m.write(a_va + off, struct.pack(f"<{length}b", *a))
                m.write(b_va + off, struct.pack(f"<{length}b", *q))
                st = m.call(dot8, {"rax": a_va + off, "rbx": length, "rcx": length, "rdi": b_va + off, "rsi": length, "r8": length})
                got = struct.unpack("<i", struct.pack("<I", st.rax & 0xFFFFFFFF))[0]
                want = sum(x * y for x, y in zip(a, q))
                n += 1
                if got == want:
                    ok += 1
                else:
                    print(f"  FAIL DotInt8 {level} n={length} off={off}: {got}, want {want}")
        # DotsInt8(codes, dim, q, out): codes AX BX CX, dim DI, q SI R8 R9; out on the stack.
        for dim in (32, 64, 96, 100, 128, 384, 448, 1024):
            for rows in (1, 2, 3, 64):
                if rows * dim > 15 * PAGE:
                    continue
                for off in (0, 3):
                    a = [rnd.randint(-127, 127) for _ in range(rows * dim)]
                    q = [rnd.randint(-127, 127) for _ in range(dim)]
                    m.write(a_va + off, struct.pack(f"<{len(a)}b", *a))
                    m.write(b_va + off, struct.pack(f"<{dim}b", *q))
                    m.write(out_va, b"\xa5" * 4 * (rows + 1))
                    m.call(dots8, {"rax": a_va + off, "rbx": len(a), "rcx": len(a), "rdi": dim, "rsi": b_va + off, "r8": dim, "r9": dim},
                           struct.pack("<QQQ", out_va, rows, rows))
                    got = struct.unpack(f"<{rows + 1}i", m.read(out_va, 4 * (rows + 1)))
                    want = [sum(x * y for x, y in zip(a[r * dim:(r + 1) * dim], q)) for r in range(rows)]
                    n += 1
                    if list(got[:rows]) == want and got[rows] == struct.unpack("<i", b"\xa5" * 4)[0]:
                        ok += 1
                    else:
                        print(f"  FAIL DotsInt8 {level} dim={dim} rows={rows} off={off}: {got[:3]}, want {want[:3]}")
        # dots(q, rows, out): q AX BX CX, rows DI SI R8, out R9 R10 R11. Each score must be
        # Dot's for that row, bit for bit, and within the rounding bound; nothing past out.
        for dim in (1, 16, 17, 31, 32, 33, 80, 100, 384, 385, 400):
            for rows in (1, 3, 17):
                for off in (0, 1):
                    q = [bk.f32(rnd.uniform(-1, 1)) for _ in range(dim)]
                    a = [bk.f32(rnd.uniform(-1, 1)) for _ in range(rows * dim)]
                    m.write(a_va + 4 * off, struct.pack(f"<{dim}f", *q))
                    m.write(b_va + 4 * off, struct.pack(f"<{len(a)}f", *a))
                    m.write(out_va, b"\xa5" * 4 * (rows + 1))
                    m.call(dotsf, {"rax": a_va + 4 * off, "rbx": dim, "rcx": dim, "rdi": b_va + 4 * off, "rsi": len(a), "r8": len(a),
                                   "r9": out_va, "r10": rows, "r11": rows})
                    got = m.read(out_va, 4 * (rows + 1))
                    want, near = b"", True
                    for r in range(rows):
                        st = m.call(dot, {"rax": a_va + 4 * off, "rbx": dim, "rcx": dim, "rdi": b_va + 4 * (off + r * dim), "rsi": dim, "r8": dim})
                        want += struct.pack("<I", st.zmm[0].q[0] & 0xFFFFFFFF)
                        exact, bound = bk.dot_bound(q, a[r * dim:(r + 1) * dim])
                        v, = struct.unpack("<f", got[4 * r:4 * r + 4])
                        near = near and abs(v - exact) <= bound
                    n += 1
                    if got == want + b"\xa5" * 4 and near:
                        ok += 1
                    else:
                        print(f"  FAIL dots {level} dim={dim} rows={rows} off={off}: {got[:8].hex()}, want {want[:8].hex()}")
        print(f"{model:16s} {level:12s} Dot, DotInt8, DotsInt8, dots {ok:5d}/{n:<5d} {'ok' if ok == n else 'WRONG'}")
        bad += ok != n
    # The flags written above do reach the dispatch: at a level this model lacks, a 384-value
    # call must reach that level's kernel and raise #UD.
    for level in [lv for lv in LEVELS if lv not in levels]:
        for va, v in zip(flags, LEVELS[level]):
            m.write(va, bytes([v]))
        fn = dot8 if level == "avx512vnni" else dot
        try:
            m.call(fn, {"rax": a_va, "rbx": 384, "rcx": 384, "rdi": b_va, "rsi": 384, "r8": 384})
            print(f"{model:16s} {level:12s} ran on a CPU without it: the level flags do not reach the dispatch")
            bad += 1
        except bk.KernelFault as e:
            ud = isinstance(e.args[0], tuple) and e.args[0][0] == 6
            print(f"{model:16s} {level:12s} {'refused by the CPU (#UD), as it must be' if ud else f'FAULT {e}'}")
            bad += not ud
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        rc = main()
    except bk.KernelFault as e:
        print(f"FAULT {e}")
        rc = 1
    sys.stdout.flush()
    os._exit(rc)
