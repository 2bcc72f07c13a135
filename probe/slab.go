package probe

import "github.com/adi-bridge/adi/internal/spans"

// slab hands out the elements a recording keeps (argument lists, their Args, Outcomes)
// cut from chunks of its own: one allocation for many of them, and none of them among the
// decoding's garbage, where each would pin a span for as long as the trace lives. The chunks
// grow geometrically, from 16 elements to max, by half again each time, each rounded up to fill
// its span (spans.Len: a chunk of 13 kB would pin a 40 kB span whose other two blocks were the
// decoding's garbage): a small recording (a session of a few calls) does not keep a big chunk it
// barely uses and a big one makes few allocations. What the last chunk leaves unused is a third
// of the slab at most once chunks are whole pages; below 8 kB the rounding to a power of two
// makes them double, and the last may leave half of a small slab unused. Elements are never
// handed out twice, so what holds them may keep them for good.
type slab[T any] struct {
	free []T // the free end of the current chunk
	size int // the size of the last chunk made (0: none yet)
}

// firstChunk is the size of a slab's first chunk.
const firstChunk = 16

// take returns n new elements, from the current chunk or a new one of up to most elements (or n,
// if more).
func (s *slab[T]) take(n, most int) []T {
	if len(s.free) < n {
		s.size = spans.Len[T](max(min(s.size+s.size/2, most), firstChunk, n))
		s.free = make([]T, s.size)
	}
	e := s.free[:n:n]
	s.free = s.free[n:]
	return e
}
