// Fixed-layout records that cross JNI are declared once, as X-macro lists of (type, name); these
// expand such a list into the struct's members and into its layout line ("name size=N,field=offset,...").
// Java computes the same line from its own list (org.jrdma.impl.RecordLayout) and the library is
// refused at load when the two differ (jni/layout.h).
#pragma once

#include <cstddef>
#include <string>

// In the struct: `LIST(JRDMA_RECORD_MEMBER)`.
#define JRDMA_RECORD_MEMBER(type, name) type name;
// In a function building the line in `std::string layout`, with JRDMA_RECORD defined as the struct:
// `LIST(JRDMA_RECORD_OFFSET)` appends ",name=offset" for each field.
#define JRDMA_RECORD_OFFSET(type, name) \
  layout += std::string(",") + #name + "=" + std::to_string(offsetof(JRDMA_RECORD, name));
