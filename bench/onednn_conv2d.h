// oneDNN's direct convolution (Debian's libdnnl-dev) as a benchmark reference: a square kernel
// (3x3 unless told), its stride and padding on both axes, batch 1, NCHW data in and out; the
// weights reordered once, outside any timing, to the layout oneDNN prefers. Built only where libdnnl-dev is (WB_HAVE_DNNL); its threads are
// OpenMP's (SetThreads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace wb::bench {

class OneDnnConv2d {
 public:
  // x: c x h x w, weight: f x c x k x k, out: f x oh x ow (oh = (h + 2 pad - k) / stride + 1);
  // the pointers must outlive this object.
  OneDnnConv2d(int64_t c, int64_t f, int64_t h, int64_t w, const float* x, const float* weight,
               float* out, int64_t k = 3, int64_t stride = 1, int64_t pad = 1);
  ~OneDnnConv2d();
  void Run();
  // oneDNN's name for the implementation it chose ("brg:avx2", "jit:avx2", ...).
  std::string Implementation() const;
  static void SetThreads(int threads);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wb::bench
