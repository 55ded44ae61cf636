// The cards network (inference/cards_net.h): its reading of the slot actions equals the game's
// ActionMeaning, equal wagers share one output, swapping two colours everywhere in a state swaps
// the outputs (every network of a set, module and fused evaluator), the fused evaluator equals the
// module, gradients reach every layer, and networks.pt records the architecture.
#include "inference/cards_net.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/card.h"
#include "engine/lost_cities.h"
#include "inference/backends.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "inference/snapshot.h"

namespace lcfr::inference {
namespace {

using engine::Card;
using engine::LostCities;
using engine::State;

NetworkShape CardsShape(const LostCities& game, int width = 24, int layers = 2) {
  NetworkShape shape;
  shape.game = "lost-cities";
  shape.encoding_version = game.EncodingVersion();
  shape.input_size = game.EncodingSize();
  shape.num_actions = game.num_actions();
  shape.config.architecture = Architecture::kCards;
  shape.config.hidden_width = width;
  shape.config.hidden_layers = layers;
  const engine::Rules& r = game.rules();
  shape.cards = {r.colors, r.ranks, r.wagers, r.min_rank, r.hand_size};
  return shape;
}

// Random playout states (every 5th decision of `games` games).
std::vector<State> States(const LostCities& game, int games, uint64_t seed) {
  Rng rng(seed);
  std::vector<State> states;
  for (int g = 0; g < games; ++g) {
    State s = game.Deal(rng);
    for (int step = 0; !game.IsTerminal(s); ++step) {
      if (step % 5 == 0) states.push_back(s);
      const std::vector<int> actions = game.LegalActions(s);
      game.ApplyUnchecked(s, actions[rng.Uniform(static_cast<uint32_t>(actions.size()))]);
    }
  }
  return states;
}

at::Tensor Encodings(const LostCities& game, const std::vector<State>& states) {
  at::Tensor x = at::zeros({static_cast<int64_t>(states.size()), game.EncodingSize()});
  for (size_t i = 0; i < states.size(); ++i) {
    game.Encode(states[i], std::span<float>(x[static_cast<int64_t>(i)].data_ptr<float>(),
                                            static_cast<size_t>(game.EncodingSize())));
  }
  return x;
}

// `s` with colours a and b exchanged everywhere (hands re-sorted, expeditions, knowledge,
// piles, the deck, this turn's discard).
State SwapColours(const LostCities& game, const State& s, int a, int b) {
  auto colour = [&](int c) { return c == a ? b : c == b ? a : c; };
  auto card = [&](Card x) {
    if (x == engine::kNoCard) return x;
    return static_cast<Card>(colour(engine::CardColor(x)) * engine::kMaxCardsPerColor +
                             engine::CardIndex(x));
  };
  State t = s;
  for (int p = 0; p < 2; ++p) {
    for (int j = 0; j < s.hand_count[p]; ++j) t.hand[p][j] = card(s.hand[p][j]);
    std::sort(t.hand[p].begin(), t.hand[p].begin() + s.hand_count[p]);
    for (int c = 0; c < game.rules().colors; ++c) {
      t.expedition[p][colour(c)] = s.expedition[p][c];
      t.known[p][colour(c)] = s.known[p][c];
      t.expedition_sum[p][colour(c)] = s.expedition_sum[p][c];
    }
  }
  for (int c = 0; c < game.rules().colors; ++c) {
    t.pile[colour(c)] = s.pile[c];
    t.pile_size[colour(c)] = s.pile_size[c];
  }
  for (int j = 0; j < engine::kMaxDeckSize; ++j) t.deck[j] = card(s.deck[j]);
  if (s.last_discard >= 0) t.last_discard = static_cast<int8_t>(colour(s.last_discard));
  return t;
}

int SwapMeaning(const LostCities& game, int meaning, int a, int b) {
  const int block = 2 * (1 + game.rules().ranks) + 1;
  if (meaning == game.rules().colors * block) return meaning;  // the deck
  const int c = meaning / block;
  const int swapped = c == a ? b : c == b ? a : c;
  return swapped * block + meaning % block;
}

CATCH_TEST_CASE("Cards network: it reads every slot action as the game's ActionMeaning",
                "[cards]") {
  engine::Rules six;
  six.colors = 6;
  six.wagers = 2;
  six.ranks = 8;
  six.min_rank = 3;
  for (const engine::Rules& rules : {engine::Rules{}, six}) {
    const LostCities game(rules);
    const NetworkShape shape = CardsShape(game);
    CATCH_REQUIRE(CardsShapeProblem(shape).empty());
    const std::vector<State> states = States(game, 30, 3);
    const at::Tensor meanings =
        CardsActionMeanings(Encodings(game, states), shape, CardsConstants::Make(shape, at::kCPU));
    int checked = 0;
    for (size_t i = 0; i < states.size(); ++i) {
      const engine::View view = game.MoverView(states[i]);
      for (int a : game.LegalActions(states[i])) {
        const int expected = game.ActionMeaning(view, a);
        CATCH_REQUIRE(expected >= 0);
        CATCH_REQUIRE(expected < game.NumActionMeanings());
        CATCH_REQUIRE(meanings[static_cast<int64_t>(i)][a].item<int64_t>() == expected);
        ++checked;
      }
    }
    CATCH_CHECK(checked > 2000);
  }
}

CATCH_TEST_CASE("Cards network: equal wagers get one output, and outputs permute with the colours",
                "[cards]") {
  const LostCities game;
  const NetworkShape shape = CardsShape(game);
  NetworkSet nets = NetworkSet::Create(shape, 7);
  const std::vector<State> states = States(game, 20, 11);
  const at::Tensor x = Encodings(game, states);
  c10::InferenceMode guard;
  int equal_wagers = 0, swapped_checks = 0;
  for (int n = 0; n < kNumNetworks; ++n) {
    const at::Tensor y = nets.nets[n]->forward(x);
    for (size_t i = 0; i < states.size(); ++i) {
      const State& s = states[i];
      const engine::View view = game.MoverView(s);
      const std::vector<int> legal = game.LegalActions(s);
      // Two slots holding a wager of one colour: the same card type, one output.
      for (int a : legal) {
        for (int b : legal) {
          if (a < b && game.ActionMeaning(view, a) == game.ActionMeaning(view, b)) {
            CATCH_REQUIRE(y[static_cast<int64_t>(i)][a].item<float>() ==
                          y[static_cast<int64_t>(i)][b].item<float>());
            ++equal_wagers;
          }
        }
      }
      // Colours 0 and 3 exchanged everywhere: the action of each meaning keeps its output.
      const State t = SwapColours(game, s, 0, 3);
      CATCH_REQUIRE(game.CheckInvariants(t).ok());
      const at::Tensor xt = Encodings(game, {t});
      const at::Tensor yt = nets.nets[n]->forward(xt);
      const engine::View tview = game.MoverView(t);
      const std::vector<int> tlegal = game.LegalActions(t);
      CATCH_REQUIRE(tlegal.size() == legal.size());
      for (int a : legal) {
        const int want = SwapMeaning(game, game.ActionMeaning(view, a), 0, 3);
        int found = -1;
        for (int b : tlegal) {
          if (game.ActionMeaning(tview, b) == want) found = b;
        }
        CATCH_REQUIRE(found >= 0);  // the masks line up: the swapped state has the swapped action
        CATCH_REQUIRE(std::abs(y[static_cast<int64_t>(i)][a].item<float>() -
                               yt[0][found].item<float>()) < 1e-4f);
        ++swapped_checks;
      }
    }
  }
  CATCH_CHECK(equal_wagers > 0);
  CATCH_CHECK(swapped_checks > 4000);
}

// The CPU evaluator serves the cards network with CardsKernel (inference/cards_kernel.h), the
// module with libtorch's CardsForward: every shape below, widths that are and are not a multiple
// of the kernel's 8 lanes, 1-3 encoder layers, each activation, all networks in one batch.
CATCH_TEST_CASE("Cards network: the fused evaluator gives the module's outputs", "[cards]") {
  const LostCities game;
  struct Case {
    int width, layers;
    Activation activation;
  };
  const Case c = GENERATE(Case{32, 1, Activation::kRelu}, Case{20, 2, Activation::kRelu},
                          Case{24, 3, Activation::kTanh}, Case{44, 1, Activation::kSilu},
                          Case{128, 2, Activation::kRelu});
  CATCH_CAPTURE(c.width, c.layers, static_cast<int>(c.activation));
  NetworkShape shape = CardsShape(game, c.width, c.layers);
  shape.config.activation = c.activation;
  NetworkSet nets = NetworkSet::Create(shape, 5);
  auto store = std::make_shared<ModelStore>(nets);
  InferenceConfig config;
  auto evaluator = MakeBatchedEvaluator(store, config);
  CATCH_REQUIRE(evaluator.ok());
  const std::vector<State> states = States(game, 6, 2);
  const at::Tensor x = Encodings(game, states);
  std::vector<std::vector<float>> features(states.size()), outputs(states.size());
  std::vector<traversal::PolicyRequest> requests;
  for (size_t i = 0; i < states.size(); ++i) {
    features[i].assign(x[static_cast<int64_t>(i)].data_ptr<float>(),
                       x[static_cast<int64_t>(i)].data_ptr<float>() + game.EncodingSize());
    outputs[i].assign(game.num_actions(), -1.0f);
    requests.push_back({static_cast<int>(i % kNumNetworks), traversal::Head::kRaw, features[i],
                        game.LegalMask(states[i]), outputs[i]});
  }
  (*evaluator)->Evaluate(requests);
  c10::InferenceMode guard;
  for (size_t i = 0; i < states.size(); ++i) {
    const at::Tensor y = nets.nets[i % kNumNetworks]->forward(x.narrow(0, i, 1))[0];
    for (int a = 0; a < game.num_actions(); ++a) {
      const float want = (game.LegalMask(states[i]) >> a & 1) ? y[a].item<float>() : 0.0f;
      CATCH_REQUIRE(std::abs(outputs[i][a] - want) < 1e-4f * std::max(1.0f, std::abs(want)));
    }
  }
  // A row's outputs do not depend on its batch: each request alone gives the same bits.
  for (size_t i = 0; i < states.size(); i += 7) {
    std::vector<float> alone(game.num_actions(), -1.0f);
    traversal::PolicyRequest r = requests[i];
    r.output = alone;
    (*evaluator)->Evaluate(std::span<const traversal::PolicyRequest>(&r, 1));
    CATCH_REQUIRE(alone == outputs[i]);
  }
}

// Every build of the kernel this CPU runs (AVX-512, AVX2, baseline x86-64 here) computes the
// module's outputs, for every action (legal or not) and every network; given the legal masks
// (RunLegal, what the CPU backend calls), the legal actions' outputs and 0 elsewhere.
CATCH_TEST_CASE("Cards network: every instruction set's kernel gives the module's outputs",
                "[cards]") {
  const LostCities game;
  const int width = GENERATE(32, 20, 128);
  CATCH_CAPTURE(width);
  const NetworkShape shape = CardsShape(game, width, width == 20 ? 2 : 1);
  NetworkSet nets = NetworkSet::Create(shape, 7);
  const ModelSnapshot snapshot = ModelSnapshot::FromNetworks(nets, 1);
  const std::vector<State> states = States(game, 4, 3);
  const at::Tensor x = Encodings(game, states);
  const int64_t rows = x.size(0);
  at::Tensor mask = at::zeros({rows, game.num_actions()});
  int draws = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const uint32_t legal = game.LegalMask(states[static_cast<size_t>(r)]);
    for (int a = 0; a < game.num_actions(); ++a) mask[r][a] = static_cast<float>(legal >> a & 1);
    draws += states[static_cast<size_t>(r)].phase == engine::Phase::kDraw;
  }
  CATCH_CHECK(draws > 10);
  c10::InferenceMode guard;
  const std::vector<CardsKernelIsa> isas = SupportedCardsKernelIsas();
  CATCH_CHECK(isas.back() == CardsKernelIsa::kBaseline);
  for (const CardsKernelIsa isa : isas) {
    CATCH_CAPTURE(CardsKernelIsaName(isa));
    CardsKernelForward forward(shape, static_cast<int>(rows), isa);
    forward.Refresh(snapshot);
    for (int n = 0; n < kNumNetworks; ++n) {
      const at::Tensor got = forward.Run(x, {n}, rows)[0];
      const at::Tensor want = nets.nets[n]->forward(x);
      CATCH_REQUIRE(got.sizes() == want.sizes());
      const float scale = std::max(1.0f, want.abs().max().item<float>());
      CATCH_CHECK((got - want).abs().max().item<float>() < 1e-4f * scale);
      const at::Tensor legal = forward.RunLegal(x, mask, {n}, rows)[0];
      CATCH_CHECK((legal - want * mask).abs().max().item<float>() < 1e-4f * scale);
      CATCH_CHECK(legal.masked_select(mask == 0).abs().max().item<float>() == 0.0f);
    }
  }
}

CATCH_TEST_CASE("Cards network: gradients reach every layer; networks.pt records the architecture",
                "[cards]") {
  const LostCities game;
  const NetworkShape shape = CardsShape(game, 16, 2);
  NetworkSet nets = NetworkSet::Create(shape, 3);
  const at::Tensor x = Encodings(game, States(game, 3, 4));
  nets.nets[0]->forward(x).pow(2).sum().backward();
  for (const auto& p : nets.nets[0]->named_parameters()) {
    CATCH_INFO(p.key());
    CATCH_CHECK(p.value().grad().abs().sum().item<float>() > 0);
  }
  const std::string path = "/tmp/lcfr_cards_test_" + std::to_string(::getpid()) + ".pt";
  CATCH_REQUIRE(SaveNetworks(nets, path).ok());
  auto loaded = LoadNetworks(path, &shape);
  CATCH_REQUIRE(loaded.ok());
  CATCH_CHECK(loaded->shape.config.architecture == Architecture::kCards);
  {
    c10::InferenceMode guard;
    CATCH_CHECK(at::allclose(loaded->nets[1]->forward(x), nets.nets[1]->forward(x)));
  }
  NetworkShape mlp = shape;
  mlp.config.architecture = Architecture::kMlp;
  mlp.cards = {};
  auto refused = LoadNetworks(path, &mlp);
  CATCH_REQUIRE(!refused.ok());
  CATCH_CHECK_THAT(std::string(refused.status().message()), Catch::Contains("-> cards 16x2") &&
                                                                Catch::Contains("expected") &&
                                                                Catch::Contains("-> mlp 16x2"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace lcfr::inference
