#include "inference/cards_net.h"

#include <ATen/ATen.h>

#include <string>

#include "base/stream_cat.h"
#include "engine/lost_cities.h"

namespace lcfr::inference {
namespace {

using engine::LostCities;

// The offsets of the Lost Cities encoding (engine/lost_cities.h) for the given dimensions.
struct Layout {
  int64_t colors, k, hand, types, block;
  int64_t planes_size;      // 7 * C * K: the card planes
  int64_t colour_features;  // their offset
  int64_t slots;            // the hand slot blocks' offset
  int64_t slot_width;       // C + kSlotFeatures
  int64_t globals;          // the global features' offset
  int64_t size;             // the whole encoding without the legal mask
  double max_value;         // the highest face value
  int64_t min_rank, wagers;
};

Layout LayoutOf(const CardsDims& d) {
  Layout l{};
  l.colors = d.colors;
  l.k = d.ranks + d.wagers;
  l.hand = d.hand_size;
  l.types = 1 + d.ranks;
  l.block = 2 * l.types + 1;
  l.planes_size = LostCities::kCardPlanes * l.colors * l.k;
  l.colour_features = l.planes_size;
  l.slots = l.colour_features + LostCities::kColorFeatures * l.colors;
  l.slot_width = l.colors + LostCities::kSlotFeatures;
  l.globals = l.slots + l.hand * l.slot_width;
  l.size = l.globals + LostCities::kGlobalFeatures;
  l.max_value = d.min_rank + d.ranks - 1;
  l.min_rank = d.min_rank;
  l.wagers = d.wagers;
  return l;
}

at::Tensor Activate(const at::Tensor& t, Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return at::relu(t);
    case Activation::kTanh:
      return at::tanh(t);
    case Activation::kSilu:
      break;
  }
  return at::silu(t);
}

// [B, N, in] @ [B, in, out] + [B, 1, out].
at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::baddbmm(b, x, w);
}

}  // namespace

std::string CardsShapeProblem(const NetworkShape& shape) {
  const CardsDims& d = shape.cards;
  if (shape.game != "lost-cities") {
    return lcfr::StreamCat("network.architecture cards is for Lost Cities, not ", shape.game,
                           " (use mlp)");
  }
  if (d.colors < 1 || d.ranks < 1 || d.hand_size < 1 || d.wagers < 0) {
    return "network.architecture cards: the network's Lost Cities dimensions are missing";
  }
  const Layout l = LayoutOf(d);
  const int64_t actions = 2 * l.hand + 1 + l.colors;
  if (shape.num_actions != actions || shape.input_size != l.size + actions) {
    return lcfr::StreamCat("network.architecture cards: an encoding of ", shape.input_size,
                           " floats and ", shape.num_actions, " actions is not Lost Cities' ",
                           l.size + actions, " and ", actions);
  }
  return "";
}

std::vector<std::pair<int64_t, int64_t>> CardsLayerSizes(const NetworkShape& shape) {
  const Layout l = LayoutOf(shape.cards);
  const int64_t w = shape.config.hidden_width;
  std::vector<std::pair<int64_t, int64_t>> sizes;
  int64_t in = LostCities::kCardPlanes * l.k + LostCities::kColorFeatures;
  for (int i = 0; i < std::max(1, shape.config.hidden_layers); ++i) {
    sizes.emplace_back(in, w);
    in = w;
  }
  sizes.emplace_back(2 * w + LostCities::kGlobalFeatures, w);  // context
  sizes.emplace_back(2 * w, w);                                // head, hidden
  sizes.emplace_back(w, l.block);                              // head, per colour
  sizes.emplace_back(w, 1);                                    // deck
  return sizes;
}

CardsConstants CardsConstants::Make(const NetworkShape& shape, at::Device device) {
  const Layout l = LayoutOf(shape.cards);
  const int64_t planes = LostCities::kCardPlanes;
  const int64_t per_colour = planes * l.k + LostCities::kColorFeatures;
  std::vector<int64_t> index;
  index.reserve(static_cast<size_t>(l.colors * per_colour));
  for (int64_t c = 0; c < l.colors; ++c) {
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t i = 0; i < l.k; ++i) index.push_back(p * l.colors * l.k + c * l.k + i);
    }
    for (int64_t f = 0; f < LostCities::kColorFeatures; ++f) {
      index.push_back(l.colour_features + c * LostCities::kColorFeatures + f);
    }
  }
  // Play slot j: colour(j) * block + type(j), type = 0 for a wager, else value - min_rank + 1.
  // With the slot's colour one-hot o, wager flag w and value v / max_value (0 for a wager):
  // sum_c o_c * c * block + v * max_value - (min_rank - 1) + w * (min_rank - 1). Discard: + T.
  // Over the slot blocks only (the rows of the encoding that decide it).
  const int64_t actions = shape.num_actions;
  at::Tensor weights = at::zeros({l.hand * l.slot_width, actions});
  at::Tensor bias = at::zeros({actions});
  auto* wp = weights.data_ptr<float>();
  auto* bp = bias.data_ptr<float>();
  for (int64_t j = 0; j < l.hand; ++j) {
    const int64_t slot = j * l.slot_width;
    for (int64_t kind = 0; kind < 2; ++kind) {
      const int64_t a = 2 * j + kind;
      for (int64_t c = 0; c < l.colors; ++c) {
        wp[(slot + c) * actions + a] = static_cast<float>(c * l.block);
      }
      wp[(slot + l.colors) * actions + a] = static_cast<float>(l.min_rank - 1);
      wp[(slot + l.colors + 1) * actions + a] = static_cast<float>(l.max_value);
      bp[a] = static_cast<float>(-(l.min_rank - 1) + kind * l.types);
    }
  }
  bp[2 * l.hand] = static_cast<float>(l.colors * l.block);  // the deck
  for (int64_t c = 0; c < l.colors; ++c) {
    bp[2 * l.hand + 1 + c] = static_cast<float>(c * l.block + 2 * l.types);
  }
  CardsConstants k;
  k.encoder_index = at::tensor(index, at::TensorOptions().dtype(at::kLong)).to(device);
  k.meaning_weights = weights.to(device);
  k.meaning_bias = bias.to(device);
  return k;
}

CardsKernelSpec MakeCardsKernelSpec(const NetworkShape& shape) {
  const Layout l = LayoutOf(shape.cards);
  const CardsConstants k = CardsConstants::Make(shape, at::kCPU);
  CardsKernelSpec spec;
  spec.features = shape.input_size;
  spec.actions = shape.num_actions;
  spec.colors = l.colors;
  spec.block = LostCities::kCardPlanes * l.k + LostCities::kColorFeatures;
  spec.globals = l.globals;
  spec.num_globals = LostCities::kGlobalFeatures;
  spec.per_colour = l.block;
  const int64_t* index = k.encoder_index.data_ptr<int64_t>();
  spec.encoder_index.assign(index, index + k.encoder_index.numel());
  const float* w = k.meaning_weights.data_ptr<float>();
  const float* b = k.meaning_bias.data_ptr<float>();
  const int64_t entries = k.meaning_weights.size(0), actions = shape.num_actions;
  spec.meaning_terms.resize(static_cast<size_t>(actions));
  for (int64_t a = 0; a < actions; ++a) {
    for (int64_t i = 0; i < entries; ++i) {
      const float weight = w[i * actions + a];
      if (weight != 0.0f) {
        spec.meaning_terms[static_cast<size_t>(a)].push_back(
            {static_cast<int32_t>(l.slots + i), weight});
      }
    }
    spec.meaning_bias.push_back(b[a]);
  }
  return spec;
}

at::Tensor CardsActionMeanings(const at::Tensor& x, const NetworkShape& shape,
                               const CardsConstants& constants) {
  const Layout l = LayoutOf(shape.cards);
  // Empty hand slots come out negative or past their colour: clamped, and illegal anyway.
  return at::matmul(x.narrow(-1, l.slots, l.hand * l.slot_width), constants.meaning_weights)
      .add_(constants.meaning_bias)
      .round_()
      .clamp_(0, static_cast<double>(l.colors * l.block))
      .to(at::kLong);
}

at::Tensor CardsForward(const at::Tensor& x, const std::vector<at::Tensor>& weights,
                        const std::vector<at::Tensor>& biases, const NetworkShape& shape,
                        Activation activation, const CardsConstants& constants) {
  const Layout l = LayoutOf(shape.cards);
  const int64_t blocks = x.size(0), rows = x.size(1);
  // Each colour's block, [B, R * C, 7K + 15], in one gather.
  at::Tensor h = x.index_select(2, constants.encoder_index).view({blocks, rows * l.colors, -1});
  const size_t encoder_layers = weights.size() - 4;
  for (size_t i = 0; i < encoder_layers; ++i) {
    h = Activate(Linear(h, weights[i], biases[i]), activation);
  }
  const int64_t w = h.size(2);
  const at::Tensor e = h.view({blocks, rows, l.colors, w});
  const at::Tensor globals = x.narrow(2, l.globals, LostCities::kGlobalFeatures);
  const at::Tensor pooled = at::cat({e.sum(2), std::get<0>(e.max(2)), globals}, 2);
  const size_t ctx = encoder_layers;
  const at::Tensor g = Activate(Linear(pooled, weights[ctx], biases[ctx]), activation);
  // The head's first layer on [e_c, g]: e_c's part per colour plus g's part broadcast.
  const at::Tensor& head = weights[ctx + 1];                                   // [B, 2W, W]
  const at::Tensor from_e = Linear(h, head.narrow(1, 0, w), biases[ctx + 1]);  // [B, R*C, W]
  const at::Tensor from_g = at::bmm(g, head.narrow(1, w, w));                  // [B, R, W]
  const at::Tensor hidden = Activate(
      (from_e.view({blocks, rows, l.colors, w}) + from_g.unsqueeze(2)).view({blocks, -1, w}),
      activation);
  const at::Tensor scores =
      Linear(hidden, weights[ctx + 2], biases[ctx + 2]).view({blocks, rows, l.colors * l.block});
  const at::Tensor deck = Linear(g, weights[ctx + 3], biases[ctx + 3]);  // [B, R, 1]
  const at::Tensor meanings = at::cat({scores, deck}, 2);                // [B, R, M]
  return at::gather(meanings, 2, CardsActionMeanings(x, shape, constants));
}

}  // namespace lcfr::inference
