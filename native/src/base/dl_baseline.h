#pragma once

// glibc 2.34 moved the dl* functions into libc under a new symbol version. Binding to their first
// version, which every glibc has (in libdl.so.2 before 2.34, kept for compatibility after), lets the
// library load on glibc 2.28 whichever glibc built it. That first version is the architecture's
// glibc baseline. Included by each file that calls dl* (the directives apply per object file).
#include <dlfcn.h>

#if defined(__x86_64__)
#define JRDMA_GLIBC_BASELINE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define JRDMA_GLIBC_BASELINE "GLIBC_2.17"
#else
#error "unknown glibc baseline for this architecture (x86-64 and aarch64 are built)"
#endif

__asm__(".symver dlopen,dlopen@" JRDMA_GLIBC_BASELINE);
__asm__(".symver dlsym,dlsym@" JRDMA_GLIBC_BASELINE);
__asm__(".symver dlvsym,dlvsym@" JRDMA_GLIBC_BASELINE);
__asm__(".symver dlerror,dlerror@" JRDMA_GLIBC_BASELINE);
