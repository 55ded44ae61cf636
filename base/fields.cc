#include "base/fields.h"

#include "base/strings.h"

namespace lcfr {

std::string_view NameOf(std::span<const EnumName> names, int value) {
  for (const EnumName& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

std::optional<int> ValueOf(std::span<const EnumName> names, std::string_view name) {
  for (const EnumName& n : names) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

std::string JoinNames(std::span<const EnumName> names) {
  std::string out;
  for (const EnumName& n : names) StrAppend(&out, out.empty() ? "" : ", ", n.name);
  return out;
}

absl::StatusOr<int> ParseEnumName(std::span<const EnumName> names, std::string_view name,
                                  std::string_view what) {
  if (std::optional<int> value = ValueOf(names, name)) return *value;
  return absl::InvalidArgumentError(
      StrCat("unknown ", what, " '", name, "' (expected ", JoinNames(names), ")"));
}

std::string NumberText(double value) { return fmt::format("{}", value); }

absl::Status OutOfRange(std::string_view prefix, std::string_view key, std::string_view value,
                        double min, double max, std::string_view help) {
  return absl::InvalidArgumentError(StrCat(prefix, key, " = ", value, " is out of range [",
                                           NumberText(min), ", ", NumberText(max), "] (", help,
                                           ")"));
}

}  // namespace lcfr
