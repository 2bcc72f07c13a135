"""scikit-learn: fit and score a linear model twice; check_array runs many times."""
import numpy as np
from sklearn.linear_model import LinearRegression

X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 2.0]])
y = np.array([1.0, 1.0, 3.0, 5.0])
for fit_intercept in (True, False):
    m = LinearRegression(fit_intercept=fit_intercept).fit(X, y)
    print(round(m.score(X, y), 6))
