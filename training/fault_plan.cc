#include "training/fault_plan.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/stream_cat.h"

namespace lcfr::training {
namespace {

constexpr EnumName kActionNames[] = {{"exit", 0}, {"hang", 1}, {"kill-launcher", 2}};

bool ParseInt(std::string_view text, int& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 0;
}

}  // namespace

absl::StatusOr<FaultPlan> FaultPlan::Parse(std::string_view spec) {
  std::vector<std::string_view> parts;
  for (size_t begin = 0;;) {
    const size_t colon = spec.find(':', begin);
    parts.push_back(spec.substr(begin, colon == std::string_view::npos ? colon : colon - begin));
    if (colon == std::string_view::npos) break;
    begin = colon + 1;
  }
  auto invalid = [spec](auto&&... why) {
    return absl::InvalidArgumentError(lcfr::StreamCat("LCFR_TEST_FAULT='", spec, "': ", why...,
                                                      " (expected ACTION:RANK:ITERATION[:STEP])"));
  };
  if (parts.size() != 3 && parts.size() != 4) return invalid("wrong number of fields");
  FaultPlan plan;
  const absl::StatusOr<Action> action = ParseEnum<Action>(kActionNames, parts[0], "action");
  if (!action.ok()) return invalid(action.status().message());
  plan.action = *action;
  if (!ParseInt(parts[1], plan.rank)) return invalid("rank '", parts[1], "' is not a number");
  if (!ParseInt(parts[2], plan.iteration) || plan.iteration < 1) {
    return invalid("iteration '", parts[2], "' is not a positive number");
  }
  if (parts.size() == 4) {
    const absl::StatusOr<FaultStep> step = ParseEnum<FaultStep>(kFaultStepNames, parts[3], "step");
    if (!step.ok()) return invalid(step.status().message());
    plan.step = *step;
  }
  return plan;
}

void Reach(const std::optional<FaultPlan>& plan, FaultStep step, int rank, int iteration) {
  if (!plan || plan->step != step || plan->rank != rank || plan->iteration != iteration) return;
  const bool exit = plan->action == FaultPlan::Action::kExit;
  std::fprintf(stderr, "rank %d: LCFR_TEST_FAULT: %s at iteration %d, step %s\n", rank,
               std::string(NameOf(kActionNames, static_cast<int>(plan->action))).c_str(), iteration,
               std::string(NameOf(kFaultStepNames, static_cast<int>(step))).c_str());
  std::fflush(stderr);
  if (exit) std::_Exit(3);
  // kill -9 of the --nproc launcher at this step: every rank dies with it (PR_SET_PDEATHSIG),
  // this one included, while it waits here.
  if (plan->action == FaultPlan::Action::kKillLauncher) ::kill(::getppid(), SIGKILL);
  for (;;) ::pause();
}

}  // namespace lcfr::training
