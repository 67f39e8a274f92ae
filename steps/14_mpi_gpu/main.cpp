// Step 14: GEMV over MPI ranks with one GPU each, in blocks of rows (GRNET's hybrid MPI +
// multi-GPU cuBLAS version), each block multiplied by cuBLAS and by step 11's kernel. A stays on
// the GPUs; a product broadcasts x and gathers y, through host memory or, where the MPI library
// is CUDA-aware, straight from GPU memory. Run it under mpiexec: mpiexec -n 2 step14_mpi_gpu.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "gemv_mpi_gpu.hpp"
#include "gpu_step.hpp"
#include "mpi_session.hpp"
#include "report.hpp"
#include "verify.hpp"

namespace {

using gemv::count_of;
using gemv::fixed;
using gemv::number;

// The sum of mine over the ranks of comm that share a color (collective over comm), and whether
// this rank is the first of them: the one that checks the sum.
struct GroupSum {
    bool first = true;
    int members = 1;
    double sum = 0;
};

GroupSum sum_within(MPI_Comm comm, int color, double mine) {
    MPI_Comm group;
    MPI_Comm_split(comm, color, 0, &group);
    GroupSum g;
    int rank = 0;
    MPI_Comm_rank(group, &rank);
    MPI_Comm_size(group, &g.members);
    MPI_Allreduce(&mine, &g.sum, 1, MPI_DOUBLE, MPI_SUM, group);
    MPI_Comm_free(&group);
    g.first = rank == 0;
    return g;
}

std::uint64_t bytes_of(double b) {
    return b >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(b);
}

// What each rank reports about itself once: where it runs, and its rows.
struct RankInfo {
    std::string where;
    int rows = 0;
};

std::vector<RankInfo> gather_rank_info(MPI_Comm comm, const LocalDevice& dev, const gemv::DeviceFacts& facts,
                                       int rows) {
    constexpr int kChars = 160;
    char mine[kChars] = {};
    std::snprintf(mine, kChars, "%s, GPU %d (%s)", dev.host.c_str(), dev.device, facts.name.c_str());
    int ranks = 1, rank = 0;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &rank);
    std::vector<char> all(rank == 0 ? static_cast<std::size_t>(ranks) * kChars : 0);
    std::vector<int> all_rows(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
    MPI_Gather(mine, kChars, MPI_CHAR, all.data(), kChars, MPI_CHAR, 0, comm);
    MPI_Gather(&rows, 1, MPI_INT, all_rows.data(), 1, MPI_INT, 0, comm);
    std::vector<RankInfo> info;
    for (int r = 0; rank == 0 && r < ranks; ++r)
        info.push_back({std::string(&all[std::size_t(r) * kChars]), all_rows[std::size_t(r)]});
    return info;
}

// One kernel's measurements: per product the slowest rank's phases, and each rank's own median
// compute time (rank 0 holds them all).
struct KernelRun {
    LocalKernel kernel;
    gemv::Stats total, compute, comm;
    std::vector<double> rank_compute_ms;
};

double rank_gbps(const RankInfo& r, std::int64_t n, std::size_t elem, double compute_ms) {
    if (r.rows == 0 || compute_ms <= 0) return 0;
    return static_cast<double>(gemv::model_bytes(r.rows, n, elem)) / (compute_ms * 1e6);
}

void print_phases(std::ostream& out, Transfer transfer, const CudaAwareness& awareness,
                  const std::vector<KernelRun>& runs, const std::vector<RankInfo>& ranks, std::int64_t n,
                  std::size_t elem) {
    out << "\ntransfers: " << to_string(transfer) << " ("
        << (transfer == Transfer::host ? "x: MPI_Bcast to pinned host memory, cudaMemcpy to each GPU; y: cudaMemcpy "
                                         "to pinned host memory, MPI_Gatherv"
                                       : "MPI_Bcast and MPI_Gatherv on GPU memory")
        << "); the MPI library: " << awareness.how << "\n";
    out << "\nper product, the slowest rank's time in each phase (median of " << runs.front().total.reps << "):\n";
    std::vector<std::vector<std::string>> phases;
    for (const auto& r : runs)
        phases.push_back({to_string(r.kernel), fixed(r.total.median_ms * 1e3, 1), fixed(r.compute.median_ms * 1e3, 1),
                          fixed(r.comm.median_ms * 1e3, 1),
                          fixed(100 * r.comm.median_ms / r.total.median_ms, 1) + "%"});
    gemv::print_columns(out, {"kernel", "total [us]", "GPU compute [us]", "communication [us]", "comm share"}, phases,
                        {0});

    out << "\nper GPU: its block's bytes (its rows of A, x, its rows of y) over its median compute time:\n";
    std::vector<std::string> head = {"rank", "where", "rows"};
    for (const auto& run : runs) {
        head.push_back(std::string(to_string(run.kernel)) + " [us]");
        head.push_back("GB/s");
    }
    std::vector<std::vector<std::string>> per_gpu;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
        std::vector<std::string> row = {std::to_string(k), ranks[k].where, std::to_string(ranks[k].rows)};
        for (const auto& run : runs) {
            const double ms = run.rank_compute_ms[k];
            row.push_back(ranks[k].rows ? fixed(ms * 1e3, 1) : "-");
            row.push_back(ranks[k].rows ? fixed(rank_gbps(ranks[k], n, elem, ms), 1) : "-");
        }
        per_gpu.push_back(row);
    }
    gemv::print_columns(out, head, per_gpu, {0, 1});
}

// Memory checked where it is shared: by the ranks of a node (host) and by the ranks that drive
// the same GPU. Every rank learns the verdict.
template <class T>
void check_shared_memory(const gemv::Options& o, gemv::MpiSession& s, const LocalDevice& dev,
                         const gemv::DeviceFacts& facts, Transfer transfer) {
    const std::int64_t m = o.shape.m, n = o.shape.n;
    const double elem = sizeof(T);
    const auto rows = static_cast<double>(split_rows(m, s.ranks()).rows[s.rank()]);
    double device_bytes = (rows * double(n) + double(n) + rows) * elem;
    double host_bytes = (rows * double(n) + double(n) + rows) * elem;  // the block on its way up, x, y
    if (s.root()) {
        device_bytes += transfer == Transfer::cuda_aware ? double(m) * elem : 0;
        host_bytes += double(gemv::model_bytes(m, n, sizeof(T))) + double(m) * (16 + 2 * elem);
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    const GroupSum host_share = sum_within(node, 0, host_bytes);
    const GroupSum gpu_share = sum_within(node, dev.device, device_bytes);
    MPI_Comm_free(&node);
    s.every_rank([&] {
        if (host_share.first)
            gemv::require_host_memory(
                bytes_of(host_share.sum),
                ("this problem (" + count_of(host_share.members, "rank") + " on this node)").c_str());
        if (gpu_share.first) {
            // Each rank beyond the first on a GPU brings its own context and L2 scrub buffer.
            const double each = 2.0 * facts.l2_bytes + double(256ull << 20);
            gemv::require_device_memory(facts, bytes_of(gpu_share.sum + (gpu_share.members - 1) * each));
        }
    });
}

// What the products use: each rank's block on its GPU, and on rank 0 the ceiling, y and the reference.
template <class T>
struct Ranks {
    double ceiling = 0;    // rank 0 only
    gemv::HostArray<T> y;  // rank 0 only
    gemv::Reference ref;   // rank 0 only
    std::unique_ptr<GpuRank<T>> d;
    std::unique_ptr<gemv::L2Scrubber> scrubber;
    std::unique_ptr<ProductEvents> events;
};

// Rank 0 measures its GPU's read ceiling and makes the problem and its reference; every rank
// allocates; then A goes to the GPUs, once, outside the timed products.
template <class T>
Ranks<T> set_up(const gemv::Options& o, gemv::MpiSession& s, const gemv::DeviceFacts& facts, Transfer transfer) {
    Ranks<T> r;
    gemv::HostProblem<T> p;  // rank 0 only
    s.every_rank([&] {
        if (s.root()) r.ceiling = gemv::measure_read_ceiling(facts);
        r.d = std::make_unique<GpuRank<T>>(MPI_COMM_WORLD, o.shape, transfer);
        if (o.cold) r.scrubber = std::make_unique<gemv::L2Scrubber>(facts);
        r.events = std::make_unique<ProductEvents>();
        if (s.root()) {
            p = gemv::make_problem<T>(o.shape, o.seed);
            r.y = gemv::HostArray<T>(static_cast<std::size_t>(o.shape.m));
            if (o.verify) r.ref = gemv::compute_reference(p.A.data(), p.x.data(), o.shape);
            set_x(*r.d, p.x.data());
        }
    });
    s.every_rank([&] { distribute_A(p.A.data(), *r.d); });  // its collective comes first: every rank reaches it
    return r;                                               // p goes: the GPUs hold A now
}

// Per product of one kernel, the slowest rank's time in each phase (rank 0 holds them), and this
// rank's own compute time.
struct Timings {
    gemv::SlowestPhases slowest;
    std::vector<double> my_compute_ms;
};

template <class T>
Timings time_products(const gemv::Options& o, gemv::MpiSession& s, Ranks<T>& r, const LocalProduct& local) {
    Timings t;
    try {
        for (int i = -o.warmup; i < o.reps; ++i) {
            poison_y(*r.d);
            if (r.scrubber) r.scrubber->scrub(0);
            GEMV_CUDA_CHECK(cudaDeviceSynchronize());
            MPI_Barrier(MPI_COMM_WORLD);  // every rank starts the product together
            const ProductTimes mine = gemv_mpi_gpu(*r.d, local, *r.events);
            t.slowest.add(MPI_COMM_WORLD, mine.total_s, mine.compute_s, mine.comm_s, i >= 0);
            if (i >= 0) t.my_compute_ms.push_back(mine.compute_s * 1e3);
        }
    } catch (const std::exception& e) {
        // Between collectives the others are already waiting for this rank: only MPI_Abort
        // ends them. stderr directly: the session holds this rank's std::cerr.
        std::fprintf(stderr, "rank %d: error: %s (during the products; aborting every rank)\n", s.rank(), e.what());
        MPI_Abort(MPI_COMM_WORLD, gemv::kExitError);
    }
    return t;
}

// Rank 0 verifies the last product; every rank learns the outcome.
template <class T>
bool verified_on_root(const gemv::Options& o, const gemv::StepSpec& spec, gemv::MpiSession& s, Ranks<T>& r,
                      LocalKernel kernel) {
    int ok = 1;
    s.every_rank([&] {
        if (!s.root() || !o.verify) return;
        fetch_y(*r.d, r.y.data());
        const gemv::Verification v = gemv::verify(r.y.data(), r.ref, o.shape.n, gemv::RunsOn::mpi);
        ok = v.ok ? 1 : 0;
        if (!v.ok) std::cerr << "step " << spec.number << " " << to_string(kernel) << ": " << v.message << "\n";
    });
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok == 1;
}

// Each rank's own median compute time, gathered on rank 0 (collective).
std::vector<double> rank_medians(gemv::MpiSession& s, const Timings& t) {
    const double my_median = gemv::summarize(t.my_compute_ms).median_ms;
    std::vector<double> rank_ms(s.root() ? static_cast<std::size_t>(s.ranks()) : 0);
    MPI_Gather(&my_median, 1, MPI_DOUBLE, rank_ms.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return rank_ms;
}

// The loads of all ranks together, for the CGMA, on rank 0 (collective).
gemv::Traffic total_traffic(const LocalProduct& local) {
    const double mine[3] = {local.traffic.a_elems, local.traffic.x_elems, local.traffic.y_elems};
    double all[3] = {};
    MPI_Reduce(mine, all, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return {all[0], all[1], all[2]};
}

// What the run was spread over, and the facts of rank 0's GPU.
struct Spread {
    int ranks = 1;
    LocalDevice dev;
    Transfer transfer = Transfer::host;
    gemv::DeviceFacts facts;
    std::vector<RankInfo> info;
};

template <class T>
gemv::Result kernel_result(const gemv::Options& o, const gemv::StepSpec& spec, const Spread& spread,
                           const LocalProduct& local, const KernelRun& run, const gemv::Traffic& traffic,
                           double ceiling, bool ok) {
    double gbps_min = 0, gbps_max = 0;
    bool any = false;
    for (std::size_t k = 0; k < spread.info.size(); ++k) {
        if (spread.info[k].rows == 0) continue;
        const double g = rank_gbps(spread.info[k], o.shape.n, sizeof(T), run.rank_compute_ms[k]);
        gbps_min = any ? std::min(gbps_min, g) : g;
        gbps_max = any ? std::max(gbps_max, g) : g;
        any = true;
    }
    const LocalDevice& dev = spread.dev;
    gemv::Result r = gemv::result_of(spec, o, local.name);
    r.time = run.total;
    r.ceiling_gbps = ceiling;  // of rank 0's GPU alone
    r.datasheet_gbps = spread.facts.datasheet_gbps();
    r.traffic = traffic;
    r.launch = count_of(spread.ranks, "rank") + " on " + count_of(dev.gpus, "GPU") +
               (dev.nodes > 1 ? ", " + count_of(dev.nodes, "node") : "") + ", " + to_string(spread.transfer) +
               "; rank 0: " + (local.launch.kernel ? local.launch.describe() + "; " : "") + local.note;
    r.occupancy = gemv::occupancy_of(local.launch, spread.facts);  // rank 0's launch
    r.verified = ok;
    r.extra = {{"kernel", to_string(run.kernel), false},
               {"transfer", spread.transfer == Transfer::host ? "host" : "cuda-aware", false},
               {"ranks", std::to_string(spread.ranks), true},
               {"nodes", std::to_string(dev.nodes), true},
               {"gpus", std::to_string(dev.gpus), true},
               {"compute_ms", number(run.compute.median_ms), true},
               {"comm_ms", number(run.comm.median_ms), true},
               {"comm_share", number(run.comm.median_ms / run.total.median_ms), true},
               {"gpu_gbps_min", number(gbps_min), true},
               {"gpu_gbps_max", number(gbps_max), true}};
    return r;
}

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec, gemv::MpiSession& s) {
    // Bad input fails on every rank alike, before anything that only some ranks could fail in.
    require_int_counts(o.shape.m, o.shape.n);
    Spread spread;
    spread.ranks = s.ranks();
    CudaAwareness awareness;
    spread.transfer = choose_transfer(o.text("transfer"), MPI_COMM_WORLD, &awareness);
    const std::string which = o.text("kernel");
    std::vector<LocalKernel> kernels;
    if (which != "versatile") kernels.push_back(LocalKernel::cublas);
    if (which != "cublas") kernels.push_back(LocalKernel::versatile);

    // A GPU per rank, or 77 on every rank; then its facts, and the memory the ranks share.
    spread.dev = pick_local_device(MPI_COMM_WORLD);
    s.every_rank([&] { spread.facts = gemv::query_device(spread.dev.device); });
    check_shared_memory<T>(o, s, spread.dev, spread.facts, spread.transfer);
    Ranks<T> r = set_up<T>(o, s, spread.facts, spread.transfer);
    spread.info = gather_rank_info(MPI_COMM_WORLD, spread.dev, spread.facts, static_cast<int>(r.d->my_rows()));

    std::vector<gemv::Result> results;
    std::vector<KernelRun> runs;
    bool all_ok = true;
    for (const LocalKernel kernel : kernels) {
        LocalProduct local;
        s.every_rank([&] { local = make_local_product<T>(kernel, *r.d, spread.facts, o.text("table")); });
        const Timings t = time_products(o, s, r, local);
        const bool ok = verified_on_root(o, spec, s, r, kernel);
        all_ok &= ok;
        const std::vector<double> rank_ms = rank_medians(s, t);
        const gemv::Traffic traffic = total_traffic(local);
        if (!s.root()) continue;
        const KernelRun run{kernel, gemv::summarize(t.slowest.total_ms), gemv::summarize(t.slowest.compute_ms),
                            gemv::summarize(t.slowest.comm_ms), rank_ms};
        results.push_back(kernel_result<T>(o, spec, spread, local, run, traffic, r.ceiling, ok));
        runs.push_back(run);
    }
    if (s.root()) {
        gemv::print_results(std::cout, o.format, spread.facts.metadata(), results);
        if (o.format == gemv::Format::table)
            print_phases(std::cout, spread.transfer, awareness, runs, spread.info, o.shape.n, sizeof(T));
    }
    return all_ok ? gemv::kExitOk : gemv::kExitWrong;
}

}  // namespace

int main(int argc, char** argv) {
    gemv::MpiSession session(&argc, &argv);
    gemv::StepSpec spec;
    spec.number = "14";
    spec.name = "mpi_gpu";
    spec.title = "MPI with one GPU per rank: blocks of rows resident on the GPUs, x broadcast and y gathered";
    spec.layouts = {gemv::Layout::row, gemv::Layout::col};
    spec.options = {
        gemv::choice_option("kernel", "each rank's product: cuBLAS (step 12), step 11's versatile kernel, or both",
                            "both", {"cublas", "versatile", "both"}),
        gemv::choice_option("transfer",
                            "host: through pinned host memory; cuda-aware: MPI on GPU memory; auto: cuda-aware where "
                            "the library has it",
                            "host", {"host", "cuda-aware", "auto"}),
        gemv::text_option("table", "step 11's tuning table; auto: each GPU's committed table", "auto")};
    return session.run_step(argc, argv, spec, [&](const gemv::Options& o) {
        return o.precision == gemv::Precision::f32 ? run<float>(o, spec, session) : run<double>(o, spec, session);
    });
}
