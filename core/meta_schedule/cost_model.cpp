#include "meta_schedule/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>

namespace wb::meta_schedule {

namespace {

// A dense matrix for XGBoost (rows of equal length).
DMatrixHandle Matrix(const std::vector<std::vector<float>>& rows, std::string* error) {
  size_t cols = rows.empty() ? 0 : rows[0].size();
  std::vector<float> flat;
  flat.reserve(rows.size() * cols);
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  DMatrixHandle m = nullptr;
  if (XGDMatrixCreateFromMat(flat.data(), rows.size(), cols, -1e30f, &m) != 0) {
    *error = XGBGetLastError();
    return nullptr;
  }
  return m;
}

}  // namespace

XGBoostCostModel::XGBoostCostModel(uint64_t seed, size_t min_train_size, int rounds)
    : rng_(seed), min_train_size_(min_train_size), rounds_(rounds) {}

XGBoostCostModel::~XGBoostCostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void XGBoostCostModel::Update(const std::vector<std::vector<float>>& features,
                              const std::vector<double>& seconds) {
  for (size_t i = 0; i < features.size() && i < seconds.size(); ++i) {
    if (!(seconds[i] > 0)) continue;
    features_.push_back(features[i]);
    seconds_.push_back(seconds[i]);
  }
  if (seconds_.size() >= min_train_size_) Train();
}

void XGBoostCostModel::Train() {
  double best = *std::min_element(seconds_.begin(), seconds_.end());
  std::vector<float> labels;
  for (double s : seconds_) labels.push_back(static_cast<float>(best / s));
  DMatrixHandle m = Matrix(features_, &error_);
  if (!m) return;
  BoosterHandle booster = nullptr;
  bool ok = XGDMatrixSetFloatInfo(m, "label", labels.data(), labels.size()) == 0 &&
            XGBoosterCreate(&m, 1, &booster) == 0;
  // TVM's XGBModel parameters, on one thread (the other cores measure).
  const std::pair<const char*, const char*> params[] = {
      {"max_depth", "10"}, {"gamma", "0.001"},  {"min_child_weight", "0"}, {"eta", "0.2"},
      {"nthread", "1"},    {"verbosity", "0"},  {"seed", "43"},           {"objective", "reg:squarederror"}};
  for (const auto& [k, v] : params) ok = ok && XGBoosterSetParam(booster, k, v) == 0;
  for (int i = 0; ok && i < rounds_; ++i) ok = XGBoosterUpdateOneIter(booster, i, m) == 0;
  if (!ok) {
    error_ = XGBGetLastError();
    if (booster) XGBoosterFree(booster);
  } else {
    if (booster_) XGBoosterFree(booster_);
    booster_ = booster;
    error_.clear();
  }
  XGDMatrixFree(m);
}

std::vector<double> XGBoostCostModel::Predict(const std::vector<std::vector<float>>& features) {
  std::vector<double> out(features.size());
  if (!booster_ || features.empty()) {
    std::uniform_real_distribution<double> u(0, 1);
    for (double& v : out) v = u(rng_);
    return out;
  }
  DMatrixHandle m = Matrix(features, &error_);
  if (!m) return out;
  bst_ulong len = 0;
  const float* result = nullptr;
  if (XGBoosterPredict(booster_, m, 0, 0, 0, &len, &result) != 0) {
    error_ = XGBGetLastError();
  } else {
    for (size_t i = 0; i < out.size() && i < len; ++i) out[i] = result[i];
  }
  XGDMatrixFree(m);
  return out;
}

}  // namespace wb::meta_schedule
