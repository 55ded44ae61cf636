// The tags of a decision's random streams (DeriveSeed({seed, tag, ...}), base/rng.h): every draw
// of a decision comes from its seed and one of these, so that a decision's results depend on the
// seed alone, not on the threads or the order the rounds ran in. Torch-free.
#ifndef LCFR_SEARCH_STREAMS_H_
#define LCFR_SEARCH_STREAMS_H_

#include <cstdint>

namespace lcfr::search {

inline constexpr uint64_t kBlueprintStream = 0x626c75657072696eULL;  // "blueprin"
inline constexpr uint64_t kWorldStream = 0x776f726c64ULL;            // "world"
inline constexpr uint64_t kRolloutStream = 0x726f6c6c6f7574ULL;      // "rollout"
inline constexpr uint64_t kBeliefStream = 0x62656c696566ULL;         // "belief"
inline constexpr uint64_t kRacingShuffle = 0x72616365ULL;            // "race"
inline constexpr uint64_t kOpponentStream = 0x6f70706f6e656e74ULL;   // "opponent"

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_STREAMS_H_
