# Writes OUT with the current git revision, touching it only when the revision changes, so that
# every build reports the commit it was built from without rebuilding the world.
# GEMV_GIT_REVISION in the environment says where a copied tree came from (git archive, or a copy
# whose .git is not the one it was made from) and wins.
if(DEFINED ENV{GEMV_GIT_REVISION})
  set(rev "$ENV{GEMV_GIT_REVISION}")
else()
  execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(failed OR rev STREQUAL "")
    set(rev "unknown")
  endif()
endif()
set(text "namespace gemv { const char* git_revision() { return \"${rev}\"; } }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
