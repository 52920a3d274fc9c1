// oneDNN's direct convolution (Debian's libdnnl-dev) as a benchmark reference: 3x3, stride 1,
// padding 1, batch 1, NCHW data in and out; the weights reordered once, outside any timing, to
// the layout oneDNN prefers. Built only where libdnnl-dev is (WB_HAVE_DNNL); its threads are
// OpenMP's (SetThreads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace wb::bench {

class OneDnnConv2d {
 public:
  // x: c x h x w, weight: f x c x 3 x 3, out: f x h x w; the pointers must outlive this object.
  OneDnnConv2d(int64_t c, int64_t f, int64_t h, int64_t w, const float* x, const float* weight,
               float* out);
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
