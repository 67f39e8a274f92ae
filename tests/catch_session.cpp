// Catch2's runner, compiled once for all test programs (Catch2 2 is header-only and slow to build).
#if GEMV_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

namespace gemv_test {
int run_catch(int argc, char* argv[]) {
    return Catch::Session().run(argc, argv);
}
}  // namespace gemv_test
