// Step 11's host side (no GPU needed): the configuration's fields, the rules of shape, the tuning
// table, resolve() (the nearest mesh point by shape, and a warning and the heuristic, never a crash
// and never an invalid configuration, for a missing, corrupt or foreign file), and the number of
// kernels compiled.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kernels/versatile_kernels.cuh"
#include "mesh.hpp"
#include "resolve.hpp"
#include "shape_rules.hpp"
#include "support.hpp"
#include "tuning_table.hpp"

namespace {

namespace fs = std::filesystem;

// A directory of this test's own, removed at the end: the solution's and the exercise's test
// programs run side by side under ctest -j.
struct TempDir {
    fs::path path;
    TempDir() {
        static int count = 0;
        path = fs::temp_directory_path() /
               ("gemv_test_step11_" + std::to_string(::getpid()) + "_" + std::to_string(++count));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string file(const std::string& name, const std::string& text = "") const {
        const fs::path p = path / name;
        if (!text.empty()) std::ofstream(p) << text;
        return p.string();
    }
};

// A table of the test device's for one precision and layout, saved as `name` in dir.
std::string saved_table(const TempDir& dir, const std::string& name, const char* precision, const char* layout,
                        const std::vector<gemv::TunedPoint>& points) {
    gemv::TuningTable t;
    t.device = "Test GPU";
    t.precision = precision;
    t.layout = layout;
    t.points = points;
    const std::string path = dir.file(name);
    gemv::save_tuning_table(t, path);
    return path;
}

// A GPU of this name, SM count and compute capability, as resolve() sees it.
gemv::DeviceFacts test_gpu(const std::string& name, int sm_count, int cc_major = 9) {
    gemv::DeviceFacts f;
    f.name = name;
    f.sm_count = sm_count;
    f.max_threads_per_sm = 2048;  // Hopper's
    f.cc_major = cc_major;
    return f;
}

const gemv::GpuSize kH100{132, 2048};  // 132 SMs of 2,048 threads

// Tall: one thread per row group. Wide: 64 threads along the columns, rows split across blocks.
std::vector<gemv::TunedPoint> two_points() {
    return {{1 << 20, 16, {256, 4, 4, 1, 1}, 100}, {16, 1 << 20, {512, 4, 2, 128, 64, gemv::Combine::last_block}, 100}};
}

}  // namespace

TEST_CASE("step 11: every field of the configuration reads back what it wrote, and refuses nonsense", "[step11]") {
    gemv::VersatileConfig c{128, 2, 8, 4, 7, gemv::Combine::cluster, gemv::Loads::tiles};
    gemv::VersatileConfig back;
    for (const gemv::ConfigField& f : gemv::config_fields()) REQUIRE(f.set(back, f.get(c)).empty());
    REQUIRE(describe(back) == describe(c));
    for (const gemv::ConfigField& f : gemv::config_fields()) {
        INFO(f.name);
        REQUIRE_FALSE(f.set(back, "12abc").empty());
        REQUIRE_FALSE(f.set(back, "").empty());
    }
}

TEST_CASE("step 11: the table is chosen by shape, not by size", "[step11]") {
    const TempDir dir;
    const std::string path = saved_table(dir, "table.csv", "float", "col", two_points());
    const auto tall =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, 1 << 21, 8);
    REQUIRE(tall.config.threads_per_row == 1);
    REQUIRE(tall.config.blocks_per_row == 1);
    const auto wide =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, 16, 1 << 21);
    REQUIRE(wide.config.threads_per_row == 128);
    REQUIRE(wide.config.combine == gemv::Combine::last_block);
    REQUIRE(wide.source.rfind("tuned at 16 x 1048576", 0) == 0);
    // A shape shorter than the tuned row group gets fewer threads down it, none idle: 8 rows are
    // two of 4, so 512 / 2 threads share each row.
    const auto short_rows =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, 8, 1 << 20);
    REQUIRE(short_rows.config.threads_per_row == 256);
    // A shape whose m the tuned vector does not divide gets a narrower vector, not a failure.
    const auto odd =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, 1000003, 16);
    REQUIRE(odd.config.vector == 1);
    REQUIRE(gemv::versatile_invalid(odd.config, gemv::Layout::col, 1000003, 16, 4).empty());
}

TEST_CASE("step 11: the nearest points' picks, for timing at the shape, start with resolve()'s", "[step11]") {
    const TempDir dir;
    std::vector<gemv::TunedPoint> points = two_points();
    points.push_back({1 << 18, 64, {128, 4, 4, 2, 1}, 100});
    points.push_back({1 << 19, 32, {256, 4, 4, 1, 1}, 100});
    points.push_back({1 << 19, 48, {256, 4, 4, 1, 1}, 100});  // the same pick beside it
    const std::string path = saved_table(dir, "table.csv", "float", "col", points);
    const gemv::DeviceFacts gpu = test_gpu("Test GPU", 132);
    const auto nearest = gemv::resolve_nearest(path, gpu, gemv::Precision::f32, gemv::Layout::col, 1 << 19, 36, 4);
    const auto first = gemv::resolve(path, gpu, gemv::Precision::f32, gemv::Layout::col, 1 << 19, 36);
    REQUIRE(describe(nearest.at(0).config) == describe(first.config));
    REQUIRE(nearest[0].source == first.source);
    // The two nearest points hold one pick: it comes once, the next point's after it.
    REQUIRE(nearest[0].source == "tuned at 524288 x 32");
    REQUIRE(nearest.at(1).source == "tuned at 262144 x 64");
    REQUIRE(nearest.size() <= 3);
    for (std::size_t i = 0; i < nearest.size(); ++i) {
        REQUIRE(gemv::versatile_invalid(nearest[i].config, gemv::Layout::col, 1 << 19, 36, 4).empty());
        for (std::size_t j = 0; j < i; ++j) REQUIRE(describe(nearest[i].config) != describe(nearest[j].config));
    }
    REQUIRE(gemv::resolve_nearest(path, gpu, gemv::Precision::f32, gemv::Layout::col, 1 << 19, 36, 1).size() == 1);
    REQUIRE_THROWS_AS(gemv::resolve_nearest(path, gpu, gemv::Precision::f32, gemv::Layout::col, 1 << 19, 36, 0),
                      gemv::UsageError);
    // No table: the heuristic alone.
    const auto none = gemv::resolve_nearest((dir.path / "missing.csv").string(), gpu, gemv::Precision::f32,
                                            gemv::Layout::col, 1 << 19, 36, 4);
    REQUIRE(none.size() == 1);
    REQUIRE(none[0].how == gemv::ConfigSource::heuristic);
}

TEST_CASE("step 11: the timed candidates add the nearest pick's neighbours, fitted, after the points", "[step11]") {
    // Double row-major, tuned at n = 64 with 32 threads a row (one 16-byte load each covers a row):
    // at n = 82 the neighbours are 16 and 64 threads a row and the row read flat.
    const TempDir dir;
    const gemv::VersatileConfig tuned =
        gemv::NamedConfig().block(128).vector(2).unroll(4).threads_per_row(32).loads(gemv::Loads::aligned);
    const std::string path = saved_table(dir, "table.csv", "double", "row", {{1 << 20, 64, tuned, 100}});
    const gemv::DeviceFacts gpu = test_gpu("Test GPU", 132);
    const std::int64_t m = 1210267, n = 82;
    const auto points = gemv::resolve_nearest(path, gpu, gemv::Precision::f64, gemv::Layout::row, m, n, 4);
    const auto timed = gemv::resolve_nearest(path, gpu, gemv::Precision::f64, gemv::Layout::row, m, n, 4, true);
    REQUIRE(points.size() == 1);
    REQUIRE(timed.size() > points.size());
    REQUIRE(describe(timed[0].config) == describe(points[0].config));
    bool half = false, flat = false;
    for (std::size_t i = 0; i < timed.size(); ++i) {
        REQUIRE(gemv::versatile_invalid(timed[i].config, gemv::Layout::row, m, n, 8).empty());
        for (std::size_t j = 0; j < i; ++j) REQUIRE(describe(timed[i].config) != describe(timed[j].config));
        if (timed[i].source == "tuned at 1048576 x 64, half its threads a row") {
            half = true;
            REQUIRE(timed[i].config.threads_per_row == 16);
            // Fitted as the point's own pick is: 16 threads x 2 x 4 would leave the whole row of 82
            // to the one-at-a-time remainder, so the unroll halves.
            REQUIRE(timed[i].config.unroll == 2);
        }
        if (timed[i].source == "tuned at 1048576 x 64, read flat") {
            flat = true;
            REQUIRE(timed[i].config.loads == gemv::Loads::flat);
            REQUIRE(timed[i].config.vector == 2);  // 16-byte pieces
        }
    }
    REQUIRE(half);
    REQUIRE(flat);
    // resolve() still takes the nearest point's pick alone.
    REQUIRE(describe(gemv::resolve(path, gpu, gemv::Precision::f64, gemv::Layout::row, m, n).config) ==
            describe(points[0].config));
    // Flat row-major copies its tile in aligned 16-byte pieces: a narrower vector is refused, not run.
    REQUIRE(gemv::versatile_invalid(
                gemv::NamedConfig().block(128).vector(1).threads_per_row(8).loads(gemv::Loads::flat), gemv::Layout::row,
                5039, 449, 4) == "flat row-major copies 16-byte pieces: vector must be 4");
    // Float row-major, one row of an odd length, tuned with 4-byte aligned loads, 512 threads a row,
    // 4 in flight, 2112 blocks: the neighbours take 16-byte staggered loads with the same threads,
    // half (2) and twice (8) the loads in flight, and four times the blocks.
    const gemv::VersatileConfig narrow = gemv::NamedConfig()
                                             .block(512)
                                             .vector(1)
                                             .unroll(4)
                                             .threads_per_row(512)
                                             .blocks_per_row(2112)
                                             .combine(gemv::Combine::atomic)
                                             .loads(gemv::Loads::aligned);
    bool staggered = false, fewer = false, more = false, blocks = false;
    for (const auto& [c, what] :
         gemv::fitted_neighbours(narrow, 1, 26843545, {132, 2048}, gemv::Layout::row, 1, 200962593, 4, {132, 2048})) {
        INFO(what << ": " << describe(c));
        if (what == "16-byte staggered loads") {
            staggered = true;
            REQUIRE(c.loads == gemv::Loads::staggered);
            REQUIRE(c.vector == 4);
            REQUIRE(c.threads_per_row == 512);
            REQUIRE(gemv::versatile_invalid(c, gemv::Layout::row, 1, 200962593, 4).empty());
        }
        if (what == "four times its blocks a row") {
            blocks = true;
            REQUIRE(c.blocks_per_row == 4 * 2112);
            REQUIRE(c.vector == 1);
        }
        fewer |= what == "half its loads in flight" && c.unroll == 2 && c.vector == 1;
        more |= what == "twice its loads in flight" && c.unroll == 8 && c.vector == 1;
    }
    REQUIRE(staggered);
    REQUIRE(fewer);
    REQUIRE(more);
    REQUIRE(blocks);
    // And back: 16-byte staggered loads have aligned ones of the widest vector that divides n as
    // their neighbour (n = 4098: 2 floats).
    const gemv::VersatileConfig wide =
        gemv::NamedConfig().block(256).vector(4).unroll(4).threads_per_row(32).loads(gemv::Loads::staggered);
    bool aligned = false;
    for (const auto& [c, what] :
         gemv::fitted_neighbours(wide, 4096, 4098, {132, 2048}, gemv::Layout::row, 5000, 4098, 4, {132, 2048}))
        if (what == "aligned loads") {
            aligned = true;
            REQUIRE(c.loads == gemv::Loads::aligned);
            REQUIRE(c.vector == 2);
            REQUIRE(gemv::versatile_invalid(c, gemv::Layout::row, 5000, 4098, 4).empty());
        }
    REQUIRE(aligned);
    // Double row-major tuned flat (4 threads a row) at n = 34, fitted to n = 32 (256-byte rows, which
    // flat does not suit): 8 threads a row in place, and the threads step from there, 4 and 16.
    const gemv::VersatileConfig flat_double =
        gemv::NamedConfig().block(128).vector(2).unroll(2).threads_per_row(4).loads(gemv::Loads::flat);
    REQUIRE(gemv::fit_to_shape(flat_double, 1153729, 34, {132, 2048}, gemv::Layout::row, 1566834, 32, 8, {132, 2048})
                .threads_per_row == 8);
    bool halved = false, doubled = false;
    for (const auto& [c, what] : gemv::fitted_neighbours(flat_double, 1153729, 34, {132, 2048}, gemv::Layout::row,
                                                         1566834, 32, 8, {132, 2048})) {
        INFO(what << ": " << describe(c));
        halved |= what == "half its threads a row" && c.loads == gemv::Loads::aligned && c.threads_per_row == 4;
        doubled |= what == "twice its threads a row" && c.loads == gemv::Loads::aligned && c.threads_per_row == 16;
    }
    REQUIRE(halved);
    REQUIRE(doubled);
    // Tiles have no neighbours.
    REQUIRE(gemv::fitted_neighbours(gemv::NamedConfig().loads(gemv::Loads::tiles).vector(2), 100, 3, {132, 2048},
                                    gemv::Layout::row, 200, 3, 8, {132, 2048})
                .empty());
}

TEST_CASE("step 11: column-major sums folded in shared memory fit the 48 KiB a launch gets", "[step11]") {
    // 32 threads down a column of a 1024-thread block, 16 fp8 elements a load: 32 x 32 x 16 float
    // sums are 64 KiB, which the launch refuses; 8 bf16 elements (32 KiB) fit.
    const gemv::VersatileConfig c = gemv::NamedConfig().block(1024).vector(16).unroll(1).threads_per_row(32);
    REQUIRE(gemv::col_fold_bytes(c, 4) == 64 * 1024);
    REQUIRE_FALSE(gemv::versatile_invalid(c, gemv::Layout::col, 7680, 53, 1).empty());
    const gemv::VersatileConfig bf16 = gemv::NamedConfig().block(1024).vector(8).unroll(1).threads_per_row(32);
    REQUIRE(gemv::versatile_invalid(bf16, gemv::Layout::col, 7680, 53, 2).empty());
    // One thread a column slice folds nothing.
    REQUIRE(gemv::col_fold_bytes(gemv::NamedConfig().block(1024).vector(16).threads_per_row(1), 4) == 0);
}

TEST_CASE("step 11: a table of a narrow format keeps its wider loads", "[step11]") {
    // 8 bf16 elements are one 16-byte load: valid in a bf16 table, though 32 bytes in float.
    const TempDir dir;
    const std::vector<gemv::TunedPoint> points = {
        {1 << 20, 16, gemv::NamedConfig().block(256).vector(8).unroll(4), 100}};
    const std::string path = saved_table(dir, "bf16.csv", "bf16", "col", points);
    REQUIRE(gemv::load_tuning_table(path).points.size() == 1);
    const auto c =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::bf16, gemv::Layout::col, 1 << 20, 16);
    REQUIRE(c.how == gemv::ConfigSource::tuned);
    REQUIRE(c.config.vector == 8);
}

TEST_CASE("step 11: a saved table loads back the same", "[step11]") {
    const TempDir dir;
    const std::string path = saved_table(dir, "roundtrip.csv", "float", "col", two_points());
    const gemv::TuningTable t = gemv::load_tuning_table(path);
    REQUIRE(t.device == "Test GPU");
    REQUIRE(t.points.size() == 2);
    REQUIRE(describe(t.points[1].config) == describe(two_points()[1].config));
    REQUIRE(t.points[1].n == (1 << 20));
}

TEST_CASE("step 11: a missing, corrupt, invalid or foreign table falls back to a valid heuristic", "[step11]") {
    const TempDir dir;
    const std::string header = "# device: Test GPU\n# precision: double\n# layout: col\n" + gemv::point_header() + "\n";
    const std::string corrupt = dir.file("corrupt.csv", header + "10,10,256,2,4\n");
    const std::string invalid = dir.file("invalid.csv", header + "10,10,100,2,4,3,1,store,aligned,1\n");
    const std::string other_columns = dir.file("old.csv", "# device: Test GPU\nm,n,block\n10,10,256\n");
    const std::string foreign = saved_table(dir, "foreign.csv", "double", "col", two_points());
    for (const auto& [path, device] :
         std::vector<std::pair<std::string, std::string>>{{dir.file("missing.csv"), "Test GPU"},
                                                          {corrupt, "Test GPU"},
                                                          {invalid, "Test GPU"},
                                                          {other_columns, "Test GPU"},
                                                          {foreign, "Another GPU"}}) {
        for (auto layout : {gemv::Layout::col, gemv::Layout::row})
            for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 4097}, {1000000, 3}, {3, 1000000}}) {
                const auto c = gemv::resolve(path, test_gpu(device, 132), gemv::Precision::f64, layout, m, n);
                INFO(path << " " << m << " x " << n);
                REQUIRE(c.how == gemv::ConfigSource::heuristic);
                REQUIRE(gemv::versatile_invalid(c.config, gemv::kernel_layout(layout, m, n), m, n, 8).empty());
            }
    }
}

TEST_CASE("step 11: the heuristic is valid for any shape, with more loads in flight where they are narrow, staggered",
          "[step11]") {
    for (auto layout : {gemv::Layout::col, gemv::Layout::row})
        for (std::size_t elem : {std::size_t(4), std::size_t(8)})
            for (std::int64_t m : {1, 2, 3, 31, 33, 1025, 65537, 4000037})
                for (std::int64_t n : {1, 2, 3, 31, 33, 1025, 65537, 4000037}) {
                    const gemv::Layout kl = gemv::kernel_layout(layout, m, n);
                    const gemv::VersatileConfig c = gemv::versatile_heuristic(kl, m, n, elem, kH100);
                    INFO(m << " x " << n << " " << gemv::layout_word(layout) << ", " << describe(c));
                    REQUIRE(gemv::versatile_invalid(c, kl, m, n, elem).empty());
                }
    REQUIRE(gemv::versatile_heuristic(gemv::Layout::row, 1025, 65537, 4, kH100).unroll == 16);  // 4-byte loads
    REQUIRE(gemv::versatile_heuristic(gemv::Layout::row, 1025, 65537, 8, kH100).unroll == 8);   // 8-byte loads
    REQUIRE(gemv::versatile_heuristic(gemv::Layout::col, 65536, 1025, 4, kH100).unroll == 4);   // 16-byte loads
    // Column-major with an odd m: staggered 16-byte loads, 4 threads (float) along the columns or more.
    const gemv::VersatileConfig odd = gemv::versatile_heuristic(gemv::Layout::col, 65537, 1025, 4, kH100);
    REQUIRE(odd.loads == gemv::Loads::staggered);
    REQUIRE(odd.vector == 4);
    REQUIRE(odd.threads_per_row % 4 == 0);
    REQUIRE(gemv::versatile_heuristic(gemv::Layout::col, 31, 1025, 4, kH100).loads ==
            gemv::Loads::aligned);  // too few rows
}

TEST_CASE("step 11: a 1 x n column-major or m x 1 row-major matrix is read as the other layout", "[step11]") {
    REQUIRE(gemv::kernel_layout(gemv::Layout::col, 1, 1000) == gemv::Layout::row);
    REQUIRE(gemv::kernel_layout(gemv::Layout::row, 1000, 1) == gemv::Layout::col);
    REQUIRE(gemv::kernel_layout(gemv::Layout::col, 2, 1000) == gemv::Layout::col);
    REQUIRE(gemv::kernel_layout(gemv::Layout::row, 1000, 2) == gemv::Layout::row);
    REQUIRE(
        gemv::table_path("auto", "Test GPU", gemv::Precision::f32, gemv::Layout::col, 1, 1000).find("_float_row.csv") !=
        std::string::npos);
}

TEST_CASE("step 11: the mesh axis is logarithmic from 10 and increasing", "[step11]") {
    const auto axis = gemv::mesh_axis(24, 100000000);
    REQUIRE(axis.size() == 24);
    REQUIRE(axis.front() == 10);
    REQUIRE(axis.back() == 100000000);
    for (std::size_t k = 1; k < axis.size(); ++k) REQUIRE(axis[k] > axis[k - 1]);
}

TEST_CASE(
    "step 11: a flat configuration moves to a shape with a valid grid, or off flat where a row group fits "
    "m exactly or m is too large",
    "[step11]") {
    const TempDir dir;
    // 43 rows read flat on 43 * 25 blocks (block * vector = 1024, so the grid is a multiple of 43).
    const std::string path =
        saved_table(dir, "flat_table.csv", "float", "col",
                    {{43, 1 << 20, {256, 4, 2, 256, 43 * 25, gemv::Combine::atomic_last, gemv::Loads::flat}, 100}});
    REQUIRE(gemv::load_tuning_table(path).points[0].config.loads == gemv::Loads::flat);
    for (std::int64_t m :
         {std::int64_t(41), std::int64_t(45), std::int64_t(44), std::int64_t(64), gemv::kFlatMaxRows + 1}) {
        INFO("m = " << m);
        const auto c =
            gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, m, 1 << 20);
        const bool exact_row_group = m == 64;  // 16 threads of 4 rows
        REQUIRE((c.config.loads == gemv::Loads::flat) == (m <= gemv::kFlatMaxRows && !exact_row_group));
        if (exact_row_group) REQUIRE(c.config.threads_per_row == 256 / 16);
        if (m == gemv::kFlatMaxRows + 1) REQUIRE(c.config.vector == 1);  // odd m, too many rows for flat: in place
        REQUIRE(gemv::versatile_invalid(c.config, gemv::Layout::col, m, 1 << 20, 4).empty());
        REQUIRE(c.how == gemv::ConfigSource::tuned);  // the table's choice, adapted, not the heuristic
    }
}

TEST_CASE("step 11: a wave is the blocks the GPU holds, from its SMs and the threads an SM holds", "[step11]") {
    const gemv::GpuSize ada{142, 1536};  // an L40S: 1,536 threads an SM
    REQUIRE(gemv::blocks_per_wave(kH100, 256) == 132 * 8);
    REQUIRE(gemv::blocks_per_wave(ada, 256) == 142 * 6);
    REQUIRE(gemv::blocks_per_wave(ada, 1024) == 142);  // a block larger than 1,536 / 2 still runs, one an SM
    // The heuristic splits a wide row-major problem's few rows into one wave of the GPU it runs on.
    const auto blocks = [](gemv::GpuSize gpu) {
        const gemv::VersatileConfig c = gemv::versatile_heuristic(gemv::Layout::row, 8, 1 << 24, 4, gpu);
        return gemv::row_blocks(c, gemv::Layout::row, 8, 1 << 24) * c.blocks_per_row;
    };
    REQUIRE(blocks(kH100) >= gemv::blocks_per_wave(kH100, 256));
    REQUIRE(blocks(ada) >= gemv::blocks_per_wave(ada, 256));
    REQUIRE(blocks(ada) < blocks(kH100));
    // resolve() sizes a fitted grid in waves of this GPU's blocks: 8450 blocks tuned on a GPU of 132
    // SMs that hold 1,536 threads are 5.3 waves of 132 * 12; moved to 12 rows, 5 such waves.
    const TempDir dir;
    const std::int64_t n = 12996488;  // 20 rows, four to a block (5 row blocks), split 1690 ways
    const std::string path = saved_table(dir, "wave_row.csv", "double", "row",
                                         {{20, n, {128, 2, 2, 32, 1690, gemv::Combine::last_block}, 100}});
    gemv::DeviceFacts small = test_gpu("Test GPU", 132);
    small.max_threads_per_sm = 1536;
    const auto c = gemv::resolve(path, small, gemv::Precision::f64, gemv::Layout::row, 12, n);
    const std::int64_t wave = gemv::blocks_per_wave({132, 1536}, 128);
    const std::int64_t rows = gemv::row_blocks(c.config, gemv::Layout::row, 12, n);
    REQUIRE(rows == 3);
    REQUIRE(std::llabs(rows * c.config.blocks_per_row - 5 * wave) <= rows);
}

TEST_CASE("step 11: a split configuration moved to another m keeps whole waves of blocks", "[step11]") {
    const TempDir dir;
    // 20 rows, four to a block (5 row blocks), split 1690 ways: 8450 blocks, 4.0 waves of 132 * 16.
    const std::int64_t n = 12996488;
    std::string path = saved_table(dir, "wave_row.csv", "double", "row",
                                   {{20, n, {128, 2, 2, 32, 1690, gemv::Combine::last_block}, 100}});
    const std::int64_t wave = gemv::blocks_per_wave(kH100, 128);
    for (std::int64_t m : {std::int64_t(4), std::int64_t(12), std::int64_t(16), std::int64_t(20), std::int64_t(64)}) {
        INFO("m = " << m);
        const auto c = gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f64, gemv::Layout::row, m, n);
        REQUIRE(gemv::versatile_invalid(c.config, gemv::Layout::row, m, n, 8).empty());
        const std::int64_t rows = gemv::row_blocks(c.config, gemv::Layout::row, m, n);
        const std::int64_t blocks = rows * c.config.blocks_per_row;
        if (m == 20) {
            REQUIRE(c.config.blocks_per_row == 1690);  // the tuned point itself runs as tuned
        } else {
            REQUIRE(std::llabs(blocks - 4 * wave) <= rows / 2);  // four waves, to the nearest row of blocks
        }
    }

    // Flat: 10 rows on 4225 blocks of 256 (4 waves and one block). At 6 rows (a grid of a multiple
    // of 3), 4 whole waves; at 4 rows, which 2 threads of 2 cover exactly, per row group on 4 waves.
    path = saved_table(dir, "wave_col.csv", "double", "col",
                       {{10, n, {256, 2, 2, 256, 4225, gemv::Combine::atomic_last, gemv::Loads::flat}, 100}});
    const auto six =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f64, gemv::Layout::col, 6, n).config;
    REQUIRE(six.loads == gemv::Loads::flat);
    REQUIRE(six.blocks_per_row == 4 * gemv::blocks_per_wave(kH100, 256));
    const auto four =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f64, gemv::Layout::col, 4, n).config;
    REQUIRE(four.loads == gemv::Loads::aligned);
    REQUIRE(four.threads_per_row == 256 / 2);
    REQUIRE(four.blocks_per_row == 4 * gemv::blocks_per_wave(kH100, 256));
    REQUIRE(gemv::versatile_invalid(four, gemv::Layout::col, 4, n, 8).empty());
}

TEST_CASE("step 11: a flat row-major configuration moved to longer rows shares them until they fit", "[step11]") {
    const TempDir dir;
    // 43 floats a row, 256 rows a block (44 KiB of shared memory).
    const std::string path =
        saved_table(dir, "flat_row.csv", "float", "row",
                    {{23746040, 43, {256, 4, 4, 1, 1, gemv::Combine::store, gemv::Loads::flat}, 100}});
    // 97 floats a row: 256 rows take 97 KiB, 128 rows 48.5 KiB, so 4 threads a row (64 rows).
    const auto tall =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::row, 9000000, 97);
    REQUIRE(tall.config.loads == gemv::Loads::flat);
    REQUIRE(tall.config.threads_per_row == 4);
    REQUIRE(gemv::versatile_invalid(tall.config, gemv::Layout::row, 9000000, 97, 4).empty());
    // 20001 floats a row: too long for even 8 rows of a 256-thread block, so read in place.
    const auto wide =
        gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::row, 9000, 20001);
    REQUIRE(wide.config.loads == gemv::Loads::aligned);
    REQUIRE(gemv::versatile_invalid(wide.config, gemv::Layout::row, 9000, 20001, 4).empty());
}

TEST_CASE("step 11: a row-major configuration moved to other rows leaves at most a quarter to its remainder",
          "[step11]") {
    const TempDir dir;
    // 128 threads a row, 16 loads each: 2048 columns a pass. Tuned at n = 2193 (93 % in whole
    // passes), and at n = 1500 (none: the tuned point read all of its row in the remainder).
    const gemv::VersatileConfig pick{128, 1, 16, 128, 1, gemv::Combine::store, gemv::Loads::aligned};
    const std::string path =
        saved_table(dir, "unroll.csv", "bf16", "row", {{4300, 2193, pick, 100}, {40000, 1500, pick, 100}});
    const auto at = [&](std::int64_t m, std::int64_t n) {
        const auto c = gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::bf16, gemv::Layout::row, m, n);
        REQUIRE(gemv::versatile_invalid(c.config, gemv::Layout::row, m, n, 2).empty());
        return c.config;
    };
    REQUIRE(at(4300, 2193).unroll == 16);   // the tuned point as tuned
    REQUIRE(at(4300, 2560).unroll == 16);   // 512 of 2560 columns in the remainder: a fifth
    REQUIRE(at(4300, 2800).unroll == 4);    // 752 at 16 and at 8 (1024 a pass), 240 at 4 (512)
    REQUIRE(at(4919, 1885).unroll == 4);    // all 1885 at 16, 861 at 8, 349 at 4
    REQUIRE(at(4300, 1000).unroll == 2);    // all at 16 and 8, 488 at 4, 232 at 2 (256 a pass)
    REQUIRE(at(4300, 200).unroll == 2);     // all of it at 2 too, but never fewer than 2
    REQUIRE(at(40000, 1500).unroll == 16);  // as tuned
    REQUIRE(at(40000, 1400).unroll == 16);  // as much in the remainder as its tuned point
}

TEST_CASE("step 11: flat row-major stays off rows of a multiple of 32 bytes, tuned or fitted", "[step11]") {
    const auto has_flat = [](std::int64_t m, std::int64_t n) {
        const auto configs = gemv::candidate_configs(gemv::Layout::row, m, n, 8, kH100);
        return std::any_of(configs.begin(), configs.end(),
                           [](const gemv::VersatileConfig& c) { return c.loads == gemv::Loads::flat; });
    };
    REQUIRE(has_flat(13421772, 10));   // 80-byte rows, 16-byte loads follow them: flat is tried too
    REQUIRE(has_flat(13421772, 11));   // 88 bytes: 16-byte loads cannot follow
    REQUIRE(!has_flat(16777216, 16));  // 128 bytes: a warp's rows would start on the same banks
    REQUIRE(!has_flat(16777216, 12));  // 96 bytes
    const TempDir dir;
    const std::string path =
        saved_table(dir, "flat_even.csv", "double", "row",
                    {{13421772, 10, {256, 2, 4, 1, 1, gemv::Combine::store, gemv::Loads::flat}, 100}});
    const auto at = [&](std::int64_t m, std::int64_t n) {
        const auto c = gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f64, gemv::Layout::row, m, n);
        REQUIRE(c.how == gemv::ConfigSource::tuned);
        REQUIRE(gemv::versatile_invalid(c.config, gemv::Layout::row, m, n, 8).empty());
        return c.config;
    };
    REQUIRE(at(13421772, 11).loads == gemv::Loads::flat);
    // 16 doubles: in place, 16-byte loads, 8 threads cover the row once; 36 doubles: 8 threads.
    const auto sixteen = at(16777216, 16);
    REQUIRE(sixteen.loads == gemv::Loads::aligned);
    REQUIRE(sixteen.vector == 2);
    REQUIRE(sixteen.threads_per_row == 8);
    REQUIRE(at(16777216, 12).threads_per_row == 8);  // 6 loads a row
    REQUIRE(at(7409865, 36).threads_per_row == 8);
    REQUIRE(at(67108864, 4).threads_per_row == 2);  // 2 loads a row
}

TEST_CASE("step 11: a staggered configuration tuned in one row block stays in one where it can", "[step11]") {
    const TempDir dir;
    // 91 rows in one block of 32 lanes (31 row groups of 4 owned); 127 rows need 33 groups.
    const std::int64_t n = 2625745;
    const std::string path =
        saved_table(dir, "staggered.csv", "float", "col",
                    {{91, n, {512, 4, 2, 16, 1056, gemv::Combine::atomic, gemv::Loads::staggered}, 100}});
    for (std::int64_t m : {std::int64_t(91), std::int64_t(127), std::int64_t(253), std::int64_t(1001)}) {
        INFO("m = " << m);
        const auto c = gemv::resolve(path, test_gpu("Test GPU", 132), gemv::Precision::f32, gemv::Layout::col, m, n);
        REQUIRE(c.how == gemv::ConfigSource::tuned);
        REQUIRE(c.config.loads == gemv::Loads::staggered);
        REQUIRE(gemv::versatile_invalid(c.config, gemv::Layout::col, m, n, 4).empty());
        // One block while 4 threads along the columns leave lanes enough (512 / 4 = 128 lanes).
        REQUIRE((gemv::row_blocks(c.config, gemv::Layout::col, m, n) == 1) == (m <= 127 * 4));
    }
}

// Every family's instances, counted through the pointers the plan picks from, against the count
// versatile_kernels.cuh states.
template <class T>
int compiled_instances() {
    int count = 0;
    const auto counted = [&](const void* kernel) { count += kernel != nullptr; };
    for (int v : {1, 2, 4, 8, 16})
        for (int u : {1, 2, 4, 8, 16}) {
            for (gemv::Loads l : {gemv::Loads::aligned, gemv::Loads::realigned, gemv::Loads::staggered}) {
                counted(gemv::col_kernel<T>(v, u, l));
                counted(gemv::row_kernel<T>(v, u, l));
            }
            counted(gemv::col_short_kernel<T>(v, u));
            counted(gemv::row_short_kernel<T>(v, u));
            counted(gemv::col_flat_kernel<T>(v, u));
            counted(gemv::row_flat_kernel<T>(v, u));
        }
    for (int elements : {1, 2, 3, 4})
        for (int u : {1, 2, 4, 8}) {
            counted(gemv::col_tiles_kernel<T>(elements, u));
            counted(gemv::row_tiles_kernel<T>(elements, u));
        }
    return count;
}

TEST_CASE("step 11: the kernels compiled are the ones versatile_kernels.cuh counts", "[step11]") {
    REQUIRE(compiled_instances<float>() == gemv::versatile_instances<float>());
    REQUIRE(compiled_instances<double>() == gemv::versatile_instances<double>());
    REQUIRE(compiled_instances<__nv_bfloat16>() == gemv::versatile_instances<__nv_bfloat16>());
    REQUIRE(compiled_instances<__half>() == gemv::versatile_instances<__half>());
    REQUIRE(compiled_instances<__nv_fp8_e4m3>() == gemv::versatile_instances<__nv_fp8_e4m3>());
    REQUIRE(compiled_instances<float>() + compiled_instances<double>() + compiled_instances<__nv_bfloat16>() +
                compiled_instances<__half>() + compiled_instances<__nv_fp8_e4m3>() ==
            gemv::kVersatileInstances);
}

TEST_CASE("step 11: a GPU without a table borrows the table of the nearest GPU of its architecture", "[step11]") {
    const TempDir dir;
    // Two Hopper GPUs' tables (132 and 114 SMs) and an older one's, each of one split point: 20 rows,
    // four to a block, split to four waves of its own SMs.
    const std::int64_t n = 12996488;
    const auto table = [&](const std::string& device, const char* cc, int sms, std::int64_t split) {
        gemv::TuningTable t;
        t.device = device;
        t.compute_capability = cc;
        t.sms = sms;
        t.precision = "double";
        t.layout = "row";
        t.points = {{20, n, {128, 2, 2, 32, split, gemv::Combine::last_block}, 100}};
        gemv::save_tuning_table(t, dir.file(gemv::tuning_file_name(device, gemv::Precision::f64, gemv::Layout::row)));
    };
    table("Big Hopper", "9.0", 132, 1690);
    table("Small Hopper", "9.0", 114, 1459);
    table("An Ampere", "8.0", 108, 1383);
    const auto at = [&](const gemv::DeviceFacts& gpu) {
        return gemv::resolve(dir.path.string(), gpu, gemv::Precision::f64, gemv::Layout::row, 20, n);
    };
    // Its own table, where it has one; else the same architecture's with the nearest SM count, its
    // grid resized to four waves of this GPU's SMs.
    REQUIRE(at(test_gpu("Big Hopper", 132)).how == gemv::ConfigSource::tuned);
    const gemv::Resolved mid = at(test_gpu("Mid Hopper", 120));
    REQUIRE(mid.how == gemv::ConfigSource::borrowed);
    REQUIRE(mid.source.find("Small Hopper") != std::string::npos);
    const std::int64_t rows = gemv::row_blocks(mid.config, gemv::Layout::row, 20, n);
    REQUIRE(std::llabs(rows * mid.config.blocks_per_row - 4 * gemv::blocks_per_wave({120, 2048}, 128)) <= rows / 2);
    REQUIRE(gemv::versatile_invalid(mid.config, gemv::Layout::row, 20, n, 8).empty());
    REQUIRE(at(test_gpu("Large Hopper", 140)).source.find("Big Hopper") != std::string::npos);
    // No table of its architecture: the heuristic. A table file named outright is not borrowed from.
    REQUIRE(at(test_gpu("A Blackwell", 148, 10)).how == gemv::ConfigSource::heuristic);
    const std::string file = dir.file(gemv::tuning_file_name("Big Hopper", gemv::Precision::f64, gemv::Layout::row));
    REQUIRE(gemv::resolve(file, test_gpu("Mid Hopper", 120), gemv::Precision::f64, gemv::Layout::row, 20, n).how ==
            gemv::ConfigSource::heuristic);
}

TEST_CASE("step 11: a table keeps the architecture and SM count it was tuned on", "[step11]") {
    const TempDir dir;
    gemv::TuningTable t;
    t.device = "Test GPU";
    t.compute_capability = "9.0";
    t.sms = 132;
    t.precision = "float";
    t.layout = "col";
    t.points = two_points();
    gemv::save_tuning_table(t, dir.file("t.csv"));
    const gemv::TuningTable back = gemv::load_tuning_table(dir.file("t.csv"));
    REQUIRE(back.compute_capability == "9.0");
    REQUIRE(back.sms == 132);
}
