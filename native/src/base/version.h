#pragma once

namespace jrdma {

// The version this library was built as (the Maven project version). Java compares it with
// its own build version and refuses to use a library of another version.
const char* library_version() noexcept;

}  // namespace jrdma
