#include "config.hpp"

#include <algorithm>
#include <sstream>

#include "integer.hpp"

namespace gemv {

namespace {

template <class Field>
ConfigField whole_field(const char* name, const char* help, Field VersatileConfig::*field) {
    return {name, help, [field](const VersatileConfig& c) { return std::to_string(c.*field); },
            [field](VersatileConfig& c, const std::string& text) {
                const std::optional<std::int64_t> v = whole_number(text);
                if (!v) return "takes a whole number, not '" + text + "'";
                c.*field = static_cast<Field>(*v);
                return std::string();
            }};
}

template <class Enum>
ConfigField enum_field(const char* name, const char* help, Enum VersatileConfig::*field,
                       std::initializer_list<Enum> values) {
    const std::vector<Enum> all(values);
    return {name, help, [field](const VersatileConfig& c) { return std::string(to_string(c.*field)); },
            [field, all](VersatileConfig& c, const std::string& text) {
                std::string names;
                for (Enum e : all) {
                    if (text == to_string(e)) {
                        c.*field = e;
                        return std::string();
                    }
                    names += (names.empty() ? "" : ", ") + std::string(to_string(e));
                }
                return "is one of " + names + ", not '" + text + "'";
            }};
}

}  // namespace

const char* to_string(Combine c) {
    switch (c) {
        case Combine::store:
            return "store";
        case Combine::atomic:
            return "atomic";
        case Combine::atomic_last:
            return "atomic_last";
        case Combine::cluster:
            return "cluster";
        case Combine::last_block:
            return "last_block";
    }
    return "?";
}

const char* to_string(Loads l) {
    switch (l) {
        case Loads::aligned:
            return "aligned";
        case Loads::realigned:
            return "realigned";
        case Loads::staggered:
            return "staggered";
        case Loads::tiles:
            return "tiles";
        case Loads::flat:
            return "flat";
    }
    return "?";
}

const std::vector<ConfigField>& config_fields() {
    static const std::vector<ConfigField> fields = {
        whole_field("block", "BLOCKSIZE, threads per block", &VersatileConfig::block),
        whole_field("vector", "elements per load, 16 bytes at most", &VersatileConfig::vector),
        whole_field("unroll", "loads in flight per thread: 1, 2, 4, 8 or 16", &VersatileConfig::unroll),
        whole_field("threads_per_row", "threads of a block adding up parts of one row",
                    &VersatileConfig::threads_per_row),
        whole_field("blocks_per_row", "blocks adding up parts of one row", &VersatileConfig::blocks_per_row),
        enum_field("combine", "how those blocks add up", &VersatileConfig::combine,
                   {Combine::store, Combine::atomic, Combine::atomic_last, Combine::cluster, Combine::last_block}),
        enum_field("loads", "how A is read", &VersatileConfig::loads,
                   {Loads::aligned, Loads::realigned, Loads::staggered, Loads::flat, Loads::tiles}),
    };
    return fields;
}

std::string describe(const VersatileConfig& c) {
    std::ostringstream s;
    for (const ConfigField& f : config_fields())
        s << (&f == &config_fields().front() ? "" : ", ") << f.name << " " << f.get(c);
    return s.str();
}

std::string ConfigField::option() const {
    std::string option = name;
    std::replace(option.begin(), option.end(), '_', '-');
    return option;
}

}  // namespace gemv
