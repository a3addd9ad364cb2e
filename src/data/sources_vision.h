// Image data sets with annotations, in their own on-disk formats: MindSpore's VOCDataset and
// CocoDataset (sources_detection.cc: VOC's XML through libxml2, COCO's JSON through
// nlohmann-json), ManifestDataset, CelebADataset, LSUNDataset, OmniglotDataset, LFWDataset and
// SUN397Dataset (sources_image_sets.cc). Every factory reads and checks the index files (image
// lists, annotations, attribute tables) at construction, so a missing or malformed file is an
// error there, naming the dataset class and the file; read(i) then reads row i's image file
// (and decodes it to uint8 [H, W, 3] when `decode`), thread-safe. Column names, dtypes and
// shapes are MindSpore's (each factory says them). Annotation files are untrusted input: they
// are read with a size bound (kMaxIndexFileBytes) and every field is checked before use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "data/source.h"

namespace mycel::data {

// The largest annotation or index file a source reads (1 GiB): larger is a RuntimeError, not
// an attempt to allocate whatever a corrupt size says.
constexpr uint64_t kMaxIndexFileBytes = uint64_t{1} << 30;

// A class table as MindSpore's get_class_indexing gives it: (name, ids) pairs in order
// (VOC: [label]; COCO: [category id], Panoptic [category id, isthing]).
using ClassTable = std::vector<std::pair<std::string, std::vector<int32_t>>>;

// MindSpore's VOCDataset over dataset_dir (VOC2012's layout). task "Segmentation": the ids of
// ImageSets/Segmentation/<usage>.txt, columns "image" (JPEGImages/<id>.jpg) and "target"
// (SegmentationClass/<id>.png), both uint8 file bytes, decoded when `decode`. task
// "Detection": the ids of ImageSets/Main/<usage>.txt whose Annotations/<id>.xml has at least
// one object kept (objects named in class_indexing, all when it is empty); columns "image",
// "bbox" (float32 [N, 4]: xmin, ymin, width, height), "label", "difficult", "truncate" (uint32
// [N, 1]). Labels: class_indexing's, else the sorted names of the objects found, numbered from
// 0 (*classes receives the table). extra_metadata adds "_meta-filename" (str, the id).
// Errors: ValueError for a bad task/usage file or class_indexing with Segmentation;
// RuntimeError for a missing or malformed XML file, an annotation without objects or a
// bndbox that is not a box (xmin, ymin > 0, xmax > xmin, ymax > ymin).
SourcePtr voc_source(const std::string& dataset_dir, const std::string& task,
                     const std::string& usage, const std::map<std::string, int32_t>& class_indexing,
                     bool decode, bool extra_metadata, ClassTable* classes);

// MindSpore's CocoDataset: images of dataset_dir named by annotation_file's "images" (in that
// order, those with annotations). task "Detection": "image", "bbox" (float32 [N, 4]),
// "category_id", "iscrowd" (uint32 [N, 1]); "Stuff": "image", "segmentation" (float32 [N, L],
// each polygon padded with -1 to the longest; crowd annotations give their RLE counts),
// "iscrowd"; "Keypoint": "image", "keypoints" (float32 [N, 51]), "num_keypoints" (uint32
// [N, 1]); "Panoptic": "image", "bbox", "category_id", "iscrowd", "area" (uint32 [N, 1]);
// "Captioning": "image", "captions" (str [N, 1]). *classes: the "categories" (name, [id]) or,
// for Panoptic, (name, [id, isthing]). extra_metadata adds "_meta-filename" (the file name
// without its extension). RuntimeError for malformed JSON, a missing key, an annotation whose
// image_id or category_id is not listed.
SourcePtr coco_source(const std::string& dataset_dir, const std::string& annotation_file,
                      const std::string& task, bool decode, bool extra_metadata,
                      ClassTable* classes);

// MindSpore's ManifestDataset: the JSON lines of dataset_file whose "usage" (lower-cased)
// equals usage ("train", "eval" or "inference") and whose "source" is a JPEG, PNG, GIF or BMP
// file (sniffed); "annotation"'s "name"s are the labels (only those in class_indexing when it
// is not empty). Labels: class_indexing's, else the sorted names numbered from 0. Columns
// "image" (uint8 bytes, decoded when `decode`) and "label" (int32: 0-d for one label, [k] for
// k). *classes receives (name, [label]); *num_classes the number of distinct names read.
SourcePtr manifest_source(const std::string& dataset_file, const std::string& usage,
                          const std::map<std::string, int32_t>& class_indexing, bool decode,
                          ClassTable* classes, int64_t* num_classes);

// MindSpore's CelebADataset: list_attr_celeba.txt (a row count, the attribute names, then
// "<file> <+-1 ...>" lines) and, for usage "train"/"valid"/"test", list_eval_partition.txt
// (partition 0/1/2 per line, in the same order). Files whose extension is not in `extensions`
// (when not empty) are skipped. Columns "image" (dataset_dir/<file>) and "attr" (uint32 [40]
// for CelebA's 40 attributes: 1 where the file says 1, else 0).
SourcePtr celeba_source(const std::string& dataset_dir, const std::string& usage,
                        const std::vector<std::string>& extensions, bool decode);

// MindSpore's LSUNDataset: the folders "<class>_train" ("train"), "<class>_val" ("valid"),
// both ("all") for the classes given (LSUN's ten when empty), or "test"; labels are the sorted
// folders' positions. Columns "image" and "label" (uint32, 0-d). *num_classes: classes found.
SourcePtr lsun_source(const std::string& dataset_dir, const std::string& usage,
                      const std::vector<std::string>& classes, bool decode, int64_t* num_classes);

// MindSpore's OmniglotDataset: images_background (background) or images_evaluation, as
// <alphabet>/<character>/<image>; each character folder a class, numbered in sorted
// "<alphabet>/<character>" order. Columns "image" and "label" (int32, 0-d).
SourcePtr omniglot_source(const std::string& dataset_dir, bool background, bool decode);

// MindSpore's SUN397Dataset: ClassName.txt lists the classes ("/a/abbey", ...), numbered in
// its order; each class folder's .jpg files are its images (sorted). Columns "image" and
// "label" (uint32, 0-d).
SourcePtr sun397_source(const std::string& dataset_dir, bool decode);

// MindSpore's LFWDataset: the index files of task ("people" or "pairs") and usage ("10fold":
// <task>.txt; "train"/"test"/"all": <task>DevTrain.txt and/or <task>DevTest.txt), images under
// the image_set folder ("original": lfw, "funneled": lfw_funneled, "deepfunneled":
// lfw-deepfunneled) as <name>/<name>_<4-digit id>.jpg. people: "image" and "label" (uint32, the
// name's line in lfw-names.txt); pairs: "image1", "image2", "label" (uint32, 1 for the same
// person).
SourcePtr lfw_source(const std::string& dataset_dir, const std::string& task,
                     const std::string& usage, const std::string& image_set, bool decode);

// MindSpore's EMnistDataset: MNIST's idx format and columns (sources.h's mnist_source), files
// emnist-<name>-{train,test}-{images-idx3,labels-idx1}-ubyte (plain or .gz), name one of
// byclass, bymerge, balanced, letters, digits, mnist (sources_image.cc).
SourcePtr emnist_source(const std::string& dataset_dir, const std::string& name,
                        const std::string& usage);

}  // namespace mycel::data
