// Numerical comparison of two NDArrays with a report a user can act on: how many elements
// differ, the largest absolute and relative errors, and the first mismatch with its index.
#include <cmath>
#include <sstream>

#include "runtime/ndarray.h"

namespace wb::runtime {

Tolerance DefaultTolerance(DLDataType dtype) {
  if (dtype.code == kDLFloat && dtype.bits == 16) return {1e-2, 1e-2};
  if (dtype.code == kDLBfloat) return {2e-2, 2e-2};
  // float32 results of long reductions differ with the summation order and FMA contraction
  // (compiled code against the interpreter, a default schedule against the kernel as written):
  // a 784-term dot product already moves by ~7e-5.
  if (dtype.code == kDLFloat && dtype.bits == 32) return {1e-4, 1e-4};
  if (dtype.code == kDLFloat && dtype.bits == 64) return {1e-10, 1e-10};
  return {0, 0};
}

namespace {

std::string Shape(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string Index(const NDArray& a, int64_t flat) {
  std::vector<int64_t> idx(a.ndim());
  for (int i = a.ndim() - 1; i >= 0; --i) {
    idx[i] = flat % a.shape()[i];
    flat /= a.shape()[i];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

}  // namespace

CompareResult Compare(const NDArray& actual, const NDArray& expected, Tolerance tol) {
  CompareResult r;
  if (actual.shape() != expected.shape()) {
    r.ok = false;
    r.message = "shape " + Shape(actual.shape()) + " differs from the expected " + Shape(expected.shape());
    return r;
  }
  const bool integral = !actual.dtype().is_float() && !expected.dtype().is_float();
  const int64_t n = actual.NumElements();
  double first_a = 0, first_e = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool bad = false;
    double a = 0, e = 0;
    if (integral) {
      int64_t ai = actual.GetInt(i), ei = expected.GetInt(i);
      a = static_cast<double>(ai);
      e = static_cast<double>(ei);
      double diff = std::fabs(a - e);
      bad = ai != ei && diff > tol.atol + tol.rtol * std::fabs(e);
      if (ai != ei) {
        if (diff > r.max_abs_error || r.worst < 0) r.worst = i;
        r.max_abs_error = std::max(r.max_abs_error, diff);
        if (e != 0) r.max_rel_error = std::max(r.max_rel_error, diff / std::fabs(e));
      }
    } else {
      a = actual.GetDouble(i);
      e = expected.GetDouble(i);
      if (std::isnan(a) || std::isnan(e)) {
        bad = std::isnan(a) != std::isnan(e);
      } else if (std::isinf(a) || std::isinf(e)) {
        bad = a != e;
      } else {
        double diff = std::fabs(a - e);
        if (diff > r.max_abs_error) r.worst = i;
        r.max_abs_error = std::max(r.max_abs_error, diff);
        if (e != 0) r.max_rel_error = std::max(r.max_rel_error, diff / std::fabs(e));
        bad = diff > tol.atol + tol.rtol * std::fabs(e);
      }
    }
    if (bad) {
      // A NaN or infinity mismatch has no finite error: it is the worst element when no other is.
      if (r.worst < 0) r.worst = i;
      if (r.mismatches == 0) {
        r.first_mismatch = i;
        first_a = a;
        first_e = e;
      }
      ++r.mismatches;
    }
  }
  if (r.mismatches > 0) {
    r.ok = false;
    std::ostringstream os;
    os.precision(9);
    os << r.mismatches << " of " << n << " elements differ (rtol " << tol.rtol << ", atol "
       << tol.atol << "); first at " << Index(actual, r.first_mismatch) << ": got " << first_a
       << ", expected " << first_e << "; max abs error " << r.max_abs_error
       << ", max rel error " << r.max_rel_error;
    r.message = os.str();
  }
  return r;
}

CompareResult Compare(const NDArray& actual, const NDArray& expected) {
  return Compare(actual, expected, DefaultTolerance(expected.dtype()));
}

}  // namespace wb::runtime
