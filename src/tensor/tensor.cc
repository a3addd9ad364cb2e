#include "tensor/tensor.h"

#include <algorithm>

#include "base/parallel.h"
#include "tensor/allocator.h"
#include "tensor/size.h"
#include "tensor/strided.h"

namespace mycel {

// ---- Storage ---------------------------------------------------------------------------

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  void* p = nullptr;
  if (nbytes)
    p = device.is_cpu() ? host_alloc(nbytes) : backend_for(device).allocate(device.index, nbytes);
  return std::make_shared<Storage>(p, nbytes, nullptr, nullptr, device);
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, ReleaseFn release, void* ctx) {
  MC_ASSERT(release != nullptr);
  return std::make_shared<Storage>(data, nbytes, release, ctx);
}

void Storage::free_bytes() {
  if (release_)
    release_(ctx_);
  else if (device_.is_cpu())
    host_free(data_, nbytes_);
  else if (data_)
    backend_for(device_).release(device_.index, data_, nbytes_);
}

Storage::~Storage() { free_bytes(); }

void Storage::migrate(Device to) {
  if (to == device_) return;
  void* p = nullptr;
  if (nbytes_) {
    p = to.is_cpu() ? host_alloc(nbytes_) : backend_for(to).allocate(to.index, nbytes_);
    try {
      if (device_.is_cpu())
        backend_for(to).copy_h2d(to.index, p, data_, nbytes_);
      else if (to.is_cpu())
        backend_for(device_).copy_d2h(device_.index, p, data_, nbytes_);
      else
        MC_THROW(Runtime, "cannot move memory from ", device_name(device_), " to ", device_name(to),
                 " directly");
    } catch (...) {
      // The storage stays where it was (a device may report an earlier error on a wait).
      if (to.is_cpu())
        host_free(p, nbytes_);
      else
        backend_for(to).release(to.index, p, nbytes_);
      throw;
    }
  }
  free_bytes();
  data_ = p;
  release_ = nullptr;
  ctx_ = nullptr;
  device_ = to;
}

// ---- construction ----------------------------------------------------------------------

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  int64_t nbytes = checked_nbytes(shape, dtype_size(dtype), "Tensor");
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = Storage::allocate(static_cast<size_t>(nbytes), device);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor Tensor::full(const Shape& shape, Scalar value, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  t.fill(value);
  return t;
}

Tensor Tensor::make_view(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape,
                         const Shape& strides, int64_t offset) {
  MC_ASSERT(shape.size() == strides.size());
  // The furthest element reached must stay inside the storage.
  int64_t lo = offset, hi = offset;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) empty = true;
    int64_t span = (shape[i] - 1) * strides[i];
    (span < 0 ? lo : hi) += span;
  }
  int64_t cap = static_cast<int64_t>(storage->nbytes() / dtype_size(dtype));
  MC_ASSERT(empty || (lo >= 0 && hi < cap), "view out of bounds of its storage");
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

// ---- layout ----------------------------------------------------------------------------

bool Tensor::is_contiguous() const {
  int64_t acc = 1;
  for (size_t i = impl_->shape.size(); i-- > 0;) {
    int64_t d = impl_->shape[i];
    if (d == 1) continue;
    if (d == 0) return true;
    if (impl_->strides[i] != acc) return false;
    acc *= d;
  }
  return true;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor out = empty(shape(), dtype(), device());
  out.copy_from(*this);
  return out;
}

Tensor Tensor::cast(DType to) const {
  if (to == dtype()) return *this;
  Tensor out = empty(shape(), to, device());
  out.copy_from(*this);
  return out;
}

Tensor Tensor::to(Device d) const {
  Device from = device();
  if (d == from) return *this;
  Tensor src = contiguous();
  Tensor out = empty(shape(), dtype(), d);
  size_t n = nbytes();
  if (n == 0) return out;
  if (from.is_cpu()) {
    backend_for(d).copy_h2d(d.index, out.raw_data(), src.raw_data(), n);
  } else if (d.is_cpu()) {
    backend_for(from).copy_d2h(from.index, out.raw_data(), src.raw_data(), n);
  } else {  // between two devices: through the host
    return cpu().to(d);
  }
  return out;
}

Shape infer_reshape(const Shape& from, const Shape& to, std::string_view op) {
  Shape out = to, known_dims = to;
  int64_t infer_at = -1;
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] == -1) {
      MC_CHECK(infer_at < 0, Value, "For '", op, "', only one dimension of the target shape ", to,
               " can be -1.");
      infer_at = static_cast<int64_t>(i);
      known_dims[i] = 1;
    } else {
      MC_CHECK(to[i] >= 0, Value, "For '", op, "', the target shape ", to,
               " has a negative dimension.");
    }
  }
  int64_t known = checked_numel(known_dims, op);  // (2**62 + 3, 4) is a ValueError, not 12
  int64_t n = mycel::numel(from);
  if (infer_at >= 0) {
    MC_CHECK(known != 0 && n % known == 0, Value, "For '", op,
             "', cannot reshape a tensor of shape ", from, " (", n, " elements) to ", to, ".");
    out[static_cast<size_t>(infer_at)] = n / known;
  } else {
    MC_CHECK(known == n, Value, "For '", op, "', cannot reshape a tensor of shape ", from, " (", n,
             " elements) to ", to, " (", known, " elements).");
  }
  return out;
}

namespace {
// Strides that view (shape, strides) as `to` without copying, or false if impossible.
// Walks groups of old and new dims that multiply to the same size; each old group must be
// contiguous within itself.
bool view_strides(const Shape& shape, const Shape& strides, const Shape& to, Shape* out) {
  out->resize(to.size());
  if (mycel::numel(shape) == 0) {
    *out = contiguous_strides(to);
    return true;
  }
  size_t oi = 0, ni = 0;
  const size_t on = shape.size(), nn = to.size();
  while (ni < nn || oi < on) {
    // Skip size-1 dims on both sides.
    if (ni < nn && to[ni] == 1) {
      (*out)[ni] = 1;
      ++ni;
      continue;
    }
    if (oi < on && shape[oi] == 1) {
      ++oi;
      continue;
    }
    if (ni >= nn || oi >= on) return false;
    int64_t osize = shape[oi], nsize = to[ni];
    size_t ob = oi, nb = ni;
    while (osize != nsize) {
      if (osize < nsize) {
        if (++oi >= on) return false;
        osize *= shape[oi];
      } else {
        if (++ni >= nn) return false;
        nsize *= to[ni];
      }
    }
    // Old dims ob..oi must be contiguous with respect to each other (ignoring size-1 dims).
    for (size_t k = ob; k < oi; ++k) {
      if (shape[k] == 1) continue;
      size_t nx = k + 1;
      while (nx <= oi && shape[nx] == 1) ++nx;
      if (nx <= oi && strides[k] != strides[nx] * shape[nx]) return false;
    }
    int64_t st = strides[oi];
    for (size_t k = ni + 1; k-- > nb;) {
      (*out)[k] = st;
      st *= to[k];
    }
    ++oi;
    ++ni;
  }
  return true;
}
}  // namespace

Tensor Tensor::view(const Shape& shape_in, std::string_view op) const {
  Shape to = infer_reshape(shape(), shape_in, op);
  Shape st;
  MC_CHECK(view_strides(shape(), strides(), to, &st), Value, "For '", op, "', a tensor of shape ",
           shape(), " with strides ", strides(), " cannot be viewed as ", to, " without a copy.");
  return make_view(storage(), dtype(), to, st, offset());
}

Tensor Tensor::reshape(const Shape& shape_in, std::string_view op) const {
  Shape to = infer_reshape(shape(), shape_in, op);
  Shape st;
  if (view_strides(shape(), strides(), to, &st))
    return make_view(storage(), dtype(), to, st, offset());
  return clone().view(to, op);
}

Tensor Tensor::permute(const Shape& perm, std::string_view op) const {
  const int64_t n = ndim();
  MC_CHECK(static_cast<int64_t>(perm.size()) == n, Value, "For '", op, "', the permutation ", perm,
           " must have one entry per dimension of the input of shape ", shape(), ".");
  Shape sh(perm.size()), st(perm.size());
  SmallVector<bool, 8> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t a = normalize_axis(perm[i], n, op, "perm");
    MC_CHECK(!seen[a], Value, "For '", op, "', the permutation ", perm, " repeats axis ", perm[i],
             ".");
    seen[a] = true;
    sh[i] = dim(a);
    st[i] = strides()[a];
  }
  return make_view(storage(), dtype(), sh, st, offset());
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t stop, int64_t step) const {
  MC_ASSERT(step != 0 && d >= 0 && d < ndim());
  Shape sh = shape(), st = strides();
  int64_t len = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                         : (start > stop ? (start - stop - step - 1) / -step : 0);
  MC_ASSERT(len == 0 || (start >= 0 && start < sh[d] && start + (len - 1) * step >= 0 &&
                         start + (len - 1) * step < sh[d]));
  sh[d] = len;
  st[d] *= step;
  return make_view(storage(), dtype(), sh, st, offset() + (len ? start * strides()[d] : 0));
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  MC_ASSERT(d >= 0 && d < ndim() && index >= 0 && index < dim(d));
  Shape sh = shape(), st = strides();
  sh.erase(sh.begin() + d);
  st.erase(st.begin() + d);
  return make_view(storage(), dtype(), sh, st, offset() + index * strides()[d]);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  MC_ASSERT(d >= 0 && d <= ndim());
  Shape sh = shape(), st = strides();
  int64_t s = d < ndim() ? strides()[d] * dim(d) : 1;
  sh.insert(sh.begin() + d, 1);
  st.insert(st.begin() + d, s);
  return make_view(storage(), dtype(), sh, st, offset());
}

Tensor Tensor::squeeze_dim(int64_t d) const {
  MC_ASSERT(d >= 0 && d < ndim() && dim(d) == 1);
  Shape sh = shape(), st = strides();
  sh.erase(sh.begin() + d);
  st.erase(st.begin() + d);
  return make_view(storage(), dtype(), sh, st, offset());
}

Tensor Tensor::expand(const Shape& to, std::string_view op) const {
  MC_CHECK(to.size() >= shape().size(), Value, "For '", op, "', cannot broadcast shape ", shape(),
           " to ", to, ".");
  size_t off = to.size() - shape().size();
  for (size_t i = 0; i < shape().size(); ++i) {
    MC_CHECK(shape()[i] == to[off + i] || shape()[i] == 1, Value, "For '", op,
             "', cannot broadcast shape ", shape(), " to ", to, ".");
  }
  return make_view(storage(), dtype(), to, broadcast_strides(shape(), strides(), to), offset());
}

// ---- copies ----------------------------------------------------------------------------

namespace {

// Copies between dtypes convert as the Cast op does (saturating float -> int).
template <class D, class S>
inline D convert(S v) {
  return saturate_cast<D, S>(v);
}

template <class D, class S>
void copy_run(int64_t n, char** p, const int64_t* st) {
  char* d = p[0];
  const char* s = p[1];
  if (st[0] == sizeof(D) && st[1] == sizeof(S)) {
    D* dd = reinterpret_cast<D*>(d);
    const S* ss = reinterpret_cast<const S*>(s);
    for (int64_t i = 0; i < n; ++i) dd[i] = convert<D, S>(ss[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i, d += st[0], s += st[1]) {
    *reinterpret_cast<D*>(d) = convert<D, S>(*reinterpret_cast<const S*>(s));
  }
}

}  // namespace

void Tensor::copy_from(const Tensor& src_in) const {
  Tensor src = src_in.shape() == shape() ? src_in : src_in.expand(shape(), "copy");
  if (numel() == 0) return;
  // x[1:] = x[:-1]: the source may overlap the destination; read from a snapshot.
  if (src.storage() == storage()) src = src.clone();
  if (src.device() != device()) {
    // Move the bytes first (a broadcast source moves before it is expanded), then convert
    // and lay out on this tensor's device.
    Tensor moved = src_in.to(device());
    src = moved.shape() == shape() ? moved : moved.expand(shape(), "copy");
  }
  if (!device().is_cpu()) {
    backend_for(device()).strided_copy(*this, src);
    return;
  }
  if (src.dtype() == dtype()) {
    strided_copy(*this, src);
    return;
  }
  StridedLoop<2> loop(shape(), {strides().data(), src.strides().data()},
                      {static_cast<int64_t>(itemsize()), static_cast<int64_t>(src.itemsize())},
                      {static_cast<char*>(raw_data()), static_cast<char*>(src.raw_data())});
  dispatch_any(dtype(), "copy", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch_any(src.dtype(), "copy", [&](auto stag) {
      using S = typename decltype(stag)::type;
      loop.run_parallel(32768,
                        [](int64_t n, char** p, const int64_t* st) { copy_run<D, S>(n, p, st); });
    });
  });
}

void Tensor::fill(Scalar value) const {
  if (numel() == 0) return;
  Tensor src = Tensor::empty({}, dtype());  // on the host; copy_from moves it
  dispatch_any(dtype(), "fill", [&](auto tag) {
    using T = typename decltype(tag)::type;
    *src.data<T>() = value.to<T>();
  });
  copy_from(src);
}

Scalar Tensor::item() const {
  MC_CHECK(numel() == 1, Value,
           "only a tensor with one element can be converted to a scalar, "
           "but got shape ",
           shape(), ".");
  if (!device().is_cpu()) return cpu().item();
  return dispatch_all(dtype(), "item", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    T v = *static_cast<const T*>(raw_data());
    if constexpr (std::is_same_v<T, bool>)
      return Scalar::from_bool(v);
    else if constexpr (std::is_integral_v<T>)
      return Scalar::from_int(v);
    else
      return Scalar::from_float(static_cast<double>(static_cast<compute_t<T>>(v)));
  });
}

double Tensor::element_as_double(int64_t flat) const {
  if (!device().is_cpu()) return cpu().element_as_double(flat);
  int64_t off = 0;
  for (size_t i = shape().size(); i-- > 0;) {
    off += (flat % shape()[i]) * strides()[i];
    flat /= shape()[i];
  }
  return dispatch_all(dtype(), "element", [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    const T* base = static_cast<const T*>(storage()->data()) + offset();
    return static_cast<double>(static_cast<compute_t<T>>(base[off]));
  });
}

}  // namespace mycel
