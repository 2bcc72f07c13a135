# sympy__sympy-18189: diophantine(..., syms=..., permute=True) depends on the order of syms.
from sympy import symbols
from sympy.solvers.diophantine import diophantine

m, n = symbols("m n", integer=True)
EQ = n**4 + m**4 - 2**4 - 3**4


def solutions(syms):
    return diophantine(EQ, syms=syms, permute=True)


def main():
    by_mn = solutions((m, n))
    by_nm = solutions((n, m))
    print("syms=(m, n):", sorted(by_mn))
    print("syms=(n, m):", sorted(by_nm))
    print("same solutions:", len(by_mn) == len(by_nm))


main()
