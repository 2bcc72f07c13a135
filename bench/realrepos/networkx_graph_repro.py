"""networkx: weighted shortest paths over a 30 x 30 grid graph from two corners;
_dijkstra_multisource's frame holds the graph and dicts and a heap of thousands of entries."""
import networkx as nx

G = nx.grid_2d_graph(30, 30)
for i, (u, v) in enumerate(G.edges()):
    G[u][v]["weight"] = 1 + (i * 7) % 5
for source in [(0, 0), (29, 29)]:
    dist = nx.single_source_dijkstra_path_length(G, source)
    print(source, len(dist), sum(dist.values()))
