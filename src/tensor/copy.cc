// Same-dtype strided copies (strided_copy, declared in tensor.h): the engine under
// Tensor::copy_from, contiguous(), and every array kernel that moves elements. Contiguous
// pairs are one memcpy, contiguous rows a memcpy per row, transposes go through cache-sized
// tiles; large copies run on parallel_for.
#include <algorithm>
#include <cstring>

#include "base/parallel.h"
#include "tensor/strided.h"
#include "tensor/tensor.h"

namespace mycel {

namespace {

constexpr int64_t kCopyGrainBytes = 1 << 16;
constexpr int64_t kTile = 32;

// Dimensions of a copy, innermost first, size-1 dimensions dropped and mergeable ones merged.
struct CopyDims {
  SmallVector<int64_t, 6> n, ds, ss;  // sizes, dst and src element strides
};

CopyDims copy_dims(const Tensor& dst, const Tensor& src) {
  CopyDims c;
  for (size_t i = dst.shape().size(); i-- > 0;) {
    if (dst.shape()[i] == 1) continue;
    int64_t n = dst.shape()[i], ds = dst.strides()[i], ss = src.strides()[i];
    size_t k = c.n.size();
    if (k > 0 && ds == c.ds[k - 1] * c.n[k - 1] && ss == c.ss[k - 1] * c.n[k - 1]) {
      c.n[k - 1] *= n;
      continue;
    }
    c.n.push_back(n);
    c.ds.push_back(ds);
    c.ss.push_back(ss);
  }
  return c;
}

// A 16-byte element (complex128), copied as a unit.
struct alignas(8) Bytes16 {
  uint64_t lo, hi;
};

template <class U>
void copy_block(U* d, const U* s, int64_t n, int64_t ds, int64_t ss) {
  if (ds == 1 && ss == 1) {
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(U));
  } else if (ss == 0) {
    const U v = *s;
    for (int64_t i = 0; i < n; ++i) d[i * ds] = v;
  } else if (ds == 1) {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i * ss];
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * ds] = s[i * ss];
  }
}

// Transpose-like copies: dst is contiguous along dims 0 and src along dim j. Tiles of
// kTile x kTile keep both sides' cache lines live; the other dims and the tiles of dim j are the
// parallel work units.
template <class U>
void tiled_copy(U* dst, const U* src, const CopyDims& c, size_t j) {
  SmallVector<int64_t, 6> on, ods, oss;  // the outer dims (all but 0 and j)
  for (size_t k = 1; k < c.n.size(); ++k) {
    if (k == j) continue;
    on.push_back(c.n[k]);
    ods.push_back(c.ds[k]);
    oss.push_back(c.ss[k]);
  }
  const int64_t n0 = c.n[0], nj = c.n[j], dsj = c.ds[j], ss0 = c.ss[0];
  const int64_t tiles_j = (nj + kTile - 1) / kTile;
  int64_t outer = 1;
  for (int64_t v : on) outer *= v;
  const int64_t unit_elems = std::max<int64_t>(1, n0 * std::min(nj, kTile));
  const int64_t grain = std::max<int64_t>(1, kCopyGrainBytes / (unit_elems * sizeof(U)));
  parallel_for(0, outer * tiles_j, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      int64_t o = u / tiles_j, jb = (u % tiles_j) * kTile;
      int64_t doff = 0, soff = 0;
      for (size_t k = 0; k < on.size(); ++k) {
        int64_t idx = o % on[k];
        o /= on[k];
        doff += idx * ods[k];
        soff += idx * oss[k];
      }
      const int64_t je = std::min(nj, jb + kTile);
      for (int64_t ib = 0; ib < n0; ib += kTile) {
        const int64_t ie = std::min(n0, ib + kTile);
        for (int64_t a = jb; a < je; ++a) {
          U* d = dst + doff + a * dsj;
          const U* s = src + soff + a;
          for (int64_t i = ib; i < ie; ++i) d[i] = s[i * ss0];
        }
      }
    }
  });
}

template <class U>
void copy_typed(const Tensor& dst, const Tensor& src) {
  U* d = static_cast<U*>(dst.raw_data());
  const U* s = static_cast<const U*>(src.raw_data());
  const int64_t total = dst.numel();
  CopyDims c = copy_dims(dst, src);
  if (c.n.empty() || (c.n.size() == 1 && c.ds[0] == 1 && c.ss[0] == 1)) {
    const int64_t grain = std::max<int64_t>(1, kCopyGrainBytes / static_cast<int64_t>(sizeof(U)));
    parallel_for(0, total, grain, [&](int64_t b, int64_t e) {
      std::memcpy(d + b, s + b, static_cast<size_t>(e - b) * sizeof(U));
    });
    return;
  }
  if (c.ds[0] == 1 && c.ss[0] != 1 && c.ss[0] != 0 && total >= 1024) {
    for (size_t j = 1; j < c.n.size(); ++j) {
      if (c.ss[j] == 1 && c.n[0] >= 8 && c.n[j] >= 8) {
        tiled_copy<U>(d, s, c, j);
        return;
      }
    }
  }
  const int64_t isz = static_cast<int64_t>(sizeof(U));
  StridedLoop<2> loop(dst.shape(), {dst.strides().data(), src.strides().data()}, {isz, isz},
                      {static_cast<char*>(dst.raw_data()), static_cast<char*>(src.raw_data())});
  loop.run_parallel(kCopyGrainBytes / isz, [](int64_t n, char** p, const int64_t* st) {
    copy_block<U>(reinterpret_cast<U*>(p[0]), reinterpret_cast<const U*>(p[1]), n,
                  st[0] / static_cast<int64_t>(sizeof(U)), st[1] / static_cast<int64_t>(sizeof(U)));
  });
}

}  // namespace

void strided_copy(const Tensor& dst, const Tensor& src) {
  MC_ASSERT(dst.dtype() == src.dtype() && dst.shape() == src.shape(), "strided_copy of ",
            src.dtype(), src.shape(), " into ", dst.dtype(), dst.shape());
  if (dst.numel() == 0) return;
  if (!dst.device().is_cpu()) {  // a device's own strided copy (tensor/device.h)
    MC_ASSERT(src.device() == dst.device(), "strided_copy across devices");
    backend_for(dst.device()).strided_copy(dst, src);
    return;
  }
  switch (dst.itemsize()) {
    case 1:
      copy_typed<uint8_t>(dst, src);
      break;
    case 2:
      copy_typed<uint16_t>(dst, src);
      break;
    case 4:
      copy_typed<uint32_t>(dst, src);
      break;
    case 8:
      copy_typed<uint64_t>(dst, src);
      break;
    default:
      MC_ASSERT(dst.itemsize() == 16, "strided_copy of ", dst.itemsize(), "-byte elements");
      copy_typed<Bytes16>(dst, src);
      break;
  }
}

}  // namespace mycel
