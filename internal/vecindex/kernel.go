package vecindex

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
)

// KernelEnv is the environment variable that picks a slower kernel than the best the CPU has
// (benchmarks, tests, or to rule a kernel out): generic, avx2, avx512 or avx512vnni. It can
// only downgrade; an unknown value or one the CPU lacks is logged and the best kernel is used.
const KernelEnv = "ASOF_KERNEL"

// kernelLevel is a set of kernels, slowest first; each level needs the CPU features of the
// ones below it.
type kernelLevel int

const (
	// levelGeneric is the portable Go loops.
	levelGeneric kernelLevel = iota
	// levelAVX2 is dot_amd64.s and dot8_amd64.s (AVX2, FMA; 32 values a step).
	levelAVX2
	// levelAVX512 is dot_avx512_amd64.s without VNNI (AVX512F, BW, VL, DQ; the int8 kernel
	// multiplies with VPMADDUBSW and VPMADDWD).
	levelAVX512
	// levelAVX512VNNI is levelAVX512 with the int8 kernel on VPDPBUSD (AVX512VNNI).
	levelAVX512VNNI
)

// levelNames are the kernels' names, as Kernel and KernelEnv spell them.
var levelNames = [...]string{"generic", "avx2", "avx512", "avx512vnni"}

func (l kernelLevel) String() string { return levelNames[l] }

// The kernel in use. Dot, DotInt8 and DotsInt8 read these flags on every call; setLevel writes
// them (at start-up, and in tests).
var (
	level     kernelLevel
	useAVX2   bool
	useAVX512 bool
	useVNNI   bool
)

func setLevel(l kernelLevel) {
	level = l
	useAVX2 = l >= levelAVX2
	useAVX512 = l >= levelAVX512
	useVNNI = l >= levelAVX512VNNI
}

// Kernel is the name of the kernel set in use: "generic", "avx2", "avx512" or "avx512vnni".
func Kernel() string { return level.String() }

// ErrUnknownKernel is returned (and logged at start-up) for a KernelEnv value that names no
// kernel.
var ErrUnknownKernel = errors.New("vecindex: unknown kernel")

// ErrKernelUnsupported is returned (and logged at start-up) for a KernelEnv value naming a
// kernel this CPU (or OS) does not offer.
var ErrKernelUnsupported = errors.New("vecindex: kernel not supported by this CPU")

func init() {
	setLevel(selectKernel(os.Getenv(KernelEnv), cpuLevel, checkLevel, slog.Default()))
}

// chooseLevel is the level KernelEnv's value asks for, given the best level the CPU offers:
// the best for "", the named one if the CPU has it, the best and an error otherwise.
func chooseLevel(env string, best kernelLevel) (kernelLevel, error) {
	env = strings.ToLower(strings.TrimSpace(env))
	if env == "" {
		return best, nil
	}
	for l, name := range levelNames {
		if name != env {
			continue
		}
		if kernelLevel(l) > best {
			return best, fmt.Errorf("%w: %s=%s, the best here is %s", ErrKernelUnsupported, KernelEnv, env, best)
		}
		return kernelLevel(l), nil
	}
	return best, fmt.Errorf("%w: %s=%q (want one of %s)", ErrUnknownKernel, KernelEnv, env, strings.Join(levelNames[:], ", "))
}

// selectKernel picks the level to run: chooseLevel's, then one level down for as long as
// check finds that level's kernels disagreeing with the portable loops (defence in depth: a
// kernel that is wrong on this CPU is never used). It logs what it rejected and why.
func selectKernel(env string, best kernelLevel, check func(kernelLevel) error, log *slog.Logger) kernelLevel {
	l, err := chooseLevel(env, best)
	if err != nil {
		log.Warn("vecindex: kernel choice ignored", "err", err, "kernel", l.String())
	}
	for l > levelGeneric {
		err := check(l)
		if err == nil {
			break
		}
		log.Error("vecindex: kernel failed its self-check, using a slower one", "kernel", l.String(), "err", err)
		l--
	}
	return l
}

// checkLevel runs checkKernels with level l in place, and restores the level it found.
func checkLevel(l kernelLevel) error {
	old := level
	defer setLevel(old)
	setLevel(l)
	return checkKernels(Dot, DotsInt8)
}

// checkKernels compares dot and dots8 with the portable loops on a fixed set of vectors:
// lengths on and off every kernel's step, and extreme values. The float results must be
// within a rounding bound of the exact sum, the int8 ones exactly equal.
func checkKernels(dot func(a, b []float32) float32, dots8 func(codes []int8, dim int, q []int8, out []int32)) error {
	// Deterministic values in [-1, 1) (a small LCG: no math/rand state at init).
	x := uint32(2463534242)
	next := func() float32 {
		x = x*1664525 + 1013904223
		return float32(int32(x>>8)-1<<23) / (1 << 23)
	}
	a, b := make([]float32, 1031), make([]float32, 1031)
	for i := range a {
		a[i], b[i] = next(), next()
	}
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 383, 384, 385, 768, 1024} {
		for _, off := range []int{0, 1, 3} {
			if err := dotCheck(dot, a[off:off+n], b[off:off+n]); err != nil {
				return fmt.Errorf("float32 dot, %d values at offset %d: %w", n, off, err)
			}
		}
	}
	// Extreme magnitudes (products up to 1e30 and down to the subnormals) and cancellation.
	big, tiny := make([]float32, 200), make([]float32, 200)
	for i := range big {
		big[i] = float32(math.Pow(10, float64(i%31-15))) * float32(1-2*(i%2))
		tiny[i] = float32(math.Pow(10, float64(-(i%20)-5)))
	}
	if err := dotCheck(dot, big, tiny); err != nil {
		return fmt.Errorf("float32 dot, extreme values: %w", err)
	}
	if err := dotCheck(dot, big, big); err != nil {
		return fmt.Errorf("float32 dot, extreme values squared: %w", err)
	}

	codes := make([]int8, 1100)
	for i := range codes {
		codes[i] = int8(int32(next()*128) % 128)
		if i%7 == 0 {
			codes[i] = 127 * int8(1-2*(i/7%2)) // ±127
		}
	}
	for _, dim := range []int{32, 64, 96, 128, 384} {
		rows := len(codes) / dim
		for _, off := range []int{0, 1} {
			q := codes[len(codes)-dim-off : len(codes)-off]
			out := make([]int32, rows-1)
			dots8(codes[off:off+(rows-1)*dim], dim, q, out)
			for r := range out {
				if want := dotInt8Generic(codes[off+r*dim:off+(r+1)*dim], q); out[r] != want {
					return fmt.Errorf("int8 dots, dim %d row %d offset %d: %d, want %d", dim, r, off, out[r], want)
				}
			}
		}
	}
	return nil
}

// errInexact marks a float dot outside its rounding bound.
var errInexact = errors.New("vecindex: dot outside its rounding bound")

// dotCheck returns errInexact if dot(a, b) is further from the inner product (summed in
// float64) than summing len(a) rounded products in any order can be: 2·n·2⁻²⁴·Σ|aᵢbᵢ|, plus
// n of the smallest subnormal for products that underflow.
func dotCheck(dot func(a, b []float32) float32, a, b []float32) error {
	got := dot(a, b)
	var exact, abs float64
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		exact += p
		abs += math.Abs(p)
	}
	n := float64(len(a))
	bound := 2*n*0x1p-24*abs + n*0x1p-149
	if d := math.Abs(float64(got) - exact); !(d <= bound) {
		return fmt.Errorf("%w: %g, exact %g, bound %g", errInexact, got, exact, bound)
	}
	return nil
}
