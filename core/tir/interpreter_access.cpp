// Buffer accesses of the reference interpreter: every load, store and address_of goes through
// here, so this is the one place that checks indices against shapes and memory and says, in
// the error, which buffer, which index and which lane went out of bounds.
#include "tir/interpreter_machine.h"

namespace wb::tir::interp {

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string IndexText(const std::string& name, const std::vector<int64_t>& idx) {
  std::string s = name + "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

}  // namespace

int64_t Access::ElementByte(const BufferBinding& b, const int64_t* idx, size_t n, int lane,
                            int lanes) const {
  auto lane_text = [&] { return lanes > 1 ? " in lane " + std::to_string(lane) : std::string(); };
  int64_t offset = 0;
  if (n != b.shape.size()) {
    if (n != 1) {
      Fail(info->buffer->name + " has " + std::to_string(b.shape.size()) +
               " dimension(s) but is indexed with " + std::to_string(n),
           span);
    }
    int64_t i = idx[0];
    int64_t total = 1;
    for (int64_t d : b.shape) total *= d;
    if (i < 0 || i >= total) {
      Fail("out-of-bounds " + std::string(verb) + " of " + IndexText(info->buffer->name, {i}) +
               ": flat index " + std::to_string(i) + " is outside [0, " + std::to_string(total) +
               ") (buffer shape " + ShapeText(b.shape) + ")" + lane_text(),
           span);
    }
    for (size_t d = b.shape.size(); d-- > 0;) {  // row-major position to strided offset
      offset += (i % b.shape[d]) * b.strides[d];
      i /= b.shape[d];
    }
  } else {
    for (size_t k = 0; k < n; ++k) {
      if (idx[k] < 0 || idx[k] >= b.shape[k]) {
        Fail("out-of-bounds " + std::string(verb) + " of " +
                 IndexText(info->buffer->name, std::vector<int64_t>(idx, idx + n)) + ": index " +
                 std::to_string(idx[k]) + " is outside [0, " + std::to_string(b.shape[k]) +
                 ") in dimension " + std::to_string(k) + " (buffer shape " + ShapeText(b.shape) +
                 ")" + lane_text(),
             span);
      }
      offset += idx[k] * b.strides[k];
    }
  }
  // Views (decl_buffer, match_buffer, element offsets, strides) can still reach outside the
  // memory they view: check against the memory itself.
  const int64_t byte = b.base + offset * info->elem_bytes;
  if (byte < 0 || byte + info->elem_bytes > b.storage->bytes) {
    Fail("out-of-bounds " + std::string(verb) + " of " + info->buffer->name + ": element " +
             std::to_string(offset) + " (from the element offset) lies at byte " +
             std::to_string(byte) + " of '" + b.storage->name + "', which holds " +
             std::to_string(b.storage->bytes) + " bytes" + lane_text(),
         span);
  }
  return byte;
}

int64_t Access::IndexValue(Frame& frame, size_t k, Value* v) const {
  *v = indices[k](frame);
  if (v->kind() == Kind::kFloat || v->kind() == Kind::kHandle) {
    Fail("index " + std::to_string(k) + " of " + info->buffer->name + " is not an integer", span);
  }
  return (*v)[0].i;
}

int64_t Access::ScalarAddressSlow(Frame& frame, Storage** storage) const {
  BufferBinding& b = machine->Resolve(frame, *info, span);
  *storage = b.storage;
  const size_t n = indices.size();
  int64_t small[8];
  std::vector<int64_t> big;
  int64_t* idx = small;
  if (n > 8) {
    big.resize(n);
    idx = big.data();
  }
  for (size_t k = 0; k < n; ++k) idx[k] = scalar_indices[k](frame).i;
  // The checks of ElementByte for the common case (one index per dimension, in bounds), which
  // ElementByte itself then reports when they fail.
  bool ok = n == b.shape.size();
  int64_t offset = 0;
  for (size_t k = 0; ok && k < n; ++k) {
    ok = idx[k] >= 0 && idx[k] < b.shape[k];
    offset += idx[k] * b.strides[k];
  }
  const int64_t byte = b.base + offset * info->elem_bytes;
  if (ok && byte >= 0 && byte + info->elem_bytes <= b.storage->bytes) return byte;
  return ElementByte(b, idx, n, 0, 1);
}

void Access::Addresses(Frame& frame, std::vector<int64_t>* out, Storage** storage,
                     int* index_lanes, const Value* pred) const {
  BufferBinding& b = machine->Resolve(frame, *info, span);
  *storage = b.storage;
  const size_t n = indices.size();
  std::vector<Value> v(n);
  int lanes = 1;
  for (size_t k = 0; k < n; ++k) {
    IndexValue(frame, k, &v[k]);
    if (v[k].lanes() > 1) {
      if (lanes > 1 && lanes != v[k].lanes()) Fail("vector indices of different lane counts", span);
      lanes = v[k].lanes();
    }
  }
  *index_lanes = lanes;
  out->assign(lanes, -1);
  const int64_t buffer_lanes = info->buffer->dtype.lanes();
  if (pred && pred->lanes() != 1 && pred->lanes() != lanes * buffer_lanes) {
    Fail("the predicate of this access has " + std::to_string(pred->lanes()) + " lanes, the access " +
             std::to_string(lanes * buffer_lanes),
         span);
  }
  std::vector<int64_t> idx(n);
  for (int l = 0; l < lanes; ++l) {
    if (pred) {
      bool any = false;
      for (int64_t e = 0; e < buffer_lanes; ++e) {
        any |= (pred->lanes() == 1 ? (*pred)[0] : (*pred)[l * buffer_lanes + e]).i != 0;
      }
      if (!any) continue;
    }
    for (size_t k = 0; k < n; ++k) idx[k] = v[k].lanes() == 1 ? v[k][0].i : v[k][l].i;
    (*out)[l] = ElementByte(b, idx.data(), n, l, lanes);
  }
}

}  // namespace wb::tir::interp
