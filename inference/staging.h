// The batched evaluator's staging (inference/batched_evaluator.h): one chunk of requests laid
// out in host buffers for a fused forward, rows grouped by network into blocks
// [blocks, rows, features] padded to the largest group (padding rows: zero features, every
// action legal), with the legal masks as floats beside them. Allocated once (pinned when the
// forward runs on CUDA) and refilled per chunk. Internal to inference/ (includes libtorch).
#ifndef LCFR_INFERENCE_STAGING_H_
#define LCFR_INFERENCE_STAGING_H_

#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "traversal/evaluator.h"

namespace lcfr::inference {

// The layout of the staged chunk.
struct StagedChunk {
  std::vector<int> used;               // the networks asked for, ascending: one block each
  std::vector<traversal::Head> heads;  // per block, the head its requests name
  bool mixed_heads = false;            // a network was asked for two heads (heads[] then wrong)
  int64_t rows = 0;                    // rows per block, padding included
  std::vector<int64_t> positions;      // per request, its row in [blocks * rows)
};

class Staging {
 public:
  // Room for `max_rows` requests per network of `num_networks`.
  Staging(int64_t features, int64_t actions, int num_networks, int max_rows, bool pinned);

  // Stages `requests` (at most max_rows); `block_rows` maps the largest group's size to the
  // rows per block (a backend may round it up, e.g. to a CUDA graph's bucket).
  const StagedChunk& Stage(std::span<const traversal::PolicyRequest> requests,
                           const std::function<int64_t(int64_t)>& block_rows);

  const StagedChunk& chunk() const { return chunk_; }
  // Host buffers, flat: features [capacity * features], masks [capacity * actions].
  const at::Tensor& x() const { return x_; }
  const at::Tensor& mask() const { return mask_; }
  int64_t features() const { return features_; }
  int64_t actions() const { return actions_; }

 private:
  int64_t features_, actions_;
  int num_networks_;
  at::Tensor x_, mask_;
  StagedChunk chunk_;
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_STAGING_H_
