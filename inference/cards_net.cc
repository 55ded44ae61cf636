#include "inference/cards_net.h"

#include <ATen/ATen.h>

#include <string>

#include "engine/lost_cities.h"
#include "engine/stream_cat.h"

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

at::Tensor CardsActionMeanings(const at::Tensor& x, const NetworkShape& shape) {
  const Layout l = LayoutOf(shape.cards);
  at::Tensor slots = x.narrow(-1, l.slots, l.hand * l.slot_width);
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = l.hand;
  sizes.push_back(l.slot_width);
  slots = slots.reshape(sizes);  // [..., H, slot_width]
  const at::Tensor colour = slots.narrow(-1, 0, l.colors).argmax(-1);
  const at::Tensor wager = slots.select(-1, l.colors) > 0.5;
  const at::Tensor rank =
      (slots.select(-1, l.colors + 1) * l.max_value).round().to(at::kLong) - l.min_rank;
  const at::Tensor type = at::where(wager, at::zeros_like(rank), rank + 1).clamp(0, l.types - 1);
  const at::Tensor play = colour * l.block + type;
  // [..., H, 2]: play and discard of each slot, interleaved as the engine numbers them.
  const at::Tensor cards = at::stack({play, play + l.types}, -1).flatten(-2);
  std::vector<int64_t> fixed(static_cast<size_t>(1 + l.colors));
  fixed[0] = l.colors * l.block;  // the deck
  for (int64_t c = 0; c < l.colors; ++c) fixed[1 + c] = c * l.block + 2 * l.types;
  std::vector<int64_t> expand = cards.sizes().vec();
  expand.back() = 1 + l.colors;
  const at::Tensor draws =
      at::tensor(fixed, at::TensorOptions().dtype(at::kLong)).to(x.device()).expand(expand);
  return at::cat({cards, draws}, -1);
}

at::Tensor CardsForward(const at::Tensor& x, const std::vector<at::Tensor>& weights,
                        const std::vector<at::Tensor>& biases, const NetworkShape& shape,
                        Activation activation) {
  const Layout l = LayoutOf(shape.cards);
  const int64_t blocks = x.size(0), rows = x.size(1);
  const int64_t planes = LostCities::kCardPlanes;
  // Each colour's block: [B, R, C, 7K + 15].
  const at::Tensor card_planes = x.narrow(2, 0, l.planes_size)
                                     .reshape({blocks, rows, planes, l.colors, l.k})
                                     .permute({0, 1, 3, 2, 4})
                                     .reshape({blocks, rows, l.colors, planes * l.k});
  const at::Tensor colour_features =
      x.narrow(2, l.colour_features, LostCities::kColorFeatures * l.colors)
          .reshape({blocks, rows, l.colors, LostCities::kColorFeatures});
  at::Tensor h = at::cat({card_planes, colour_features}, 3).reshape({blocks, rows * l.colors, -1});
  const size_t encoder_layers = weights.size() - 4;
  for (size_t i = 0; i < encoder_layers; ++i) {
    h = Activate(Linear(h, weights[i], biases[i]), activation);
  }
  const int64_t w = h.size(2);
  const at::Tensor e = h.reshape({blocks, rows, l.colors, w});
  const at::Tensor globals = x.narrow(2, l.globals, LostCities::kGlobalFeatures);
  const at::Tensor pooled = at::cat({e.sum(2), std::get<0>(e.max(2)), globals}, 2);
  const size_t ctx = encoder_layers;
  const at::Tensor g = Activate(Linear(pooled, weights[ctx], biases[ctx]), activation);
  const at::Tensor per_colour = at::cat({e, g.unsqueeze(2).expand({blocks, rows, l.colors, w})}, 3)
                                    .reshape({blocks, rows * l.colors, 2 * w});
  const at::Tensor hidden =
      Activate(Linear(per_colour, weights[ctx + 1], biases[ctx + 1]), activation);
  const at::Tensor scores =
      Linear(hidden, weights[ctx + 2], biases[ctx + 2]).reshape({blocks, rows, l.colors * l.block});
  const at::Tensor deck = Linear(g, weights[ctx + 3], biases[ctx + 3]);  // [B, R, 1]
  const at::Tensor meanings = at::cat({scores, deck}, 2);                // [B, R, M]
  return at::gather(meanings, 2, CardsActionMeanings(x, shape));
}

}  // namespace lcfr::inference
