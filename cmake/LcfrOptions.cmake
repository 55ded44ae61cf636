# Compile options for the project's own targets: lcfr_target_options(<target>).
# Third-party headers (libtorch, Boost, Catch2) are included as SYSTEM so that their
# warnings never become errors here.

set(LCFR_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
if(LCFR_WERROR)
  list(APPEND LCFR_WARNINGS -Werror)
endif()

# Instruction set of the project's own code. x86-64-v2 (POPCNT, SSE4.2: every x86-64 CPU since
# about 2009) makes the engine's popcounts single instructions: encode is ~25% faster than
# baseline x86-64 (benchmarks/README.md). Set LCFR_ARCH=native for the build machine, or empty
# for the compiler's default.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(LCFR_ARCH "x86-64-v2" CACHE STRING "-march for the project's own code (empty: default)")
else()
  set(LCFR_ARCH "" CACHE STRING "-march for the project's own code (empty: default)")
endif()
if(LCFR_ARCH)
  add_compile_options(-march=${LCFR_ARCH})
endif()

set(LCFR_SANITIZER_FLAGS "")
# The sanitizer builds (ASan + UBSan, TSan, fuzz) compile at -O1 with line tables only (-g1;
# the last -O and -g given win, so these override the build type's): 2.3x faster to compile than
# RelWithDebInfo's -O2 -g (tests/traversal/cfr_test.cc with ASan + UBSan: 52 against 119 s),
# the optimisation level the sanitizers' documentation advises, and the reports keep their
# files and lines.
if(LCFR_SANITIZE OR LCFR_SANITIZE_THREAD)
  add_compile_options(-O1 -g1)
endif()
if(LCFR_SANITIZE)
  set(LCFR_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined)
  add_compile_options(${LCFR_SANITIZER_FLAGS})
  # The sanitizer build also runs the hot paths' DCHECKs (compiled out elsewhere by NDEBUG).
  add_compile_definitions(LCFR_ENABLE_DCHECK=1)
  # GCC's middle-end reports false maybe-uninitialized warnings in libstdc++ (std::regex,
  # std::function) once sanitizers instrument the code; they are not the project's.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND LCFR_WARNINGS -Wno-maybe-uninitialized)
  endif()
  add_link_options(${LCFR_SANITIZER_FLAGS})
endif()
# libFuzzer's coverage instrumentation for every target of a fuzz build (the fuzz targets add
# -fsanitize=fuzzer at link time for libFuzzer's main).
if(LCFR_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# ThreadSanitizer (scripts/test.sh runs the threaded torch-free tests under it). Not combinable
# with LCFR_SANITIZE.
if(LCFR_SANITIZE_THREAD)
  if(LCFR_SANITIZE)
    message(FATAL_ERROR "LCFR_SANITIZE_THREAD and LCFR_SANITIZE cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_compile_definitions(LCFR_ENABLE_DCHECK=1)
  add_link_options(-fsanitize=thread)
endif()

function(lcfr_target_options target)
  target_compile_options(${target} PRIVATE ${LCFR_WARNINGS})
endfunction()

# Layering guard: engine/ and traversal/ must never see libtorch. A target declared torch-free
# fails at configure time if anything it links (directly or transitively) is libtorch.
function(lcfr_forbid_torch target)
  get_target_property(_libs ${target} LINK_LIBRARIES)
  get_target_property(_ilibs ${target} INTERFACE_LINK_LIBRARIES)
  foreach(_lib IN LISTS _libs _ilibs)
    if(_lib MATCHES "^(torch|torch_library|c10|Torch::|torch_cpu|torch_cuda)")
      message(FATAL_ERROR "${target} must not link libtorch (found ${_lib}); "
                          "see ARCHITECTURE.md: engine and traversal stay torch-free.")
    endif()
  endforeach()
endfunction()
