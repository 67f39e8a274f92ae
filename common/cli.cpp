#include "cli.hpp"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>

namespace gemv {

std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t min, std::int64_t max) {
    if (text.empty()) throw UsageError("--" + option + " needs a value");
    const std::size_t first = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    bool digits = text.size() > first;
    for (std::size_t k = first; k < text.size(); ++k) digits &= text[k] >= '0' && text[k] <= '9';
    if (!digits) throw UsageError("--" + option + " takes a whole number, not '" + text + "'");
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || end != text.c_str() + text.size())
        throw UsageError("--" + option + " takes a whole number that fits in 64 bits, not '" + text + "'");
    if (v < min || v > max)
        throw UsageError("--" + option + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", not " + text);
    return v;
}

std::int64_t Options::get_int(const std::string& name) const {
    return std::stoll(get(name));
}

const std::string& Options::get(const std::string& name) const {
    const auto it = step_options.find(name);
    if (it == step_options.end()) throw std::logic_error("step option --" + name + " is not declared");
    return it->second;
}

std::string usage(const StepSpec& spec) {
    std::ostringstream u;
    // Steps are stepNN_name; a tool that is no step (the ladder) gives its name as its number.
    const std::string program = spec.number == spec.name ? spec.name : "step" + spec.number + "_" + spec.name;
    u << "usage: " << program << " [options]\n"
      << "  " << spec.title << "\n\n"
      << "  --m ROWS            rows of A (default " << spec.default_m << ")\n"
      << "  --n COLS            columns of A (default " << spec.default_n << ")\n"
      << "  --precision P       float|double (default float)\n";
    u << "  --layout L          ";
    for (std::size_t i = 0; i < spec.layouts.size(); ++i) u << (i ? "|" : "") << to_string(spec.layouts[i]);
    u << " (default " << to_string(spec.layouts.front()) << ")\n"
      << "  --reps N            timed repetitions; the median is reported (default " << spec.default_reps << ")\n"
      << "  --warmup N          untimed runs first (default 2)\n"
      << "  --seed S            seed of the pseudo-random inputs (default 42)\n"
      << "  --cache MODE        cold: evict the cache before each timed run; hot: do not (default cold)\n"
      << "  --format F          table|csv|json (default table)\n"
      << "  --no-verify         skip the comparison with the CPU reference\n";
    for (const auto& o : spec.options) {
        std::string flag = "--" + o.name + (o.choices.empty() && !o.text ? " N" : " X");
        flag.resize(std::max<std::size_t>(flag.size() + 1, 20), ' ');
        u << "  " << flag << o.help;
        if (!o.choices.empty()) {
            u << " (";
            for (std::size_t i = 0; i < o.choices.size(); ++i) u << (i ? "|" : "") << o.choices[i];
            u << ")";
        }
        u << " (default " << o.default_value << ")\n";
    }
    u << "  --help              this text\n"
      << "exit codes: 0 verified, 1 runtime error, 2 bad input, 3 wrong result, 77 no CUDA device\n";
    return u.str();
}

namespace {

const char* const kCommonOptions[] = {"m", "n", "precision", "layout", "reps", "warmup", "seed", "cache", "format"};

bool is_common_option(const std::string& name) {
    for (const char* c : kCommonOptions)
        if (name == c) return true;
    return false;
}

// "unknown option '--step' (did you mean --steps?)": a known option the word begins, or that begins it.
std::string unknown_option_text(const std::string& name, const StepSpec& spec) {
    std::vector<std::string> known(std::begin(kCommonOptions), std::end(kCommonOptions));
    known.push_back("no-verify");
    known.push_back("help");
    for (const auto& o : spec.options) known.push_back(o.name);
    const std::string text = "unknown option '--" + name + "'";
    if (name.size() < 2) return text;
    for (const auto& k : known)
        if (k.rfind(name, 0) == 0) return text + " (did you mean --" + k + "?)";
    for (const auto& k : known)
        if (k.size() >= 2 && name.rfind(k, 0) == 0) return text + " (did you mean --" + k + "?)";
    return text;
}

}  // namespace

Options parse_options(int argc, const char* const* argv, const StepSpec& spec) {
    Options o;
    o.shape = {spec.default_m, spec.default_n, spec.layouts.front()};
    o.reps = spec.default_reps;
    for (const auto& so : spec.options) o.step_options[so.name] = so.default_value;

    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") throw HelpRequested{};
        if (arg == "--no-verify") {
            o.verify = false;
            continue;
        }
        if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
        std::string name = arg.substr(2), value;
        const auto eq = name.find('=');
        if (eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        // An unknown option is named as such, even as the last word, where it has no value either.
        const StepOption* so = nullptr;
        for (const auto& c : spec.options)
            if (c.name == name) so = &c;
        if (!so && !is_common_option(name)) throw UsageError(unknown_option_text(name, spec));
        if (eq == std::string::npos) {
            if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
            value = argv[++i];
        }
        constexpr std::int64_t kMaxDim = INT64_MAX / 16;
        if (name == "m") {
            o.shape.m = parse_int(name, value, 1, kMaxDim);
        } else if (name == "n") {
            o.shape.n = parse_int(name, value, 1, kMaxDim);
        } else if (name == "precision") {
            if (value == "float")
                o.precision = Precision::f32;
            else if (value == "double")
                o.precision = Precision::f64;
            else
                throw UsageError("--precision is float or double, not '" + value + "'");
        } else if (name == "layout") {
            Layout l;
            if (value == "row")
                l = Layout::row;
            else if (value == "col")
                l = Layout::col;
            else
                throw UsageError("--layout is row or col, not '" + value + "'");
            bool supported = false;
            for (Layout s : spec.layouts) supported |= s == l;
            if (!supported)
                throw UsageError("step " + spec.number + " works on " + layout_word(spec.layouts.front()) +
                                 " A only; --layout " + value + " is not supported here");
            o.shape.layout = l;
        } else if (name == "reps") {
            o.reps = static_cast<int>(parse_int(name, value, 1, 100000));
        } else if (name == "warmup") {
            o.warmup = static_cast<int>(parse_int(name, value, 0, 100000));
        } else if (name == "seed") {
            o.seed = static_cast<std::uint64_t>(parse_int(name, value, 0, INT64_MAX));
            o.seed_given = true;
        } else if (name == "cache") {
            if (value == "cold")
                o.cold = true;
            else if (value == "hot")
                o.cold = false;
            else
                throw UsageError("--cache is cold or hot, not '" + value + "'");
        } else if (name == "format") {
            if (value == "table")
                o.format = Format::table;
            else if (value == "csv")
                o.format = Format::csv;
            else if (value == "json")
                o.format = Format::json;
            else
                throw UsageError("--format is table, csv or json, not '" + value + "'");
        } else {
            if (so->text) {
                if (value.empty()) throw UsageError("--" + name + " needs a value");
                if (so->check)
                    if (const std::string why = so->check(value); !why.empty())
                        throw UsageError("--" + name + " " + why);
            } else if (so->choices.empty()) {
                parse_int(name, value, so->min, so->max);
            } else {
                bool known = false;
                for (const auto& c : so->choices) known |= c == value;
                if (!known) throw UsageError("--" + name + " does not take '" + value + "'");
            }
            o.step_options[name] = value;
        }
    }
    // The bytes of A must be countable: m·n·size fits in 64 bits.
    try {
        model_bytes(o.shape.m, o.shape.n, element_size(o.precision));
    } catch (const std::overflow_error& e) {
        throw UsageError(std::string("--m ") + std::to_string(o.shape.m) + " --n " + std::to_string(o.shape.n) + ": " +
                         e.what());
    }
    return o;
}

Result result_of(const StepSpec& spec, const Options& o, const std::string& variant) {
    Result r;
    r.step = spec.number;
    r.name = spec.name;
    r.variant = variant;
    r.shape = o.shape;
    r.precision = o.precision;
    r.cold = o.cold;
    r.verify_skipped = !o.verify;
    return r;
}

int run_step(int argc, const char* const* argv, const StepSpec& spec, const std::function<int(const Options&)>& body) {
    try {
        const Options o = parse_options(argc, argv, spec);
        return body(o);
    } catch (const HelpRequested&) {
        std::cout << usage(spec);
        return kExitOk;
    } catch (const UsageError& e) {
        std::cerr << "error: " << e.what() << "\n" << usage(spec);
        return kExitUsage;
    } catch (const NoDevice& e) {
        std::cerr << "no CUDA device: " << e.what() << "\n";
        return kExitNoDevice;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of host memory for this problem size\n";
        return kExitError;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kExitError;
    }
}

}  // namespace gemv
