# The layers of src/ as libraries: mycel_add_layers(src/layers.txt [SKIP folder...]).
#
# Each line of the list is a rank, lowest first; folders on one line are siblings (the list
# and its rules: src/layers.txt). Every folder becomes a static library, mycel_<folder>, of
# its sources (src/<folder>/**/*.cc but cuda/), linking only the libraries of the rank below
# (and so, transitively, every lower one); the extension and the test binaries link the top
# ones. A static link would still resolve a reference from a layer to a symbol of one above
# it (the archives sit on one link line), so each layer is also linked alone, as its check
# layer_check/libmycel_<folder>_check.so: the layer's objects, whole, with the layers below and
# -Wl,--no-undefined. A reference to a symbol that neither the layer nor one below defines (a
# layer above, a sibling, a hook named on a .def line but never written) fails that link, in
# every build. A folder with no sources (device/ without CUDA) is an interface library.
#
# A folder's cuda/ subfolder, where MYCEL_CUDA is on, is its CUDA part, mycel_<folder>_cuda,
# of the same rank, checked the same way; its compile lines see src/ only (MYCEL_CUDA_WARN,
# MYCEL_CUDA_DEF and CUDNN_LIB from the caller). Compile options: MYCEL_WARN.
# tests/python/test_package_structure.py builds a two-layer project with this file.

# The check of static library `lib`: a shared object of it whole and what it links.
function(mycel_layer_check lib)
  if(NOT EXISTS ${CMAKE_BINARY_DIR}/layer_check.cc)
    file(WRITE ${CMAKE_BINARY_DIR}/layer_check.cc "// a layer check's own source: none\n")
  endif()
  add_library(${lib}_check SHARED ${CMAKE_BINARY_DIR}/layer_check.cc)
  target_link_libraries(${lib}_check PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
  target_link_options(${lib}_check PRIVATE -Wl,--no-undefined)
  set_target_properties(${lib}_check PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/layer_check)
endfunction()

# The CUDA part of layer `name` (see above), linking `below`; appends it to `libs` in the
# caller.
function(mycel_layer_cuda name below)
  set(lib mycel_${name}_cuda)
  file(GLOB_RECURSE src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/cuda/*.cc
    ${CMAKE_SOURCE_DIR}/src/${name}/cuda/*.cu)
  add_library(${lib} STATIC ${src})
  target_include_directories(${lib} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(${lib} PRIVATE ${MYCEL_CUDA_DEF})
  target_compile_options(${lib} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${MYCEL_WARN}>
    $<$<COMPILE_LANGUAGE:CUDA>:${MYCEL_CUDA_WARN} -Xcompiler=-Wall --expt-relaxed-constexpr>)
  foreach(dep IN LISTS below)
    target_link_libraries(${lib} PUBLIC $<LINK_ONLY:${dep}>)
  endforeach()
  target_link_libraries(${lib} PRIVATE CUDA::cudart_static CUDA::cublasLt CUDA::cublas
    ${CUDNN_LIB})
  mycel_layer_check(${lib})
  set(libs ${libs} ${lib} PARENT_SCOPE)
endfunction()

# The libraries of layer `name` (src/<name>/), linking `below` (the rank below's libraries);
# appends them to MYCEL_RANK_LIBS in the caller.
function(mycel_layer name below)
  set(lib mycel_${name})
  file(GLOB_RECURSE src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cc)
  list(FILTER src EXCLUDE REGEX "/src/${name}/cuda/")
  if(src)
    add_library(${lib} STATIC ${src})
    target_link_libraries(${lib} PUBLIC ${below})
    target_compile_options(${lib} PRIVATE ${MYCEL_WARN})
    mycel_layer_check(${lib})
  else()
    add_library(${lib} INTERFACE)
    target_link_libraries(${lib} INTERFACE ${below})
  endif()
  set(libs ${lib})
  if(MYCEL_CUDA AND IS_DIRECTORY ${CMAKE_SOURCE_DIR}/src/${name}/cuda)
    if(src)
      list(APPEND below ${lib})  # the CUDA part may use its layer's CPU part
    endif()
    mycel_layer_cuda(${name} "${below}")
  endif()
  set(MYCEL_RANK_LIBS ${MYCEL_RANK_LIBS} ${libs} PARENT_SCOPE)
endfunction()

function(mycel_add_layers list_file)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SKIP")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${list_file})
  file(STRINGS ${list_file} lines)
  set(below)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    separate_arguments(folders UNIX_COMMAND "${line}")
    if(arg_SKIP)
      list(REMOVE_ITEM folders ${arg_SKIP})
    endif()
    if(NOT folders)
      continue()
    endif()
    set(MYCEL_RANK_LIBS)
    foreach(folder IN LISTS folders)
      mycel_layer(${folder} "${below}")
    endforeach()
    set(below ${MYCEL_RANK_LIBS})
  endforeach()
endfunction()
