// Always-on invariant checks that print both operands, and debug-only DCHECKs for hot paths.
//
//   LCFR_CHECK(cond) << "context";        aborts with file:line and the condition
//   LCFR_CHECK_EQ(a, b) << "context";     aborts printing both values (also _NE _LT _LE _GT _GE)
//   LCFR_DCHECK(...), LCFR_DCHECK_EQ(...)  the same, compiled out when NDEBUG is defined
//                                         (unless LCFR_ENABLE_DCHECK: the sanitizer build)
//
// These are for programming errors (broken invariants), never for bad user input: input at the
// boundary is validated and reported through absl::Status.
#ifndef LCFR_BASE_CHECK_H_
#define LCFR_BASE_CHECK_H_

#include <sstream>
#include <string>

namespace lcfr::internal {

// Collects the message of a failed check and aborts in its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const std::string& what);
  [[noreturn]] ~CheckFailure();
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

template <typename A, typename B>
std::string FormatOperands(const char* expr, const A& a, const B& b) {
  std::ostringstream out;
  out << expr << " (" << +a << " vs. " << +b << ")";
  return out.str();
}

// Swallows the stream expression in the non-failing branch of the macros below.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace lcfr::internal

#define LCFR_CHECK(cond)                 \
  (cond) ? (void)0                       \
         : ::lcfr::internal::Voidify() & \
               ::lcfr::internal::CheckFailure(__FILE__, __LINE__, "Check failed: " #cond).stream()

#define LCFR_CHECK_OP(op, a, b)                                                                 \
  ((a)op(b))                                                                                    \
      ? (void)0                                                                                 \
      : ::lcfr::internal::Voidify() &                                                           \
            ::lcfr::internal::CheckFailure(                                                     \
                __FILE__, __LINE__,                                                             \
                ::lcfr::internal::FormatOperands("Check failed: " #a " " #op " " #b, (a), (b))) \
                .stream()

#define LCFR_CHECK_EQ(a, b) LCFR_CHECK_OP(==, a, b)
#define LCFR_CHECK_NE(a, b) LCFR_CHECK_OP(!=, a, b)
#define LCFR_CHECK_LT(a, b) LCFR_CHECK_OP(<, a, b)
#define LCFR_CHECK_LE(a, b) LCFR_CHECK_OP(<=, a, b)
#define LCFR_CHECK_GT(a, b) LCFR_CHECK_OP(>, a, b)
#define LCFR_CHECK_GE(a, b) LCFR_CHECK_OP(>=, a, b)

#if defined(NDEBUG) && !defined(LCFR_ENABLE_DCHECK)
#define LCFR_DCHECK(cond) \
  while (false) LCFR_CHECK(cond)
#define LCFR_DCHECK_EQ(a, b) \
  while (false) LCFR_CHECK_EQ(a, b)
#define LCFR_DCHECK_LT(a, b) \
  while (false) LCFR_CHECK_LT(a, b)
#define LCFR_DCHECK_LE(a, b) \
  while (false) LCFR_CHECK_LE(a, b)
#define LCFR_DCHECK_NE(a, b) \
  while (false) LCFR_CHECK_NE(a, b)
#else
#define LCFR_DCHECK(cond) LCFR_CHECK(cond)
#define LCFR_DCHECK_EQ(a, b) LCFR_CHECK_EQ(a, b)
#define LCFR_DCHECK_LT(a, b) LCFR_CHECK_LT(a, b)
#define LCFR_DCHECK_LE(a, b) LCFR_CHECK_LE(a, b)
#define LCFR_DCHECK_NE(a, b) LCFR_CHECK_NE(a, b)
#endif

#endif  // LCFR_BASE_CHECK_H_
