#include "onednn_conv2d.h"

#include <omp.h>

#include <dnnl.hpp>

namespace wb::bench {

struct OneDnnConv2d::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::memory src, dst, weights;
  dnnl::convolution_forward prim;
};

OneDnnConv2d::OneDnnConv2d(int64_t c, int64_t f, int64_t h, int64_t w, const float* x,
                           const float* weight, float* out, int64_t k, int64_t stride,
                           int64_t pad)
    : impl_(std::make_unique<Impl>()) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  Impl& m = *impl_;
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  dnnl::memory::dims src_dims = {1, c, h, w}, dst_dims = {1, f, oh, ow}, w_dims = {f, c, k, k};
  dnnl::memory::desc src_md(src_dims, dt::f32, tag::nchw), dst_md(dst_dims, dt::f32, tag::nchw);
  dnnl::memory::desc w_any(w_dims, dt::f32, tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src_md, w_any, dst_md,
                                       {stride, stride}, {pad, pad}, {pad, pad});
  m.pd = dnnl::convolution_forward::primitive_desc(desc, m.engine);
  m.src = dnnl::memory(src_md, m.engine, const_cast<float*>(x));
  m.dst = dnnl::memory(dst_md, m.engine, out);
  dnnl::memory plain({w_dims, dt::f32, tag::oihw}, m.engine, const_cast<float*>(weight));
  m.weights = dnnl::memory(m.pd.weights_desc(), m.engine);
  dnnl::reorder(plain, m.weights).execute(m.stream, plain, m.weights);
  m.stream.wait();
  m.prim = dnnl::convolution_forward(m.pd);
}

OneDnnConv2d::~OneDnnConv2d() = default;

void OneDnnConv2d::Run() {
  Impl& m = *impl_;
  m.prim.execute(m.stream,
                 {{DNNL_ARG_SRC, m.src}, {DNNL_ARG_WEIGHTS, m.weights}, {DNNL_ARG_DST, m.dst}});
  m.stream.wait();
}

std::string OneDnnConv2d::Implementation() const { return impl_->pd.impl_info_str(); }

void OneDnnConv2d::SetThreads(int threads) { omp_set_num_threads(threads); }

}  // namespace wb::bench
