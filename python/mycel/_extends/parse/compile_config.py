"""``mindspore._extends.parse.compile_config``: switches of the graph compiler that MindSpore
reads from module attributes.

``CHECK_BPROP``: in MindSpore, non-empty makes the compiler check that a Cell's ``bprop``
returns one gradient per input, each like its input. mycel always checks the number of
gradients a bprop returns (a TypeError naming the Cell), so the switch is accepted and has
nothing more to turn on."""

CHECK_BPROP = ""
