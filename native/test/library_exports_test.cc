// Loader checks on the built libjrdma.so: it loads with its dependencies resolved, exports the
// JNI entry points, and hides everything else (-fvisibility=hidden).
#include <dlfcn.h>
#include <gtest/gtest.h>

namespace {

struct Library {
  void* handle = dlopen(JRDMA_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
};

}  // namespace

TEST(LibraryExports, LoadsWithAllSymbolsResolved) {
  Library lib;
  ASSERT_NE(nullptr, lib.handle) << dlerror();
}

TEST(LibraryExports, ExportsJniEntryPoints) {
  Library lib;
  ASSERT_NE(nullptr, lib.handle) << dlerror();
  EXPECT_NE(nullptr, dlsym(lib.handle, "JNI_OnLoad"));
  EXPECT_NE(nullptr, dlsym(lib.handle, "JNI_OnUnload"));
}

TEST(LibraryExports, HidesInternalSymbols) {
  Library lib;
  ASSERT_NE(nullptr, lib.handle) << dlerror();
  EXPECT_EQ(nullptr, dlsym(lib.handle, "_ZN5jrdma15library_versionEv"));  // jrdma::library_version()
  EXPECT_EQ(nullptr, dlsym(lib.handle, "_ZN5jrdma13query_devicesEv"));    // jrdma::query_devices()
}
