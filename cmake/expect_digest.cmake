# ctest helper: runs PROGRAM, writes its standard output to OUT and requires the output's SHA-256 to
# be the one written in DIGEST_FILE (the first word of its first line). On a mismatch it says how
# to see what changed: the same program at the last commit whose output was recorded, and a diff.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE code OUTPUT_FILE "${OUT}" ERROR_VARIABLE err)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM}: exit code ${code}\n${err}")
endif()
file(SHA256 "${OUT}" got)
file(STRINGS "${DIGEST_FILE}" lines LIMIT_COUNT 1)
string(REGEX MATCH "^[0-9a-f]+" want "${lines}")
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${OUT} has SHA-256 ${got}, not ${want} (${DIGEST_FILE}): what ${PROGRAM} writes has "
                      "changed. Build it at the commit that last wrote ${DIGEST_FILE}, diff the two outputs, and "
                      "if every change is meant, write the new digest there.")
endif()
message("${OUT}: SHA-256 ${got}, as recorded")
