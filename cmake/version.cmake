# Writes version.h with the commit the tree is at *now*, at build time rather than at
# configure time, so a binary never reports the commit of an older configure. configure_file
# leaves the file untouched when its text is unchanged, so nothing rebuilds needlessly.
# Inputs: SOURCE_DIR, INPUT (version.h.in), OUTPUT, PROJECT_VERSION.
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE REAM_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT REAM_GIT_COMMIT)
  set(REAM_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(dirty)
    # Built from a tree with uncommitted changes: say so rather than claim the commit.
    string(APPEND REAM_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
