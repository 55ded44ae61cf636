// lcfr info: what this build is and what it runs on.
#include <iostream>

#include "apps/commands.h"
#include "engine/lost_cities.h"
#include "fmt/core.h"
#include "inference/torch_info.h"
#include "nlohmann/json.hpp"

namespace lcfr::apps {
namespace {

struct InfoOptions {
  bool json = false;
  bool config = false;
};

int RunInfo(const InfoOptions& opts) {
  const inference::TorchInfo torch = inference::GetTorchInfo();
  const engine::LostCities game;
  if (opts.json) {
    nlohmann::ordered_json j;
    j["lcfr_version"] = LCFR_VERSION;
    j["build_type"] = LCFR_BUILD_TYPE;
    j["torch_version"] = torch.version;
    j["torch_cuda_built"] = torch.cuda_built;
    j["cuda_devices"] = torch.cuda_devices;
    j["intra_op_threads"] = torch.intra_op_threads;
    j["classic_encoding_size"] = game.EncodingSize();
    j["classic_num_actions"] = game.num_actions();
    std::cout << j.dump() << std::endl;
    return kExitOk;
  }
  fmt::print("lcfr {} ({} build)\n", LCFR_VERSION, LCFR_BUILD_TYPE);
  fmt::print("libtorch {}: built {} CUDA, {} CUDA device(s) visible, {} intra-op thread(s)\n",
             torch.version, torch.cuda_built ? "with" : "without", torch.cuda_devices,
             torch.intra_op_threads);
  fmt::print("classic rules: encoding {} floats, {} actions\n", game.EncodingSize(),
             game.num_actions());
  if (opts.config) fmt::print("\n{}\n", torch.config);
  return kExitOk;
}

}  // namespace

CommandFn AddInfoCommand(CLI::App& app) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Print the build: lcfr and libtorch versions, CUDA support, visible devices.");
  cmd->add_flag("--json", opts->json, "one JSON object");
  cmd->add_flag("--torch-config", opts->config, "also print libtorch's build configuration");
  return [opts] { return RunInfo(*opts); };
}

}  // namespace lcfr::apps
