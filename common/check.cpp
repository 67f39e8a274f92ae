#include "check.hpp"

#include <sstream>

namespace gemv {

void throw_cuda_error(const char* call, int code, const char* name, const char* file, int line) {
    std::ostringstream msg;
    msg << call << " failed with " << name << " (" << code << ") at " << file << ":" << line;
    throw CudaError(msg.str());
}

}  // namespace gemv
