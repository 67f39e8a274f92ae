// The harness itself: the verifier, the byte and flop model, the inputs, the statistics and the
// command line. If these are wrong, every step's figures are.
#include <cmath>
#include <limits>
#include <sstream>

#include "cli.hpp"
#include "support.hpp"
#include "timing.hpp"

using namespace gemv;

namespace {

template <class T>
struct Planted {
    HostProblem<T> p;
    Reference ref;
    std::vector<T> y;
    explicit Planted(Shape s) : p(make_problem<T>(s, 3)), ref(compute_reference(p.A.data(), p.x.data(), s)) {
        for (double v : ref.y) y.push_back(static_cast<T>(v));
    }
    Verification check(RunsOn where = RunsOn::cpu) const { return verify(y.data(), ref, p.shape.n, where); }
};

}  // namespace

TEMPLATE_TEST_CASE("the verifier accepts the reference rounded to the kernel's precision", "[harness]", float, double) {
    Planted<TestType> t({200, 1000, Layout::row});
    const auto v = t.check();
    INFO(v.message);
    REQUIRE(v.ok);
    REQUIRE(v.failed == 0);
}

TEMPLATE_TEST_CASE("the verifier names a planted wrong row", "[harness]", float, double) {
    Planted<TestType> t({200, 1000, Layout::col});
    t.y[137] += TestType(0.5);
    const auto v = t.check();
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.failed == 1);
    REQUIRE(v.unwritten == 0);
    REQUIRE(v.first_failed == std::vector<std::int64_t>{137});
    REQUIRE(v.message.find("row 137") != std::string::npos);
    REQUIRE(v.message.find("outside the bound") != std::string::npos);
}

TEMPLATE_TEST_CASE("an error just above the bound fails and one just below passes", "[harness]", float, double) {
    Planted<TestType> t({50, 4000, Layout::row});
    const std::size_t i = 17;
    const double bound = error_bound(t.ref.abs_sum[i], t.p.shape.n, precision_of<TestType>());
    REQUIRE(bound > 0);
    // The bound is thousands of ulps of y here, so rounding the planted value to T moves it far
    // less than the 2% margin on either side.
    t.y[i] = static_cast<TestType>(t.ref.y[i] + 1.02 * bound);
    REQUIRE_FALSE(t.check().ok);
    t.y[i] = static_cast<TestType>(t.ref.y[i] - 1.02 * bound);
    REQUIRE_FALSE(t.check().ok);
    t.y[i] = static_cast<TestType>(t.ref.y[i] + 0.98 * bound);
    REQUIRE(t.check().ok);
    t.y[i] = static_cast<TestType>(t.ref.y[i] - 0.98 * bound);
    REQUIRE(t.check().ok);
}

TEST_CASE("one ulp too many fails only where the bound is under an ulp", "[harness]") {
    // A 1x1 product: the bound is 1·eps·|a·x|, about two ulps of y. One ulp off passes...
    Planted<float> t({1, 1, Layout::row});
    t.y[0] = std::nextafter(static_cast<float>(t.ref.y[0]), 10.0f);
    REQUIRE(t.check().ok);
    // ...but with the reference made exact and y four ulps away, it fails.
    t.y[0] = static_cast<float>(t.ref.y[0]);
    for (int k = 0; k < 4; ++k) t.y[0] = std::nextafter(t.y[0], 10.0f);
    REQUIRE_FALSE(t.check().ok);
}

TEMPLATE_TEST_CASE("unwritten rows (still NaN) are reported as never written", "[harness]", float, double) {
    Planted<TestType> t({300, 20, Layout::row});
    for (std::size_t i = 100; i < 300; ++i) t.y[i] = poison_value<TestType>();
    const auto v = t.check();
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.failed == 200);
    REQUIRE(v.unwritten == 200);
    REQUIRE(v.first_failed.front() == 100);
    REQUIRE(v.message.find("never written") != std::string::npos);
}

TEST_CASE("the advice for unwritten rows fits where the kernel ran", "[harness]") {
    Planted<float> t({30, 20, Layout::row});
    t.y[7] = poison_value<float>();
    const std::string cpu = t.check(RunsOn::cpu).message, gpu = t.check(RunsOn::gpu).message,
                      mpi = t.check(RunsOn::mpi).message;
    INFO(cpu << "\n" << gpu << "\n" << mpi);
    REQUIRE(cpu.find("loop over the rows") != std::string::npos);
    REQUIRE(gpu.find("the grid and its guard") != std::string::npos);
    REQUIRE(mpi.find("every rank") != std::string::npos);
    for (const std::string& not_gpu : {cpu, mpi}) {
        REQUIRE(not_gpu.find("grid") == std::string::npos);
        REQUIRE(not_gpu.find("thread") == std::string::npos);
    }
}

TEST_CASE("NaN and Inf in the reference must be matched exactly", "[harness]") {
    Reference ref;
    ref.y = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1.0};
    ref.abs_sum = {1, 1, 1};
    std::vector<float> y = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1.0f};
    REQUIRE(verify(y.data(), ref, 1, RunsOn::cpu).ok);
    y[0] = 0.0f;  // a number where the reference is NaN
    REQUIRE_FALSE(verify(y.data(), ref, 1, RunsOn::cpu).ok);
    y[0] = std::numeric_limits<float>::quiet_NaN();
    y[1] = -std::numeric_limits<float>::infinity();  // the wrong infinity
    REQUIRE_FALSE(verify(y.data(), ref, 1, RunsOn::cpu).ok);
    y[1] = std::numeric_limits<float>::infinity();
    y[2] = std::numeric_limits<float>::quiet_NaN();  // NaN where a number belongs
    const auto v = verify(y.data(), ref, 1, RunsOn::cpu);
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.unwritten == 1);
}

TEST_CASE("the byte and flop model counts in 64 bits past 2^32 elements", "[harness]") {
    const std::int64_t m = 100000, n = 100000;  // 10^10 elements > 2^32
    REQUIRE(model_flops(m, n) == 20000000000ULL);
    REQUIRE(model_bytes(m, n, 4) == 40000000000ULL + 800000ULL);
    REQUIRE(model_bytes(m, n, 8) == 80000000000ULL + 1600000ULL);
    REQUIRE(matrix_bytes(65536, 65537, 4) == 4ULL * 65536ULL * 65537ULL);
    REQUIRE_THROWS_AS(model_bytes(std::int64_t(1) << 40, std::int64_t(1) << 30, 8), std::overflow_error);
    const Traffic t = traffic_x_per_row(m, n);
    REQUIRE(cgma(t, m, n) == Approx(0.5).epsilon(1e-4));           // Greenstreet's 1/2: two loads per multiply-add
    REQUIRE(intensity(t, m, n, 4) == Approx(0.25).epsilon(1e-4));  // DESIGN: 0.25 flop/byte in float
}

TEST_CASE("step 15's formats: A and x in their own size, y in float", "[harness]") {
    const std::int64_t m = 100000, n = 100000;
    REQUIRE(model_bytes(m, n, Precision::f32) == model_bytes(m, n, 4));
    REQUIRE(model_bytes(m, n, Precision::f64) == model_bytes(m, n, 8));
    REQUIRE(model_bytes(m, n, Precision::bf16) == 2ULL * 10000000000ULL + 2ULL * n + 4ULL * m);
    REQUIRE(model_bytes(m, n, Precision::f16) == model_bytes(m, n, Precision::bf16));
    REQUIRE(model_bytes(m, n, Precision::fp8) == 10000000000ULL + 1ULL * n + 4ULL * m);
    for (Precision p : {Precision::f32, Precision::f64, Precision::bf16, Precision::f16, Precision::fp8}) {
        Precision back = Precision::f32;
        REQUIRE(parse_precision(to_string(p), back));
        REQUIRE(back == p);
    }
    Precision unused;
    REQUIRE_FALSE(parse_precision("half", unused));
    // Added up in float: the bound of a bf16 product is float's, not bf16's.
    REQUIRE(error_bound(1.0, 100, Precision::bf16) == error_bound(1.0, 100, Precision::f32));
}

TEST_CASE("inputs are seeded, in [-1, 1), never constant, the same matrix in both layouts", "[harness]") {
    const auto r = make_problem<double>({37, 41, Layout::row}, 5);
    const auto c = make_problem<double>({37, 41, Layout::col}, 5);
    const auto other = make_problem<double>({37, 41, Layout::row}, 6);
    double lo = 1, hi = -1;
    bool differs_from_other_seed = false;
    for (std::int64_t i = 0; i < 37; ++i)
        for (std::int64_t j = 0; j < 41; ++j) {
            const double a = r.A[std::size_t(i * 41 + j)];
            REQUIRE(a == c.A[std::size_t(j * 37 + i)]);
            lo = std::min(lo, a);
            hi = std::max(hi, a);
            differs_from_other_seed |= a != other.A[std::size_t(i * 41 + j)];
        }
    REQUIRE(lo >= -1.0);
    REQUIRE(hi < 1.0);
    REQUIRE(hi - lo > 1.0);
    REQUIRE(differs_from_other_seed);
    for (double v : r.x) REQUIRE(v != 0.0);
}

TEST_CASE("the reference is the same in both layouts", "[harness]") {
    const auto r = make_problem<float>({5000, 7, Layout::row}, 9);
    const auto c = make_problem<float>({5000, 7, Layout::col}, 9);
    const auto rr = compute_reference(r.A.data(), r.x.data(), r.shape);
    const auto rc = compute_reference(c.A.data(), c.x.data(), c.shape);
    REQUIRE(rr.y == rc.y);
    REQUIRE(rr.abs_sum == rc.abs_sum);
}

TEST_CASE("tables show a run's figures only where they mean something", "[harness]") {
    // A failed run shows no GB/s, % of the ceiling or GFLOP/s, on the CPU or the GPU.
    for (const bool cpu : {true, false}) {
        const ShownFigures f = shown_figures(850.0, 718.0, 425.0, 5.0, true, cpu, false);
        REQUIRE(f.gbps == "-");
        REQUIRE(f.pct_ceiling == "-");
        REQUIRE(f.gflops == "-");
    }
    // A CPU run under the noise floor shows its GB/s but says "noise" for the %; a GPU run does not.
    const ShownFigures quick_cpu = shown_figures(20.0, 150.0, 10.0, 0.5 * kCpuNoiseFloorMs, false, true, false);
    REQUIRE(quick_cpu.noise);
    REQUIRE(quick_cpu.pct_ceiling == "noise");
    REQUIRE(quick_cpu.gbps == "20.0");
    REQUIRE(shown_figures(20.0, 150.0, 10.0, 0.5 * kCpuNoiseFloorMs, false, false, false).pct_ceiling == "150.0");
    REQUIRE(shown_figures(20.0, 80.0, 10.0, 2 * kCpuNoiseFloorMs, false, true, false).pct_ceiling == "80.0");

    // The step's own table: a wrong run's row has no figures, and the noise line appears only when used.
    Result wrong;
    wrong.step = "01";
    wrong.shape = {300, 257, Layout::row};
    wrong.time = summarize({0.001, 0.001, 0.001});
    wrong.ceiling_gbps = 10;
    std::ostringstream table;
    print_results(table, Format::table, cpu_metadata(), {wrong});
    INFO(table.str());
    REQUIRE(table.str().find("NO") != std::string::npos);
    REQUIRE(table.str().find(fixed(wrong.pct_ceiling(), 1)) == std::string::npos);
    REQUIRE(table.str().find("noise:") == std::string::npos);
    Result quick = wrong;
    quick.verified = true;
    std::ostringstream table2;
    print_results(table2, Format::table, cpu_metadata(), {quick});
    REQUIRE(table2.str().find(noise_note()) != std::string::npos);
}

TEST_CASE("the CPU ceiling is measured only where a table compares a figure with it", "[harness]") {
    Result quick;
    quick.time = summarize({0.5 * kCpuNoiseFloorMs});
    std::vector<Result> all_quick = {quick, quick};
    set_cpu_ceiling(all_quick);
    for (const Result& r : all_quick) REQUIRE(r.ceiling_gbps == 0);
    Result slow = quick;
    slow.time = summarize({2 * kCpuNoiseFloorMs});
    std::vector<Result> one_slow = {quick, slow};
    set_cpu_ceiling(one_slow);
    // Measured: a figure, or "busy" where the test ran beside other processes (as under CI).
    REQUIRE((one_slow[0].ceiling_gbps > 0) != one_slow[0].ceiling_busy);
    REQUIRE(one_slow[0].ceiling_gbps == one_slow[1].ceiling_gbps);
    REQUIRE(one_slow[0].ceiling_busy == one_slow[1].ceiling_busy);
}

TEST_CASE("the CPU ceiling keeps only passes whose threads ran, and is busy where a stream count has none",
          "[harness]") {
    const double ran = kCeilingCpuShare, starved = 0.5 * kCeilingCpuShare;
    // The fastest pass that ran is kept; a faster one whose threads waited for a core is not.
    REQUIRE(trusted_ceiling_seconds({{1, 0.30, 1.0}, {8, 0.20, ran}, {8, 0.10, starved}, {1, 0.25, 0.99}}) == 0.20);
    // Every stream count tried needs a pass that ran: without the eight-stream passes the ceiling
    // would be the one-stream pass's, low where eight streams read faster.
    REQUIRE(trusted_ceiling_seconds({{1, 0.30, 1.0}, {8, 0.20, starved}, {8, 0.22, starved}}) == 0);
    REQUIRE(trusted_ceiling_seconds({{1, 0.30, starved}, {8, 0.20, starved}}) == 0);
    REQUIRE(trusted_ceiling_seconds({}) == 0);
}

TEST_CASE("a ceiling taken on a busy host shows busy, not a %, in tables, CSV and JSON", "[harness]") {
    const ShownFigures busy = shown_figures(20.0, 117.0, 10.0, 2 * kCpuNoiseFloorMs, false, true, true);
    REQUIRE(busy.busy);
    REQUIRE(busy.pct_ceiling == kCeilingBusy);
    REQUIRE(busy.gbps == "20.0");
    // A failed run still shows no figures, and a run under the noise floor still says "noise".
    REQUIRE(shown_figures(20.0, 117.0, 10.0, 2 * kCpuNoiseFloorMs, true, true, true).pct_ceiling == "-");
    REQUIRE(shown_figures(20.0, 117.0, 10.0, 0.5 * kCpuNoiseFloorMs, false, true, true).pct_ceiling == "noise");

    Result r;
    r.step = "02";
    r.shape = {4096, 4096, Layout::row};
    r.time = summarize({5.0});
    r.verified = true;
    r.ceiling_busy = true;
    std::ostringstream table, csv, json;
    print_results(table, Format::table, cpu_metadata(), {r});
    print_results(csv, Format::csv, cpu_metadata(), {r});
    print_results(json, Format::json, cpu_metadata(), {r});
    INFO(table.str() << csv.str() << json.str());
    REQUIRE(table.str().find("busy host") != std::string::npos);
    REQUIRE(table.str().find(busy_note()) != std::string::npos);
    REQUIRE(csv.str().find(",busy,busy,") != std::string::npos);  // ceiling_gbps, pct_ceiling
    REQUIRE(json.str().find("\"ceiling_gbps\": \"busy\", \"pct_ceiling\": \"busy\"") != std::string::npos);
    r.ceiling_busy = false;
    r.ceiling_gbps = 40;
    std::ostringstream quiet;
    print_results(quiet, Format::table, cpu_metadata(), {r});
    REQUIRE(quiet.str().find(busy_note()) == std::string::npos);
}

TEST_CASE("timings are summarised by median, min and max", "[harness]") {
    const Stats odd = summarize({5, 1, 3});
    REQUIRE(odd.median_ms == 3);
    REQUIRE(odd.min_ms == 1);
    REQUIRE(odd.max_ms == 5);
    REQUIRE(odd.reps == 3);
    REQUIRE(summarize({4, 1, 2, 3}).median_ms == 2.5);
}

namespace {

StepSpec test_spec() {
    StepSpec s;
    s.number = "99";
    s.name = "test";
    s.title = "a test";
    s.layouts = {Layout::col};
    s.options = {integer_option("block-size", "threads per block", 256, 32, 1024, 32),
                 choice_option("variant", "which", "a", {"a", "b"})};
    return s;
}

std::string usage_error(std::vector<const char*> args) {
    args.insert(args.begin(), "prog");
    try {
        parse_options(int(args.size()), args.data(), test_spec());
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the command line parses good input", "[harness][cli]") {
    std::vector<const char*> args = {
        "prog",    "--m", "33",       "--n=4097", "--precision",  "double", "--layout",  "col", "--reps",     "3",
        "--cache", "hot", "--format", "json",     "--block-size", "64",     "--variant", "b",   "--no-verify"};
    const Options o = parse_options(int(args.size()), args.data(), test_spec());
    REQUIRE(o.shape.m == 33);
    REQUIRE(o.shape.n == 4097);
    REQUIRE(o.shape.layout == Layout::col);
    REQUIRE(o.precision == Precision::f64);
    REQUIRE(o.reps == 3);
    REQUIRE_FALSE(o.cold);
    REQUIRE(o.format == Format::json);
    REQUIRE(o.integer("block-size") == 64);
    REQUIRE(o.text("variant") == "b");
    REQUIRE_FALSE(o.verify);
    REQUIRE(o.given(CommonOption::m));
    REQUIRE_FALSE(o.given(CommonOption::warmup));
}

TEST_CASE("typed options: an option with no default is an unset optional until given", "[harness][cli]") {
    StepSpec s = test_spec();
    s.options.push_back(integer_option("k", "inner dimension (default: the same as --n)", std::nullopt, 1, 100));
    const char* none[] = {"prog"};
    const Options unset = parse_options(1, none, s);
    REQUIRE_FALSE(unset.integer_if_set("k"));
    REQUIRE(unset.integer("block-size") == 256);  // the default
    REQUIRE_THROWS_AS(unset.integer("k"), std::logic_error);
    REQUIRE_THROWS_AS(unset.text("block-size"), std::logic_error);  // a number, not text
    const char* given[] = {"prog", "--k", "7"};
    REQUIRE(parse_options(3, given, s).integer_if_set("k") == 7);
    REQUIRE(usage(s).find("--k N               inner dimension (default: the same as --n)\n") != std::string::npos);
}

TEST_CASE("a tool takes only the common options it declares", "[harness][cli]") {
    StepSpec s = test_spec();
    s.common = {CommonOption::precision, CommonOption::reps};
    const char* reps[] = {"prog", "--reps", "3", "--precision", "double"};
    REQUIRE(parse_options(5, reps, s).reps == 3);
    for (const char* undeclared : {"--m", "--cache", "--format", "--no-verify"}) {
        const char* args[] = {"prog", undeclared, "1"};
        try {
            parse_options(3, args, s);
            FAIL(std::string(undeclared) + " was taken");
        } catch (const UsageError& e) {
            REQUIRE(std::string(e.what()).find("unknown option '" + std::string(undeclared) + "'") == 0);
        }
    }
    REQUIRE(usage(s).find("--m ") == std::string::npos);
    REQUIRE(usage(s).find("--reps N") != std::string::npos);
}

TEST_CASE("the command line refuses every bad input with a message naming it", "[harness][cli]") {
    REQUIRE(usage_error({"--m", "0"}).find("--m must be between 1") != std::string::npos);
    REQUIRE(usage_error({"--n", "-3"}).find("--n must be between 1") != std::string::npos);
    REQUIRE(usage_error({"--m", "abc"}).find("--m takes a whole number, not 'abc'") != std::string::npos);
    REQUIRE(usage_error({"--m", "1e6"}).find("whole number") != std::string::npos);
    REQUIRE(usage_error({"--m", "99999999999999999999999"}).find("fits in 64 bits") != std::string::npos);
    REQUIRE(usage_error({"--m", ""}).find("needs a value") != std::string::npos);
    REQUIRE(usage_error({"--n"}).find("--n needs a value") != std::string::npos);
    REQUIRE(usage_error({"--frobnicate", "1"}).find("unknown option '--frobnicate'") != std::string::npos);
    // Last on the line, with no value after it, an unknown option is still named as unknown.
    REQUIRE(usage_error({"--m", "3", "--bogus"}) == "unknown option '--bogus'");
    REQUIRE(usage_error({"--block", "64"}) == "unknown option '--block' (did you mean --block-size?)");
    REQUIRE(usage_error({"--variants=a"}) == "unknown option '--variants' (did you mean --variant?)");
    REQUIRE(usage_error({"stray"}).find("unexpected argument 'stray'") != std::string::npos);
    REQUIRE(usage_error({"--layout", "row"}).find("not supported") != std::string::npos);
    REQUIRE(usage_error({"--precision", "half"}).find("float or double") != std::string::npos);
    REQUIRE(usage_error({"--precision", "bf16"}) == "--precision is float or double here, not 'bf16'");
    REQUIRE(usage_error({"--cache", "warm"}).find("cold or hot") != std::string::npos);
    REQUIRE(usage_error({"--format", "xml"}).find("table, csv or json") != std::string::npos);
    REQUIRE(usage_error({"--block-size", "16"}).find("between 32 and 1024") != std::string::npos);
    REQUIRE(usage_error({"--block-size", "48"}) == "--block-size must be a multiple of 32, not 48");
    REQUIRE(usage_error({"--variant", "c"}).find("does not take 'c'") != std::string::npos);
    REQUIRE(usage_error({"--reps", "0"}).find("--reps must be between 1") != std::string::npos);
    // m·n·8 does not fit in 64 bits.
    REQUIRE(
        usage_error({"--m", "5000000000", "--n", "5000000000", "--precision", "double"}).find("overflows 64 bits") !=
        std::string::npos);
}

TEST_CASE("a step that declares other precisions takes those and refuses the rest", "[harness][cli]") {
    StepSpec spec = test_spec();
    spec.precisions = {Precision::bf16, Precision::f16, Precision::fp8};
    const char* none[] = {"prog"};
    REQUIRE(parse_options(1, none, spec).precision == Precision::bf16);  // the first is the default
    const char* fp8[] = {"prog", "--precision", "fp8"};
    REQUIRE(parse_options(3, fp8, spec).precision == Precision::fp8);
    const char* f32[] = {"prog", "--precision", "float"};
    REQUIRE_THROWS_WITH(parse_options(3, f32, spec), "--precision is bf16, fp16 or fp8 here, not 'float'");
    REQUIRE(usage(spec).find("--precision P       bf16|fp16|fp8 (default bf16)") != std::string::npos);
}

TEST_CASE("run_step turns failures into exit codes", "[harness][cli]") {
    const StepSpec s = test_spec();
    const char* bad[] = {"prog", "--m", "0"};
    REQUIRE(run_step(3, bad, s, [](const Options&) { return 0; }) == kExitUsage);
    const char* help[] = {"prog", "--help"};
    REQUIRE(run_step(2, help, s, [](const Options&) { return 5; }) == kExitOk);
    const char* none[] = {"prog"};
    REQUIRE(run_step(1, none, s, [](const Options&) -> int { throw NoDevice("none"); }) == kExitNoDevice);
    REQUIRE(run_step(1, none, s, [](const Options&) -> int { throw std::runtime_error("boom"); }) == kExitError);
    REQUIRE(run_step(1, none, s, [](const Options&) { return int(kExitWrong); }) == kExitWrong);
}
