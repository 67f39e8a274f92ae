// Step 11's tuning table: the nearest mesh point by shape, and a warning and the heuristic (never
// a crash, never an invalid configuration) for a missing, corrupt or foreign file.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "support.hpp"
#include "tuning_table.hpp"

namespace {

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/gemv_test_" + name;
    std::ofstream(path) << text;
    return path;
}

TuningTable two_point_table() {
    TuningTable t;
    t.device = "Test GPU";
    t.precision = "float";
    t.layout = "col";
    // Tall: one thread per row group. Wide: threads along the columns, rows split across blocks.
    t.points.push_back({1 << 20, 16, {256, 4, 4, 256, 1}, 100});
    t.points.push_back({16, 1 << 20, {512, 4, 2, 4, 64}, 100});
    return t;
}

// A table of the test device's for one precision and layout, saved at /tmp/gemv_test_<name>.json.
std::string saved_table(const std::string& name, const char* precision, const char* layout,
                        const std::vector<TunedPoint>& points) {
    TuningTable t;
    t.device = "Test GPU";
    t.precision = precision;
    t.layout = layout;
    t.points = points;
    const std::string path = "/tmp/gemv_test_" + name + ".json";
    save_tuning_table(t, path);
    return path;
}

}  // namespace

TEST_CASE("step 11: the table is chosen by shape, not by size", "[step11]") {
    const std::string path = "/tmp/gemv_test_table.json";
    save_tuning_table(two_point_table(), path);
    const auto tall = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f32, 1 << 21, 8);
    REQUIRE(tall.config.threads_along == 256);
    REQUIRE(tall.config.splits == 1);
    const auto wide = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f32, 16, 1 << 21);
    REQUIRE(wide.config.threads_along == 4);
    REQUIRE(wide.config.splits == 64);
    // A shape narrower than the tuned row group gets fewer threads along it, none idle.
    const auto short_rows = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f32, 8, 1 << 20);
    REQUIRE(short_rows.config.threads_along == 2);
    // A shape whose m the tuned vector does not divide gets a narrower vector, not a failure.
    const auto odd = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f32, 1000003, 16);
    REQUIRE(odd.config.vector == 1);
    REQUIRE(versatile_invalid(odd.config, gemv::Layout::col, 1000003, 16, 4).empty());
    std::remove(path.c_str());
}

TEST_CASE("step 11: a saved table loads back the same", "[step11]") {
    const std::string path = "/tmp/gemv_test_roundtrip.json";
    save_tuning_table(two_point_table(), path);
    const TuningTable t = load_tuning_table(path);
    REQUIRE(t.points.size() == 2);
    REQUIRE(t.points[1].config.splits == 64);
    REQUIRE(t.points[1].n == (1 << 20));
    std::remove(path.c_str());
}

TEST_CASE("step 11: a missing, corrupt or foreign table falls back to a valid heuristic", "[step11]") {
    const std::string corrupt = write_file("corrupt.json", "{\"device\": \"Test GPU\", \"points\": [ {\"m\": ");
    const std::string invalid = write_file(
        "invalid.json",
        "{\"device\": \"Test GPU\", \"precision\": \"float\", \"layout\": \"col\", \"points\": [{\"m\": 10, \"n\": 10,"
        " \"block\": 100, \"vector\": 4, \"unroll\": 4, \"threads_along\": 3, \"splits\": 1}]}");
    const std::string foreign = "/tmp/gemv_test_foreign.json";
    save_tuning_table(two_point_table(), foreign);
    for (const auto& [path, device] :
         std::vector<std::pair<std::string, std::string>>{{"/tmp/does/not/exist.json", "Test GPU"},
                                                          {corrupt, "Test GPU"},
                                                          {invalid, "Test GPU"},
                                                          {foreign, "Another GPU"}}) {
        for (auto layout : {gemv::Layout::col, gemv::Layout::row})
            for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 4097}, {1000000, 3}, {3, 1000000}}) {
                const auto c = choose_config(path, device, 132, layout, gemv::Precision::f64, m, n);
                INFO(path << " " << m << " x " << n);
                REQUIRE(c.source.rfind("heuristic", 0) == 0);
                REQUIRE(versatile_invalid(c.config, layout, m, n, 8).empty());
            }
    }
}

TEST_CASE("step 11: the mesh axis is logarithmic from 10 and increasing", "[step11]") {
    const auto axis = mesh_axis(24, 100000000);
    REQUIRE(axis.size() == 24);
    REQUIRE(axis.front() == 10);
    REQUIRE(axis.back() == 100000000);
    for (std::size_t k = 1; k < axis.size(); ++k) REQUIRE(axis[k] > axis[k - 1]);
}

TEST_CASE(
    "step 11: a flat configuration moves to a shape with a valid grid, or off flat where a row group fits "
    "m exactly or m is too large",
    "[step11]") {
    // 43 rows read flat on 43 * 25 blocks (block * vector = 1024, so the grid is a multiple of 43).
    const std::string path =
        saved_table("flat_table", "float", "col", {{43, 1 << 20, {256, 4, 2, 256, 43 * 25, false, true}, 100}});
    REQUIRE(load_tuning_table(path).points[0].config.flat);
    for (std::int64_t m : {std::int64_t(41), std::int64_t(45), std::int64_t(44), std::int64_t(64), kFlatMaxRows + 1}) {
        INFO("m = " << m);
        const auto c = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f32, m, 1 << 20);
        const bool exact_row_group = m == 64;  // 16 threads of 4 rows
        REQUIRE(c.config.flat == (m <= kFlatMaxRows && !exact_row_group));
        if (exact_row_group) REQUIRE(c.config.threads_along == 16);
        REQUIRE(versatile_invalid(c.config, gemv::Layout::col, m, 1 << 20, 4).empty());
        REQUIRE(c.source.rfind("tuned", 0) == 0);  // the table's choice, adapted, not the heuristic
    }
    std::remove(path.c_str());
}

TEST_CASE("step 11: a split configuration moved to another m keeps whole waves of blocks", "[step11]") {
    // 20 rows, four to a block (5 row blocks), split 1690 ways: 8450 blocks, 4.0 waves of 132 * 16.
    const std::int64_t n = 12996488;
    std::string path = saved_table("wave_table", "double", "row", {{20, n, {128, 2, 2, 32, 1690}, 100}});
    const std::int64_t wave = blocks_per_wave(132, 128);
    for (std::int64_t m : {std::int64_t(4), std::int64_t(12), std::int64_t(16), std::int64_t(20), std::int64_t(64)}) {
        INFO("m = " << m);
        const auto c = choose_config(path, "Test GPU", 132, gemv::Layout::row, gemv::Precision::f64, m, n);
        REQUIRE(versatile_invalid(c.config, gemv::Layout::row, m, n, 8).empty());
        const std::int64_t rows = versatile_row_blocks(c.config, gemv::Layout::row, m, n);
        const std::int64_t blocks = rows * c.config.splits;
        if (m == 20) {
            REQUIRE(c.config.splits == 1690);  // the tuned point itself runs as tuned
        } else {
            REQUIRE(std::llabs(blocks - 4 * wave) <= rows / 2);  // four waves, to the nearest row of blocks
        }
    }
    std::remove(path.c_str());

    // Flat: 10 rows on 4225 blocks of 256 (4 waves and one block). At 6 rows (a grid of a multiple
    // of 3), 4 whole waves; at 4 rows, which 2 threads of 2 cover exactly, per row group on 4 waves.
    path = saved_table("wave_table", "double", "col", {{10, n, {256, 2, 2, 256, 4225, false, true}, 100}});
    const auto six = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f64, 6, n).config;
    REQUIRE(six.flat);
    REQUIRE(six.splits == 4 * blocks_per_wave(132, 256));
    const auto four = choose_config(path, "Test GPU", 132, gemv::Layout::col, gemv::Precision::f64, 4, n).config;
    REQUIRE_FALSE(four.flat);
    REQUIRE(four.threads_along == 2);
    REQUIRE(four.splits == 4 * blocks_per_wave(132, 256));
    REQUIRE(versatile_invalid(four, gemv::Layout::col, 4, n, 8).empty());
    std::remove(path.c_str());
}

TEST_CASE("step 11: a flat row-major configuration moved to longer rows shares them until they fit", "[step11]") {
    // 43 floats a row, 256 rows a block (44 KiB of shared memory).
    const std::string path =
        saved_table("flat_row_table", "float", "row", {{23746040, 43, {256, 4, 4, 1, 1, false, true}, 100}});
    // 97 floats a row: 256 rows take 97 KiB, 128 rows 48.5 KiB, so 4 threads a row (64 rows).
    const auto tall = choose_config(path, "Test GPU", 132, gemv::Layout::row, gemv::Precision::f32, 9000000, 97);
    REQUIRE(tall.config.flat);
    REQUIRE(tall.config.threads_along == 4);
    REQUIRE(versatile_invalid(tall.config, gemv::Layout::row, 9000000, 97, 4).empty());
    // 20001 floats a row: too long for even 8 rows of a 256-thread block, so read in place.
    const auto wide = choose_config(path, "Test GPU", 132, gemv::Layout::row, gemv::Precision::f32, 9000, 20001);
    REQUIRE_FALSE(wide.config.flat);
    REQUIRE(versatile_invalid(wide.config, gemv::Layout::row, 9000, 20001, 4).empty());
    std::remove(path.c_str());
}
