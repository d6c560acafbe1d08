package vecindex

// SearchMany is Int8.Search for many queries at once, with the same results: query i's hits
// are Search(qs[i], k, mask i, rerank)'s. masks is nil, one shared mask or one per query, as
// for Flat.SearchMany. The codes are read once per block of 64 rows (24 KB at 384 dimensions)
// for all the queries, which score that block from cache one after the other with Search's
// kernel (DotsInt8), instead of one pass over all the codes per query. A query whose k·rerank
// covers its allowed rows is searched in float32, as Search does (with Flat.SearchMany).
func (x *Int8) SearchMany(qs [][]float32, k int, masks []Mask, rerank int) ([][]Hit, error) {
	f := x.Flat
	if err := checkMany(qs, f.Dim, masks); err != nil {
		return nil, err
	}
	out := make([][]Hit, len(qs))
	if k <= 0 {
		return out, nil
	}
	if rerank <= 0 {
		rerank = DefaultRerank
	}
	m := k * rerank
	maskOf := func(i int) Mask { return maskFor(masks, i) }
	// Queries whose candidates would be every allowed row: the float32 scan, as Search.
	var flat []int
	var flatQs [][]float32
	var flatMasks []Mask
	scan := make([]bool, len(qs))
	for i, q := range qs {
		if m >= allowedRows(maskOf(i), f.Count) {
			flat, flatQs, flatMasks = append(flat, i), append(flatQs, q), append(flatMasks, maskOf(i))
		} else {
			scan[i] = true
		}
	}
	if len(flat) > 0 {
		hits, err := f.SearchMany(flatQs, k, flatMasks)
		if err != nil {
			return nil, err
		}
		for j, i := range flat {
			out[i] = hits[j]
		}
	}
	codes := make([][]int8, len(qs))
	ts := make([]topK, len(qs))
	for i, q := range qs {
		if scan[i] {
			codes[i] = make([]int8, f.Dim)
			quantize(codes[i], q)
			ts[i] = newTopK(m, f.Count)
		}
	}
	var dots [64]int32
	var scores [64]float32
	for b0 := 0; b0 < f.Count; b0 += 64 { // blocks of 64 rows: one mask word
		for i := range qs {
			if !scan[i] {
				continue
			}
			w := blockWord(maskOf(i), b0, f.Count)
			if w == 0 {
				continue
			}
			x.scoreBlock(b0, codes[i], &dots, &scores)
			ts[i].offerBlock(b0, w, &scores)
		}
	}
	for i, t := range ts { // re-score each query's candidates in float32, as Search does
		if !scan[i] {
			continue
		}
		out[i] = f.rescore(qs[i], t.kept(), k)
	}
	return out, nil
}
