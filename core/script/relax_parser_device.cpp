// Device placement in Relax TVMScript: `R.to_vdevice(x, "cuda:0")`, `R.hint_on_device(x,
// R.device(dev_type=2, dev_id=0))` and the `vdevice=` of `R.Tensor`. A vdevice is named by
// TVM's text "kind:index" (index among the module's declared vdevices of that target kind; a
// bare "kind" is index 0), so I.module_global_infos must declare it.
#include <string>
#include <utility>

#include "relax/op/registry.h"
#include "script/relax_parser.h"

namespace wb::script::detail {

using namespace wb::relax;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

// DLPack device type codes of the names tvm.device() / R.device() accept.
int64_t DeviceTypeCode(std::string_view name) {
  if (name == "cpu" || name == "llvm" || name == "c") return 1;
  if (name == "cuda" || name == "gpu" || name == "nvptx") return 2;
  if (name == "cuda_host") return 3;
  if (name == "opencl" || name == "cl") return 4;
  if (name == "vulkan") return 7;
  if (name == "metal") return 8;
  if (name == "rocm") return 10;
  return 0;
}

}  // namespace

ir::VDevice RelaxParser::VDeviceArg(Node n) {
  if (p_.Kind(n) != K::kString) {
    p_.Fail(n, "a vdevice is given by its name, a string such as \"cuda:0\"");
  }
  return p_.LookupVDevice(p_.StringLiteral(n), n);
}

std::pair<int64_t, int64_t> RelaxParser::DeviceArg(Node n) {
  std::string_view fn = p_.Kind(n) == K::kCall ? p_.Text(p_.Field(n, p_.F().function)) : "";
  std::string_view short_name =
      fn.substr(fn.find('.') == std::string_view::npos ? 0 : fn.find('.') + 1);
  bool is_device = fn == "R.device" || fn == "tvm.device" || fn == "tvm.runtime.device";
  bool is_named = (fn.rfind("R.", 0) == 0 || fn.rfind("tvm.", 0) == 0) && !is_device &&
                  DeviceTypeCode(short_name) != 0;
  if (!is_device && !is_named) {
    p_.Fail(n, "expected a device such as R.device(dev_type=2, dev_id=0) or tvm.cuda(0)");
  }
  Args args = CollectArgs(n);
  Node type_node = is_device ? (args.pos.size() > 0 ? args.pos[0] : args.Kw("dev_type")) : Node{};
  size_t id_pos = is_device ? 1 : 0;
  Node id_node = args.pos.size() > id_pos ? args.pos[id_pos] : args.Kw("dev_id");
  if (args.pos.size() > id_pos + 1) {
    p_.Fail(args.pos[id_pos + 1],
            std::string(fn) + " takes at most " + std::to_string(id_pos + 1) + " arguments");
  }
  for (const auto& [key, node] : args.kw) {
    if (key != "dev_id" && !(is_device && key == "dev_type")) {
      p_.Fail(node, std::string(fn) + " has no argument '" + std::string(key) + "'");
    }
  }
  int64_t dev_type = DeviceTypeCode(short_name);
  if (is_device) {
    if (IsNull(type_node)) p_.Fail(n, std::string(fn) + " needs a device type, e.g. \"cuda\" or 2");
    if (p_.Kind(type_node) == K::kString) {
      std::string name = p_.StringLiteral(type_node);
      dev_type = DeviceTypeCode(name);
      if (dev_type == 0) p_.Fail(type_node, "unknown device type \"" + name + "\"");
    } else {
      dev_type = p_.ToInt(p_.Eval(type_node), type_node);
      if (dev_type <= 0) {
        p_.Fail(type_node, "a device type code is positive, got " + std::to_string(dev_type));
      }
    }
  }
  int64_t dev_id = IsNull(id_node) ? 0 : p_.ToInt(p_.Eval(id_node), id_node);
  if (dev_id < 0) p_.Fail(id_node, "dev_id must be non-negative, got " + std::to_string(dev_id));
  return {dev_type, dev_id};
}

Value RelaxParser::CallDeviceOp(const std::string& name, const Args& args) {
  Node n = args.call;
  Span span = p_.SpanOf(n);
  auto pos = [&](size_t i, std::string_view kw) -> Node {
    return i < args.pos.size() ? args.pos[i] : args.Kw(kw);
  };
  if (name == "to_vdevice") {
    // R.to_vdevice(data, dst_vdevice): the destination names one of the module's vdevices.
    Node data = pos(0, "data"), dst = pos(1, "dst_vdevice");
    for (const auto& [key, node] : args.kw) {
      if (key != "data" && key != "dst_vdevice") {
        p_.Fail(node, "R.to_vdevice has no argument '" + std::string(key) + "'");
      }
    }
    if (args.pos.size() > 2) p_.Fail(args.pos[2], "R.to_vdevice takes 2 arguments");
    if (IsNull(data) || IsNull(dst)) {
      p_.Fail(n, "R.to_vdevice expects the data and a vdevice, e.g. R.to_vdevice(x, \"cuda:0\")");
    }
    Expr value = Normalize(ToExpr(Eval(data), data), data);
    ir::AttrMap attrs{{"dst_vdevice", VDeviceArg(dst)}};
    Call call;
    try {
      call = MakeOpCall("relax.to_vdevice", {value}, attrs, {}, span);
    } catch (const DiagnosticError& e) {
      p_.Fail(n, e.diagnostic().message);
    }
    return Value::Of(VK::kObject, Normalize(call, n));
  }
  if (name == "hint_on_device") {
    // R.hint_on_device(data, R.device(dev_type, dev_id)).
    Node data = pos(0, "data"), dev = pos(1, "dst_vdevice");
    if (IsNull(dev)) dev = args.Kw("device");
    for (const auto& [key, node] : args.kw) {
      if (key != "data" && key != "dst_vdevice" && key != "device") {
        p_.Fail(node, "R.hint_on_device has no argument '" + std::string(key) + "'");
      }
    }
    if (args.pos.size() > 2) p_.Fail(args.pos[2], "R.hint_on_device takes 2 arguments");
    if (IsNull(data) || IsNull(dev)) {
      p_.Fail(n,
              "R.hint_on_device expects the data and a device, e.g. "
              "R.hint_on_device(x, R.device(dev_type=2, dev_id=0))");
    }
    Expr value = Normalize(ToExpr(Eval(data), data), data);
    auto [dev_type, dev_id] = DeviceArg(dev);
    ir::AttrMap attrs{{"dev_type", ir::MakeInt(dev_type)}, {"dev_id", ir::MakeInt(dev_id)}};
    Call call;
    try {
      call = MakeOpCall("relax.hint_on_device", {value}, attrs, {}, span);
    } catch (const DiagnosticError& e) {
      p_.Fail(n, e.diagnostic().message);
    }
    return Value::Of(VK::kObject, Normalize(call, n));
  }
  if (name == "device") {
    p_.Fail(n, "R.device(...) is only an argument of R.hint_on_device");
  }
  p_.Fail(n, "unknown device op R." + name);
}

}  // namespace wb::script::detail
