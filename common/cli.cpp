#include "cli.hpp"
#include "integer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>

namespace gemv {

namespace {

// An optional sign, then at least one digit.
bool signed_digits(const std::string& text) {
    const std::size_t first = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    return text.size() > first && text.find_first_not_of("0123456789", first) == std::string::npos;
}

}  // namespace

std::optional<std::int64_t> whole_number(const std::string& text) {
    if (!signed_digits(text)) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
    return v;
}

std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t min, std::int64_t max) {
    if (text.empty()) throw UsageError("--" + option + " needs a value");
    const std::optional<std::int64_t> v = whole_number(text);
    if (!v)
        throw UsageError("--" + option + " takes a whole number" +
                         (signed_digits(text) ? " that fits in 64 bits" : "") + ", not '" + text + "'");
    if (*v < min || *v > max)
        throw UsageError("--" + option + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                         ", not " + text);
    return *v;
}

std::vector<CommonOption> every_common_option() {
    return {CommonOption::m,      CommonOption::n,      CommonOption::precision, CommonOption::layout,
            CommonOption::reps,   CommonOption::warmup, CommonOption::seed,      CommonOption::cache,
            CommonOption::format, CommonOption::verify};
}

StepOption integer_option(const std::string& name, const std::string& help, std::optional<std::int64_t> default_value,
                          std::int64_t min, std::int64_t max, std::int64_t multiple) {
    StepOption o;
    o.name = name;
    o.help = help;
    o.kind = StepOption::Kind::integer;
    if (default_value) o.default_value = std::to_string(*default_value);
    o.min = min;
    o.max = max;
    o.multiple = multiple;
    return o;
}

StepOption choice_option(const std::string& name, const std::string& help, const std::string& default_value,
                         const std::vector<std::string>& choices) {
    StepOption o;
    o.name = name;
    o.help = help;
    o.kind = StepOption::Kind::choice;
    o.default_value = default_value;
    o.choices = choices;
    return o;
}

StepOption text_option(const std::string& name, const std::string& help, std::optional<std::string> default_value,
                       std::function<std::string(const std::string&)> check) {
    StepOption o;
    o.name = name;
    o.help = help;
    o.kind = StepOption::Kind::text;
    o.default_value = std::move(default_value);
    o.check = std::move(check);
    return o;
}

bool Options::given(CommonOption option) const {
    return std::find(common_given.begin(), common_given.end(), option) != common_given.end();
}

std::optional<std::int64_t> Options::integer_if_set(const std::string& name) const {
    const auto it = step_values.find(name);
    if (it == step_values.end()) return std::nullopt;
    if (!std::holds_alternative<std::int64_t>(it->second))
        throw std::logic_error("step option --" + name + " is not a whole number");
    return std::get<std::int64_t>(it->second);
}

std::int64_t Options::integer(const std::string& name) const {
    const std::optional<std::int64_t> v = integer_if_set(name);
    if (!v) throw std::logic_error("step option --" + name + " is not declared, or has no default and was not given");
    return *v;
}

const std::string& Options::text(const std::string& name) const {
    const auto it = step_values.find(name);
    if (it == step_values.end())
        throw std::logic_error("step option --" + name + " is not declared, or has no default and was not given");
    if (!std::holds_alternative<std::string>(it->second))
        throw std::logic_error("step option --" + name + " is a whole number, not text");
    return std::get<std::string>(it->second);
}

namespace {

// The common options as the command line names them, and their lines of the usage.
struct CommonName {
    CommonOption option;
    const char* name;
    const char* flag;  // as the usage shows it
    const char* help;  // the rest of its line, where the spec has no default of its own to add
};
constexpr CommonName kCommonNames[] = {
    {CommonOption::m, "m", "--m ROWS", "rows of A"},
    {CommonOption::n, "n", "--n COLS", "columns of A"},
    {CommonOption::precision, "precision", "--precision P", ""},
    {CommonOption::layout, "layout", "--layout L", ""},
    {CommonOption::reps, "reps", "--reps N", "timed repetitions; the median is reported"},
    {CommonOption::warmup, "warmup", "--warmup N", "untimed runs first (default 2)"},
    {CommonOption::seed, "seed", "--seed S", "seed of the pseudo-random inputs (default 42)"},
    {CommonOption::cache, "cache", "--cache MODE",
     "cold: evict the cache before each timed run; hot: do not (default cold)"},
    {CommonOption::format, "format", "--format F", "table|csv|json (default table)"},
    {CommonOption::verify, "no-verify", "--no-verify", "skip the comparison with the CPU reference"}};

bool takes(const StepSpec& spec, CommonOption option) {
    return std::find(spec.common.begin(), spec.common.end(), option) != spec.common.end();
}

// The common option the program takes by this name (--no-verify is a flag, not among them).
std::optional<CommonOption> common_option(const std::string& name, const StepSpec& spec) {
    for (const CommonName& c : kCommonNames)
        if (name == c.name && c.option != CommonOption::verify && takes(spec, c.option)) return c.option;
    return std::nullopt;
}

const StepOption* step_option(const std::string& name, const StepSpec& spec) {
    for (const auto& so : spec.options)
        if (so.name == name) return &so;
    return nullptr;
}

// "  --m ROWS            rows of A (default 4096)": the flag padded to 20 columns, then the help.
std::string usage_line(std::string flag, const std::string& help) {
    flag.resize(std::max<std::size_t>(flag.size() + 1, 20), ' ');
    return "  " + flag + help + "\n";
}

std::string common_usage(const StepSpec& spec, const CommonName& c) {
    const auto or_text = [](const std::string& text, std::int64_t v) {
        return text.empty() ? std::to_string(v) : text;
    };
    std::string help = c.help;
    if (c.option == CommonOption::m) help += " (default " + or_text(spec.default_shape_text, spec.default_m) + ")";
    if (c.option == CommonOption::n) help += " (default " + or_text(spec.default_shape_text, spec.default_n) + ")";
    if (c.option == CommonOption::reps) help += " (default " + or_text(spec.default_reps_text, spec.default_reps) + ")";
    if (c.option == CommonOption::precision) {
        for (std::size_t i = 0; i < spec.precisions.size(); ++i)
            help += (i ? "|" : "") + std::string(to_string(spec.precisions[i]));
        help += " (default " + std::string(to_string(spec.precisions.front())) + ")";
    }
    if (c.option == CommonOption::layout) {
        for (std::size_t i = 0; i < spec.layouts.size(); ++i)
            help += (i ? "|" : "") + std::string(to_string(spec.layouts[i]));
        help += " (default " + std::string(to_string(spec.layouts.front())) + ")";
    }
    return usage_line(c.flag, help);
}

std::string step_option_usage(const StepOption& o) {
    std::string help = o.help;
    if (!o.choices.empty()) {
        help += " (";
        for (std::size_t i = 0; i < o.choices.size(); ++i) help += (i ? "|" : "") + o.choices[i];
        help += ")";
    }
    if (o.default_value) help += " (default " + *o.default_value + ")";
    return usage_line("--" + o.name + (o.kind == StepOption::Kind::integer ? " N" : " X"), help);
}

}  // namespace

std::string usage(const StepSpec& spec) {
    std::ostringstream u;
    // Steps are stepNN_name; a tool that is no step (the ladder) gives its name as its number.
    const std::string program = spec.number == spec.name ? spec.name : "step" + spec.number + "_" + spec.name;
    u << "usage: " << program << " [options]\n"
      << "  " << spec.title << "\n\n";
    for (const CommonName& c : kCommonNames)
        if (takes(spec, c.option)) u << common_usage(spec, c);
    for (const auto& o : spec.options) u << step_option_usage(o);
    u << usage_line("--help", "this text")
      << "exit codes: 0 verified, 1 runtime error, 2 bad input, 3 wrong result, 77 no CUDA device\n";
    return u.str();
}

namespace {

// "unknown option '--step' (did you mean --steps?)": a known option the word begins, or that begins it.
std::string unknown_option_text(const std::string& name, const StepSpec& spec) {
    std::vector<std::string> known;
    for (const CommonName& c : kCommonNames)
        if (takes(spec, c.option)) known.push_back(c.name);
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

Options defaults_of(const StepSpec& spec) {
    Options o;
    o.shape = {spec.default_m, spec.default_n, spec.layouts.front()};
    o.reps = spec.default_reps;
    o.precision = spec.precisions.front();
    for (const auto& so : spec.options) {
        if (!so.default_value) continue;
        if (so.kind == StepOption::Kind::integer)
            o.step_values[so.name] = std::stoll(*so.default_value);
        else
            o.step_values[so.name] = *so.default_value;
    }
    return o;
}

Layout parse_layout(const std::string& value, const StepSpec& spec) {
    Layout l;
    if (value == "row")
        l = Layout::row;
    else if (value == "col")
        l = Layout::col;
    else
        throw UsageError("--layout is row or col, not '" + value + "'");
    if (std::find(spec.layouts.begin(), spec.layouts.end(), l) == spec.layouts.end())
        throw UsageError("step " + spec.number + " works on " + layout_word(spec.layouts.front()) +
                         " A only; --layout " + value + " is not supported here");
    return l;
}

// One of the precisions the step takes ("float or double" by default; step 15's bf16, fp16, fp8).
Precision parse_precision_of(const StepSpec& spec, const std::string& value) {
    const auto& ours = spec.precisions;
    Precision p;
    if (parse_precision(value, p) && std::find(ours.begin(), ours.end(), p) != ours.end()) return p;
    std::string names;
    for (std::size_t k = 0; k < ours.size(); ++k)
        names += std::string(k == 0 ? "" : k + 1 == ours.size() ? " or " : ", ") + to_string(ours[k]);
    throw UsageError("--precision is " + names + " here, not '" + value + "'");
}

template <class T>
T parse_word(const std::string& option, const std::string& value,
             std::initializer_list<std::pair<const char*, T>> words, const std::string& refusal) {
    for (const auto& [word, v] : words)
        if (value == word) return v;
    throw UsageError("--" + option + " is " + refusal + ", not '" + value + "'");
}

void set_common(Options& o, const StepSpec& spec, CommonOption option, const std::string& name,
                const std::string& value) {
    constexpr std::int64_t kMaxDim = INT64_MAX / 16;
    switch (option) {
        case CommonOption::m:
            o.shape.m = parse_int(name, value, 1, kMaxDim);
            break;
        case CommonOption::n:
            o.shape.n = parse_int(name, value, 1, kMaxDim);
            break;
        case CommonOption::precision:
            o.precision = parse_precision_of(spec, value);
            break;
        case CommonOption::layout:
            o.shape.layout = parse_layout(value, spec);
            break;
        case CommonOption::reps:
            o.reps = static_cast<int>(parse_int(name, value, 1, 100000));
            break;
        case CommonOption::warmup:
            o.warmup = static_cast<int>(parse_int(name, value, 0, 100000));
            break;
        case CommonOption::seed:
            o.seed = static_cast<std::uint64_t>(parse_int(name, value, 0, INT64_MAX));
            break;
        case CommonOption::cache:
            o.cold = parse_word<bool>(name, value, {{"cold", true}, {"hot", false}}, "cold or hot");
            break;
        case CommonOption::format:
            o.format = parse_word<Format>(name, value,
                                          {{"table", Format::table}, {"csv", Format::csv}, {"json", Format::json}},
                                          "table, csv or json");
            break;
        case CommonOption::verify:
            break;  // a flag: parse_options sets it
    }
    o.common_given.push_back(option);
}

void set_step_option(Options& o, const StepOption& so, const std::string& value) {
    switch (so.kind) {
        case StepOption::Kind::integer: {
            const std::int64_t v = parse_int(so.name, value, so.min, so.max);
            if (v % so.multiple)
                throw UsageError("--" + so.name + " must be a multiple of " + std::to_string(so.multiple) + ", not " +
                                 value);
            o.step_values[so.name] = v;
            return;
        }
        case StepOption::Kind::choice:
            if (std::find(so.choices.begin(), so.choices.end(), value) == so.choices.end())
                throw UsageError("--" + so.name + " does not take '" + value + "'");
            break;
        case StepOption::Kind::text:
            if (value.empty()) throw UsageError("--" + so.name + " needs a value");
            if (so.check)
                if (const std::string why = so.check(value); !why.empty()) throw UsageError("--" + so.name + " " + why);
            break;
    }
    o.step_values[so.name] = value;
}

// The bytes of A must be countable: m·n·size fits in 64 bits.
void require_countable_bytes(const Options& o) {
    try {
        model_bytes(o.shape.m, o.shape.n, o.precision);
    } catch (const std::overflow_error& e) {
        throw UsageError(std::string("--m ") + std::to_string(o.shape.m) + " --n " + std::to_string(o.shape.n) + ": " +
                         e.what());
    }
}

}  // namespace

Options parse_options(int argc, const char* const* argv, const StepSpec& spec) {
    Options o = defaults_of(spec);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") throw HelpRequested{};
        if (arg == "--no-verify" && takes(spec, CommonOption::verify)) {
            o.verify = false;
            o.common_given.push_back(CommonOption::verify);
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
        const std::optional<CommonOption> common = common_option(name, spec);
        const StepOption* so = step_option(name, spec);
        if (!common && !so) throw UsageError(unknown_option_text(name, spec));
        if (eq == std::string::npos) {
            if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
            value = argv[++i];
        }
        if (common)
            set_common(o, spec, *common, name, value);
        else
            set_step_option(o, *so, value);
    }
    require_countable_bytes(o);
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
