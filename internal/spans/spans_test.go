package spans

import "testing"

func TestBytes(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{0, 0}, {1, 16}, {16, 16}, {17, 32}, {768, 1024}, {4600, 8192}, {8192, 8192},
		{8193, 16384}, {13568, 16384}, {24576, 24576}, {70080, 73728},
	} {
		if got := Bytes(c.in); got != c.want {
			t.Errorf("Bytes(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestLen(t *testing.T) {
	type list struct{ a, b, c, d, e, f uint64 } // 48 bytes
	for _, c := range []struct{ in, want int }{
		{0, 0}, {16, 21}, {256, 341}, {1000, 1024},
	} {
		if got := Len[list](c.in); got != c.want {
			t.Errorf("Len[48-byte](%d) = %d, want %d", c.in, got, c.want)
		}
	}
	if got := Len[int32](2191); got != 4096 {
		t.Errorf("Len[int32](2191) = %d, want 4096", got)
	}
}
