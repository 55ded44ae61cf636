# Compile options for the project's own targets: lcfr_target_options(<target>).
# Third-party headers (libtorch, Boost, Catch2) are included as SYSTEM so that their
# warnings never become errors here.

set(LCFR_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wconversion -Wno-sign-conversion)
if(LCFR_WERROR)
  list(APPEND LCFR_WARNINGS -Werror)
endif()

set(LCFR_SANITIZER_FLAGS "")
if(LCFR_SANITIZE)
  set(LCFR_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined)
  add_compile_options(${LCFR_SANITIZER_FLAGS})
  add_link_options(${LCFR_SANITIZER_FLAGS})
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
