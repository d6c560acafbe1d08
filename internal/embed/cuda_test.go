//go:build ORT

package embed_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/asofrag/asof/internal/embed"
	"github.com/asofrag/asof/internal/testmodel"
	"github.com/asofrag/asof/internal/vecindex"
)

// gpuORTDir is where `make setup-ort-gpu` puts ONNX Runtime's CUDA build (ASOF_EMBED_ORT_GPU_DIR
// overrides it).
func gpuORTDir() string {
	if d := os.Getenv("ASOF_EMBED_ORT_GPU_DIR"); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(testmodel.ORTDir()), "..", "ort-gpu", "lib")
}

// TestCUDAWithModel runs E5 on ONNX Runtime's CUDA provider when this machine has an NVIDIA
// GPU and `make setup-ort-gpu` has run, and skips otherwise. ONNX Runtime allows one
// environment per process, and this test binary's other tests start the CPU one, so the GPU
// part runs in a child process (TestCUDAChild).
func TestCUDAWithModel(t *testing.T) {
	testmodel.Dir(t)
	if _, err := os.Stat("/dev/nvidia0"); err != nil {
		if _, err := exec.LookPath("nvidia-smi"); err != nil || exec.Command("nvidia-smi", "-L").Run() != nil {
			t.Skip("no NVIDIA GPU visible (no /dev/nvidia0, nvidia-smi -L fails)")
		}
	}
	dir := gpuORTDir()
	if _, err := os.Stat(filepath.Join(dir, embed.PreloadFile)); err != nil {
		t.Skipf("a GPU is visible but ONNX Runtime's CUDA build is not installed in %s: run `make setup-ort-gpu`", dir)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCUDAChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "ASOF_CUDA_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("the CUDA child failed: %v", err)
	}
}

// TestCUDAChild is TestCUDAWithModel's child process: the CUDA vectors must match the pure-Go
// backend's (cosine ≥ 0.999 each) and it reports passages/s on realtimeqa articles.
func TestCUDAChild(t *testing.T) {
	dir := os.Getenv("ASOF_CUDA_CHILD")
	if dir == "" {
		t.Skip("runs only as TestCUDAWithModel's child")
	}
	ctx := context.Background()
	cfg := testmodel.Config(t)
	ref := cfg
	ref.Backend = embed.BackendGo
	g, err := embed.NewHugot(ref)
	if err != nil {
		t.Fatal(err)
	}
	want, err := g.EmbedPassages(ctx, equivalenceSet)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	for _, id := range []string{"e5-small-v2", "e5-small-v2-q"} {
		c := testmodel.ConfigOf(t, id)
		c.Backend, c.Device, c.ORTDir = embed.BackendORT, "cuda", dir
		c.BatchSize, c.BatchTokens = 256, 65536 // a GPU wants large batches
		h, err := embed.NewHugot(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.EmbedPassages(ctx, equivalenceSet)
		if err != nil {
			t.Fatal(err)
		}
		if id == "e5-small-v2" {
			for i := range want {
				if cos := vecindex.Dot(want[i], got[i]); cos < 0.999 {
					t.Errorf("text %d: CUDA vs pure Go cosine %.5f, want ≥ 0.999", i, cos)
				}
			}
		}
		texts := rtqaTexts(t, 2048)
		if len(texts) > 0 {
			h.EmbedPassages(ctx, texts[:64]) // warm up: CUDA kernels and memory
			began := time.Now()
			for s := 0; s < len(texts); s += 256 {
				if _, err := h.EmbedPassages(ctx, texts[s:min(s+256, len(texts))]); err != nil {
					t.Fatal(err)
				}
			}
			el := time.Since(began)
			t.Logf("%s: %d realtimeqa passages in %s on CUDA: %.1f passages/s (%s)", id, len(texts), el.Round(time.Millisecond), float64(len(texts))/el.Seconds(), h.Describe())
		}
		h.Close()
	}
}
