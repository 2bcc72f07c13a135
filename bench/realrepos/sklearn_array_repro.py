"""scikit-learn: fit and score a linear model on a 10,000 x 20 array twice; check_array's frame
holds the array (1.6 MB)."""
import numpy as np
from sklearn.linear_model import LinearRegression

rng = np.random.RandomState(0)
X = rng.rand(10000, 20)
y = X @ np.arange(20.0) + 1.0
for fit_intercept in (True, False):
    m = LinearRegression(fit_intercept=fit_intercept).fit(X, y)
    print(round(m.score(X, y), 6))
