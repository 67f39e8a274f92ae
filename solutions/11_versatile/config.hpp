// Step 11's configuration: the parameters of Sørensen's versatile kernel and those a Hopper GPU
// needs, with one meaning each in both layouts, and its fields by name. Which shapes a
// configuration can run, and how one is chosen for a shape, are shape_rules.hpp's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gemv {

// How the blocks that share a row add up their partial sums.
enum class Combine {
    store,        // one block a row: it stores y
    atomic,       // atomicAdd into y, zeroed by a memset first: two launches, bits vary run to run
    atomic_last,  // atomicAdd into a workspace kept at zero; the last block of the row group to
                  // finish moves the sums to y and zeroes them: one launch, bits vary run to run
    cluster,      // up to 8 blocks of a thread-block cluster add through distributed shared memory
    last_block,   // partial sums to a workspace; the last block of the row group to finish adds
                  // them in order: one launch, the same bits every run (in place only)
};

// How a thread reads A.
enum class Loads {
    aligned,    // in place, V elements a load: V divides the dimension the loads run along
    realigned,  // in place, 16-byte loads whatever m (column-major) or n (row-major) is: the two
                // aligned 16 bytes around V elements, shifted into place
    staggered,  // in place, 16-byte loads whatever m or n is, each at an aligned address: a thread's
                // loads start up to V - 1 elements early, and its sums are put in their rows once,
                // at the end (column-major: overlapping row blocks; row-major: x realigned)
    tiles,      // m (column-major) or n (row-major) of 2 or 3, shorter than a 16-byte load: V whole
                // columns or rows at a time, 2 or 3 aligned 16-byte loads
    flat,       // A as one flat array: column-major, few rows (sums per row in shared memory);
                // row-major, a block's whole rows copied to shared memory
};

// BEGIN EXCERPT config
struct VersatileConfig {
    int block = 256;                   // BLOCKSIZE: threads per block, a multiple of 32
    int vector = 4;                    // elements per load, 16 bytes at most (WORKSIZE_m)
    int unroll = 4;                    // loads a thread issues before it uses any (flat row-major: products a step)
    int threads_per_row = 1;           // threads of a block that share a row
    std::int64_t blocks_per_row = 1;   // blocks that share a row (GRIDSIZE_n)
    Combine combine = Combine::store;  // how those blocks add up (store: there is one)
    Loads loads = Loads::aligned;      // how a thread's loads meet A's 16-byte alignment
};
// END EXCERPT config

// A configuration written by name, where a list of candidates would otherwise be a row of bare
// numbers: NamedConfig().block(256).vector(4).threads_per_row(256).loads(Loads::flat). Fields not
// named keep VersatileConfig's defaults.
class NamedConfig {
public:
    NamedConfig& block(int v) { return set(&VersatileConfig::block, v); }
    NamedConfig& vector(int v) { return set(&VersatileConfig::vector, v); }
    NamedConfig& unroll(int v) { return set(&VersatileConfig::unroll, v); }
    NamedConfig& threads_per_row(int v) { return set(&VersatileConfig::threads_per_row, v); }
    NamedConfig& blocks_per_row(std::int64_t v) { return set(&VersatileConfig::blocks_per_row, v); }
    NamedConfig& combine(Combine v) { return set(&VersatileConfig::combine, v); }
    NamedConfig& loads(Loads v) { return set(&VersatileConfig::loads, v); }
    operator VersatileConfig() const { return c_; }

private:
    template <class Field, class Value>
    NamedConfig& set(Field VersatileConfig::*field, Value v) {
        c_.*field = v;
        return *this;
    }
    VersatileConfig c_;
};

const char* to_string(Combine c);
const char* to_string(Loads l);

// The configuration's fields by name: what the tuning table's columns, the tuner's resume file
// and step 11's command line are all made from, so that a new field is added in one place.
struct ConfigField {
    const char* name;  // "threads_per_row"
    const char* help;
    std::string option() const;  // its command-line option, without the dashes: "threads-per-row"
    std::function<std::string(const VersatileConfig&)> get;
    // Sets the field from text; returns what is wrong with the text, or "" when it was taken.
    std::function<std::string(VersatileConfig&, const std::string&)> set;
};
const std::vector<ConfigField>& config_fields();
std::string describe(const VersatileConfig& c);  // "block 256, vector 4, ..., loads aligned"

}  // namespace gemv
