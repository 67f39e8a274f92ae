// Step 13: GEMV over MPI ranks, in blocks of rows of row-major A (GRNET's MPI version, and the
// hybrid with OpenMP threads inside each rank). Rank 0 makes the problem; each product either
// scatters A again (the slides) or finds it resident on the ranks, so that only x and y move.
// Run it under mpiexec: mpiexec -n 4 step13_mpi --mode both.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cpu_step.hpp"
#include "gemv_mpi.hpp"
#include "mpi_session.hpp"
#include "report.hpp"
#include "timing.hpp"
#include "verify.hpp"

namespace {

// One mode's split of a product, each phase the slowest rank's.
struct Split {
    std::string mode;
    gemv::Stats compute, comm;
    std::uint64_t moved = 0;
};

using gemv::count_of;
using gemv::number;

// Ranks that share memory are one node: how many nodes the run spans, and on each node's first
// rank, how many ranks it holds and the bytes they need together.
struct NodeShare {
    int nodes = 1;
    bool first = true;
    int ranks_here = 1;
    std::uint64_t bytes_here = 0;
};

NodeShare share_nodes(MPI_Comm comm, std::uint64_t my_bytes) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    NodeShare share;
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &share.ranks_here);
    unsigned long long mine = my_bytes, here = 0;
    MPI_Reduce(&mine, &here, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, node);
    MPI_Comm_free(&node);
    share.first = node_rank == 0;
    share.bytes_here = here;
    const int first = share.first ? 1 : 0;
    MPI_Allreduce(&first, &share.nodes, 1, MPI_INT, MPI_SUM, comm);
    return share;
}

void print_split(std::ostream& out, const std::vector<Split>& splits) {
    out << "\nper product, the slowest rank's time in each phase (median of " << splits.front().compute.reps << "):\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : splits)
        rows.push_back(
            {s.mode, gemv::fixed(s.compute.median_ms * 1e3, 1), gemv::fixed(s.comm.median_ms * 1e3, 1),
             gemv::format_bytes(static_cast<double>(s.moved)) + (s.mode == "scatter" ? " (A, x, y)" : " (x, y)")});
    gemv::print_columns(out, {"mode", "compute [us]", "communication [us]", "moved between ranks"}, rows, {0, 3});
}

// What each rank will hold: its block, and on rank 0 the whole problem and its reference. The
// ranks of a node share its memory, so each node checks their sum before any rank allocates.
template <class T>
NodeShare check_node_memory(const gemv::Options& o, gemv::MpiSession& s) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const auto block = static_cast<std::uint64_t>(split_rows(m, s.ranks()).rows[s.rank()]);
    std::uint64_t bytes = block * static_cast<std::uint64_t>(n) * sizeof(T);  // within m*n*size, checked
    if (s.root()) bytes += gemv::model_bytes(m, n, sizeof(T)) + static_cast<std::uint64_t>(m) * 16;
    const NodeShare share = share_nodes(MPI_COMM_WORLD, bytes);
    s.every_rank([&] {
        if (share.first)
            gemv::require_host_memory(
                share.bytes_here, ("this problem (" + count_of(share.ranks_here, "rank") + " on this node)").c_str());
    });
    return share;
}

// What the products use: each rank's block, and on rank 0 the problem, y and the reference.
template <class T>
struct Ranks {
    gemv::HostProblem<T> p;  // rank 0 only
    gemv::HostArray<T> y;    // rank 0 only
    gemv::Reference ref;     // rank 0 only
    std::unique_ptr<RankData<T>> d;
    std::unique_ptr<gemv::CpuCacheScrubber> scrubber;
};

// Each rank allocates; rank 0 also makes the problem and its reference. A failure on any rank
// stops every rank here, before the products' collectives.
template <class T>
Ranks<T> set_up(const gemv::Options& o, gemv::MpiSession& s, LocalKernel local) {
    Ranks<T> r;
    s.every_rank([&] {
        r.d = std::make_unique<RankData<T>>(MPI_COMM_WORLD, o.shape.m, o.shape.n, local);
        if (s.root()) {
            r.p = gemv::make_problem<T>(o.shape, o.seed);
            r.y = gemv::HostArray<T>(static_cast<std::size_t>(o.shape.m));
            std::copy(r.p.x.begin(), r.p.x.end(), r.d->x.begin());
            if (o.verify) r.ref = gemv::compute_reference(r.p.A.data(), r.p.x.data(), o.shape);
        }
        if (o.cold) r.scrubber = std::make_unique<gemv::CpuCacheScrubber>();
    });
    return r;
}

// One mode's products, warm-up first: per timed product, the slowest rank's phases.
template <class T>
gemv::SlowestPhases time_products(const gemv::Options& o, gemv::MpiSession& s, Ranks<T>& r, bool scatter) {
    gemv::SlowestPhases t;
    for (int i = -o.warmup; i < o.reps; ++i) {
        if (s.root()) std::fill(r.y.begin(), r.y.end(), gemv::poison_value<T>());
        if (r.scrubber) r.scrubber->scrub();
        MPI_Barrier(MPI_COMM_WORLD);  // every rank starts the product together
        const PhaseTimes mine =
            scatter ? gemv_mpi_scatter(r.p.A.data(), *r.d, r.y.data()) : gemv_mpi_resident(*r.d, r.y.data());
        t.add(MPI_COMM_WORLD, mine.total_s, mine.compute_s, mine.comm_s, i >= 0);
    }
    return t;
}

// Rank 0 verifies the last product; every rank learns the outcome and ends with its code.
template <class T>
bool verified_on_root(const gemv::Options& o, const gemv::StepSpec& spec, gemv::MpiSession& s, const Ranks<T>& r,
                      const std::string& mode) {
    int ok = 1;
    s.every_rank([&] {
        if (!s.root() || !o.verify) return;
        const gemv::Verification v = gemv::verify(r.y.data(), r.ref, o.shape.n, gemv::RunsOn::mpi);
        ok = v.ok ? 1 : 0;
        if (!v.ok) std::cerr << "step " << spec.number << " " << mode << ": " << v.message << "\n";
    });
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok == 1;
}

// How the run was spread: ranks, threads in each, and nodes.
struct Spread {
    int ranks = 1, threads = 1;
    NodeShare share;
};

gemv::Result mode_result(const gemv::Options& o, const gemv::StepSpec& spec, const Spread& spread, const Split& split,
                         const gemv::SlowestPhases& t, bool ok) {
    const bool scatter = split.mode == "scatter";
    gemv::Result r =
        gemv::result_of(spec, o, scatter ? "scatter A, bcast x, gather y" : "A resident, bcast x, gather y");
    r.time = gemv::summarize(t.total_ms);
    r.traffic = gemv::traffic_x_per_row(o.shape.m, o.shape.n);  // each rank's loop, as in steps 01 and 02
    r.launch = count_of(spread.ranks, "rank") + " x " + count_of(spread.threads, "thread") +
               (spread.share.nodes > 1 ? ", " + count_of(spread.share.nodes, "node") : "") + ", " + split.mode;
    r.verified = ok;
    r.extra = {{"mode", split.mode, false},
               {"local", o.text("local"), false},
               {"ranks", std::to_string(spread.ranks), true},
               {"nodes", std::to_string(spread.share.nodes), true},
               {"threads_per_rank", std::to_string(spread.threads), true},
               {"compute_ms", number(split.compute.median_ms), true},
               {"comm_ms", number(split.comm.median_ms), true},
               {"moved_bytes", std::to_string(split.moved), true}};
    return r;
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec, gemv::MpiSession& s) {
    require_mpi_counts(o.shape.m, o.shape.n);  // the same verdict on every rank, before any collective
    const LocalKernel local = o.text("local") == "omp" ? LocalKernel::omp : LocalKernel::loop;
    Spread spread;
    spread.ranks = s.ranks();
    spread.threads = local == LocalKernel::omp ? omp_get_max_threads() : 1;
    spread.share = check_node_memory<T>(o, s);
    Ranks<T> r = set_up<T>(o, s, local);

    const std::string which = o.text("mode");
    const std::vector<std::string> modes =
        which == "both" ? std::vector<std::string>{"scatter", "resident"} : std::vector<std::string>{which};
    std::vector<gemv::Result> results;
    std::vector<Split> splits;
    bool all_ok = true;
    for (const std::string& mode : modes) {
        const bool scatter = mode == "scatter";
        if (!scatter) scatter_rows(r.p.A.data(), *r.d);  // A goes to its ranks once, outside the timed products
        const gemv::SlowestPhases t = time_products(o, s, r, scatter);
        const bool ok = verified_on_root(o, spec, s, r, mode);
        all_ok &= ok;
        if (!s.root()) continue;
        const Split split{mode, gemv::summarize(t.compute_ms), gemv::summarize(t.comm_ms),
                          bytes_between_ranks(r.d->blocks, o.shape.n, sizeof(T), scatter)};
        results.push_back(mode_result(o, spec, spread, split, t, ok));
        splits.push_back(split);
    }
    s.every_rank([&] {
        if (s.root()) gemv::set_cpu_ceiling(results);  // of rank 0's node alone
    });
    if (s.root()) {
        gemv::print_results(std::cout, o.format, gemv::cpu_metadata(), results);
        if (o.format == gemv::Format::table) print_split(std::cout, splits);
    }
    return all_ok ? gemv::kExitOk : gemv::kExitWrong;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::MpiSession session(&argc, &argv);
    gemv::StepSpec spec;
    spec.number = "13";
    spec.name = "mpi";
    spec.title = "MPI: blocks of rows over ranks; A scattered on every product, or resident so only x and y move";
    spec.default_m = spec.default_n = 2048;
    spec.default_reps = 5;
    spec.options = {
        gemv::choice_option("mode", "scatter: A on every product; resident: A once, then x and y", "both",
                            {"scatter", "resident", "both"}),
        gemv::choice_option("local", "each rank's product: step 01's loop, or step 02's OpenMP loop (hybrid)", "loop",
                            {"loop", "omp"})};
    return session.run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return o.precision == gemv::Precision::f32 ? run<float>(o, spec, session) : run<double>(o, spec, session);
    });
}
