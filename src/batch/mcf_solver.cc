// ream-mcf: the batch suite's stand-in for SPEC's 429.mcf/505.mcf_r — LEMON's network simplex
// (Debian's liblemon-dev), the algorithm mcf implements, on a DIMACS min-cost-flow file.
// A standalone program run by `ream batch mcf` like the packaged programs; it links nothing of ream.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <lemon/dimacs.h>
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ream-mcf NETWORK.min (DIMACS min-cost flow)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "ream-mcf: cannot open %s\n", argv[1]);
    return 1;
  }
  using Graph = lemon::SmartDigraph;
  Graph g;
  Graph::ArcMap<long long> lower(g), capacity(g), cost(g);
  Graph::NodeMap<long long> supply(g);
  try {
    lemon::readDimacsMin(in, g, lower, capacity, cost, supply);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ream-mcf: reading %s: %s\n", argv[1], e.what());
    return 1;
  }
  lemon::NetworkSimplex<Graph, long long, long long> simplex(g);
  simplex.lowerMap(lower).upperMap(capacity).costMap(cost).supplyMap(supply);
  auto result = simplex.run();
  if (result != lemon::NetworkSimplex<Graph, long long, long long>::OPTIMAL) {
    std::fprintf(stderr, "ream-mcf: no optimal flow (%s)\n",
                 result == lemon::NetworkSimplex<Graph, long long, long long>::INFEASIBLE ? "infeasible" : "unbounded");
    return 1;
  }
  std::printf("nodes %d arcs %d total cost %lld\n", lemon::countNodes(g), lemon::countArcs(g), simplex.totalCost());
  return 0;
}
