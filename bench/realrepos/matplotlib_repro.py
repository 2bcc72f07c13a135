"""matplotlib: draw a line plot into memory twice; Affine2D.rotate runs more than once."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

for k in (1, 2):
    fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
    ax.plot([0, 1, 2], [0, k, 4 * k])
    ax.set_title("k=%d" % k)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    print(k, buf.tell() > 0)
