#include "inference/cards_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>
#define LCFR_CARDS_KERNEL_X86 1
#endif

#include "base/check.h"

namespace lcfr::inference {
namespace {

constexpr int64_t kLanes = 8;             // floats per vector
constexpr size_t kMaxEncoderLayers = 64;  // network.hidden_layers' limit

int64_t Padded(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// A layer as the row function reads it.
struct LayerView {
  int64_t in, padded;
  const float* w;  // [in, padded]
  const float* b;  // [padded]
  const float* t;  // head_out only: W transposed, [out, Padded(in)]
};

struct RowScratch {
  float *enc_a, *enc_b, *pooled, *g, *from_g, *hidden, *scores;
  int32_t* nz_index;
  float* nz_value;
  int32_t* enc_index;  // [colors * block]: each colour's nonzero encoder inputs
  float* enc_value;
  int64_t* enc_count;  // [colors]
  uint64_t *region_bits, *colour_bits;
  int32_t* meaning;  // [actions]
  uint64_t* need;    // [colors]
};

struct NetView {
  const LayerView* encoder;
  int64_t encoder_layers;
  LayerView context, head_e, head_g, head_out, deck;
  Activation activation;
};

// The row's encoder region [begin, begin + size) and the encoder's inputs as runs of it
// (CardsKernel::runs_).
struct EncoderMap {
  int64_t begin, size;
  const int32_t* runs;       // (offset, input, length) triples
  const int32_t* run_begin;  // [colors + 1], in triples
};

using RowFn = void (*)(const CardsKernelSpec&, const EncoderMap&, const NetView&, int64_t,
                       const RowScratch&, const float*, const float*, float*);

}  // namespace

// The row function once per instruction set (inference/cards_kernel_row.inc).
#if defined(LCFR_CARDS_KERNEL_X86)
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define LCFR_CARDS_KERNEL_MASK 2
namespace cards_v4 {
namespace {
#include "inference/cards_kernel_row.inc"
}  // namespace
}  // namespace cards_v4
#undef LCFR_CARDS_KERNEL_MASK
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define LCFR_CARDS_KERNEL_MASK 2
namespace cards_v3 {
namespace {
#include "inference/cards_kernel_row.inc"
}  // namespace
}  // namespace cards_v3
#undef LCFR_CARDS_KERNEL_MASK
#pragma GCC pop_options

#define LCFR_CARDS_KERNEL_MASK 1
#else
#define LCFR_CARDS_KERNEL_MASK 0
#endif
namespace cards_baseline {
namespace {
#include "inference/cards_kernel_row.inc"
}  // namespace
}  // namespace cards_baseline
#undef LCFR_CARDS_KERNEL_MASK

namespace {

RowFn RowFor(CardsKernelIsa isa) {
  switch (isa) {
#if defined(LCFR_CARDS_KERNEL_X86)
    case CardsKernelIsa::kX86_64_V4:
      return cards_v4::RowImpl;
    case CardsKernelIsa::kX86_64_V3:
      return cards_v3::RowImpl;
#endif
    default:
      return cards_baseline::RowImpl;
  }
}

}  // namespace

std::vector<CardsKernelIsa> SupportedCardsKernelIsas() {
  std::vector<CardsKernelIsa> isas;
#if defined(LCFR_CARDS_KERNEL_X86)
  if (__builtin_cpu_supports("x86-64-v4")) isas.push_back(CardsKernelIsa::kX86_64_V4);
  if (__builtin_cpu_supports("x86-64-v3")) isas.push_back(CardsKernelIsa::kX86_64_V3);
#endif
  isas.push_back(CardsKernelIsa::kBaseline);
  return isas;
}

std::string_view CardsKernelIsaName(CardsKernelIsa isa) {
  switch (isa) {
    case CardsKernelIsa::kX86_64_V4:
      return "x86-64-v4";
    case CardsKernelIsa::kX86_64_V3:
      return "x86-64-v3";
    case CardsKernelIsa::kBaseline:
      break;
  }
  return "baseline";
}

CardsKernel::CardsKernel(CardsKernelSpec spec, const NetworkShape& shape, int networks,
                         CardsKernelIsa isa)
    : spec_(std::move(spec)), width_(shape.config.hidden_width), isa_(isa), nets_(networks) {
  LCFR_CHECK(static_cast<int64_t>(spec_.encoder_index.size()) == spec_.colors * spec_.block);
  LCFR_CHECK(static_cast<int64_t>(spec_.meaning_terms.size()) == spec_.actions);
  LCFR_CHECK(spec_.block < (1 << 16) && spec_.colors < (1 << 15) && spec_.per_colour <= 64);
  const std::vector<CardsKernelIsa> supported = SupportedCardsKernelIsas();
  LCFR_CHECK(std::find(supported.begin(), supported.end(), isa) != supported.end())
      << "this CPU does not run the cards kernel's " << CardsKernelIsaName(isa) << " build";
  // The encoder region, and the inputs of each colour as runs of consecutive offsets.
  const auto [lo, hi] = std::minmax_element(spec_.encoder_index.begin(), spec_.encoder_index.end());
  encoder_begin_ = *lo;
  encoder_size_ = *hi - *lo + 1;
  std::vector<bool> read(static_cast<size_t>(encoder_size_), false);
  run_begin_.push_back(0);
  for (int64_t c = 0; c < spec_.colors; ++c) {
    const int32_t* index = spec_.encoder_index.data() + c * spec_.block;
    for (int64_t i = 0; i < spec_.block;) {
      const int64_t offset = index[i] - encoder_begin_;
      int64_t length = 1;
      while (i + length < spec_.block && length < 64 && index[i + length] == index[i] + length) {
        ++length;
      }
      for (int64_t k = 0; k < length; ++k) {
        LCFR_CHECK(!read[static_cast<size_t>(offset + k)])
            << "the cards kernel's encoder reads an input twice";
        read[static_cast<size_t>(offset + k)] = true;
      }
      runs_.insert(runs_.end(), {static_cast<int32_t>(offset), static_cast<int32_t>(i),
                                 static_cast<int32_t>(length)});
      i += length;
    }
    run_begin_.push_back(static_cast<int32_t>(runs_.size() / 3));
  }
  region_bits_.assign(static_cast<size_t>((encoder_size_ + 63) / 64 + 1), 0);
  colour_bits_.assign(static_cast<size_t>((spec_.block + 63) / 64 + 1), 0);
  const int64_t wp = Padded(width_);
  const int64_t widest = std::max({2 * width_ + spec_.num_globals, wp});
  enc_a_.assign(static_cast<size_t>(spec_.colors * wp), 0.0f);
  enc_b_.assign(static_cast<size_t>(2 * wp), 0.0f);
  pooled_.assign(static_cast<size_t>(2 * width_ + spec_.num_globals + kLanes), 0.0f);
  g_.assign(static_cast<size_t>(wp), 0.0f);
  from_g_.assign(static_cast<size_t>(wp), 0.0f);
  hidden_.assign(static_cast<size_t>(spec_.colors * wp), 0.0f);
  scores_.assign(static_cast<size_t>(spec_.colors * spec_.per_colour + Padded(spec_.per_colour)),
                 0.0f);
  nz_index_.assign(static_cast<size_t>(widest), 0);
  nz_value_.assign(static_cast<size_t>(widest), 0.0f);
  enc_index_.assign(static_cast<size_t>(spec_.colors * spec_.block), 0);
  enc_value_.assign(static_cast<size_t>(spec_.colors * spec_.block), 0.0f);
  enc_count_.assign(static_cast<size_t>(spec_.colors), 0);
  meaning_.assign(static_cast<size_t>(spec_.actions), 0);
  need_.assign(static_cast<size_t>(spec_.colors), 0);
}

void CardsKernel::SetWeights(int network, std::span<const float* const> weights,
                             std::span<const float* const> biases, Activation activation) {
  LCFR_CHECK(network >= 0 && network < static_cast<int>(nets_.size()));
  LCFR_CHECK(weights.size() == biases.size() && weights.size() >= 5);
  const size_t encoder_layers = weights.size() - 4;
  LCFR_CHECK(encoder_layers <= kMaxEncoderLayers)
      << "the cards kernel takes at most " << kMaxEncoderLayers << " encoder layers";
  auto pack = [](int64_t in, int64_t out, const float* w, const float* b, int64_t row_offset) {
    Layer l;
    l.in = in;
    l.padded = Padded(out);
    l.w.assign(static_cast<size_t>(in * l.padded), 0.0f);
    l.b.assign(static_cast<size_t>(l.padded), 0.0f);
    for (int64_t k = 0; k < in; ++k) {
      std::memcpy(&l.w[static_cast<size_t>(k * l.padded)], w + (row_offset + k) * out,
                  sizeof(float) * static_cast<size_t>(out));
    }
    if (b != nullptr) std::memcpy(l.b.data(), b, sizeof(float) * static_cast<size_t>(out));
    return l;
  };
  Net net;
  net.activation = activation;
  const int64_t w = width_;
  int64_t in = spec_.block;
  for (size_t l = 0; l < encoder_layers; ++l) {
    net.encoder.push_back(pack(in, w, weights[l], biases[l], 0));
    in = w;
  }
  const size_t ctx = encoder_layers;
  net.context = pack(2 * w + spec_.num_globals, w, weights[ctx], biases[ctx], 0);
  net.head_e = pack(w, w, weights[ctx + 1], biases[ctx + 1], 0);
  net.head_g = pack(w, w, weights[ctx + 1], nullptr, w);
  net.head_out = pack(w, spec_.per_colour, weights[ctx + 2], biases[ctx + 2], 0);
  const int64_t wp = Padded(w);
  net.head_out.t.assign(static_cast<size_t>(spec_.per_colour * wp), 0.0f);
  for (int64_t o = 0; o < spec_.per_colour; ++o) {
    for (int64_t k = 0; k < w; ++k) {
      net.head_out.t[static_cast<size_t>(o * wp + k)] = weights[ctx + 2][k * spec_.per_colour + o];
    }
  }
  net.deck = pack(w, 1, weights[ctx + 3], biases[ctx + 3], 0);
  nets_[static_cast<size_t>(network)] = std::move(net);
}

void CardsKernel::Run(int network, const float* x, int64_t rows, float* out, const float* legal) {
  const Net& net = nets_[static_cast<size_t>(network)];
  LCFR_CHECK(!net.encoder.empty()) << "the cards kernel's network " << network << " has no weights";
  auto view = [](const Layer& l) {
    return LayerView{l.in, l.padded, l.w.data(), l.b.data(), l.t.data()};
  };
  LayerView encoder[kMaxEncoderLayers];
  for (size_t l = 0; l < net.encoder.size(); ++l) encoder[l] = view(net.encoder[l]);
  const NetView v{encoder,           static_cast<int64_t>(net.encoder.size()),
                  view(net.context), view(net.head_e),
                  view(net.head_g),  view(net.head_out),
                  view(net.deck),    net.activation};
  const RowScratch s{enc_a_.data(),       enc_b_.data(),       pooled_.data(),    g_.data(),
                     from_g_.data(),      hidden_.data(),      scores_.data(),    nz_index_.data(),
                     nz_value_.data(),    enc_index_.data(),   enc_value_.data(), enc_count_.data(),
                     region_bits_.data(), colour_bits_.data(), meaning_.data(),   need_.data()};
  const EncoderMap map{encoder_begin_, encoder_size_, runs_.data(), run_begin_.data()};
  const RowFn row = RowFor(isa_);
  for (int64_t r = 0; r < rows; ++r) {
    row(spec_, map, v, width_, s, x + r * spec_.features,
        legal == nullptr ? nullptr : legal + r * spec_.actions, out + r * spec_.actions);
  }
}

}  // namespace lcfr::inference
