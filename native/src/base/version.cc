#include "base/version.h"

namespace jrdma {

const char* library_version() noexcept { return JRDMA_VERSION; }

}  // namespace jrdma
