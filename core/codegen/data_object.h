// Bytes as globals of an object file, for exports that link data beside the code into one `.so`
// (the VM's executable, a GPU build's device modules): the linker needs no other tool.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "codegen/target.h"

namespace wb::codegen {

// An object for `target`'s host (its mtriple, else this machine's) defining, for each
// (name, bytes), the read-only exported globals `name` (the bytes, 8-byte aligned) and
// `name_size` (their count, uint64_t). False with the reason in *error.
bool EmitDataObject(const std::vector<std::pair<std::string, std::string>>& blobs, const Target& target,
                    std::string* object, std::string* error);

}  // namespace wb::codegen
