package vecindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Int8Magic opens every int8 code file (a shard's vectors.i8).
//
// File format, little-endian, written next to the float32 file it was quantized from:
//
//	offset 0   magic "ASOFI8V1"
//	       8   uint32 format version (1)
//	      12   uint32 dim
//	      16   uint64 count
//	      24   zero padding to 64 bytes
//	      64   count × float32 scales, zero padding to a multiple of 64 bytes
//	       …   count × dim int8 codes, row i = row i of the float32 file
const Int8Magic = "ASOFI8V1"

// Int8FormatVersion is the current int8 code file format.
const Int8FormatVersion = 1

const int8Header = 64

// WriteTo writes x's scales and codes in the int8 code file format (its float32 rows are not
// written: they are the shard's vectors file).
func (x *Int8) WriteTo(w io.Writer) (int64, error) {
	f := x.Flat
	if len(x.Scales) != f.Count || len(x.Codes) != f.Count*f.Dim {
		return 0, fmt.Errorf("vecindex: int8 codes hold %d scales and %d codes for %d × %d vectors", len(x.Scales), len(x.Codes), f.Count, f.Dim)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	hdr := make([]byte, int8Header)
	copy(hdr, Int8Magic)
	binary.LittleEndian.PutUint32(hdr[8:], Int8FormatVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(f.Dim))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(f.Count))
	bw.Write(hdr)
	buf := make([]byte, 4)
	for _, s := range x.Scales {
		binary.LittleEndian.PutUint32(buf, math.Float32bits(s))
		bw.Write(buf)
	}
	bw.Write(make([]byte, pad(4*f.Count)))
	for _, c := range x.Codes {
		bw.WriteByte(byte(c))
	}
	total := int64(int8Header + 4*f.Count + pad(4*f.Count) + len(x.Codes))
	if err := bw.Flush(); err != nil { // a bufio.Writer keeps its first error: Flush reports it
		return 0, err
	}
	return total, nil
}

// ReadInt8 loads an int8 code file written by Int8.WriteTo for the float32 rows f: its header
// must say f's dim and count, its length must be exact, and every code must be in [-127, 127]
// (what quantization writes). Any mismatch is ErrFormat (wrapped), naming what differs.
func ReadInt8(r io.Reader, f *Flat) (*Int8, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	hdr := make([]byte, int8Header)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, fmt.Errorf("%w: int8 header: %w", ErrFormat, err)
	}
	if string(hdr[:8]) != Int8Magic {
		return nil, fmt.Errorf("%w: int8 magic %q", ErrFormat, hdr[:8])
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != Int8FormatVersion {
		return nil, fmt.Errorf("%w: int8 format version %d (this build reads %d)", ErrFormat, v, Int8FormatVersion)
	}
	dim, count := binary.LittleEndian.Uint32(hdr[12:]), binary.LittleEndian.Uint64(hdr[16:])
	if uint64(dim) != uint64(f.Dim) || count != uint64(f.Count) {
		return nil, fmt.Errorf("%w: int8 codes for %d × %d vectors, the float32 file has %d × %d", ErrFormat, count, dim, f.Count, f.Dim)
	}
	x := &Int8{Flat: f, Codes: make([]int8, f.Count*f.Dim), Scales: make([]float32, f.Count)}
	buf := make([]byte, max(4*f.Count+pad(4*f.Count), 1))
	if _, err := io.ReadFull(br, buf[:4*f.Count+pad(4*f.Count)]); err != nil {
		return nil, fmt.Errorf("%w: int8 scales: %w", ErrFormat, err)
	}
	for i := range x.Scales {
		s := math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		if s < 0 || math.IsInf(float64(s), 0) || math.IsNaN(float64(s)) {
			return nil, fmt.Errorf("%w: int8 scale of row %d is %v", ErrFormat, i, s)
		}
		x.Scales[i] = s
	}
	codes := make([]byte, 64<<10)
	for off := 0; off < len(x.Codes); {
		n, err := io.ReadFull(br, codes[:min(len(codes), len(x.Codes)-off)])
		if err != nil {
			return nil, fmt.Errorf("%w: int8 codes at row %d of %d: %w", ErrFormat, off/f.Dim, f.Count, err)
		}
		for j, c := range codes[:n] {
			if c == 0x80 { // -128: quantization never writes it (DotInt8's range is [-127, 127])
				return nil, fmt.Errorf("%w: int8 code -128 in row %d", ErrFormat, (off+j)/f.Dim)
			}
			x.Codes[off+j] = int8(c)
		}
		off += n
	}
	if n, _ := br.Read(buf[:1]); n != 0 {
		return nil, fmt.Errorf("%w: data after %d rows of int8 codes", ErrFormat, f.Count)
	}
	return x, nil
}
