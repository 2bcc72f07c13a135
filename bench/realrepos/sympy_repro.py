"""sympy: factor two polynomials; dup_zz_factor runs for each."""
from sympy import factor, symbols

x = symbols("x")
print(factor(x**4 - 1))
print(factor(x**3 - 2*x**2 - x + 2))
