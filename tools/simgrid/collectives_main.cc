// mycel_simgrid_collectives: checks the strategy search's collective formulas
// (parallel/cost_model.h, collective_seconds) against SimGrid's simulation of the same
// algorithms, message by message, on a simulated cluster.
//
//   mycel_simgrid_collectives PLATFORM.xml KIND RANKS BYTES ALPHA BETA [ALGORITHMS]
//
// KIND is AllReduce, AllGather, ReduceScatter or AllToAll; RANKS (a power of 2) actors run on
// the first RANKS hosts of PLATFORM, each holding BYTES before the collective. Each of the two
// algorithms the model knows for KIND runs once, one after the other (a barrier between;
// ALGORITHMS "ring" or "tree" runs only that one, the other's simulated time printed as -1):
//   AllReduce      ring: 2(p-1) steps of s/p to the next rank; recursive doubling: log2 p
//                  exchanges of s with rank ^ 2^k
//   AllGather      ring: p-1 steps of s; recursive doubling: exchanges of 2^k s
//   ReduceScatter  ring: p-1 steps of s/p; recursive halving: exchanges of s / 2^(k+1)
//   AllToAll       pairwise: p-1 steps of s/p to rank + i; Bruck: log2 p steps of s/2
// Every step sends and receives at once (full duplex) and ends when both are done. Prints one
// JSON object: the model's seconds (ALPHA, BETA: the profile's latency and per-byte cost; the
// best of its algorithms, as the search uses it: for AllReduce also halving-doubling, which
// this tool does not simulate), each algorithm's formula and its simulated seconds. The platform's
// links carry the same α and β (bench/simgrid.py writes them), so a difference is what the formulas
// leave out: contention, the route's hops.
#include <simgrid/s4u.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "parallel/cost_model.h"

namespace {

using mycel::parallel::MoveKind;
namespace s4u = simgrid::s4u;

struct Step {
  int to, from;  // ranks sent to and received from
  double bytes;
};

int log2_exact(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

// The steps rank r takes in algorithm `alg` (0: ring/pairwise, 1: doubling/halving/Bruck).
std::vector<Step> steps_of(MoveKind kind, int alg, int r, int p, double s) {
  std::vector<Step> out;
  const int next = (r + 1) % p, prev = (r + p - 1) % p, lg = log2_exact(p);
  switch (kind) {
    case MoveKind::AllReduce:
      if (alg == 0)
        for (int i = 0; i < 2 * (p - 1); ++i) out.push_back({next, prev, s / p});
      else
        for (int k = 0; k < lg; ++k) out.push_back({r ^ (1 << k), r ^ (1 << k), s});
      break;
    case MoveKind::AllGather:
      if (alg == 0)
        for (int i = 0; i < p - 1; ++i) out.push_back({next, prev, s});
      else
        for (int k = 0; k < lg; ++k) out.push_back({r ^ (1 << k), r ^ (1 << k), s * (1 << k)});
      break;
    case MoveKind::ReduceScatter:
      if (alg == 0)
        for (int i = 0; i < p - 1; ++i) out.push_back({next, prev, s / p});
      else
        for (int k = 0; k < lg; ++k)
          out.push_back({r ^ (p >> (k + 1)), r ^ (p >> (k + 1)), s / (2 << k)});
      break;
    case MoveKind::AllToAll:
      if (alg == 0)
        for (int i = 1; i < p; ++i) out.push_back({(r + i) % p, (r + p - i) % p, s / p});
      else
        for (int k = 0; k < lg; ++k)
          out.push_back({(r + (1 << k)) % p, (r + p - (1 << k)) % p, s / 2});
      break;
    default:
      break;
  }
  return out;
}

struct Run {
  MoveKind kind;
  int ranks;
  double bytes;
  std::vector<s4u::Host*> hosts;
  s4u::BarrierPtr barrier;
  bool run[2] = {true, true};
  double start[2] = {1, 1}, end[2] = {0, 0};  // end - start: -1 when not run
};

int payload = 0;  // messages carry no data: their simulated size is what counts

void rank_main(Run* run, int r) {
  for (int alg = 0; alg < 2; ++alg) {
    if (!run->run[alg]) continue;
    run->barrier->wait();
    if (r == 0) run->start[alg] = s4u::Engine::get_clock();
    for (const Step& st : steps_of(run->kind, alg, r, run->ranks, run->bytes)) {
      s4u::Mailbox* out =
          s4u::Mailbox::by_name("to" + std::to_string(st.to) + "a" + std::to_string(alg));
      s4u::Mailbox* in =
          s4u::Mailbox::by_name("to" + std::to_string(r) + "a" + std::to_string(alg));
      s4u::CommPtr send = out->put_async(&payload, static_cast<uint64_t>(st.bytes));
      in->get<int>();
      send->wait();
    }
    run->barrier->wait();
    if (r == 0) run->end[alg] = s4u::Engine::get_clock();
  }
}

MoveKind kind_of(const std::string& k) {
  if (k == "AllReduce") return MoveKind::AllReduce;
  if (k == "AllGather") return MoveKind::AllGather;
  if (k == "ReduceScatter") return MoveKind::ReduceScatter;
  if (k == "AllToAll") return MoveKind::AllToAll;
  std::fprintf(stderr, "unknown collective '%s'\n", k.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  s4u::Engine engine(&argc, argv);  // takes SimGrid's own --cfg=... arguments out
  if (argc != 7 && argc != 8) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml KIND RANKS BYTES ALPHA BETA [ring|tree]\n",
                 argv[0]);
    return 2;
  }
  engine.load_platform(argv[1]);
  Run run{kind_of(argv[2]), std::atoi(argv[3]), std::atof(argv[4]), engine.get_all_hosts(),
          nullptr};
  const double alpha = std::atof(argv[5]), beta = std::atof(argv[6]);
  if (run.ranks < 2 || (run.ranks & (run.ranks - 1)) != 0 ||
      static_cast<size_t>(run.ranks) > run.hosts.size()) {
    std::fprintf(stderr, "RANKS must be a power of 2 of at most the platform's %zu hosts\n",
                 run.hosts.size());
    return 2;
  }
  if (argc == 8) {
    const std::string only = argv[7];
    if (only != "ring" && only != "tree") {
      std::fprintf(stderr, "ALGORITHMS must be ring or tree, not '%s'\n", argv[7]);
      return 2;
    }
    run.run[only == "ring" ? 1 : 0] = false;
  }
  run.barrier = s4u::Barrier::create(static_cast<unsigned>(run.ranks));
  for (int r = 0; r < run.ranks; ++r)
    s4u::Actor::create("rank" + std::to_string(r), run.hosts[static_cast<size_t>(r)], rank_main,
                       &run, r);
  engine.run();
  mycel::parallel::CostProfile prof;
  prof.alpha = alpha;
  prof.beta = beta;
  const double model = mycel::parallel::collective_seconds(run.kind, run.ranks, run.bytes, prof);
  // The model's first two algorithms are the two simulated here (AllReduce's third,
  // halving-doubling, is checked by bench/simgrid_bench.py against SMPI's).
  const std::vector<mycel::parallel::AlgorithmCost> algs =
      mycel::parallel::algorithm_seconds(run.kind, run.ranks, run.bytes, prof);
  const std::array<double, 2> alg = {algs[0].seconds, algs[1].seconds};
  std::printf(
      "{\"kind\": \"%s\", \"ranks\": %d, \"bytes\": %.17g, \"model_s\": %.17g, "
      "\"formula_s\": [%.17g, %.17g], \"simulated_s\": [%.17g, %.17g]}\n",
      argv[2], run.ranks, run.bytes, model, alg[0], alg[1], run.end[0] - run.start[0],
      run.end[1] - run.start[1]);
  return 0;
}
