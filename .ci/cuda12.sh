#!/usr/bin/env bash
# CI, the second toolkit: compiles every target with CUDA 12.4 (the oldest CUDA 12 the README
# names), for one architecture list (90: Hopper, so chapter 07's sm_90a code too), on a machine
# with no GPU. The first toolkit (the system's CUDA 13) builds every architecture in .ci/run.
#
# No CUDA 12 is installed here, so this script assembles one from two package registries, pinned
# to the same release (12.4.1), into build-cuda12-toolkit/ (git-ignored):
#   Debian (trixie, non-free): nvidia-cuda-toolkit: nvcc, cudafe++, cicc, ptxas, fatbinary, nvlink;
#   PyPI: nvidia-cuda-nvcc-cu12 (nvcc's own headers, libdevice), nvidia-cuda-runtime-cu12,
#         nvidia-cublas-cu12, nvidia-cuda-cccl-cu12 (headers and shared libraries).
# The Debian package is checked against the SHA-256 its index gives; pip checks the wheels.
#
#   bash .ci/cuda12.sh            assemble (once) and build into build-cuda12/
set -euo pipefail
cd "$(dirname "$0")/.."

tk="$PWD/build-cuda12-toolkit"
build="$PWD/build-cuda12"
deb_index="http://deb.debian.org/debian/dists/trixie/non-free/binary-amd64/Packages.xz"
deb_version="12.4.131~12.4.1-2"
wheels=(nvidia-cuda-nvcc-cu12==12.4.131 nvidia-cuda-runtime-cu12==12.4.127
        nvidia-cublas-cu12==12.4.5.8 nvidia-cuda-cccl-cu12==12.4.127.post1)

if [ ! -x "$tk/bin/nvcc" ]; then
  echo "CI (CUDA 12): assembling CUDA 12.4 into $tk"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # Debian: the compiler's programs. The package's file name and checksum from the index.
  curl -fsSL "$deb_index" | xz -dc > "$work/Packages"
  entry=$(awk -v RS= '/^Package: nvidia-cuda-toolkit\n/' "$work/Packages")
  if ! grep -q "^Version: $deb_version$" <<<"$entry"; then
    echo "CI (CUDA 12): Debian's nvidia-cuda-toolkit is no longer $deb_version:" >&2
    grep "^Version:" <<<"$entry" >&2 || true
    exit 1
  fi
  file=$(sed -n 's/^Filename: //p' <<<"$entry")
  sum=$(sed -n 's/^SHA256: //p' <<<"$entry")
  curl -fsSL -o "$work/toolkit.deb" "http://deb.debian.org/debian/$file"
  echo "$sum  $work/toolkit.deb" | sha256sum -c --quiet
  dpkg-deb -x "$work/toolkit.deb" "$work/deb"
  # PyPI: headers and libraries (a wheel is a zip file).
  python3 -m pip download --quiet --no-deps -d "$work/wheels" "${wheels[@]}"
  mkdir -p "$work/site"
  for w in "$work"/wheels/*.whl; do python3 -m zipfile -e "$w" "$work/site"; done
  site="$work/site/nvidia"
  deb="$work/deb/usr"

  rm -rf "$tk"
  mkdir -p "$tk/bin/crt" "$tk/nvvm/bin" "$tk/nvvm/libdevice" "$tk/include" "$tk/lib64"
  cp "$deb/lib/nvidia-cuda-toolkit/bin/nvcc" "$tk/bin/"
  cp "$deb"/lib/nvidia-cuda-toolkit/bin/crt/*.stub "$tk/bin/crt/"
  cp "$deb"/bin/{cudafe++,ptxas,fatbinary,nvlink,bin2c} "$tk/bin/"
  cp "$deb/lib/nvidia-cuda-toolkit/bin/cicc" "$tk/nvvm/bin/"
  cp "$site"/cuda_nvcc/nvvm/libdevice/* "$tk/nvvm/libdevice/"
  for p in cuda_nvcc cuda_runtime cublas cuda_cccl; do cp -r "$site/$p/include/." "$tk/include/"; done
  rm -f "$tk/include/__init__.py"
  for lib in cuda_runtime/lib/libcudart cublas/lib/libcublas cublas/lib/libcublasLt; do
    cp "$site/$lib.so.12" "$tk/lib64/"
    ln -sf "$(basename "$lib").so.12" "$tk/lib64/$(basename "$lib").so"
  done
  # The wheels have no static libraries. CMake's check of the CUDA compiler links a test program
  # with -lcudart_static -lcudadevrt: the first is the shared runtime under that name, the
  # second an empty archive (its device runtime serves separate compilation, which nothing here
  # uses). Every target itself links the shared runtime (CMAKE_CUDA_RUNTIME_LIBRARY=Shared).
  ln -sf libcudart.so.12 "$tk/lib64/libcudart_static.so"
  ar rc "$tk/lib64/libcudadevrt.a"
  chmod +x "$tk"/bin/* "$tk"/nvvm/bin/*
  # nvcc finds everything else from this file, beside it (as in NVIDIA's own layout).
  cat > "$tk/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
fi

# nvcc appends its own folders to PATH, so this toolkit's go first (not CUDA 13's ptxas).
export PATH="$tk/bin:$tk/nvvm/bin:$PATH"
nvcc --version | tail -n 1
started=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$tk/bin/nvcc" \
      -DCUDAToolkit_ROOT="$tk" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
      -DGEMM_EXERCISES=ON -DGEMM_EXERCISE_SELFTEST=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
# The programs link and start with CUDA 12.4's runtime (no GPU: --list needs none).
"$build/bin/01_naive" --list >/dev/null
"$build/bin/07_hopper" --list >/dev/null
"$build/tests/cpu_tests" >/dev/null
echo "CI (CUDA 12): every target compiled with CUDA 12.4 for sm_90 in $(( $(date +%s) - started )) s"
