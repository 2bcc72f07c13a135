"""matplotlib: a simple line plot drawn with the Agg backend (MaxNLocator._raw_ticks picks ticks)."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
ax.plot([0, 1, 2], [0, 1, 4])
buf = io.BytesIO()
fig.savefig(buf, format="png")
print(buf.tell() > 0)
