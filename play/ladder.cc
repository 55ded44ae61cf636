#include "play/ladder.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/strings.h"

namespace lcfr::play {
namespace {

// Splits a CSV row of plain fields (the games file quotes nothing: player names are words).
std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row);
  for (std::string field; std::getline(in, field, ',');) out.push_back(field);
  if (!row.empty() && row.back() == ',') out.emplace_back();
  return out;
}

bool ParseInt(const std::string& text, int& out) {
  if (text.empty() || text.size() > 9) return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (size_t k = i; k < text.size(); ++k) {
    if (text[k] < '0' || text[k] > '9') return false;
  }
  out = std::stoi(text);
  return true;
}

// The diagonal of the inverse of the symmetric positive definite `a` (n x n, row-major), by
// Gauss-Jordan elimination with partial pivoting.
std::vector<double> InverseDiagonal(std::vector<double> a, int n) {
  std::vector<double> inv(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int r = c + 1; r < n; ++r) {
      if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c])) pivot = r;
    }
    for (int k = 0; k < n; ++k) {
      std::swap(a[c * n + k], a[pivot * n + k]);
      std::swap(inv[c * n + k], inv[pivot * n + k]);
    }
    const double d = a[c * n + c];
    for (int k = 0; k < n; ++k) a[c * n + k] /= d, inv[c * n + k] /= d;
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      if (f == 0) continue;
      for (int k = 0; k < n; ++k)
        a[r * n + k] -= f * a[c * n + k], inv[r * n + k] -= f * inv[c * n + k];
    }
  }
  std::vector<double> diagonal(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) diagonal[i] = inv[i * n + i];
  return diagonal;
}

}  // namespace

std::string LadderGameRow(const LadderGame& g) {
  return lcfr::StrCat(g.a, ",", g.b, ",", g.game, ",", g.score_a, ",", g.score_b, ",", g.decisions,
                      ",", g.capped ? 1 : 0, "\n");
}

absl::StatusOr<std::vector<LadderGame>> ReadLadderGames(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(lcfr::StrCat(path, ": cannot open it"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<LadderGame> games;
  size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // a row cut by a kill: it is played again
    const std::string row = text.substr(start, end - start);
    start = end + 1;
    if (line == 1) {
      if (row != kLadderGamesHeader) {
        return absl::InvalidArgumentError(
            lcfr::StrCat(path, ": line 1: expected the header '", kLadderGamesHeader, "'"));
      }
      continue;
    }
    const std::vector<std::string> f = Fields(row);
    LadderGame g;
    int capped = 0;
    if (f.size() != 7 || f[0].empty() || f[1].empty() || f[0] == f[1] || !ParseInt(f[2], g.game) ||
        g.game < 0 || !ParseInt(f[3], g.score_a) || !ParseInt(f[4], g.score_b) ||
        !ParseInt(f[5], g.decisions) || !ParseInt(f[6], capped) || (capped != 0 && capped != 1)) {
      return absl::InvalidArgumentError(
          lcfr::StrCat(path, ": line ", line, ": expected ", kLadderGamesHeader,
                       " (two different names, a game index >= 0, integer scores and decisions, "
                       "capped 0 or 1)"));
    }
    g.a = f[0];
    g.b = f[1];
    g.capped = capped == 1;
    games.push_back(std::move(g));
  }
  if (text.empty()) {
    return absl::InvalidArgumentError(
        lcfr::StrCat(path, ": empty (expected the header '", kLadderGamesHeader, "')"));
  }
  return games;
}

absl::StatusOr<std::vector<Rating>> BradleyTerry(const std::vector<std::string>& players,
                                                 const std::vector<LadderGame>& games,
                                                 const std::string& anchor) {
  const int n = static_cast<int>(players.size());
  std::map<std::string, int> index;
  for (int i = 0; i < n; ++i) index[players[i]] = i;
  const auto found = index.find(anchor);
  if (found == index.end()) {
    return absl::InvalidArgumentError(lcfr::StrCat("the anchor '", anchor, "' is not a player"));
  }
  const int a0 = found->second;
  // wins[i][j]: i's wins over j (ties half); played[i][j]: their games.
  std::vector<std::vector<double>> wins(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<double>> played(n, std::vector<double>(n, 0.0));
  for (const LadderGame& g : games) {
    const auto ia = index.find(g.a), ib = index.find(g.b);
    if (ia == index.end() || ib == index.end()) continue;  // a player left out of this rating
    const int i = ia->second, j = ib->second;
    const double w = g.score_a > g.score_b ? 1.0 : g.score_a == g.score_b ? 0.5 : 0.0;
    wins[i][j] += w;
    wins[j][i] += 1.0 - w;
    played[i][j] += 1;
    played[j][i] += 1;
  }
  std::vector<Rating> ratings(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    ratings[i].name = players[i];
    double w = 0, total = 0;
    for (int j = 0; j < n; ++j) w += wins[i][j], total += played[i][j];
    ratings[i].games = static_cast<int64_t>(total);
    ratings[i].score = total > 0 ? w / total : 0.0;
    if (total == 0) {
      return absl::FailedPreconditionError(lcfr::StrCat("'", players[i], "' has played no games"));
    }
  }
  // The prior: one drawn game more for every pair that played, so that a player that won or
  // lost every game still has a finite strength (its interval says how little is known).
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j && played[i][j] > 0) wins[i][j] += 0.5, played[i][j] += 1;
    }
  }
  // Every player reaches the anchor through games (else no common scale).
  std::vector<bool> reached(static_cast<size_t>(n), false);
  std::vector<int> stack = {a0};
  reached[a0] = true;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (int j = 0; j < n; ++j) {
      if (!reached[j] && played[i][j] > 0) reached[j] = true, stack.push_back(j);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!reached[i]) {
      return absl::FailedPreconditionError(lcfr::StrCat(
          "'", players[i], "' is not connected to the anchor '", anchor, "' by games"));
    }
  }
  // Hunter's MM iterations on the strengths p (the anchor's fixed at 1).
  std::vector<double> p(static_cast<size_t>(n), 1.0);
  for (int iteration = 0; iteration < 100000; ++iteration) {
    double change = 0;
    for (int i = 0; i < n; ++i) {
      double w = 0, denominator = 0;
      for (int j = 0; j < n; ++j) {
        if (played[i][j] == 0) continue;
        w += wins[i][j];
        denominator += played[i][j] / (p[i] + p[j]);
      }
      const double next = w / denominator;
      change = std::max(change, std::abs(std::log(next / p[i])));
      p[i] = next;
    }
    const double scale = p[a0];
    for (double& v : p) v /= scale;
    if (change < 1e-12) break;
  }
  // The observed information in theta = ln p, without the anchor's row and column.
  std::vector<int> free;
  for (int i = 0; i < n; ++i) {
    if (i != a0) free.push_back(i);
  }
  const int m = static_cast<int>(free.size());
  std::vector<double> info(static_cast<size_t>(m) * m, 0.0);
  for (int x = 0; x < m; ++x) {
    const int i = free[x];
    for (int j = 0; j < n; ++j) {
      if (j == i || played[i][j] == 0) continue;
      const double v = played[i][j] * p[i] * p[j] / ((p[i] + p[j]) * (p[i] + p[j]));
      info[x * m + x] += v;
      const auto y = std::find(free.begin(), free.end(), j);
      if (y != free.end()) info[x * m + (y - free.begin())] -= v;
    }
  }
  const std::vector<double> variance = m > 0 ? InverseDiagonal(info, m) : std::vector<double>{};
  const double elo = 400.0 / std::log(10.0);
  for (int i = 0; i < n; ++i) ratings[i].elo = elo * std::log(p[i]);
  for (int x = 0; x < m; ++x) {
    Rating& r = ratings[free[x]];
    const double half = 1.96 * elo * std::sqrt(std::max(0.0, variance[x]));
    r.low = r.elo - half;
    r.high = r.elo + half;
  }
  return ratings;
}

}  // namespace lcfr::play
