"""networkx: weighted shortest paths on a small grid graph (_dijkstra_multisource runs twice)."""
import networkx as nx

G = nx.grid_2d_graph(3, 3)
for u, v in G.edges:
    G.edges[u, v]["weight"] = 1 + (u[0] + v[1]) % 3
print(nx.dijkstra_path_length(G, (0, 0), (2, 2)))
print(sorted(nx.single_source_dijkstra_path_length(G, (1, 1)).items()))
