#include "transports/verbs/verbs_library.h"

#include <dlfcn.h>

#include <string>

#include "base/dl_baseline.h"
#include "base/error.h"

namespace jrdma::verbs_library {
namespace {

const char* const kIbverbs = "libibverbs.so.1";
const char* const kRdmacm = "librdmacm.so.1";
const char* const kRemedy =
    "install rdma-core's user-space libraries (Debian/Ubuntu: apt install libibverbs1 librdmacm1 ibverbs-providers; "
    "RHEL/Rocky/Fedora: dnf install libibverbs librdmacm; rdma-core 32 or newer)";

struct Loaded {
  Symbols symbols{};
  std::string error;  // empty when every symbol resolved
};

std::string dl_error() {
  const char* text = dlerror();
  return text != nullptr ? text : "no reason given";
}

// dlvsym with the version this build binds to: a newer default version of the same name could
// have another signature (libibverbs keeps old ABIs under older versions).
template <typename Function>
bool resolve(void* library, const char* library_name, const char* name, const char* version, Function& into,
             std::string& error) {
  into = reinterpret_cast<Function>(dlvsym(library, name, version));
  if (into != nullptr) return true;
  error = std::string(library_name) + " has no " + name + "@" + version + " (" + dl_error() + "): it is too old; " +
          kRemedy;
  return false;
}

Loaded load() {
  Loaded loaded;
  // Never closed: verbs objects live as long as the process may use them.
  void* ibverbs = dlopen(kIbverbs, RTLD_NOW | RTLD_LOCAL);
  if (ibverbs == nullptr) {
    loaded.error = std::string("cannot load ") + kIbverbs + " (" + dl_error() + "): RDMA needs it; " + kRemedy;
    return loaded;
  }
  void* rdmacm = dlopen(kRdmacm, RTLD_NOW | RTLD_LOCAL);
  if (rdmacm == nullptr) {
    loaded.error = std::string("cannot load ") + kRdmacm + " (" + dl_error() + "): RDMA needs it; " + kRemedy;
    return loaded;
  }
  Symbols& s = loaded.symbols;
  std::string& e = loaded.error;
#define JRDMA_RESOLVE_IBVERBS(name, version) &&resolve(ibverbs, kIbverbs, #name, version, s.name, e)
#define JRDMA_RESOLVE_RDMACM(name, version) &&resolve(rdmacm, kRdmacm, #name, version, s.name, e)
  bool complete = true JRDMA_IBVERBS_SYMBOLS(JRDMA_RESOLVE_IBVERBS) JRDMA_RDMACM_SYMBOLS(JRDMA_RESOLVE_RDMACM);
#undef JRDMA_RESOLVE_IBVERBS
#undef JRDMA_RESOLVE_RDMACM
  if (!complete) loaded.symbols = Symbols{};
  return loaded;
}

const Loaded& loaded() {
  static const Loaded once = load();  // thread-safe initialisation
  return once;
}

}  // namespace

const Symbols& symbols() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw RdmaError(ErrorKind::kConfiguration, l.error);
  return l.symbols;
}

}  // namespace jrdma::verbs_library
