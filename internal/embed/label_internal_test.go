package embed

import "testing"

func TestLabel(t *testing.T) {
	tests := []struct {
		name string
		e    Embedder
		want string
	}{
		{"pure go", &Hugot{backend: BackendGo}, "go"},
		{"onnx runtime", &Hugot{backend: BackendORT, cfg: Config{Device: "cpu"}}, "ort"},
		{"onnx runtime on the gpu", &Hugot{backend: BackendORT, cfg: Config{Device: "cuda"}}, "cuda"},
		{"server", &Remote{}, "openai"},
		{"none", nil, "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Label(tt.e); got != tt.want {
				t.Errorf("Label = %q, want %q", got, tt.want)
			}
		})
	}
}
