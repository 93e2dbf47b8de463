# app.translations: every user-visible string in app/ and ui/ has its translation. lupdate
# refreshes a copy of the .ts from the sources (a string not translated yet enters as
# unfinished), then lrelease must report 0 unfinished. The source tree is left untouched.
# -D: LUPDATE, LRELEASE, TS (the .ts file), SOURCES (folders, "|"-separated), WORK (scratch).
string(REPLACE "|" ";" folders "${SOURCES}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
get_filename_component(name "${TS}" NAME)
configure_file("${TS}" "${WORK}/${name}" COPYONLY)
execute_process(COMMAND "${LUPDATE}" -no-obsolete -locations none ${folders} -ts "${WORK}/${name}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed:\n${out}")
endif()
execute_process(COMMAND "${LRELEASE}" "${WORK}/${name}" -qm "${WORK}/check.qm"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
# An entry with no text at all is "ignored" as untranslated rather than counted as unfinished.
if(NOT rc EQUAL 0 OR NOT out MATCHES "finished and 0 unfinished" OR out MATCHES "untranslated")
  message(FATAL_ERROR "${name}: some strings have no translation (run the update_translations target, then translate)")
endif()
