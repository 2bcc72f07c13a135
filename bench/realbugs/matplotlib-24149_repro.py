# matplotlib__matplotlib-24149: Axes.bar raises StopIteration when every x is nan (3.6.0).
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def draw_counts(ax, xs, counts):
    return ax.bar(xs, counts, width=0.8)


def main():
    fig, ax = plt.subplots()
    draw_counts(ax, [1.0, 2.0], [3, 4])
    # a day with no measurements: both nan, as seaborn's histplot passes them
    draw_counts(ax, [np.nan], [np.nan])
    print("drew", len(ax.patches), "bars")


main()
