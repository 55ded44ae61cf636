// gnuplot without a shell: the script and its data are written into a private directory and
// gnuplot is started there with posix_spawnp, so that no character of a path, of a run's metrics
// or of a label can change what it runs. The script names its data files by their bare names.
#ifndef LCFR_APPS_GNUPLOT_H_
#define LCFR_APPS_GNUPLOT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace lcfr::apps {

struct GnuplotChart {
  int width = 900, height = 540;  // pixels
  // The commands after the terminal and output lines; they read the files below by name.
  std::string script;
  // (file name, contents): plain names such as "losses.dat", no directories.
  std::vector<std::pair<std::string, std::string>> data;
};

// Whether an executable `gnuplot` is on PATH.
bool GnuplotAvailable();

// Renders `chart` to the PNG `png`: the PNG appears whole (renamed into place) or not at all. On
// failure the message gives gnuplot's first error line.
absl::Status RenderPng(const GnuplotChart& chart, const std::string& png);

// `text` made safe inside a single-quoted gnuplot string: characters other than letters, digits
// and " .,:;_-+/()%=<>" become '_'.
std::string GnuplotLabel(std::string_view text);

}  // namespace lcfr::apps

#endif  // LCFR_APPS_GNUPLOT_H_
