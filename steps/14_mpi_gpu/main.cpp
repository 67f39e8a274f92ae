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

template <class T>
int run(const gemv::Options& o, const gemv::StepSpec& spec, gemv::MpiSession& s) {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const std::int64_t m = o.shape.m, n = o.shape.n;
    // Bad input fails on every rank alike, before anything that only some ranks could fail in.
    require_int_counts(m, n);
    CudaAwareness awareness;
    const Transfer transfer = choose_transfer(o.text("transfer"), comm, &awareness);
    const std::string which = o.text("kernel");
    std::vector<LocalKernel> kernels;
    if (which != "versatile") kernels.push_back(LocalKernel::cublas);
    if (which != "cublas") kernels.push_back(LocalKernel::versatile);

    // A GPU per rank, or 77 on every rank; then its facts, and memory checked where it is shared:
    // by the ranks of a node (host) and by the ranks that drive the same GPU.
    const LocalDevice dev = pick_local_device(comm);
    gemv::DeviceFacts facts;
    s.every_rank([&] { facts = gemv::query_device(dev.device); });
    const double elem = sizeof(T);
    const auto rows = static_cast<double>(split_rows(m, s.ranks()).rows[s.rank()]);
    double device_bytes = (rows * double(n) + double(n) + rows) * elem;
    double host_bytes = (rows * double(n) + double(n) + rows) * elem;  // the block on its way up, x, y
    if (s.root()) {
        device_bytes += transfer == Transfer::cuda_aware ? double(m) * elem : 0;
        host_bytes += double(gemv::model_bytes(m, n, sizeof(T))) + double(m) * (16 + 2 * elem);
    }
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
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

    // Rank 0 measures its GPU's read ceiling and makes the problem and its reference; every rank
    // allocates; then A goes to the GPUs, once, outside the timed products.
    double ceiling = 0;
    gemv::HostProblem<T> p;  // rank 0 only
    gemv::HostArray<T> y;    // rank 0 only
    gemv::Reference ref;
    std::unique_ptr<GpuRank<T>> d;
    std::unique_ptr<gemv::L2Scrubber> scrubber;
    std::unique_ptr<ProductEvents> events;
    s.every_rank([&] {
        if (s.root()) ceiling = gemv::measure_read_ceiling(facts);
        d = std::make_unique<GpuRank<T>>(comm, o.shape, transfer);
        if (o.cold) scrubber = std::make_unique<gemv::L2Scrubber>(facts);
        events = std::make_unique<ProductEvents>();
        if (s.root()) {
            p = gemv::make_problem<T>(o.shape, o.seed);
            y = gemv::HostArray<T>(static_cast<std::size_t>(m));
            if (o.verify) ref = gemv::compute_reference(p.A.data(), p.x.data(), o.shape);
            set_x(*d, p.x.data());
        }
    });
    s.every_rank([&] { distribute_A(p.A.data(), *d); });  // its collective comes first: every rank reaches it
    p.A = gemv::HostArray<T>();                           // the GPUs hold A now
    const std::vector<RankInfo> info = gather_rank_info(comm, dev, facts, static_cast<int>(d->my_rows()));

    std::vector<gemv::Result> results;
    std::vector<KernelRun> runs;
    bool all_ok = true;
    for (const LocalKernel kernel : kernels) {
        LocalProduct local;
        s.every_rank([&] { local = make_local_product<T>(kernel, *d, facts, o.text("table")); });
        std::vector<double> total_ms, compute_ms, comm_ms, my_compute_ms;
        try {
            for (int i = -o.warmup; i < o.reps; ++i) {
                poison_y(*d);
                if (scrubber) scrubber->scrub(0);
                GEMV_CUDA_CHECK(cudaDeviceSynchronize());
                MPI_Barrier(comm);  // every rank starts the product together
                const ProductTimes t = gemv_mpi_gpu(*d, local, *events);
                const double mine[3] = {t.total_s, t.compute_s, t.comm_s};
                double slowest[3] = {};
                MPI_Reduce(mine, slowest, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
                if (i < 0) continue;
                total_ms.push_back(slowest[0] * 1e3);
                compute_ms.push_back(slowest[1] * 1e3);
                comm_ms.push_back(slowest[2] * 1e3);
                my_compute_ms.push_back(t.compute_s * 1e3);
            }
        } catch (const std::exception& e) {
            // Between collectives the others are already waiting for this rank: only MPI_Abort
            // ends them. stderr directly: the session holds this rank's std::cerr.
            std::fprintf(stderr, "rank %d: error: %s (during the products; aborting every rank)\n", s.rank(), e.what());
            MPI_Abort(comm, gemv::kExitError);
        }

        // Rank 0 verifies the last product; every rank learns the outcome.
        int ok = 1;
        s.every_rank([&] {
            if (!s.root() || !o.verify) return;
            fetch_y(*d, y.data());
            const gemv::Verification v = gemv::verify(y.data(), ref, n, gemv::RunsOn::mpi);
            ok = v.ok ? 1 : 0;
            if (!v.ok) std::cerr << "step " << spec.number << " " << to_string(kernel) << ": " << v.message << "\n";
        });
        MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
        all_ok &= ok == 1;

        // Each rank's own median compute time, and the loads of all ranks together (for CGMA).
        const double my_median = gemv::summarize(my_compute_ms).median_ms;
        std::vector<double> rank_ms(s.root() ? static_cast<std::size_t>(s.ranks()) : 0);
        MPI_Gather(&my_median, 1, MPI_DOUBLE, rank_ms.data(), 1, MPI_DOUBLE, 0, comm);
        const double my_traffic[3] = {local.traffic.a_elems, local.traffic.x_elems, local.traffic.y_elems};
        double traffic[3] = {};
        MPI_Reduce(my_traffic, traffic, 3, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (!s.root()) continue;

        const KernelRun run{kernel, gemv::summarize(total_ms), gemv::summarize(compute_ms), gemv::summarize(comm_ms),
                            rank_ms};
        double gbps_min = 0, gbps_max = 0;
        bool any = false;
        for (std::size_t k = 0; k < info.size(); ++k) {
            if (info[k].rows == 0) continue;
            const double g = rank_gbps(info[k], n, sizeof(T), rank_ms[k]);
            gbps_min = any ? std::min(gbps_min, g) : g;
            gbps_max = any ? std::max(gbps_max, g) : g;
            any = true;
        }
        gemv::Result r = gemv::result_of(spec, o, local.name);
        r.time = run.total;
        r.ceiling_gbps = ceiling;  // of rank 0's GPU alone
        r.datasheet_gbps = facts.datasheet_gbps();
        r.traffic = {traffic[0], traffic[1], traffic[2]};
        r.launch = count_of(s.ranks(), "rank") + " on " + count_of(dev.gpus, "GPU") +
                   (dev.nodes > 1 ? ", " + count_of(dev.nodes, "node") : "") + ", " + to_string(transfer) +
                   "; rank 0: " + (local.launch.kernel ? local.launch.describe() + "; " : "") + local.note;
        r.occupancy = gemv::occupancy_of(local.launch, facts);  // rank 0's launch
        r.verified = ok == 1;
        r.extra = {{"kernel", to_string(kernel), false},
                   {"transfer", transfer == Transfer::host ? "host" : "cuda-aware", false},
                   {"ranks", std::to_string(s.ranks()), true},
                   {"nodes", std::to_string(dev.nodes), true},
                   {"gpus", std::to_string(dev.gpus), true},
                   {"compute_ms", number(run.compute.median_ms), true},
                   {"comm_ms", number(run.comm.median_ms), true},
                   {"comm_share", number(run.comm.median_ms / run.total.median_ms), true},
                   {"gpu_gbps_min", number(gbps_min), true},
                   {"gpu_gbps_max", number(gbps_max), true}};
        results.push_back(r);
        runs.push_back(run);
    }
    if (s.root()) {
        gemv::print_results(std::cout, o.format, facts.metadata(), results);
        if (o.format == gemv::Format::table) print_phases(std::cout, transfer, awareness, runs, info, n, sizeof(T));
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
