// The command line every step program shares, and the exit codes it ends with.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "errors.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace gemv {

// A step's own option, beyond the common ones (--block-size, --variant, ...).
struct StepOption {
    std::string name;  // without the leading dashes
    std::string help;
    std::string default_value;
    std::vector<std::string> choices;  // empty: an integer in [min, max] (or any text when text)
    std::int64_t min = 1;
    std::int64_t max = INT32_MAX;
    bool text = false;
    // Text options: what is wrong with a value ("" when it is good), checked as the command line is
    // read, so that bad input is refused (exit 2) before any device is asked for.
    std::function<std::string(const std::string&)> check;
};

struct StepSpec {
    std::string number;  // "03"
    std::string name;    // "naive"
    std::string title;   // one line: the idea of the step
    bool gpu = false;
    std::vector<Layout> layouts{Layout::row};  // the first is the default
    std::int64_t default_m = 4096;
    std::int64_t default_n = 4096;
    int default_reps = 15;
    std::vector<StepOption> options;
};

struct Options {
    Shape shape;
    Precision precision = Precision::f32;
    int reps = 15;
    int warmup = 2;
    std::uint64_t seed = 42;
    bool seed_given = false;  // --seed was on the command line (a tool may draw a fresh one otherwise)
    bool cold = true;
    bool verify = true;
    Format format = Format::table;
    std::map<std::string, std::string> step_options;

    std::int64_t get_int(const std::string& name) const;
    const std::string& get(const std::string& name) const;
};

// --help: main prints the usage and exits 0.
struct HelpRequested {};

Options parse_options(int argc, const char* const* argv, const StepSpec& spec);
std::string usage(const StepSpec& spec);

// Parses a whole decimal number in [min, max]; throws UsageError naming the option otherwise.
std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t min, std::int64_t max);

// A result with what every step fills the same way: the step, the variant, the problem and the
// options it ran with (shape, precision, cache, whether it is verified).
Result result_of(const StepSpec& spec, const Options& o, const std::string& variant);

// Runs body with the step's options and turns every way of failing into its message and exit
// code: the one place that knows the contract's exit codes.
int run_step(int argc, const char* const* argv, const StepSpec& spec, const std::function<int(const Options&)>& body);

}  // namespace gemv
