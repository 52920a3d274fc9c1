// GPU builds run on a GPU (label `gpu`; every row skips with "no CUDA device: <reason>"
// elsewhere): the "run" and "vm" cases of gpu_cases.cpp, which the GPU check executable runs too.
#include "gpu_cases_qt.h"

class TstCudaRun : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void cases_data() { wb::gpucases::AddRows("run"); }
  void cases() { wb::gpucases::RunRow(); }
  void vm_data() { wb::gpucases::AddRows("vm"); }
  void vm() { wb::gpucases::RunRow(); }
};

QTEST_APPLESS_MAIN(TstCudaRun)
#include "tst_cuda_run.moc"
