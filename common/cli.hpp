// The command line every program of the lab shares, and run_step, which ends it with the exit
// code of the contract (errors.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "errors.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace gemv {

// The options every program of the lab may take. A step takes them all (the contract of a step
// program); a tool declares the ones it reads, and is refused the others as unknown.
enum class CommonOption { m, n, precision, layout, reps, warmup, seed, cache, format, verify };
std::vector<CommonOption> every_common_option();

// A program's own option, beyond the common ones (--block-size, --variant, ...), typed: a whole
// number in [min, max], one of a list of words, or text. Where it has no default it is unset unless
// given, and the program reads that as the optional it is (its help says what unset means).
struct StepOption {
    enum class Kind { integer, choice, text };
    std::string name;  // without the leading dashes
    std::string help;
    Kind kind = Kind::integer;
    std::optional<std::string> default_value;  // as the usage shows it
    std::int64_t min = 1, max = INT32_MAX;     // integer
    std::int64_t multiple = 1;                 // integer: a multiple of this (32: whole warps)
    std::vector<std::string> choices;          // choice
    // text: what is wrong with a value ("" when it is good), checked as the command line is read,
    // so that bad input is refused (exit 2) before any device is asked for.
    std::function<std::string(const std::string&)> check;
};
StepOption integer_option(const std::string& name, const std::string& help, std::optional<std::int64_t> default_value,
                          std::int64_t min, std::int64_t max, std::int64_t multiple = 1);
StepOption choice_option(const std::string& name, const std::string& help, const std::string& default_value,
                         const std::vector<std::string>& choices);
StepOption text_option(const std::string& name, const std::string& help, std::optional<std::string> default_value,
                       std::function<std::string(const std::string&)> check = {});

struct StepSpec {
    std::string number;  // "03"; a tool that is no step (the ladder) gives its name
    std::string name;    // "naive"
    std::string title;   // one line: the idea of the step
    std::vector<CommonOption> common = every_common_option();           // a tool: only those it reads
    std::vector<Layout> layouts{Layout::row};                           // the first is the default
    std::vector<Precision> precisions{Precision::f32, Precision::f64};  // the first is the default
    std::int64_t default_m = 4096;
    std::int64_t default_n = 4096;
    int default_reps = 15;
    // A program with no default shape or --reps of its own (the ladder) says here what the usage
    // shows instead, and asks Options::given whether the command line set them.
    std::string default_shape_text, default_reps_text;
    std::vector<StepOption> options;
};

struct Options {
    Shape shape;
    Precision precision = Precision::f32;
    int reps = 15;
    int warmup = 2;
    std::uint64_t seed = 42;
    bool cold = true;
    bool verify = true;
    Format format = Format::table;

    // Whether the command line set a common option (where the program has a use for "not given").
    bool given(CommonOption option) const;
    // A step option's value: integer() for Kind::integer, text() for the others. Asking for an
    // option that is unset (no default, not given), undeclared or of the other kind is a bug in the
    // program (std::logic_error); integer_if_set() is the optional of an option with no default.
    std::int64_t integer(const std::string& name) const;
    std::optional<std::int64_t> integer_if_set(const std::string& name) const;
    const std::string& text(const std::string& name) const;

    std::vector<CommonOption> common_given;
    std::map<std::string, std::variant<std::int64_t, std::string>> step_values;  // the options that are set
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
