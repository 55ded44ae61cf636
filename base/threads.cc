#include "base/threads.h"

#include <exception>
#include <thread>
#include <vector>

namespace lcfr {

void RunOnThreads(int threads, const std::function<void(int)>& body) {
  std::vector<std::exception_ptr> errors(threads);
  auto guarded = [&](int t) {
    try {
      body(t);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  guarded(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace lcfr
