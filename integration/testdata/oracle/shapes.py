"""Real-shaped programs for the ΔS oracle (integration/oracle_test.go): each function is one frame
the oracle (probe/python/tests/oracle.py) and adi record, and their changes are compared."""
import itertools

LONG = {"commutative": True, "real": True, "finite": True, "infinite": False, "complex": True,
        "hermitian": True, "imaginary": False, "extended_real": True}


class Sym:
    """A symbol like sympy's: slots, a name, a cache of facts filled as they are asked."""
    __slots__ = ("name", "facts", "_hash")

    def __init__(self, name):
        self.name = name
        self.facts = dict(LONG)
        self._hash = None

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self.name)
        return self._hash

    def __eq__(self, other):
        return type(other) is Sym and other.name == self.name

    def __ne__(self, other):
        self.facts["zero"] = False  # asking fills the cache, as sympy's assumptions do
        return not self == other


def tuples_rebound(n):
    """A loop variable rebound to new tuples of the same objects (sympy's itermonomials)."""
    x, y = Sym("x"), Sym("y")
    seen = []
    for item in itertools.combinations_with_replacement([x, y], n):
        seen.append(len(item))
    return seen


def keys_with_cache(n):
    """Objects used as dict keys whose attributes change while they are keys."""
    x, y = Sym("x"), Sym("y")
    powers = {v: 0 for v in (x, y)}
    for item in itertools.combinations_with_replacement([x, y], n):
        for v in item:
            if v != 1:
                powers[v] += 1
    return sum(powers.values())


class Counter:
    def __init__(self):
        self.count = 0
        self.history = []


def aliases():
    """One object reached through several variables and containers; one write each time."""
    c = Counter()
    same = c
    pair = [c, c]
    holder = {"c": c}
    c.count += 1
    same.history.append("one")
    pair[0].count = 5
    nums = [1, 2]
    view = nums
    nums.append(3)
    nums = [1, 2, 3]
    return same.count + holder["c"].count


COUNTS = {"calls": 0}
LOG = []


class State:
    def __init__(self):
        self.n = 0


STATE = State()
TOTAL = 0


def module_globals(k):
    """Module-level state: written through a global statement, and mutated without one."""
    global TOTAL, COUNTS
    TOTAL += k
    COUNTS["calls"] += 1
    COUNTS["last"] = k
    LOG.append(k)
    STATE.n += k
    local = TOTAL * 2
    return local


def nested_text():
    """A nested value whose text is cut at the repr limit: changes elsewhere move the cut."""
    cfg = {"name": "n" * 120, "inner": {"a": 1, "b": "y" * 60, "c": [1, 2, 3]}, "tail": [0]}
    cfg["name"] = "short"
    cfg["tail"].append(1)
    cfg["inner"]["a"] = 2
    rows = [{"id": i, "tags": ["t" * 30, "u" * 30]} for i in range(3)]
    rows[0]["id"] = 10
    rows.insert(0, {"id": -1, "tags": []})
    return cfg, rows


def walk_cut():
    """A value near adi's walk bound: growing its first part moves where the walk stops, so a
    later part that did not change reads differently."""
    data = {"log": [{"i": i, "tags": ["a"]} for i in range(505)],
            "conf": {"name": "c", "opts": {"x": {"deep": 1}}}}
    for i in range(10):
        data["log"].append({"i": -i, "tags": ["c"]})
    data["conf"]["name"] = "d"
    return len(data["log"])


def misc(n):
    """Assorted statements: a while loop, del, a rebinding to an equal list, a set, try/except."""
    acc = []
    seen = set()
    i = 0
    while i < n:
        acc.append(i * i)
        seen.add(i % 2)
        i += 1
    copy = list(acc)
    copy = list(acc)
    del copy
    try:
        acc[10] = 1
    except IndexError:
        acc[-1] = -1
    grid = [[0] * 3 for _ in range(2)]
    grid[1][2] = 7
    pairs = {(0, 0): "a", (0, 1): "b"}
    pairs[(0, 1)] += "!"
    return acc, seen, grid


def gen(n):
    """A generator: its steps between yields."""
    total = 0
    for i in range(n):
        total += i
        yield total
    return total


def main():
    tuples_rebound(3)
    keys_with_cache(3)
    aliases()
    module_globals(2)
    module_globals(3)
    nested_text()
    walk_cut()
    misc(4)
    print(sum(gen(3)))


main()
