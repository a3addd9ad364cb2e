// Binding of the CIFAR-100 source (src/data/cifar100.h); mycel/dataset/sources_cifar100.py
// wraps it as Cifar100Dataset.
#include "data/cifar100.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_cifar100(pyb::module_& m) {
  m.def("cifar100_source", &data::cifar100_source, pyb::arg("dataset_dir"), pyb::arg("usage"),
        "CIFAR-100's binary files in dataset_dir (data/cifar100.h).");
}

}  // namespace mycel::py
