// The learner's optimizer (training/learner.h), in libtorch's terms: a header of training/ that
// only its .cc files and tests include.
#ifndef LCFR_TRAINING_FUSED_ADAM_H_
#define LCFR_TRAINING_FUSED_ADAM_H_

#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/_fused_adam.h>
#include <torch/types.h>

#include <utility>
#include <vector>

namespace lcfr::training {

// Adam (torch::optim::Adam's defaults: betas 0.9 / 0.999, eps 1e-8, no weight decay) as one fused
// kernel over every parameter (at::_fused_adam_, PyTorch's Adam(fused=True)), and the gradient
// norm clip as two foreach kernels without a host synchronisation: a step costs a handful of
// operator calls instead of a dozen per parameter.
class FusedAdam {
 public:
  explicit FusedAdam(std::vector<torch::Tensor> params) : params_(std::move(params)) {
    for (const torch::Tensor& p : params_) {
      exp_avg_.push_back(torch::zeros_like(p));
      exp_avg_sq_.push_back(torch::zeros_like(p));
      steps_.push_back(torch::zeros({}, p.options()));
    }
  }

  // Forgets every gradient (the next backward allocates them anew).
  void ZeroGrad() {
    for (torch::Tensor& p : params_) p.mutable_grad().reset();
  }

  // Scales the gradients so that their global norm is at most `max_norm`.
  void ClipGradNorm(double max_norm) {
    Grads();
    const torch::Tensor norm = torch::stack(at::_foreach_norm(grads_)).norm();
    at::_foreach_mul_(grads_, (max_norm / (norm + 1e-6)).clamp_max(1.0));
  }

  // One Adam step at learning rate `lr`; a parameter without a gradient steps with a zero one.
  void Step(double lr) {
    Grads();
    at::_foreach_add_(steps_, 1);  // the kernel reads the step count; it does not advance it
    at::_fused_adam_(params_, grads_, exp_avg_, exp_avg_sq_, {}, steps_, lr, 0.9, 0.999, 0.0, 1e-8,
                     /*amsgrad=*/false, /*maximize=*/false);
  }

 private:
  void Grads() {
    grads_.clear();
    for (torch::Tensor& p : params_) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      grads_.push_back(p.grad());
    }
  }

  std::vector<torch::Tensor> params_, exp_avg_, exp_avg_sq_, steps_, grads_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_FUSED_ADAM_H_
