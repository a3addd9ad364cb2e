"""``mindspore.dataset.audio``: transforms of waveforms <..., time> and spectrograms
<..., freq, time>, usable in ``dataset.map`` and eagerly on numpy arrays.

The STFT family (Spectrogram, InverseSpectrogram, GriffinLim, MelScale, MelSpectrogram, MFCC,
LFCC, AmplitudeToDB, SpectralCentroid) and the filters (LFilter and the biquads) run in C++
(src/data/transforms_audio*.cc, with the engine's own FFT, src/data/audio_fft.cc); the
element-wise effects and masks (effects.py) are numpy. ``utils`` holds the enums and the
filter-bank / DCT matrices; ``transforms`` is this module (MindSpore's audio.transforms).
"""
import sys as _sys

from mycel.dataset.audio import utils, validators  # noqa: F401
from mycel.dataset.audio.effects import (Angle, ComplexNorm, ComputeDeltas, Contrast,  # noqa: F401
                                         DBToAmplitude, DCShift, Dither, Fade, FrequencyMasking,
                                         Gain, Magphase, MaskAlongAxis, MaskAlongAxisIID,
                                         MuLawDecoding, MuLawEncoding, Overdrive, TimeMasking, Vol)
from mycel.dataset.audio.transforms import (AllpassBiquad, AmplitudeToDB, BandBiquad,  # noqa: F401
                                            BandpassBiquad, BandrejectBiquad, BassBiquad, Biquad,
                                            DeemphBiquad, EqualizerBiquad, GriffinLim,
                                            HighpassBiquad, InverseSpectrogram, LFCC, LFilter,
                                            LowpassBiquad, MelScale, MelSpectrogram, MFCC,
                                            RiaaBiquad, SpectralCentroid, Spectrogram,
                                            TrebleBiquad)
from mycel.dataset.audio.sox_effects import (DetectPitchFrequency, Flanger,  # noqa: F401
                                              Phaser, SlidingWindowCmn)
from mycel.dataset.audio.time_freq import (Filtfilt, InverseMelScale, PhaseVocoder, PitchShift,  # noqa: F401
                                            Resample, TimeStretch)
from mycel.dataset.audio.vad import Vad  # noqa: F401
from mycel.dataset.audio.utils import (BorderType, DensityFunction, FadeShape,  # noqa: F401
                                       GainType, Interpolation, MelType, Modulation, NormMode,
                                       NormType, ResampleMethod, ScaleType, WindowType,
                                       create_dct, linear_fbanks, melscale_fbanks)
from mycel.dataset.audio import transforms as _transforms_module  # noqa: E402

# MindSpore's audio.transforms holds every transform: give the module all of them.
for _name in ("Angle", "ComplexNorm", "ComputeDeltas", "Contrast", "DBToAmplitude", "DCShift",
              "Dither", "Fade", "FrequencyMasking", "Gain", "Magphase", "MaskAlongAxis",
              "MaskAlongAxisIID", "MuLawDecoding", "MuLawEncoding", "Overdrive", "TimeMasking",
              "Vol", "Vad", "InverseMelScale", "DetectPitchFrequency", "Flanger", "Phaser", "SlidingWindowCmn", "Filtfilt", "PhaseVocoder", "PitchShift", "Resample", "TimeStretch"):
    setattr(_transforms_module, _name, globals()[_name])
del _sys
