"""mycel._extends.parse: MindSpore's parser package; only its compile_config is provided
(mycel's parser is C++: src/frontend)."""
from mycel._extends.parse import compile_config  # noqa: F401
