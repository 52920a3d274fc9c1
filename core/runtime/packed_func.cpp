#include "runtime/packed_func.h"

#include <cstdlib>
#include <string>

namespace {
// The message of the last failed call on this thread (TVM's TVMGetLastError).
thread_local std::string last_error;
}  // namespace

extern "C" void WBAPISetLastError(const char* message) { last_error = message ? message : ""; }
extern "C" const char* WBGetLastError() { return last_error.c_str(); }

extern "C" void* WBBackendAllocWorkspace(int64_t nbytes) {
  size_t bytes = static_cast<size_t>(nbytes <= 0 ? 64 : (nbytes + 63) / 64 * 64);
  return std::aligned_alloc(64, bytes);
}

extern "C" int32_t WBBackendFreeWorkspace(void* ptr) {
  std::free(ptr);
  return 0;
}

namespace wb::runtime {

PackedRet PackedFunc::Call(const std::vector<PackedArg>& args) const {
  if (!body_) throw Error("call of a null packed function");
  PackedRet ret;
  (*body_)(args, &ret);
  return ret;
}

PackedFunc WrapPackedCFunc(WBPackedCFunc fn, std::shared_ptr<void> keep_alive) {
  return PackedFunc([fn, keep_alive](const std::vector<PackedArg>& args, PackedRet* ret) {
    // The C arrays of the call: on the stack for the usual few arguments (a kernel call through
    // the VM is a few microseconds, and two heap allocations were a good part of it).
    constexpr size_t kInline = 16;
    WBValue inline_values[kInline];
    int32_t inline_codes[kInline];
    std::vector<WBValue> heap_values;
    std::vector<int32_t> heap_codes;
    WBValue* values = inline_values;
    int32_t* codes = inline_codes;
    if (args.size() > kInline) {
      heap_values.resize(args.size());
      heap_codes.resize(args.size());
      values = heap_values.data();
      codes = heap_codes.data();
    }
    for (size_t i = 0; i < args.size(); ++i) {
      values[i] = args[i].value();
      codes[i] = args[i].code();
    }
    if (!last_error.empty()) last_error.clear();
    int32_t rc = fn(values, codes, static_cast<int32_t>(args.size()), &ret->value, &ret->code,
                    nullptr);
    if (rc != 0) {
      std::string message = WBGetLastError();
      if (message.empty()) message = "packed function failed with code " + std::to_string(rc);
      throw Error(message);
    }
  });
}

}  // namespace wb::runtime
