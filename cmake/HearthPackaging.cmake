# Installing and packaging. `cmake --install` lays out bin/hearth, bin/hearth-cli, the desktop
# entry and the icon (component "hearth"), and the CUDA backend module in lib/hearth with the CUDA
# runtime and cuBLAS libraries it loads beside it (component "cuda"). `cpack -G DEB` makes one
# .deb per component: hearth (runs on the CPU by itself) and hearth-cuda (the GPU backend).
#
# Why the CUDA libraries are shipped rather than declared: the module is built against one CUDA
# major version (its sonames, e.g. libcudart.so.13), Debian's own packages carry an older one
# (nvidia-cuda-toolkit 11.8 in Debian 12) and NVIDIA's apt repository is not configured on most
# machines. NVIDIA's CUDA EULA (Attachment A) lets an application redistribute the CUDA runtime
# and cuBLAS with it; they stay private to Hearth in lib/hearth (the module's RUNPATH is $ORIGIN)
# and its EULA is installed with them. HEARTH_SHIP_CUDA_LIBS=OFF leaves them out.
# Included from the top-level CMakeLists.txt after every subdirectory.

option(HEARTH_SHIP_CUDA_LIBS "Install the CUDA runtime and cuBLAS beside the CUDA module" ON)
set(HEARTH_PACKAGE_MAINTAINER "Hearth developers <hearth@invalid>" CACHE STRING
    "The Maintainer field of the .deb packages")

if(HEARTH_CUDA AND TARGET hearth_cuda)
  # The installed module finds the libraries shipped beside it.
  set_target_properties(hearth_cuda PROPERTIES INSTALL_RPATH "$ORIGIN")
  if(HEARTH_SHIP_CUDA_LIBS)
    foreach(lib cudart cublas cublasLt)
      set(soname "lib${lib}.so.${CUDAToolkit_VERSION_MAJOR}")
      find_file(hearth_${lib}_file ${soname} PATHS ${CUDAToolkit_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
      file(REAL_PATH "${hearth_${lib}_file}" real)
      install(FILES "${real}" DESTINATION lib/hearth RENAME ${soname} COMPONENT cuda)
    endforeach()
    # The EULA: EULA.txt in a toolkit installer's tree, License.txt in the pip wheels' metadata.
    file(GLOB hearth_cuda_eula "${CUDAToolkit_LIBRARY_ROOT}/EULA.txt"
         "${CUDAToolkit_LIBRARY_ROOT}/dist-info/nvidia_cuda_runtime-*/licenses/License.txt")
    if(hearth_cuda_eula)
      list(GET hearth_cuda_eula 0 hearth_cuda_eula)
      install(FILES "${hearth_cuda_eula}" DESTINATION share/doc/hearth-cuda RENAME NVIDIA-CUDA-EULA.txt
              COMPONENT cuda)
    else()
      message(WARNING "Hearth: the CUDA EULA was not found under ${CUDAToolkit_LIBRARY_ROOT}; "
                      "the hearth-cuda package must not be distributed without it")
    endif()
  endif()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hearth)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Hearth")
# Each package's description starts with its own summary line (CPack 3.25 would put one
# CPACK_PACKAGE_DESCRIPTION_SUMMARY above both, so that stays unset).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL hearth)
if(HEARTH_CUDA AND TARGET hearth_cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HEARTH_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # the libraries the binaries link, computed

# hearth: the app and hearth-cli. Besides what the binaries link, the app loads at run time the
# QML modules of its UI (installer/setup.sh's list, less the test module), Qt's SQLite driver
# for the history, and a font; a CJK font shows the Chinese translation.
set(CPACK_DEBIAN_HEARTH_PACKAGE_NAME hearth)
string(CONCAT CPACK_DEBIAN_HEARTH_DESCRIPTION
    "Chat with language models on your own computer\n"
    "A desktop chat app with its own inference engine for local models (GGUF files and Hugging\n"
    "Face folders): streaming replies, the chat history in SQLite, live speed and memory figures,\n"
    "and switching the quantization of the loaded model. Runs on the CPU; install hearth-cuda to\n"
    "use an NVIDIA GPU.")
string(JOIN ", " CPACK_DEBIAN_HEARTH_PACKAGE_DEPENDS
  qml6-module-qtqml qml6-module-qtqml-models qml6-module-qtqml-workerscript qml6-module-qtquick
  qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtquick-controls
  qml6-module-qtquick-layouts qml6-module-qtquick-dialogs qml6-module-qt-labs-folderlistmodel
  qml6-module-qt-labs-settings qml6-module-qtcore libqt6sql6-sqlite fonts-dejavu-core)
set(CPACK_DEBIAN_HEARTH_PACKAGE_RECOMMENDS "fonts-noto-cjk, qt6-wayland")
set(CPACK_DEBIAN_HEARTH_PACKAGE_SUGGESTS "hearth-cuda")

# hearth-cuda: the module and the NVIDIA libraries beside it. The NVIDIA driver (libcuda.so.1)
# is not declared: it comes from Debian's non-free nvidia-driver or NVIDIA's own packages, and
# without it the app says so and runs on the CPU.
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME hearth-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION non-free/utils)
string(CONCAT CPACK_DEBIAN_CUDA_DESCRIPTION
    "NVIDIA GPU backend for Hearth\n"
    "The NVIDIA GPU backend of Hearth, with the CUDA runtime and cuBLAS libraries it needs\n"
    "(redistributed under NVIDIA's CUDA EULA). Needs an NVIDIA driver.")
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "hearth (= ${PROJECT_VERSION})")
# dpkg-shlibdeps finds the NVIDIA libraries inside the package itself, through $ORIGIN.

include(CPack)
