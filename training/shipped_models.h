// The models lcfr ships in models/, one per rule set it plays: lost-cities.pt for the classic
// rules, lost-cities-6.pt for the six colours of the 2019 edition. lcfr agent, play and eval (and
// the Python Agent) serve the one whose card's rules are the game's, and name the rules when no
// shipped model plays them. Torch-free: a card is read, not its networks.
#ifndef LCFR_TRAINING_SHIPPED_MODELS_H_
#define LCFR_TRAINING_SHIPPED_MODELS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/rules.h"

namespace lcfr::training {

// The folder of the shipped models: $LCFR_MODEL_DIR where it is set (an installed package, a
// test's own models), else the source tree's models/.
std::string ShippedModelDir();

// The classic rules' shipped model (models/lost-cities.pt).
std::string DefaultModelPath();
// Its student (`lcfr distill`, models/lost-cities-student.pt): the rollouts' model when agent and
// play search over the shipped model (docs/search.md).
std::string DefaultStudentPath();

struct ShippedModel {
  std::string path;     // DIR/lost-cities.pt
  engine::Rules rules;  // the rules of its card (DIR/lost-cities.yaml)
};

// The shipped players' files that `dir` holds, in the order lost-cities.pt, lost-cities-6.pt,
// with their cards' rules. A file that is absent is left out; one whose card is missing or
// unreadable is an error naming the card.
absl::StatusOr<std::vector<ShippedModel>> ShippedModels(const std::string& dir = ShippedModelDir());

// The path of the shipped model that plays `rules`. NotFound when none does, naming the rules and
// what `dir` holds: "no shipped model plays the rules (colors=4 ...): models holds lost-cities.pt
// (colors=5 ...)".
absl::StatusOr<std::string> ShippedModelFor(const engine::Rules& rules,
                                            const std::string& dir = ShippedModelDir());

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_SHIPPED_MODELS_H_
