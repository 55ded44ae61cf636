// Typed configuration field tables: how a component describes its config struct once, so that
// parsing (YAML in training/config.cc, --set, records), range checks, help text and the
// resolved-config dump all read the same rows. Torch-free and parser-free: a row names a member
// of the struct, its range or its enum's name table, and its help.
//
//   struct SchedulerConfig { int workers = 2; ... };
//   constexpr Field<SchedulerConfig> kSchedulerFields[] = {
//       Number("workers", &SchedulerConfig::workers, 1, 1024, "traversal threads"),
//       ...};
//
// A component's Validate() calls CheckRanges over its table and then checks its cross-field
// rules; the table is its only list of fields. Enums have one name table each (an array of
// EnumName), used both by the parser and by the component's own Name/Parse functions.
#ifndef LCFR_BASE_FIELDS_H_
#define LCFR_BASE_FIELDS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr {

// One value of an enum and its configuration name.
struct EnumName {
  std::string_view name;
  int value;
};

// The name of `value`, or "?" if the table lacks it.
std::string_view NameOf(std::span<const EnumName> names, int value);
// The value called `name`, if any.
std::optional<int> ValueOf(std::span<const EnumName> names, std::string_view name);
// "a, b, c" in table order.
std::string JoinNames(std::span<const EnumName> names);
// The value called `name`, or an error "unknown <what> '<name>' (expected a, b, c)".
absl::StatusOr<int> ParseEnumName(std::span<const EnumName> names, std::string_view name,
                                  std::string_view what);
// The same, as the enum type E.
template <typename E>
absl::StatusOr<E> ParseEnum(std::span<const EnumName> names, std::string_view name,
                            std::string_view what) {
  absl::StatusOr<int> value = ParseEnumName(names, name, what);
  if (!value.ok()) return value.status();
  return static_cast<E>(*value);
}

// Reads and writes an enum member as its underlying int (made by Choice below).
template <typename S>
struct EnumMember {
  int (*get)(const S&);
  void (*set)(S&, int);
};

template <typename S>
struct Field {
  using Member = std::variant<int S::*, int64_t S::*, double S::*, bool S::*, std::string S::*,
                              std::vector<std::string> S::*, EnumMember<S>>;
  std::string_view key;
  Member member;
  double min = 0;  // numbers: inclusive range
  double max = 0;
  std::span<const EnumName> names;  // enums: the name table
  std::string_view help;
};

// A number (int, int64_t or double member) in [min, max].
template <typename S, typename T>
requires(std::is_same_v<T, int> || std::is_same_v<T, int64_t> ||
         std::is_same_v<T, double>) constexpr Field<S> Number(std::string_view key, T S::*member,
                                                              double min, double max,
                                                              std::string_view help) {
  return {key, member, min, max, {}, help};
}
template <typename S>
constexpr Field<S> Flag(std::string_view key, bool S::*member, std::string_view help) {
  return {key, member, 0, 0, {}, help};
}
template <typename S>
constexpr Field<S> Text(std::string_view key, std::string S::*member, std::string_view help) {
  return {key, member, 0, 0, {}, help};
}
template <typename S>
constexpr Field<S> List(std::string_view key, std::vector<std::string> S::*member,
                        std::string_view help) {
  return {key, member, 0, 0, {}, help};
}

namespace fields_internal {
template <typename M>
struct MemberOf;
template <typename S, typename E>
struct MemberOf<E S::*> {
  using Struct = S;
  using Type = E;
};
}  // namespace fields_internal

// An enum member, named through `names`: Choice<&CfrConfig::scheme>("scheme", kSchemeNames, ..).
template <auto kMember>
constexpr auto Choice(std::string_view key, std::span<const EnumName> names,
                      std::string_view help) {
  using S = typename fields_internal::MemberOf<decltype(kMember)>::Struct;
  using E = typename fields_internal::MemberOf<decltype(kMember)>::Type;
  static_assert(std::is_enum_v<E>);
  EnumMember<S> access{[](const S& s) { return static_cast<int>(s.*kMember); },
                       [](S& s, int v) { s.*kMember = static_cast<E>(v); }};
  return Field<S>{key, access, 0, 0, names, help};
}

// Every number of `s` within its row's range; the message names `prefix` + key and the range.
template <typename S>
absl::Status CheckRanges(const S& s, std::span<const Field<S>> fields, std::string_view prefix);

// The field's value as configuration text: "64", "0.6", "true", "value", "[a, b]".
template <typename S>
std::string ValueText(const S& s, const Field<S>& field);

// ---- Implementation --------------------------------------------------------------------------

// "%.17g"-style shortest text of a double that reads back to the same value.
std::string NumberText(double value);
absl::Status OutOfRange(std::string_view prefix, std::string_view key, std::string_view value,
                        double min, double max, std::string_view help);

template <typename S>
absl::Status CheckRanges(const S& s, std::span<const Field<S>> fields, std::string_view prefix) {
  for (const Field<S>& f : fields) {
    std::optional<double> number;
    if (auto m = std::get_if<int S::*>(&f.member)) number = s.**m;
    if (auto m = std::get_if<int64_t S::*>(&f.member)) number = static_cast<double>(s.**m);
    if (auto m = std::get_if<double S::*>(&f.member)) number = s.**m;
    if (number && !(*number >= f.min && *number <= f.max)) {
      return OutOfRange(prefix, f.key, ValueText(s, f), f.min, f.max, f.help);
    }
    if (auto m = std::get_if<EnumMember<S>>(&f.member)) {
      if (NameOf(f.names, m->get(s)) == "?") {
        return absl::InvalidArgumentError(std::string(prefix) + std::string(f.key) +
                                          ": not one of " + JoinNames(f.names));
      }
    }
  }
  return absl::OkStatus();
}

// `text` as a YAML scalar that reads back as the same string: plain when it is only letters,
// digits and "._-+/", double-quoted with escapes otherwise (also when empty). Bytes from 0x80 on
// stay as they are: a YAML \xNN escape names the code point U+00NN, which reads back as two
// UTF-8 bytes (a fuzz finding).
inline std::string YamlScalar(const std::string& text) {
  bool plain = !text.empty();
  for (const char c : text) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-' || c == '+' || c == '/';
    plain &= safe;
  }
  if (plain) return text;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <typename S>
std::string ValueText(const S& s, const Field<S>& field) {
  struct Visitor {
    const S& s;
    std::span<const EnumName> names;
    std::string operator()(int S::*m) const { return std::to_string(s.*m); }
    std::string operator()(int64_t S::*m) const { return std::to_string(s.*m); }
    std::string operator()(double S::*m) const { return NumberText(s.*m); }
    std::string operator()(bool S::*m) const { return s.*m ? "true" : "false"; }
    std::string operator()(std::string S::*m) const { return YamlScalar(s.*m); }
    std::string operator()(std::vector<std::string> S::*m) const {
      std::string out = "[";
      for (const std::string& item : s.*m) out += (out.size() > 1 ? ", " : "") + YamlScalar(item);
      return out + "]";
    }
    std::string operator()(const EnumMember<S>& m) const {
      return std::string(NameOf(names, m.get(s)));
    }
  };
  return std::visit(Visitor{s, field.names}, field.member);
}

}  // namespace lcfr

#endif  // LCFR_BASE_FIELDS_H_
