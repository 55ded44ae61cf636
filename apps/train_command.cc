// lcfr train: a Deep CFR training run from a YAML configuration, in one process or several
// (--nproc, or the RANK/WORLD_SIZE variables of torchrun and srun: docs/distributed.md).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "apps/commands.h"
#include "base/files.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "inference/torch_info.h"
#include "training/config.h"
#include "training/trainer.h"

namespace lcfr::apps {
namespace {

struct TrainCommandOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string run_dir;
  std::string resume;
  bool quiet = false;
  int nproc = 1;
};

// A free TCP port on the loopback interface, for --nproc's rendezvous (0 if none).
int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// The signal the --nproc launcher received (SIGINT, SIGTERM), to forward to its ranks.
volatile std::sig_atomic_t g_forward_signal = 0;
extern "C" void RecordSignal(int signal) { g_forward_signal = signal; }

std::string Describe(int status) {
  if (WIFEXITED(status)) return StrCat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return StrCat("was killed by signal ", WTERMSIG(status));
  return "stopped";
}

// --nproc N: runs this same command as N local ranks (child processes with RANK, WORLD_SIZE,
// LOCAL_RANK, MASTER_ADDR and MASTER_PORT set) and waits for them. When one fails, the others
// get 5 s to notice and report it themselves (a dead peer fails their next collective), then
// SIGTERM, then SIGKILL after 5 s more; the first failure's status is returned. When the run
// uses CUDA and several GPUs are visible (and CUDA_VISIBLE_DEVICES is not set), rank r gets GPU
// r mod count through CUDA_VISIBLE_DEVICES.
int LaunchRanks(const TrainCommandOptions& opts, const training::TrainConfig& config,
                const std::string& run_dir) {
  int gpus = 0;
  if ((config.training.device != inference::Device::kCpu ||
       config.inference.device != inference::Device::kCpu) &&
      std::getenv("CUDA_VISIBLE_DEVICES") == nullptr) {
    gpus = inference::GetTorchInfo().cuda_devices;  // children exec afresh: no CUDA state
  }
  const int port = FreeLoopbackPort();
  if (port == 0) {
    PrintError("train", "--nproc: cannot find a free port on 127.0.0.1");
    return kExitFailure;
  }
  std::vector<std::string> args = {"/proc/self/exe", "train"};
  if (!opts.config.empty()) args.insert(args.end(), {"--config", opts.config});
  for (const std::string& set : opts.sets) args.insert(args.end(), {"--set", set});
  if (!opts.resume.empty()) {
    args.insert(args.end(), {"--resume", opts.resume});
  } else {
    args.insert(args.end(), {"--run-dir", run_dir});
  }
  if (opts.quiet) args.push_back("--quiet");
  std::vector<pid_t> children;
  const pid_t launcher = ::getpid();
  for (int rank = 0; rank < opts.nproc; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      PrintError("train", "--nproc: fork failed");
      for (pid_t child : children) ::kill(child, SIGTERM);
      return kExitFailure;
    }
    if (pid == 0) {
      // A launcher that dies, even by kill -9, takes its ranks with it: none trains on alone.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) std::_Exit(127);  // it died before the line above
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(opts.nproc).c_str(), 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      if (gpus > 1) ::setenv("CUDA_VISIBLE_DEVICES", std::to_string(rank % gpus).c_str(), 1);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      std::_Exit(127);
    }
    children.push_back(pid);
  }
  // A scheduler's SIGTERM (or Ctrl-C) reaches the launcher: pass it on, so no rank outlives it.
  struct sigaction action {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  using Clock = std::chrono::steady_clock;
  int result = kExitOk;
  int running = opts.nproc;
  bool stopping = false;
  int signals_sent = 0;
  auto next_signal = Clock::time_point::max();
  while (running > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, stopping ? WNOHANG : 0);
    if (pid == 0) {  // stopping, none exited yet
      if (const int signal = g_forward_signal; signal != 0) {
        g_forward_signal = 0;
        for (pid_t child : children) {
          if (child > 0) ::kill(child, signal);
        }
      }
      if (Clock::now() > next_signal && signals_sent < 2) {
        for (pid_t child : children) {
          if (child > 0) ::kill(child, signals_sent == 0 ? SIGTERM : SIGKILL);
        }
        ++signals_sent;
        next_signal = Clock::now() + std::chrono::seconds(5);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (pid < 0 && errno == EINTR) {
      const int signal = g_forward_signal;
      g_forward_signal = 0;
      for (pid_t child : children) {
        if (child > 0 && signal != 0) ::kill(child, signal);
      }
      if (!stopping) {
        PrintError("train", StrCat("signal ", signal, " received; stopping the ranks"));
        stopping = true;
        next_signal = Clock::now() + std::chrono::seconds(5);
        if (result == kExitOk) result = kExitFailure;
      }
      continue;
    }
    if (pid < 0) break;
    int rank = -1;
    for (int r = 0; r < opts.nproc; ++r) {
      if (children[r] == pid) rank = r, children[r] = -1;
    }
    if (rank < 0) continue;
    --running;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && result == kExitOk) {
      result = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
      PrintError("train", StrCat("rank ", rank, " of ", opts.nproc, " ", Describe(status),
                                 "; stopping the other ranks"));
      stopping = true;
      next_signal = Clock::now() + std::chrono::seconds(5);
    }
  }
  return result;
}

int RunTrain(const TrainCommandOptions& opts) {
  absl::StatusOr<training::TrainConfig> config;
  std::string run_dir = opts.run_dir;
  if (!opts.resume.empty()) {
    if (!opts.config.empty()) {
      PrintError("train", "--resume uses the run's own config.yaml; drop --config");
      return kExitBadInput;
    }
    if (absl::Status dir = CheckDirectory(opts.resume); !dir.ok()) {
      PrintError("train", StrCat("--resume: ", dir.message(), " (a run directory is expected)"));
      return kExitBadInput;
    }
    config = training::LoadConfigFile(opts.resume + "/config.yaml");
    run_dir = opts.resume;
  } else if (!opts.config.empty()) {
    config = training::LoadConfigFile(opts.config);
  } else {
    config = training::ParseConfig(training::EmbeddedDefaultConfig(), "the embedded default");
  }
  if (!config.ok()) {
    PrintError("train", std::string(config.status().message()));
    return kExitBadInput;
  }
  for (const std::string& set : opts.sets) {
    if (absl::Status s = training::ApplyOverride(*config, set); !s.ok()) {
      PrintError("train", std::string(s.message()));
      return kExitBadInput;
    }
  }
  if (absl::Status s = training::Validate(*config); !s.ok()) {
    PrintError("train", std::string(s.message()));
    return kExitBadInput;
  }
  const char* world = std::getenv("WORLD_SIZE");
  const bool ranked = world != nullptr && std::atoi(world) > 1;
  if (opts.nproc > 1 && world != nullptr) {
    PrintError("train", "--nproc starts its own ranks; unset WORLD_SIZE (or drop --nproc)");
    return kExitBadInput;
  }
  if (ranked && run_dir.empty()) {
    PrintError("train", "several ranks (WORLD_SIZE > 1) need the same --run-dir (or --resume)");
    return kExitBadInput;
  }
  // With several ranks only rank 0 talks; the others report errors only.
  const char* rank_text = std::getenv("RANK");
  const bool speaker = !ranked || rank_text == nullptr || std::atoi(rank_text) == 0;
  if (run_dir.empty()) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
    run_dir = StrCat("runs/", training::GameName(config->run.game), "-", stamp);
    if (absl::Status s = MakeDirectories("runs"); !s.ok()) {
      PrintError("train", std::string(s.message()));
      return kExitFailure;
    }
  }
  // The failure tests' fault plan (training/fault_plan.h); every rank reads the same variable.
  std::optional<training::FaultPlan> fault;
  if (const char* spec = std::getenv("LCFR_TEST_FAULT"); spec != nullptr) {
    absl::StatusOr<training::FaultPlan> plan = training::FaultPlan::Parse(spec);
    if (!plan.ok()) {
      PrintError("train", std::string(plan.status().message()));
      return kExitBadInput;
    }
    fault = *plan;
  }
  if (opts.nproc > 1) return LaunchRanks(opts, *config, run_dir);
  if (!opts.quiet && speaker) {
    fmt::print(stderr, "train: {} for {} iterations into {}{}\n",
               training::GameName(config->run.game), config->run.iterations, run_dir,
               ranked ? StrCat(" on ", std::atoi(world), " ranks") : std::string());
  }
  training::TrainOptions options;
  options.config = *config;
  options.run_dir = run_dir;
  options.resume = !opts.resume.empty();
  options.progress = !opts.quiet && speaker;
  options.fault = fault;
  const absl::Status status = training::Train(options);
  if (!status.ok()) {
    PrintError("train", std::string(status.message()));
    return ExitCodeFor(status);
  }
  if (!speaker) return kExitOk;
  if (!opts.quiet) fmt::print(stderr, "train: done; results in {}\n", run_dir);
  fmt::print("{}\n", run_dir);
  return kExitOk;
}

}  // namespace

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kDataLoss:  // a corrupt checkpoint file
      return kExitBadInput;
    default:
      return kExitFailure;
  }
}

CommandFn AddTrainCommand(CLI::App& app) {
  auto opts = std::make_shared<TrainCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "train",
      "Train Deep CFR agents. Without --config, the embedded configs/default.yaml (Lost Cities, "
      "CPU, about 10 minutes on 2 cores). Prints the run directory on stdout; progress on "
      "stderr.");
  sub->add_option("--config", opts->config, "YAML configuration (configs/*.yaml)");
  sub->add_option("--set", opts->sets, "override one key: section.key=value (repeatable)");
  sub->add_option("--run-dir", opts->run_dir, "run directory (default: runs/<game>-<date>-<time>)");
  sub->add_option("--resume", opts->resume,
                  "continue the run in this directory from its latest "
                  "checkpoint");
  sub->add_flag("--quiet", opts->quiet, "no progress output");
  sub->add_option("--nproc", opts->nproc,
                  "run as N local processes (ranks) joined through c10d/Gloo; set "
                  "traversal.workers per rank (docs/distributed.md)")
      ->check(CLI::Range(1, 1024));
  return [opts] { return RunTrain(*opts); };
}

}  // namespace lcfr::apps
