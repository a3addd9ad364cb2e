"""mycel.train: training utilities, as MindSpore's ``mindspore.train``: Model, callbacks,
metrics, checkpoints, export."""
from mycel.train.serialization import (save_checkpoint, load_checkpoint,  # noqa: F401
                                       load_param_into_net)
from mycel.train.export import export, load  # noqa: F401
from mycel.train.mindir_proto import load_mindir, save_mindir  # noqa: F401
from mycel.train.model import Model  # noqa: F401
from mycel.train.data_sink import data_sink  # noqa: F401
from mycel.train.train_thor import ConvertModelUtils, ConvertNetUtils  # noqa: F401
from mycel.train.callback import (Callback, RunContext, LossMonitor, TimeMonitor,  # noqa: F401
                                  ModelCheckpoint, CheckpointConfig, ProgressBar)
from mycel.train.callback import (History, LambdaCallback, OnRequestExit,  # noqa: F401
                                  TrainFaultTolerance, BackupAndRestore)
from mycel.train.metrics import (Metric, Accuracy, Loss, MAE, MSE,  # noqa: F401
                                 TopKCategoricalAccuracy, Top1CategoricalAccuracy,
                                 Top5CategoricalAccuracy, rearrange_inputs)
from mycel.train.metrics_classify import (Precision, Recall, Fbeta, F1,  # noqa: F401
                                          ConfusionMatrix, ConfusionMatrixMetric, ROC, auc,
                                          Perplexity, Dice, BleuScore, CosineSimilarity)
from mycel.train.metrics_surface import (HausdorffDistance, MeanSurfaceDistance,  # noqa: F401
                                         RootMeanSquareDistance, OcclusionSensitivity)
from mycel.train.metric_factory import get_metric_fn, names  # noqa: F401
from mycel.train.loss_scale_manager import (LossScaleManager, FixedLossScaleManager,  # noqa: F401
                                            DynamicLossScaleManager)
from mycel.train.summary import SummaryRecord  # noqa: E402,F401
from mycel.train.summary._summary_collector import SummaryCollector  # noqa: E402,F401
from mycel.train.summary._landscape import SummaryLandscape  # noqa: E402,F401
from mycel.train.callback import (EarlyStopping, ReduceLROnPlateau,  # noqa: E402,F401
                                  LearningRateScheduler)
from mycel.train._ckpt_tools import (check_checkpoint, ckpt_to_safetensors,  # noqa: E402,F401
                                     safetensors_to_ckpt, load_checkpoint_async,
                                     async_ckpt_thread_status)
