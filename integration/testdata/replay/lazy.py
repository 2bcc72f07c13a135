"""A lazy proxy whose __class__ evaluates it, and a __repr__ that prints: looking changes it."""


class Lazy:
    def __init__(self, factory):
        self._factory = factory
        self._value = None

    @property
    def __class__(self):
        if self._value is None:
            self._value = self._factory()
        return type(self._value)

    def __repr__(self):
        print("repr called")
        return "Lazy"


def make():
    print("evaluated")
    return 42


def use(obj):
    print("using")
    return obj._value


proxy = Lazy(make)
print(use(proxy))
print(isinstance(proxy, int))
