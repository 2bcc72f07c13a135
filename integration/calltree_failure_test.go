package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shopLib is a library the program sets up, then fails deep in, with an atexit handler.
const shopLib = `import atexit

HANDLERS = []


def register(name):
    HANDLERS.append(name)
    return len(HANDLERS)


def configure(**opts):
    return {k: normalize(v) for k, v in opts.items()}


def normalize(v):
    return str(v).strip()


def prices(rows):
    for row in rows:
        yield parse(row)


def parse(row):
    name, price = row.split("=")
    return name, check(float(price))


def check(p):
    if p < 0:
        raise ValueError(f"negative price {p}")
    return p


def total(rows):
    return sum(p for _, p in prices(rows))


def goodbye():
    return len(HANDLERS)


atexit.register(goodbye)
`

// TestCallTreeLeadsToTheFailure records a program that sets a library up (a dozen calls), then
// fails four calls deep in it: the first call tree says where, shows the calls leading there
// past the depth limit and, of the program's many calls, the ones nearest the failure (the
// earlier ones counted where they were made), a generator with what it yielded, and sums up the
// call made at exit.
func TestCallTreeLeadsToTheFailure(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "shop"), 0o755))
	writeProgram(t, dir, "shop/__init__.py", shopLib)
	writeProgram(t, dir, "app.py", `import shop

cfg = shop.configure(currency="EUR", rounding=2, region="eu")
for name in "abcdefghijkl":
    shop.register(name)
print(shop.total(["x=1", "y=2"]))
print(shop.total(["x=1", "y=-3"]))
`)
	s := newSession(t, dir, "python app.py")
	assert.Equal(t, `Call tree of the run: 2 entry frames (depth 2, width 10):
Failed: ValueError: negative price -3.0, raised in shop:check#4 at line 31, 4 levels deep; the calls leading there are shown whatever the depth.
app:<module>#1() → raised ValueError (the failure)
  … imported shop: 1 call (call-tree shop:<module>#1 shows it)
  … 5 earlier calls (1 to configure, 4 to register), 8 with their callees
  shop:register#5(name='e') → 5
  shop:register#6(name='f') → 6
  shop:register#7(name='g') → 7
  shop:register#8(name='h') → 8
  shop:register#9(name='i') → 9
  shop:register#10(name='j') → 10
  shop:register#11(name='k') → 11
  shop:register#12(name='l') → 12
  shop:total#1(rows=['x=1', 'y=2']) → 3.0
    shop:prices#1(rows=['x=1', 'y=2']) → yielded 2 (last ('y', 2.0))  ⋯ 4 calls below
  shop:total#2(rows=['x=1', 'y=-3']) → raised ValueError (the failure)
    shop:prices#2(rows=['x=1', 'y=-3']) → raised ValueError (the failure)
      shop:parse#3(row='x=1') → ('x', 1.0)  ⋯ 1 call below
      shop:parse#4(row='y=-3') → raised ValueError (the failure)
        shop:check#4(p=-3.0) → raised ValueError (the failure)
… at exit (after the main module ended): 1 call to goodbye (adi call-tree shop:goodbye#1 shows it)
`, do(t, s, "call-tree").Text)
}
