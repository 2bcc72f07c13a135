"""networkx: weighted shortest paths from two sources; _dijkstra_multisource runs for each.

An unweighted breadth-first search over a grid comes first, so the two Dijkstra runs start after
adi's first run has used its eager FLT budget, and their FLTs need a re-run."""
import networkx as nx

grid = nx.grid_2d_graph(12, 12)
print(sum(nx.single_source_shortest_path_length(grid, (0, 0)).values()))

G = nx.Graph()
G.add_weighted_edges_from([(1, 2, 1.0), (2, 3, 2.0), (1, 3, 4.0), (3, 4, 1.0), (2, 4, 5.0)])
for source in (1, 4):
    print(source, sorted(nx.single_source_dijkstra_path_length(G, source).items()))
