#include "runtime/cuda/cuda_module.h"

#include <array>
#include <cstring>
#include <mutex>

#include "runtime/cuda/cuda_device_api.h"
#include "runtime/module_blob.h"
#include "runtime/packed_func.h"

namespace wb::runtime::cuda {

namespace {

// How one kernel parameter travels: its size in the launch's parameter buffer.
enum class ArgKind { kHandle, kInt32, kInt64, kUInt32, kUInt64, kFloat32, kFloat64, kInt8, kUInt8, kInt16, kUInt16 };

ArgKind ParseArgKind(const std::string& kernel, const std::string& dtype) {
  static const std::map<std::string, ArgKind> kinds = {
      {"handle", ArgKind::kHandle},   {"int32", ArgKind::kInt32},     {"int64", ArgKind::kInt64},
      {"uint32", ArgKind::kUInt32},   {"uint64", ArgKind::kUInt64},   {"float32", ArgKind::kFloat32},
      {"float64", ArgKind::kFloat64}, {"int8", ArgKind::kInt8},       {"uint8", ArgKind::kUInt8},
      {"bool", ArgKind::kUInt8},      {"int16", ArgKind::kInt16},     {"uint16", ArgKind::kUInt16},
  };
  auto it = kinds.find(dtype);
  if (it == kinds.end()) throw Error("CUDA kernel " + kernel + ": unsupported parameter dtype " + dtype);
  return it->second;
}

// Where each launch parameter goes: grid x/y/z (0-2), block x/y/z (3-5), dynamic shared bytes (6).
int LaunchSlot(const std::string& kernel, const std::string& tag) {
  static const std::map<std::string, int> slots = {
      {"blockIdx.x", 0},  {"blockIdx.y", 1},  {"blockIdx.z", 2},
      {"threadIdx.x", 3}, {"threadIdx.y", 4}, {"threadIdx.z", 5},
      {"tir.use_dyn_shared_memory", 6},
  };
  auto it = slots.find(tag);
  if (it == slots.end()) throw Error("CUDA kernel " + kernel + ": unknown launch parameter " + tag);
  return it->second;
}

struct KernelEntry {
  CudaFunctionInfo info;
  std::vector<ArgKind> kinds;
  std::vector<int> slots;
};

class CudaModuleNode : public ModuleNode, public std::enable_shared_from_this<CudaModuleNode> {
 public:
  CudaModuleNode(std::string binary, std::string format, std::vector<CudaFunctionInfo> functions,
                 std::map<std::string, std::string> sources)
      : binary_(std::move(binary)), format_(std::move(format)), sources_(std::move(sources)) {
    if (format_ != "ptx" && format_ != "cubin") {
      throw Error("CUDA module: unknown binary format '" + format_ + "' (ptx or cubin)");
    }
    // cuModuleLoadData reads PTX as a NUL-terminated string.
    if (format_ == "ptx" && (binary_.empty() || binary_.back() != '\0')) binary_.push_back('\0');
    for (auto& f : functions) {
      KernelEntry e;
      for (const auto& d : f.arg_dtypes) e.kinds.push_back(ParseArgKind(f.name, d));
      for (const auto& t : f.launch_param_tags) e.slots.push_back(LaunchSlot(f.name, t));
      e.info = std::move(f);
      kernels_.emplace(e.info.name, std::move(e));
    }
  }

  ~CudaModuleNode() override {
    const CudaDriver* d = GetCudaDriver();
    if (!d) return;
    for (size_t i = 0; i < loaded_.size(); ++i) {
      if (!loaded_[i].module) continue;
      try {
        SetDevice(static_cast<int>(i));
        d->cuModuleUnload(loaded_[i].module);
      } catch (const Error&) {
      }
    }
  }

  std::string type_key() const override { return "cuda"; }

  // The module as bytes (module_blob.h): the image, its format, each kernel's description and
  // the text views.
  std::string Save() const {
    std::string out;
    AppendField(&out, binary_);
    AppendField(&out, format_);
    AppendField(&out, std::to_string(kernels_.size()));
    for (const auto& [name, e] : kernels_) {
      AppendField(&out, name);
      AppendField(&out, std::to_string(e.info.arg_dtypes.size()));
      for (const auto& d : e.info.arg_dtypes) AppendField(&out, d);
      AppendField(&out, std::to_string(e.info.launch_param_tags.size()));
      for (const auto& t : e.info.launch_param_tags) AppendField(&out, t);
    }
    AppendField(&out, std::to_string(sources_.size()));
    for (const auto& [format, text] : sources_) {
      AppendField(&out, format);
      AppendField(&out, text);
    }
    return out;
  }

  std::vector<std::string> FunctionNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, _] : kernels_) names.push_back(name);
    return names;
  }

  std::string GetSource(const std::string& format) const override {
    if (format == format_ && format_ == "ptx") return std::string(binary_.c_str());
    auto it = sources_.find(format);
    return it == sources_.end() ? std::string() : it->second;
  }

  PackedFunc GetFunction(const std::string& name) override {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return {};
    std::shared_ptr<CudaModuleNode> self = shared_from_this();
    const KernelEntry* entry = &it->second;
    return PackedFunc([self, entry](const std::vector<PackedArg>& args, PackedRet*) { self->Launch(*entry, args); });
  }

 private:
  struct Loaded {
    CUmodule module = nullptr;
    std::map<std::string, CUfunction> functions;
    std::map<std::string, int> dyn_shared_set;  // the opt-in last set per function
  };

  // The kernel on `device_id`, loading the image on first use.
  CUfunction Function(int device_id, const std::string& name, size_t dyn_shared) {
    const CudaDriver& d = *GetCudaDriver();
    std::lock_guard<std::mutex> lock(mutex_);
    if (loaded_.size() <= static_cast<size_t>(device_id)) loaded_.resize(device_id + 1);
    Loaded& l = loaded_[device_id];
    if (!l.module) {
      CUresult r = d.cuModuleLoadData(&l.module, binary_.data());
      if (r != kCudaSuccess) {
        l.module = nullptr;
        throw Error("cannot load the CUDA module (" + format_ + ") on cuda(" + std::to_string(device_id) +
                    "): " + CudaErrorText(r) +
                    (format_ == "ptx" ? " (was the PTX made for a newer arch or ISA than this driver knows?)" : ""));
      }
    }
    CUfunction& f = l.functions[name];
    if (!f) {
      CUresult r = d.cuModuleGetFunction(&f, l.module, name.c_str());
      if (r != kCudaSuccess) {
        f = nullptr;
        throw Error("the CUDA module has no kernel '" + name + "': " + CudaErrorText(r));
      }
    }
    // Above 48 KiB, dynamic shared memory must be opted into per function.
    if (dyn_shared > 48 * 1024 && l.dyn_shared_set[name] < static_cast<int>(dyn_shared)) {
      CheckCuda(d.cuFuncSetAttribute(f, kFuncAttrMaxDynamicSharedSizeBytes, static_cast<int>(dyn_shared)),
                ("cuFuncSetAttribute(" + name + ", max dynamic shared memory)").c_str());
      l.dyn_shared_set[name] = static_cast<int>(dyn_shared);
    }
    return f;
  }

  void Launch(const KernelEntry& e, const std::vector<PackedArg>& args) {
    const CudaFunctionInfo& info = e.info;
    size_t n = e.kinds.size(), m = e.slots.size();
    if (args.size() != n + m) {
      throw Error("CUDA kernel " + info.name + " takes " + std::to_string(n) + " parameter(s) and " +
                  std::to_string(m) + " launch parameter(s), got " + std::to_string(args.size()) + " argument(s)");
    }
    std::string why;
    if (!GetCudaDriver(&why)) throw Error("no CUDA device: " + why + " (cannot run kernel " + info.name + ")");
    // Parameters: each in an 8-byte slot, little-endian, so the driver reads its size from the start.
    std::vector<std::array<uint8_t, 8>> storage(n);
    std::vector<void*> params(n);
    for (size_t i = 0; i < n; ++i) {
      const PackedArg& a = args[i];
      WBValue v = a.value();
      auto put = [&](auto value) {
        static_assert(sizeof(value) <= 8);
        std::memcpy(storage[i].data(), &value, sizeof(value));
      };
      auto as_int = [&]() -> int64_t {
        if (a.code() == kWBArgInt) return v.v_int64;
        if (a.code() == kWBArgFloat) return static_cast<int64_t>(v.v_float64);
        throw Error("CUDA kernel " + info.name + ": argument " + std::to_string(i) + " must be a number");
      };
      auto as_float = [&]() -> double {
        if (a.code() == kWBArgFloat) return v.v_float64;
        if (a.code() == kWBArgInt) return static_cast<double>(v.v_int64);
        throw Error("CUDA kernel " + info.name + ": argument " + std::to_string(i) + " must be a number");
      };
      switch (e.kinds[i]) {
        case ArgKind::kHandle: {
          void* p = nullptr;
          if (a.code() == kWBDLTensorHandle) {
            auto* t = static_cast<DLTensor*>(v.v_handle);
            if (t->device.device_type != kDLCUDA) {
              throw Error("CUDA kernel " + info.name + ": argument " + std::to_string(i) + " is not on a CUDA device");
            }
            p = static_cast<uint8_t*>(t->data) + t->byte_offset;
          } else if (a.code() == kWBOpaqueHandle || a.code() == kWBNullptr) {
            p = a.code() == kWBNullptr ? nullptr : v.v_handle;
          } else {
            throw Error("CUDA kernel " + info.name + ": argument " + std::to_string(i) + " must be a pointer");
          }
          put(p);
          break;
        }
        case ArgKind::kInt8: put(static_cast<int8_t>(as_int())); break;
        case ArgKind::kUInt8: put(static_cast<uint8_t>(as_int())); break;
        case ArgKind::kInt16: put(static_cast<int16_t>(as_int())); break;
        case ArgKind::kUInt16: put(static_cast<uint16_t>(as_int())); break;
        case ArgKind::kInt32: put(static_cast<int32_t>(as_int())); break;
        case ArgKind::kUInt32: put(static_cast<uint32_t>(as_int())); break;
        case ArgKind::kInt64: put(as_int()); break;
        case ArgKind::kUInt64: put(static_cast<uint64_t>(as_int())); break;
        case ArgKind::kFloat32: put(static_cast<float>(as_float())); break;
        case ArgKind::kFloat64: put(as_float()); break;
      }
      params[i] = storage[i].data();
    }
    int64_t dims[7] = {1, 1, 1, 1, 1, 1, 0};
    for (size_t j = 0; j < m; ++j) {
      const PackedArg& a = args[n + j];
      if (a.code() != kWBArgInt) {
        throw Error("CUDA kernel " + info.name + ": launch parameter " + info.launch_param_tags[j] + " must be an integer");
      }
      dims[e.slots[j]] = a.value().v_int64;
    }
    for (int k = 0; k < 6; ++k) {
      if (dims[k] <= 0 || dims[k] > INT32_MAX) {
        // An empty grid: nothing to run (a zero-sized dimension), as TVM does.
        if (dims[k] == 0) return;
        throw Error("CUDA kernel " + info.name + ": launch extent " + std::to_string(dims[k]) + " out of range");
      }
    }
    const int device_id = 0;
    SetDevice(device_id);
    CUfunction f = Function(device_id, info.name, static_cast<size_t>(dims[6]));
    const CudaDriver& d = *GetCudaDriver();
    CUresult r = d.cuLaunchKernel(f, static_cast<unsigned>(dims[0]), static_cast<unsigned>(dims[1]),
                                  static_cast<unsigned>(dims[2]), static_cast<unsigned>(dims[3]),
                                  static_cast<unsigned>(dims[4]), static_cast<unsigned>(dims[5]),
                                  static_cast<unsigned>(dims[6]), CurrentStream(device_id),
                                  n ? params.data() : nullptr, nullptr);
    if (r != kCudaSuccess) {
      char launch[160];
      std::snprintf(launch, sizeof(launch), "grid (%lld, %lld, %lld), block (%lld, %lld, %lld), %lld B dynamic shared",
                    (long long)dims[0], (long long)dims[1], (long long)dims[2], (long long)dims[3],
                    (long long)dims[4], (long long)dims[5], (long long)dims[6]);
      throw Error("launching CUDA kernel " + info.name + " (" + launch + "): " + CudaErrorText(r));
    }
  }

  std::string binary_;
  std::string format_;
  std::map<std::string, std::string> sources_;
  std::map<std::string, KernelEntry> kernels_;
  std::mutex mutex_;
  std::vector<Loaded> loaded_;
};

// The inverse of CudaModuleNode::Save; null with the reason when the bytes are not one.
Module LoadCudaModule(std::string_view bytes, std::string* error) {
  size_t pos = 0;
  bool ok = true;
  auto field = [&]() -> std::string {
    std::string_view f;
    ok = ok && ReadField(bytes, &pos, &f);
    return ok ? std::string(f) : std::string();
  };
  auto count = [&]() -> size_t {
    std::string text = field();
    size_t n = ok ? std::strtoull(text.c_str(), nullptr, 10) : 0;
    ok = ok && n <= bytes.size();  // no count exceeds the bytes that would hold its entries
    return ok ? n : 0;
  };
  std::string binary = field(), format = field();
  std::vector<CudaFunctionInfo> functions(count());
  for (auto& f : functions) {
    f.name = field();
    f.arg_dtypes.resize(count());
    for (auto& d : f.arg_dtypes) d = field();
    f.launch_param_tags.resize(count());
    for (auto& t : f.launch_param_tags) t = field();
  }
  std::map<std::string, std::string> sources;
  for (size_t n = count(), i = 0; i < n && ok; ++i) {
    std::string key = field();
    sources[key] = field();
  }
  if (!ok) {
    if (error) *error = "truncated CUDA module";
    return {};
  }
  try {
    return CudaModuleCreate(std::move(binary), std::move(format), std::move(functions), std::move(sources));
  } catch (const Error& e) {
    if (error) *error = e.what();
    return {};
  }
}

[[maybe_unused]] const bool kFormatRegistered = [] {
  RegisterModuleFormat(
      "cuda",
      [](const ModuleNode& node) {
        auto* m = dynamic_cast<const CudaModuleNode*>(&node);
        if (!m) throw Error("a '" + node.type_key() + "' module is not a CUDA module");
        return m->Save();
      },
      LoadCudaModule);
  return true;
}();

}  // namespace

Module CudaModuleCreate(std::string binary, std::string format, std::vector<CudaFunctionInfo> functions,
                        std::map<std::string, std::string> sources) {
  return Module(std::make_shared<CudaModuleNode>(std::move(binary), std::move(format), std::move(functions),
                                                 std::move(sources)));
}

}  // namespace wb::runtime::cuda
