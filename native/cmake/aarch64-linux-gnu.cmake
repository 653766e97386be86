# CMake toolchain for the aarch64 build of libjrdma.so (scripts/build-aarch64): Debian's cross
# compiler (g++-aarch64-linux-gnu); binutils (strip, objcopy) come with the same prefix.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Programs (cmake's own helpers) from the host; libraries and headers only from the target's root.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
