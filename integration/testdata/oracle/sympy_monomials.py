"""sympy: factor a polynomial, then the monomials of degree up to 3 in x and y (itermonomials'
loop variable is a new tuple of the same symbols each iteration; its dict is keyed by symbols
whose caches fill)."""
from sympy import factor, symbols
from sympy.polys.monomials import itermonomials

x, y = symbols("x y")
print(factor(x**4 - 1))
print(sorted(itermonomials([x, y], 3), key=str))
