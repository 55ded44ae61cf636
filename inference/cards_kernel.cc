#include "inference/cards_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "engine/check.h"

namespace lcfr::inference {
namespace {

// Eight floats; loads and stores through memcpy (unaligned). In the AVX clones a register.
typedef float V8 __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;
constexpr size_t kMaxEncoderLayers = 64;  // network.hidden_layers' limit

int64_t Padded(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

[[gnu::always_inline]] inline V8 Load(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
[[gnu::always_inline]] inline void Store(float* p, V8 v) { std::memcpy(p, &v, sizeof(v)); }

// A layer as the row function reads it.
struct LayerView {
  int64_t in, padded;
  const float* w;  // [in, padded]
  const float* b;  // [padded]
};

struct RowScratch {
  float *enc_a, *enc_b, *pooled, *g, *from_g, *hidden, *scores;
  int32_t* nz_index;
  float* nz_value;
};

struct NetView {
  const LayerView* encoder;
  int64_t encoder_layers;
  LayerView context, head_e, head_g, head_out, deck;
  Activation activation;
};

[[gnu::always_inline]] inline V8 Broadcast(float a) { return V8{a, a, a, a, a, a, a, a}; }

// NV vectors of outputs from o on: b + sum over the compacted inputs of value * W's row, the
// accumulators in registers.
template <int NV>
[[gnu::always_inline]] inline void Group(const LayerView& l, int64_t o, int64_t nnz,
                                         const int32_t* idx, const float* val, float* out) {
  V8 acc[NV];
  for (int j = 0; j < NV; ++j) acc[j] = Load(l.b + o + j * kLanes);
  for (int64_t t = 0; t < nnz; ++t) {
    const float* w = l.w + static_cast<int64_t>(idx[t]) * l.padded + o;
    const V8 v = Broadcast(val[t]);
    for (int j = 0; j < NV; ++j) acc[j] += v * Load(w + j * kLanes);
  }
  for (int j = 0; j < NV; ++j) Store(out + o + j * kLanes, acc[j]);
}

// The nonzero entries of in[0, n) (or of x[index[0, n)]) into the scratch list: a bit mask per
// 64 entries first (branch-free: whether an entry is zero is not predictable), then its set
// bits in order.
template <typename Read>
[[gnu::always_inline]] inline int64_t CompactWith(int64_t n, const RowScratch& s, Read read) {
  int64_t nnz = 0;
  for (int64_t base = 0; base < n; base += 64) {
    const int64_t end = std::min<int64_t>(n, base + 64);
    uint64_t mask = 0;
    for (int64_t k = base; k < end; ++k)
      mask |= static_cast<uint64_t>(read(k) != 0.0f) << (k - base);
    while (mask != 0) {
      const int64_t k = base + __builtin_ctzll(mask);
      mask &= mask - 1;
      s.nz_index[nnz] = static_cast<int32_t>(k);
      s.nz_value[nnz++] = read(k);
    }
  }
  return nnz;
}
[[gnu::always_inline]] inline int64_t Compact(const float* in, int64_t n, const RowScratch& s) {
  return CompactWith(n, s, [in](int64_t k) { return in[k]; });
}
[[gnu::always_inline]] inline int64_t CompactGather(const float* x, const int32_t* index, int64_t n,
                                                    const RowScratch& s) {
  return CompactWith(n, s, [x, index](int64_t k) { return x[index[k]]; });
}

// out = (the compacted input) @ W + b.
[[gnu::always_inline]] inline void DenseNz(const LayerView& l, int64_t nnz, float* out,
                                           const RowScratch& s) {
  int64_t o = 0;
  for (; o + 4 * kLanes <= l.padded; o += 4 * kLanes) {
    Group<4>(l, o, nnz, s.nz_index, s.nz_value, out);
  }
  switch ((l.padded - o) / kLanes) {
    case 3:
      Group<3>(l, o, nnz, s.nz_index, s.nz_value, out);
      break;
    case 2:
      Group<2>(l, o, nnz, s.nz_index, s.nz_value, out);
      break;
    case 1:
      Group<1>(l, o, nnz, s.nz_index, s.nz_value, out);
      break;
    default:
      break;
  }
}

[[gnu::always_inline]] inline void Dense(const LayerView& l, const float* in, float* out,
                                         const RowScratch& s) {
  DenseNz(l, Compact(in, l.in, s), out, s);
}

[[gnu::always_inline]] inline void Activate(float* p, int64_t n, Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      for (int64_t i = 0; i < n; i += kLanes) {
        const V8 v = Load(p + i);
        Store(p + i, v > V8{} ? v : V8{});
      }
      return;
    case Activation::kTanh:
      for (int64_t i = 0; i < n; ++i) p[i] = std::tanh(p[i]);
      return;
    case Activation::kSilu:
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] / (1.0f + std::exp(-p[i]));
      return;
  }
}

// One clone per instruction set, chosen at load time (an ifunc); elsewhere the baseline build.
#if defined(__x86_64__)
#define LCFR_CARDS_KERNEL_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LCFR_CARDS_KERNEL_CLONES
#endif

LCFR_CARDS_KERNEL_CLONES void RowImpl(const CardsKernelSpec& spec, const NetView& net,
                                      int64_t width, const RowScratch& s, const float* x,
                                      float* out) {
  const int64_t colors = spec.colors;
  const int64_t wp = Padded(width);
  // The encoder, colour by colour: its block's nonzero entries, then its layers.
  float* e = s.enc_a;
  for (int64_t c = 0; c < colors; ++c) {
    const int32_t* index = spec.encoder_index.data() + c * spec.block;
    // Layer 0 reads the block straight from the row; the last layer writes c's slot of enc_a;
    // layers between alternate over two buffers.
    float* t0 = s.enc_b;
    float* t1 = t0 + wp;
    const int64_t layers = net.encoder_layers;
    for (int64_t l = 0; l < layers; ++l) {
      float* dst = l + 1 == layers ? e + c * wp : (l % 2 == 0 ? t0 : t1);
      if (l == 0) {
        DenseNz(net.encoder[0], CompactGather(x, index, spec.block, s), dst, s);
      } else {
        Dense(net.encoder[l], l % 2 == 1 ? t0 : t1, dst, s);
      }
      Activate(dst, wp, net.activation);
    }
  }
  // The pooled context [sum_c e_c, max_c e_c, globals], then g.
  float* pooled = s.pooled;
  // Eight units at a time: each vector's tail past `width` (the padding, zeros) is overwritten
  // by the next part.
  for (int64_t i = 0; i < width; i += kLanes) {
    V8 sum = Load(e + i);
    for (int64_t c = 1; c < colors; ++c) sum += Load(e + c * wp + i);
    Store(pooled + i, sum);
  }
  for (int64_t i = 0; i < width; i += kLanes) {
    V8 max = Load(e + i);
    for (int64_t c = 1; c < colors; ++c) {
      const V8 v = Load(e + c * wp + i);
      max = v > max ? v : max;
    }
    Store(pooled + width + i, max);
  }
  for (int64_t i = 0; i < spec.num_globals; ++i) pooled[2 * width + i] = x[spec.globals + i];
  Dense(net.context, pooled, s.g, s);
  Activate(s.g, wp, net.activation);
  Dense(net.head_g, s.g, s.from_g, s);
  // Per colour, the head: act(e_c W_e + b + g W_g), then the colour's scores, written in
  // colour order at c * per_colour (each colour's padding is overwritten by the next), then
  // the deck's score after them: the meanings' own numbering.
  for (int64_t c = 0; c < colors; ++c) {
    float* h = s.hidden + c * wp;
    Dense(net.head_e, e + c * wp, h, s);
    for (int64_t i = 0; i < wp; i += kLanes) Store(h + i, Load(h + i) + Load(s.from_g + i));
    Activate(h, wp, net.activation);
    Dense(net.head_out, h, s.scores + c * spec.per_colour, s);
  }
  const int64_t deck_meaning = colors * spec.per_colour;
  Dense(net.deck, s.g, s.scores + deck_meaning, s);
  // The meaning scores onto the slot actions.
  for (int64_t a = 0; a < spec.actions; ++a) {
    float m = spec.meaning_bias[a];
    for (const CardsKernelSpec::Term& t : spec.meaning_terms[a]) m += t.weight * x[t.offset];
    out[a] =
        s.scores[std::clamp(static_cast<int64_t>(std::nearbyint(m)), int64_t{0}, deck_meaning)];
  }
}

}  // namespace

CardsKernel::CardsKernel(CardsKernelSpec spec, const NetworkShape& shape, int networks)
    : spec_(std::move(spec)), width_(shape.config.hidden_width), nets_(networks) {
  LCFR_CHECK(static_cast<int64_t>(spec_.encoder_index.size()) == spec_.colors * spec_.block);
  LCFR_CHECK(static_cast<int64_t>(spec_.meaning_terms.size()) == spec_.actions);
  const int64_t wp = Padded(width_);
  const int64_t widest = std::max({spec_.block, 2 * width_ + spec_.num_globals, wp});
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
  net.deck = pack(w, 1, weights[ctx + 3], biases[ctx + 3], 0);
  nets_[static_cast<size_t>(network)] = std::move(net);
}

void CardsKernel::Run(int network, const float* x, int64_t rows, float* out) {
  const Net& net = nets_[static_cast<size_t>(network)];
  LCFR_CHECK(!net.encoder.empty()) << "the cards kernel's network " << network << " has no weights";
  auto view = [](const Layer& l) { return LayerView{l.in, l.padded, l.w.data(), l.b.data()}; };
  LayerView encoder[kMaxEncoderLayers];
  for (size_t l = 0; l < net.encoder.size(); ++l) encoder[l] = view(net.encoder[l]);
  const NetView v{encoder,           static_cast<int64_t>(net.encoder.size()),
                  view(net.context), view(net.head_e),
                  view(net.head_g),  view(net.head_out),
                  view(net.deck),    net.activation};
  const RowScratch s{enc_a_.data(),  enc_b_.data(),    pooled_.data(),
                     g_.data(),      from_g_.data(),   hidden_.data(),
                     scores_.data(), nz_index_.data(), nz_value_.data()};
  for (int64_t r = 0; r < rows; ++r) {
    RowImpl(spec_, v, width_, s, x + r * spec_.features, out + r * spec_.actions);
  }
}

}  // namespace lcfr::inference
