//go:build ORT

package embed

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// asof_dlopen loads a shared library for the whole process (its symbols visible to the
// libraries loaded after it) and returns dlerror's message when it cannot.
static const char* asof_dlopen(const char* path) {
	if (dlopen(path, RTLD_NOW | RTLD_GLOBAL) == NULL) return dlerror();
	return NULL;
}
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// PreloadFile lists, in the ONNX Runtime CUDA folder that `make setup-ort-gpu` fills, the CUDA
// and cuDNN libraries in an order each can be loaded after the ones before it.
const PreloadFile = "preload.txt"

// preloadCUDA loads the CUDA libraries listed in dir/preload.txt by absolute path, so that
// ONNX Runtime's CUDA provider (which carries no search path of its own) finds them without
// LD_LIBRARY_PATH, which a running process cannot change for itself. Python's onnxruntime
// does the same in preload_dlls().
func preloadCUDA(dir string) error {
	f, err := os.Open(filepath.Join(dir, PreloadFile))
	if err != nil {
		return fmt.Errorf("%w: device cuda needs ONNX Runtime's CUDA build and its CUDA libraries in %s (%w): run `make setup-ort-gpu` and set embed.ort_dir (ASOF_EMBED_ORT_DIR) to its folder",
			ErrORTDir, dir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		p := C.CString(filepath.Join(dir, name))
		msg := C.asof_dlopen(p)
		C.free(unsafe.Pointer(p))
		if msg != nil {
			return fmt.Errorf("%w: load %s: %s", ErrORTDir, name, C.GoString(msg))
		}
	}
	return sc.Err()
}
