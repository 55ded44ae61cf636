// The cards network's forward (inference/cards_net.h) for the CPU without libtorch: one row at a
// time, fp32, skipping zero inputs. The encoding is sparse (a colour's 84 card-plane entries
// hold at most one 1 per card) and ReLU leaves about half of every hidden layer at zero, so a
// row costs a fraction of the dense products; and a row's arithmetic is the same whatever the
// batch, so its outputs do not depend on the batch size. Small batches pay no per-operation
// dispatch: the libtorch forward runs about 20 tensor operations per call, which dominates at
// the rollouts' 30-90 rows. Compiled for AVX-512, AVX2 and baseline x86-64, chosen at run
// time (CardsKernelIsa).
//
// The arithmetic is CardsForward's: the per-colour encoder, the pooled context, the per-colour
// head on [e_c, g], the deck on g, the meaning scores gathered onto the slot actions. The
// gather and the encoder's index come from CardsConstants (the spec is built from them), so
// both forwards read the encoding one way; tests/inference/cards_net_test.cc checks them equal.
// Torch-free.
#ifndef LCFR_INFERENCE_CARDS_KERNEL_H_
#define LCFR_INFERENCE_CARDS_KERNEL_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "inference/network_config.h"

namespace lcfr::inference {

// What the kernel reads of a row and how the meanings map onto the slot actions.
struct CardsKernelSpec {
  int64_t features = 0;  // floats per row (the encoding and the legal mask)
  int64_t actions = 0;   // outputs per row
  int64_t colors = 0;    // encoder blocks per row
  int64_t block = 0;     // the encoder's input per colour (7K + 15)
  int64_t globals = 0;   // the global features' offset in a row
  int64_t num_globals = 0;
  int64_t per_colour = 0;  // meaning scores per colour (2T + 1); the deck's is colors * per_colour
  std::vector<int32_t> encoder_index;  // [colors * block]: colour c's input i is row[index]
  // Per action, meaning = round(bias + sum weight * row[offset]) clamped to [0, deck].
  struct Term {
    int32_t offset;
    float weight;
  };
  std::vector<std::vector<Term>> meaning_terms;
  std::vector<float> meaning_bias;
};

// The instruction sets the kernel is compiled for (x86-64 micro-architecture levels; elsewhere
// only kBaseline, the compiler's default target).
enum class CardsKernelIsa { kX86_64_V4, kX86_64_V3, kBaseline };

// Those this CPU runs, best first (kBaseline always).
std::vector<CardsKernelIsa> SupportedCardsKernelIsas();
std::string_view CardsKernelIsaName(CardsKernelIsa isa);  // "x86-64-v4", "x86-64-v3", "baseline"

class CardsKernel {
 public:
  // `shape`: a cards network (CardsShapeProblem empty); `networks`: how many weight sets;
  // `isa`: one of SupportedCardsKernelIsas() (CHECKed), by default the best.
  CardsKernel(CardsKernelSpec spec, const NetworkShape& shape, int networks,
              CardsKernelIsa isa = SupportedCardsKernelIsas().front());
  CardsKernelIsa isa() const { return isa_; }

  // Network n's layers in CardsLayerSizes' order, each [in, out] row-major (x @ W), and
  // biases [out]: copied (padded for the vector loops).
  void SetWeights(int network, std::span<const float* const> weights,
                  std::span<const float* const> biases, Activation activation);

  // out[r * actions + a] for `rows` rows of x (each `features` floats) under network n. With
  // `legal` ([rows, actions], nonzero where legal) only the legal actions' outputs are computed
  // and the others are 0: a colour's head runs only where a legal action reads it, and a colour
  // read at one meaning (a draw from its pile) computes that one score.
  void Run(int network, const float* x, int64_t rows, float* out, const float* legal = nullptr);

 private:
  struct Layer {
    int64_t in = 0, padded = 0;  // padded: the outputs rounded up to 8
    std::vector<float> w, b;     // [in, padded], [padded]
    std::vector<float> t;        // head_out only: W transposed, [out, Padded(in)]
  };
  struct Net {
    std::vector<Layer> encoder;
    Layer context, head_e, head_g, head_out, deck;  // head_g has no bias (zeros)
    Activation activation = Activation::kRelu;
  };

  CardsKernelSpec spec_;
  int64_t width_ = 0;
  CardsKernelIsa isa_;
  std::vector<Net> nets_;
  // The row's encoder region [encoder_begin_, + encoder_size_), and the encoder's inputs as runs
  // of it: triples (offset in the region, first input, length <= 64), colour c's at
  // [run_begin_[c], run_begin_[c + 1]) triples: a row's nonzero encoder inputs come from one
  // bit mask of the region.
  int64_t encoder_begin_ = 0, encoder_size_ = 0;
  std::vector<int32_t> runs_, run_begin_;
  // Scratch for one row: the colours' encodings (enc_a) and the encoder's layers between the
  // first and the last (enc_b), the pooled context, g and its head part, the head's hidden
  // layer, the meaning scores, the nonzero inputs of the layer being computed, and each
  // colour's nonzero encoder inputs.
  std::vector<float> enc_a_, enc_b_, pooled_, g_, from_g_, hidden_, scores_;
  std::vector<int32_t> nz_index_;
  std::vector<float> nz_value_;
  std::vector<int32_t> enc_index_;
  std::vector<float> enc_value_;
  std::vector<int64_t> enc_count_;
  std::vector<uint64_t> region_bits_, colour_bits_;  // the region's and a colour's bit masks
  std::vector<int32_t> meaning_;                     // [actions]: the score each action reads
  std::vector<uint64_t> need_;  // [colors]: bit o where a legal action reads colour score o
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_CARDS_KERNEL_H_
