# Included by the top CMakeLists.txt for trawl serve:
#  - the page's files here (HTML, JS, CSS) become a C array in
#    build/serve-web.c, linked into trawl (no network at run time);
#  - libmicrohttpd's headers and the path of its shared library, which
#    tools/trawl/serve/mhd-lazy.c dlopens when `trawl serve` starts.
set(SERVE_WEB_DIR ${CMAKE_SOURCE_DIR}/tools/trawl/serve-web)
file(GLOB SERVE_WEB_FILES CONFIGURE_DEPENDS ${SERVE_WEB_DIR}/*.html ${SERVE_WEB_DIR}/*.js
     ${SERVE_WEB_DIR}/*.css)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/serve-web.c
  COMMAND ${CMAKE_COMMAND} -DOUT=${CMAKE_BINARY_DIR}/serve-web.c -DDIR=${SERVE_WEB_DIR}
          -P ${SERVE_WEB_DIR}/embed-run.cmake
  DEPENDS ${SERVE_WEB_FILES} ${SERVE_WEB_DIR}/embed-run.cmake
  COMMENT "embedding the web view's files")
target_sources(trawl-bin PRIVATE ${CMAKE_BINARY_DIR}/serve-web.c)

pkg_check_modules(MHD IMPORTED_TARGET libmicrohttpd)
if(MHD_FOUND)
  target_include_directories(trawl-bin PRIVATE ${MHD_INCLUDE_DIRS})
  target_compile_definitions(trawl-bin PRIVATE TRAWL_HAVE_MHD=1)
  find_library(MHD_SO NAMES ${MHD_LIBRARIES} HINTS ${MHD_LIBRARY_DIRS})
  if(MHD_SO)
    get_filename_component(MHD_REAL ${MHD_SO} REALPATH)
    target_compile_definitions(trawl-bin PRIVATE TRAWL_MHD_PATH="${MHD_REAL}")
  endif()
endif()
