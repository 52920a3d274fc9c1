// The cost model that ranks candidates before any is measured: gradient-boosted trees
// (XGBoost's C API, as TVM's XGBModel) over the function features of feature_extractor.h,
// trained on the normalized throughput of what was measured (best latency of the task /
// latency, so 1 is the task's best so far). Until `min_train_size` measurements exist it ranks
// at random (seeded), as TVM's does before its first update; it is retrained from scratch on
// all the data each time Update is called.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wb::meta_schedule {

class XGBoostCostModel {
 public:
  explicit XGBoostCostModel(uint64_t seed, size_t min_train_size = 16, int rounds = 60);
  ~XGBoostCostModel();
  XGBoostCostModel(const XGBoostCostModel&) = delete;
  XGBoostCostModel& operator=(const XGBoostCostModel&) = delete;

  // Adds measured rows (features, seconds; a failed run is not added) and retrains.
  void Update(const std::vector<std::vector<float>>& features, const std::vector<double>& seconds);
  // Predicted scores, higher is better.
  std::vector<double> Predict(const std::vector<std::vector<float>>& features);
  bool trained() const { return booster_ != nullptr; }
  size_t size() const { return seconds_.size(); }
  // Why the last training or prediction failed (XGBoost's message); empty when none did.
  const std::string& error() const { return error_; }

 private:
  void Train();
  std::mt19937_64 rng_;
  size_t min_train_size_;
  int rounds_;
  std::vector<std::vector<float>> features_;
  std::vector<double> seconds_;
  void* booster_ = nullptr;
  std::string error_;
};

}  // namespace wb::meta_schedule
