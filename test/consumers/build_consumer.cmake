# cmake -DSOURCE_DIR=... -DBINARY_DIR=... -DINITIAL_CACHE=... -DGENERATOR=... [-DCONFIG=...]
#       -P build_consumer.cmake
# Configures a consumer project from scratch (--fresh; objects are kept, so a rebuild is
# incremental) with the settings in INITIAL_CACHE, then builds it.
foreach(var SOURCE_DIR BINARY_DIR INITIAL_CACHE GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_consumer.cmake: ${var} is not set")
  endif()
endforeach()

execute_process(
  COMMAND ${CMAKE_COMMAND} --fresh -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
          -C ${INITIAL_CACHE}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "configuring ${SOURCE_DIR} failed (${result})")
endif()

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} ${config_args} -j 2
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "building ${SOURCE_DIR} failed (${result})")
endif()
