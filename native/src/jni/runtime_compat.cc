// Keeps libjrdma.so loadable with the C++ runtime of GCC 8 (RHEL/Rocky 8): GCC 11 and later compile
// `new T[n]` with a run-time n to call std::__throw_bad_array_new_length, which only libstdc++ 3.4.29
// (GCC 11) exports. Defined here (not exported: libjrdma.map), the library needs no newer runtime.
#include <new>

namespace std {
[[noreturn]] void __throw_bad_array_new_length() { throw std::bad_array_new_length(); }
}  // namespace std
