package vecindex

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// allLevels are every kernel level, slowest first.
var allLevels = []kernelLevel{levelGeneric, levelAVX2, levelAVX512, levelAVX512VNNI}

// withLevel runs f with kernel level l in place, and restores the level after.
func withLevel(l kernelLevel, f func()) {
	old := level
	defer setLevel(old)
	setLevel(l)
	f()
}

// TestKernelsMatchGeneric is the equivalence test: every kernel level this CPU offers runs
// Dot, DotInt8 and DotsInt8 on lengths on and off every kernel's step (16, 32, 64), unaligned
// slices and extreme values. Float results must be within the rounding bound of the float64
// sum (dotCheck), int8 results exactly the integer sum. Levels the CPU lacks are skipped and
// listed.
func TestKernelsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	type floatCase struct {
		name string
		a, b []float32
	}
	buf := make([]float32, 2200)
	for i := range buf {
		buf[i] = float32(rng.NormFloat64())
	}
	var floats []floatCase
	lengths := []int{}
	for n := 0; n <= 200; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 255, 256, 257, 383, 384, 385, 511, 512, 513, 767, 768, 769, 1023, 1024, 1025)
	for _, n := range lengths {
		for _, off := range []int{0, 1, 2, 3, 15} {
			floats = append(floats, floatCase{fmt.Sprintf("n%d+%d", n, off), buf[off : off+n], buf[1100+off : 1100+off+n]})
		}
	}
	big, tiny, huge, ones := make([]float32, 384), make([]float32, 384), make([]float32, 384), make([]float32, 384)
	for i := range big {
		big[i] = float32(math.Pow(10, float64(i%31-15))) * float32(1-2*(i%2))
		tiny[i] = float32(math.Pow(10, float64(-(i%20)-20))) // products down to the subnormals
		huge[i] = 1e17 * float32(1-2*(i%3/2))
		ones[i] = 1
	}
	floats = append(floats,
		floatCase{"big×tiny", big, tiny},
		floatCase{"big×big", big, big},
		floatCase{"tiny×tiny", tiny, tiny},
		floatCase{"huge×huge (1e34 products)", huge, huge},
		floatCase{"huge×1 (cancellation)", huge, ones},
	)
	for _, p := range []int{0, 15, 16, 31, 32, 63, 64, 65, 200, 383} {
		a, b := make([]float32, 384), make([]float32, 384)
		a[p] = 3 // one nonzero product: a skipped or repeated lane shows
		for i := range b {
			b[i] = float32(i + 1)
		}
		floats = append(floats, floatCase{fmt.Sprintf("lane%d", p), a, b})
	}

	codes := make([]int8, 2300)
	for i := range codes {
		codes[i] = int8(rng.IntN(255) - 127)
	}
	type int8Case struct {
		name string
		a, q []int8
	}
	var ints []int8Case
	for _, n := range lengths {
		for _, off := range []int{0, 1, 17, 63} {
			ints = append(ints, int8Case{fmt.Sprintf("n%d+%d", n, off), codes[off : off+n], codes[1200+off : 1200+off+n]})
		}
	}
	for _, ex := range []struct {
		name string
		a, q int8
	}{{"+127×+127", 127, 127}, {"+127×-127", 127, -127}, {"-127×+127", -127, 127}, {"-127×-127", -127, -127}, {"0×-127", 0, -127}} {
		for _, n := range []int{64, 384, 1024} {
			a, q := make([]int8, n), make([]int8, n)
			for i := range a {
				a[i], q[i] = ex.a, ex.q
			}
			ints = append(ints, int8Case{fmt.Sprintf("%s n%d", ex.name, n), a, q})
		}
	}
	alt, altQ := make([]int8, 768), make([]int8, 768)
	for i := range alt {
		alt[i], altQ[i] = 127*int8(1-2*(i%2)), -127*int8(1-2*(i/3%2))
		if i%5 == 0 {
			alt[i] = 0
		}
	}
	ints = append(ints, int8Case{"alternating signs, zeros", alt, altQ})

	var ran, skipped []string
	for _, l := range allLevels {
		t.Run(l.String(), func(t *testing.T) {
			if l > cpuLevel {
				skipped = append(skipped, l.String())
				t.Skipf("this CPU lacks %s (its best is %s)", l, cpuLevel)
			}
			ran = append(ran, l.String())
			withLevel(l, func() {
				if Kernel() != l.String() {
					t.Fatalf("Kernel() = %q at level %s", Kernel(), l)
				}
				for _, tt := range floats {
					if err := dotCheck(Dot, tt.a, tt.b); err != nil {
						t.Errorf("Dot %s: %v", tt.name, err)
					}
				}
				for _, tt := range ints {
					var exact int64
					for i := range tt.a {
						exact += int64(tt.a[i]) * int64(tt.q[i])
					}
					if got := DotInt8(tt.a, tt.q); int64(got) != exact {
						t.Errorf("DotInt8 %s: %d, exact %d", tt.name, got, exact)
					}
				}
				for _, dim := range []int{32, 64, 96, 100, 128, 384, 448, 1024} {
					for _, rows := range []int{1, 2, 3, 64} {
						for _, off := range []int{0, 3} {
							if off+(rows+1)*dim > len(codes) {
								continue
							}
							q := codes[off+rows*dim : off+(rows+1)*dim]
							out := make([]int32, rows+1)
							out[rows] = -1 // must stay
							DotsInt8(codes[off:off+rows*dim], dim, q, out[:rows])
							for r := range rows {
								if want := dotInt8Generic(codes[off+r*dim:off+(r+1)*dim], q); out[r] != want {
									t.Errorf("DotsInt8 dim %d rows %d +%d: row %d = %d, want %d", dim, rows, off, r, out[r], want)
								}
							}
							if out[rows] != -1 {
								t.Errorf("DotsInt8 dim %d rows %d +%d wrote past its rows", dim, rows, off)
							}
						}
					}
				}
			})
		})
	}
	t.Logf("kernels run: %v; skipped for lack of CPU support: %v; in use: %s", ran, skipped, Kernel())
}

// TestCheckKernelsCatchesWrongKernel: the start-up self-check passes the kernels in use and
// rejects a float dot that drops a value and an int8 kernel that is off in one row.
func TestCheckKernelsCatchesWrongKernel(t *testing.T) {
	dropLast := func(a, b []float32) float32 { return dotGeneric(a[:len(a)-1], b[:len(a)-1]) }
	offByOne := func(codes []int8, dim int, q []int8, out []int32) {
		DotsInt8(codes, dim, q, out)
		if len(out) > 2 {
			out[2]++
		}
	}
	tests := []struct {
		name  string
		dot   func(a, b []float32) float32
		dots8 func(codes []int8, dim int, q []int8, out []int32)
		want  error
	}{
		{"kernels in use", Dot, DotsInt8, nil},
		{"portable loops", dotGeneric, func(c []int8, d int, q []int8, o []int32) {
			for r := range o {
				o[r] = dotInt8Generic(c[r*d:(r+1)*d], q)
			}
		}, nil},
		{"float dot drops a value", dropLast, DotsInt8, errInexact},
		{"int8 row off by one", Dot, offByOne, errors.New("int8 dots")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkKernels(tt.dot, tt.dots8)
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("checkKernels: %v", err)
			case tt.want == errInexact && !errors.Is(err, errInexact):
				t.Fatalf("checkKernels = %v, want errInexact", err)
			case tt.want != nil && tt.want != errInexact && (err == nil || !strings.Contains(err.Error(), tt.want.Error())):
				t.Fatalf("checkKernels = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

// TestSelectKernel: ASOF_KERNEL downgrades only (an unknown or unsupported value is logged
// and the best kernel used), and a level whose self-check fails is dropped for the next one
// down, with a log line saying why.
func TestSelectKernel(t *testing.T) {
	errBroken := errors.New("broken")
	brokenFrom := func(bad kernelLevel) func(kernelLevel) error {
		return func(l kernelLevel) error {
			if l >= bad {
				return errBroken
			}
			return nil
		}
	}
	tests := []struct {
		name    string
		env     string
		best    kernelLevel
		check   func(kernelLevel) error
		want    kernelLevel
		wantErr error // from chooseLevel
		wantLog string
	}{
		{"best by default", "", levelAVX512VNNI, brokenFrom(99), levelAVX512VNNI, nil, ""},
		{"downgrade to avx2", "avx2", levelAVX512VNNI, brokenFrom(99), levelAVX2, nil, ""},
		{"downgrade to avx512 without vnni", " AVX512 ", levelAVX512VNNI, brokenFrom(99), levelAVX512, nil, ""},
		{"downgrade to generic", "generic", levelAVX2, brokenFrom(99), levelGeneric, nil, ""},
		{"no upgrade", "avx512", levelAVX2, brokenFrom(99), levelAVX2, ErrKernelUnsupported, "not supported"},
		{"unknown value", "sse9", levelAVX512, brokenFrom(99), levelAVX512, ErrUnknownKernel, "unknown kernel"},
		{"self-check fails: vnni to avx512", "", levelAVX512VNNI, brokenFrom(levelAVX512VNNI), levelAVX512, nil, "self-check"},
		{"self-check fails: avx512 to avx2", "", levelAVX512VNNI, brokenFrom(levelAVX512), levelAVX2, nil, "self-check"},
		{"self-check fails everywhere", "", levelAVX512VNNI, brokenFrom(levelAVX2), levelGeneric, nil, "broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := chooseLevel(tt.env, tt.best); !errors.Is(err, tt.wantErr) {
				t.Errorf("chooseLevel(%q) error %v, want %v", tt.env, err, tt.wantErr)
			}
			var logs bytes.Buffer
			got := selectKernel(tt.env, tt.best, tt.check, slog.New(slog.NewTextHandler(&logs, nil)))
			if got != tt.want {
				t.Errorf("selectKernel = %s, want %s", got, tt.want)
			}
			if tt.wantLog == "" && logs.Len() > 0 || !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q, want it to mention %q", logs.String(), tt.wantLog)
			}
		})
	}
	// The real self-check passes every level this CPU has.
	for l := levelAVX2; l <= cpuLevel; l++ {
		if err := checkLevel(l); err != nil {
			t.Errorf("self-check of %s: %v", l, err)
		}
	}
	if Kernel() != cpuLevel.String() && os.Getenv(KernelEnv) == "" {
		t.Errorf("Kernel() = %s, want the CPU's best %s", Kernel(), cpuLevel)
	}
}

// BenchmarkKernels times one 384-value inner product per call (float32 Dot and int8 DotInt8)
// and a 64-row block of DotsInt8, once per kernel level; levels this CPU lacks are skipped.
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i], y[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	codes, q := make([]int8, 64*384), make([]int8, 384)
	for i := range codes {
		codes[i] = int8(rng.IntN(255) - 127)
	}
	for i := range q {
		q[i] = int8(rng.IntN(255) - 127)
	}
	out := make([]int32, 64)
	for _, l := range allLevels {
		run := func(name string, f func()) {
			b.Run(name+"/"+l.String(), func(b *testing.B) {
				if l > cpuLevel {
					b.Skipf("this CPU lacks %s", l)
				}
				withLevel(l, func() {
					for b.Loop() {
						f()
					}
				})
			})
		}
		run("dot384", func() { Dot(x, y) })
		run("dotInt8-384", func() { DotInt8(codes[:384], q) })
		run("dotsInt8-384x64", func() { DotsInt8(codes, 384, q, out) })
	}
}
