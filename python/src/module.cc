// The extension module lcfr._lcfr; the package lcfr (python/lcfr/__init__.py) re-exports it.
#include "python/src/common.h"

NB_MODULE(_lcfr, m) {
  m.doc() =
      "Lost Cities Deep CFR engine: the engine, a batched environment, the players "
      "(docs/python.md).";
  lcfr::python::BindEngine(m);
  lcfr::python::BindPlayers(m);
  lcfr::python::BindVecEnv(m);
}
