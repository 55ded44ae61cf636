#include "inference/staging.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/check.h"
#include "inference/networks.h"

namespace lcfr::inference {

Staging::Staging(int64_t features, int64_t actions, int num_networks, int max_rows, bool pinned)
    : features_(features), actions_(actions), num_networks_(num_networks) {
  LCFR_CHECK_LE(num_networks, kNumNetworks);
  const int64_t rows = static_cast<int64_t>(num_networks) * max_rows;
  const auto host = at::TensorOptions().dtype(at::kFloat).pinned_memory(pinned);
  x_ = at::zeros({rows * features_}, host);
  mask_ = at::ones({rows * actions_}, host);
}

const StagedChunk& Staging::Stage(std::span<const traversal::PolicyRequest> requests,
                                  const std::function<int64_t(int64_t)>& block_rows) {
  std::array<int64_t, kNumNetworks> counts{};
  std::array<traversal::Head, kNumNetworks> heads{};
  chunk_.mixed_heads = false;
  for (const traversal::PolicyRequest& r : requests) {
    LCFR_CHECK(r.network >= 0 && r.network < num_networks_)
        << "network id " << r.network << " out of range";
    // Where a caller's buffers meet the networks' sizes: a request of a game of other rules (its
    // features or actions sized by them) must never reach the copies below (always on: a few
    // compares per row against a forward of microseconds).
    LCFR_CHECK_EQ(r.features.size(), static_cast<size_t>(features_))
        << "a request's features are not the network's input size";
    LCFR_CHECK_EQ(r.output.size(), static_cast<size_t>(actions_))
        << "a request's output is not the network's action count";
    LCFR_CHECK(actions_ >= 32 || (r.legal_mask >> actions_) == 0)
        << "legal mask " << r.legal_mask << " names actions beyond the network's " << actions_;
    if (counts[r.network] == 0) heads[r.network] = r.head;
    chunk_.mixed_heads |= heads[r.network] != r.head;
    ++counts[r.network];
  }
  chunk_.used.clear();
  chunk_.heads.clear();
  std::array<int64_t, kNumNetworks> block{};
  for (int n = 0; n < num_networks_; ++n) {
    if (counts[n] == 0) continue;
    block[n] = static_cast<int64_t>(chunk_.used.size());
    chunk_.used.push_back(n);
    chunk_.heads.push_back(heads[n]);
  }
  const int64_t rows = block_rows(*std::max_element(counts.begin(), counts.end()));
  chunk_.rows = rows;

  float* x = x_.data_ptr<float>();
  float* mask = mask_.data_ptr<float>();
  for (int n : chunk_.used) {
    const int64_t first_pad = block[n] * rows + counts[n];
    const int64_t pad = rows - counts[n];
    if (pad == 0) continue;
    std::memset(x + first_pad * features_, 0, sizeof(float) * pad * features_);
    std::fill(mask + first_pad * actions_, mask + (first_pad + pad) * actions_, 1.0f);
  }
  std::array<int64_t, kNumNetworks> fill{};
  chunk_.positions.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const traversal::PolicyRequest& r = requests[i];
    const int64_t row = block[r.network] * rows + fill[r.network]++;
    chunk_.positions[i] = row;
    std::memcpy(x + row * features_, r.features.data(), sizeof(float) * features_);
    float* m = mask + row * actions_;
    for (int64_t a = 0; a < actions_; ++a) m[a] = (r.legal_mask >> a & 1) ? 1.0f : 0.0f;
  }
  return chunk_;
}

}  // namespace lcfr::inference
