#include "inference/networks.h"

#include <sys/stat.h>
#include <torch/nn/functional/activation.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>
#include <torch/utils.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/atomic_file.h"
#include "base/error_text.h"
#include "base/stream_cat.h"
#include "inference/cards_net.h"

namespace lcfr::inference {
namespace {

// Format 2 holds four networks; format 1 (before the value network) three, and loads with a
// fresh value network. Format 3 adds the encoding version, format 4 the architecture (and the
// cards network's dimensions); earlier files hold MLPs.
constexpr int64_t kFormatVersion = 4;

}  // namespace

PolicyNetImpl::PolicyNetImpl(const NetworkShape& shape)
    : shape_(shape), activation_(shape.config.activation) {
  reset();
}

void PolicyNetImpl::reset() {
  layers_.clear();
  if (shape_.config.architecture == Architecture::kCards) {
    int l = 0;
    for (const auto& [in, out] : CardsLayerSizes(shape_)) {
      layers_.push_back(register_module(lcfr::StreamCat("cards", l++), torch::nn::Linear(in, out)));
    }
    return;
  }
  int in = shape_.input_size;
  for (int l = 0; l < shape_.config.hidden_layers; ++l) {
    layers_.push_back(register_module(lcfr::StreamCat("fc", l),
                                      torch::nn::Linear(in, shape_.config.hidden_width)));
    in = shape_.config.hidden_width;
  }
  layers_.push_back(register_module("out", torch::nn::Linear(in, shape_.num_actions)));
}

torch::Tensor PolicyNetImpl::forward(torch::Tensor x) {
  if (shape_.config.architecture == Architecture::kCards) {
    std::vector<at::Tensor> weights, biases;
    for (const torch::nn::Linear& layer : layers_) {
      weights.push_back(layer->weight.t().unsqueeze(0));
      biases.push_back(layer->bias.view({1, 1, -1}));
    }
    if (!cards_constants_ || cards_constants_->meaning_bias.device() != x.device()) {
      cards_constants_ = std::make_shared<CardsConstants>(CardsConstants::Make(shape_, x.device()));
    }
    return CardsForward(x.unsqueeze(0), weights, biases, shape_, activation_, *cards_constants_)
        .squeeze(0);
  }
  for (size_t l = 0; l < layers_.size(); ++l) {
    x = layers_[l]->forward(x);
    if (l + 1 == layers_.size()) break;
    switch (activation_) {
      case Activation::kRelu:
        x = torch::relu(x);
        break;
      case Activation::kTanh:
        x = torch::tanh(x);
        break;
      case Activation::kSilu:
        x = torch::silu(x);
        break;
    }
  }
  return x;
}

NetworkSet NetworkSet::Create(const NetworkShape& shape, uint64_t seed) {
  torch::manual_seed(seed);
  NetworkSet set;
  set.shape = shape;
  for (auto& net : set.nets) net = PolicyNet(shape);
  return set;
}

NetworkSet NetworkSet::Clone() const {
  NetworkSet copy;
  copy.shape = shape;
  for (int i = 0; i < kNumNetworks; ++i) {
    copy.nets[i] = PolicyNet(std::dynamic_pointer_cast<PolicyNetImpl>(nets[i]->clone()));
  }
  return copy;
}

absl::StatusOr<std::string> SerializeNetworks(const NetworkSet& networks) {
  std::string bytes;
  try {
    torch::serialize::OutputArchive archive;
    archive.write("format", c10::IValue(kFormatVersion));
    archive.write("game", c10::IValue(networks.shape.game));
    archive.write("encoding_version",
                  c10::IValue(static_cast<int64_t>(networks.shape.encoding_version)));
    archive.write("input_size", c10::IValue(static_cast<int64_t>(networks.shape.input_size)));
    archive.write("num_actions", c10::IValue(static_cast<int64_t>(networks.shape.num_actions)));
    archive.write("hidden_width",
                  c10::IValue(static_cast<int64_t>(networks.shape.config.hidden_width)));
    archive.write("hidden_layers",
                  c10::IValue(static_cast<int64_t>(networks.shape.config.hidden_layers)));
    archive.write("activation",
                  c10::IValue(std::string(ActivationName(networks.shape.config.activation))));
    archive.write("architecture",
                  c10::IValue(std::string(ArchitectureName(networks.shape.config.architecture))));
    const CardsDims& cards = networks.shape.cards;
    archive.write("cards_dims",
                  c10::IValue(std::vector<int64_t>{cards.colors, cards.ranks, cards.wagers,
                                                   cards.min_rank, cards.hand_size}));
    for (int i = 0; i < kNumNetworks; ++i) {
      torch::serialize::OutputArchive net;
      networks.nets[i]->save(net);
      archive.write(lcfr::StreamCat("network", i), net);
    }
    archive.save_to([&bytes](const void* data, size_t size) {
      bytes.append(static_cast<const char*>(data), size);
      return size;
    });
  } catch (const std::exception& e) {
    return absl::InternalError(lcfr::StreamCat("cannot serialize networks: ", ErrorText(e)));
  }
  return bytes;
}

absl::Status SaveNetworks(const NetworkSet& networks, const std::string& path) {
  absl::StatusOr<std::string> bytes = SerializeNetworks(networks);
  if (!bytes.ok()) {
    return absl::InternalError(
        lcfr::StreamCat("cannot write networks to ", path, ": ", bytes.status().message()));
  }
  return WriteFileAtomically(path, *bytes);
}

absl::StatusOr<NetworkSet> LoadNetworks(const std::string& path, const NetworkShape* expected) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(lcfr::StreamCat(path, ": no such file"));
  }
  NetworkShape shape;
  int stored = kNumNetworks;  // networks in the file
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
    c10::IValue value;
    auto read_int = [&](const char* key) -> int64_t {
      if (!archive.try_read(key, value) || !value.isInt()) {
        throw std::runtime_error(lcfr::StreamCat("missing or invalid '", key, "'"));
      }
      return value.toInt();
    };
    auto read_string = [&](const char* key) -> std::string {
      if (!archive.try_read(key, value) || !value.isString()) {
        throw std::runtime_error(lcfr::StreamCat("missing or invalid '", key, "'"));
      }
      return value.toStringRef();
    };
    const int64_t format = read_int("format");
    if (format < 1 || format > kFormatVersion) {
      throw std::runtime_error(
          lcfr::StreamCat("format version ", format, ", expected 1 to ", kFormatVersion));
    }
    stored = format == 1 ? 3 : kNumNetworks;
    shape.game = read_string("game");
    // Formats 1 and 2 predate the encoding version: their layouts are version 1 (a format-1 file
    // of an older, smaller layout is refused by its input size).
    shape.encoding_version = format >= 3 ? static_cast<int>(read_int("encoding_version")) : 1;
    shape.input_size = static_cast<int>(read_int("input_size"));
    shape.num_actions = static_cast<int>(read_int("num_actions"));
    shape.config.hidden_width = static_cast<int>(read_int("hidden_width"));
    shape.config.hidden_layers = static_cast<int>(read_int("hidden_layers"));
    const auto activation = ParseActivation(read_string("activation"));
    if (!activation.ok()) throw std::runtime_error(std::string(activation.status().message()));
    shape.config.activation = *activation;
    // Files before the cards architecture hold MLPs.
    if (archive.try_read("architecture", value)) {
      if (!value.isString()) throw std::runtime_error("invalid 'architecture'");
      const std::string name = value.toStringRef();
      if (name == "mlp") {
        shape.config.architecture = Architecture::kMlp;
      } else if (name == "cards") {
        shape.config.architecture = Architecture::kCards;
      } else {
        throw std::runtime_error(lcfr::StreamCat("unknown architecture '", name, "'"));
      }
      if (!archive.try_read("cards_dims", value) || !value.isIntList() ||
          value.toIntList().size() != 5) {
        throw std::runtime_error("missing or invalid 'cards_dims'");
      }
      const auto dims = value.toIntList();
      auto dim = [&dims](size_t i) { return static_cast<int>(dims.get(i)); };
      shape.cards = {dim(0), dim(1), dim(2), dim(3), dim(4)};
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat(path, ": not a networks file of this program (", ErrorText(e), ")"));
  }
  if (const absl::Status status = shape.config.Validate();
      !status.ok() || shape.input_size < 1 || shape.num_actions < 1 ||
      (shape.config.architecture == Architecture::kCards && !CardsShapeProblem(shape).empty())) {
    return absl::InvalidArgumentError(lcfr::StreamCat(path, ": invalid shape ", shape.ToString()));
  }
  if (expected != nullptr && !(shape == *expected)) {
    return absl::InvalidArgumentError(lcfr::StreamCat(
        path, ": holds networks for ", shape.ToString(), ", expected ", expected->ToString()));
  }
  NetworkSet set = NetworkSet::Create(shape, 0);
  auto shape_text = [](c10::IntArrayRef sizes) {
    std::string text = "[";
    for (size_t d = 0; d < sizes.size(); ++d) text += lcfr::StreamCat(d ? ", " : "", sizes[d]);
    return text + "]";
  };
  try {
    for (int i = 0; i < stored; ++i) {
      // The header's shapes: loading would silently take the archive's own (Tensor::set_).
      std::vector<std::vector<int64_t>> expected_sizes;
      for (const auto& p : set.nets[i]->named_parameters()) {
        expected_sizes.push_back(p.value().sizes().vec());
      }
      torch::serialize::InputArchive net;
      archive.read(lcfr::StreamCat("network", i), net);
      set.nets[i]->load(net);
      size_t k = 0;
      for (const auto& p : set.nets[i]->named_parameters()) {
        const at::Tensor& tensor = p.value();
        if (k >= expected_sizes.size() || tensor.sizes().vec() != expected_sizes[k]) {
          return absl::InvalidArgumentError(lcfr::StreamCat(
              path, ": network", i, " tensor '", p.key(), "' has shape ",
              shape_text(tensor.sizes()), ", the header (", shape.ToString(), ") says ",
              k < expected_sizes.size() ? shape_text(expected_sizes[k]) : std::string("none")));
        }
        if (!torch::isfinite(tensor).all().item<bool>()) {
          return absl::InvalidArgumentError(
              lcfr::StreamCat(path, ": network", i, " tensor '", p.key(),
                              "' holds non-finite values (NaN or inf)"));
        }
        ++k;
      }
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat(path, ": cannot read the network weights: ", ErrorText(e)));
  }
  return set;
}

}  // namespace lcfr::inference
