// The cards network (network.architecture: cards), Lost Cities only: weights shared across
// colours, outputs bound to what an action is. Internal to inference/ (includes libtorch).
//
// It reads the Lost Cities encoding (engine/lost_cities.h) by its layout:
// - per colour c, its block: the 7 card planes' K entries of c and c's 15 colour features
//   (7K + 15 floats); one encoder phi (hidden_layers linear layers of hidden_width, shared by
//   every colour) maps each block to e_c;
// - a context g = act(Linear([sum_c e_c, max_c e_c, the 5 global features])): pooled, so it is
//   the same whatever the order of the colours;
// - per colour, a head act(Linear([e_c, g])) then Linear(-> 2T + 1), shared by every colour: the
//   scores of playing and discarding each card type of c (T = 1 + ranks; type 0 = a wager, so
//   equal wagers have one output) and of drawing from c's pile; the deck from Linear(g).
// These meaning scores (engine::LostCities::ActionMeaning's numbering) are then gathered onto
// the slot actions: play / discard slot j take the score of the card in slot j, read from the
// slot's colour one-hot, wager flag and value in the encoding. So the output keeps the engine's
// action ids (and the traversals stay as they are), and permuting the colours of a state
// permutes the outputs with them (tests/inference/cards_net_test.cc).
//
// One function serves training (a module's parameters, one block) and the fused evaluator (the
// stacked weights of the networks asked for, one block each): the same arithmetic.
#ifndef LCFR_INFERENCE_CARDS_NET_H_
#define LCFR_INFERENCE_CARDS_NET_H_

#include <ATen/Tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "inference/cards_kernel.h"
#include "inference/network_config.h"

namespace lcfr::inference {

// The cards network's linear layers, in order, as (in, out): the encoder's hidden_layers, the
// context, the head's hidden layer and output, the deck.
std::vector<std::pair<int64_t, int64_t>> CardsLayerSizes(const NetworkShape& shape);

// The constant tensors of a shape's cards forward, on one device: which encoding entries make
// each colour's block (one index_select), and the linear map from the encoding to each slot
// action's meaning index (the slot's colour one-hot, wager flag and value determine it linearly;
// one matrix product, rounded).
struct CardsConstants {
  at::Tensor encoder_index;    // int64 [colors * (7K + 15)]
  at::Tensor meaning_weights;  // float [hand slots' floats, num_actions]
  at::Tensor meaning_bias;     // float [num_actions]
  static CardsConstants Make(const NetworkShape& shape, at::Device device);
};

// The libtorch-free kernel's reading of the encoding (inference/cards_kernel.h), from the same
// Layout and CardsConstants as CardsForward.
CardsKernelSpec MakeCardsKernelSpec(const NetworkShape& shape);

// x: [blocks, rows, input_size]; weights[l]: [blocks, in, out] (x @ W), biases[l]:
// [blocks, 1, out]. Returns [blocks, rows, num_actions].
at::Tensor CardsForward(const at::Tensor& x, const std::vector<at::Tensor>& weights,
                        const std::vector<at::Tensor>& biases, const NetworkShape& shape,
                        Activation activation, const CardsConstants& constants);

// The meaning index (engine::LostCities::ActionMeaning) of every slot action of every row of x
// ([..., input_size] -> [..., num_actions], int64), as the network reads it from the encoding.
at::Tensor CardsActionMeanings(const at::Tensor& x, const NetworkShape& shape,
                               const CardsConstants& constants);

// Whether `shape` can carry the cards architecture (a Lost Cities encoding of its dimensions);
// an error message naming the problem otherwise ("" when it can).
std::string CardsShapeProblem(const NetworkShape& shape);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_CARDS_NET_H_
