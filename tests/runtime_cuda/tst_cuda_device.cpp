// The CUDA runtime on a GPU (label `gpu`; every row skips with "no CUDA device: <reason>"
// elsewhere): the "device" cases of gpu_cases.cpp, which the GPU check executable runs too.
#include "gpu_cases_qt.h"

class TstCudaDevice : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void cases_data() { wb::gpucases::AddRows("device"); }
  void cases() { wb::gpucases::RunRow(); }
};

QTEST_APPLESS_MAIN(TstCudaDevice)
#include "tst_cuda_device.moc"
