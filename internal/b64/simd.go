//go:build goexperiment.simd && amd64

package b64

import (
	"simd/archsimd"
	"unsafe"
)

// The vector kernels follow Wojciech Muła and Daniel Lemire, "Faster Base64
// Encoding and Decoding Using AVX2 Instructions" (ACM TWEB, 2018): the
// bytes of each group of three are spread over four, the four 6-bit values
// moved into place with two multiplications of 16-bit lanes, and the values
// turned into characters by table lookups. The AVX-512 VBMI kernel looks
// up the 64 characters with one byte permutation.

// vectorKernels are the kernels this CPU can run, fastest first.
var vectorKernels = func() []vectorKernel {
	var ks []vectorKernel
	if archsimd.X86.AVX512VBMI() {
		ks = append(ks, vectorKernel{"avx512vbmi", encodeVBMI, checkVBMI, runVBMI})
	}
	if archsimd.X86.AVX2() {
		ks = append(ks, vectorKernel{"avx2", encodeAVX2, checkAVX2, runAVX2})
	}
	return ks
}()

// useVBMI and useAVX2 say which kernel encodeVector and checkVector call.
var useVBMI, useAVX2 = archsimd.X86.AVX512VBMI(), archsimd.X86.AVX2()

// encodeVector encodes with the fastest kernel this CPU has (see [Encode]).
func encodeVector(dst, src []byte) (read, written int) {
	switch {
	case useVBMI:
		return encodeVBMI(dst, src)
	case useAVX2:
		return encodeAVX2(dst, src)
	}
	return 0, 0
}

// checkVector checks with the fastest kernel this CPU has (see [Check]).
func checkVector(s string) (checked int, ok bool) {
	switch {
	case useVBMI:
		return checkVBMI(s)
	case useAVX2:
		return checkAVX2(s)
	}
	return 0, true
}

// VectorRuns says whether [Run] reads with a vector kernel, many times
// faster than it copies: with one of this CPU.
var VectorRuns = useVBMI || useAVX2

// runVector returns the length of the run of whole blocks of the standard
// alphabet at the start of b that the fastest kernel of this CPU finds (see
// [Run]): up to the block that holds the first byte outside it.
func runVector(b []byte) int {
	switch {
	case useVBMI:
		return runVBMI(b)
	case useAVX2:
		return runAVX2(b)
	}
	return 0
}

// spread64 spreads each group of three input bytes a, b, c over four: b, a,
// c, b, so that each 32-bit lane holds the 24 bits of one group.
var spread64 = func() (t [64]uint8) {
	for g := range 16 {
		t[4*g], t[4*g+1], t[4*g+2], t[4*g+3] = uint8(3*g+1), uint8(3*g), uint8(3*g+2), uint8(3*g+1)
	}
	return t
}()

// spread32 is spread64 for each 16-byte half of a 256-bit vector, which
// holds four groups.
var spread32 = func() (t [32]int8) {
	for i := range t {
		t[i] = int8(spread64[i%16])
	}
	return t
}()

// alphabet64 is the standard alphabet, as the table of a byte permutation.
var alphabet64 = func() (t [64]uint8) {
	copy(t[:], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
	return t
}()

// offsets32 holds, for each 16-byte half of a 256-bit vector, what is added
// to a 6-bit value to make its character, by the class encodeAVX2 gives it:
// 13 for A-Z, 0 for a-z, 1 to 10 for digits, 11 for '+', 12 for '/'.
var offsets32 = func() (t [32]int8) {
	half := [16]int8{'a' - 26, 11: '+' - 62, 12: '/' - 63, 13: 'A'}
	for i := 1; i <= 10; i++ {
		half[i] = '0' - 52
	}
	copy(t[:], half[:])
	copy(t[16:], half[:])
	return t
}()

// invalid128 maps each ASCII byte to 0x80 if it is outside the standard
// alphabet, else to 0.
var invalid128 = func() (t [128]uint8) {
	for c := range t {
		if b64Value[c] == 0xff {
			t[c] = 0x80
		}
	}
	return t
}()

// nibbleLo and nibbleHi classify a byte by its low and its high four bits,
// in each 16-byte half of a 256-bit vector: a byte is in the standard
// alphabet if and only if its two classes share no bit (Muła and Lemire's
// tables, which TestVectorKernels checks for every byte).
var nibbleLo, nibbleHi = func() (lo, hi [32]int8) {
	l := [16]int8{0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1a, 0x1b, 0x1b, 0x1b, 0x1a}
	h := [16]int8{0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10}
	copy(lo[:], l[:])
	copy(lo[16:], l[:])
	copy(hi[:], h[:])
	copy(hi[16:], h[:])
	return lo, hi
}()

// sixBits are the constants of the two multiplications that move the four
// 6-bit values of each 32-bit lane, as spread64 leaves them, into one byte
// each, in the order they are written: the values the first one moves are
// masked by mask0 and multiplied by mul0, keeping the high 16 bits of each
// product, the others by mask1 and mul1, keeping the low.
const (
	sixBitsMask0 = 0x0fc0fc00
	sixBitsMul0  = 0x04000040
	sixBitsMask1 = 0x003f03f0
	sixBitsMul1  = 0x01000010
)

// encodeVBMI encodes 48 bytes into 64 characters at a time, while 48 bytes
// are left.
func encodeVBMI(dst, src []byte) (read, written int) {
	spread := archsimd.LoadUint8x64(&spread64)
	alphabet := archsimd.LoadUint8x64(&alphabet64)
	mask0 := archsimd.BroadcastUint32x16(sixBitsMask0).AsUint8x64()
	mul0 := archsimd.BroadcastUint32x16(sixBitsMul0).AsUint16x32()
	mask1 := archsimd.BroadcastUint32x16(sixBitsMask1).AsUint8x64()
	mul1 := archsimd.BroadcastUint32x16(sixBitsMul1).AsUint16x32()
	// Two blocks a turn while both can be loaded whole: the loads of the
	// second overlap the work of the first.
	for len(src) >= 112 && len(dst) >= 128 {
		v0 := archsimd.LoadUint8x64Slice(src).Permute(spread)
		v1 := archsimd.LoadUint8x64Slice(src[48:]).Permute(spread)
		i0 := v0.And(mask0).AsUint16x32().MulHigh(mul0).Or(v0.And(mask1).AsUint16x32().Mul(mul1)).AsUint8x64()
		i1 := v1.And(mask0).AsUint16x32().MulHigh(mul0).Or(v1.And(mask1).AsUint16x32().Mul(mul1)).AsUint8x64()
		alphabet.Permute(i0).StoreSlice(dst)
		alphabet.Permute(i1).StoreSlice(dst[64:])
		src, dst = src[96:], dst[128:]
		read += 96
		written += 128
	}
	for len(src) >= 48 && len(dst) >= 64 {
		// The last block may be all of src: it is loaded masked.
		var v archsimd.Uint8x64
		if len(src) >= 64 {
			v = archsimd.LoadUint8x64Slice(src)
		} else {
			v = archsimd.LoadUint8x64SlicePart(src[:48])
		}
		v = v.Permute(spread)
		idx := v.And(mask0).AsUint16x32().MulHigh(mul0).Or(v.And(mask1).AsUint16x32().Mul(mul1)).AsUint8x64()
		alphabet.Permute(idx).StoreSlice(dst)
		src, dst = src[48:], dst[64:]
		read += 48
		written += 64
	}
	archsimd.ClearAVXUpperBits()
	return read, written
}

// encodeAVX2 encodes 24 bytes into 32 characters at a time, while 24 bytes
// are left: 16 loaded into each half of a vector, 12 apart.
func encodeAVX2(dst, src []byte) (read, written int) {
	spread := archsimd.LoadInt8x32(&spread32)
	offsets := archsimd.LoadInt8x32(&offsets32).AsUint8x32()
	mask0 := archsimd.BroadcastUint32x8(sixBitsMask0).AsUint8x32()
	mul0 := archsimd.BroadcastUint32x8(sixBitsMul0).AsUint16x16()
	mask1 := archsimd.BroadcastUint32x8(sixBitsMask1).AsUint8x32()
	mul1 := archsimd.BroadcastUint32x8(sixBitsMul1).AsUint16x16()
	sub := archsimd.BroadcastUint8x32(51)
	upper := archsimd.BroadcastInt8x32(26)
	class := archsimd.BroadcastUint8x32(13)
	for len(src) >= 24 && len(dst) >= 32 {
		// The last block may be all of src: its second half is loaded
		// masked.
		var v archsimd.Uint8x32
		v = v.SetLo(archsimd.LoadUint8x16Slice(src))
		if len(src) >= 28 {
			v = v.SetHi(archsimd.LoadUint8x16Slice(src[12:]))
		} else {
			v = v.SetHi(archsimd.LoadUint8x16SlicePart(src[12:24]))
		}
		v = v.PermuteOrZeroGrouped(spread)
		idx := v.And(mask0).AsUint16x16().MulHigh(mul0).Or(v.And(mask1).AsUint16x16().Mul(mul1)).AsUint8x32()
		// Classes: 0 for a-z (26-51), 1-12 for digits, '+' and '/'
		// (52-63), 13 for A-Z (0-25).
		c := idx.SubSaturated(sub).Or(class.Masked(upper.Greater(idx.AsInt8x32())))
		idx.Add(offsets.PermuteOrZeroGrouped(c.AsInt8x32())).StoreSlice(dst)
		src, dst = src[24:], dst[32:]
		read += 24
		written += 32
	}
	archsimd.ClearAVXUpperBits()
	return read, written
}

// bytesOf returns the bytes of s, to load, never to change.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// checkVBMI checks 64 bytes at a time: the table lookup of each byte's low
// seven bits, ORed with the byte, has its high bit set for any byte outside
// the alphabet.
func checkVBMI(s string) (checked int, ok bool) {
	b := bytesOf(s)
	lo := archsimd.LoadUint8x64((*[64]uint8)(invalid128[:64]))
	hi := archsimd.LoadUint8x64((*[64]uint8)(invalid128[64:]))
	var acc archsimd.Uint8x64
	for ; len(b)-checked >= 64; checked += 64 {
		v := archsimd.LoadUint8x64Slice(b[checked:])
		acc = acc.Or(lo.ConcatPermute(hi, v)).Or(v)
	}
	high := acc.GetLo().Or(acc.GetHi()).And(archsimd.BroadcastUint8x32(0x80))
	ok = high.IsZero()
	archsimd.ClearAVXUpperBits()
	return checked, ok
}

// runVBMI is checkVBMI, 64 bytes at a time, up to the first block that
// holds a byte outside the alphabet: a lane whose lookup ORed with the byte
// has the high bit set, which makes it negative.
func runVBMI(b []byte) int {
	lo := archsimd.LoadUint8x64((*[64]uint8)(invalid128[:64]))
	hi := archsimd.LoadUint8x64((*[64]uint8)(invalid128[64:]))
	var zero archsimd.Int8x64
	i := 0
	for ; len(b)-i >= 64; i += 64 {
		v := archsimd.LoadUint8x64Slice(b[i:])
		if lo.ConcatPermute(hi, v).Or(v).AsInt8x64().Less(zero).ToBits() != 0 {
			break
		}
	}
	archsimd.ClearAVXUpperBits()
	return i
}

// runAVX2 is checkAVX2, 32 bytes at a time, up to the first block that
// holds a byte outside the alphabet.
func runAVX2(b []byte) int {
	lo := archsimd.LoadInt8x32(&nibbleLo).AsUint8x32()
	hi := archsimd.LoadInt8x32(&nibbleHi).AsUint8x32()
	low4 := archsimd.BroadcastUint8x32(0x0f)
	i := 0
	for ; len(b)-i >= 32; i += 32 {
		v := archsimd.LoadUint8x32Slice(b[i:])
		l := v.And(low4).AsInt8x32()
		h := v.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low4).AsInt8x32()
		if !lo.PermuteOrZeroGrouped(l).And(hi.PermuteOrZeroGrouped(h)).IsZero() {
			break
		}
	}
	archsimd.ClearAVXUpperBits()
	return i
}

// checkAVX2 checks 32 bytes at a time by the classes of their two halves.
func checkAVX2(s string) (checked int, ok bool) {
	b := bytesOf(s)
	lo := archsimd.LoadInt8x32(&nibbleLo).AsUint8x32()
	hi := archsimd.LoadInt8x32(&nibbleHi).AsUint8x32()
	low4 := archsimd.BroadcastUint8x32(0x0f)
	var acc archsimd.Uint8x32
	for ; len(b)-checked >= 32; checked += 32 {
		v := archsimd.LoadUint8x32Slice(b[checked:])
		l := v.And(low4).AsInt8x32()
		h := v.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low4).AsInt8x32()
		acc = acc.Or(lo.PermuteOrZeroGrouped(l).And(hi.PermuteOrZeroGrouped(h)))
	}
	ok = acc.IsZero()
	archsimd.ClearAVXUpperBits()
	return checked, ok
}
