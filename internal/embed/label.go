package embed

// Label names the backend e embeds on, for metrics: "go", "ort", "cuda" (ONNX Runtime's CUDA
// provider), "openai" (an embeddings server, Remote) or "other".
func Label(e Embedder) string {
	switch e := e.(type) {
	case *Hugot:
		if e.backend == BackendORT && e.cfg.Device == "cuda" {
			return "cuda"
		}
		return e.backend
	case *Remote:
		return "openai"
	}
	return "other"
}
