// Package spans sizes the long-lived blocks a recording is cut from (the reader's slabs and
// the chunks of its interned strings) so that each fills the memory the Go allocator gives it.
//
// The allocator serves a request of up to 32 kB from a span of its size class, a few pages that
// hold several blocks of that class; a span stays in use, and resident, while any of its blocks
// lives. A recording's blocks are made among the garbage of its decoding (about ten times their
// size), so a block of, say, 13.25 kB kept for hours pins a 40 kB span whose other two blocks
// were garbage: networkx's session held 491 kB of spans for 250 kB of blocks. A block whose
// size is a power of two up to 8 kB divides its span's pages exactly, and one of a multiple of
// 8 kB has a span (or large allocation) of its own: a block of such a size leaves no part of a
// span that only another block of the same size can use.
//
// The package holds no state and runs no goroutines.
package spans

import "unsafe"

// page is the allocator's page, the unit of its spans.
const page = 8192

// Bytes is the size of a block of at least b bytes that fills its span: b rounded up to a power
// of two when it is at most a page, else to a multiple of a page.
func Bytes(b int) int {
	if b <= 0 {
		return 0
	}
	if b > page {
		return (b + page - 1) / page * page
	}
	n := 16 // the smallest block that is not a tiny allocation
	for n < b {
		n *= 2
	}
	return n
}

// Len is how many elements of T a block of Bytes(n elements) holds: at least n.
func Len[T any](n int) int {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size == 0 || n <= 0 {
		return n
	}
	return max(Bytes(n*size)/size, n)
}
