package adi

import "testing"

func TestChangeText(t *testing.T) {
	d := detail{valueLimit: 30}
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Name: "global STOCK", Path: "['bolt']", Old: "7", New: "5", Kind: Modified}, "~ STOCK['bolt'] = 5 (was 7)  (global)"},
		{Change{Name: "global LOG", New: "'bolt'", Kind: Appended}, "~ LOG: appended 'bolt'  (global)"},
		{Change{Name: "global COUNT", New: "1", Kind: New}, "+ COUNT = 1  (global)"},
		{Change{Name: "d", Path: "[x]", Old: "0", New: "1", Kind: Modified}, "~ d[x] = 1 (was 0)"},
		// cut values that would read the same keep a window around their first difference
		{Change{Name: "item", Old: "(Symbol(name='x', _mhash=-3660683101604992230), Symbol(name='x'))",
			New: "(Symbol(name='x', _mhash=-3660683101604992230), Symbol(name='y'))", Kind: Modified},
			"~ item = …04992230), Symbol(name='y')) (was …04992230), Symbol(name='x')))"},
		// values that differ within the cut are cut as before
		{Change{Name: "s", Old: "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", New: "'b'", Kind: Modified},
			"~ s = 'b' (was 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa…)"},
	} {
		if got := d.changeText(tc.c); got != tc.want {
			t.Errorf("changeText(%+v)\n got %q\nwant %q", tc.c, got, tc.want)
		}
	}
}
