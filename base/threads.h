// Fanning work out to threads. Torch-free.
#ifndef LCFR_BASE_THREADS_H_
#define LCFR_BASE_THREADS_H_

#include <functional>

namespace lcfr {

// Runs body(t) for t in [0, threads): t = 0 on the calling thread, the others on threads of their
// own; returns when all have finished and then rethrows the first exception (by t), so that no
// exception escapes a thread (which would end the process).
void RunOnThreads(int threads, const std::function<void(int)>& body);

}  // namespace lcfr

#endif  // LCFR_BASE_THREADS_H_
